package oauth_test

import (
	"context"
	"crypto/sha256"
	"encoding/base64"
	"encoding/json"
	"html"
	"io"
	"net/http"
	"net/http/cookiejar"
	"net/http/httptest"
	"net/url"
	"regexp"
	"strings"
	"testing"
	"time"

	"launchdir/apitest"
	"launchdir/crawl"
	"launchdir/oauth"
)

const (
	testEmail    = "founder@example.com"
	testPassword = "correct horse battery"
	testState    = "st-123_abc"
	testRedirect = "https://client.example/callback"
)

type env struct {
	t   *testing.T
	e   *apitest.Env
	srv *oauth.Server
}

func newEnv(t *testing.T, hc *http.Client) *env {
	t.Helper()
	e := apitest.New(t, apitest.Options{})
	srv := oauth.New(e.App, oauth.Options{HTTPClient: hc})
	srv.Mount(e.Routes)
	return &env{t: t, e: e, srv: srv}
}

func (v *env) user() {
	v.t.Helper()
	if _, err := v.e.App.People.CreateUser(context.Background(), testEmail, "Founder", testPassword); err != nil {
		v.t.Fatal(err)
	}
}

// browser is a cookie-keeping client that does not follow redirects.
func browser(t *testing.T) *http.Client {
	jar, err := cookiejar.New(nil)
	if err != nil {
		t.Fatal(err)
	}
	return &http.Client{Jar: jar, CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}
}

type resp struct {
	status int
	header http.Header
	body   string
}

func (r *resp) json() map[string]any {
	var m map[string]any
	json.Unmarshal([]byte(r.body), &m)
	return m
}

func do(t *testing.T, c *http.Client, req *http.Request) *resp {
	t.Helper()
	res, err := c.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer res.Body.Close()
	b, _ := io.ReadAll(res.Body)
	return &resp{res.StatusCode, res.Header, string(b)}
}

func (v *env) get(c *http.Client, path string) *resp {
	v.t.Helper()
	if !strings.HasPrefix(path, "http") {
		path = v.e.URL + path
	}
	req, _ := http.NewRequest("GET", path, nil)
	return do(v.t, c, req)
}

func (v *env) post(c *http.Client, path string, form url.Values, hdr ...string) *resp {
	v.t.Helper()
	req, _ := http.NewRequest("POST", v.e.URL+path, strings.NewReader(form.Encode()))
	req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	for i := 0; i+1 < len(hdr); i += 2 {
		req.Header.Set(hdr[i], hdr[i+1])
	}
	return do(v.t, c, req)
}

func (v *env) register(body any) *resp {
	v.t.Helper()
	b, _ := json.Marshal(body)
	req, _ := http.NewRequest("POST", v.e.URL+"/oauth/register", strings.NewReader(string(b)))
	req.Header.Set("Content-Type", "application/json")
	return do(v.t, http.DefaultClient, req)
}

func (v *env) registerPublic(redirects ...string) string {
	v.t.Helper()
	if len(redirects) == 0 {
		redirects = []string{testRedirect}
	}
	r := v.register(map[string]any{"client_name": "Test Agent", "redirect_uris": redirects})
	if r.status != 201 {
		v.t.Fatalf("register: %d %s", r.status, r.body)
	}
	return r.json()["client_id"].(string)
}

func pkce() (verifier, challenge string) {
	verifier = strings.Repeat("verifier-", 6) + "x"
	sum := sha256.Sum256([]byte(verifier))
	return verifier, base64.RawURLEncoding.EncodeToString(sum[:])
}

func authorizeQuery(clientID, redirect, challenge string, extra ...string) string {
	q := url.Values{"client_id": {clientID}, "response_type": {"code"}, "code_challenge": {challenge},
		"code_challenge_method": {"S256"}, "state": {testState}}
	if redirect != "" {
		q.Set("redirect_uri", redirect)
	}
	for i := 0; i+1 < len(extra); i += 2 {
		if extra[i+1] == "" {
			q.Del(extra[i])
		} else {
			q.Set(extra[i], extra[i+1])
		}
	}
	return "/oauth/authorize?" + q.Encode()
}

var (
	csrfRe    = regexp.MustCompile(`name="csrf" value="([^"]+)"`)
	requestRe = regexp.MustCompile(`name="request" value="([^"]*)"`)
)

func formFields(t *testing.T, page string) (csrf, request string) {
	t.Helper()
	m1, m2 := csrfRe.FindStringSubmatch(page), requestRe.FindStringSubmatch(page)
	if m1 == nil || m2 == nil {
		t.Fatalf("no form in page:\n%s", page)
	}
	return html.UnescapeString(m1[1]), html.UnescapeString(m2[1])
}

// signInAndConsent drives the pages from the authorization URL to the
// redirect back to the client, choosing action, and returns its URL.
func (v *env) signInAndConsent(b *http.Client, authURL, action string) *url.URL {
	v.t.Helper()
	r := v.get(b, authURL)
	if r.status != 200 || !strings.Contains(r.body, `action="/oauth/signin"`) {
		v.t.Fatalf("want the sign-in page, got %d %s %s", r.status, r.header.Get("Location"), r.body)
	}
	csrf, request := formFields(v.t, r.body)
	r = v.post(b, "/oauth/signin", url.Values{"csrf": {csrf}, "request": {request}, "email": {testEmail}, "password": {testPassword}})
	if r.status != http.StatusSeeOther || !strings.HasPrefix(r.header.Get("Location"), "/oauth/authorize?") {
		v.t.Fatalf("sign-in: %d %s %s", r.status, r.header.Get("Location"), r.body)
	}
	r = v.get(b, r.header.Get("Location"))
	if r.status != 200 || !strings.Contains(r.body, "Allow access") {
		v.t.Fatalf("want the consent page, got %d %s", r.status, r.body)
	}
	csrf, request = formFields(v.t, r.body)
	r = v.post(b, "/oauth/authorize", url.Values{"csrf": {csrf}, "request": {request}, "action": {action}})
	if r.status != http.StatusSeeOther {
		v.t.Fatalf("consent: %d %s", r.status, r.body)
	}
	u, err := url.Parse(r.header.Get("Location"))
	if err != nil {
		v.t.Fatal(err)
	}
	return u
}

// code runs the whole front channel and returns the code.
func (v *env) code(clientID, redirect, challenge string, extra ...string) string {
	v.t.Helper()
	u := v.signInAndConsent(browser(v.t), authorizeQuery(clientID, redirect, challenge, extra...), "allow")
	q := u.Query()
	if q.Get("code") == "" || q.Get("state") != testState || q.Get("iss") != v.e.URL {
		v.t.Fatalf("bad redirect %s", u)
	}
	return q.Get("code")
}

func (v *env) exchange(clientID, code, redirect, verifier string) *resp {
	v.t.Helper()
	return v.post(http.DefaultClient, "/oauth/token", url.Values{"grant_type": {"authorization_code"}, "code": {code},
		"redirect_uri": {redirect}, "code_verifier": {verifier}, "client_id": {clientID}})
}

func (v *env) refresh(clientID, rt string, extra ...string) *resp {
	v.t.Helper()
	f := url.Values{"grant_type": {"refresh_token"}, "refresh_token": {rt}, "client_id": {clientID}}
	for i := 0; i+1 < len(extra); i += 2 {
		f.Set(extra[i], extra[i+1])
	}
	return v.post(http.DefaultClient, "/oauth/token", f)
}

func (v *env) me(token string) *resp {
	v.t.Helper()
	req, _ := http.NewRequest("GET", v.e.URL+"/api/v1/me", nil)
	req.Header.Set("Authorization", "Bearer "+token)
	return do(v.t, http.DefaultClient, req)
}

func wantOAuthError(t *testing.T, r *resp, status int, code string) {
	t.Helper()
	if r.status != status || r.json()["error"] != code {
		t.Fatalf("want %d %s, got %d %s", status, code, r.status, r.body)
	}
	if r.header.Get("Cache-Control") != "no-store" {
		t.Fatalf("token endpoint error without Cache-Control: no-store")
	}
}

func TestMetadata(t *testing.T) {
	v := newEnv(t, nil)
	for _, p := range []string{"/.well-known/oauth-protected-resource/mcp", "/.well-known/oauth-protected-resource"} {
		m := v.get(http.DefaultClient, p).json()
		if m["resource"] != v.e.URL+"/mcp" || m["authorization_servers"].([]any)[0] != v.e.URL ||
			len(m["scopes_supported"].([]any)) != 3 || m["bearer_methods_supported"].([]any)[0] != "header" {
			t.Fatalf("%s: %v", p, m)
		}
	}
	r := v.get(http.DefaultClient, "/.well-known/oauth-authorization-server")
	m := r.json()
	if r.status != 200 || r.header.Get("Access-Control-Allow-Origin") != "*" {
		t.Fatalf("AS metadata: %d %v", r.status, r.header)
	}
	want := map[string]any{
		"issuer": v.e.URL, "authorization_endpoint": v.e.URL + "/oauth/authorize", "token_endpoint": v.e.URL + "/oauth/token",
		"registration_endpoint": v.e.URL + "/oauth/register", "revocation_endpoint": v.e.URL + "/oauth/revoke",
		"authorization_response_iss_parameter_supported": true, "client_id_metadata_document_supported": false,
	}
	for k, val := range want {
		if m[k] != val {
			t.Errorf("%s = %v, want %v", k, m[k], val)
		}
	}
	for k, val := range map[string]string{"response_types_supported": `["code"]`, "grant_types_supported": `["authorization_code","refresh_token"]`,
		"code_challenge_methods_supported": `["S256"]`, "token_endpoint_auth_methods_supported": `["none","client_secret_post","client_secret_basic"]`,
		"scopes_supported": `["account:read","listings:write","orders:write"]`} {
		b, _ := json.Marshal(m[k])
		if string(b) != val {
			t.Errorf("%s = %s, want %s", k, b, val)
		}
	}
	// CORS preflight for browser clients.
	req, _ := http.NewRequest("OPTIONS", v.e.URL+"/oauth/token", nil)
	if r := do(t, http.DefaultClient, req); r.status != 204 || r.header.Get("Access-Control-Allow-Origin") != "*" {
		t.Fatalf("preflight: %d %v", r.status, r.header)
	}
	if v.srv.Challenge(context.Background(), "") != `Bearer resource_metadata="`+v.e.URL+`/.well-known/oauth-protected-resource/mcp"` {
		t.Fatal(v.srv.Challenge(context.Background(), ""))
	}
}

func TestFullFlow(t *testing.T) {
	v := newEnv(t, nil)
	v.user()
	// Registration without scope gets the default scopes.
	r := v.register(map[string]any{"client_name": "Test Agent", "redirect_uris": []string{testRedirect}})
	reg := r.json()
	if r.status != 201 || reg["scope"] != "account:read listings:write orders:write" || reg["token_endpoint_auth_method"] != "none" ||
		reg["client_secret"] != nil || reg["client_id_issued_at"] == nil {
		t.Fatalf("register: %d %s", r.status, r.body)
	}
	clientID := reg["client_id"].(string)
	verifier, challenge := pkce()
	code := v.code(clientID, testRedirect, challenge, "resource", v.e.URL+"/mcp")

	r = v.post(http.DefaultClient, "/oauth/token", url.Values{"grant_type": {"authorization_code"}, "code": {code},
		"redirect_uri": {testRedirect}, "code_verifier": {verifier}, "client_id": {clientID}, "resource": {v.e.URL + "/mcp"}})
	tok := r.json()
	if r.status != 200 || tok["token_type"] != "Bearer" || tok["expires_in"] != float64(3600) ||
		tok["scope"] != "account:read listings:write orders:write" || r.header.Get("Cache-Control") != "no-store" {
		t.Fatalf("token: %d %s %v", r.status, r.body, r.header)
	}
	access, refresh := tok["access_token"].(string), tok["refresh_token"].(string)
	if !strings.HasPrefix(access, "lda_") || !strings.HasPrefix(refresh, "ldr_") {
		t.Fatalf("tokens %s %s", access, refresh)
	}
	if r := v.me(access); r.status != 200 || !strings.Contains(r.body, testEmail) {
		t.Fatalf("/me with access token: %d %s", r.status, r.body)
	}
	p, err := v.srv.ResolveAccessToken(context.Background(), access)
	if err != nil || p.Credential != "oauth" || p.Email != testEmail || len(p.Scopes) != 3 {
		t.Fatalf("principal %+v %v", p, err)
	}
	// A refresh token is not an access token.
	if r := v.me(refresh); r.status != 401 {
		t.Fatalf("/me with refresh token: %d", r.status)
	}

	// Refresh: rotation, with the scope narrowed for the access token.
	r = v.refresh(clientID, refresh, "scope", "account:read")
	tok2 := r.json()
	if r.status != 200 || tok2["scope"] != "account:read" || tok2["refresh_token"] == refresh || tok2["refresh_token"] == nil {
		t.Fatalf("refresh: %d %s", r.status, r.body)
	}
	access2, refresh2 := tok2["access_token"].(string), tok2["refresh_token"].(string)
	if r := v.me(access2); r.status != 200 {
		t.Fatalf("/me with refreshed token: %d %s", r.status, r.body)
	}
	if p, _ := v.srv.ResolveAccessToken(context.Background(), access2); p == nil || len(p.Scopes) != 1 {
		t.Fatalf("narrowed principal %+v", p)
	}
	// Widening beyond the grant is refused.
	wantOAuthError(t, v.refresh(clientID, refresh2, "scope", "account:read admin"), 400, "invalid_scope")

	// Revoke the refreshed access token: 200, then 401.
	if r := v.post(http.DefaultClient, "/oauth/revoke", url.Values{"token": {access2}, "client_id": {clientID}}); r.status != 200 {
		t.Fatalf("revoke: %d %s", r.status, r.body)
	}
	if r := v.me(access2); r.status != 401 {
		t.Fatalf("/me after revoke: %d", r.status)
	}
	if r := v.me(access); r.status != 200 {
		t.Fatalf("revoking one access token touched another: %d", r.status)
	}

	// Reusing the rotated refresh token revokes the whole family.
	wantOAuthError(t, v.refresh(clientID, refresh), 400, "invalid_grant")
	wantOAuthError(t, v.refresh(clientID, refresh2), 400, "invalid_grant")
	if r := v.me(access); r.status != 401 {
		t.Fatalf("/me after family revocation: %d", r.status)
	}

	// Unknown tokens revoke fine (RFC 7009).
	if r := v.post(http.DefaultClient, "/oauth/revoke", url.Values{"token": {"nonsense"}}); r.status != 200 {
		t.Fatalf("revoke unknown: %d", r.status)
	}
}

func TestCodeReuseRevokes(t *testing.T) {
	v := newEnv(t, nil)
	v.user()
	clientID := v.registerPublic()
	verifier, challenge := pkce()
	code := v.code(clientID, testRedirect, challenge)
	r := v.exchange(clientID, code, testRedirect, verifier)
	if r.status != 200 {
		t.Fatalf("exchange: %d %s", r.status, r.body)
	}
	access := r.json()["access_token"].(string)
	refresh := r.json()["refresh_token"].(string)
	wantOAuthError(t, v.exchange(clientID, code, testRedirect, verifier), 400, "invalid_grant")
	if r := v.me(access); r.status != 401 {
		t.Fatalf("access token survived code replay: %d", r.status)
	}
	wantOAuthError(t, v.refresh(clientID, refresh), 400, "invalid_grant")
}

func TestDeny(t *testing.T) {
	v := newEnv(t, nil)
	v.user()
	clientID := v.registerPublic()
	_, challenge := pkce()
	u := v.signInAndConsent(browser(t), authorizeQuery(clientID, testRedirect, challenge), "deny")
	q := u.Query()
	if u.Host != "client.example" || q.Get("error") != "access_denied" || q.Get("state") != testState || q.Get("iss") != v.e.URL || q.Get("code") != "" {
		t.Fatalf("deny redirect %s", u)
	}
}

func TestAuthorizeErrors(t *testing.T) {
	v := newEnv(t, nil)
	v.user()
	clientID := v.registerPublic()
	_, challenge := pkce()
	b := browser(t)
	redirected := func(path, code string) {
		t.Helper()
		r := v.get(b, path)
		u, _ := url.Parse(r.header.Get("Location"))
		if r.status != 302 || u == nil || !strings.HasPrefix(u.String(), testRedirect) || u.Query().Get("error") != code ||
			u.Query().Get("state") != testState || u.Query().Get("iss") != v.e.URL {
			t.Fatalf("%s: want redirect with %s, got %d %s", path, code, r.status, r.header.Get("Location"))
		}
	}
	shown := func(path, text string) {
		t.Helper()
		r := v.get(b, path)
		if r.status != 400 || r.header.Get("Location") != "" || !strings.Contains(r.body, text) {
			t.Fatalf("%s: want an error page, got %d %s %s", path, r.status, r.header.Get("Location"), r.body)
		}
	}
	// plain PKCE and no PKCE are refused.
	redirected(authorizeQuery(clientID, testRedirect, challenge, "code_challenge_method", "plain"), "invalid_request")
	redirected(authorizeQuery(clientID, testRedirect, challenge, "code_challenge_method", ""), "invalid_request")
	redirected(authorizeQuery(clientID, testRedirect, "", "code_challenge", ""), "invalid_request")
	redirected(authorizeQuery(clientID, testRedirect, challenge, "response_type", "token"), "unsupported_response_type")
	redirected(authorizeQuery(clientID, testRedirect, challenge, "scope", "account:read admin"), "invalid_scope")
	redirected(authorizeQuery(clientID, testRedirect, challenge, "resource", "https://other.example/mcp"), "invalid_target")
	// Client or redirect URI problems are shown, never redirected.
	shown(authorizeQuery(clientID, "https://evil.example/callback", challenge), "redirect_uri")
	shown(authorizeQuery(clientID, testRedirect+"/x", challenge), "redirect_uri")
	shown(authorizeQuery("ldc_unknown", testRedirect, challenge), "not registered")
	shown(authorizeQuery("", testRedirect, challenge, "client_id", ""), "client_id")
	// Sole registered redirect URI may be omitted.
	if r := v.get(b, authorizeQuery(clientID, "", challenge)); r.status != 200 || !strings.Contains(r.body, "/oauth/signin") {
		t.Fatalf("omitted redirect_uri: %d %s", r.status, r.body)
	}
	// A requested scope narrows the grant.
	verifier, challenge := pkce()
	code := v.code(clientID, testRedirect, challenge, "scope", "orders:write")
	if r := v.exchange(clientID, code, testRedirect, verifier); r.status != 200 || r.json()["scope"] != "orders:write" {
		t.Fatalf("narrow scope: %d %s", r.status, r.body)
	}
}

func TestTokenErrors(t *testing.T) {
	v := newEnv(t, nil)
	v.user()
	clientID := v.registerPublic()
	verifier, challenge := pkce()

	code := v.code(clientID, testRedirect, challenge)
	wantOAuthError(t, v.exchange(clientID, code, testRedirect, strings.Repeat("w", 50)), 400, "invalid_grant")
	// The code was burnt by the failed attempt.
	wantOAuthError(t, v.exchange(clientID, code, testRedirect, verifier), 400, "invalid_grant")

	code = v.code(clientID, testRedirect, challenge)
	wantOAuthError(t, v.exchange(clientID, code, "https://client.example/other", verifier), 400, "invalid_grant")

	code = v.code(clientID, testRedirect, challenge)
	other := v.registerPublic()
	wantOAuthError(t, v.exchange(other, code, testRedirect, verifier), 400, "invalid_grant")

	wantOAuthError(t, v.exchange(clientID, "ldc_nonsense", testRedirect, verifier), 400, "invalid_grant")
	wantOAuthError(t, v.exchange(clientID, "x", testRedirect, ""), 400, "invalid_request")
	wantOAuthError(t, v.exchange("", "x", testRedirect, verifier), 401, "invalid_client")
	wantOAuthError(t, v.post(http.DefaultClient, "/oauth/token", url.Values{"grant_type": {"password"}}), 400, "unsupported_grant_type")
	wantOAuthError(t, v.post(http.DefaultClient, "/oauth/token", url.Values{"grant_type": {"refresh_token"}, "refresh_token": {"ldr_x"}}), 400, "invalid_grant")
	wantOAuthError(t, v.post(http.DefaultClient, "/oauth/token", url.Values{"code": {"a", "b"}, "grant_type": {"authorization_code"}}), 400, "invalid_request")
	// JSON bodies and huge bodies are refused without panicking.
	req, _ := http.NewRequest("POST", v.e.URL+"/oauth/token", strings.NewReader(`{"grant_type":"authorization_code"}`))
	req.Header.Set("Content-Type", "application/json")
	wantOAuthError(t, do(t, http.DefaultClient, req), 400, "invalid_request")
	wantOAuthError(t, v.post(http.DefaultClient, "/oauth/token", url.Values{"x": {strings.Repeat("a", 20000)}}), 400, "invalid_request")

	// Expired code.
	code = v.code(clientID, testRedirect, challenge)
	v.srv.Now = func() time.Time { return apitest.Now.Add(10 * time.Minute) }
	wantOAuthError(t, v.exchange(clientID, code, testRedirect, verifier), 400, "invalid_grant")
}

func TestExpiredAccessToken(t *testing.T) {
	v := newEnv(t, nil)
	v.user()
	clientID := v.registerPublic()
	verifier, challenge := pkce()
	r := v.exchange(clientID, v.code(clientID, testRedirect, challenge), testRedirect, verifier)
	access, refresh := r.json()["access_token"].(string), r.json()["refresh_token"].(string)
	if r := v.me(access); r.status != 200 {
		t.Fatalf("/me: %d", r.status)
	}
	v.srv.Now = func() time.Time { return apitest.Now.Add(61 * time.Minute) }
	if r := v.me(access); r.status != 401 {
		t.Fatalf("/me with expired token: %d %s", r.status, r.body)
	}
	// The refresh token still works and gives a live access token.
	r = v.refresh(clientID, refresh)
	if r.status != 200 {
		t.Fatalf("refresh: %d %s", r.status, r.body)
	}
	if r := v.me(r.json()["access_token"].(string)); r.status != 200 {
		t.Fatalf("/me with new token: %d", r.status)
	}
}

func TestLoopbackRedirectAnyPort(t *testing.T) {
	v := newEnv(t, nil)
	v.user()
	clientID := v.registerPublic("http://127.0.0.1:3000/callback", "http://[::1]/cb")
	verifier, challenge := pkce()
	for _, ru := range []string{"http://127.0.0.1:54321/callback", "http://[::1]:8123/cb"} {
		u := v.signInAndConsent(browser(t), authorizeQuery(clientID, ru, challenge), "allow")
		if u.Scheme+"://"+u.Host+u.Path != ru {
			t.Fatalf("redirected to %s, want %s", u, ru)
		}
		code := u.Query().Get("code")
		if r := v.exchange(clientID, code, ru, verifier); r.status != 200 {
			t.Fatalf("exchange: %d %s", r.status, r.body)
		}
	}
	b := browser(t)
	for _, ru := range []string{"http://127.0.0.1:54321/other", "http://localhost:3000/callback", "https://127.0.0.1:3000/callback"} {
		if r := v.get(b, authorizeQuery(clientID, ru, challenge)); r.status != 400 || r.header.Get("Location") != "" {
			t.Fatalf("%s: %d %s", ru, r.status, r.header.Get("Location"))
		}
	}
}

func TestRegistration(t *testing.T) {
	v := newEnv(t, nil)
	v.user()
	bad := func(body any, code string) {
		t.Helper()
		r := v.register(body)
		if r.status != 400 || r.json()["error"] != code {
			t.Fatalf("%v: want %s, got %d %s", body, code, r.status, r.body)
		}
	}
	bad(map[string]any{}, "invalid_redirect_uri")
	bad(map[string]any{"redirect_uris": []string{"http://client.example/cb"}}, "invalid_redirect_uri")
	bad(map[string]any{"redirect_uris": []string{"https://client.example/cb#x"}}, "invalid_redirect_uri")
	bad(map[string]any{"redirect_uris": []string{"javascript:alert(1)"}}, "invalid_redirect_uri")
	bad(map[string]any{"redirect_uris": "https://client.example/cb"}, "invalid_client_metadata")
	bad(map[string]any{"redirect_uris": []string{testRedirect}, "grant_types": []string{"client_credentials"}}, "invalid_client_metadata")
	bad(map[string]any{"redirect_uris": []string{testRedirect}, "response_types": []string{"token"}}, "invalid_client_metadata")
	bad(map[string]any{"redirect_uris": []string{testRedirect}, "token_endpoint_auth_method": "private_key_jwt"}, "invalid_client_metadata")
	bad(map[string]any{"redirect_uris": []string{testRedirect}, "client_name": strings.Repeat("n", 300)}, "invalid_client_metadata")
	bad(strings.Repeat("x", 20000), "invalid_client_metadata")
	req, _ := http.NewRequest("POST", v.e.URL+"/oauth/register", strings.NewReader("{not json"))
	if r := do(t, http.DefaultClient, req); r.status != 400 {
		t.Fatalf("bad JSON: %d", r.status)
	}

	// Scope is narrowed to known values; unknown ones are dropped.
	r := v.register(map[string]any{"redirect_uris": []string{testRedirect}, "scope": "account:read openid"})
	if r.status != 201 || r.json()["scope"] != "account:read" {
		t.Fatalf("scoped register: %d %s", r.status, r.body)
	}
	_, challenge := pkce()
	if r := v.get(browser(t), authorizeQuery(r.json()["client_id"].(string), testRedirect, challenge, "scope", "orders:write")); r.status != 302 ||
		!strings.Contains(r.header.Get("Location"), "error=invalid_scope") {
		t.Fatalf("scope beyond registration: %d %s", r.status, r.header.Get("Location"))
	}

	// A confidential client gets a secret and must use it.
	r = v.register(map[string]any{"redirect_uris": []string{testRedirect}, "token_endpoint_auth_method": "client_secret_basic",
		"grant_types": []string{"authorization_code", "refresh_token"}})
	reg := r.json()
	if r.status != 201 || reg["client_secret"] == nil || reg["client_secret_expires_at"] != float64(0) {
		t.Fatalf("confidential register: %d %s", r.status, r.body)
	}
	id, secret := reg["client_id"].(string), reg["client_secret"].(string)
	verifier, challenge := pkce()
	code := v.code(id, testRedirect, challenge)
	form := url.Values{"grant_type": {"authorization_code"}, "code": {code}, "redirect_uri": {testRedirect}, "code_verifier": {verifier}}
	basic := func(id, secret string) string {
		return "Basic " + base64.StdEncoding.EncodeToString([]byte(url.QueryEscape(id)+":"+url.QueryEscape(secret)))
	}
	r = v.post(http.DefaultClient, "/oauth/token", form, "Authorization", basic(id, "wrong"))
	wantOAuthError(t, r, 401, "invalid_client")
	if r.header.Get("WWW-Authenticate") == "" {
		t.Fatal("401 without WWW-Authenticate")
	}
	wantOAuthError(t, v.exchange(id, code, testRedirect, verifier), 401, "invalid_client")
	// (The code is not burnt by failed client authentication.)
	r = v.post(http.DefaultClient, "/oauth/token", form, "Authorization", basic(id, secret))
	if r.status != 200 {
		t.Fatalf("confidential exchange: %d %s", r.status, r.body)
	}
	refresh := r.json()["refresh_token"].(string)
	// client_secret_post works too; the refresh needs authentication.
	wantOAuthError(t, v.post(http.DefaultClient, "/oauth/token", url.Values{"grant_type": {"refresh_token"}, "refresh_token": {refresh}}), 401, "invalid_client")
	r = v.post(http.DefaultClient, "/oauth/token", url.Values{"grant_type": {"refresh_token"}, "refresh_token": {refresh},
		"client_id": {id}, "client_secret": {secret}})
	if r.status != 200 {
		t.Fatalf("confidential refresh: %d %s", r.status, r.body)
	}

	// A client registered without refresh_token gets no refresh token.
	r = v.register(map[string]any{"redirect_uris": []string{testRedirect}, "grant_types": []string{"authorization_code"}})
	id = r.json()["client_id"].(string)
	code = v.code(id, testRedirect, challenge)
	if r := v.exchange(id, code, testRedirect, verifier); r.status != 200 || r.json()["refresh_token"] != nil {
		t.Fatalf("no-refresh client: %d %s", r.status, r.body)
	}
}

func TestClientIDMetadataDocument(t *testing.T) {
	var docs = map[string]func(base string) map[string]any{}
	ts := httptest.NewTLSServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		f := docs[r.URL.Path]
		if f == nil {
			http.NotFound(w, r)
			return
		}
		w.Header().Set("Content-Type", "application/json")
		json.NewEncoder(w).Encode(f("https://" + r.Host))
	}))
	defer ts.Close()
	docs["/client.json"] = func(base string) map[string]any {
		return map[string]any{"client_id": base + "/client.json", "client_name": "Document Agent",
			"redirect_uris": []string{"http://127.0.0.1/callback"}, "grant_types": []string{"authorization_code", "refresh_token"},
			"token_endpoint_auth_method": "none"}
	}
	docs["/wrong.json"] = func(base string) map[string]any {
		return map[string]any{"client_id": base + "/other.json", "redirect_uris": []string{testRedirect}}
	}
	docs["/secret.json"] = func(base string) map[string]any {
		return map[string]any{"client_id": base + "/secret.json", "redirect_uris": []string{testRedirect}, "client_secret": "x"}
	}
	docs["/big.json"] = func(base string) map[string]any {
		return map[string]any{"client_id": base + "/big.json", "redirect_uris": []string{testRedirect}, "pad": strings.Repeat("p", 10000)}
	}

	hc := crawl.NewHTTPClient(crawl.Options{AllowPrivate: true})
	if tr, ok := hc.Transport.(*http.Transport); ok {
		tr.TLSClientConfig = ts.Client().Transport.(*http.Transport).TLSClientConfig.Clone()
	} else {
		t.Fatalf("crawl client transport is %T", hc.Transport)
	}
	v := newEnv(t, hc)
	v.user()
	if m := v.get(http.DefaultClient, "/.well-known/oauth-authorization-server").json(); m["client_id_metadata_document_supported"] != true {
		t.Fatal("metadata does not advertise client ID metadata documents")
	}
	clientID := ts.URL + "/client.json"
	verifier, challenge := pkce()
	b := browser(t)
	u := v.signInAndConsent(b, authorizeQuery(clientID, "http://127.0.0.1:9999/callback", challenge), "allow")
	code := u.Query().Get("code")
	if code == "" {
		t.Fatalf("redirect %s", u)
	}
	r := v.exchange(clientID, code, "http://127.0.0.1:9999/callback", verifier)
	if r.status != 200 {
		t.Fatalf("exchange: %d %s", r.status, r.body)
	}
	if r := v.me(r.json()["access_token"].(string)); r.status != 200 {
		t.Fatalf("/me: %d", r.status)
	}
	// Signed in now: the consent page names the client and its host.
	r = v.get(b, authorizeQuery(clientID, "http://127.0.0.1:9999/callback", challenge))
	if !strings.Contains(r.body, "Document Agent") || !strings.Contains(r.body, clientID) {
		t.Fatalf("consent page: %s", r.body)
	}
	for _, bad := range []string{"/wrong.json", "/secret.json", "/big.json", "/missing.json"} {
		if r := v.get(b, authorizeQuery(ts.URL+bad, testRedirect, challenge)); r.status != 400 || r.header.Get("Location") != "" {
			t.Fatalf("%s: %d %s", bad, r.status, r.body)
		}
	}
	// http:// client IDs and dot segments are refused without a fetch.
	for _, bad := range []string{"http://" + strings.TrimPrefix(ts.URL, "https://") + "/client.json", ts.URL + "/a/../client.json", ts.URL} {
		if r := v.get(b, authorizeQuery(bad, testRedirect, challenge)); r.status != 400 {
			t.Fatalf("%s: %d", bad, r.status)
		}
	}
}

func TestCSRFAndSignIn(t *testing.T) {
	v := newEnv(t, nil)
	v.user()
	clientID := v.registerPublic()
	_, challenge := pkce()
	b := browser(t)
	r := v.get(b, authorizeQuery(clientID, testRedirect, challenge))
	csrf, request := formFields(t, r.body)

	// Missing or wrong CSRF token.
	if r := v.post(b, "/oauth/signin", url.Values{"request": {request}, "email": {testEmail}, "password": {testPassword}}); r.status != 403 {
		t.Fatalf("sign-in without csrf: %d", r.status)
	}
	if r := v.post(b, "/oauth/signin", url.Values{"csrf": {csrf + "x"}, "request": {request}, "email": {testEmail}, "password": {testPassword}}); r.status != 403 {
		t.Fatalf("sign-in with wrong csrf: %d", r.status)
	}
	// A cookie-less client (a forged cross-site form) fails too.
	if r := v.post(browser(t), "/oauth/signin", url.Values{"csrf": {csrf}, "request": {request}, "email": {testEmail}, "password": {testPassword}}); r.status != 403 {
		t.Fatalf("sign-in without cookie: %d", r.status)
	}
	// Foreign Origin.
	if r := v.post(b, "/oauth/signin", url.Values{"csrf": {csrf}, "request": {request}, "email": {testEmail}, "password": {testPassword}},
		"Origin", "https://evil.example"); r.status != 403 {
		t.Fatalf("sign-in from another origin: %d", r.status)
	}

	// Wrong password, then rate limiting after 5 failures.
	for i := 0; i < 5; i++ {
		r := v.post(b, "/oauth/signin", url.Values{"csrf": {csrf}, "request": {request}, "email": {testEmail}, "password": {"wrong password"}})
		if r.status != 401 || !strings.Contains(r.body, "not correct") {
			t.Fatalf("wrong password %d: %d %s", i, r.status, r.body)
		}
	}
	r = v.post(b, "/oauth/signin", url.Values{"csrf": {csrf}, "request": {request}, "email": {testEmail}, "password": {testPassword}})
	if r.status != 429 || r.header.Get("Retry-After") == "" {
		t.Fatalf("want rate limited, got %d", r.status)
	}
	// Unknown users fail the same way.
	r = v.post(b, "/oauth/signin", url.Values{"csrf": {csrf}, "request": {request}, "email": {"nobody@example.com"}, "password": {testPassword}})
	if r.status != 401 {
		t.Fatalf("unknown user: %d", r.status)
	}
	// After the window, sign-in works; the consent POST checks CSRF too.
	// (The failure counters are the people domain's, on the app's clock.)
	v.srv.Now = func() time.Time { return apitest.Now.Add(16 * time.Minute) }
	v.e.App.Now = v.srv.Now
	r = v.post(b, "/oauth/signin", url.Values{"csrf": {csrf}, "request": {request}, "email": {testEmail}, "password": {testPassword}})
	if r.status != 303 {
		t.Fatalf("sign-in after window: %d %s", r.status, r.body)
	}
	r = v.get(b, r.header.Get("Location"))
	_, request = formFields(t, r.body)
	if r := v.post(b, "/oauth/authorize", url.Values{"request": {request}, "action": {"allow"}}); r.status != 403 || r.header.Get("Location") != "" {
		t.Fatalf("consent without csrf: %d %s", r.status, r.header.Get("Location"))
	}
	if r.header.Get("X-Frame-Options") != "DENY" || !strings.Contains(r.header.Get("Content-Security-Policy"), "frame-ancestors 'none'") {
		t.Fatalf("consent page can be framed: %v", r.header)
	}
	// "Use another account" signs out.
	csrf, request = formFields(t, r.body)
	r = v.post(b, "/oauth/authorize", url.Values{"csrf": {csrf}, "request": {request}, "action": {"switch"}})
	if r.status != 303 {
		t.Fatalf("switch: %d", r.status)
	}
	if r := v.get(b, r.header.Get("Location")); !strings.Contains(r.body, `action="/oauth/signin"`) {
		t.Fatalf("after switch: %s", r.body)
	}
}

func TestRevokeRefreshTokenAndPurge(t *testing.T) {
	v := newEnv(t, nil)
	v.user()
	clientID := v.registerPublic()
	verifier, challenge := pkce()
	r := v.exchange(clientID, v.code(clientID, testRedirect, challenge), testRedirect, verifier)
	access, refresh := r.json()["access_token"].(string), r.json()["refresh_token"].(string)
	// Another client's revocation request is ignored (still 200).
	other := v.registerPublic()
	if r := v.post(http.DefaultClient, "/oauth/revoke", url.Values{"token": {refresh}, "client_id": {other}}); r.status != 200 {
		t.Fatalf("revoke by other client: %d", r.status)
	}
	if r := v.me(access); r.status != 200 {
		t.Fatalf("another client revoked the token: %d", r.status)
	}
	// Revoking the refresh token revokes the grant's access tokens too.
	if r := v.post(http.DefaultClient, "/oauth/revoke", url.Values{"token": {refresh}, "token_type_hint": {"refresh_token"}}); r.status != 200 {
		t.Fatalf("revoke: %d %s", r.status, r.body)
	}
	if r := v.me(access); r.status != 401 {
		t.Fatalf("/me after refresh revocation: %d", r.status)
	}
	wantOAuthError(t, v.refresh(clientID, refresh), 400, "invalid_grant")
	wantOAuthError(t, v.post(http.DefaultClient, "/oauth/revoke", url.Values{}), 400, "invalid_request")

	countRows := func(when string) int {
		t.Helper()
		var n int
		if err := v.e.DB.R.QueryRow(`SELECT (SELECT count(*) FROM oauth_tokens) + (SELECT count(*) FROM oauth_codes) + (SELECT count(*) FROM oauth_grants) + (SELECT count(*) FROM oauth_sessions)`).Scan(&n); err != nil {
			t.Fatalf("count rows %s purge: %v", when, err)
		}
		return n
	}
	// A purge at the current time keeps the (unexpired) rows, so the final
	// check below is not vacuous.
	if err := v.srv.Purge(context.Background()); err != nil {
		t.Fatal(err)
	}
	if n := countRows("before"); n == 0 {
		t.Fatal("no OAuth rows before the expiry purge; the purge check would prove nothing")
	}
	v.srv.Now = func() time.Time { return apitest.Now.Add(90 * 24 * time.Hour) }
	if err := v.srv.Purge(context.Background()); err != nil {
		t.Fatal(err)
	}
	if n := countRows("after"); n != 0 {
		t.Fatalf("%d rows left after purge", n)
	}
}

func TestSecureCookies(t *testing.T) {
	e := apitest.New(t, apitest.Options{})
	srv := oauth.New(e.App, oauth.Options{SecureCookies: true})
	srv.Mount(e.Routes)
	v := &env{t: t, e: e, srv: srv}
	clientID := v.registerPublic()
	_, challenge := pkce()
	r := v.get(browser(t), authorizeQuery(clientID, testRedirect, challenge))
	c := r.header.Get("Set-Cookie")
	for _, want := range []string{"__Host-ld_oauth_csrf=", "Path=/", "HttpOnly", "Secure", "SameSite=Lax"} {
		if !strings.Contains(c, want) {
			t.Fatalf("cookie %q lacks %s", c, want)
		}
	}
}

func TestBadInputNeverPanics(t *testing.T) {
	v := newEnv(t, nil)
	b := browser(t)
	for _, p := range []string{"/oauth/authorize", "/oauth/authorize?%zz", "/oauth/authorize?client_id=" + url.QueryEscape("https://\x00"),
		"/oauth/authorize?client_id=a&client_id=b", "/oauth/authorize?client_id=" + strings.Repeat("a", 3000)} {
		if r := v.get(b, p); r.status != 400 {
			t.Fatalf("%s: %d %s", p, r.status, r.body)
		}
	}
	_, challenge := pkce()
	v.get(b, authorizeQuery(v.registerPublic(), testRedirect, challenge))
	csrf := ""
	for _, c := range b.Jar.Cookies(&url.URL{Scheme: "http", Host: strings.TrimPrefix(v.e.URL, "http://"), Path: "/oauth/"}) {
		if c.Name == "ld_oauth_csrf" {
			csrf = c.Value
		}
	}
	for _, path := range []string{"/oauth/signin", "/oauth/authorize"} {
		for _, f := range []url.Values{{"csrf": {csrf}}, {"csrf": {csrf}, "request": {"%zz"}}, {"csrf": {csrf}, "request": {"client_id=nope"}}} {
			if r := v.post(b, path, f); r.status != 400 {
				t.Fatalf("%s %v: %d %s", path, f, r.status, r.body)
			}
		}
	}
	for _, path := range []string{"/oauth/token", "/oauth/revoke", "/oauth/register"} {
		for _, body := range []string{"", "%zz", "\x00\xff", "[]", "null", `{"redirect_uris":[null]}`} {
			req, _ := http.NewRequest("POST", v.e.URL+path, strings.NewReader(body))
			req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
			if r := do(t, http.DefaultClient, req); r.status >= 500 {
				t.Fatalf("%s %q: %d %s", path, body, r.status, r.body)
			}
		}
	}
}
