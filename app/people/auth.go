package people

import (
	"context"
	"slices"
	"strings"
	"sync"
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
	hash := kernel.HashSecret(token)
	// The epoch first: a change committed after this read moves it past
	// the number the entry is kept under, so the entry is not used again.
	var epoch int64
	if err := a.DB.Prepared(a.DB.R).QueryRowContext(ctx, `SELECT n FROM auth_epoch WHERE id = 1`).Scan(&epoch); err != nil {
		return nil, err
	}
	if p, ok := a.keys.get(hash, epoch); ok {
		a.touchAPIKey(p.CredentialID)
		return p, nil
	}
	var (
		p       ops.Principal
		scopes  string
		revoked *string
	)
	err := a.DB.Prepared(a.DB.R).QueryRowContext(ctx, `SELECT k.id, k.user_id, u.email, k.scopes, k.revoked_at FROM api_keys k
		JOIN users u ON u.id = k.user_id WHERE k.hash = `+db.TextArg, hash).Scan(&p.CredentialID, &p.UserID, &p.Email, &scopes, &revoked)
	if db.IsNoRows(err) || (err == nil && revoked != nil) {
		return nil, &ops.Error{Code: ops.CodeUnauthorized, Detail: "the API key is not valid or was revoked"}
	}
	if err != nil {
		return nil, err
	}
	p.Scopes = strings.Fields(scopes)
	p.Credential = "api_key"
	a.keys.put(hash, epoch, p)
	a.touchAPIKey(p.CredentialID)
	return &p, nil
}

// keyCache keeps resolved API keys (valid ones only) by their hash with
// the auth epoch read before resolving them (migration 0023): an entry
// is served only while the epoch is unchanged, so a revocation, a scope
// or email change, or a deletion, here or by another process, is seen by
// the next request. Resolving a key read its index, its row and its
// user (a quarter of an owner PATCH's reads, and after every commit
// SQLite empties a reader's page cache); the epoch is one row.
type keyCache struct {
	mu sync.Mutex
	m  map[string]keyEntry
}

type keyEntry struct {
	epoch int64
	p     ops.Principal
}

// maxKeys bounds the cache; when full it starts over.
const maxKeys = 4096

func (c *keyCache) get(hash string, epoch int64) (*ops.Principal, bool) {
	c.mu.Lock()
	e, ok := c.m[hash]
	c.mu.Unlock()
	if !ok || e.epoch != epoch {
		return nil, false
	}
	p := e.p
	p.Scopes = slices.Clone(e.p.Scopes) // the caller's own copy
	return &p, true
}

func (c *keyCache) put(hash string, epoch int64, p ops.Principal) {
	p.Scopes = slices.Clone(p.Scopes)
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.m == nil || len(c.m) >= maxKeys {
		c.m = map[string]keyEntry{}
	}
	c.m[hash] = keyEntry{epoch: epoch, p: p}
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
