package oauth_test

import (
	"context"
	"net/http"
	"net/url"
	"strings"
	"testing"
)

// One sign-in for the website and the OAuth pages: a site session goes
// straight to consent, signing in on the OAuth page starts a site session,
// and "use another account" ends both.
func TestOAuthSharesSiteSessions(t *testing.T) {
	v := newEnv(t, nil)
	v.user()
	ctx := context.Background()
	clientID := v.registerPublic()
	_, challenge := pkce()
	authURL := authorizeQuery(clientID, "", challenge)

	site, _, err := v.e.App.People.SignIn(ctx, testEmail, testPassword, "10.9.0.1")
	if err != nil {
		t.Fatal(err)
	}
	b := browser(t)
	u, _ := url.Parse(v.e.URL)
	b.Jar.SetCookies(u, []*http.Cookie{{Name: "ld_session", Value: site, Path: "/"}})
	if r := v.get(b, authURL); r.status != 200 || !strings.Contains(r.body, "Allow access") {
		t.Fatalf("signed in on the site, want consent: %d %s", r.status, r.body)
	}
	v.e.App.People.SignOut(ctx, site)
	if r := v.get(b, authURL); !strings.Contains(r.body, `action="/oauth/signin"`) {
		t.Fatal("a revoked site session still opened consent")
	}

	// Signing in on the OAuth page signs in on the site too.
	b = browser(t)
	r := v.get(b, authURL)
	csrf, request := formFields(t, r.body)
	r = v.post(b, "/oauth/signin", url.Values{"csrf": {csrf}, "request": {request}, "email": {testEmail}, "password": {testPassword}})
	if r.status != http.StatusSeeOther {
		t.Fatalf("sign-in: %d", r.status)
	}
	var siteCookie string
	for _, c := range b.Jar.Cookies(u) {
		if c.Name == "ld_session" {
			siteCookie = c.Value
		}
	}
	if p, _ := v.e.App.People.SessionPerson(ctx, siteCookie); p == nil || p.Email != testEmail {
		t.Fatalf("no site session after the OAuth sign-in: %q %+v", siteCookie, p)
	}
	r = v.get(b, r.header.Get("Location"))
	csrf, request = formFields(t, r.body)
	if r := v.post(b, "/oauth/authorize", url.Values{"csrf": {csrf}, "request": {request}, "action": {"switch"}}); r.status != http.StatusSeeOther {
		t.Fatalf("switch: %d", r.status)
	}
	if p, _ := v.e.App.People.SessionPerson(ctx, siteCookie); p != nil {
		t.Fatal("switching account on the OAuth page left the site session signed in")
	}
}
