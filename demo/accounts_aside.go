package demo

import (
	"context"
	"database/sql"
	"fmt"
)

// Accounts made before the first serve (e.g. `launchdir apikey create`)
// must not stop the demo directory from being written: the demo uses fixed
// user ids, so such accounts are moved to ids above every demo id first.
// Their keys, sessions and grants move with them; emails and secrets are
// unchanged, so they keep working.

const asideOffset = 10_000_000

// moveAccountsAside renumbers existing users (and every column that points
// at them) inside tx. Foreign keys are checked at commit.
func moveAccountsAside(ctx context.Context, tx *sql.Tx) error {
	var n int
	if err := tx.QueryRowContext(ctx, `SELECT count(*) FROM users WHERE id < ?`, asideOffset).Scan(&n); err != nil || n == 0 {
		return err
	}
	if _, err := tx.ExecContext(ctx, `PRAGMA defer_foreign_keys = ON`); err != nil {
		return err
	}
	refs, err := userRefs(ctx, tx)
	if err != nil {
		return err
	}
	for _, r := range refs {
		q := fmt.Sprintf(`UPDATE %q SET %q = %q + ? WHERE %q < ?`, r[0], r[1], r[1], r[1])
		if _, err := tx.ExecContext(ctx, q, asideOffset, asideOffset); err != nil {
			return fmt.Errorf("moving accounts aside (%s.%s): %w", r[0], r[1], err)
		}
	}
	_, err = tx.ExecContext(ctx, `UPDATE users SET id = id + ? WHERE id < ?`, asideOffset, asideOffset)
	return err
}

// userRefs lists (table, column) pairs that hold user ids: every foreign
// key to users, plus idempotency_keys.user_id (no foreign key there).
func userRefs(ctx context.Context, tx *sql.Tx) ([][2]string, error) {
	rows, err := tx.QueryContext(ctx, `SELECT m.name, f."from" FROM sqlite_master m, pragma_foreign_key_list(m.name) f
		WHERE m.type = 'table' AND f."table" = 'users'`)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	out := [][2]string{{"idempotency_keys", "user_id"}}
	for rows.Next() {
		var t, c string
		if err := rows.Scan(&t, &c); err != nil {
			return nil, err
		}
		out = append(out, [2]string{t, c})
	}
	return out, rows.Err()
}
