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

// An account made before the first serve with one of the demo's own
// emails (typically demo@launchdir.local, to get an API key for the demo
// founder's listings) is merged into that demo account instead of failing
// on the unique email: while the demo is written it carries a tagged email,
// then its keys, sessions and grants move to the demo account, which takes
// its password, admin flag and verification.
const asideTag = " (set aside for the demo)"

// tagDemoEmails tags the set-aside accounts whose email the demo uses.
func tagDemoEmails(ctx context.Context, tx *sql.Tx, emails []string) error {
	for _, e := range emails {
		if _, err := tx.ExecContext(ctx, `UPDATE users SET email = email || ? WHERE id >= ? AND email = ?`, asideTag, asideOffset, e); err != nil {
			return err
		}
	}
	return nil
}

// mergeTagged merges every tagged account into the demo account with its
// email, after the demo's users are written.
func mergeTagged(ctx context.Context, tx *sql.Tx) error {
	rows, err := tx.QueryContext(ctx, `SELECT a.id, d.id FROM users a JOIN users d ON d.email = substr(a.email, 1, length(a.email) - ?)
		WHERE a.id >= ? AND a.email LIKE ?`, len(asideTag), asideOffset, "%"+asideTag)
	if err != nil {
		return err
	}
	var pairs [][2]int64
	for rows.Next() {
		var a, d int64
		if err := rows.Scan(&a, &d); err != nil {
			rows.Close()
			return err
		}
		pairs = append(pairs, [2]int64{a, d})
	}
	rows.Close()
	if err := rows.Err(); err != nil || len(pairs) == 0 {
		return err
	}
	refs, err := userRefs(ctx, tx)
	if err != nil {
		return err
	}
	for _, p := range pairs {
		for _, r := range refs {
			q := fmt.Sprintf(`UPDATE %q SET %q = ? WHERE %q = ?`, r[0], r[1], r[1])
			if _, err := tx.ExecContext(ctx, q, p[1], p[0]); err != nil {
				return fmt.Errorf("merging the demo account (%s.%s): %w", r[0], r[1], err)
			}
		}
		if _, err := tx.ExecContext(ctx, `UPDATE users SET
			password_hash = coalesce((SELECT password_hash FROM users WHERE id = ?1), password_hash),
			verified_at = coalesce((SELECT verified_at FROM users WHERE id = ?1), verified_at),
			is_admin = max(is_admin, (SELECT is_admin FROM users WHERE id = ?1)) WHERE id = ?2`, p[0], p[1]); err != nil {
			return err
		}
		if _, err := tx.ExecContext(ctx, `DELETE FROM users WHERE id = ?`, p[0]); err != nil {
			return err
		}
	}
	return nil
}

// demoEmails lists every email the demo gives an account.
func demoEmails() []string {
	out := make([]string, 0, len(namedUsers)+visitors)
	for _, u := range namedUsers {
		out = append(out, u.Email)
	}
	for i := range visitors {
		out = append(out, fmt.Sprintf("user%d@example.com", i+1))
	}
	return out
}
