package db

import (
	"context"
	"database/sql"
	"path/filepath"
	"strings"
	"testing"

	"launchdir/ops"
)

func TestOpenMigratesAndRefusesNewerSchema(t *testing.T) {
	ctx := context.Background()
	path := filepath.Join(t.TempDir(), "m.db")
	d, err := Open(ctx, path)
	if err != nil {
		t.Fatal(err)
	}
	var n int
	d.R.QueryRow(`SELECT count(*) FROM schema_migrations`).Scan(&n)
	if n != len(mustMigrations(t)) {
		t.Fatalf("%d migrations recorded", n)
	}
	// Reopening applies nothing twice.
	d.Close()
	if d, err = Open(ctx, path); err != nil {
		t.Fatal(err)
	}
	d.W.Exec(`INSERT INTO schema_migrations(version, name, applied_at) VALUES (9999, '9999_future.sql', 'now')`)
	d.Close()
	if _, err := Open(ctx, path); err == nil || !strings.Contains(err.Error(), "newer than this binary") {
		t.Fatalf("newer schema accepted: %v", err)
	}
}

func mustMigrations(t *testing.T) []migration {
	m, err := migrations()
	if err != nil {
		t.Fatal(err)
	}
	return m
}

func TestOpenBadPath(t *testing.T) {
	if _, err := Open(context.Background(), "/nonexistent-dir/x.db"); err == nil {
		t.Fatal("opened a file in a missing directory")
	}
}

func TestConstraintErrorsBecomeDomainErrors(t *testing.T) {
	ctx := context.Background()
	d, err := Open(ctx, filepath.Join(t.TempDir(), "c.db"))
	if err != nil {
		t.Fatal(err)
	}
	defer d.Close()
	err = d.Tx(ctx, func(tx *sql.Tx) error {
		for i := 0; i < 2; i++ {
			if _, err := tx.ExecContext(ctx, `INSERT INTO users(email, created_at) VALUES ('a@example.com', 'now')`); err != nil {
				return err
			}
		}
		return nil
	})
	if e := ops.AsError(err); e.Code != ops.CodeConflict {
		t.Fatalf("duplicate: %v", err)
	}
	err = d.Tx(ctx, func(tx *sql.Tx) error {
		_, err := tx.ExecContext(ctx, `INSERT INTO api_keys(user_id, prefix, hash, scopes, created_at) VALUES (999, 'p', 'h', 's', 'now')`)
		return err
	})
	if e := ops.AsError(err); e.Code != ops.CodeInvalid {
		t.Fatalf("foreign key: %v", err)
	}
	var users int
	d.R.QueryRow(`SELECT count(*) FROM users`).Scan(&users)
	if users != 0 {
		t.Fatal("a failed transaction left rows behind")
	}
}
