package db

import (
	"context"
	"database/sql"
	"path/filepath"
	"testing"
	"time"
)

// profiledFile is a closed database file holding n live listings and
// their ready-made profiles, with no full-text merge debt, so the merger
// has nothing to commit after a reopen (a commit would empty the warmed
// caches).
func profiledFile(t *testing.T, n int) string {
	t.Helper()
	ctx := context.Background()
	path := filepath.Join(t.TempDir(), "w.db")
	d, err := Open(ctx, path)
	if err != nil {
		t.Fatal(err)
	}
	seedAlphas(t, d, n, "warm")
	if err := d.RebuildStaleProfiles(ctx); err != nil {
		t.Fatal(err)
	}
	var rows int
	if err := d.R.QueryRowContext(ctx, `SELECT count(key) FROM listing_profiles NOT INDEXED`).Scan(&rows); err != nil || rows != n {
		t.Fatalf("%d ready-made profiles (%v), want %d", rows, err, n)
	}
	if _, err := d.W.ExecContext(ctx, `INSERT INTO listings_fts(listings_fts) VALUES('optimize')`); err != nil {
		t.Fatal(err)
	}
	if err := d.Close(); err != nil {
		t.Fatal(err)
	}
	return path
}

// Every read connection is open and holds the ready-made profiles' pages
// once the start-up warm-up is done: walking every key misses no page on
// it, and misses a page per leaf on a connection opened without it.
func TestReadersWarmAtOpen(t *testing.T) {
	// Probes slowed by a busy machine (the full suite on two cores) must
	// not pass for disk reads here: that stop has its own test.
	defer func(d time.Duration) { coldProbe = d }(coldProbe)
	coldProbe = time.Hour
	ctx := context.Background()
	path := profiledFile(t, 400)
	var rows int
	const conns = 3
	d, err := OpenWith(ctx, path, Options{ReadConns: conns})
	if err != nil {
		t.Fatal(err)
	}
	defer d.Close()
	d.bg.Wait()
	if got := d.R.Stats().OpenConnections; got != conns {
		t.Fatalf("%d read connections open after the warm-up, want %d", got, conns)
	}
	cold, err := sql.Open("sqlite", dsn(path, true, DefaultReadCacheKB))
	if err != nil {
		t.Fatal(err)
	}
	defer cold.Close()
	cc, err := cold.Conn(ctx)
	if err != nil {
		t.Fatal(err)
	}
	defer cc.Close()
	walk := func(c *sql.Conn) int {
		before := cacheMisses(t, c)
		if err := c.QueryRowContext(ctx, `SELECT count(key) FROM listing_profiles NOT INDEXED`).Scan(&rows); err != nil || rows != 400 {
			t.Fatalf("walked %d keys (%v)", rows, err)
		}
		return cacheMisses(t, c) - before
	}
	coldMissed := walk(cc)
	t.Logf("cold: %d misses", coldMissed)
	if missed := coldMissed; missed < 5 {
		t.Fatalf("a cold connection missed %d pages walking the keys: the test shows nothing", missed)
	}
	held := make([]*sql.Conn, 0, conns)
	for range conns { // all idle: each is one of the warmed ones
		c, err := d.R.DB.Conn(ctx)
		if err != nil {
			t.Fatal(err)
		}
		held = append(held, c)
	}
	for i, c := range held {
		if missed := walk(c); missed != 0 {
			t.Errorf("read connection %d missed %d pages walking the keys after the warm-up", i, missed)
		}
		c.Close()
	}
}

// Opening and closing at once, while the warm-up runs, neither hangs nor
// fails: Close ends the warm-up.
func TestCloseWhileWarming(t *testing.T) {
	ctx := context.Background()
	path := profiledFile(t, 50)
	for range 20 {
		d, err := Open(ctx, path)
		if err != nil {
			t.Fatal(err)
		}
		if err := d.Close(); err != nil {
			t.Fatal(err)
		}
	}
}

// A reader holding a connection while it waits for another is not stalled
// by the warm-up holding the rest: the warm-up takes what it gets within
// warmWait and leaves the others.
func TestWarmUpLeavesABusyPool(t *testing.T) {
	ctx := context.Background()
	d, err := Open(ctx, profiledFile(t, 50))
	if err != nil {
		t.Fatal(err)
	}
	defer d.Close()
	d.bg.Wait()
	held, err := d.R.DB.Conn(ctx) // a reader mid-page
	if err != nil {
		t.Fatal(err)
	}
	defer held.Close()
	done := make(chan error, 1)
	go func() { done <- d.warmReaders(ctx, DefaultReadConns()) }()
	select {
	case err := <-done:
		if err != nil {
			t.Fatal(err)
		}
	case <-time.After(5 * time.Second):
		t.Fatal("the warm-up waited for a connection a reader holds")
	}
	var n int // the reader's second query finds a connection
	qctx, cancel := context.WithTimeout(ctx, 5*time.Second)
	defer cancel()
	if err := d.R.QueryRowContext(qctx, `SELECT count(*) FROM listing_profiles`).Scan(&n); err != nil || n != 50 {
		t.Fatalf("second read: %d, %v", n, err)
	}
}

// A file whose probes are slow (not in the OS cache) is not read through:
// each connection stops after warmSample probes.
func TestWarmUpStopsOnASlowFile(t *testing.T) {
	defer func(d time.Duration) { coldProbe = d }(coldProbe)
	coldProbe = 0 // every probe counts as a disk read
	ctx := context.Background()
	d, err := OpenWith(ctx, profiledFile(t, 400), Options{ReadConns: 2})
	if err != nil {
		t.Fatal(err)
	}
	defer d.Close()
	d.bg.Wait()
	c, err := d.R.DB.Conn(ctx)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	before := cacheMisses(t, c)
	var rows int
	if err := c.QueryRowContext(ctx, `SELECT count(key) FROM listing_profiles NOT INDEXED`).Scan(&rows); err != nil || rows != 400 {
		t.Fatalf("walked %d keys (%v)", rows, err)
	}
	// 64 of 400 listings probed: most leaves were never read.
	if missed := cacheMisses(t, c) - before; missed < 40 {
		t.Fatalf("a connection stopped after %d probes missed only %d pages walking the keys", warmSample, missed)
	}
}
