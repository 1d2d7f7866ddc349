package crawl

import (
	"context"
	"net/url"
	"strings"
	"sync"
	"time"
)

// hostGate lets one request at a time reach a host and spaces requests by
// the host's crawl delay.
type hostGate struct {
	sem  chan struct{}
	last time.Time
}

type politeness struct {
	mu    sync.Mutex
	hosts map[string]*hostGate
}

func (p *politeness) gate(key string) *hostGate {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.hosts == nil {
		p.hosts = map[string]*hostGate{}
	}
	g := p.hosts[key]
	if g == nil {
		g = &hostGate{sem: make(chan struct{}, 1)}
		p.hosts[key] = g
	}
	return g
}

// acquire blocks until the host is free and its crawl delay has passed; the
// returned release must be called when the request is done.
func (p *politeness) acquire(ctx context.Context, key string, delay time.Duration) (func(), error) {
	g := p.gate(key)
	select {
	case g.sem <- struct{}{}:
	case <-ctx.Done():
		return nil, ctx.Err()
	}
	if wait := time.Until(g.last.Add(delay)); wait > 0 && !g.last.IsZero() {
		t := time.NewTimer(wait)
		defer t.Stop()
		select {
		case <-t.C:
		case <-ctx.Done():
			<-g.sem
			return nil, ctx.Err()
		}
	}
	return func() {
		g.last = time.Now()
		<-g.sem
	}, nil
}

// hostKey identifies a host for politeness: host name and port, any scheme.
func hostKey(u *url.URL) string {
	return strings.ToLower(u.Host)
}
