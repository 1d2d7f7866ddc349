package site_test

import (
	"context"
	"encoding/json"
	"encoding/xml"
	"html"
	"net/http"
	"strings"
	"testing"

	"launchdir/apitest"
	"launchdir/app"
	"launchdir/app/kernel"
	"launchdir/demo"
	"launchdir/oauth"
	"launchdir/payments"
	"launchdir/site"
)

// newEnv starts the whole HTTP stack with the website mounted on a fresh
// database holding the demo directory (dated by the test clock).
func newEnv(t testing.TB) *apitest.Env { return newEnvWith(t, nil) }

// newEnvWith also runs setup on the app before the routes are built.
func newEnvWith(t testing.TB, setup func(*app.App)) *apitest.Env {
	t.Helper()
	e := apitest.New(t, apitest.Options{Setup: func(a *app.App) {
		if err := demo.Generate(context.Background(), a.DB, demo.Options{Seed: 1, Now: apitest.Now, BaseURL: a.Cfg.BaseURL}); err != nil {
			t.Fatal(err)
		}
		if setup != nil {
			setup(a)
		}
	}})
	// The other HTML doors, as server.go mounts them: they share the frame.
	if _, err := payments.Setup(e.App, e.Routes, payments.Config{Provider: "test"}); err != nil {
		t.Fatal(err)
	}
	oauth.New(e.App, oauth.Options{}).Mount(e.Routes)
	if _, err := site.Mount(e.Routes, e.App, e.App.People); err != nil {
		t.Fatal(err)
	}
	return e
}

// TestPublicSite runs the read-only page tests on one environment (the
// demo directory takes a moment to build). Tests that write use newEnv.
func TestPublicSite(t *testing.T) {
	e := newEnv(t)
	t.Run("pages", func(t *testing.T) { e.T = t; testPublicPages(t, e) })
	t.Run("not found", func(t *testing.T) { e.T = t; testNotFoundPages(t, e) })
	t.Run("forms", func(t *testing.T) { e.T = t; testFormPages(t, e) })
	t.Run("pagination", func(t *testing.T) { e.T = t; testPagination(t, e) })
	t.Run("feeds", func(t *testing.T) { e.T = t; testFeedsAndDiscovery(t, e) })
	t.Run("shared frame", func(t *testing.T) { e.T = t; testSharedFrame(t, e) })
}

// testSharedFrame: the OAuth and checkout pages render inside the site's
// frame (same header, skip link, stylesheet) and their CSP allows it.
func testSharedFrame(t *testing.T, e *apitest.Env) {
	for _, p := range []string{"/oauth/authorize", "/checkout/no-such-token", "/"} {
		r := e.Do("GET", p, nil)
		body := string(r.Body)
		for _, w := range []string{`<link rel="stylesheet" href="/static/site.css">`, `<a class="skip" href="#main">`, `<nav aria-label="Main">`} {
			if !strings.Contains(body, w) {
				t.Errorf("%s (%d) lacks %q", p, r.Status, w)
			}
		}
		if csp := r.Header.Get("Content-Security-Policy"); csp != "" && !strings.Contains(csp, "style-src 'self'") {
			t.Errorf("%s: CSP blocks the stylesheet: %s", p, csp)
		}
	}
}

// firstSlug reads the slug of the first item an API list returns.
func firstSlug(t *testing.T, e *apitest.Env, path string) string {
	t.Helper()
	var body struct {
		Items []struct {
			Slug    string `json:"slug"`
			Listing struct {
				Slug string `json:"slug"`
			} `json:"listing"`
		} `json:"items"`
	}
	r := e.Do("GET", path, nil)
	if err := json.Unmarshal(r.Body, &body); err != nil || len(body.Items) == 0 {
		t.Fatalf("%s: no items (%d %s)", path, r.Status, r.Body)
	}
	if body.Items[0].Slug == "" {
		return body.Items[0].Listing.Slug
	}
	return body.Items[0].Slug
}

func testPublicPages(t *testing.T, e *apitest.Env) {
	listing := firstSlug(t, e, "/api/v1/launches?section=this-week")
	other := firstSlug(t, e, "/api/v1/launches?section=most-voted")
	founder := firstSlug(t, e, "/api/v1/founders")
	post := firstSlug(t, e, "/api/v1/blog")
	var cats struct {
		Items []struct {
			Slug, Name string
		} `json:"items"`
	}
	json.Unmarshal(e.Do("GET", "/api/v1/categories?include_empty=false", nil).Body, &cats)
	cat := cats.Items[0]
	var sub, parentSlug, parentName string // a subcategory: its breadcrumb names its parent
	e.DB.R.QueryRow(`SELECT c.slug, p.slug, p.name FROM categories c JOIN categories p ON p.id = c.parent_id ORDER BY c.id LIMIT 1`).Scan(&sub, &parentSlug, &parentName)
	var unlocked string // a paid listing with its story unlocked
	e.DB.R.QueryRow(`SELECT slug FROM listings WHERE status = 'live' AND unlock_story = 1 AND unlock_media = 1 ORDER BY id LIMIT 1`).Scan(&unlocked)
	cases := []struct {
		path string
		want []string
	}{
		{"/", []string{"This week, ranked by votes", "Launching today", "Upcoming", "/listings/" + listing}},
		{"/listings/" + listing, []string{"Community rating", "Domain Rating", "<svg class=\"chart\"", "Embed code", "/badges/" + listing + ".svg",
			"action=\"/listings/" + listing + "/vote\"", "action=\"/listings/" + listing + "/follow\"", "action=\"/listings/" + listing + "/review\"", "Alternatives", "Founders"}},
		{"/listings/" + unlocked, []string{`<h2 id="story">`, `<h2 id="media">`}},
		{"/listings/" + listing + "/alternatives", []string{"Alternatives to ", "Compare"}},
		{"/listings/" + listing + "/reviews", []string{"Reviews of ", "genuine reviews"}},
		{"/categories", []string{"Categories", "/categories/" + cat.Slug}},
		{"/categories/" + cat.Slug, []string{cat.Name, "most voted first"}},
		{"/categories/" + sub, []string{` › <a href="/categories/` + parentSlug + `">` + html.EscapeString(parentName) + `</a></nav>`}},
		{"/launches/this", []string{"Launch week of", "/launches/last", "/launches/next", "Any week"}},
		{"/launches/last", []string{"Launch week of 9 Nov 2026"}},
		{"/launches/next", []string{"(upcoming)"}},
		{"/launches/2026-10-07", []string{"Launch week of 5 Oct 2026"}},
		{"/leaderboards", []string{"Billboard", "Paid placement"}},
		{"/leaderboards/community-weekly", []string{"Community votes this week", "#1"}},
		{"/leaderboards/community-all-time", []string{"votes"}},
		{"/leaderboards/billboard", []string{"Paid placement", "PAID RANKING"}},
		{"/leaderboards/domain-rating", []string{"DR "}},
		{"/leaderboards/revenue", []string{"MRR"}},
		{"/founders", []string{"Founders", "/founders/" + founder}},
		{"/founders/" + founder, []string{"Companies"}},
		{"/blog", []string{"Blog", "/blog/" + post}},
		{"/blog/" + post, []string{"class=\"prose\"", "All posts"}},
		{"/awards", []string{"Launch of the Week #1"}},
		{"/search?q=email&sort=newest", []string{"Search: email", "products", "<option value=\"newest\" selected>"}},
		{"/search?status=upcoming", []string{"<option value=\"upcoming\" selected>"}},
		{"/compare?a=" + listing + "&b=" + other, []string{" vs ", "Pricing model"}},
		{"/compare", []string{"Compare two products"}},
	}
	for _, c := range cases {
		t.Run(c.path, func(t *testing.T) {
			r := e.Do("GET", c.path, nil)
			if r.Status != 200 {
				t.Fatalf("status %d: %s", r.Status, r.Body)
			}
			body := string(r.Body)
			for _, w := range append(c.want, `<link rel="canonical" href="`+e.URL, `<meta name="description" content="`,
				`<meta property="og:title"`, `<meta property="og:url" content="`+e.URL, "<title>") {
				if !strings.Contains(body, w) {
					t.Errorf("page lacks %q", w)
				}
			}
			if ct := r.Header.Get("Content-Type"); ct != "text/html; charset=utf-8" {
				t.Errorf("content type %q", ct)
			}
			etag := r.Header.Get("ETag")
			if !strings.HasPrefix(etag, `"`) || r.Header.Get("Cache-Control") != "public, max-age=30" {
				t.Fatalf("caching headers: ETag %q Cache-Control %q", etag, r.Header.Get("Cache-Control"))
			}
			if r2 := e.Do("GET", c.path, nil, "If-None-Match", etag); r2.Status != http.StatusNotModified || len(r2.Body) != 0 {
				t.Errorf("If-None-Match: status %d, %d bytes", r2.Status, len(r2.Body))
			}
			if r3 := e.Do("GET", c.path, nil, "If-None-Match", `"other"`); r3.Status != 200 {
				t.Errorf("stale ETag: status %d", r3.Status)
			}
		})
	}
}

// testFormPages: the account forms carry a token, are never cached and
// are not indexed.
func testFormPages(t *testing.T, e *apitest.Env) {
	for path, want := range map[string]string{"/signin": "/reset", "/signup": `autocomplete="new-password"`, "/reset": "Reset your password"} {
		r := e.Do("GET", path, nil)
		body := string(r.Body)
		if r.Status != 200 || !strings.Contains(body, want) || !strings.Contains(body, `name="csrf" value="`) ||
			!strings.Contains(body, `<meta name="robots" content="noindex">`) || r.Header.Get("Cache-Control") != "no-store" {
			t.Errorf("%s: %d cache %q", path, r.Status, r.Header.Get("Cache-Control"))
		}
	}
}

func testNotFoundPages(t *testing.T, e *apitest.Env) {
	var scheduled string // an upcoming listing has its own page (issue 22), not the profile
	e.DB.R.QueryRow(`SELECT slug FROM listings WHERE status = 'scheduled' LIMIT 1`).Scan(&scheduled)
	if r := e.Do("GET", "/listings/"+scheduled, nil); r.Status != 200 || !strings.Contains(string(r.Body), "Launching soon") {
		t.Errorf("upcoming %s: %d", scheduled, r.Status)
	}
	for _, p := range []string{"/listings/no-such-listing", "/categories/no-such-category", "/founders/nobody-here", "/blog/no-such-post",
		"/leaderboards/no-such-board", "/launches/2031-01-05", "/nothing-here", "/listings/UPPER", "/listings/no-such-listing/alternatives", "/listings/no-such-listing/reviews", "/sitemaps/listings-999.xml",
		"/sitemaps/other.xml", "/launches/someday", "/compare?a=no-such&b=nope"} {
		r := e.Do("GET", p, nil)
		if r.Status != http.StatusNotFound {
			t.Errorf("%s: status %d, want 404", p, r.Status)
			continue
		}
		if !strings.Contains(string(r.Body), "<html") || r.Header.Get("Cache-Control") != "no-store" {
			t.Errorf("%s: not an HTML 404 page: %s", p, r.Body)
		}
	}
	// The machine doors keep their problem+json 404s.
	for _, p := range []string{"/api/v1/nope", "/oauth/nope"} {
		if r := e.Do("GET", p, nil); r.Status != 404 || r.Header.Get("Content-Type") != "application/problem+json" {
			t.Errorf("%s: %d %s", p, r.Status, r.Header.Get("Content-Type"))
		}
	}
	// Bad input is a 400 page naming the field, never a 500.
	for _, p := range []string{"/search?page=0", "/search?page=1001", "/search?sort=bogus", "/categories/x?page=abc"} {
		r := e.Do("GET", p, nil)
		if r.Status != 400 || !strings.Contains(string(r.Body), "<strong>") {
			t.Errorf("%s: status %d, want 400 naming the field: %s", p, r.Status, r.Body)
		}
	}
}

func testPagination(t *testing.T, e *apitest.Env) {
	r := e.Do("GET", "/founders", nil)
	if !strings.Contains(string(r.Body), `<a rel="next" href="/founders?page=2">`) {
		t.Fatalf("no next link on page 1")
	}
	r = e.Do("GET", "/founders?page=2", nil)
	body := string(r.Body)
	if !strings.Contains(body, `<a rel="prev" href="/founders">`) || !strings.Contains(body, `<span aria-current="page">2</span>`) {
		t.Errorf("page 2 lacks prev link or current marker")
	}
	if !strings.Contains(body, `<link rel="canonical" href="`+e.URL+`/founders?page=2">`) {
		t.Errorf("page 2 canonical")
	}
	// Filters survive paging; page 1 is canonical without page=1.
	r = e.Do("GET", "/search?q=a&page=1", nil)
	if !strings.Contains(string(r.Body), `href="`+e.URL+`/search?q=a">`) {
		t.Errorf("canonical keeps page=1")
	}
	// The last page exists and one past it is an empty list, not an error.
	if r := e.Do("GET", "/founders?page=1000", nil); r.Status != 200 || !strings.Contains(string(r.Body), "No founders match") {
		t.Errorf("page 1000: %d", r.Status)
	}
}

func testFeedsAndDiscovery(t *testing.T, e *apitest.Env) {
	for _, p := range []string{"/feeds/launches.atom", "/feeds/blog.atom"} {
		r := e.Do("GET", p, nil)
		var feed struct {
			Title   string `xml:"title"`
			Entries []struct {
				Title string `xml:"title"`
				Link  struct {
					Href string `xml:"href,attr"`
				} `xml:"link"`
			} `xml:"entry"`
		}
		if err := xml.Unmarshal(r.Body, &feed); err != nil || r.Status != 200 || len(feed.Entries) == 0 {
			t.Fatalf("%s: %d %v %d entries", p, r.Status, err, len(feed.Entries))
		}
		if !strings.HasPrefix(feed.Entries[0].Link.Href, e.URL+"/") || r.Header.Get("ETag") == "" {
			t.Errorf("%s: link %q etag %q", p, feed.Entries[0].Link.Href, r.Header.Get("ETag"))
		}
	}
	var idx struct {
		Sitemaps []struct {
			Loc string `xml:"loc"`
		} `xml:"sitemap"`
	}
	r := e.Do("GET", "/sitemap.xml", nil)
	if err := xml.Unmarshal(r.Body, &idx); err != nil || len(idx.Sitemaps) != 2 {
		t.Fatalf("sitemap index: %v %s", err, r.Body)
	}
	for _, sm := range idx.Sitemaps {
		var set struct {
			URLs []struct {
				Loc string `xml:"loc"`
			} `xml:"url"`
		}
		r := e.Do("GET", sm.Loc, nil)
		if err := xml.Unmarshal(r.Body, &set); err != nil || len(set.URLs) < 10 {
			t.Fatalf("%s: %v %d urls", sm.Loc, err, len(set.URLs))
		}
		// Every URL in the sitemap is a page that answers 200.
		for i, u := range set.URLs {
			if i%25 != 0 {
				continue
			}
			if r := e.Do("GET", u.Loc, nil); r.Status != 200 {
				t.Errorf("sitemap URL %s: %d", u.Loc, r.Status)
			}
		}
	}
	r = e.Do("GET", "/robots.txt", nil)
	if !strings.Contains(string(r.Body), "Sitemap: "+e.URL+"/sitemap.xml") || !strings.Contains(string(r.Body), "Disallow: /api/") {
		t.Errorf("robots.txt: %s", r.Body)
	}
	r = e.Do("GET", "/llms.txt", nil)
	for _, w := range []string{e.URL + "/api/v1", e.URL + "/api/v1/openapi.json", e.URL + "/mcp"} {
		if !strings.Contains(string(r.Body), w) {
			t.Errorf("llms.txt lacks %s", w)
		}
	}
	if r := e.Do("GET", "/static/site.css", nil); r.Status != 200 || !strings.HasPrefix(r.Header.Get("Content-Type"), "text/css") {
		t.Errorf("stylesheet: %d %s", r.Status, r.Header.Get("Content-Type"))
	}
}

// TestBlogMarkdownSanitised: Markdown renders, and HTML in it cannot run script.
func TestBlogMarkdownSanitised(t *testing.T) {
	e := newEnv(t)
	_, err := e.DB.W.Exec(`INSERT INTO blog_posts (slug, title, summary, body_md, author, published_at)
		VALUES ('unsafe', 'Unsafe', 's', '# Heading

**bold** [ok](https://example.com) [bad](javascript:alert(1))

<script>alert(1)</script><img src=x onerror=alert(1)>', 'me', '2026-11-01T00:00:00Z')`)
	if err != nil {
		t.Fatal(err)
	}
	body := string(e.Do("GET", "/blog/unsafe", nil).Body)
	for _, w := range []string{"<h1>Heading</h1>", "<strong>bold</strong>", `href="https://example.com"`} {
		if !strings.Contains(body, w) {
			t.Errorf("lacks %q", w)
		}
	}
	for _, bad := range []string{"<script>alert", "javascript:", "onerror"} {
		if strings.Contains(body, bad) {
			t.Errorf("unsafe %q survived", bad)
		}
	}
}

// TestFeaturedMarkedPaid: a featured slot shows on the home page under a
// paid placement label.
func TestFeaturedMarkedPaid(t *testing.T) {
	e := newEnv(t)
	_, err := e.DB.W.Exec(`DELETE FROM featured_slots; INSERT INTO featured_slots (listing_id, week)
		SELECT id, ? FROM listings WHERE status = 'live' ORDER BY id LIMIT 1`, kernel.WeekOf(apitest.Now))
	if err != nil {
		t.Fatal(err)
	}
	var slug string
	e.DB.R.QueryRow(`SELECT slug FROM listings WHERE status = 'live' ORDER BY id LIMIT 1`).Scan(&slug)
	body := string(e.Do("GET", "/", nil).Body)
	i := strings.Index(body, `<h2 id="featured">Featured <span class="paid">Paid placement</span></h2>`)
	if i < 0 || !strings.Contains(body[i:i+800], "/listings/"+slug) {
		t.Fatalf("featured section missing or without %s", slug)
	}
}
