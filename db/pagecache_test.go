package db

import (
	"context"
	"database/sql"
	"path/filepath"
	"strings"
	"testing"

	"modernc.org/sqlite"
)

// cacheMisses is the connection's running count of pages SQLite had to
// read because they were not in its page cache.
func cacheMisses(t *testing.T, c *sql.Conn) int {
	t.Helper()
	var n int
	err := c.Raw(func(dc any) error {
		if sc, ok := dc.(*stmtConn); ok { // a pool's connection (connstmts.go)
			dc = sc.rawConn
		}
		cur, _, err := dc.(sqlite.DBStatus).Status(sqlite.DBStatusCacheMiss, false)
		n = cur
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	return n
}

// rereadMisses reads a small range on one connection, lets two others
// scan a table twenty times their cache, and returns how many pages the
// first connection then misses re-reading its range.
func rereadMisses(t *testing.T, path string) int {
	t.Helper()
	ctx := context.Background()
	pool, err := sql.Open("sqlite", "file:"+path+"?_pragma=cache_size(-200)&_pragma=query_only(ON)")
	if err != nil {
		t.Fatal(err)
	}
	defer pool.Close()
	var conns [3]*sql.Conn
	for i := range conns {
		if conns[i], err = pool.Conn(ctx); err != nil {
			t.Fatal(err)
		}
		defer conns[i].Close()
	}
	var sum int
	small := `SELECT sum(length(b)) FROM t WHERE id <= 40`
	for range 2 {
		if err := conns[0].QueryRowContext(ctx, small).Scan(&sum); err != nil {
			t.Fatal(err)
		}
	}
	for _, c := range conns[1:] {
		if err := c.QueryRowContext(ctx, `SELECT sum(length(b)) FROM t`).Scan(&sum); err != nil {
			t.Fatal(err)
		}
	}
	before := cacheMisses(t, conns[0])
	if err := conns[0].QueryRowContext(ctx, small).Scan(&sum); err != nil {
		t.Fatal(err)
	}
	return cacheMisses(t, conns[0]) - before
}

// TestPageCachesArePerConnection: a connection's cached pages survive
// other connections' reads (pagecache.go). The control run puts SQLite's
// shared pool back for one pool and must see the pages evicted, so the
// test fails if the flag stops meaning what pagecache.go assumes.
func TestPageCachesArePerConnection(t *testing.T) {
	if pcache1Global.FseparateCache != 1 {
		t.Fatal("SQLite's page caches are still one shared pool (pagecache.go)")
	}
	path := filepath.Join(t.TempDir(), "pc.db")
	w, err := sql.Open("sqlite", "file:"+path)
	if err != nil {
		t.Fatal(err)
	}
	defer w.Close()
	if _, err := w.Exec(`CREATE TABLE t (id INTEGER PRIMARY KEY, b TEXT);
		WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i+1 FROM n WHERE i < 4000)
		INSERT INTO t SELECT i, ? FROM n`, strings.Repeat("x", 1000)); err != nil {
		t.Fatal(err)
	}
	// 4,000 rows of 1 KB: about 1,000 pages against 50 per connection.
	if got := rereadMisses(t, path); got != 0 {
		t.Errorf("re-reading 10 cached pages after other connections' scans: %d misses, want 0", got)
	}

	pcache1Global.FseparateCache = 0
	shared := rereadMisses(t, path)
	pcache1Global.FseparateCache = 1
	if shared == 0 {
		t.Errorf("control: with the shared pool the other scans evicted nothing; the test no longer tells the two apart")
	}
	t.Logf("misses on the re-read: 0 per connection, %d with the shared pool", shared)
}
