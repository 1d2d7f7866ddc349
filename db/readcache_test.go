package db

import (
	"context"
	"fmt"
	"testing"
)

// A write retires every cached read; the entries it retired leave the map
// with the next read put (they are never served again), and a read that
// began before the write is not kept after it.
func TestReadCacheDropsRetiredEntries(t *testing.T) {
	d, ctx := tempDB(t)
	read := func(key string) (string, error) {
		return memo(ctx, d, key, func(context.Context) (string, error) { return "value of " + key, nil })
	}
	for i := range readCacheMax {
		if _, err := read(fmt.Sprint("k", i)); err != nil {
			t.Fatal(err)
		}
	}
	if n := cachedEntries(d); n != readCacheMax {
		t.Fatalf("%d entries after %d reads in one generation, want %d", n, readCacheMax, readCacheMax)
	}
	before := d.rc.gen.Load()
	if _, err := d.W.ExecContext(ctx, `UPDATE settings SET value = value WHERE 0`); err != nil {
		t.Fatal(err)
	}
	if _, err := d.W.ExecContext(ctx, `INSERT INTO settings(key, value) VALUES('readcache-test', '1')`); err != nil {
		t.Fatal(err)
	}
	if d.rc.gen.Load() == before {
		t.Fatal("a committed write did not retire the cached reads")
	}
	if v, err := read("k1"); err != nil || v != "value of k1" {
		t.Fatalf("read after the write: %q, %v", v, err)
	}
	if n := cachedEntries(d); n != 1 {
		t.Fatalf("%d entries after a write and one read, want 1 (the retired ones dropped)", n)
	}
	d.rc.put("late", before, "read under the retired generation")
	if _, ok := d.rc.get("late", before); ok || cachedEntries(d) != 1 {
		t.Fatalf("an entry read before the write was kept after it (%d entries)", cachedEntries(d))
	}
}

func cachedEntries(d *DB) int {
	d.rc.mu.Lock()
	defer d.rc.mu.Unlock()
	return len(d.rc.m)
}
