// Package oauth is the OAuth 2.1 authorization server of the MCP door (and
// of any other bearer-token client): protected resource metadata (RFC 9728),
// authorization server metadata (RFC 8414), dynamic client registration
// (RFC 7591), client ID metadata documents, the authorization code flow with
// PKCE S256 (RFC 7636) and sign-in/consent pages, refresh token rotation
// with reuse detection, and revocation (RFC 7009).
//
// Access tokens are opaque random secrets stored hashed, bound to the MCP
// resource <base-url>/mcp, and resolved by App.Authenticate through
// app.App.OAuthTokens.
package oauth

import (
	"context"
	"encoding/json"
	"net/http"
	"net/url"
	"strings"
	"time"

	"launchdir/app"
	"launchdir/app/kernel"
	"launchdir/ops"
	"launchdir/routes"
)

// Options configures the authorization server.
type Options struct {
	// HTTPClient fetches client ID metadata documents. It MUST be the
	// SSRF-guarded client (crawl.NewHTTPClient). When nil, URL client IDs
	// are not supported (and the metadata says so).
	HTTPClient *http.Client
	// AccessTTL is the access token lifetime (default 1 h).
	AccessTTL time.Duration
	// RefreshTTL is the refresh token lifetime (default 30 days; each
	// rotation starts a new period).
	RefreshTTL time.Duration
	// SecureCookies marks the sign-in cookies Secure and gives them the
	// __Host- prefix on every site; a site whose origin is https always
	// does.
	SecureCookies bool
}

// Lifetimes and limits.
const (
	defaultAccessTTL  = time.Hour
	defaultRefreshTTL = 30 * 24 * time.Hour
	codeTTL           = 5 * time.Minute
	sessionTTL        = 12 * time.Hour

	maxFormBytes     = 16 << 10
	maxRegisterBytes = 16 << 10
	maxMetadataBytes = 8 << 10 // client ID metadata document

	accessPrefix  = "lda_"
	refreshPrefix = "ldr_"
	codePrefix    = "ldc_"
	secretPrefix  = "ldcs_"
	sessionPrefix = "lds_"
)

// Server is the authorization server.
type Server struct {
	App  *app.App
	Opts Options
	// Now is the clock (defaults to the app's clock); tests move it.
	Now func() time.Time

	trustProxy bool
	cimd       *metadataCache
}

// New builds the server and installs it as the app's OAuth token resolver.
// It also registers an hourly purge of expired codes, tokens and sessions.
func New(a *app.App, o Options) *Server {
	if o.AccessTTL <= 0 {
		o.AccessTTL = defaultAccessTTL
	}
	if o.RefreshTTL <= 0 {
		o.RefreshTTL = defaultRefreshTTL
	}
	s := &Server{
		App:  a,
		Opts: o,
		Now:  func() time.Time { return a.Now() },
		cimd: newMetadataCache(),
	}
	a.People.OAuthTokens = s.ResolveAccessToken
	a.AddJob(kernel.Job{Name: "oauth purge", Every: time.Hour, Run: s.Purge})
	return s
}

// Each site of the process is its own issuer: the metadata, the endpoints
// and the resource a token is bound to name the origin of the request's
// site (kernel.Site in the context). The account is one across sites, so a
// token issued on one site is accepted by the MCP and API of every site
// (ResolveAccessToken).

// Issuer is the issuer identifier of ctx's site: its origin.
func (s *Server) Issuer(ctx context.Context) string { return s.App.Origin(ctx) }

// Resource is the protected resource (the MCP endpoint of ctx's site) a
// token issued there is bound to.
func (s *Server) Resource(ctx context.Context) string { return s.Issuer(ctx) + "/mcp" }

// ResourceMetadataURL is the RFC 9728 metadata address of the MCP resource,
// for the resource_metadata parameter of WWW-Authenticate on 401s from /mcp.
func (s *Server) ResourceMetadataURL(ctx context.Context) string {
	return s.Issuer(ctx) + "/.well-known/oauth-protected-resource/mcp"
}

// origin is scheme://host of the request's site, for Origin checks.
func (s *Server) origin(ctx context.Context) string {
	u, err := url.Parse(s.Issuer(ctx))
	if err != nil {
		return ""
	}
	return strings.ToLower(u.Scheme + "://" + u.Host)
}

// secure reports whether the request's cookies are Secure (and __Host-).
func (s *Server) secure(r *http.Request) bool {
	return s.Opts.SecureCookies || strings.HasPrefix(s.Issuer(r.Context()), "https://")
}

// Challenge is a WWW-Authenticate value for a 401 (scope "") or a 403
// insufficient_scope (scope set) from the MCP endpoint of ctx's site.
func (s *Server) Challenge(ctx context.Context, scope string) string {
	v := `Bearer resource_metadata="` + s.ResourceMetadataURL(ctx) + `"`
	if scope != "" {
		v += `, error="insufficient_scope", scope="` + scope + `"`
	}
	return v
}

// Mount registers every endpoint on the HTTP server.
func (s *Server) Mount(r *routes.Server) {
	s.trustProxy = r.Opts.TrustProxy
	get := func(path string, h http.HandlerFunc) {
		r.Handle(http.MethodGet, path, h)
		r.Handle(http.MethodOptions, path, http.HandlerFunc(preflight))
	}
	post := func(path string, h http.HandlerFunc, cors bool) {
		r.Handle(http.MethodPost, path, h)
		if cors {
			r.Handle(http.MethodOptions, path, http.HandlerFunc(preflight))
		}
	}
	get("/.well-known/oauth-protected-resource", s.protectedResourceMetadata)
	get("/.well-known/oauth-protected-resource/mcp", s.protectedResourceMetadata)
	get("/.well-known/oauth-authorization-server", s.authorizationServerMetadata)
	r.Handle(http.MethodGet, "/oauth/authorize", http.HandlerFunc(s.authorize))
	post("/oauth/authorize", s.authorizeDecision, false)
	post("/oauth/signin", s.signIn, false)
	post("/oauth/token", s.token, true)
	post("/oauth/register", s.register, true)
	post("/oauth/revoke", s.revoke, true)
}

// Endpoint addresses.
func (s *Server) authorizeURL(ctx context.Context) string { return s.Issuer(ctx) + "/oauth/authorize" }
func (s *Server) tokenURL(ctx context.Context) string     { return s.Issuer(ctx) + "/oauth/token" }
func (s *Server) registerURL(ctx context.Context) string  { return s.Issuer(ctx) + "/oauth/register" }
func (s *Server) revokeURL(ctx context.Context) string    { return s.Issuer(ctx) + "/oauth/revoke" }

func (s *Server) now() time.Time { return s.Now().UTC() }

func ts(t time.Time) string { return t.UTC().Format(time.RFC3339) }

// cors lets browser-based MCP clients read metadata and call the token,
// registration and revocation endpoints. None of them uses cookies.
func cors(w http.ResponseWriter) {
	h := w.Header()
	h.Set("Access-Control-Allow-Origin", "*")
	h.Set("Access-Control-Expose-Headers", "WWW-Authenticate")
}

func preflight(w http.ResponseWriter, r *http.Request) {
	cors(w)
	h := w.Header()
	h.Set("Access-Control-Allow-Methods", "GET, POST, OPTIONS")
	h.Set("Access-Control-Allow-Headers", "Authorization, Content-Type, MCP-Protocol-Version")
	h.Set("Access-Control-Max-Age", "86400")
	w.WriteHeader(http.StatusNoContent)
}

func writeJSON(w http.ResponseWriter, status int, v any) {
	b, err := json.Marshal(v)
	if err != nil {
		status, b = http.StatusInternalServerError, []byte(`{"error":"server_error"}`)
	}
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	w.Write(append(b, '\n'))
}

// oauthError is an RFC 6749 section 5.2 error (also used by RFC 7591/7009).
type oauthError struct {
	Status      int    `json:"-"`
	Code        string `json:"error"`
	Description string `json:"error_description,omitempty"`
}

func (e *oauthError) Error() string { return e.Code + ": " + e.Description }

func errf(status int, code, desc string) *oauthError {
	return &oauthError{Status: status, Code: code, Description: desc}
}

func badRequest(code, desc string) *oauthError { return errf(http.StatusBadRequest, code, desc) }

// writeOAuthError writes err as JSON; unknown errors become server_error.
func (s *Server) writeOAuthError(w http.ResponseWriter, r *http.Request, err error) {
	oe, ok := err.(*oauthError)
	if !ok {
		if e, isOps := err.(*ops.Error); isOps && e.Code == ops.CodeUnavailable {
			oe = errf(http.StatusServiceUnavailable, "temporarily_unavailable", e.Detail)
		} else {
			s.App.Log.Error("oauth", "path", r.URL.Path, "err", err)
			oe = errf(http.StatusInternalServerError, "server_error", "an unexpected error occurred")
		}
	}
	noStore(w)
	if oe.Status == http.StatusUnauthorized {
		w.Header().Set("WWW-Authenticate", `Basic realm="oauth"`)
	}
	writeJSON(w, oe.Status, oe)
}

func noStore(w http.ResponseWriter) {
	w.Header().Set("Cache-Control", "no-store")
	w.Header().Set("Pragma", "no-cache")
}

// parseForm reads a capped application/x-www-form-urlencoded body. Query
// parameters are ignored (credentials must not travel in URLs) and a
// repeated parameter is an error (RFC 6749 section 3.1).
func parseForm(w http.ResponseWriter, r *http.Request) (url.Values, *oauthError) {
	ct := r.Header.Get("Content-Type")
	if mt, _, _ := strings.Cut(ct, ";"); !strings.EqualFold(strings.TrimSpace(mt), "application/x-www-form-urlencoded") {
		return nil, badRequest("invalid_request", "the body must be application/x-www-form-urlencoded")
	}
	r.Body = http.MaxBytesReader(w, r.Body, maxFormBytes)
	if err := r.ParseForm(); err != nil {
		return nil, badRequest("invalid_request", "the form body is malformed or larger than 16 KiB")
	}
	for k, v := range r.PostForm {
		if len(v) > 1 {
			return nil, badRequest("invalid_request", "parameter "+k+" is repeated")
		}
	}
	return r.PostForm, nil
}

// clientIP is the caller's address (first X-Forwarded-For hop behind a
// trusted proxy), the same rule the rate limiter of package routes uses.
func (s *Server) clientIP(r *http.Request) string {
	if s.trustProxy {
		if xff := r.Header.Get("X-Forwarded-For"); xff != "" {
			return strings.TrimSpace(strings.Split(xff, ",")[0])
		}
	}
	host := r.RemoteAddr
	if i := strings.LastIndexByte(host, ':'); i >= 0 {
		host = host[:i]
	}
	return strings.Trim(host, "[]")
}

// Purge deletes expired codes, sessions and tokens, and grants left empty.
// Rotated refresh tokens are kept until they expire so reuse stays detectable.
func (s *Server) Purge(ctx context.Context) error {
	now := s.now()
	cut := ts(now.Add(-24 * time.Hour))
	for _, q := range []string{
		`DELETE FROM oauth_codes WHERE expires_at < ?`,
		`DELETE FROM oauth_sessions WHERE expires_at < ?`,
		`DELETE FROM oauth_tokens WHERE expires_at < ?`,
		`DELETE FROM oauth_grants WHERE created_at < ? AND NOT EXISTS (SELECT 1 FROM oauth_tokens t WHERE t.grant_id = oauth_grants.id)`,
	} {
		if _, err := s.App.DB.W.ExecContext(ctx, q, cut); err != nil {
			return err
		}
	}
	s.cimd.prune(now)
	return nil
}
