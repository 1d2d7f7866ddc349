package db

import (
	"bytes"
	"context"
	"database/sql"
	"sync"
	"testing"
)

// A pinned context reads one snapshot: a write committed after its first
// read is not seen until the pin ends; an unpinned read sees it at once.
func TestPinnedReadsSeeOneSnapshot(t *testing.T) {
	d, ctx := tempDB(t)
	seedAlphas(t, d, 3, "first words")
	tagline := func(ctx context.Context) string {
		t.Helper()
		var s string
		if err := d.R.QueryRowContext(ctx, `SELECT tagline FROM listings WHERE id = 1`).Scan(&s); err != nil {
			t.Fatal(err)
		}
		return s
	}
	pctx, done := d.PinReads(ctx)
	if pinOf(pctx) == nil {
		t.Fatal("no pin on a pool of four")
	}
	if got := tagline(pctx); got != "first words" {
		t.Fatalf("pinned read: %q", got)
	}
	if _, err := d.W.ExecContext(ctx, `UPDATE listings SET tagline = 'second words' WHERE id = 1`); err != nil {
		t.Fatal(err)
	}
	if got := tagline(ctx); got != "second words" {
		t.Fatalf("unpinned read after the write: %q", got)
	}
	// The pinned page goes on seeing its snapshot, through every way of
	// reading the pool: the pool, its prepared statements, ReadTx.
	if got := tagline(pctx); got != "first words" {
		t.Fatalf("pinned read after the write: %q, want the page's snapshot", got)
	}
	var viaQuerier string
	if err := d.Prepared(d.R).QueryRowContext(pctx, `SELECT tagline FROM listings WHERE id = 1`).Scan(&viaQuerier); err != nil || viaQuerier != "first words" {
		t.Fatalf("pinned prepared read: %q, %v", viaQuerier, err)
	}
	var viaReadTx string
	if err := d.ReadTx(pctx, func(q Queries) error {
		return q.QueryRowContext(pctx, `SELECT tagline FROM listings WHERE id = 1`).Scan(&viaReadTx)
	}); err != nil || viaReadTx != "first words" {
		t.Fatalf("pinned ReadTx: %q, %v", viaReadTx, err)
	}
	done()
	if got := tagline(pctx); got != "second words" {
		t.Fatalf("read after the pin ended: %q", got)
	}
	done() // twice is harmless
}

// A pinned page's snapshot may be older than the read cache's newest
// generation: what it reads is cached under the generation of its pin, so
// another request never gets the older profile after a write.
func TestPinnedReadNeverCachesAnOlderSnapshot(t *testing.T) {
	d, ctx := tempDB(t)
	seedAlphas(t, d, 3, "first words")
	pctx, done := d.PinReads(ctx)
	defer done()
	var n int
	if err := d.R.QueryRowContext(pctx, `SELECT count(*) FROM listings`).Scan(&n); err != nil { // the snapshot begins
		t.Fatal(err)
	}
	if _, err := d.W.ExecContext(ctx, `UPDATE listings SET tagline = 'second words' WHERE slug = 'item-1'`); err != nil {
		t.Fatal(err)
	}
	old, err := d.LiveListingJSON(pctx, "item-1")
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Contains(old.JSON, []byte("first words")) {
		t.Fatalf("the pinned page's profile is not its snapshot's: %s", old.JSON)
	}
	got, err := d.LiveListingJSON(ctx, "item-1")
	if err != nil {
		t.Fatal(err)
	}
	fresh, err := d.liveListingEncoded(ctx, "item-1")
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(got.JSON, fresh.JSON) || !bytes.Contains(got.JSON, []byte("second words")) {
		t.Fatalf("after the write another request got\n%s\nwant\n%s", got.JSON, fresh.JSON)
	}
}

// At most half the pool is pinned; a page that finds every pin taken runs
// unpinned at once (it never waits for one), and a pin ended is free again.
// A pool of one has no pins: a pinned page would hold its only connection.
func TestPinsTakeAtMostHalfThePool(t *testing.T) {
	d, ctx := tempDB(t)
	conns := DefaultReadConns()
	var ends []func()
	for i := range conns / 2 {
		pctx, done := d.PinReads(ctx)
		if pinOf(pctx) == nil {
			t.Fatalf("pin %d of %d not given", i+1, conns/2)
		}
		ends = append(ends, done)
	}
	pctx, done := d.PinReads(ctx)
	if pinOf(pctx) != nil {
		t.Fatalf("pin %d given on a pool of %d", conns/2+1, conns)
	}
	done()
	if _, full := d.PinStats(); full != 1 {
		t.Fatalf("%d pages counted as finding every pin taken, want 1", full)
	}
	ends[0]()
	if pctx, done := d.PinReads(ctx); pinOf(pctx) == nil {
		t.Fatal("an ended pin was not free again")
	} else {
		done()
	}
	d.R.SetMaxOpenConns(1)
	if pctx, done := d.PinReads(ctx); pinOf(pctx) != nil {
		t.Fatal("a pool of one has pins")
	} else {
		done()
	}
	for _, end := range ends[1:] {
		end() // the pins given before the pool was resized go back
	}
}

// The sections of a page read at once (site's parallel): on one pinned
// transaction they all get their rows.
func TestPinnedReadsFromManyGoroutines(t *testing.T) {
	d, ctx := tempDB(t)
	seedAlphas(t, d, 50, "many words")
	pctx, done := d.PinReads(ctx)
	defer done()
	var wg sync.WaitGroup
	errs := make(chan error, 16)
	for range 16 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			rows, err := d.R.QueryContext(pctx, `SELECT id FROM listings ORDER BY id`)
			if err != nil {
				errs <- err
				return
			}
			n := 0
			for rows.Next() {
				n++
			}
			if err := rows.Close(); err != nil {
				errs <- err
			} else if n != 50 {
				errs <- sql.ErrNoRows
			}
		}()
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Fatal(err)
	}
	if made, _ := d.PinStats(); made != 1 {
		t.Fatalf("%d pins made, want 1", made)
	}
}
