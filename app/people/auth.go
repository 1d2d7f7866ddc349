package people

import (
	"context"
	"strings"
	"time"

	"launchdir/app/kernel"
	"launchdir/db"
	"launchdir/ops"
)

// TokenResolver resolves non-API-key bearer tokens (OAuth access tokens).
type TokenResolver func(ctx context.Context, token string) (*ops.Principal, error)

// Authenticate turns an Authorization header into a principal. No header is
// anonymous (nil, nil); a bad or revoked credential is 401.
func (a *Service) Authenticate(ctx context.Context, header string) (*ops.Principal, error) {
	if header == "" {
		return nil, nil
	}
	scheme, token, ok := strings.Cut(header, " ")
	token = strings.TrimSpace(token)
	if !ok || !strings.EqualFold(scheme, "Bearer") || token == "" {
		return nil, &ops.Error{Code: ops.CodeUnauthorized, Detail: "use Authorization: Bearer <API key or access token>"}
	}
	if strings.HasPrefix(token, apiKeyPrefix) {
		return a.principalForAPIKey(ctx, token)
	}
	if a.OAuthTokens != nil {
		return a.OAuthTokens(ctx, token)
	}
	return nil, &ops.Error{Code: ops.CodeUnauthorized, Detail: "the bearer token is not valid"}
}

const apiKeyPrefix = "ldk_"

func (a *Service) principalForAPIKey(ctx context.Context, token string) (*ops.Principal, error) {
	var (
		p       ops.Principal
		scopes  string
		revoked *string
	)
	err := a.DB.Prepared(a.DB.R).QueryRowContext(ctx, `SELECT k.id, k.user_id, u.email, k.scopes, k.revoked_at FROM api_keys k
		JOIN users u ON u.id = k.user_id WHERE k.hash = `+db.TextArg, kernel.HashSecret(token)).Scan(&p.CredentialID, &p.UserID, &p.Email, &scopes, &revoked)
	if db.IsNoRows(err) || (err == nil && revoked != nil) {
		return nil, &ops.Error{Code: ops.CodeUnauthorized, Detail: "the API key is not valid or was revoked"}
	}
	if err != nil {
		return nil, err
	}
	p.Scopes = strings.Fields(scopes)
	p.Credential = "api_key"
	a.touchAPIKey(p.CredentialID)
	return &p, nil
}

// touchAPIKey records last use at most once a minute per key, off the
// request path, so reads never wait on the writer. The minute is checked in
// memory first: an UPDATE that changes nothing still takes the write lock
// (queueing behind owner edits) and counts as a commit for the read cache.
func (a *Service) touchAPIKey(id int64) {
	if a.DB.IsReplica() { // a read replica's copy is read-only; the primary records use made there
		return
	}
	now := a.Now().UTC()
	minute := now.Unix() / 60
	if last, ok := a.keyTouched.Load(id); ok && last.(int64) == minute {
		return
	}
	a.keyTouched.Store(id, minute)
	go func() {
		_, err := a.DB.W.Exec(`UPDATE api_keys SET last_used_at = ? WHERE id = ? AND (last_used_at IS NULL OR last_used_at < ?)`,
			now.Format(time.RFC3339), id, now.Add(-time.Minute).Format(time.RFC3339))
		if err != nil {
			a.Log.Warn("api key last use", "err", err)
		}
	}()
}
