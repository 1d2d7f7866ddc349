package site

import (
	"context"
	"path/filepath"
	"sync/atomic"
	"testing"
	"time"

	"launchdir/db"
)

// A page's sections run at once, except on a page pinned to one read
// transaction: there they share one connection, where one prepared
// statement run twice at once cuts the first run's rows short (the home
// page lost its "this week" section), so they run one after another.
func TestParallelSectionsOneAtATimeWhenPinned(t *testing.T) {
	d, err := db.Open(context.Background(), filepath.Join(t.TempDir(), "p.db"))
	if err != nil {
		t.Fatal(err)
	}
	defer d.Close()
	most := func(ctx context.Context) int32 {
		var now, peak atomic.Int32
		section := func() error {
			n := now.Add(1)
			for p := peak.Load(); n > p && !peak.CompareAndSwap(p, n); p = peak.Load() {
			}
			time.Sleep(20 * time.Millisecond)
			now.Add(-1)
			return nil
		}
		if err := parallel(ctx, section, section, section); err != nil {
			t.Fatal(err)
		}
		return peak.Load()
	}
	if n := most(context.Background()); n < 2 {
		t.Errorf("unpinned: at most %d section at a time, want them at once", n)
	}
	pctx, done := d.PinReads(context.Background())
	if !db.Pinned(pctx) {
		t.Fatal("no pin on a fresh pool")
	}
	if n := most(pctx); n != 1 {
		t.Errorf("pinned: %d sections at a time, want 1", n)
	}
	done()
	if db.Pinned(pctx) {
		t.Fatal("still pinned after the pin ended")
	}
	if n := most(pctx); n < 2 {
		t.Errorf("after the pin ended: at most %d section at a time, want them at once", n)
	}
}
