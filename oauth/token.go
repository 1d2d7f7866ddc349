package oauth

import (
	"context"
	"crypto/sha256"
	"crypto/subtle"
	"database/sql"
	"encoding/base64"
	"net/http"
	"net/url"
	"regexp"
	"slices"
	"strings"
	"time"

	"launchdir/app/kernel"
	"launchdir/db"
	"launchdir/ops"
)

// codeVerifierRe is RFC 7636 section 4.1.
var codeVerifierRe = regexp.MustCompile(`^[A-Za-z0-9._~-]{43,128}$`)

// tokenResponse is RFC 6749 section 5.1.
type tokenResponse struct {
	AccessToken  string `json:"access_token"`
	TokenType    string `json:"token_type"`
	ExpiresIn    int64  `json:"expires_in"`
	RefreshToken string `json:"refresh_token,omitempty"`
	Scope        string `json:"scope"`
}

// token is POST /oauth/token.
func (s *Server) token(w http.ResponseWriter, r *http.Request) {
	cors(w)
	noStore(w)
	form, oe := parseForm(w, r)
	if oe != nil {
		s.writeOAuthError(w, r, oe)
		return
	}
	client, err := s.authenticateClient(r, form)
	if err != nil {
		s.writeOAuthError(w, r, err)
		return
	}
	var resp *tokenResponse
	switch gt := form.Get("grant_type"); gt {
	case "authorization_code":
		resp, err = s.exchangeCode(r.Context(), client, form)
	case "refresh_token":
		resp, err = s.refresh(r.Context(), client, form)
	case "":
		err = badRequest("invalid_request", "grant_type is required")
	default:
		err = badRequest("unsupported_grant_type", "supported grant types: authorization_code, refresh_token")
	}
	if err != nil {
		s.writeOAuthError(w, r, err)
		return
	}
	writeJSON(w, http.StatusOK, resp)
}

func invalidGrant(desc string) *oauthError { return badRequest("invalid_grant", desc) }

// exchangeCode is the authorization_code grant. Every presented code is
// burnt; a code presented twice revokes the tokens its first use produced.
func (s *Server) exchangeCode(ctx context.Context, client *Client, form url.Values) (*tokenResponse, error) {
	if client == nil {
		return nil, errf(http.StatusUnauthorized, "invalid_client", "client_id is required")
	}
	code, verifier := form.Get("code"), form.Get("code_verifier")
	if code == "" {
		return nil, badRequest("invalid_request", "code is required")
	}
	if verifier == "" {
		return nil, badRequest("invalid_request", "code_verifier is required (PKCE)")
	}
	if !codeVerifierRe.MatchString(verifier) {
		return nil, badRequest("invalid_request", "code_verifier must be 43 to 128 characters of A-Z a-z 0-9 - . _ ~")
	}
	if res, ok := form["resource"]; ok && !s.isResource(ctx, res[0]) {
		return nil, badRequest("invalid_target", "only the resource "+s.Resource(ctx)+" is served here")
	}
	var (
		resp *tokenResponse
		fail *oauthError // returned after commit, so burning the code sticks
	)
	now := s.now()
	err := s.App.DB.Tx(ctx, func(tx *sql.Tx) error {
		var (
			hash                                              = kernel.HashSecret(code)
			clientID, redirectURI, scope, resource, challenge string
			expires                                           string
			userID                                            int64
			redirectGiven                                     bool
			usedAt                                            sql.NullString
			grantID                                           sql.NullInt64
		)
		err := tx.QueryRowContext(ctx, `SELECT client_id, user_id, redirect_uri, redirect_given, scope, resource, code_challenge,
			expires_at, used_at, grant_id FROM oauth_codes WHERE hash = ?`, hash).Scan(&clientID, &userID, &redirectURI,
			&redirectGiven, &scope, &resource, &challenge, &expires, &usedAt, &grantID)
		if db.IsNoRows(err) {
			fail = invalidGrant("the authorization code is not valid")
			return nil
		}
		if err != nil {
			return err
		}
		if usedAt.Valid {
			if grantID.Valid {
				if err := revokeGrant(ctx, tx, grantID.Int64, now); err != nil {
					return err
				}
				s.App.Log.Warn("oauth: authorization code replayed; its tokens were revoked", "client_id", clientID, "grant", grantID.Int64)
			}
			fail = invalidGrant("the authorization code was already used")
			return nil
		}
		if _, err := tx.ExecContext(ctx, `UPDATE oauth_codes SET used_at = ? WHERE hash = ?`, ts(now), hash); err != nil {
			return err
		}
		switch {
		case clientID != client.ID:
			fail = invalidGrant("the authorization code was issued to another client")
		case expires <= ts(now):
			fail = invalidGrant("the authorization code has expired")
		case resource != s.Resource(ctx):
			// Each site is its own issuer: a code is redeemed where it was issued.
			fail = invalidGrant("the authorization code was issued by another site of this server")
		case redirectGiven && form.Get("redirect_uri") != redirectURI:
			fail = invalidGrant("redirect_uri does not match the authorization request")
		case !redirectGiven && form.Has("redirect_uri") && form.Get("redirect_uri") != redirectURI:
			fail = invalidGrant("redirect_uri does not match the authorization request")
		case !pkceMatches(verifier, challenge):
			fail = invalidGrant("code_verifier does not match the code_challenge")
		}
		if fail != nil {
			return nil
		}
		res, err := tx.ExecContext(ctx, `INSERT INTO oauth_grants(client_id, user_id, scope, resource, created_at) VALUES(?,?,?,?,?)`,
			clientID, userID, scope, resource, ts(now))
		if err != nil {
			return err
		}
		gid, err := res.LastInsertId()
		if err != nil {
			return err
		}
		if _, err := tx.ExecContext(ctx, `UPDATE oauth_codes SET grant_id = ? WHERE hash = ?`, gid, hash); err != nil {
			return err
		}
		resp, err = s.issueTokens(ctx, tx, gid, scope, scope, client.allowsGrant("refresh_token"), now)
		return err
	})
	if err != nil {
		return nil, err
	}
	if fail != nil {
		return nil, fail
	}
	return resp, nil
}

// pkceMatches checks S256: BASE64URL(SHA256(verifier)) == challenge.
func pkceMatches(verifier, challenge string) bool {
	sum := sha256.Sum256([]byte(verifier))
	got := base64.RawURLEncoding.EncodeToString(sum[:])
	return subtle.ConstantTimeCompare([]byte(got), []byte(challenge)) == 1
}

// issueTokens stores a new access token (and refresh token) of a grant.
func (s *Server) issueTokens(ctx context.Context, tx *sql.Tx, grantID int64, accessScope, refreshScope string, withRefresh bool, now time.Time) (*tokenResponse, error) {
	resp := &tokenResponse{AccessToken: kernel.NewSecret(accessPrefix), TokenType: "Bearer",
		ExpiresIn: int64(s.Opts.AccessTTL / time.Second), Scope: accessScope}
	insert := `INSERT INTO oauth_tokens(hash, kind, grant_id, scope, created_at, expires_at) VALUES(?,?,?,?,?,?)`
	if _, err := tx.ExecContext(ctx, insert, kernel.HashSecret(resp.AccessToken), "access", grantID, accessScope,
		ts(now), ts(now.Add(s.Opts.AccessTTL))); err != nil {
		return nil, err
	}
	if withRefresh {
		resp.RefreshToken = kernel.NewSecret(refreshPrefix)
		if _, err := tx.ExecContext(ctx, insert, kernel.HashSecret(resp.RefreshToken), "refresh", grantID, refreshScope,
			ts(now), ts(now.Add(s.Opts.RefreshTTL))); err != nil {
			return nil, err
		}
	}
	return resp, nil
}

// revokeGrant revokes a grant and every token of its family.
func revokeGrant(ctx context.Context, tx *sql.Tx, grantID int64, now time.Time) error {
	if _, err := tx.ExecContext(ctx, `UPDATE oauth_grants SET revoked_at = ? WHERE id = ? AND revoked_at IS NULL`, ts(now), grantID); err != nil {
		return err
	}
	_, err := tx.ExecContext(ctx, `UPDATE oauth_tokens SET revoked_at = ? WHERE grant_id = ? AND revoked_at IS NULL`, ts(now), grantID)
	return err
}

// clientIsPublic reports whether a grant's client has no secret.
func (s *Server) clientIsPublic(ctx context.Context, clientID string) (bool, error) {
	if strings.HasPrefix(clientID, "https://") || strings.HasPrefix(clientID, "http://") {
		return true, nil
	}
	c, err := s.registeredClient(ctx, clientID)
	if db.IsNoRows(err) {
		return false, nil
	}
	if err != nil {
		return false, err
	}
	return c.Public(), nil
}

// refresh is the refresh_token grant: rotation, with reuse of a rotated
// token revoking the whole family; the scope may be narrowed.
func (s *Server) refresh(ctx context.Context, client *Client, form url.Values) (*tokenResponse, error) {
	rt := form.Get("refresh_token")
	if rt == "" {
		return nil, badRequest("invalid_request", "refresh_token is required")
	}
	if res, ok := form["resource"]; ok && !s.isResource(ctx, res[0]) {
		return nil, badRequest("invalid_target", "only the resource "+s.Resource(ctx)+" is served here")
	}
	if !strings.HasPrefix(rt, refreshPrefix) || len(rt) > 200 {
		return nil, invalidGrant("the refresh token is not valid")
	}
	var (
		resp *tokenResponse
		fail error
	)
	now := s.now()
	err := s.App.DB.Tx(ctx, func(tx *sql.Tx) error {
		var (
			tokenID, grantID                   int64
			scope, expires, clientID, resource string
			rotated, revoked, grantRevoked     sql.NullString
		)
		err := tx.QueryRowContext(ctx, `SELECT t.id, t.scope, t.expires_at, t.rotated_at, t.revoked_at, g.id, g.client_id, g.revoked_at, g.resource
			FROM oauth_tokens t JOIN oauth_grants g ON g.id = t.grant_id WHERE t.hash = ? AND t.kind = 'refresh'`, kernel.HashSecret(rt)).
			Scan(&tokenID, &scope, &expires, &rotated, &revoked, &grantID, &clientID, &grantRevoked, &resource)
		if db.IsNoRows(err) {
			fail = invalidGrant("the refresh token is not valid")
			return nil
		}
		if err != nil {
			return err
		}
		if client != nil && client.ID != clientID {
			fail = invalidGrant("the refresh token was issued to another client")
			return nil
		}
		if client == nil {
			public, err := s.clientIsPublic(ctx, clientID)
			if err != nil {
				return err
			}
			if !public {
				fail = errf(http.StatusUnauthorized, "invalid_client", "client authentication is required")
				return nil
			}
		}
		if grantRevoked.Valid || revoked.Valid {
			fail = invalidGrant("the refresh token was revoked")
			return nil
		}
		if rotated.Valid {
			if err := revokeGrant(ctx, tx, grantID, now); err != nil {
				return err
			}
			s.App.Log.Warn("oauth: rotated refresh token reused; the token family was revoked", "client_id", clientID, "grant", grantID)
			fail = invalidGrant("the refresh token was already used")
			return nil
		}
		if expires <= ts(now) {
			fail = invalidGrant("the refresh token has expired")
			return nil
		}
		granted := strings.Fields(scope)
		accessScope := scope
		if raw := strings.TrimSpace(form.Get("scope")); raw != "" {
			var want []string
			for _, sc := range strings.Fields(raw) {
				if !slices.Contains(granted, sc) {
					fail = badRequest("invalid_scope", "scope "+truncate(sc, 60)+" was not granted; granted: "+scope)
					return nil
				}
				want = append(want, sc)
			}
			accessScope = strings.Join(orderScopes(want), " ")
		}
		if _, err := tx.ExecContext(ctx, `UPDATE oauth_tokens SET rotated_at = ? WHERE id = ?`, ts(now), tokenID); err != nil {
			return err
		}
		resp, err = s.issueTokens(ctx, tx, grantID, accessScope, scope, true, now)
		return err
	})
	if err != nil {
		return nil, err
	}
	if fail != nil {
		return nil, fail
	}
	return resp, nil
}

// revoke is POST /oauth/revoke (RFC 7009): always 200 for a well-formed
// request, whether or not the token was known.
func (s *Server) revoke(w http.ResponseWriter, r *http.Request) {
	cors(w)
	noStore(w)
	form, oe := parseForm(w, r)
	if oe != nil {
		s.writeOAuthError(w, r, oe)
		return
	}
	client, err := s.authenticateClient(r, form)
	if err != nil {
		s.writeOAuthError(w, r, err)
		return
	}
	token := form.Get("token")
	if token == "" {
		s.writeOAuthError(w, r, badRequest("invalid_request", "token is required"))
		return
	}
	if len(token) <= 200 && (strings.HasPrefix(token, accessPrefix) || strings.HasPrefix(token, refreshPrefix)) {
		if err := s.revokeToken(r.Context(), client, token); err != nil {
			s.writeOAuthError(w, r, err)
			return
		}
	}
	w.WriteHeader(http.StatusOK)
}

func (s *Server) revokeToken(ctx context.Context, client *Client, token string) error {
	now := s.now()
	return s.App.DB.Tx(ctx, func(tx *sql.Tx) error {
		var (
			tokenID, grantID int64
			kind, clientID   string
		)
		err := tx.QueryRowContext(ctx, `SELECT t.id, t.kind, g.id, g.client_id FROM oauth_tokens t JOIN oauth_grants g ON g.id = t.grant_id
			WHERE t.hash = ?`, kernel.HashSecret(token)).Scan(&tokenID, &kind, &grantID, &clientID)
		if db.IsNoRows(err) {
			return nil
		}
		if err != nil {
			return err
		}
		if client != nil && client.ID != clientID {
			return nil // not this client's token: refused silently
		}
		if client == nil {
			// A public client may revoke without naming itself (holding the
			// token is the proof); a confidential client must authenticate.
			if public, err := s.clientIsPublic(ctx, clientID); err != nil || !public {
				return err
			}
		}
		if kind == "refresh" {
			return revokeGrant(ctx, tx, grantID, now)
		}
		_, err = tx.ExecContext(ctx, `UPDATE oauth_tokens SET revoked_at = ? WHERE id = ? AND revoked_at IS NULL`, ts(now), tokenID)
		return err
	})
}

// networkResource reports whether res is the MCP resource of a site of
// this process: the account is one across sites, so a token issued on any
// of them is good on every one (a site removed takes its tokens with it).
func (s *Server) networkResource(ctx context.Context, res string) bool {
	for _, site := range s.App.Sites(ctx) {
		if res == site.Origin+"/mcp" {
			return true
		}
	}
	return false
}

// ResolveAccessToken is the app.TokenResolver of OAuth access tokens: the
// principal of a live token, or an unauthorized error.
func (s *Server) ResolveAccessToken(ctx context.Context, token string) (*ops.Principal, error) {
	unauthorized := &ops.Error{Code: ops.CodeUnauthorized, Detail: "the access token is not valid, has expired or was revoked"}
	if !strings.HasPrefix(token, accessPrefix) || len(token) > 200 {
		return nil, unauthorized
	}
	var (
		p                     ops.Principal
		scope, expires, res   string
		revoked, grantRevoked sql.NullString
	)
	err := s.App.DB.R.QueryRowContext(ctx, `SELECT g.id, u.id, u.email, t.scope, t.expires_at, t.revoked_at, g.revoked_at, g.resource
		FROM oauth_tokens t JOIN oauth_grants g ON g.id = t.grant_id JOIN users u ON u.id = g.user_id
		WHERE t.hash = ? AND t.kind = 'access'`, kernel.HashSecret(token)).
		Scan(&p.CredentialID, &p.UserID, &p.Email, &scope, &expires, &revoked, &grantRevoked, &res)
	if db.IsNoRows(err) {
		return nil, unauthorized
	}
	if err != nil {
		return nil, err
	}
	if revoked.Valid || grantRevoked.Valid || expires <= ts(s.now()) || !s.networkResource(ctx, res) {
		return nil, unauthorized
	}
	p.Scopes = strings.Fields(scope)
	p.Credential = "oauth"
	return &p, nil
}
