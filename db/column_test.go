package db

import (
	"bytes"
	"context"
	"database/sql"
	"path/filepath"
	"testing"
)

// TestOwnedBytesOutliveTheRow pins what ownedBytes relies on: the driver's
// BLOB slice stays as it was after the next row, the rows' close, and
// further statements on the same connection (a driver that reused a buffer
// would change the first value here).
func TestOwnedBytesOutliveTheRow(t *testing.T) {
	ctx := context.Background()
	pool, err := sql.Open("sqlite", "file:"+filepath.Join(t.TempDir(), "b.db"))
	if err != nil {
		t.Fatal(err)
	}
	defer pool.Close()
	pool.SetMaxOpenConns(1)
	if _, err := pool.ExecContext(ctx, `CREATE TABLE t (id INTEGER PRIMARY KEY, b BLOB, s TEXT);
		INSERT INTO t VALUES (1, randomblob(4000), 'one'), (2, randomblob(4000), 'two'), (3, NULL, NULL)`); err != nil {
		t.Fatal(err)
	}
	want := map[int][]byte{}
	for _, id := range []int{1, 2} {
		var b []byte // database/sql's own copy
		if err := pool.QueryRowContext(ctx, `SELECT b FROM t WHERE id = ?`, id).Scan(&b); err != nil {
			t.Fatal(err)
		}
		want[id] = b
	}
	rows, err := pool.QueryContext(ctx, `SELECT b FROM t WHERE id IN (1, 2) ORDER BY id`)
	if err != nil {
		t.Fatal(err)
	}
	var got [2]ownedBytes
	for i := 0; rows.Next(); i++ {
		if err := rows.Scan(&got[i]); err != nil {
			t.Fatal(err)
		}
	}
	if err := rows.Close(); err != nil {
		t.Fatal(err)
	}
	for range 3 { // more rows through the same connection and driver buffers
		var other ownedBytes
		if err := pool.QueryRowContext(ctx, `SELECT randomblob(4000)`).Scan(&other); err != nil {
			t.Fatal(err)
		}
	}
	for i, id := range []int{1, 2} {
		if !bytes.Equal(got[i], want[id]) {
			t.Fatalf("row %d's bytes changed after the rows moved on", id)
		}
	}
	var s, null ownedBytes
	if err := pool.QueryRowContext(ctx, `SELECT s FROM t WHERE id = 1`).Scan(&s); err != nil || string(s) != "one" {
		t.Fatalf("TEXT scanned as %q, %v", s, err)
	}
	null = ownedBytes("x")
	if err := pool.QueryRowContext(ctx, `SELECT b FROM t WHERE id = 3`).Scan(&null); err != nil || null != nil {
		t.Fatalf("NULL scanned as %q, %v", null, err)
	}
	var n ownedBytes
	if err := pool.QueryRowContext(ctx, `SELECT 7`).Scan(&n); err == nil {
		t.Fatal("an INTEGER scanned into bytes without an error")
	}
}
