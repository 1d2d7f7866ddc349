package db

import (
	"context"
	"database/sql"
	"fmt"
	"testing"
)

// Connections keep their statements prepared (connstmts.go). These tests
// run the cases where a kept statement could give a wrong answer: the same
// text nested inside its own open rows, more texts than a connection keeps,
// a schema change under a kept statement, an error in the middle, and a
// text that is not kept.

func TestConnStmtsNestedSameText(t *testing.T) {
	d, ctx := tempDB(t)
	seedAlphas(t, d, 5, "nested")
	tx, err := d.R.BeginTx(ctx, &sql.TxOptions{ReadOnly: true})
	if err != nil {
		t.Fatal(err)
	}
	defer tx.Rollback()
	const q = `SELECT id FROM listings WHERE id >= ? ORDER BY id`
	outer, err := tx.QueryContext(ctx, q, 1)
	if err != nil {
		t.Fatal(err)
	}
	var pairs []string
	for outer.Next() {
		var id int
		if err := outer.Scan(&id); err != nil {
			t.Fatal(err)
		}
		// The same text while the outer rows are open on this connection:
		// it must run as a statement of its own, not reset the outer one.
		var n int
		if err := tx.QueryRowContext(ctx, `SELECT count(*) FROM (`+q+`)`, id).Scan(&n); err != nil {
			t.Fatal(err)
		}
		inner, err := tx.QueryContext(ctx, q, id)
		if err != nil {
			t.Fatal(err)
		}
		var first int
		if inner.Next() {
			inner.Scan(&first)
		}
		inner.Close()
		pairs = append(pairs, fmt.Sprintf("%d:%d:%d", id, first, n))
	}
	if err := outer.Err(); err != nil {
		t.Fatal(err)
	}
	outer.Close()
	want := "[1:1:5 2:2:4 3:3:3 4:4:2 5:5:1]"
	if got := fmt.Sprint(pairs); got != want {
		t.Fatalf("nested iteration: got %s, want %s", got, want)
	}
}

func TestConnStmtsEvictionAndSchemaChange(t *testing.T) {
	d, ctx := tempDB(t)
	seedAlphas(t, d, 3, "evict")
	// More distinct texts than a connection keeps, twice over, each
	// answering its own constant: an evicted or mixed-up statement shows.
	for round := 0; round < 2; round++ {
		for i := 0; i < connMaxStmts+40; i++ {
			var got int
			if err := d.R.QueryRowContext(ctx, fmt.Sprintf(`SELECT %d + count(*) FROM listings WHERE id > ?`, i), 1).Scan(&got); err != nil {
				t.Fatal(err)
			}
			if got != i+2 {
				t.Fatalf("text %d: got %d, want %d", i, got, i+2)
			}
		}
	}
	// A kept statement after the schema changed under it.
	const q = `SELECT count(*) FROM listings WHERE tagline = ?`
	var n int
	if err := d.W.QueryRowContext(ctx, q, "evict").Scan(&n); err != nil || n != 3 {
		t.Fatalf("before: %d, %v", n, err)
	}
	if _, err := d.W.ExecContext(ctx, `CREATE INDEX test_tagline ON listings(tagline)`); err != nil {
		t.Fatal(err)
	}
	if _, err := d.W.ExecContext(ctx, `UPDATE listings SET tagline = ? WHERE id = ?`, "other", 1); err != nil {
		t.Fatal(err)
	}
	if err := d.W.QueryRowContext(ctx, q, "evict").Scan(&n); err != nil || n != 2 {
		t.Fatalf("after an index and an update: %d, %v", n, err)
	}
}

func TestConnStmtsErrorLeavesStatementUsable(t *testing.T) {
	d, ctx := tempDB(t)
	seedAlphas(t, d, 2, "errors")
	// A constraint error from a kept statement, then the same text again.
	const ins = `INSERT INTO categories(id, slug, name) VALUES (?, ?, ?)`
	if _, err := d.W.ExecContext(ctx, ins, 9001, "kept-stmt", "Kept"); err != nil {
		t.Fatal(err)
	}
	if _, err := d.W.ExecContext(ctx, ins, 9002, "kept-stmt", "Kept again"); err == nil {
		t.Fatal("a duplicate slug was accepted")
	}
	if _, err := d.W.ExecContext(ctx, ins, 9003, "kept-stmt-2", "Kept two"); err != nil {
		t.Fatalf("the statement after an error: %v", err)
	}
	// A query cancelled before it runs, then the same text.
	cctx, cancel := context.WithCancel(ctx)
	cancel()
	const q = `SELECT count(*) FROM categories WHERE slug LIKE ?`
	if err := d.R.QueryRowContext(cctx, q, "kept-stmt%").Scan(new(int)); err == nil {
		t.Fatal("a cancelled query ran")
	}
	var n int
	if err := d.R.QueryRowContext(ctx, q, "kept-stmt%").Scan(&n); err != nil || n != 2 {
		t.Fatalf("after a cancelled query: %d, %v", n, err)
	}
	// Scripts are not kept and still run whole.
	if _, err := d.W.ExecContext(ctx, `UPDATE categories SET name = 'A' WHERE id = 9001; UPDATE categories SET name = 'B' WHERE id = 9003`); err != nil {
		t.Fatal(err)
	}
	var a, b string
	d.R.QueryRowContext(ctx, `SELECT name FROM categories WHERE id = 9001`).Scan(&a)
	d.R.QueryRowContext(ctx, `SELECT name FROM categories WHERE id = 9003`).Scan(&b)
	if a != "A" || b != "B" {
		t.Fatalf("script: %q %q", a, b)
	}
}

func TestCacheable(t *testing.T) {
	for q, want := range map[string]bool{
		"SELECT 1":                               true,
		"  with x AS (SELECT 1) SELECT * FROM x": true,
		"INSERT INTO t VALUES (1);":              true,
		"UPDATE t SET a = 1; DELETE FROM t":      false,
		"PRAGMA optimize":                        false,
		"CREATE INDEX i ON t(a)":                 false,
		"":                                       false,
	} {
		if got := cacheable(q); got != want {
			t.Errorf("cacheable(%q) = %v, want %v", q, got, want)
		}
	}
}
