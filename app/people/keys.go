package people

import (
	"context"
	"database/sql"
	"strings"
	"time"
	"unicode/utf8"

	"launchdir/app/kernel"
	"launchdir/ops"
)

// The founder area's credentials: API keys made by the signed-in person on
// the site, and the OAuth grants they gave to MCP clients. Another person's
// key or grant is not found, exactly like a missing one.

// Bounds of API keys made on the site.
const (
	maxKeyName       = 100
	maxActiveAPIKeys = 25
)

// CreateUserAPIKey makes a key for userID with a name and scopes. The
// secret is returned once; only its hash and prefix are kept.
func (a *Service) CreateUserAPIKey(ctx context.Context, userID int64, name string, scopes []string) (string, *APIKey, error) {
	name = strings.TrimSpace(name)
	if n := utf8.RuneCountInString(name); n < 1 || n > maxKeyName {
		return "", nil, ops.Invalid("name", "must be 1..100 characters, e.g. the tool that will use the key")
	}
	parsed, err := ParseScopes(strings.Join(scopes, " "))
	if err != nil {
		return "", nil, err
	}
	secret := kernel.NewSecret(apiKeyPrefix)
	k := &APIKey{UserID: userID, Name: name, Prefix: secret[:12], Scopes: parsed, CreatedAt: a.Now().UTC().Format(time.RFC3339)}
	err = a.DB.Tx(ctx, func(tx *sql.Tx) error {
		if err := tx.QueryRowContext(ctx, `SELECT email FROM users WHERE id = ?`, userID).Scan(&k.Email); err != nil {
			return kernel.NotFound(err, "user")
		}
		var active int
		if err := tx.QueryRowContext(ctx, `SELECT count(*) FROM api_keys WHERE user_id = ? AND revoked_at IS NULL`, userID).Scan(&active); err != nil {
			return err
		}
		if active >= maxActiveAPIKeys {
			return ops.Invalid("name", "you have %d active keys, the most allowed; revoke one first", maxActiveAPIKeys)
		}
		return insertAPIKey(ctx, tx, k, secret)
	})
	if err != nil {
		return "", nil, err
	}
	return secret, k, nil
}

// UserAPIKeys lists a person's keys, active first, newest first.
func (a *Service) UserAPIKeys(ctx context.Context, userID int64) ([]APIKey, error) {
	return a.queryAPIKeys(ctx, `k.user_id = ? ORDER BY k.revoked_at IS NOT NULL, k.id DESC`, userID)
}

// RevokeUserAPIKey revokes one of the person's keys at once.
func (a *Service) RevokeUserAPIKey(ctx context.Context, userID, keyID int64) error {
	return a.DB.Tx(ctx, func(tx *sql.Tx) error {
		var revoked sql.NullString
		err := tx.QueryRowContext(ctx, `SELECT revoked_at FROM api_keys WHERE id = ? AND user_id = ?`, keyID, userID).Scan(&revoked)
		if err != nil {
			return kernel.NotFound(err, "API key")
		}
		if revoked.Valid {
			return ops.Invalid("key_id", "the key was already revoked")
		}
		_, err = tx.ExecContext(ctx, `UPDATE api_keys SET revoked_at = ? WHERE id = ?`, a.NowText(), keyID)
		return err
	})
}

// OAuthGrant is one authorization a person gave an OAuth (MCP) client.
type OAuthGrant struct {
	ID         int64    `json:"id"`
	ClientID   string   `json:"client_id"`
	ClientName string   `json:"client_name"`
	Scopes     []string `json:"scopes"`
	Resource   string   `json:"resource"`
	CreatedAt  string   `json:"created_at"`
	LastUsedAt string   `json:"last_used_at,omitempty"` // newest token issued
	RevokedAt  string   `json:"revoked_at,omitempty"`
}

// UserOAuthGrants lists a person's grants, active first, newest first.
func (a *Service) UserOAuthGrants(ctx context.Context, userID int64) ([]OAuthGrant, error) {
	rows, err := a.DB.R.QueryContext(ctx, `SELECT g.id, g.client_id, coalesce(c.client_name,''), g.scope, g.resource, g.created_at,
		coalesce((SELECT max(t.created_at) FROM oauth_tokens t WHERE t.grant_id = g.id),''), coalesce(g.revoked_at,'')
		FROM oauth_grants g LEFT JOIN oauth_clients c ON c.client_id = g.client_id
		WHERE g.user_id = ? ORDER BY g.revoked_at IS NOT NULL, g.id DESC LIMIT 200`, userID)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	out := []OAuthGrant{}
	for rows.Next() {
		var g OAuthGrant
		var scope string
		if err := rows.Scan(&g.ID, &g.ClientID, &g.ClientName, &scope, &g.Resource, &g.CreatedAt, &g.LastUsedAt, &g.RevokedAt); err != nil {
			return nil, err
		}
		g.Scopes = strings.Fields(scope)
		if g.ClientName == "" {
			g.ClientName = g.ClientID // a client identified by its metadata document URL
		}
		out = append(out, g)
	}
	return out, rows.Err()
}

// RevokeOAuthGrant revokes a grant and every token issued from it, in one
// transaction: the client's next call is 401.
func (a *Service) RevokeOAuthGrant(ctx context.Context, userID, grantID int64) error {
	return a.DB.Tx(ctx, func(tx *sql.Tx) error {
		var revoked sql.NullString
		err := tx.QueryRowContext(ctx, `SELECT revoked_at FROM oauth_grants WHERE id = ? AND user_id = ?`, grantID, userID).Scan(&revoked)
		if err != nil {
			return kernel.NotFound(err, "grant")
		}
		if revoked.Valid {
			return ops.Invalid("grant_id", "the access was already revoked")
		}
		now := a.NowText()
		if _, err := tx.ExecContext(ctx, `UPDATE oauth_grants SET revoked_at = ? WHERE id = ?`, now, grantID); err != nil {
			return err
		}
		_, err = tx.ExecContext(ctx, `UPDATE oauth_tokens SET revoked_at = ? WHERE grant_id = ? AND revoked_at IS NULL`, now, grantID)
		return err
	})
}

// SessionPrincipal is the person signed in on the website, as the
// operations see them: every scope (a person acts for themself), credential
// "session". The founder pages run the same operations as the API with it.
func (a *Service) SessionPrincipal(ctx context.Context, userID int64) (*ops.Principal, error) {
	p := &ops.Principal{UserID: userID, Scopes: ops.AllScopes, Credential: "session"}
	if err := a.DB.R.QueryRowContext(ctx, `SELECT email FROM users WHERE id = ?`, userID).Scan(&p.Email); err != nil {
		return nil, kernel.NotFound(err, "user")
	}
	return p, nil
}
