package oauth

import (
	"context"
	"crypto/rand"
	"crypto/subtle"
	"database/sql"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/url"
	"slices"
	"strings"
	"sync"
	"time"
	"unicode"

	"launchdir/app/kernel"
	"launchdir/db"
	"launchdir/ops"
)

// Client is a registered client or one described by a client ID metadata
// document.
type Client struct {
	ID            string
	Name          string
	RedirectURIs  []string
	GrantTypes    []string
	ResponseTypes []string
	AuthMethod    string   // none, client_secret_post, client_secret_basic
	Scopes        []string // scopes the client may ask for
	FromDocument  bool     // client_id is a metadata document URL
	secretHash    string
}

// Public reports whether the client has no secret.
func (c *Client) Public() bool { return c.AuthMethod == "none" }

func (c *Client) allowsGrant(g string) bool { return slices.Contains(c.GrantTypes, g) }

// DisplayName is client_name, or the client ID's host for documents.
func (c *Client) DisplayName() string {
	if c.Name != "" {
		return c.Name
	}
	if c.FromDocument {
		if u, err := url.Parse(c.ID); err == nil {
			return u.Host
		}
	}
	return "An unnamed application"
}

// Limits of client metadata.
const (
	maxRedirectURIs   = 10
	maxRedirectURILen = 2000
	maxClientNameLen  = 200
	maxClientIDLen    = 2000
)

var errNoClient = &clientProblem{"the application (client_id) is not registered here; it may need to register again"}

// clientProblem is a user-facing reason a client cannot be used.
type clientProblem struct{ msg string }

func (e *clientProblem) Error() string { return e.msg }

// lookupClient finds a registered client, or fetches the metadata document
// of a URL client ID. Errors are user-facing descriptions.
func (s *Server) lookupClient(ctx context.Context, id string) (*Client, error) {
	if id == "" {
		return nil, &clientProblem{"client_id is missing"}
	}
	if len(id) > maxClientIDLen {
		return nil, &clientProblem{"client_id is too long"}
	}
	if strings.HasPrefix(id, "https://") || strings.HasPrefix(id, "http://") {
		c, err := s.documentClient(ctx, id)
		if err != nil {
			return nil, &clientProblem{err.Error()}
		}
		return c, nil
	}
	c, err := s.registeredClient(ctx, id)
	if db.IsNoRows(err) {
		return nil, errNoClient
	}
	return c, err
}

func (s *Server) registeredClient(ctx context.Context, id string) (*Client, error) {
	c := &Client{ID: id}
	var secret sql.NullString
	var redirects, grants, responses, scope string
	err := s.App.DB.R.QueryRowContext(ctx, `SELECT secret_hash, client_name, redirect_uris, grant_types, response_types, auth_method, scope
		FROM oauth_clients WHERE client_id = ?`, id).Scan(&secret, &c.Name, &redirects, &grants, &responses, &c.AuthMethod, &scope)
	if err != nil {
		return nil, err
	}
	c.secretHash = secret.String
	if err := errors.Join(json.Unmarshal([]byte(redirects), &c.RedirectURIs), json.Unmarshal([]byte(grants), &c.GrantTypes),
		json.Unmarshal([]byte(responses), &c.ResponseTypes)); err != nil {
		return nil, fmt.Errorf("client %s: %w", id, err)
	}
	c.Scopes = strings.Fields(scope)
	return c, nil
}

// checkRedirectURI validates a redirect URI at registration: https, or http
// on a loopback host (RFC 8252 section 7.3); absolute, no fragment.
func checkRedirectURI(raw string) error {
	if raw == "" || len(raw) > maxRedirectURILen {
		return errors.New("must be a URL of at most 2000 characters")
	}
	u, err := url.Parse(raw)
	if err != nil || !u.IsAbs() || u.Host == "" || u.Opaque != "" {
		return errors.New("must be an absolute URL")
	}
	if u.Fragment != "" || strings.Contains(raw, "#") {
		return errors.New("must not contain a fragment")
	}
	if u.User != nil {
		return errors.New("must not contain user information")
	}
	switch u.Scheme {
	case "https":
		return nil
	case "http":
		if isLoopback(u.Hostname()) {
			return nil
		}
		return errors.New("http is allowed only for loopback hosts (127.0.0.1, [::1], localhost); use https")
	}
	return errors.New("must use https (or http on a loopback host)")
}

func isLoopback(host string) bool {
	if strings.EqualFold(host, "localhost") {
		return true
	}
	ip := net.ParseIP(host)
	return ip != nil && ip.IsLoopback()
}

// matchRedirectURI reports whether the requested redirect URI is one of the
// registered ones: exact string comparison, except that a loopback http
// URI may use any port (RFC 8252 section 7.3).
func matchRedirectURI(registered []string, requested string) bool {
	if slices.Contains(registered, requested) {
		return true
	}
	q, err := url.Parse(requested)
	if err != nil || q.Scheme != "http" || !isLoopback(q.Hostname()) || q.Fragment != "" || q.User != nil {
		return false
	}
	for _, reg := range registered {
		r, err := url.Parse(reg)
		if err != nil || r.Scheme != "http" || !isLoopback(r.Hostname()) {
			continue
		}
		if r.Hostname() == q.Hostname() && r.EscapedPath() == q.EscapedPath() && r.RawQuery == q.RawQuery {
			return true
		}
	}
	return false
}

// clientMetadata is the registration request / metadata document shape.
// Unknown members are ignored.
type clientMetadata struct {
	ClientID                string          `json:"client_id"`
	ClientSecret            json.RawMessage `json:"client_secret"`
	RedirectURIs            []string        `json:"redirect_uris"`
	ClientName              string          `json:"client_name"`
	GrantTypes              []string        `json:"grant_types"`
	ResponseTypes           []string        `json:"response_types"`
	TokenEndpointAuthMethod string          `json:"token_endpoint_auth_method"`
	Scope                   string          `json:"scope"`
}

// toClient validates metadata (RFC 7591 section 2) and applies defaults.
// The error is an RFC 7591 error code and description.
func (m *clientMetadata) toClient() (*Client, *oauthError) {
	bad := func(desc string) (*Client, *oauthError) { return nil, badRequest("invalid_client_metadata", desc) }
	if len(m.RedirectURIs) == 0 {
		return nil, badRequest("invalid_redirect_uri", "redirect_uris must list at least one redirect URI")
	}
	if len(m.RedirectURIs) > maxRedirectURIs {
		return nil, badRequest("invalid_redirect_uri", "redirect_uris may list at most 10 URIs")
	}
	var redirects []string
	for _, u := range m.RedirectURIs {
		if err := checkRedirectURI(u); err != nil {
			return nil, badRequest("invalid_redirect_uri", fmt.Sprintf("redirect URI %.100q %v", u, err))
		}
		if !slices.Contains(redirects, u) {
			redirects = append(redirects, u)
		}
	}
	name := strings.TrimSpace(m.ClientName)
	if len(name) > maxClientNameLen {
		return bad("client_name may be at most 200 bytes")
	}
	name = strings.Map(func(r rune) rune {
		if unicode.IsControl(r) || r == unicode.ReplacementChar {
			return -1
		}
		return r
	}, name)
	c := &Client{Name: name, RedirectURIs: redirects, AuthMethod: m.TokenEndpointAuthMethod}
	if c.AuthMethod == "" {
		c.AuthMethod = "none"
	}
	if !slices.Contains(authMethodsSupported, c.AuthMethod) {
		return bad("token_endpoint_auth_method must be one of none, client_secret_post, client_secret_basic")
	}
	// Refresh tokens are granted unless the client lists grant types without
	// refresh_token (a friendlier default than RFC 7591's authorization_code only).
	c.GrantTypes = grantTypesSupported
	if len(m.GrantTypes) > 0 {
		c.GrantTypes = nil
		for _, g := range m.GrantTypes {
			if !slices.Contains(grantTypesSupported, g) {
				return bad(fmt.Sprintf("grant type %.60q is not supported (supported: authorization_code, refresh_token)", g))
			}
			if !slices.Contains(c.GrantTypes, g) {
				c.GrantTypes = append(c.GrantTypes, g)
			}
		}
		if !c.allowsGrant("authorization_code") {
			return bad("grant_types must include authorization_code")
		}
	}
	c.ResponseTypes = responseTypesSupported
	for _, rt := range m.ResponseTypes {
		if rt != "code" {
			return bad(fmt.Sprintf("response type %.60q is not supported (supported: code)", rt))
		}
	}
	c.Scopes = ops.AllScopes
	if strings.TrimSpace(m.Scope) != "" {
		// Unknown scope values are dropped (RFC 7591 lets the server replace
		// requested metadata); none known means the defaults.
		var scopes []string
		for _, sc := range strings.Fields(m.Scope) {
			if slices.Contains(ops.AllScopes, sc) && !slices.Contains(scopes, sc) {
				scopes = append(scopes, sc)
			}
		}
		if len(scopes) > 0 {
			c.Scopes = orderScopes(scopes)
		}
	}
	return c, nil
}

// orderScopes returns scopes in documentation order.
func orderScopes(in []string) []string {
	var out []string
	for _, s := range ops.AllScopes {
		if slices.Contains(in, s) {
			out = append(out, s)
		}
	}
	return out
}

// register is RFC 7591 dynamic client registration (open registration).
func (s *Server) register(w http.ResponseWriter, r *http.Request) {
	cors(w)
	noStore(w)
	r.Body = http.MaxBytesReader(w, r.Body, maxRegisterBytes)
	var m clientMetadata
	dec := json.NewDecoder(r.Body)
	if err := dec.Decode(&m); err != nil {
		var mbe *http.MaxBytesError
		if errors.As(err, &mbe) {
			s.writeOAuthError(w, r, badRequest("invalid_client_metadata", "the registration request is larger than 16 KiB"))
			return
		}
		s.writeOAuthError(w, r, badRequest("invalid_client_metadata", "the body must be a JSON object of client metadata: "+jsonProblem(err)))
		return
	}
	if dec.More() {
		s.writeOAuthError(w, r, badRequest("invalid_client_metadata", "the body must be one JSON object"))
		return
	}
	c, oe := m.toClient()
	if oe != nil {
		s.writeOAuthError(w, r, oe)
		return
	}
	c.ID = randomID("ldc_")
	var secret string
	var secretHash any
	if !c.Public() {
		secret = kernel.NewSecret(secretPrefix)
		secretHash = kernel.HashSecret(secret)
	}
	now := s.now()
	enc := func(v []string) string { b, _ := json.Marshal(v); return string(b) }
	_, err := s.App.DB.W.ExecContext(r.Context(), `INSERT INTO oauth_clients(client_id, secret_hash, client_name, redirect_uris, grant_types,
		response_types, auth_method, scope, created_at) VALUES(?,?,?,?,?,?,?,?,?)`,
		c.ID, secretHash, c.Name, enc(c.RedirectURIs), enc(c.GrantTypes), enc(c.ResponseTypes), c.AuthMethod, strings.Join(c.Scopes, " "), ts(now))
	if err != nil {
		s.writeOAuthError(w, r, err)
		return
	}
	resp := map[string]any{
		"client_id":                  c.ID,
		"client_id_issued_at":        now.Unix(),
		"redirect_uris":              c.RedirectURIs,
		"grant_types":                c.GrantTypes,
		"response_types":             c.ResponseTypes,
		"token_endpoint_auth_method": c.AuthMethod,
		"scope":                      strings.Join(c.Scopes, " "),
	}
	if c.Name != "" {
		resp["client_name"] = c.Name
	}
	if secret != "" {
		resp["client_secret"] = secret
		resp["client_secret_expires_at"] = 0
	}
	writeJSON(w, http.StatusCreated, resp)
}

func jsonProblem(err error) string {
	var te *json.UnmarshalTypeError
	if errors.As(err, &te) && te.Field != "" {
		return te.Field + " has the wrong type"
	}
	return "malformed JSON"
}

func randomID(prefix string) string {
	b := make([]byte, 16)
	rand.Read(b)
	return prefix + hex.EncodeToString(b)
}

// authenticateClient applies the token/revocation endpoint client
// authentication: client_secret_basic, client_secret_post, or none (a
// public client naming itself with client_id). It returns nil, nil when the
// request names no client at all.
func (s *Server) authenticateClient(r *http.Request, form url.Values) (*Client, error) {
	id, secret, basic := r.BasicAuth()
	if basic {
		var err1, err2 error
		id, err1 = url.QueryUnescape(id)
		secret, err2 = url.QueryUnescape(secret)
		if err1 != nil || err2 != nil {
			return nil, errf(http.StatusUnauthorized, "invalid_client", "malformed HTTP Basic client credentials")
		}
		if fid := form.Get("client_id"); fid != "" && fid != id {
			return nil, badRequest("invalid_request", "client_id differs from the authenticated client")
		}
		if form.Has("client_secret") {
			return nil, badRequest("invalid_request", "use only one client authentication method")
		}
	} else {
		id, secret = form.Get("client_id"), form.Get("client_secret")
	}
	if id == "" {
		if secret != "" {
			return nil, badRequest("invalid_request", "client_secret without client_id")
		}
		return nil, nil
	}
	invalid := errf(http.StatusUnauthorized, "invalid_client", "client authentication failed")
	var c *Client
	var err error
	if strings.HasPrefix(id, "https://") || strings.HasPrefix(id, "http://") {
		// A metadata-document client is public; no fetch is needed here,
		// the code or token it presents names the client it was issued to.
		c = &Client{ID: id, AuthMethod: "none", FromDocument: true, GrantTypes: grantTypesSupported}
	} else if c, err = s.registeredClient(r.Context(), id); db.IsNoRows(err) {
		return nil, invalid
	} else if err != nil {
		return nil, err
	}
	if c.Public() {
		if secret != "" {
			return nil, invalid
		}
		return c, nil
	}
	if secret == "" || subtle.ConstantTimeCompare([]byte(kernel.HashSecret(secret)), []byte(c.secretHash)) != 1 {
		return nil, invalid
	}
	// Either secret transport is accepted whichever one was registered:
	// being strict here breaks clients for no security gain.
	return c, nil
}

// --- client ID metadata documents ---

// metadataCache keeps fetched documents (and failures) briefly.
type metadataCache struct {
	mu      sync.Mutex
	entries map[string]cacheEntry
}

type cacheEntry struct {
	client  *Client
	err     error
	expires time.Time
}

const (
	metadataTTL      = 5 * time.Minute
	metadataErrorTTL = 30 * time.Second
	metadataMaxItems = 1000
)

func newMetadataCache() *metadataCache {
	return &metadataCache{entries: map[string]cacheEntry{}}
}

func (m *metadataCache) get(id string, now time.Time) (cacheEntry, bool) {
	m.mu.Lock()
	defer m.mu.Unlock()
	e, ok := m.entries[id]
	if !ok || now.After(e.expires) {
		return cacheEntry{}, false
	}
	return e, true
}

func (m *metadataCache) put(id string, e cacheEntry, now time.Time) {
	m.mu.Lock()
	defer m.mu.Unlock()
	if len(m.entries) >= metadataMaxItems {
		m.pruneLocked(now)
		for k := range m.entries {
			if len(m.entries) < metadataMaxItems {
				break
			}
			delete(m.entries, k)
		}
	}
	m.entries[id] = e
}

func (m *metadataCache) prune(now time.Time) {
	m.mu.Lock()
	defer m.mu.Unlock()
	m.pruneLocked(now)
}

func (m *metadataCache) pruneLocked(now time.Time) {
	for k, e := range m.entries {
		if now.After(e.expires) {
			delete(m.entries, k)
		}
	}
}

// checkClientIDURL applies the client ID metadata document rules to the
// URL itself: https, a host, a path, no fragment, credentials or dot segments.
func checkClientIDURL(id string) error {
	u, err := url.Parse(id)
	if err != nil || u.Scheme != "https" || u.Host == "" || u.Opaque != "" {
		return errors.New("a URL client_id must be an https URL")
	}
	if u.User != nil || u.Fragment != "" || strings.Contains(id, "#") {
		return errors.New("a URL client_id must not contain user information or a fragment")
	}
	if u.Path == "" || u.Path == "/" {
		return errors.New("a URL client_id must contain a path")
	}
	for _, seg := range strings.Split(u.EscapedPath(), "/") {
		if seg == "." || seg == ".." {
			return errors.New("a URL client_id must not contain dot path segments")
		}
	}
	return nil
}

func (s *Server) documentClient(ctx context.Context, id string) (*Client, error) {
	if s.Opts.HTTPClient == nil {
		return nil, errors.New("URL client IDs (client ID metadata documents) are not supported here; register the client")
	}
	if err := checkClientIDURL(id); err != nil {
		return nil, err
	}
	now := time.Now()
	if e, ok := s.cimd.get(id, now); ok {
		return e.client, e.err
	}
	c, err := s.fetchDocument(ctx, id)
	ttl := metadataTTL
	if err != nil {
		ttl = metadataErrorTTL
	}
	s.cimd.put(id, cacheEntry{client: c, err: err, expires: now.Add(ttl)}, now)
	return c, err
}

func (s *Server) fetchDocument(ctx context.Context, id string) (*Client, error) {
	ctx, cancel := context.WithTimeout(ctx, 10*time.Second)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, id, nil)
	if err != nil {
		return nil, errors.New("the client_id URL is not valid")
	}
	req.Header.Set("Accept", "application/json")
	resp, err := s.Opts.HTTPClient.Do(req)
	if err != nil {
		s.App.Log.Info("client metadata document fetch failed", "client_id", id, "err", err)
		return nil, errors.New("the client metadata document could not be fetched")
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		return nil, fmt.Errorf("the client metadata document answered HTTP %d", resp.StatusCode)
	}
	b, err := io.ReadAll(io.LimitReader(resp.Body, maxMetadataBytes+1))
	if err != nil {
		return nil, errors.New("the client metadata document could not be read")
	}
	if len(b) > maxMetadataBytes {
		return nil, errors.New("the client metadata document is larger than 8 KiB")
	}
	var m clientMetadata
	if err := json.Unmarshal(b, &m); err != nil {
		return nil, errors.New("the client metadata document is not a JSON object of client metadata")
	}
	if m.ClientID != id {
		return nil, errors.New("the client metadata document's client_id does not equal its URL")
	}
	if len(m.ClientSecret) > 0 {
		return nil, errors.New("a client metadata document must not contain a client_secret")
	}
	if m.TokenEndpointAuthMethod != "" && m.TokenEndpointAuthMethod != "none" {
		return nil, errors.New("a client metadata document must use token_endpoint_auth_method none here")
	}
	c, oe := m.toClient()
	if oe != nil {
		return nil, errors.New("the client metadata document is invalid: " + oe.Description)
	}
	c.ID, c.FromDocument = id, true
	return c, nil
}
