package routes_test

import (
	"strings"
	"testing"

	"launchdir/apitest"
)

// addSite makes a second site the way the database holds one (the sites
// operations come on top of this).
func addSite(t *testing.T, e *apitest.Env, key, origin string, hosts ...string) {
	t.Helper()
	if _, err := e.DB.W.Exec(`INSERT INTO sites(key, origin, created_at, updated_at) VALUES(?, ?, '2026-01-01T00:00:00Z', '2026-01-01T00:00:00Z')`, key, origin); err != nil {
		t.Fatal(err)
	}
	for _, h := range hosts {
		if _, err := e.DB.W.Exec(`INSERT INTO site_hosts(host, site_key) VALUES(?, ?)`, h, key); err != nil {
			t.Fatal(err)
		}
	}
	e.App.ReloadSites()
}

// One process, several sites by host name: each host gets its own site,
// a host no site claims is refused (never main's content), and the API's
// own host may name a site explicitly.
func TestRoutingByHost(t *testing.T) {
	e := apitest.New(t, apitest.Options{Fixture: true})
	// While main is the only site, any host is main (as it always was).
	if r := e.Do("GET", "/api/v1/site", nil, "Host", "anything.example"); r.Status != 200 || !strings.Contains(string(r.Body), `"site_key":"main"`) {
		t.Fatalf("single site, any host: %d %s", r.Status, r.Body)
	}
	addSite(t, e, "devtools", "https://devtools.example", "dev.example:8080")
	port := e.URL[strings.LastIndex(e.URL, ":")+1:]
	cases := []struct {
		name, host, path string
		status           int
		contains         string
	}{
		{"main by its origin host", strings.TrimPrefix(e.URL, "http://"), "/api/v1/site", 200, `"site_key":"main"`},
		{"second site by its origin host", "devtools.example", "/api/v1/site", 200, `"base":"https://devtools.example"`},
		{"host names are case-insensitive", "DevTools.Example", "/api/v1/site", 200, `"site_key":"devtools"`},
		{"an extra host with its port", "dev.example:8080", "/api/v1/site", 200, `"site_key":"devtools"`},
		{"an extra host without the port listed", "dev.example", "/api/v1/site", 421, ""},
		{"unknown host, API: a problem", "other.example", "/api/v1/site", 421, `"code":"unknown_site"`},
		{"unknown host, page: says so, no content", "other.example", "/", 421, "No directory here"},
		{"explicit site on main's host", strings.TrimPrefix(e.URL, "http://"), "/api/v1/site?site=devtools", 200, `"site_key":"devtools"`},
		{"explicit unknown site", strings.TrimPrefix(e.URL, "http://"), "/api/v1/site?site=nope", 404, `"field":"site"`},
		{"explicit other site on a site's own host", "devtools.example", "/api/v1/site?site=main", 400, `"field":"site"`},
		{"explicit same site on its own host", "devtools.example", "/api/v1/site?site=devtools", 200, `"site_key":"devtools"`},
		{"health checks on any host", "other.example", "/healthz", 200, ""},
		{"main's loopback origin: localhost on its port too", "localhost:" + port, "/api/v1/site", 200, `"site_key":"main"`},
		{"main's loopback origin: another port is not main", "localhost:1", "/api/v1/site", 421, ""},
	}
	for _, c := range cases {
		r := e.Do("GET", c.path, nil, "Host", c.host)
		if r.Status != c.status || !strings.Contains(string(r.Body), c.contains) {
			t.Errorf("%s: %d %s", c.name, r.Status, r.Body)
		}
		if c.status == 421 && (strings.Contains(string(r.Body), "devtools") || r.Header.Get("Content-Security-Policy") == "" && c.path == "/") {
			t.Errorf("%s: the refusal names another site or lacks a CSP: %s", c.name, r.Body)
		}
	}
	// The OpenAPI servers entry is the site's own.
	if r := e.Do("GET", "/api/v1/openapi.json", nil, "Host", "devtools.example"); !strings.Contains(string(r.Body), `"url": "https://devtools.example/api/v1"`) {
		t.Errorf("devtools OpenAPI servers entry: %.300s", r.Body)
	}
	if r := e.Do("GET", "/api/v1/openapi.json", nil); !strings.Contains(string(r.Body), `"url": "`+e.URL+`/api/v1"`) {
		t.Errorf("main OpenAPI servers entry is not main's")
	}
}

// A host main answers (its origin's, and on a loopback origin the other
// loopback spellings) cannot be given to another site: it would never be
// routed there.
func TestMainsHostsAreTaken(t *testing.T) {
	e, key := sitesEnv(t)
	port := e.URL[strings.LastIndex(e.URL, ":")+1:]
	for _, h := range []string{"127.0.0.1:" + port, "localhost:" + port} {
		r := e.Do("PATCH", "/api/v1/sites/devtools", map[string]any{"hosts": []string{h}}, key...)
		if r.Status != 409 || !strings.Contains(string(r.Body), `"field":"hosts[0]"`) || !strings.Contains(string(r.Body), "belongs to the site main") {
			t.Errorf("host %s given to devtools: %d %s", h, r.Status, r.Body)
		}
	}
	if r := e.Do("PATCH", "/api/v1/sites/devtools", map[string]any{"hosts": []string{"localhost:1"}}, key...); r.Status != 200 {
		t.Errorf("another port of localhost is free: %d %s", r.Status, r.Body)
	}
}
