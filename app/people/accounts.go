package people

import (
	"context"
	"database/sql"
	"fmt"
	"slices"
	"strings"
	"time"

	"launchdir/app/kernel"
	"launchdir/db"
	"launchdir/ops"
)

// User is an account.
type User struct {
	ID        int64  `json:"id"`
	Email     string `json:"email" format:"email"`
	Name      string `json:"name"`
	CreatedAt string `json:"created_at" format:"date-time"`
}

// APIKey describes a key without its secret.
type APIKey struct {
	ID         int64    `json:"id"`
	UserID     int64    `json:"user_id"`
	Email      string   `json:"email"`
	Name       string   `json:"name"`
	Prefix     string   `json:"prefix"`
	Scopes     []string `json:"scopes"`
	CreatedAt  string   `json:"created_at"`
	LastUsedAt string   `json:"last_used_at,omitempty"`
	RevokedAt  string   `json:"revoked_at,omitempty"`
}

// EnsureUser returns the user with email, creating it if missing.
func (a *Service) EnsureUser(ctx context.Context, email, name string) (*User, error) {
	email, err := kernel.NormEmail(email)
	if err != nil {
		return nil, err
	}
	var u *User
	err = a.DB.Tx(ctx, func(tx *sql.Tx) error {
		u, err = ensureUserTx(ctx, tx, email, name, a.Now())
		return err
	})
	return u, err
}

func ensureUserTx(ctx context.Context, tx *sql.Tx, email, name string, now time.Time) (*User, error) {
	u := &User{Email: email}
	err := tx.QueryRowContext(ctx, `SELECT id, name, created_at FROM users WHERE email = ?`, email).Scan(&u.ID, &u.Name, &u.CreatedAt)
	if !db.IsNoRows(err) {
		return u, err
	}
	u.Name, u.CreatedAt = name, now.UTC().Format(time.RFC3339)
	res, err := tx.ExecContext(ctx, `INSERT INTO users(email, name, created_at) VALUES(?,?,?)`, email, name, u.CreatedAt)
	if err != nil {
		return nil, err
	}
	u.ID, err = res.LastInsertId()
	return u, err
}

// CreateUser creates a user, optionally with a sign-in password.
func (a *Service) CreateUser(ctx context.Context, email, name, password string) (*User, error) {
	email, err := kernel.NormEmail(email)
	if err != nil {
		return nil, err
	}
	var hash any
	if password != "" {
		if err := CheckPasswordRule(password); err != nil {
			return nil, err
		}
		h, err := HashPassword(password)
		if err != nil {
			return nil, err
		}
		hash = h
	}
	u := &User{Email: email, Name: name, CreatedAt: a.Now().UTC().Format(time.RFC3339)}
	err = a.DB.Tx(ctx, func(tx *sql.Tx) error {
		res, err := tx.ExecContext(ctx, `INSERT INTO users(email, name, password_hash, created_at) VALUES(?,?,?,?)`,
			email, name, hash, u.CreatedAt)
		if err != nil {
			return err
		}
		u.ID, err = res.LastInsertId()
		return err
	})
	return u, err
}

// ListUsers lists every user.
func (a *Service) ListUsers(ctx context.Context) ([]User, error) {
	rows, err := a.DB.R.QueryContext(ctx, `SELECT id, email, name, created_at FROM users ORDER BY id`)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var out []User
	for rows.Next() {
		var u User
		if err := rows.Scan(&u.ID, &u.Email, &u.Name, &u.CreatedAt); err != nil {
			return nil, err
		}
		out = append(out, u)
	}
	return out, rows.Err()
}

// ParseScopes checks a comma or space separated scope list.
func ParseScopes(s string) ([]string, error) {
	var out []string
	for _, sc := range strings.FieldsFunc(s, func(r rune) bool { return r == ',' || r == ' ' }) {
		if !slices.Contains(ops.AllScopes, sc) {
			return nil, ops.Invalid("scopes", "unknown scope %q (scopes: %s)", sc, strings.Join(ops.AllScopes, ", "))
		}
		if !slices.Contains(out, sc) {
			out = append(out, sc)
		}
	}
	if len(out) == 0 {
		return nil, ops.Invalid("scopes", "name at least one of %s", strings.Join(ops.AllScopes, ", "))
	}
	return out, nil
}

// CreateAPIKey creates the user if missing and a key with scopes. The
// secret is returned once; only its hash and a short prefix are stored.
func (a *Service) CreateAPIKey(ctx context.Context, email, name string, scopes []string) (string, *APIKey, error) {
	email, err := kernel.NormEmail(email)
	if err != nil {
		return "", nil, err
	}
	secret := kernel.NewSecret(apiKeyPrefix)
	k := &APIKey{Email: email, Name: name, Prefix: secret[:12], Scopes: scopes, CreatedAt: a.Now().UTC().Format(time.RFC3339)}
	err = a.DB.Tx(ctx, func(tx *sql.Tx) error {
		u, err := ensureUserTx(ctx, tx, email, "", a.Now())
		if err != nil {
			return err
		}
		k.UserID = u.ID
		return insertAPIKey(ctx, tx, k, secret)
	})
	if err != nil {
		return "", nil, err
	}
	return secret, k, nil
}

// insertAPIKey stores k (user, name, prefix, scopes, created) with only the
// hash of secret, and sets k.ID.
func insertAPIKey(ctx context.Context, tx *sql.Tx, k *APIKey, secret string) error {
	res, err := tx.ExecContext(ctx, `INSERT INTO api_keys(user_id, name, prefix, hash, scopes, created_at) VALUES(?,?,?,?,?,?)`,
		k.UserID, k.Name, k.Prefix, kernel.HashSecret(secret), strings.Join(k.Scopes, " "), k.CreatedAt)
	if err != nil {
		return err
	}
	k.ID, err = res.LastInsertId()
	return err
}

// ListAPIKeys lists keys (all, or one user's by email).
func (a *Service) ListAPIKeys(ctx context.Context, email string) ([]APIKey, error) {
	return a.queryAPIKeys(ctx, `? = '' OR u.email = ? ORDER BY k.id`, email, email)
}

// queryAPIKeys reads keys with their owner's email; where is the WHERE
// clause (with its ORDER BY) of the CLI and founder-area lists.
func (a *Service) queryAPIKeys(ctx context.Context, where string, args ...any) ([]APIKey, error) {
	rows, err := a.DB.R.QueryContext(ctx, `SELECT k.id, k.user_id, u.email, k.name, k.prefix, k.scopes, k.created_at,
		coalesce(k.last_used_at,''), coalesce(k.revoked_at,'') FROM api_keys k JOIN users u ON u.id = k.user_id
		WHERE `+where, args...)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	out := []APIKey{}
	for rows.Next() {
		var k APIKey
		var scopes string
		if err := rows.Scan(&k.ID, &k.UserID, &k.Email, &k.Name, &k.Prefix, &scopes, &k.CreatedAt, &k.LastUsedAt, &k.RevokedAt); err != nil {
			return nil, err
		}
		k.Scopes = strings.Fields(scopes)
		out = append(out, k)
	}
	return out, rows.Err()
}

// RevokeAPIKey revokes a key by id; revoking twice is an error.
func (a *Service) RevokeAPIKey(ctx context.Context, id int64) error {
	res, err := a.DB.W.ExecContext(ctx, `UPDATE api_keys SET revoked_at = ? WHERE id = ? AND revoked_at IS NULL`,
		a.Now().UTC().Format(time.RFC3339), id)
	if err != nil {
		return err
	}
	if n, _ := res.RowsAffected(); n == 0 {
		return fmt.Errorf("no active API key with id %d", id)
	}
	return nil
}
