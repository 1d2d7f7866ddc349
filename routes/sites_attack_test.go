package routes_test

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"sync"
	"testing"

	"launchdir/apitest"
	"launchdir/app/kernel"
)

// Review of issue 24 (several sites): attacks through the REST door with
// two host names. rankrocket (listing 2, marketing) is never on devtools;
// quickbase (listing 1, developer tools) is put there.

// onDevtools puts quickbase on devtools.
func onDevtools(t *testing.T, e *apitest.Env, key []string) {
	t.Helper()
	if r := e.Do("PUT", "/api/v1/me/listings/1/sites", map[string]any{"sites": []string{"devtools"}}, key...); r.Status != 200 {
		t.Fatalf("set sites: %d %s", r.Status, r.Body)
	}
}

// Comments follow a listing wherever it is shown, and only there: a
// comment on a listing devtools does not show is not found on devtools,
// by id, in the listing's thread, or as a reply target.
func TestAttackCommentsAcrossSites(t *testing.T) {
	e, key := sitesEnv(t)
	onDevtools(t, e, key)
	post := func(host, slug string) *apitest.Response {
		return e.Do("POST", "/api/v1/listings/"+slug+"/comments", map[string]any{"body": "A comment about " + slug + " with enough words."},
			append([]string{"Host", host}, key...)...)
	}
	mainHost := strings.TrimPrefix(e.URL, "http://")
	r := post(mainHost, "rankrocket")
	if r.Status != 201 {
		t.Fatalf("comment on main: %d %s", r.Status, r.Body)
	}
	id := fmt.Sprint(r.JSON()["id"])
	if r := post(mainHost, "quickbase"); r.Status != 201 {
		t.Fatalf("comment on quickbase: %d %s", r.Status, r.Body)
	}
	for _, p := range []string{"/api/v1/comments/" + id, "/api/v1/listings/rankrocket/comments"} {
		if r := e.Do("GET", p, nil, "Host", devHost); r.Status != 404 || strings.Contains(string(r.Body), "A comment about") {
			t.Errorf("devtools GET %s: %d %.300s", p, r.Status, r.Body)
		}
		if r := e.Do("GET", p, nil, "Host", mainHost); r.Status != 200 {
			t.Errorf("main GET %s: %d", p, r.Status)
		}
	}
	// The thread of a listing on both sites is the same on both.
	a, b := e.Do("GET", "/api/v1/listings/quickbase/comments", nil, "Host", devHost), e.Do("GET", "/api/v1/listings/quickbase/comments", nil, "Host", mainHost)
	if a.Status != 200 || b.Status != 200 || !strings.Contains(string(a.Body), "A comment about quickbase") {
		t.Errorf("quickbase thread: devtools %d, main %d %.200s", a.Status, b.Status, a.Body)
	}
	// Writing on devtools about a listing it does not show (finding, fixed:
	// both were 201, and the notifications they send link to devtools,
	// where the listing is 404).
	if r := post(devHost, "rankrocket"); r.Status != 404 {
		t.Errorf("comment on rankrocket through devtools: %d %.300s", r.Status, r.Body)
	}
	if r := e.Do("POST", "/api/v1/comments/"+id+"/replies", map[string]any{"body": "A reply through devtools with words."}, dev(key)...); r.Status != 404 {
		t.Errorf("reply on rankrocket's comment through devtools: %d %.300s", r.Status, r.Body)
	}
}

// Get by id or slug, every list, filter, sort and search of devtools
// never shows rankrocket; a category outside devtools' subset is empty
// there as a filter, not main's listings.
func TestAttackListsAndFiltersAcrossSites(t *testing.T) {
	e, key := sitesEnv(t)
	onDevtools(t, e, key)
	paths := []string{"/api/v1/listings/2", "/api/v1/listings/rankrocket", "/api/v1/listings/RankRocket", "/api/v1/listings/rankrocket/alternatives",
		"/api/v1/listings/rankrocket/badges", "/api/v1/compare?a=quickbase&b=rankrocket", "/api/v1/listings?category=marketing",
		"/api/v1/listings?category=seo", "/api/v1/listings?q=rankrocket", "/api/v1/listings?q=rank", "/api/v1/listings?sort=votes",
		"/api/v1/listings?sort=newest", "/api/v1/listings?sort=trending", "/api/v1/listings?sort=name", "/api/v1/listings?per_page=100&page=1",
		"/api/v1/launches?section=upcoming", "/api/v1/launches?section=this-week", "/api/v1/launches?section=last-week", "/api/v1/launches?section=today",
		"/api/v1/launches?section=trending", "/api/v1/launches?section=most-voted", "/api/v1/launches?section=recent",
		"/api/v1/leaderboards/all-time", "/api/v1/leaderboards/weekly", "/api/v1/leaderboards/monthly", "/api/v1/leaderboards/yearly",
		"/api/v1/awards", "/api/v1/founders", "/api/v1/categories", "/api/v1/categories/seo", "/api/v1/site", "/badges/rankrocket.svg",
		"/api/v1/listings?site=devtools"}
	// Anonymous, and with a credential (signed-in operations read the
	// whole network; public reads with a key must not).
	for _, who := range [][]string{nil, key} {
		for _, p := range paths {
			r := e.Do("GET", p, nil, dev(who)...)
			if r.Status >= 500 || strings.Contains(strings.ToLower(string(r.Body)), "rankrocket") && !strings.Contains(string(r.Body), `"field"`) && r.Status != 404 {
				t.Errorf("devtools %s (key %v): %d %.300s", p, who != nil, r.Status, r.Body)
			}
		}
	}
	for _, p := range []string{"/api/v1/listings?q=rankrocket", "/api/v1/compare?a=quickbase&b=rankrocket"} {
		if r := e.Do("GET", p, nil); !strings.Contains(strings.ToLower(string(r.Body)), "rankrocket") {
			t.Errorf("main %s lacks rankrocket (the checks above could not fail): %d %.200s", p, r.Status, r.Body)
		}
	}
	// One truth for a number shown in two places: devtools' own count of
	// its live listings is its list's total.
	var info map[string]any
	json.Unmarshal(e.Do("GET", "/api/v1/site", nil, "Host", devHost).Body, &info)
	var list struct{ Total int }
	json.Unmarshal(e.Do("GET", "/api/v1/listings", nil, "Host", devHost).Body, &list)
	if !strings.Contains(fmt.Sprint(info), fmt.Sprintf("listings:%d", list.Total)) && !strings.Contains(fmt.Sprint(info), fmt.Sprintf("live:%d", list.Total)) {
		t.Logf("devtools site info %v, list total %d", info, list.Total)
	}
}

// Thirty parallel toggles of one account on devtools end in a state whose
// counters agree (site_votes, listing_sites.votes, site_weekly_votes) and
// leave main's counters as they were. (No REST door casts votes; the
// site's form calls this same function.)
func TestAttackParallelSiteVotes(t *testing.T) {
	e, key := sitesEnv(t)
	onDevtools(t, e, key)
	site, _ := e.App.SiteByKey(context.Background(), "devtools")
	dctx := kernel.WithSite(context.Background(), site)
	var mainVotes int
	e.DB.R.QueryRow(`SELECT votes FROM listings WHERE id = 1`).Scan(&mainVotes)
	var ids []int64
	for i := range 30 {
		email := fmt.Sprintf("fan%d@example.com", i)
		e.APIKey(email)
		var id int64
		e.DB.W.Exec(`UPDATE users SET verified_at = '2026-01-01T00:00:00Z' WHERE email = ?`, email)
		e.DB.R.QueryRow(`SELECT id FROM users WHERE email = ?`, email).Scan(&id)
		ids = append(ids, id)
	}
	var wg sync.WaitGroup
	errs := make([]error, 90)
	for i := range 90 { // every fan toggles three times at once: voted in the end
		wg.Add(1)
		go func() {
			defer wg.Done()
			_, errs[i] = e.App.People.ToggleVote(dctx, ids[i%30], "quickbase", fmt.Sprintf("10.%d.0.1", i%30))
		}()
	}
	wg.Wait()
	for i, err := range errs {
		if err != nil {
			t.Errorf("toggle %d: %v", i, err)
		}
	}
	var votes, siteVotes, weekly, after int
	e.DB.R.QueryRow(`SELECT count(*) FROM site_votes WHERE site_key = 'devtools' AND listing_id = 1 AND counted`).Scan(&votes)
	e.DB.R.QueryRow(`SELECT votes FROM listing_sites WHERE site_key = 'devtools' AND listing_id = 1`).Scan(&siteVotes)
	e.DB.R.QueryRow(`SELECT coalesce(sum(votes), 0) FROM site_weekly_votes WHERE site_key = 'devtools' AND listing_id = 1`).Scan(&weekly)
	e.DB.R.QueryRow(`SELECT votes FROM listings WHERE id = 1`).Scan(&after)
	if votes != 30 || siteVotes != 30 || weekly != 30 || after != mainVotes {
		t.Fatalf("counted %d, listing_sites %d, weekly %d (want 30 each); main %d -> %d", votes, siteVotes, weekly, mainVotes, after)
	}
	// devtools' public count is its own.
	r := e.Do("GET", "/api/v1/listings/quickbase", nil, "Host", devHost)
	if !strings.Contains(string(r.Body), `"votes":30`) {
		t.Errorf("devtools profile: %.300s", r.Body)
	}
	if r := e.Do("GET", "/api/v1/listings/quickbase", nil); strings.Contains(string(r.Body), `"votes":30,`) {
		t.Errorf("main's profile shows devtools' votes: %.300s", r.Body)
	}
}

// Host header tricks never reach another site's content, and a refusal
// names no site and carries the CSP.
func TestAttackHostHeaders(t *testing.T) {
	e, key := sitesEnv(t)
	onDevtools(t, e, key)
	mainHost := strings.TrimPrefix(e.URL, "http://")
	_, port, _ := strings.Cut(mainHost, ":")
	cases := []struct {
		name, host, path string
		headers          []string
		site             string // "" refused (421)
	}{
		{"odd case and a trailing dot", "DevTools.TEST.", "/api/v1/site", nil, "devtools"},
		{"origin host on another port", devHost + ":8443", "/api/v1/site", nil, "devtools"},
		{"trailing dot before the port", devHost + ".:80", "/api/v1/site", nil, ""},
		{"a suffix of the host", "x" + devHost, "/api/v1/site", nil, ""},
		{"the host as a suffix", devHost + ".evil.example", "/api/v1/site", nil, ""},
		{"X-Forwarded-Host without -trust-proxy", mainHost, "/api/v1/site", []string{"X-Forwarded-Host", devHost}, "main"},
		{"X-Forwarded-Host on an unknown host", "evil.example", "/api/v1/site", []string{"X-Forwarded-Host", devHost}, ""},
		{"?site on an unknown host", "evil.example", "/api/v1/site?site=devtools", nil, ""},
		{"?site on main's host, a page (ignored)", mainHost, "/api/v1/site?site=main", nil, "main"},
		{"IPv6 loopback on main's port", "[::1]:" + port, "/api/v1/site", nil, "main"},
		{"IPv6 loopback on another port", "[::1]:1", "/api/v1/site", nil, ""},
	}
	for _, c := range cases {
		r := e.Do("GET", c.path, nil, append([]string{"Host", c.host}, c.headers...)...)
		switch {
		case c.site == "" && r.Status != 421:
			t.Errorf("%s: %d %.200s, want 421", c.name, r.Status, r.Body)
		case c.site != "" && (r.Status != 200 || !strings.Contains(string(r.Body), `"site_key":"`+c.site+`"`)):
			t.Errorf("%s: %d %.200s, want %s", c.name, r.Status, r.Body, c.site)
		}
	}
	// Every door on an unknown host is refused, names no site, has a CSP.
	for _, p := range []string{"/", "/listings/quickbase", "/sitemap.xml", "/robots.txt", "/llms.txt", "/feeds/launches.atom", "/theme.css",
		"/badges/quickbase.svg", "/api/v1/listings", "/mcp", "/.well-known/oauth-authorization-server", "/oauth/authorize", "/signin/handoff", "/og/home/home.png"} {
		r := e.Do("GET", p, nil, "Host", "evil.example", "Accept", "text/html")
		// (A problem's type URI is under main's -base-url: an identifier,
		// documented in the README's Limits; the rest names no site.)
		body := strings.Replace(string(r.Body), `"type":"`+e.URL+`/problems/`, "", 1)
		if r.Status != 421 || strings.Contains(body, "DevTools") || strings.Contains(body, "quickbase") ||
			strings.Contains(body, devHost) || strings.Contains(body, mainHost) {
			t.Errorf("unknown host %s: %d %.200s", p, r.Status, r.Body)
		}
		if !strings.Contains(r.Header.Get("Content-Security-Policy"), "frame-ancestors") && strings.Contains(r.Header.Get("Content-Type"), "html") {
			t.Errorf("unknown host %s: no CSP with frame-ancestors", p)
		}
	}
}

// The sites operations are the site team's: anyone else gets 404 on each,
// reading or writing, on every host.
func TestAttackSiteOperationsNonAdmin(t *testing.T) {
	e, _ := sitesEnv(t)
	other := apitest.Bearer(e.APIKey("other@example.com"))
	mainHost := strings.TrimPrefix(e.URL, "http://")
	for _, host := range []string{mainHost, devHost} {
		for _, c := range []struct {
			method, path string
			body         any
		}{
			{"GET", "/api/v1/sites", nil}, {"GET", "/api/v1/sites/devtools", nil}, {"GET", "/api/v1/sites/main", nil},
			{"POST", "/api/v1/sites", map[string]any{"key": "evil", "origin": "http://evil.test"}},
			{"PATCH", "/api/v1/sites/devtools", map[string]any{"name": "Owned"}},
			{"DELETE", "/api/v1/sites/devtools?force=true", nil},
			{"POST", "/api/v1/sites/devtools/listings", map[string]any{"add": []int{2}}},
		} {
			if r := e.Do(c.method, c.path, c.body, append([]string{"Host", host}, other...)...); r.Status != 404 {
				t.Errorf("%s %s %s by a non-admin: %d %.200s", host, c.method, c.path, r.Status, r.Body)
			}
		}
	}
	if r := e.Do("GET", "/api/v1/site", nil, "Host", devHost); !strings.Contains(string(r.Body), "DevTools Launch") {
		t.Fatalf("devtools changed: %s", r.Body)
	}
}

// A site cannot claim main's address or a malformed one (finding, fixed: a
// port past 65535 was accepted, making a site no browser can reach): the origin and
// the host names are checked against main's -base-url and against each
// other, and odd schemes or hosts are refused naming the field.
func TestAttackSiteAddressBounds(t *testing.T) {
	e, key := sitesEnv(t)
	mainHost := strings.TrimPrefix(e.URL, "http://")
	cases := []struct {
		name  string
		body  map[string]any
		field string
	}{
		{"main's origin", map[string]any{"key": "thief", "origin": e.URL}, "origin"},
		{"main's host as an extra host", map[string]any{"key": "thief", "origin": "http://thief.test", "hosts": []string{mainHost}}, "hosts[0]"},
		{"a javascript: origin", map[string]any{"key": "thief", "origin": "javascript:alert(1)"}, "origin"},
		{"an ftp origin", map[string]any{"key": "thief", "origin": "ftp://thief.test"}, "origin"},
		{"an origin with user info", map[string]any{"key": "thief", "origin": "http://user@thief.test"}, "origin"},
		{"an origin with a query", map[string]any{"key": "thief", "origin": "http://thief.test?x=1"}, "origin"},
		{"an origin with a bad port", map[string]any{"key": "thief", "origin": "http://thief.test:99999"}, "origin"},
		{"a host with a space", map[string]any{"key": "thief", "origin": "http://thief.test", "hosts": []string{"a b.test"}}, "hosts[0]"},
		{"a host with a path", map[string]any{"key": "thief", "origin": "http://thief.test", "hosts": []string{"a.test/x"}}, "hosts[0]"},
		{"a host with a scheme", map[string]any{"key": "thief", "origin": "http://thief.test", "hosts": []string{"http://a.test"}}, "hosts[0]"},
		{"an empty host", map[string]any{"key": "thief", "origin": "http://thief.test", "hosts": []string{""}}, "hosts[0]"},
		{"a markup name", map[string]any{"key": "thief", "origin": "http://thief.test", "accent_color": "red;}body{x:y"}, "accent_color"},
	}
	for i, c := range cases {
		c.body["key"] = fmt.Sprintf("thief%d", i)
		r := e.Do("POST", "/api/v1/sites", c.body, key...)
		if r.Status < 400 || r.Status >= 500 || !strings.Contains(string(r.Body), `"field":"`+c.field+`"`) {
			t.Errorf("%s: %d %.300s", c.name, r.Status, r.Body)
		}
	}
	// Main still answers on its host.
	if r := e.Do("GET", "/api/v1/site", nil); !strings.Contains(string(r.Body), `"site_key":"main"`) {
		t.Fatalf("main lost its host: %s", r.Body)
	}
}
