package mcp_test

import (
	"context"
	"crypto/rand"
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
	"slices"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"launchdir/oauth"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"
)

// httpResult is a finished request of the OAuth flow.
type httpResult struct {
	status int
	header http.Header
	body   string
	url    *url.URL // the last request's URL (after followed redirects)
}

func (r *httpResult) json(t *testing.T) map[string]any {
	t.Helper()
	var m map[string]any
	if err := json.Unmarshal([]byte(r.body), &m); err != nil {
		t.Fatalf("not JSON (%d): %s", r.status, r.body)
	}
	return m
}

func doHTTP(t *testing.T, c *http.Client, method, target, contentType, body string) *httpResult {
	t.Helper()
	var rd io.Reader
	if body != "" {
		rd = strings.NewReader(body)
	}
	req, err := http.NewRequest(method, target, rd)
	if err != nil {
		t.Fatal(err)
	}
	if contentType != "" {
		req.Header.Set("Content-Type", contentType)
	}
	res, err := c.Do(req)
	if err != nil {
		t.Fatalf("%s %s: %v", method, target, err)
	}
	defer res.Body.Close()
	b, _ := io.ReadAll(res.Body)
	return &httpResult{status: res.StatusCode, header: res.Header, body: string(b), url: res.Request.URL}
}

func postForm(t *testing.T, c *http.Client, target string, form url.Values) *httpResult {
	t.Helper()
	return doHTTP(t, c, http.MethodPost, target, "application/x-www-form-urlencoded", form.Encode())
}

var (
	oauthCSRFRe     = regexp.MustCompile(`name="csrf" value="([^"]+)"`)
	oauthRequestRe  = regexp.MustCompile(`name="request" value="([^"]*)"`)
	oauthActionRe   = regexp.MustCompile(`<form method="post" action="([^"]+)"`)
	resourceMetaRe  = regexp.MustCompile(`resource_metadata="([^"]+)"`)
	challengeErrRe  = regexp.MustCompile(`error="([^"]+)"`)
	challengeScope  = regexp.MustCompile(`scope="([^"]+)"`)
	oauthAllScopes  = "account:read listings:write orders:write"
	interviewAnswer = "We make launch weeks painless (answered over OAuth)."
)

// pageForm reads the hidden fields and the absolute action URL of the
// sign-in or consent page.
func pageForm(t *testing.T, r *httpResult) (action, csrf, request string) {
	t.Helper()
	a, c, q := oauthActionRe.FindStringSubmatch(r.body), oauthCSRFRe.FindStringSubmatch(r.body), oauthRequestRe.FindStringSubmatch(r.body)
	if a == nil || c == nil || q == nil {
		t.Fatalf("no form in page (%d):\n%s", r.status, r.body)
	}
	u, err := r.url.Parse(html.UnescapeString(a[1]))
	if err != nil {
		t.Fatal(err)
	}
	return u.String(), html.UnescapeString(c[1]), html.UnescapeString(q[1])
}

// newPKCE returns a random code verifier and its S256 challenge.
func newPKCE() (verifier, challenge string) {
	verifier = base64.RawURLEncoding.EncodeToString([]byte(rand.Text() + rand.Text()))
	sum := sha256.Sum256([]byte(verifier))
	return verifier, base64.RawURLEncoding.EncodeToString(sum[:])
}

// challengeOf checks an MCP 401/403 and returns its WWW-Authenticate value.
func challengeOf(t *testing.T, what string, resp *http.Response, body string, status int) string {
	t.Helper()
	if resp.StatusCode != status {
		t.Fatalf("%s: HTTP %d, want %d: %s", what, resp.StatusCode, status, body)
	}
	ch := resp.Header.Get("WWW-Authenticate")
	if !strings.HasPrefix(ch, "Bearer ") || resourceMetaRe.FindStringSubmatch(ch) == nil {
		t.Fatalf("%s: WWW-Authenticate %q lacks a Bearer resource_metadata challenge", what, ch)
	}
	return ch
}

type account struct {
	User struct {
		Email string `json:"email"`
	} `json:"user"`
	Scopes     []string `json:"scopes"`
	Credential string   `json:"credential"`
}

func getAccount(t *testing.T, cs *sdk.ClientSession) account {
	t.Helper()
	res := call(t, cs, "get_account", nil)
	if res.IsError {
		t.Fatalf("get_account: %s", text(res))
	}
	var a account
	b, _ := json.Marshal(res.StructuredContent)
	if err := json.Unmarshal(b, &a); err != nil {
		t.Fatalf("get_account structured content: %v: %s", err, b)
	}
	return a
}

// TestOAuthFlowSignedInTools drives the whole OAuth 2.1 flow as an MCP
// client would (discovery from the 401, registration, authorization with
// PKCE, sign-in, consent, token, refresh, revocation) and uses the tokens
// with the Go SDK client for signed-in tools.
func TestOAuthFlowSignedInTools(t *testing.T) {
	e := newEnv(t)
	srv := oauth.New(e.App, oauth.Options{})
	srv.Mount(e.Routes)
	const (
		email    = "oauth-founder@example.com"
		password = "correct horse battery staple"
	)
	if _, err := e.App.People.CreateUser(context.Background(), email, "OAuth Founder", password); err != nil {
		t.Fatal(err)
	}
	resource := e.URL + "/mcp"
	api := &http.Client{Timeout: 20 * time.Second}

	// 1. Discovery: an anonymous call of a signed-in tool is challenged.
	resp, body := rpc(t, e, "/mcp", callGetAccount)
	ch := challengeOf(t, "anonymous get_account", resp, body, http.StatusUnauthorized)
	if m := challengeScope.FindStringSubmatch(ch); m == nil || m[1] != "account:read" {
		t.Errorf("anonymous challenge names no scope account:read: %q", ch)
	}
	prmURL := resourceMetaRe.FindStringSubmatch(ch)[1]
	r := doHTTP(t, api, http.MethodGet, prmURL, "", "")
	prm := r.json(t)
	if r.status != 200 || prm["resource"] != resource {
		t.Fatalf("protected resource metadata %s: %d %s", prmURL, r.status, r.body)
	}
	servers, _ := prm["authorization_servers"].([]any)
	if len(servers) == 0 {
		t.Fatalf("no authorization_servers: %s", r.body)
	}
	issuer, _ := servers[0].(string)
	asURL, err := url.Parse(issuer)
	if err != nil || asURL.Host == "" {
		t.Fatalf("authorization server %q: %v", issuer, err)
	}
	// RFC 8414 section 3.1: the well-known suffix goes before the issuer's path.
	asMetaURL := asURL.Scheme + "://" + asURL.Host + "/.well-known/oauth-authorization-server" + strings.TrimSuffix(asURL.Path, "/")
	r = doHTTP(t, api, http.MethodGet, asMetaURL, "", "")
	asm := r.json(t)
	if r.status != 200 || asm["issuer"] != issuer {
		t.Fatalf("authorization server metadata %s: %d %s", asMetaURL, r.status, r.body)
	}
	endpoint := func(k string) string {
		v, _ := asm[k].(string)
		if !strings.HasPrefix(v, "http") {
			t.Fatalf("metadata %s = %v", k, asm[k])
		}
		return v
	}
	authzEP, tokenEP, regEP, revokeEP := endpoint("authorization_endpoint"), endpoint("token_endpoint"),
		endpoint("registration_endpoint"), endpoint("revocation_endpoint")
	if methods, _ := asm["code_challenge_methods_supported"].([]any); !slices.Contains(methods, any("S256")) {
		t.Fatalf("S256 not supported: %v", asm["code_challenge_methods_supported"])
	}

	// The client's loopback callback (RFC 8252); it must never be reached
	// here: the browser below stops at the redirect.
	var callbackHits atomic.Int32
	cb := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { callbackHits.Add(1) }))
	defer cb.Close()
	redirectURI := cb.URL + "/callback"
	if !strings.HasPrefix(redirectURI, "http://127.0.0.1:") {
		t.Fatalf("callback %s is not on 127.0.0.1", redirectURI)
	}

	// 2. Dynamic client registration (RFC 7591), no scope: the defaults.
	reg, _ := json.Marshal(map[string]any{"client_name": "MCP OAuth Test Client", "redirect_uris": []string{redirectURI},
		"grant_types": []string{"authorization_code", "refresh_token"}, "response_types": []string{"code"},
		"token_endpoint_auth_method": "none"})
	r = doHTTP(t, api, http.MethodPost, regEP, "application/json", string(reg))
	client := r.json(t)
	clientID, _ := client["client_id"].(string)
	if r.status != http.StatusCreated || clientID == "" || client["scope"] != oauthAllScopes || client["client_secret"] != nil {
		t.Fatalf("register: %d %s", r.status, r.body)
	}

	// 3. Authorization request with PKCE S256, state and the MCP resource.
	verifier, challenge := newPKCE()
	state := rand.Text()
	q := url.Values{"response_type": {"code"}, "client_id": {clientID}, "redirect_uri": {redirectURI},
		"code_challenge": {challenge}, "code_challenge_method": {"S256"}, "state": {state}, "resource": {resource}}
	jar, err := cookiejar.New(nil)
	if err != nil {
		t.Fatal(err)
	}
	browser := &http.Client{Jar: jar, Timeout: 20 * time.Second, CheckRedirect: func(req *http.Request, via []*http.Request) error {
		if strings.HasPrefix(req.URL.String(), redirectURI) {
			return http.ErrUseLastResponse // the redirect back to the client
		}
		if len(via) >= 10 {
			t.Fatalf("too many redirects: %s", req.URL)
		}
		return nil
	}}
	r = doHTTP(t, browser, http.MethodGet, authzEP+"?"+q.Encode(), "", "")
	if r.status != 200 || !strings.Contains(r.body, `type="password"`) {
		t.Fatalf("want the sign-in page, got %d %s", r.status, r.body)
	}

	// 4. Sign in (CSRF cookie + field); the redirect leads to the consent page.
	action, csrf, request := pageForm(t, r)
	r = postForm(t, browser, action, url.Values{"csrf": {csrf}, "request": {request}, "email": {email}, "password": {password}})
	if r.status != 200 || !strings.Contains(r.body, "Allow access") || !strings.Contains(r.body, email) {
		t.Fatalf("want the consent page after sign-in, got %d %s %s", r.status, r.url, r.body)
	}
	for _, sc := range strings.Fields(oauthAllScopes) {
		if !strings.Contains(r.body, sc) {
			t.Errorf("consent page does not list scope %s", sc)
		}
	}

	// 5. Consent: Allow; the redirect carries code, state and iss.
	action, csrf, request = pageForm(t, r)
	r = postForm(t, browser, action, url.Values{"csrf": {csrf}, "request": {request}, "action": {"allow"}})
	if r.status != http.StatusSeeOther && r.status != http.StatusFound {
		t.Fatalf("consent: %d %s", r.status, r.body)
	}
	back, err := url.Parse(r.header.Get("Location"))
	if err != nil {
		t.Fatal(err)
	}
	bq := back.Query()
	code := bq.Get("code")
	if back.Scheme+"://"+back.Host+back.Path != redirectURI || code == "" || bq.Get("state") != state ||
		bq.Get("iss") != issuer || bq.Get("error") != "" {
		t.Fatalf("redirect to the client: %s", back)
	}
	if n := callbackHits.Load(); n != 0 {
		t.Errorf("callback reached %d times", n)
	}

	// 6. Token exchange.
	r = postForm(t, api, tokenEP, url.Values{"grant_type": {"authorization_code"}, "code": {code}, "redirect_uri": {redirectURI},
		"code_verifier": {verifier}, "client_id": {clientID}, "resource": {resource}})
	tok := r.json(t)
	access1, _ := tok["access_token"].(string)
	refresh1, _ := tok["refresh_token"].(string)
	tokenType, _ := tok["token_type"].(string)
	if r.status != 200 || !strings.EqualFold(tokenType, "Bearer") || access1 == "" || refresh1 == "" ||
		tok["scope"] != oauthAllScopes {
		t.Fatalf("token: %d %s", r.status, r.body)
	}

	// 7. The access token works with the SDK client over HTTP.
	cs1 := connect(t, e, conn{hdr: bearer(access1)})
	acct := getAccount(t, cs1)
	if acct.User.Email != email || acct.Credential != "oauth" || strings.Join(acct.Scopes, " ") != oauthAllScopes {
		t.Fatalf("get_account with the OAuth token: %+v", acct)
	}
	// A write tool needing listings:write.
	res := call(t, cs1, "answer_interview", map[string]any{"answers": []any{map[string]any{"question_id": 1, "answer": interviewAnswer}}})
	if res.IsError || !strings.Contains(text(res), interviewAnswer) {
		t.Fatalf("answer_interview: %s", text(res))
	}
	var stored string
	if err := e.DB.R.QueryRow(`SELECT a.answer FROM interview_answers a JOIN users u ON u.id = a.user_id WHERE u.email = ? AND a.question_id = 1`,
		email).Scan(&stored); err != nil || stored != interviewAnswer {
		t.Fatalf("stored answer %q: %v", stored, err)
	}

	// 8. Refresh with rotation; the new access token works.
	r = postForm(t, api, tokenEP, url.Values{"grant_type": {"refresh_token"}, "refresh_token": {refresh1}, "client_id": {clientID},
		"resource": {resource}})
	tok = r.json(t)
	access2, _ := tok["access_token"].(string)
	refresh2, _ := tok["refresh_token"].(string)
	if r.status != 200 || access2 == "" || access2 == access1 || refresh2 == "" || refresh2 == refresh1 {
		t.Fatalf("refresh: %d %s", r.status, r.body)
	}
	cs2 := connect(t, e, conn{hdr: bearer(access2)})
	if acct := getAccount(t, cs2); acct.User.Email != email || acct.Credential != "oauth" {
		t.Fatalf("get_account with the refreshed token: %+v", acct)
	}

	// A refresh narrowed to account:read gives a token the write tool
	// refuses with 403 insufficient_scope.
	r = postForm(t, api, tokenEP, url.Values{"grant_type": {"refresh_token"}, "refresh_token": {refresh2}, "client_id": {clientID},
		"scope": {"account:read"}})
	tok = r.json(t)
	access3, _ := tok["access_token"].(string)
	refresh3, _ := tok["refresh_token"].(string)
	if r.status != 200 || tok["scope"] != "account:read" || access3 == "" || refresh3 == "" || refresh3 == refresh2 {
		t.Fatalf("narrowed refresh: %d %s", r.status, r.body)
	}
	writeCall := `{"jsonrpc":"2.0","id":9,"method":"tools/call","params":{"name":"answer_interview","arguments":{"answers":[{"question_id":1,"answer":"x"}]}}}`
	resp, body = rpc(t, e, "/mcp", writeCall, "Authorization", "Bearer "+access3)
	ch = challengeOf(t, "answer_interview with account:read only", resp, body, http.StatusForbidden)
	if m := challengeErrRe.FindStringSubmatch(ch); m == nil || m[1] != "insufficient_scope" || !strings.Contains(ch, `scope="listings:write"`) {
		t.Errorf("403 challenge: %q", ch)
	}
	cs3 := connect(t, e, conn{hdr: bearer(access3)})
	if acct := getAccount(t, cs3); len(acct.Scopes) != 1 || acct.Scopes[0] != "account:read" {
		t.Errorf("narrowed token scopes: %v", acct.Scopes)
	}

	// 9. Revoke the refreshed access token (RFC 7009): the next MCP call
	// with it is a 401 invalid_token pointing at the metadata again.
	if r := postForm(t, api, revokeEP, url.Values{"token": {access2}, "token_type_hint": {"access_token"}, "client_id": {clientID}}); r.status != 200 {
		t.Fatalf("revoke access token: %d %s", r.status, r.body)
	}
	resp, body = rpc(t, e, "/mcp", callGetAccount, "Authorization", "Bearer "+access2)
	ch = challengeOf(t, "get_account after revocation", resp, body, http.StatusUnauthorized)
	if m := challengeErrRe.FindStringSubmatch(ch); m == nil || m[1] != "invalid_token" || resourceMetaRe.FindStringSubmatch(ch)[1] != prmURL {
		t.Errorf("401 challenge after revocation: %q", ch)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	if _, err := cs2.CallTool(ctx, &sdk.CallToolParams{Name: "get_account"}); err == nil {
		t.Errorf("SDK session with the revoked token could still call get_account")
	}
	// Revoking one access token leaves the grant's other tokens alone.
	if acct := getAccount(t, cs1); acct.User.Email != email {
		t.Errorf("first access token after revoking the second: %+v", acct)
	}

	// Revoking the current refresh token ends the whole grant.
	if r := postForm(t, api, revokeEP, url.Values{"token": {refresh3}, "token_type_hint": {"refresh_token"}, "client_id": {clientID}}); r.status != 200 {
		t.Fatalf("revoke refresh token: %d %s", r.status, r.body)
	}
	for name, tk := range map[string]string{"first": access1, "narrowed": access3} {
		resp, body := rpc(t, e, "/mcp", callGetAccount, "Authorization", "Bearer "+tk)
		challengeOf(t, name+" access token after refresh revocation", resp, body, http.StatusUnauthorized)
	}
	r = postForm(t, api, tokenEP, url.Values{"grant_type": {"refresh_token"}, "refresh_token": {refresh3}, "client_id": {clientID}})
	if r.status != 400 || r.json(t)["error"] != "invalid_grant" {
		t.Errorf("refresh after revocation: %d %s", r.status, r.body)
	}
}
