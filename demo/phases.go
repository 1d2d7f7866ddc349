package demo

import (
	"context"
	"fmt"
	"strings"
	"time"
)

// Phases records how long each step of a long job took, in order, so the
// seeder can say where its minutes went (a 1M seed is a few minutes, and
// which step grew is the first question when it gets slower).
type Phases struct {
	names []string
	took  []time.Duration
	last  time.Time
}

// NewPhases starts the clock.
func NewPhases() *Phases { return &Phases{last: time.Now()} }

// Done ends the phase running since the previous Done (or the start).
func (p *Phases) Done(name string) {
	if p == nil {
		return
	}
	now := time.Now()
	p.names = append(p.names, name)
	p.took = append(p.took, now.Sub(p.last))
	p.last = now
}

// String lists the phases: "rows 80.1s, search index 30.2s".
func (p *Phases) String() string {
	if p == nil {
		return ""
	}
	parts := make([]string, len(p.names))
	for i, n := range p.names {
		parts[i] = fmt.Sprintf("%s %.1fs", n, p.took[i].Seconds())
	}
	return strings.Join(parts, ", ")
}

type phasesKey struct{}

// WithPhases has Seed record its phases in p.
func WithPhases(ctx context.Context, p *Phases) context.Context {
	return context.WithValue(ctx, phasesKey{}, p)
}

// PhasesOf is the recorder of ctx, or nil (whose Done does nothing).
func PhasesOf(ctx context.Context) *Phases {
	p, _ := ctx.Value(phasesKey{}).(*Phases)
	return p
}
