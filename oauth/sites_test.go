package oauth_test

import (
	"net/http"
	"net/url"
	"strings"
	"testing"
)

// hostDo sends a request to the test server for the site of host.
func (v *env) hostDo(c *http.Client, host, method, path string, form url.Values, hdr ...string) *resp {
	v.t.Helper()
	var req *http.Request
	if form != nil {
		req, _ = http.NewRequest(method, v.e.URL+path, strings.NewReader(form.Encode()))
		req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	} else {
		req, _ = http.NewRequest(method, v.e.URL+path, nil)
	}
	req.Host = host
	for i := 0; i+1 < len(hdr); i += 2 {
		req.Header.Set(hdr[i], hdr[i+1])
	}
	return do(v.t, c, req)
}

// Each site is its own issuer over one account: the pages, the iss of the
// redirect and the resource are the site's; a code is redeemed where it
// was issued; the token then works on every site.
func TestIssuerPerSite(t *testing.T) {
	v := newEnv(t, nil)
	v.user()
	const dev, host = "https://devtools.example", "devtools.example"
	for _, q := range []string{
		`INSERT INTO sites(key, origin, created_at, updated_at) VALUES('devtools', '` + dev + `', '2026-01-01T00:00:00Z', '2026-01-01T00:00:00Z')`,
		`INSERT INTO site_settings(site_key, key, value) VALUES('devtools', 'site_name', 'DevTools Hunt')`,
	} {
		if _, err := v.e.DB.W.Exec(q); err != nil {
			t.Fatal(err)
		}
	}
	v.e.App.ReloadSites()
	mainHost := strings.TrimPrefix(v.e.URL, "http://")
	clientID := v.registerPublic()
	verifier, challenge := pkce()

	// Metadata on each host names that host's site.
	if m := v.hostDo(http.DefaultClient, host, "GET", "/.well-known/oauth-authorization-server", nil).json(); m["issuer"] != dev || m["token_endpoint"] != dev+"/oauth/token" {
		t.Fatalf("devtools metadata: %v", m)
	}
	if m := v.hostDo(http.DefaultClient, mainHost, "GET", "/.well-known/oauth-authorization-server", nil).json(); m["issuer"] != v.e.URL {
		t.Fatalf("main metadata: %v", m)
	}

	code := func() string {
		t.Helper()
		// devtools is https: its cookies are Secure and __Host-, which this
		// http test client would not send back, so they are kept by hand.
		jar := map[string]string{}
		noFollow := browser(t)
		send := func(method, path string, form url.Values, hdr ...string) *resp {
			var pairs []string
			for k, val := range jar {
				pairs = append(pairs, k+"="+val)
			}
			r := v.hostDo(noFollow, host, method, path, form, append(hdr, "Cookie", strings.Join(pairs, "; "))...)
			for _, c := range r.header.Values("Set-Cookie") {
				if !strings.Contains(c, "Secure") || !strings.HasPrefix(c, "__Host-") && !strings.HasPrefix(c, "ld_session=") {
					t.Fatalf("devtools cookie is not Secure/__Host-: %s", c)
				}
				k, val, _ := strings.Cut(strings.SplitN(c, ";", 2)[0], "=")
				jar[k] = val
			}
			return r
		}
		r := send("GET", authorizeQuery(clientID, testRedirect, challenge), nil)
		if r.status != 200 || !strings.Contains(r.body, "Sign in to DevTools Hunt") {
			t.Fatalf("devtools sign-in page: %d %s", r.status, r.body)
		}
		csrf, request := formFields(t, r.body)
		r = send("POST", "/oauth/signin", url.Values{"csrf": {csrf}, "request": {request}, "email": {testEmail}, "password": {testPassword}})
		if r.status != 303 {
			t.Fatalf("sign-in: %d %s", r.status, r.body)
		}
		r = send("GET", r.header.Get("Location"), nil)
		if r.status != 200 || !strings.Contains(r.body, "your DevTools Hunt account") {
			t.Fatalf("consent: %d %s", r.status, r.body)
		}
		csrf, request = formFields(t, r.body)
		r = send("POST", "/oauth/authorize", url.Values{"csrf": {csrf}, "request": {request}, "action": {"allow"}}, "Origin", dev)
		u, _ := url.Parse(r.header.Get("Location"))
		if r.status != 303 || u == nil || u.Query().Get("iss") != dev || u.Query().Get("code") == "" {
			t.Fatalf("redirect: %d %s", r.status, r.header.Get("Location"))
		}
		return u.Query().Get("code")
	}
	exchange := func(h, code string) *resp {
		return v.hostDo(http.DefaultClient, h, "POST", "/oauth/token", url.Values{"grant_type": {"authorization_code"}, "code": {code},
			"redirect_uri": {testRedirect}, "code_verifier": {verifier}, "client_id": {clientID}})
	}
	// A devtools code at main's token endpoint is refused (and burnt).
	wantOAuthError(t, exchange(mainHost, code()), 400, "invalid_grant")
	r := exchange(host, code())
	token, _ := r.json()["access_token"].(string)
	if r.status != 200 || token == "" {
		t.Fatalf("token on devtools: %d %s", r.status, r.body)
	}
	// One account: the token works on every site of the network.
	for _, h := range []string{host, mainHost} {
		if me := v.hostDo(http.DefaultClient, h, "GET", "/api/v1/me", nil, "Authorization", "Bearer "+token); me.status != 200 || !strings.Contains(me.body, testEmail) {
			t.Errorf("token on %s: %d %s", h, me.status, me.body)
		}
	}
	// A form posted from another site's origin is refused.
	b := browser(t)
	pg := v.hostDo(b, host, "GET", authorizeQuery(clientID, testRedirect, challenge), nil)
	csrf, request := formFields(t, pg.body)
	if r := v.hostDo(b, host, "POST", "/oauth/signin", url.Values{"csrf": {csrf}, "request": {request}, "email": {testEmail}, "password": {testPassword}}, "Origin", v.e.URL); r.status != 403 {
		t.Errorf("sign-in form from main's origin on devtools: %d", r.status)
	}
	// The resource a devtools authorization may name is devtools' /mcp.
	r = v.hostDo(browser(t), host, "GET", authorizeQuery(clientID, testRedirect, challenge, "resource", v.e.URL+"/mcp"), nil)
	if u, _ := url.Parse(r.header.Get("Location")); r.status != 302 || u.Query().Get("error") != "invalid_target" || u.Query().Get("iss") != dev {
		t.Errorf("main's resource on devtools: %d %s", r.status, r.header.Get("Location"))
	}
}
