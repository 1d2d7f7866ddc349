package site_test

import (
	"context"
	"io"
	"net/http"
	"net/url"
	"regexp"
	"strings"
	"testing"

	"launchdir/apitest"
)

var (
	hrefs      = regexp.MustCompile(`(?:href|action)="(/[^"#]*)`)
	scriptTags = regexp.MustCompile(`(?is)<script([^>]*)>(.*?)</script>`)
	eventAttrs = regexp.MustCompile(`(?i)<[a-z][^>]*\son[a-z]+\s*=`)
)

// checkPageHeaders checks what every HTML page must send: a CSP that
// forbids framing and inline script, X-Frame-Options and nosniff; and that
// the page itself needs no inline script (the CSP would block it).
func checkPageHeaders(t *testing.T, path string, h http.Header, body string) {
	t.Helper()
	csp := h.Get("Content-Security-Policy")
	for _, want := range []string{"frame-ancestors 'none'", "default-src 'none'", "script-src 'self'", "base-uri 'none'"} {
		if !strings.Contains(csp, want) && !(want == "default-src 'none'" && strings.Contains(csp, "default-src 'self'")) &&
			!(want == "script-src 'self'" && strings.Contains(csp, "default-src 'none'") && !strings.Contains(csp, "script-src")) &&
			!(want == "base-uri 'none'" && strings.Contains(csp, "default-src 'self'")) {
			t.Errorf("%s: CSP %q lacks %s", path, csp, want)
		}
	}
	for _, bad := range []string{"unsafe-eval", "script-src 'self' 'unsafe-inline'", "*"} {
		if strings.Contains(csp, bad) {
			t.Errorf("%s: CSP %q allows %s", path, csp, bad)
		}
	}
	if h.Get("X-Frame-Options") != "DENY" || h.Get("X-Content-Type-Options") != "nosniff" {
		t.Errorf("%s: X-Frame-Options %q, X-Content-Type-Options %q", path, h.Get("X-Frame-Options"), h.Get("X-Content-Type-Options"))
	}
	for _, m := range scriptTags.FindAllStringSubmatch(body, -1) {
		if !strings.Contains(m[1], "src=") || strings.TrimSpace(m[2]) != "" {
			t.Errorf("%s: inline script the CSP blocks: %.80q", path, m[0])
		}
	}
	if m := eventAttrs.FindString(body); m != "" {
		t.Errorf("%s: inline event handler the CSP blocks: %.80q", path, m)
	}
}

// walk visits every page reachable from start by links and form actions
// (at most perShape pages per path shape, e.g. /listings/:slug), plus
// extra, and checks each HTML answer. It returns how many it checked.
func walk(t *testing.T, e *apitest.Env, cookie string, start []string, perShape int) int {
	t.Helper()
	c := &http.Client{CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}
	seen, shapes := map[string]bool{}, map[string]int{}
	queue := append([]string{}, start...)
	checked := 0
	for len(queue) > 0 && checked < 600 {
		p := queue[0]
		queue = queue[1:]
		if seen[p] || strings.HasPrefix(p, "/static/") || strings.HasPrefix(p, "/feeds/") || strings.HasSuffix(p, ".xml") ||
			strings.HasSuffix(p, ".txt") || strings.HasPrefix(p, "/api/") || strings.HasPrefix(p, "/badges/") || p == "/signout" {
			continue
		}
		seen[p] = true
		u, _ := url.Parse(p)
		segs := strings.Split(strings.Trim(u.Path, "/"), "/")
		shape := segs[0] + "/" + strings.Repeat("x/", len(segs)-1) + map[bool]string{true: "?", false: ""}[u.RawQuery != ""]
		if shapes[shape] >= perShape && !contains(start, p) {
			continue
		}
		shapes[shape]++
		req, _ := http.NewRequest("GET", e.URL+p, nil)
		if cookie != "" {
			req.AddCookie(&http.Cookie{Name: "ld_session", Value: cookie})
		}
		resp, err := c.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		b, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		if loc := resp.Header.Get("Location"); loc != "" && strings.HasPrefix(loc, "/") {
			queue = append(queue, loc)
		}
		// (A redirect's tiny body is never shown: browsers follow it.)
		if !strings.HasPrefix(resp.Header.Get("Content-Type"), "text/html") || resp.StatusCode/100 == 3 {
			continue
		}
		checked++
		checkPageHeaders(t, p, resp.Header, string(b))
		for _, m := range hrefs.FindAllStringSubmatch(string(b), -1) {
			queue = append(queue, strings.ReplaceAll(m[1], "&amp;", "&"))
		}
	}
	return checked
}

func contains(list []string, s string) bool {
	for _, v := range list {
		if v == s {
			return true
		}
	}
	return false
}

// Every HTML page (public, people, forms, errors, the founder and admin
// areas, OAuth, the REST door's few pages) sends frame-ancestors 'none', a
// strict CSP, X-Frame-Options and nosniff; the badge SVG sends nosniff and
// a sandboxing CSP. The walk follows every link and form from the home
// page, anonymous and signed in as a site admin who owns a listing.
func TestEveryPageSecureHeaders(t *testing.T) {
	e := peopleEnv(t)
	slug := firstSlug(t, e, "/api/v1/launches?section=this-week")
	unlinked := []string{"/", "/signin", "/signin?next=/following", "/signup", "/reset", "/reset/bad-token", "/verify/bad-token",
		"/unsubscribe/bad-token", "/following", "/no-such-page", "/listings/no-such-listing", "/bot", "/problems/invalid",
		"/claims/email/bad-token", "/listings/" + slug, "/search?q=a", "/compare?a=" + slug,
		"/oauth/authorize?" + url.Values{"response_type": {"code"}, "client_id": {registerOAuthClient(t, e)},
			"redirect_uri": {"http://127.0.0.1:9999/callback"}, "code_challenge": {"E9Melhoa2OwvFrEMTJguCHaoeK1t8URWbuGJSstw-cM"},
			"code_challenge_method": {"S256"}}.Encode()}
	anon := walk(t, e, "", unlinked, 3)

	ctx := context.Background()
	u, err := e.App.People.CreateUser(ctx, "walker@example.com", "Walker", "correct horse battery")
	if err != nil {
		t.Fatal(err)
	}
	e.DB.W.Exec(`UPDATE users SET verified_at = created_at WHERE id = ?`, u.ID)
	e.DB.W.Exec(`INSERT INTO listing_owners(listing_id, user_id, created_at) SELECT id, ?, '2026-11-01T00:00:00Z' FROM listings WHERE slug = ?`, u.ID, slug)
	if _, err := e.App.Admin.SetAdmin(ctx, "walker@example.com", true); err != nil {
		t.Fatal(err)
	}
	session, err := e.App.People.StartSession(ctx, u.ID)
	if err != nil {
		t.Fatal(err)
	}
	signed := walk(t, e, session, append(unlinked, "/me", "/me/listings", "/me/drafts", "/me/keys", "/admin", "/admin/moderation"), 3)
	t.Logf("checked %d anonymous and %d signed-in pages", anon, signed)
	if anon < 40 || signed < 60 {
		t.Errorf("walk too short: %d anonymous, %d signed-in pages", anon, signed)
	}

	r := e.Do("GET", "/badges/"+slug+".svg", nil)
	if r.Status != 200 || r.Header.Get("X-Content-Type-Options") != "nosniff" || !strings.Contains(r.Header.Get("Content-Security-Policy"), "default-src 'none'") ||
		!strings.Contains(r.Header.Get("Content-Security-Policy"), "sandbox") {
		t.Errorf("badge: %d %v", r.Status, r.Header)
	}
}
