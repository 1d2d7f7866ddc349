package routes_test

import (
	"context"
	"encoding/json"
	"strings"
	"testing"
	"time"

	"launchdir/apitest"
	"launchdir/app"
	"launchdir/app/commerce"
	"launchdir/app/kernel"
	"launchdir/testsite"
)

const devHost = "devtools.test"

// sitesEnv: the fixture directory, its owner on the site team, and a
// second site "devtools" made through create_site.
func sitesEnv(t *testing.T) (*apitest.Env, []string) {
	e := apitest.New(t, apitest.Options{Fixture: true, Setup: func(a *app.App) { a.Cfg.VoteRingSize = -1; a.Cfg.VoteMinAccountAge = -1 }})
	key := apitest.Bearer(e.APIKey("owner@example.com"))
	if _, err := e.DB.W.Exec(`UPDATE users SET is_admin = 1, verified_at = '2026-01-01T00:00:00Z' WHERE email = 'owner@example.com'`); err != nil {
		t.Fatal(err)
	}
	r := e.Do("POST", "/api/v1/sites", map[string]any{"key": "devtools", "origin": "http://" + devHost, "hosts": []string{"dev.test:8080"},
		"name": "DevTools Launch", "categories": []string{"developer-tools"}, "accent_color": "#1a7f5a",
		"free_weekly_capacity": 5, "prices": map[string]any{"launch": 1234}}, key...)
	if r.Status != 201 {
		t.Fatalf("create_site: %d %s", r.Status, r.Body)
	}
	return e, key
}

func dev(key []string) []string { return append([]string{"Host", devHost}, key...) }

func TestSiteCRUDAndBounds(t *testing.T) {
	e, key := sitesEnv(t)
	// Someone not on the site team finds no sites.
	other := apitest.Bearer(e.APIKey("other@example.com"))
	if r := e.Do("GET", "/api/v1/sites", nil, other...); r.Status != 404 {
		t.Fatalf("non-admin list: %d", r.Status)
	}
	r := e.Do("GET", "/api/v1/sites", nil, key...)
	var list []map[string]any
	json.Unmarshal(r.Body, &list)
	if r.Status != 200 || len(list) != 2 || list[0]["key"] != "main" || list[1]["name"] != "DevTools Launch" {
		t.Fatalf("list: %d %s", r.Status, r.Body)
	}
	// The new site answers on its host and its extra host, with its name.
	for _, h := range []string{devHost, "dev.test:8080"} {
		if r := e.Do("GET", "/api/v1/site", nil, "Host", h); !strings.Contains(string(r.Body), `"name":"DevTools Launch"`) || !strings.Contains(string(r.Body), `"site_key":"devtools"`) {
			t.Fatalf("site info on %s: %s", h, r.Body)
		}
	}
	long := func(n int) string { return strings.Repeat("a", n) }
	hosts := func(n int) []string {
		out := []string{}
		for i := range n {
			out = append(out, "h"+strings.Repeat("x", i)+".test")
		}
		return out
	}
	cats := func(n int) []string {
		out := []string{}
		for range n {
			out = append(out, "seo")
		}
		return out
	}
	cases := []struct {
		name   string
		method string
		path   string
		body   map[string]any
		status int
		field  string
	}{
		{"key 2 chars", "POST", "/api/v1/sites", map[string]any{"key": "ab", "origin": "http://ab.test"}, 201, ""},
		{"key 1 char", "POST", "/api/v1/sites", map[string]any{"key": "a", "origin": "http://a.test"}, 400, "key"},
		{"key 40 chars", "POST", "/api/v1/sites", map[string]any{"key": long(40), "origin": "http://k40.test"}, 201, ""},
		{"key 41 chars", "POST", "/api/v1/sites", map[string]any{"key": long(41), "origin": "http://k41.test"}, 400, "key"},
		{"key main", "POST", "/api/v1/sites", map[string]any{"key": "main", "origin": "http://m.test"}, 400, "key"},
		{"key bad chars", "POST", "/api/v1/sites", map[string]any{"key": "Dev_Tools", "origin": "http://d.test"}, 400, "key"},
		{"key taken", "POST", "/api/v1/sites", map[string]any{"key": "devtools", "origin": "http://d2.test"}, 409, "key"},
		{"origin missing", "POST", "/api/v1/sites", map[string]any{"key": "noorigin"}, 400, "origin"},
		{"origin with a path", "POST", "/api/v1/sites", map[string]any{"key": "withpath", "origin": "http://p.test/x"}, 400, "origin"},
		{"origin host taken", "POST", "/api/v1/sites", map[string]any{"key": "copycat", "origin": "http://" + devHost}, 409, "origin"},
		{"host taken", "POST", "/api/v1/sites", map[string]any{"key": "copycat", "origin": "http://c.test", "hosts": []string{"dev.test:8080"}}, 409, "hosts[0]"},
		{"10 hosts", "PATCH", "/api/v1/sites/ab", map[string]any{"hosts": hosts(10)}, 200, ""},
		{"11 hosts", "PATCH", "/api/v1/sites/ab", map[string]any{"hosts": hosts(11)}, 400, "hosts"},
		{"host twice", "PATCH", "/api/v1/sites/ab", map[string]any{"hosts": []string{"x.test", "X.test"}}, 400, "hosts[1]"},
		{"name 80", "PATCH", "/api/v1/sites/ab", map[string]any{"name": long(80)}, 200, ""},
		{"name 81", "PATCH", "/api/v1/sites/ab", map[string]any{"name": long(81)}, 400, "name"},
		{"name empty", "PATCH", "/api/v1/sites/ab", map[string]any{"name": " "}, 400, "name"},
		{"accent colour", "PATCH", "/api/v1/sites/ab", map[string]any{"accent_color": "#12345g"}, 400, "accent_color"},
		{"50 categories", "PATCH", "/api/v1/sites/ab", map[string]any{"categories": cats(50)}, 200, ""},
		{"51 categories", "PATCH", "/api/v1/sites/ab", map[string]any{"categories": cats(51)}, 400, "categories"},
		{"unknown category", "PATCH", "/api/v1/sites/ab", map[string]any{"categories": []string{"nope"}}, 400, "categories[0]"},
		{"capacity 1000", "PATCH", "/api/v1/sites/ab", map[string]any{"free_weekly_capacity": 1000}, 200, ""},
		{"capacity 1001", "PATCH", "/api/v1/sites/ab", map[string]any{"free_weekly_capacity": 1001}, 400, "free_weekly_capacity"},
		{"queue weeks 52", "PATCH", "/api/v1/sites/ab", map[string]any{"free_queue_weeks": 52}, 200, ""},
		{"queue weeks 53", "PATCH", "/api/v1/sites/ab", map[string]any{"free_queue_weeks": 53}, 400, "free_queue_weeks"},
		{"price of an unknown product", "PATCH", "/api/v1/sites/ab", map[string]any{"prices": map[string]any{"nope": 1}}, 400, "prices.nope"},
		{"main's origin", "PATCH", "/api/v1/sites/main", map[string]any{"origin": "http://x.test"}, 400, "origin"},
		{"main's prices", "PATCH", "/api/v1/sites/main", map[string]any{"prices": map[string]any{"launch": 1}}, 400, "prices"},
		{"unknown site", "PATCH", "/api/v1/sites/nope", map[string]any{"name": "x"}, 404, ""},
		{"delete main", "DELETE", "/api/v1/sites/main", nil, 400, "key"},
	}
	for _, c := range cases {
		r := e.Do(c.method, c.path, c.body, key...)
		if r.Status != c.status || (c.field != "" && !strings.Contains(string(r.Body), `"field":"`+c.field+`"`)) {
			t.Errorf("%s: %d %s", c.name, r.Status, r.Body)
		}
	}
	// The key stays; the routing table follows an edit at once.
	if r := e.Do("PATCH", "/api/v1/sites/ab", map[string]any{"origin": "http://ab2.test", "name": "AB"}, key...); r.Status != 200 {
		t.Fatalf("update origin: %d %s", r.Status, r.Body)
	}
	if r := e.Do("GET", "/api/v1/site", nil, "Host", "ab2.test"); !strings.Contains(string(r.Body), `"site_key":"ab"`) {
		t.Fatalf("moved origin: %s", r.Body)
	}
	if r := e.Do("GET", "/api/v1/site", nil, "Host", "ab.test"); r.Status != 421 {
		t.Fatalf("old origin still routed: %d", r.Status)
	}
	// A site that shows listings is deleted only with force.
	if r := e.Do("PUT", "/api/v1/me/listings/1/sites", map[string]any{"sites": []string{"devtools"}}, key...); r.Status != 200 {
		t.Fatalf("set sites: %d %s", r.Status, r.Body)
	}
	if r := e.Do("DELETE", "/api/v1/sites/devtools", nil, key...); r.Status != 409 || !strings.Contains(string(r.Body), `"field":"force"`) {
		t.Fatalf("delete with listings: %d %s", r.Status, r.Body)
	}
	if r := e.Do("DELETE", "/api/v1/sites/devtools?force=true", nil, key...); r.Status != 200 {
		t.Fatalf("forced delete: %d %s", r.Status, r.Body)
	}
	if r := e.Do("GET", "/api/v1/site", nil, "Host", devHost); r.Status != 421 {
		t.Fatalf("deleted site still routed: %d", r.Status)
	}
}

func TestListingsAcrossSites(t *testing.T) {
	e, key := sitesEnv(t)
	get := func(host, path string) *apitest.Response { return e.Do("GET", path, nil, "Host", host) }
	mainHost := strings.TrimPrefix(e.URL, "http://")
	// Nothing is on devtools yet; main is unchanged.
	if r := get(devHost, "/api/v1/listings/quickbase"); r.Status != 404 {
		t.Fatalf("quickbase on devtools before: %d", r.Status)
	}
	if r := get(mainHost, "/api/v1/listings/quickbase"); r.Status != 200 {
		t.Fatalf("quickbase on main: %d", r.Status)
	}
	// Owner's choice: another user's listing is 404, unknown site and the
	// category rule name the field.
	if r := e.Do("PUT", "/api/v1/me/listings/2/sites", map[string]any{"sites": []string{"devtools"}}, key...); r.Status != 404 {
		t.Fatalf("someone else's listing: %d", r.Status)
	}
	if r := e.Do("PUT", "/api/v1/me/listings/1/sites", map[string]any{"sites": []string{"nope"}}, key...); r.Status != 400 || !strings.Contains(string(r.Body), `"field":"sites[0]"`) {
		t.Fatalf("unknown site: %d %s", r.Status, r.Body)
	}
	if r := e.Do("POST", "/api/v1/sites", map[string]any{"key": "growth", "origin": "http://growth.test", "categories": []string{"seo"}}, key...); r.Status != 201 {
		t.Fatal(r.Status, string(r.Body))
	}
	if r := e.Do("PUT", "/api/v1/me/listings/1/sites", map[string]any{"sites": []string{"devtools", "growth"}}, key...); r.Status != 400 ||
		!strings.Contains(string(r.Body), `"field":"sites[1]"`) || !strings.Contains(string(r.Body), "growth") {
		t.Fatalf("category rule: %d %s", r.Status, r.Body)
	}
	r := e.Do("PUT", "/api/v1/me/listings/1/sites", map[string]any{"sites": []string{"devtools"}}, key...)
	if r.Status != 200 || !strings.Contains(string(r.Body), `http://devtools.test/`) {
		t.Fatalf("set sites: %d %s", r.Status, r.Body)
	}
	// The site team adds tablely (developer tools) but not rankrocket (SEO).
	if r := e.Do("POST", "/api/v1/sites/devtools/listings", map[string]any{"add": []int{3, 2}}, key...); r.Status != 400 || !strings.Contains(string(r.Body), `"field":"add[1]"`) {
		t.Fatalf("team add refused: %d %s", r.Status, r.Body)
	}
	if r := e.Do("POST", "/api/v1/sites/devtools/listings", map[string]any{"add": []int{3}}, key...); r.Status != 200 || !strings.Contains(string(r.Body), `"listings":2`) {
		t.Fatalf("team add: %d %s", r.Status, r.Body)
	}
	if r := get(devHost, "/api/v1/listings/quickbase"); r.Status != 200 {
		t.Fatalf("quickbase on devtools: %d %s", r.Status, r.Body)
	}
	for _, p := range []string{"/api/v1/listings/rankrocket", "/api/v1/categories/marketing", "/api/v1/badges/rankrocket.svg"} {
		if r := get(devHost, p); r.Status != 404 {
			t.Errorf("%s on devtools: %d", p, r.Status)
		}
	}
	var list struct {
		Items []struct{ Slug string }
		Total int
	}
	json.Unmarshal(get(devHost, "/api/v1/listings").Body, &list)
	if list.Total != 2 || len(list.Items) != 2 {
		t.Fatalf("devtools listings: %+v", list)
	}
	json.Unmarshal(get(mainHost, "/api/v1/listings").Body, &list)
	if list.Total != 4 {
		t.Fatalf("main listings: %+v", list)
	}
	if r := get(devHost, "/api/v1/categories"); strings.Contains(string(r.Body), "marketing") || !strings.Contains(string(r.Body), `"live_count":2`) {
		t.Fatalf("devtools categories: %s", r.Body)
	}
	if r := get(devHost, "/api/v1/site"); !strings.Contains(string(r.Body), `"live_listings":2`) && !strings.Contains(string(r.Body), `:2`) {
		t.Errorf("devtools site info counts: %s", r.Body)
	}
	// apply_to ['devtools']: devtools shows the copy, main the listing's own.
	if r := e.Do("PATCH", "/api/v1/me/listings/1", map[string]any{"fields": map[string]any{"headline": "Embedded SQL for developers"}, "apply_to": []string{"devtools"}}, key...); r.Status != 200 {
		t.Fatalf("apply_to: %d %s", r.Status, r.Body)
	}
	ctx := context.Background()
	site, _ := e.App.SiteByKey(ctx, "devtools")
	if c, err := e.DB.LiveListingCopy(kernel.WithSite(ctx, site), "quickbase"); err != nil || c.Headline != "Embedded SQL for developers" {
		t.Errorf("devtools does not show its copy: %+v %v", c, err)
	}
	if c, err := e.DB.LiveListingCopy(ctx, "quickbase"); err != nil || c.Headline == "Embedded SQL for developers" {
		t.Errorf("main shows devtools' copy: %+v %v", c, err)
	}
	// Taken off, it is gone from devtools again.
	if r := e.Do("PUT", "/api/v1/me/listings/1/sites", map[string]any{"sites": []string{}}, key...); r.Status != 200 {
		t.Fatal(r.Status)
	}
	if r := get(devHost, "/api/v1/listings/quickbase"); r.Status != 404 {
		t.Fatalf("quickbase after removal: %d", r.Status)
	}
}

func TestVotesAndRanksPerSite(t *testing.T) {
	e, key := sitesEnv(t)
	ctx := context.Background()
	site, _ := e.App.SiteByKey(ctx, "devtools")
	dctx := kernel.WithSite(ctx, site)
	e.Do("POST", "/api/v1/sites/devtools/listings", map[string]any{"add": []int{1, 3}}, key...)
	mainVotes := func(slug string) int {
		var n int
		e.DB.R.QueryRow(`SELECT votes FROM listings WHERE slug = ?`, slug).Scan(&n)
		return n
	}
	before := mainVotes("tablely")
	var mainWeek struct{ Items []struct{ Slug string } }
	json.Unmarshal(e.Do("GET", "/api/v1/launches/weeks/2026-11-16", nil).Body, &mainWeek)
	// fan votes tablely on devtools: devtools' count moves, main's does not.
	fan := int64(3)
	e.DB.W.Exec(`UPDATE users SET verified_at = '2026-01-01T00:00:00Z' WHERE id = 3`)
	st, err := e.App.People.ToggleVote(dctx, fan, "tablely", "10.9.0.1")
	if err != nil || !st.Counted || st.Votes != 1 {
		t.Fatalf("vote on devtools: %+v %v", st, err)
	}
	if got := mainVotes("tablely"); got != before {
		t.Fatalf("main's votes moved: %d -> %d", before, got)
	}
	var week struct {
		Items []struct {
			Slug      string
			Rank      int
			WeekVotes int `json:"week_votes"`
			Votes     int
		}
	}
	json.Unmarshal(e.Do("GET", "/api/v1/launches/weeks/2026-11-16", nil, "Host", devHost).Body, &week)
	if len(week.Items) != 2 || week.Items[0].Slug != "tablely" || week.Items[0].WeekVotes != 1 || week.Items[0].Votes != 1 || week.Items[1].Slug != "quickbase" {
		t.Fatalf("devtools week: %+v", week)
	}
	var mainAfter struct{ Items []struct{ Slug string } }
	json.Unmarshal(e.Do("GET", "/api/v1/launches/weeks/2026-11-16", nil).Body, &mainAfter)
	if len(mainAfter.Items) == 0 || mainAfter.Items[0].Slug != mainWeek.Items[0].Slug {
		t.Fatalf("main's week changed: %+v -> %+v", mainWeek, mainAfter)
	}
	// A listing the site does not show cannot be voted on there.
	if _, err := e.App.People.ToggleVote(dctx, fan, "rankrocket", "10.9.0.1"); err == nil || !strings.Contains(err.Error(), "not found") {
		t.Fatalf("vote on a listing not on devtools: %v", err)
	}
	// A vote on main does not move devtools.
	if _, err := e.App.People.ToggleVote(ctx, fan, "quickbase", "10.9.0.1"); err != nil {
		t.Fatal(err)
	}
	json.Unmarshal(e.Do("GET", "/api/v1/launches/weeks/2026-11-16", nil, "Host", devHost).Body, &week)
	if week.Items[1].Slug != "quickbase" || week.Items[1].WeekVotes != 0 {
		t.Fatalf("main's vote moved devtools: %+v", week)
	}
	// Awards per site: a week later, devtools' #1 is tablely; main's are its own.
	e.App.Now = func() time.Time { return apitest.Now.AddDate(0, 0, 7) }
	if err := e.App.Catalog.AwardWeeks(ctx); err != nil {
		t.Fatal(err)
	}
	var devAward, mainAward string
	var devVotes, mainVotes2, devCount int
	e.DB.R.QueryRow(`SELECT l.slug, a.votes FROM site_awards a JOIN listings l ON l.id = a.listing_id WHERE a.site_key = 'devtools' AND a.week = '2026-11-16' AND a.rank = 1`).Scan(&devAward, &devVotes)
	e.DB.R.QueryRow(`SELECT count(*) FROM site_awards WHERE site_key = 'devtools' AND week = '2026-11-16'`).Scan(&devCount)
	e.DB.R.QueryRow(`SELECT l.slug, a.votes FROM awards a JOIN listings l ON l.id = a.listing_id WHERE a.week = '2026-11-16' AND a.rank = 1`).Scan(&mainAward, &mainVotes2)
	// devtools: tablely with its one devtools vote, alone (quickbase has none there).
	if devAward != "tablely" || devVotes != 1 || devCount != 1 || mainAward == "" || mainVotes2 == devVotes {
		t.Fatalf("awards: devtools %q (%d votes, %d awards), main %q (%d votes)", devAward, devVotes, devCount, mainAward, mainVotes2)
	}
	if r := e.Do("GET", "/api/v1/awards", nil, "Host", devHost); !strings.Contains(string(r.Body), `"slug":"tablely"`) || !strings.Contains(string(r.Body), `"votes":1`) {
		t.Fatalf("devtools awards: %s", r.Body)
	}
	// A banned account's votes stop counting on every site.
	if err := e.App.Admin.BanUser(ctx, 1, fan, "vote farming on every site"); err != nil {
		t.Fatal(err)
	}
	var siteVotes, weekVotes, launchVotes int
	e.DB.R.QueryRow(`SELECT votes FROM listing_sites WHERE site_key = 'devtools' AND listing_id = 3`).Scan(&siteVotes)
	e.DB.R.QueryRow(`SELECT votes FROM site_weekly_votes WHERE site_key = 'devtools' AND listing_id = 3 AND week = '2026-11-16'`).Scan(&weekVotes)
	e.DB.R.QueryRow(`SELECT votes FROM site_launches WHERE site_key = 'devtools' AND listing_id = 3 AND week = '2026-11-16'`).Scan(&launchVotes)
	if siteVotes != 0 || weekVotes != 0 || launchVotes != 0 {
		t.Fatalf("after the ban, devtools counts %d all-time, %d this week, %d on the launch", siteVotes, weekVotes, launchVotes)
	}
}

func TestPricesAndCapacityPerSite(t *testing.T) {
	e, key := sitesEnv(t)
	order := apitest.Order(apitest.OrderItem("launch", "listing_id", 6, "week", "2026-12-07"))
	quote := func(host string) float64 {
		r := e.Do("POST", "/api/v1/orders/quote", order, append([]string{"Host", host}, key...)...)
		m := r.JSON()
		if r.Status != 200 {
			t.Fatalf("quote on %s: %d %s", host, r.Status, r.Body)
		}
		q, _ := m["quote"].(map[string]any)
		v, _ := q["subtotal_cents"].(float64)
		return v
	}
	mainHost := strings.TrimPrefix(e.URL, "http://")
	if got := quote(devHost); got != 1234 {
		t.Errorf("devtools price: %v", got)
	}
	if got := quote(mainHost); got == 1234 {
		t.Errorf("main sells at devtools' price")
	}
	// Week capacity: devtools' free capacity is its own setting.
	ctx := context.Background()
	site, _ := e.App.SiteByKey(ctx, "devtools")
	if n := e.App.FreeWeeklyCapacity(kernel.WithSite(ctx, site)); n != 5 {
		t.Errorf("devtools capacity %d", n)
	}
	if n := e.App.FreeWeeklyCapacity(ctx); n != 2 {
		t.Errorf("main capacity %d", n)
	}
	if err := e.App.Admin.SetWeekCapacity(kernel.WithSite(ctx, site), 1, "2026-12-07", 7); err != nil {
		t.Fatal(err)
	}
	if n := kernel.WeekFreeCapacity(kernel.WithSite(ctx, site), e.DB.R, "2026-12-07", 5); n != 7 {
		t.Errorf("devtools week override %d", n)
	}
	if n := kernel.WeekFreeCapacity(ctx, e.DB.R, "2026-12-07", 2); n != 2 {
		t.Errorf("main week moved with devtools' override: %d", n)
	}
}

// Every public read on devtools shows only devtools' listings: a listing
// that is not on it is 404 wherever it is named, and no list, board,
// section, week, feed of awards or sitemap shows it.
func TestPublicReadsShowOnlyTheSitesListings(t *testing.T) {
	e, key := sitesEnv(t)
	e.Do("POST", "/api/v1/sites/devtools/listings", map[string]any{"add": []int{1, 3}}, key...)
	notOn := []string{"rankrocket", "oldpost", "soonapp"} // live or upcoming on main, not on devtools
	for _, p := range []string{"/api/v1/listings/rankrocket", "/api/v1/listings/rankrocket/alternatives", "/api/v1/listings/rankrocket/badges",
		"/api/v1/listings/rankrocket/comments", "/api/v1/categories/marketing", "/api/v1/categories/seo", "/api/v1/compare?a=rankrocket&b=quickbase"} {
		if r := e.Do("GET", p, nil, "Host", devHost); r.Status != 404 {
			t.Errorf("%s on devtools: %d %.200s", p, r.Status, r.Body)
		}
		if r := e.Do("GET", p, nil); r.Status != 200 && !strings.Contains(p, "categories/") {
			t.Errorf("%s on main: %d %.200s", p, r.Status, r.Body)
		}
	}
	lists := []string{"/api/v1/listings", "/api/v1/listings?q=seo", "/api/v1/listings?sort=newest", "/api/v1/listings?upcoming=true",
		"/api/v1/categories", "/api/v1/launches/weeks/2026-11-16", "/api/v1/launches/weeks/2026-11-09", "/api/v1/founders", "/api/v1/awards",
		"/api/v1/site", "/api/v1/listings/quickbase/alternatives", "/api/v1/compare?a=quickbase&b=tablely"}
	for _, s := range []string{"today", "this-week", "trending", "most-voted", "recent", "most-viewed", "most-followed", "upcoming"} {
		lists = append(lists, "/api/v1/launches?section="+s)
	}
	for _, b := range []string{"community-weekly", "community-all-time", "billboard", "domain-rating", "revenue"} {
		lists = append(lists, "/api/v1/leaderboards/"+b)
	}
	for _, p := range lists {
		r := e.Do("GET", p, nil, "Host", devHost)
		if r.Status != 200 {
			t.Errorf("%s on devtools: %d %.300s", p, r.Status, r.Body)
			continue
		}
		for _, slug := range notOn {
			if strings.Contains(string(r.Body), `"slug":"`+slug+`"`) {
				t.Errorf("%s on devtools shows %s", p, slug)
			}
		}
	}
	ctx := context.Background()
	site, _ := e.App.SiteByKey(ctx, "devtools")
	dctx := kernel.WithSite(ctx, site)
	entries, err := e.App.Catalog.SitemapListings(dctx, 0, 100)
	if n, _ := e.App.Catalog.LiveListingCount(dctx); err != nil || len(entries) != 2 || n != 2 {
		t.Errorf("devtools sitemap: %d entries, count %d, %v", len(entries), n, err)
	}
	if n, _ := e.App.Catalog.LiveListingCount(ctx); n != 4 {
		t.Errorf("main's live count %d", n)
	}
}

// A promo code restricted to a site is refused on the others; the
// settings page's function on a site's host writes that site's settings.
func TestPromoSitesAndSettingsPerSite(t *testing.T) {
	e, key := sitesEnv(t)
	ctx := context.Background()
	if err := e.App.Admin.AdminCreatePromo(ctx, 1, commerce.PromoCode{Code: "DEV10", Kind: "percent", Value: 10, Sites: []string{"devtools"}}); err != nil {
		t.Fatal(err)
	}
	if err := e.App.Admin.AdminCreatePromo(ctx, 1, commerce.PromoCode{Code: "BAD", Kind: "percent", Value: 10, Sites: []string{"nope"}}); err == nil ||
		!strings.Contains(err.Error(), "sites") {
		t.Fatalf("unknown site in a promo: %v", err)
	}
	order := apitest.Order(apitest.OrderItem("launch", "listing_id", 6, "week", "2026-12-07"))
	order["promo_code"] = "DEV10"
	if r := e.Do("POST", "/api/v1/orders/quote", order, dev(key)...); r.Status != 200 || !strings.Contains(string(r.Body), `"discount_cents":123`) {
		t.Errorf("promo on devtools: %d %s", r.Status, r.Body)
	}
	if r := e.Do("POST", "/api/v1/orders/quote", order, key...); r.Status != 400 || !strings.Contains(string(r.Body), "not valid on this site") {
		t.Errorf("devtools' promo on main: %d %s", r.Status, r.Body)
	}
	site, _ := e.App.SiteByKey(ctx, "devtools")
	dctx := kernel.WithSite(ctx, site)
	in := e.App.Admin.Settings(dctx)
	in.SiteName, in.FreeQueueWeeks = "DevTools Weekly", 1
	if err := e.App.Admin.UpdateSettings(dctx, 1, in); err != nil {
		t.Fatal(err)
	}
	if got := e.App.SiteName(dctx); got != "DevTools Weekly" {
		t.Errorf("devtools name %q", got)
	}
	if got, weeks := e.App.SiteName(ctx), e.App.FreeQueueWeeks(ctx); got != "Test Directory" || weeks != 4 {
		t.Errorf("main changed: %q %d", got, weeks)
	}
}

// A draft submitted on devtools' host is put on devtools when its
// categories fit the site's, and only then; on main's host on no other site.
func TestDraftSubmittedOnASitesHost(t *testing.T) {
	e := newDraftEnv(t)
	e.DB.W.Exec(`UPDATE users SET is_admin = 1 WHERE email = 'owner@example.com'`)
	if r := e.Do("POST", "/api/v1/sites", map[string]any{"key": "devtools", "origin": "http://" + devHost, "categories": []string{"developer-tools"}}, e.owner...); r.Status != 201 {
		t.Fatal(r.Status, string(r.Body))
	}
	site := testsite.Serve(t, "acme-analytics", nil)
	submit := func(category string, host ...string) int64 {
		t.Helper()
		id := e.wait(t, e.submit(t, site.URL+"/").ID).ID
		if r := e.Do("PATCH", "/api/v1/drafts/"+id, map[string]any{"fields": map[string]any{"categories": []string{category}}}, e.owner...); r.Status != 200 {
			t.Fatalf("patch: %d %s", r.Status, r.Body)
		}
		r := e.Do("POST", "/api/v1/drafts/"+id+"/submit", nil, append(host, e.owner...)...)
		if r.Status != 200 {
			t.Fatalf("submit: %d %s", r.Status, r.Body)
		}
		return int64(r.JSON()["listing_id"].(float64))
	}
	on := func(id int64) bool {
		var n int
		e.DB.R.QueryRow(`SELECT count(*) FROM listing_sites WHERE site_key = 'devtools' AND listing_id = ?`, id).Scan(&n)
		return n == 1
	}
	if id := submit("Databases", "Host", devHost); !on(id) {
		t.Error("a developer-tools draft submitted on devtools is not on devtools")
	}
	if id := submit("SEO", "Host", devHost); on(id) {
		t.Error("an SEO draft was put on devtools")
	}
	if id := submit("Databases"); on(id) {
		t.Error("a draft submitted on main was put on devtools")
	}
}

// The site team's calendar on devtools is devtools': its capacity, its
// overrides, its own listings' bookings.
func TestLaunchWeeksPerSite(t *testing.T) {
	e, key := sitesEnv(t)
	e.Do("POST", "/api/v1/sites/devtools/listings", map[string]any{"add": []int{1}}, key...)
	ctx := context.Background()
	site, _ := e.App.SiteByKey(ctx, "devtools")
	// As the signed-in areas call it: the whole network's view, the site's key.
	dctx := kernel.WholeNetwork(kernel.WithSite(ctx, site))
	if err := e.App.Admin.SetWeekCapacity(dctx, 1, "2026-11-23", 9); err != nil {
		t.Fatal(err)
	}
	dev, err := e.App.Admin.LaunchWeeks(dctx, 1, 2)
	if err != nil {
		t.Fatal(err)
	}
	main, err := e.App.Admin.LaunchWeeks(ctx, 1, 2)
	if err != nil {
		t.Fatal(err)
	}
	// This week: quickbase (paid) and tablely (free) launch on main; only quickbase is on devtools.
	if dev[0].PaidBooked != 1 || dev[0].FreeBooked != 0 || dev[0].FreeCapacity != 5 || dev[1].FreeCapacity != 9 || !dev[1].Overridden {
		t.Errorf("devtools' weeks: %+v", dev)
	}
	if main[0].FreeBooked != 1 || main[0].FreeCapacity != 2 || main[1].FreeCapacity != 2 || main[1].Overridden {
		t.Errorf("main's weeks: %+v", main)
	}
}
