package routes_test

import (
	"encoding/json"
	"net/http"
	"strings"
	"testing"

	"launchdir/apitest"
)

// scenario is one request and what the answer must hold.
type scenario struct {
	name     string
	method   string
	path     string
	body     any
	status   int
	contains []string // substrings of the body
	absent   []string // substrings that must not appear
}

func runScenarios(t *testing.T, e *apitest.Env, list []scenario, headers ...string) {
	t.Helper()
	for _, sc := range list {
		t.Run(sc.name, func(t *testing.T) {
			method := sc.method
			if method == "" {
				method = http.MethodGet
			}
			r := e.Do(method, sc.path, sc.body, headers...)
			if r.Status != sc.status {
				t.Fatalf("%s %s: status %d, want %d; body %s", method, sc.path, r.Status, sc.status, r.Body)
			}
			for _, s := range sc.contains {
				if !strings.Contains(string(r.Body), s) {
					t.Errorf("%s %s: body lacks %q: %s", method, sc.path, s, r.Body)
				}
			}
			for _, s := range sc.absent {
				if strings.Contains(string(r.Body), s) {
					t.Errorf("%s %s: body has %q: %s", method, sc.path, s, r.Body)
				}
			}
			if r.Status >= 400 {
				checkProblem(t, r)
			}
		})
	}
}

// checkProblem asserts the RFC 9457 shape of an error response.
func checkProblem(t *testing.T, r *apitest.Response) {
	t.Helper()
	if ct := r.Header.Get("Content-Type"); ct != "application/problem+json" {
		t.Errorf("problem content type %q", ct)
	}
	m := r.JSON()
	for _, k := range []string{"type", "title", "status", "detail", "code"} {
		if _, ok := m[k]; !ok {
			t.Errorf("problem lacks %q: %s", k, r.Body)
		}
	}
	if st, _ := m["status"].(float64); int(st) != r.Status {
		t.Errorf("problem status %v != %d", m["status"], r.Status)
	}
	if r.Status == 400 {
		if errs, _ := m["errors"].([]any); len(errs) == 0 {
			t.Errorf("400 without field errors: %s", r.Body)
		}
	}
}

func fixtureEnv(t *testing.T) *apitest.Env {
	return apitest.New(t, apitest.Options{Fixture: true})
}

func TestPublicOperations(t *testing.T) {
	e := fixtureEnv(t)
	long := func(n int) string { return strings.Repeat("a", n) }
	runScenarios(t, e, []scenario{
		{name: "site", path: "/api/v1/site", status: 200, contains: []string{`"name":"Test Directory"`, `"current_week":"2026-11-16"`, `"mcp":"http`}},

		// search_listings
		{name: "search all live by votes", path: "/api/v1/listings", status: 200,
			contains: []string{`"total":4`, `"slug":"quickbase"`, `"primary_category":{"slug":"databases"`}, absent: []string{"soonapp", "secretdraft"}},
		{name: "search finds live only", path: "/api/v1/listings?q=database", status: 200,
			contains: []string{"quickbase", "tablely", "rankrocket", `"total":3`}, absent: []string{"secretdraft", "soonapp"}},
		{name: "search name outranks description", path: "/api/v1/listings?q=tablely", status: 200,
			contains: []string{`"items":[{"slug":"tablely"`, `"total":2`}},
		{name: "search prefix", path: "/api/v1/listings?q=quick", status: 200, contains: []string{`"total":1`, "quickbase"}},
		{name: "search operators are literal", path: "/api/v1/listings?q=%22OR%20NEAR(", status: 200, contains: []string{`"total":0`}},
		{name: "search category includes subcategories", path: "/api/v1/listings?category=developer-tools", status: 200,
			contains: []string{`"total":2`, "quickbase", "tablely"}},
		{name: "search extra category", path: "/api/v1/listings?category=marketing", status: 200, contains: []string{"quickbase", "oldpost", "rankrocket", `"total":3`}},
		{name: "search country lowercase", path: "/api/v1/listings?country=de", status: 200, contains: []string{`"total":1`, "quickbase"}},
		{name: "search stage", path: "/api/v1/listings?stage=beta", status: 200, contains: []string{`"total":1`, "tablely"}},
		{name: "search pricing", path: "/api/v1/listings?pricing_model=subscription", status: 200, contains: []string{`"total":1`, "rankrocket"}},
		{name: "search domain from url", path: "/api/v1/listings?domain=https://www.tablely.example/x", status: 200, contains: []string{`"total":1`, "tablely"}},
		{name: "search upcoming", path: "/api/v1/listings?status=upcoming", status: 200, contains: []string{`"total":1`, "soonapp"}},
		{name: "search newest", path: "/api/v1/listings?sort=newest&per_page=1", status: 200, contains: []string{`"items":[{"slug":"tablely"`, `"per_page":1`}},
		{name: "search trending", path: "/api/v1/listings?sort=trending&per_page=1", status: 200, contains: []string{`"items":[{"slug":"quickbase"`}},
		{name: "search most viewed", path: "/api/v1/listings?sort=most_viewed&per_page=1", status: 200, contains: []string{"quickbase"}},
		{name: "search most followed", path: "/api/v1/listings?sort=most_followed&per_page=1&page=2", status: 200, contains: []string{`"items":[{"slug":"rankrocket"`, `"page":2`}},
		{name: "search q sort votes", path: "/api/v1/listings?q=database&sort=votes", status: 200, contains: []string{`"items":[{"slug":"quickbase"`}},
		{name: "q at 200", path: "/api/v1/listings?q=" + long(200), status: 200},
		{name: "q at 201", path: "/api/v1/listings?q=" + long(201), status: 400, contains: []string{`"field":"q"`}},
		{name: "bad sort", path: "/api/v1/listings?sort=random", status: 400, contains: []string{`"field":"sort"`}},
		{name: "bad status", path: "/api/v1/listings?status=draft", status: 400, contains: []string{`"field":"status"`}},
		{name: "page 0", path: "/api/v1/listings?page=0", status: 400, contains: []string{`"field":"page"`}},
		{name: "page 1", path: "/api/v1/listings?page=1", status: 200},
		{name: "page 1000", path: "/api/v1/listings?page=1000", status: 200, contains: []string{`"items":[]`, `"page":1000`}},
		{name: "page 1001", path: "/api/v1/listings?page=1001", status: 400, contains: []string{`"field":"page"`}},
		{name: "page not int", path: "/api/v1/listings?page=x", status: 400, contains: []string{`"field":"page"`}},
		{name: "per_page 0", path: "/api/v1/listings?per_page=0", status: 400, contains: []string{`"field":"per_page"`}},
		{name: "per_page 100", path: "/api/v1/listings?per_page=100", status: 200},
		{name: "per_page 101", path: "/api/v1/listings?per_page=101", status: 400, contains: []string{`"field":"per_page"`}},
		{name: "country 3 letters", path: "/api/v1/listings?country=DEU", status: 400, contains: []string{`"field":"country"`}},
		{name: "pricing 40", path: "/api/v1/listings?pricing_model=" + long(40), status: 200},
		{name: "pricing 41", path: "/api/v1/listings?pricing_model=" + long(41), status: 400},
		{name: "domain 253", path: "/api/v1/listings?domain=" + long(253), status: 200},
		{name: "domain 254", path: "/api/v1/listings?domain=" + long(254), status: 400, contains: []string{`"field":"domain"`}},
		{name: "bad category slug", path: "/api/v1/listings?category=Bad_Slug", status: 400},
		{name: "unknown query params ignored", path: "/api/v1/listings?foo=bar", status: 200},

		// get_listing
		{name: "listing full profile", path: "/api/v1/listings/quickbase", status: 200, contains: []string{
			`"not_found_on_website":["city"]`, `"community_rating":{"average":4.5,"count":2,"basis":"genuine reviews only"}`,
			`"trend":"up"`, `"change":3`, `"founders":[{"slug":"ada-lovelace"`, `"faqs":[{"question":"Is it free?"`,
			`"latest_updates":[{"id":`, `"v2 released"`, `"story":{"title":"Why we built QuickBase"`, `"milestones":[{"id":`,
			`"media":[{"kind":"image"`, `"unlocked_sections":["story","milestones","media"]`, `"links":{`, `"categories":[{"slug":"databases"`}},
		{name: "locked sections hidden", path: "/api/v1/listings/rankrocket", status: 200,
			contains: []string{`"unlocked_sections":[]`, `"community_rating":{"average":null,"count":0`, `"trend":"down"`}, absent: []string{"Locked story", `"milestones"`}},
		{name: "scheduled listing is not public", path: "/api/v1/listings/soonapp", status: 404},
		{name: "draft listing is not public", path: "/api/v1/listings/secretdraft", status: 404},
		{name: "unknown listing", path: "/api/v1/listings/nope", status: 404},
		{name: "malformed slug", path: "/api/v1/listings/Bad_Slug", status: 400, contains: []string{`"field":"slug"`}},
		{name: "slug 220", path: "/api/v1/listings/" + long(220), status: 404},
		{name: "slug 221", path: "/api/v1/listings/" + long(221), status: 400},

		// alternatives, compare
		{name: "alternatives approved first", path: "/api/v1/listings/quickbase/alternatives", status: 200,
			contains: []string{`"items":[{"slug":"oldpost"`, `"approved":true`, `"slug":"tablely"`}, absent: []string{"soonapp"}},
		{name: "alternatives unknown", path: "/api/v1/listings/nope/alternatives", status: 404},
		{name: "compare", path: "/api/v1/compare?a=quickbase&b=rankrocket", status: 200,
			contains: []string{`{"attribute":"Open source","a":"Yes","b":""}`, `{"attribute":"Self-hosted","a":"","b":""}`, `{"attribute":"Channels","a":"","b":"Search"}`, `"attribute":"Founded","a":"2019","b":"2021"`}},
		{name: "compare missing b", path: "/api/v1/compare?a=quickbase", status: 400, contains: []string{`"field":"b"`}},
		{name: "compare unknown", path: "/api/v1/compare?a=quickbase&b=nope", status: 404, contains: []string{`"field":"b"`}},

		// categories
		{name: "categories tree", path: "/api/v1/categories", status: 200,
			contains: []string{`"slug":"developer-tools"`, `"subcategories":[{"slug":"databases"`, `"live_count":2`, "empty-cat"}},
		{name: "categories without empty", path: "/api/v1/categories?include_empty=false", status: 200, absent: []string{"empty-cat"}},
		{name: "categories bad bool", path: "/api/v1/categories?include_empty=maybe", status: 400, contains: []string{`"field":"include_empty"`}},
		{name: "category page", path: "/api/v1/categories/developer-tools", status: 200, contains: []string{`"items":[{"slug":"quickbase"`, `"category":{"slug":"developer-tools"`}},
		{name: "category unknown", path: "/api/v1/categories/nope", status: 404},

		// launches
		{name: "this week", path: "/api/v1/launches/weeks/this", status: 200, contains: []string{`"week":"2026-11-16"`, `"items":[{"slug":"tablely"`}},
		{name: "date snaps to monday", path: "/api/v1/launches/weeks/2026-11-22", status: 200, contains: []string{`"week":"2026-11-16"`, `"ends":"2026-11-22"`}},
		{name: "last week", path: "/api/v1/launches/weeks/last", status: 200, contains: []string{`"week":"2026-11-09"`, "rankrocket"}},
		{name: "future week shows scheduled", path: "/api/v1/launches/weeks/2026-12-16", status: 200, contains: []string{`"week":"2026-12-14"`, "soonapp", `"is_future":true`}},
		{name: "next week", path: "/api/v1/launches/weeks/next", status: 200, contains: []string{`"week":"2026-11-23"`}},
		{name: "month 13 refused by the pattern", path: "/api/v1/launches/weeks/2026-13-45", status: 400, contains: []string{`"field":"week"`}},
		{name: "week before directory", path: "/api/v1/launches/weeks/2020-01-01", status: 404},
		{name: "week far future", path: "/api/v1/launches/weeks/2030-01-01", status: 404},
		{name: "week malformed", path: "/api/v1/launches/weeks/someday", status: 400, contains: []string{`"field":"week"`}},
		{name: "week impossible date", path: "/api/v1/launches/weeks/2026-02-30", status: 400},
		{name: "week 11 chars", path: "/api/v1/launches/weeks/2026-11-160", status: 400},
		{name: "launches default", path: "/api/v1/launches", status: 200, contains: []string{`"section":"this-week"`, "tablely", "quickbase"}},
		{name: "launches today", path: "/api/v1/launches?section=today", status: 200, contains: []string{`"total":1`, "tablely"}},
		{name: "launches trending", path: "/api/v1/launches?section=trending", status: 200, contains: []string{`"items":[{"slug":"quickbase"`}},
		{name: "launches most-voted", path: "/api/v1/launches?section=most-voted", status: 200, contains: []string{`"items":[{"slug":"quickbase"`}},
		{name: "launches recent", path: "/api/v1/launches?section=recent", status: 200, contains: []string{`"items":[{"slug":"tablely"`}},
		{name: "launches most-viewed", path: "/api/v1/launches?section=most-viewed", status: 200, contains: []string{`"items":[{"slug":"quickbase"`}},
		{name: "launches most-followed", path: "/api/v1/launches?section=most-followed", status: 200, contains: []string{`"items":[{"slug":"quickbase"`}},
		{name: "launches upcoming", path: "/api/v1/launches?section=upcoming", status: 200, contains: []string{"soonapp"}},
		{name: "launches bad section", path: "/api/v1/launches?section=best", status: 400, contains: []string{`"field":"section"`}},

		// leaderboards
		{name: "weekly board", path: "/api/v1/leaderboards/community-weekly", status: 200,
			contains: []string{`"week":"2026-11-16"`, `{"rank":1,"listing":{"slug":"tablely"`, `"value":45`}},
		{name: "weekly board last", path: "/api/v1/leaderboards/community-weekly?week=last", status: 200, contains: []string{`{"rank":1,"listing":{"slug":"rankrocket"`}},
		{name: "all time board", path: "/api/v1/leaderboards/community-all-time", status: 200, contains: []string{`{"rank":1,"listing":{"slug":"quickbase"`}},
		{name: "billboard is paid", path: "/api/v1/leaderboards/billboard", status: 200, contains: []string{`"paid":true`, "PAID RANKING", `"value":25000`}},
		{name: "dr names source", path: "/api/v1/leaderboards/domain-rating", status: 200, contains: []string{"Third-party", `"third_party":true`, `{"rank":1,"listing":{"slug":"quickbase"`}},
		{name: "revenue", path: "/api/v1/leaderboards/revenue", status: 200, contains: []string{`"verified":true`, `"value":1200000`}},
		{name: "board page 2", path: "/api/v1/leaderboards/community-all-time?page=2&per_page=1", status: 200, contains: []string{`{"rank":2,`}},
		{name: "unknown board", path: "/api/v1/leaderboards/popular", status: 404},
		{name: "week on other board", path: "/api/v1/leaderboards/billboard?week=last", status: 400, contains: []string{`"field":"week"`}},
		{name: "board bad week", path: "/api/v1/leaderboards/community-weekly?week=yesterday", status: 400},

		// founders, blog, awards, badges, interview
		{name: "founders", path: "/api/v1/founders", status: 200, contains: []string{`"total":2`, "ada-lovelace", "bob-builder"}, absent: []string{"ghost-founder"}},
		{name: "founders q", path: "/api/v1/founders?q=ada", status: 200, contains: []string{`"total":1`}},
		{name: "founders q like chars literal", path: "/api/v1/founders?q=%25", status: 200, contains: []string{`"total":0`}},
		{name: "founders country", path: "/api/v1/founders?country=us", status: 200, contains: []string{`"total":1`, "bob-builder"}},
		{name: "founders q 120", path: "/api/v1/founders?q=" + long(120), status: 200},
		{name: "founders q 121", path: "/api/v1/founders?q=" + long(121), status: 400, contains: []string{`"field":"q"`}},
		{name: "founder", path: "/api/v1/founders/ada-lovelace", status: 200, contains: []string{`"companies":[`, "quickbase", "tablely", `"stories":[{"listing":"quickbase"`}},
		{name: "founder only of drafts", path: "/api/v1/founders/ghost-founder", status: 404},
		{name: "founder unknown", path: "/api/v1/founders/nobody", status: 404},
		{name: "blog newest first", path: "/api/v1/blog", status: 200, contains: []string{`"items":[{"slug":"how-to-launch"`, `"total":2`}},
		{name: "blog q", path: "/api/v1/blog?q=seo", status: 200, contains: []string{`"total":1`, "seo-basics"}},
		{name: "blog q 201", path: "/api/v1/blog?q=" + long(201), status: 400},
		{name: "blog post", path: "/api/v1/blog/how-to-launch", status: 200, contains: []string{`"markdown":"# Launch`, `"faqs":[{"question":"When?"`}},
		{name: "blog unknown", path: "/api/v1/blog/nope", status: 404},
		{name: "awards newest first", path: "/api/v1/awards", status: 200,
			contains: []string{`"items":[{"week":"2026-11-09","rank":1,"title":"Launch of the Week #1"`, `"total":4`, "community votes only"}},
		{name: "awards of listing", path: "/api/v1/awards?listing=quickbase", status: 200, contains: []string{`"total":2`}},
		{name: "badges", path: "/api/v1/listings/quickbase/badges?shape=pill&mode=dark&size=l", status: 200,
			contains: []string{`"html":"\u003ca href=`, `/badges/quickbase.svg?mode=dark\u0026shape=pill\u0026size=l`, `"image_urls":{`}},
		{name: "badges defaults", path: "/api/v1/listings/quickbase/badges", status: 200, contains: []string{`"shape":"standard"`, `"mode":"auto"`, `"size":"m"`}},
		{name: "badges bad shape", path: "/api/v1/listings/quickbase/badges?shape=circle", status: 400, contains: []string{`"field":"shape"`}},
		{name: "badges bad size", path: "/api/v1/listings/quickbase/badges?size=xl", status: 400},
		{name: "badges unknown", path: "/api/v1/listings/nope/badges", status: 404},
		{name: "interview questions", path: "/api/v1/interview-questions", status: 200, contains: []string{`"total":3`, "What problem do you solve?"}},

		// protocol
		{name: "unknown path", path: "/api/v1/nothing", status: 404},
		{name: "method not allowed", method: "DELETE", path: "/api/v1/listings", status: 405},
	})
}

func TestMethodNotAllowedHasAllow(t *testing.T) {
	e := fixtureEnv(t)
	r := e.Do("PUT", "/api/v1/site", nil)
	if r.Status != 405 || !strings.Contains(r.Header.Get("Allow"), "GET") {
		t.Fatalf("status %d allow %q", r.Status, r.Header.Get("Allow"))
	}
}

func TestETagAnd304(t *testing.T) {
	e := fixtureEnv(t)
	r := e.Do("GET", "/api/v1/listings/quickbase", nil)
	etag := r.Header.Get("ETag")
	if etag == "" || r.Header.Get("Cache-Control") == "" {
		t.Fatalf("no ETag/Cache-Control: %v", r.Header)
	}
	r2 := e.Do("GET", "/api/v1/listings/quickbase", nil, "If-None-Match", etag)
	if r2.Status != 304 || len(r2.Body) != 0 {
		t.Fatalf("want 304 with empty body, got %d %q", r2.Status, r2.Body)
	}
	r3 := e.Do("GET", "/api/v1/listings/quickbase", nil, "If-None-Match", `"other"`)
	if r3.Status != 200 {
		t.Fatalf("want 200 for other etag, got %d", r3.Status)
	}
}

func TestBadgeSVG(t *testing.T) {
	e := fixtureEnv(t)
	r := e.Do("GET", "/badges/tablely.svg?shape=square&mode=auto&size=s", nil)
	if r.Status != 200 || r.Header.Get("Content-Type") != "image/svg+xml" {
		t.Fatalf("status %d type %q", r.Status, r.Header.Get("Content-Type"))
	}
	body := string(r.Body)
	// tablely leads this week's votes: the badge shows its live rank.
	for _, want := range []string{"<svg", "prefers-color-scheme: dark", "#1 this week"} {
		if !strings.Contains(body, want) {
			t.Errorf("svg lacks %q: %s", want, body)
		}
	}
	// A past launch says what it earned (its award), under the site's
	// name; "featured" is a paid product no badge claims.
	r = e.Do("GET", "/badges/oldpost.svg", nil)
	if b := string(r.Body); !strings.Contains(b, "#3 of the week") || !strings.Contains(b, ">Launched on Test Directory<") || strings.Contains(strings.ToUpper(b), "FEATURED") {
		t.Errorf("past launch should show its award under the site's name: %s", r.Body)
	}
	// Owners embed the badge before launch: unpublished listings have one.
	if r := e.Do("GET", "/badges/soonapp.svg", nil); r.Status != 200 || !strings.Contains(string(r.Body), "Launching soon") {
		t.Errorf("badge of a scheduled listing: %d %s", r.Status, r.Body)
	}
	e.DB.W.Exec(`UPDATE listings SET status = 'archived' WHERE slug = 'oldpost'`)
	if r := e.Do("GET", "/badges/oldpost.svg", nil); r.Status != 404 {
		t.Errorf("badge of an archived listing: %d", r.Status)
	}
	if r := e.Do("GET", "/badges/nope.svg", nil); r.Status != 404 {
		t.Errorf("badge of an unknown listing: %d", r.Status)
	}
	// The embed code of an unpublished listing is for its owner only.
	if r := e.Do("GET", "/api/v1/listings/secretdraft/badges", nil); r.Status != 404 {
		t.Errorf("anonymous embed code of a draft: %d", r.Status)
	}
	if r := e.Do("GET", "/api/v1/listings/secretdraft/badges", nil, apitest.Bearer(e.APIKey("other@example.com"))...); r.Status != 404 {
		t.Errorf("another user's embed code of a draft: %d", r.Status)
	}
	if r := e.Do("GET", "/api/v1/listings/secretdraft/badges", nil, apitest.Bearer(e.APIKey("owner@example.com"))...); r.Status != 200 {
		t.Errorf("owner's embed code of a draft: %d %s", r.Status, r.Body)
	}
	if r := e.Do("GET", "/badges/quickbase.svg?size=xl", nil); !strings.Contains(string(r.Body), `"field":"size"`) {
		t.Errorf("bad size names the field: %s", r.Body)
	}
	if r := e.Do("GET", "/badges/quickbase.svg?shape=hexagon", nil); r.Status != 400 {
		t.Errorf("bad shape: %d", r.Status)
	}
}

func TestHealthz(t *testing.T) {
	e := apitest.New(t, apitest.Options{})
	if r := e.Do("GET", "/healthz", nil); r.Status != 200 || !strings.Contains(string(r.Body), `"ok"`) {
		t.Fatalf("healthz: %d %s", r.Status, r.Body)
	}
}

func TestRateLimit(t *testing.T) {
	e := apitest.New(t, apitest.Options{Fixture: true, Routes: routesOpts(1, 3)})
	var last *apitest.Response
	for i := 0; i < 4; i++ {
		last = e.Do("GET", "/api/v1/site", nil)
		if i < 3 && last.Status != 200 {
			t.Fatalf("request %d: %d", i, last.Status)
		}
		// 1 request per second sustained, a burst of 3.
		if i < 3 && (last.Header.Get("RateLimit-Limit") != "1" || last.Header.Get("RateLimit-Policy") != "1;w=1;burst=3") {
			t.Fatalf("RateLimit-Limit %q, RateLimit-Policy %q", last.Header.Get("RateLimit-Limit"), last.Header.Get("RateLimit-Policy"))
		}
	}
	if last.Status != 429 || last.Header.Get("Retry-After") == "" {
		t.Fatalf("want 429 with Retry-After, got %d %v", last.Status, last.Header)
	}
	checkProblem(t, last)
}

func TestPaginationShape(t *testing.T) {
	e := fixtureEnv(t)
	for _, p := range []string{"/api/v1/listings", "/api/v1/founders", "/api/v1/blog", "/api/v1/awards",
		"/api/v1/listings/quickbase/alternatives", "/api/v1/leaderboards/revenue", "/api/v1/launches",
		"/api/v1/categories/developer-tools", "/api/v1/launches/weeks/this"} {
		var m map[string]json.RawMessage
		r := e.Do("GET", p+"?per_page=1", nil)
		if err := json.Unmarshal(r.Body, &m); err != nil {
			t.Fatal(err)
		}
		for _, k := range []string{"items", "page", "per_page", "total"} {
			if _, ok := m[k]; !ok {
				t.Errorf("%s lacks %s", p, k)
			}
		}
		var items []any
		json.Unmarshal(m["items"], &items)
		if len(items) > 1 {
			t.Errorf("%s per_page=1 gave %d items", p, len(items))
		}
	}
}

func TestRateLimitBehindProxyUsesLastHop(t *testing.T) {
	o := routesOpts(0.001, 1)
	o.TrustProxy = true
	e := apitest.New(t, apitest.Options{Fixture: true, Routes: o})
	if r := e.Do("GET", "/api/v1/site", nil, "X-Forwarded-For", "1.1.1.1, 9.9.9.9"); r.Status != 200 {
		t.Fatalf("first: %d", r.Status)
	}
	// A client cannot dodge the limit by inventing earlier hops.
	if r := e.Do("GET", "/api/v1/site", nil, "X-Forwarded-For", "2.2.2.2, 9.9.9.9"); r.Status != 429 {
		t.Fatalf("spoofed first hop: %d", r.Status)
	}
	if r := e.Do("GET", "/api/v1/site", nil, "X-Forwarded-For", "9.9.9.8"); r.Status != 200 {
		t.Fatalf("other client: %d", r.Status)
	}
}

func TestProtocolEdges(t *testing.T) {
	e := fixtureEnv(t)
	owner := apitest.Bearer(e.APIKey("owner@example.com"))
	if r := e.Do("HEAD", "/api/v1/listings/quickbase", nil); r.Status != 200 || len(r.Body) != 0 || r.Header.Get("ETag") == "" {
		t.Errorf("HEAD: %d %q", r.Status, r.Body)
	}
	if r := e.Do("GET", "/api/v1/Listings", nil); r.Status != 404 || r.Header.Get("Content-Type") != "application/problem+json" {
		t.Errorf("case-folded path redirected instead of 404: %d", r.Status)
	}
	bad := []byte(`{"fields":{"tagline":"ab` + "\xff" + `cd"}}`)
	if r := e.Do("PATCH", "/api/v1/me/listings/1", bad, owner...); r.Status != 400 || !strings.Contains(string(r.Body), "UTF-8") {
		t.Errorf("invalid UTF-8 body: %d %s", r.Status, r.Body)
	}
	for _, v := range []string{"a\u0000b", "a\u0007b", "a\u0085b"} {
		body := map[string]any{"fields": map[string]any{"tagline": v}}
		if r := e.Do("PATCH", "/api/v1/me/listings/1", body, owner...); r.Status != 400 || !strings.Contains(string(r.Body), "control characters") {
			t.Errorf("control character %q: %d", v, r.Status)
		}
	}
	// Characters, not bytes, are counted: 200 emoji fit a 200 tagline.
	if r := e.Do("PATCH", "/api/v1/me/listings/1", map[string]any{"fields": map[string]any{"tagline": strings.Repeat("🚀", 200)}}, owner...); r.Status != 200 {
		t.Errorf("200 emoji: %d %s", r.Status, r.Body)
	}
	if r := e.Do("PATCH", "/api/v1/me/listings/1", map[string]any{"fields": map[string]any{"contact_email": "a@b"}}, owner...); r.Status != 400 {
		t.Errorf("a@b accepted: %d", r.Status)
	}
	if r := e.Do("GET", "/api/v1/leaderboards/community-weekly?week=next", nil); r.Status != 400 {
		t.Errorf("weekly board next week: %d", r.Status)
	}
	if r := e.Do("GET", "/api/v1/launches/weeks/0000-01-01", nil); r.Status != 400 {
		t.Errorf("year 0: %d", r.Status)
	}
	if r := e.Do("POST", "/api/v1/me/listings/1/milestones", map[string]any{"date": "0001-01-01", "title": "x"}, owner...); r.Status != 400 {
		t.Errorf("milestone in year 1: %d", r.Status)
	}
}

// publicPaths gives every public GET a valid path on the fixture.
var publicPaths = map[string]string{
	"get_site_info": "/site", "search_listings": "/listings", "get_listing": "/listings/quickbase",
	"list_comments": "/listings/quickbase/comments", "get_comment": "/comments/1",
	"get_alternatives": "/listings/quickbase/alternatives", "compare_listings": "/compare?a=quickbase&b=tablely",
	"list_categories": "/categories", "get_category": "/categories/developer-tools", "get_launch_week": "/launches/weeks/this",
	"list_launches": "/launches", "get_leaderboard": "/leaderboards/community-all-time", "list_founders": "/founders",
	"get_founder": "/founders/ada-lovelace", "list_blog_posts": "/blog", "get_blog_post": "/blog/how-to-launch",
	"list_awards": "/awards", "get_badges": "/listings/quickbase/badges", "list_interview_questions": "/interview-questions",
	"list_products": "/products",
}

func TestEveryPublicGETHasETag(t *testing.T) {
	e := fixtureEnv(t)
	for _, op := range e.App.Table.Ops {
		if op.Scope != "" || op.Method != "GET" {
			continue
		}
		p, ok := publicPaths[op.ID]
		if !ok {
			t.Errorf("%s has no path in publicPaths", op.ID)
			continue
		}
		r := e.Do("GET", "/api/v1"+p, nil)
		etag := r.Header.Get("ETag")
		if r.Status != 200 || etag == "" || !strings.Contains(r.Header.Get("Cache-Control"), "public") {
			t.Errorf("%s: %d etag %q", op.ID, r.Status, etag)
			continue
		}
		if r2 := e.Do("GET", "/api/v1"+p, nil, "If-None-Match", etag); r2.Status != 304 {
			t.Errorf("%s: If-None-Match gave %d", op.ID, r2.Status)
		}
	}
}

// Every paginated operation, public or signed in, takes the same bounds.
func TestEveryPaginatedOperationBounds(t *testing.T) {
	e := fixtureEnv(t)
	key := apitest.Bearer(e.APIKey("owner@example.com"))
	signed := map[string]string{"list_my_drafts": "/drafts", "list_my_listings": "/me/listings", "list_my_claims": "/claims", "list_my_orders": "/orders",
		"list_webhook_deliveries": "/me/webhooks/1/deliveries"}
	if r := e.Do("POST", "/api/v1/me/webhooks", map[string]any{"url": "https://hooks.example.com/x", "events": []string{"order.paid"}}, key...); r.Status != 201 {
		t.Fatalf("webhook: %d %s", r.Status, r.Body)
	}
	for _, op := range e.App.Table.Ops {
		if !op.Paginated {
			continue
		}
		p, ok := publicPaths[op.ID]
		if !ok {
			p, ok = signed[op.ID]
		}
		if !ok {
			t.Errorf("%s: no path", op.ID)
			continue
		}
		sep := "?"
		if strings.Contains(p, "?") {
			sep = "&"
		}
		for q, want := range map[string]int{"page=0": 400, "page=1": 200, "page=1000": 200, "page=1001": 400,
			"per_page=0": 400, "per_page=1": 200, "per_page=100": 200, "per_page=101": 400} {
			r := e.Do("GET", "/api/v1"+p+sep+q, nil, key...)
			if r.Status != want {
				t.Errorf("%s %s: %d, want %d", op.ID, q, r.Status, want)
			}
			if want == 400 && !strings.Contains(string(r.Body), `"field":"`+strings.Split(q, "=")[0]+`"`) {
				t.Errorf("%s %s: problem does not name the field: %s", op.ID, q, r.Body)
			}
		}
	}
}

func TestPublicQueryBoundsMore(t *testing.T) {
	e := fixtureEnv(t)
	runScenarios(t, e, []scenario{
		{name: "board week date", path: "/api/v1/leaderboards/community-weekly?week=2026-11-10", status: 200, contains: []string{`"week":"2026-11-09"`}},
		{name: "board week 11 chars", path: "/api/v1/leaderboards/community-weekly?week=2026-11-100", status: 400, contains: []string{`"field":"week"`}},
		{name: "founders country 3", path: "/api/v1/founders?country=USA", status: 400, contains: []string{`"field":"country"`}},
		{name: "stage malformed", path: "/api/v1/listings?stage=Beta%20Stage", status: 400, contains: []string{`"field":"stage"`}},
		{name: "compare a missing", path: "/api/v1/compare?b=quickbase", status: 400, contains: []string{`"field":"a"`}},
		{name: "compare a malformed", path: "/api/v1/compare?a=Quick_Base&b=quickbase", status: 400, contains: []string{`"field":"a"`}},
		{name: "awards listing malformed", path: "/api/v1/awards?listing=-x", status: 400, contains: []string{`"field":"listing"`}},
		{name: "badge mode bad", path: "/api/v1/listings/quickbase/badges?mode=neon", status: 400, contains: []string{`"field":"mode"`}},
		{name: "badge outline light", path: "/api/v1/listings/quickbase/badges?shape=outline&mode=light&size=s", status: 200},
		{name: "badge banner", path: "/api/v1/listings/quickbase/badges?shape=banner", status: 200},
		{name: "blog q 200", path: "/api/v1/blog?q=" + strings.Repeat("a", 200), status: 200},
	})
}
