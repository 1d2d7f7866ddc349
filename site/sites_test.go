package site_test

import (
	"context"
	"encoding/json"
	"io"
	"net"
	"net/http"
	"net/http/cookiejar"
	"net/url"
	"regexp"
	"strings"
	"testing"

	"launchdir/apitest"
	"launchdir/mcp"
)

// addSite makes a second site the way the database holds one, with its
// own name, tagline and colour.
func addSite(t *testing.T, e *apitest.Env, key, origin string, settings map[string]string, hosts ...string) {
	t.Helper()
	if _, err := e.DB.W.Exec(`INSERT INTO sites(key, origin, created_at, updated_at) VALUES(?, ?, '2026-01-01T00:00:00Z', '2026-01-01T00:00:00Z')`, key, origin); err != nil {
		t.Fatal(err)
	}
	for _, h := range hosts {
		if _, err := e.DB.W.Exec(`INSERT INTO site_hosts(host, site_key) VALUES(?, ?)`, h, key); err != nil {
			t.Fatal(err)
		}
	}
	for k, v := range settings {
		if _, err := e.DB.W.Exec(`INSERT INTO site_settings(site_key, key, value) VALUES(?, ?, ?)`, key, k, v); err != nil {
			t.Fatal(err)
		}
	}
	e.App.ReloadSites()
}

// devtoolsSite adds the second site of these tests on devtools.localhost
// at the test server's port; it returns its origin.
func devtoolsSite(t *testing.T, e *apitest.Env) string {
	t.Helper()
	_, port, _ := net.SplitHostPort(strings.TrimPrefix(e.URL, "http://"))
	origin := "http://devtools.localhost:" + port
	addSite(t, e, "devtools", origin, map[string]string{"site_name": "DevTools Hunt",
		"site_description": "Developer tools, launched weekly.", "accent_color": "#0f766e"})
	// Every live listing but the newest is on devtools too.
	if _, err := e.DB.W.Exec(`INSERT INTO listing_sites(site_key, listing_id, added_at)
		SELECT 'devtools', id, '2026-01-01T00:00:00Z' FROM listings WHERE status = 'live' AND id != (SELECT max(id) FROM listings WHERE status = 'live')`); err != nil {
		t.Fatal(err)
	}
	return origin
}

// mainOnly is the live listing devtools does not show.
func mainOnly(t *testing.T, e *apitest.Env) string {
	var slug string
	if err := e.DB.R.QueryRow(`SELECT slug FROM listings WHERE id = (SELECT max(id) FROM listings WHERE status = 'live')`).Scan(&slug); err != nil {
		t.Fatal(err)
	}
	return slug
}

// browser is one browser over several host names: every host dials the
// test server, and cookies are kept per host as a browser keeps them.
type browser struct {
	t *testing.T
	c *http.Client
}

type answer struct {
	status int
	header http.Header
	body   string
}

func newBrowser(t *testing.T, e *apitest.Env) *browser {
	jar, _ := cookiejar.New(nil)
	addr := e.Server.Listener.Addr().String()
	tr := &http.Transport{DialContext: func(ctx context.Context, network, _ string) (net.Conn, error) {
		return (&net.Dialer{}).DialContext(ctx, network, addr)
	}}
	t.Cleanup(tr.CloseIdleConnections)
	return &browser{t: t, c: &http.Client{Jar: jar, Transport: tr, CheckRedirect: func(*http.Request, []*http.Request) error {
		return http.ErrUseLastResponse
	}}}
}

func (b *browser) do(method, u string, form url.Values, headers ...string) *answer {
	b.t.Helper()
	var body io.Reader
	if form != nil {
		body = strings.NewReader(form.Encode())
	}
	req, err := http.NewRequest(method, u, body)
	if err != nil {
		b.t.Fatal(err)
	}
	if form != nil {
		req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	}
	for i := 0; i+1 < len(headers); i += 2 {
		req.Header.Set(headers[i], headers[i+1])
	}
	resp, err := b.c.Do(req)
	if err != nil {
		b.t.Fatal(err)
	}
	defer resp.Body.Close()
	raw, _ := io.ReadAll(resp.Body)
	return &answer{status: resp.StatusCode, header: resp.Header, body: string(raw)}
}

func (b *browser) get(u string) *answer { b.t.Helper(); return b.do("GET", u, nil) }

// follow GETs u and the redirects after it (at most 10), returning the
// last answer and its address.
func (b *browser) follow(a *answer, u string) (*answer, string) {
	b.t.Helper()
	for i := 0; i < 10 && a.status >= 300 && a.status < 400; i++ {
		next, err := url.Parse(a.header.Get("Location"))
		if err != nil {
			b.t.Fatal(err)
		}
		base, _ := url.Parse(u)
		u = base.ResolveReference(next).String()
		a = b.get(u)
	}
	return a, u
}

var csrfValue = regexp.MustCompile(`name="csrf" value="([^"]+)"`)

// signIn signs b in on the site at origin with its own form.
func (b *browser) signIn(origin, email string) {
	b.t.Helper()
	pg := b.get(origin + "/signin")
	m := csrfValue.FindStringSubmatch(pg.body)
	if m == nil {
		b.t.Fatalf("no sign-in form at %s: %d", origin, pg.status)
	}
	r := b.do("POST", origin+"/signin", url.Values{"csrf": {m[1]}, "email": {email}, "password": {"correct horse battery"}, "next": {"/"}})
	if r.status != 303 {
		b.t.Fatalf("sign in at %s: %d %s", origin, r.status, r.body)
	}
}

// Two sites on two host names over one database: every public door of
// each names its own origin and name, never the other's.
func TestTwoSitesDoors(t *testing.T) {
	e := newEnv(t)
	dev := devtoolsSite(t, e)
	b := newBrowser(t, e)
	slug := firstSlug(t, e, "/api/v1/launches?section=this-week")
	type site struct{ origin, name, other string }
	mcp.Mount(e.Routes, e.App)
	sites := []site{{e.URL, e.App.SiteName(context.Background()), dev}, {dev, "DevTools Hunt", e.URL}}
	for _, s := range sites {
		check := func(path, want string, more ...string) *answer {
			t.Helper()
			a := b.get(s.origin + path)
			if a.status != 200 {
				t.Errorf("%s%s: %d", s.origin, path, a.status)
				return a
			}
			for _, w := range append([]string{want}, more...) {
				if !strings.Contains(a.body, w) {
					t.Errorf("%s%s lacks %q", s.origin, path, w)
				}
			}
			// (The API's listing JSON carries stored image URLs, which
			// may name the site they were uploaded on: every site serves them.)
			if strings.Contains(a.body, s.other) && !strings.Contains(path, "/badges") {
				t.Errorf("%s%s names the other site %s", s.origin, path, s.other)
			}
			return a
		}
		home := check("/", `<link rel="canonical" href="`+s.origin+`/">`, "<title>"+s.name+": ", `<meta property="og:image" content="`+s.origin+`/og/home/home.png?v=`)
		check("/listings/"+slug, `<link rel="canonical" href="`+s.origin+`/listings/`+slug+`">`, `content="`+s.origin+`/og/listing/`+slug+`.png?v=`, " · "+s.name+"</title>")
		check("/sitemap.xml", "<loc>"+s.origin+"/sitemaps/pages.xml</loc>")
		check("/sitemaps/pages.xml", "<loc>"+s.origin+"/categories</loc>")
		check("/sitemaps/listings-1.xml", "<loc>"+s.origin+"/listings/")
		check("/feeds/launches.atom", "<title>"+s.name+": launches</title>", s.origin+"/listings/")
		check("/feeds/blog.atom", "<title>"+s.name+": blog</title>")
		check("/robots.txt", "Sitemap: "+s.origin+"/sitemap.xml")
		check("/llms.txt", "# "+s.name+"\n", s.origin+"/launches/this", s.origin+"/api/v1/openapi.json", s.origin+"/mcp")
		check("/api/v1/listings/"+slug+"/badges", s.origin+"/badges/"+slug+".svg", s.origin+"/listings/"+slug)
		check("/api/v1/openapi.json", `"url": "`+s.origin+`/api/v1"`)
		check("/api/v1/site", `"name":"`+s.name+`"`)
		as := check("/.well-known/oauth-authorization-server", `"issuer":"`+s.origin+`"`, `"token_endpoint":"`+s.origin+`/oauth/token"`)
		var meta map[string]any
		if json.Unmarshal([]byte(as.body), &meta); meta["authorization_endpoint"] != s.origin+"/oauth/authorize" {
			t.Errorf("%s authorization endpoint %v", s.origin, meta["authorization_endpoint"])
		}
		check("/.well-known/oauth-protected-resource/mcp", `"resource":"`+s.origin+`/mcp"`, `"authorization_servers":["`+s.origin+`"]`, s.name+" MCP server")
		// The look: devtools links its colour, main keeps the default.
		if themed := strings.Contains(home.body, `href="/theme.css?v=`); themed != (s.origin == dev) {
			t.Errorf("%s: theme stylesheet linked %v", s.origin, themed)
		}
		if !strings.Contains(home.body, s.name+" — ") {
			t.Errorf("%s: footer lacks the name and tagline", s.origin)
		}
	}
	if css := b.get(dev + "/theme.css"); css.status != 200 || !strings.Contains(css.body, "--accent:#0f766e") || css.header.Get("Content-Type") != "text/css; charset=utf-8" {
		t.Errorf("devtools theme: %d %q", css.status, css.body)
	}
	// A listing devtools does not show: 404 there (page, card, badge
	// page), absent from its sitemap; main shows it.
	only := mainOnly(t, e)
	for _, p := range []string{"/listings/" + only, "/og/listing/" + only + ".png", "/api/v1/listings/" + only} {
		if a := b.get(dev + p); a.status != 404 {
			t.Errorf("devtools %s: %d", p, a.status)
		}
	}
	if a := b.get(e.URL + "/listings/" + only); a.status != 200 {
		t.Errorf("main /listings/%s: %d", only, a.status)
	}
	if a := b.get(dev + "/sitemaps/listings-1.xml"); strings.Contains(a.body, "/listings/"+only+"<") {
		t.Errorf("devtools sitemap lists %s", only)
	}
	if a := b.get(e.URL + "/sitemaps/listings-1.xml"); !strings.Contains(a.body, e.URL+"/listings/"+only+"<") {
		t.Errorf("main sitemap lacks %s", only)
	}
	// Cards (og images) are drawn for the site asking.
	if a := b.get(dev + "/og/home/home.png"); a.status != 200 || a.header.Get("Content-Type") != "image/png" {
		t.Errorf("devtools home card: %d", a.status)
	}
	// MCP: the server info is the site's.
	init := `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"t","version":"1"}}}`
	for _, s := range sites {
		req, _ := http.NewRequest("POST", s.origin+"/mcp", strings.NewReader(init))
		req.Header.Set("Content-Type", "application/json")
		req.Header.Set("Accept", "application/json, text/event-stream")
		resp, err := b.c.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		raw, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		if resp.StatusCode != 200 || !strings.Contains(string(raw), `"title":"`+s.name+`"`) || !strings.Contains(string(raw), `"websiteUrl":"`+s.origin+`"`) {
			t.Errorf("%s MCP initialize: %d %.400s", s.origin, resp.StatusCode, raw)
		}
		// An unauthenticated signed-in tool points at the site's own metadata.
		call := `{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"list_my_listings","arguments":{}}}`
		req, _ = http.NewRequest("POST", s.origin+"/mcp", strings.NewReader(call))
		req.Header.Set("Content-Type", "application/json")
		req.Header.Set("Accept", "application/json, text/event-stream")
		req.Header.Set("MCP-Protocol-Version", "2025-06-18")
		resp, err = b.c.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		if got := resp.Header.Get("WWW-Authenticate"); !strings.Contains(got, `resource_metadata="`+s.origin+`/.well-known/oauth-protected-resource/mcp"`) {
			t.Errorf("%s MCP challenge: %d %q", s.origin, resp.StatusCode, got)
		}
	}
	// Unknown host: refused with a page naming no site.
	if a := b.get(strings.Replace(e.URL, "127.0.0.1", "other.localhost", 1) + "/"); a.status != 421 || strings.Contains(a.body, "DevTools") || strings.Contains(a.body, sites[0].name) {
		t.Errorf("unknown host: %d %s", a.status, a.body)
	}
}

// Every page of both sites sends the CSP with frame-ancestors.
func TestTwoSitesCSP(t *testing.T) {
	e := newEnv(t)
	dev := devtoolsSite(t, e)
	b := newBrowser(t, e)
	slug := firstSlug(t, e, "/api/v1/launches?section=this-week")
	for _, origin := range []string{e.URL, dev} {
		for _, p := range []string{"/", "/listings/" + slug, "/categories", "/launches/this", "/leaderboards", "/awards", "/founders",
			"/blog", "/search?q=a", "/signup", "/reset", "/no-such-page", "/listings/" + slug + "/reviews"} {
			a := b.get(origin + p)
			csp := a.header.Get("Content-Security-Policy")
			if !strings.Contains(csp, "frame-ancestors 'none'") || strings.Contains(csp, "unsafe-eval") || a.header.Get("X-Frame-Options") != "DENY" {
				t.Errorf("%s%s: %d CSP %q", origin, p, a.status, csp)
			}
			// Forms post here; on devtools their sign-in redirect may go on
			// to main's handoff, and nowhere else.
			want := "form-action 'self';"
			if origin == dev {
				want = "form-action 'self' " + e.URL + ";"
			}
			if !strings.Contains(csp, want) {
				t.Errorf("%s%s: form-action in %q, want %q", origin, p, csp, want)
			}
		}
	}
	// The refusal of an unknown host too.
	a := b.get(strings.Replace(e.URL, "127.0.0.1", "other.localhost", 1) + "/")
	if !strings.Contains(a.header.Get("Content-Security-Policy"), "frame-ancestors 'none'") {
		t.Errorf("unknown host CSP: %q", a.header.Get("Content-Security-Policy"))
	}
}

// The checkout page of an order made on devtools is devtools' page: its
// address, name, colour and home link.
func TestTwoSitesCheckout(t *testing.T) {
	e := newEnv(t)
	dev := devtoolsSite(t, e)
	var id int64
	if err := e.DB.R.QueryRow(`SELECT l.id FROM listings l JOIN listing_owners o ON o.listing_id = l.id JOIN users u ON u.id = o.user_id
		WHERE u.email = 'demo@launchdir.local' AND l.status = 'live' ORDER BY l.id LIMIT 1`).Scan(&id); err != nil {
		t.Fatal(err)
	}
	host := strings.TrimPrefix(dev, "http://")
	r := e.Do("POST", "/api/v1/orders/checkout", apitest.Order(apitest.OrderItem("relaunch", "listing_id", id, "week", "2026-11-23")),
		append(apitest.Bearer(e.APIKey("demo@launchdir.local")), "Host", host)...)
	pay, _ := r.JSON()["checkout_url"].(string)
	if r.Status != 201 || !strings.HasPrefix(pay, dev+"/checkout/") {
		t.Fatalf("checkout on devtools: %d %s", r.Status, r.Body)
	}
	pg := newBrowser(t, e).get(pay)
	for _, want := range []string{"<title>Checkout ", " · DevTools Hunt</title>", `href="/theme.css?v=`, `href="` + dev + `/"`} {
		if !strings.Contains(pg.body, want) {
			t.Errorf("devtools checkout page lacks %q", want)
		}
	}
	if pg.status != 200 || strings.Contains(pg.body, e.URL) || !strings.Contains(pg.header.Get("Content-Security-Policy"), "frame-ancestors 'none'") {
		t.Errorf("devtools checkout page: %d, names main: %v", pg.status, strings.Contains(pg.body, e.URL))
	}
}
