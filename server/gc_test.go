package server

import (
	"math"
	"runtime/debug"
	"testing"
)

// The server collects at GOGC=400 under a 64 MiB soft limit unless the
// environment sets either, which then wins.
func TestGCSettings(t *testing.T) {
	prevPercent, prevLimit := debug.SetGCPercent(100), debug.SetMemoryLimit(math.MaxInt64)
	t.Cleanup(func() { debug.SetGCPercent(prevPercent); debug.SetMemoryLimit(prevLimit) })

	t.Setenv("GOGC", "")
	t.Setenv("GOMEMLIMIT", "")
	gcSettings()
	if p := debug.SetGCPercent(100); p != 400 {
		t.Errorf("GOGC unset: GC percent %d, want 400", p)
	}
	if l := debug.SetMemoryLimit(math.MaxInt64); l != 64<<20 {
		t.Errorf("GOMEMLIMIT unset: limit %d, want %d", l, 64<<20)
	}

	t.Setenv("GOGC", "150")
	t.Setenv("GOMEMLIMIT", "1GiB")
	debug.SetGCPercent(150)
	debug.SetMemoryLimit(1 << 30)
	gcSettings()
	if p := debug.SetGCPercent(150); p != 150 {
		t.Errorf("GOGC=150: GC percent %d", p)
	}
	if l := debug.SetMemoryLimit(1 << 30); l != 1<<30 {
		t.Errorf("GOMEMLIMIT=1GiB: limit %d", l)
	}
}
