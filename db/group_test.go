package db

import (
	"context"
	"database/sql"
	"errors"
	"testing"
)

// A grouped edit runs on its caller's values but not its cancellation:
// a caller that goes away mid-edit does not fail the edit (or, in a batch,
// the others'), while a caller cancelled before its turn is left out.
func TestGroupedEditOutlivesItsCallersCancel(t *testing.T) {
	d, _ := tempDB(t)
	type key struct{}
	ctx, cancel := context.WithCancel(context.WithValue(context.Background(), key{}, "kept"))
	err := d.GroupTx(ctx, func(ctx context.Context, tx *sql.Tx) error {
		cancel() // the caller goes away mid-edit
		if ctx.Value(key{}) != "kept" {
			return errors.New("the edit lost its caller's values")
		}
		_, err := tx.ExecContext(ctx, `INSERT INTO settings(key, value) VALUES('group-cancel', 'done')`)
		return err
	})
	if err != nil {
		t.Fatalf("an edit whose caller left mid-way failed: %v", err)
	}
	var v string
	if err := d.R.QueryRow(`SELECT value FROM settings WHERE key = 'group-cancel'`).Scan(&v); err != nil || v != "done" {
		t.Fatalf("the edit did not commit: %q, %v", v, err)
	}

	ran := false
	err = d.GroupTx(ctx, func(ctx context.Context, tx *sql.Tx) error { ran = true; return nil })
	if !errors.Is(err, context.Canceled) || ran {
		t.Fatalf("a caller cancelled before its turn: ran %v, err %v; want not run, context.Canceled", ran, err)
	}
}
