package site_test

import (
	"net/http/httptest"
	"testing"

	"launchdir/site"
)

// TestPagesOwnTheirCards: a page takes a list operation's value without
// JSON, and that value may be the read cache's own. Decorating the page's
// cards (vote button, CSRF token, thumbnail) must never reach the cache:
// the next page, another person's, would find them there.
func TestPagesOwnTheirCards(t *testing.T) {
	e, s := demoSite(t)
	var cat string
	if err := e.App.DB.R.QueryRow(`SELECT slug FROM categories WHERE live_count > 0 ORDER BY live_count DESC LIMIT 1`).Scan(&cat); err != nil {
		t.Fatal(err)
	}
	r := httptest.NewRequest("GET", "/", nil)
	for _, c := range []struct {
		op     string
		args   map[string]string
		cached bool // the read cache keeps the list as a value
	}{
		{"list_launches", map[string]string{"section": "this-week", "per_page": "20"}, true},
		{"get_launch_week", map[string]string{"week": "this", "per_page": "20"}, true},
		{"get_category", map[string]string{"slug": cat, "per_page": "20"}, false},
		// A search's page is kept as JSON; the call that builds it hands
		// the page its value as well.
		{"search_listings", map[string]string{"sort": "votes", "per_page": "20"}, true},
	} {
		plain, err := site.PageCards(s, r, c.op, c.args, false)
		if err != nil || len(plain) == 0 {
			t.Fatalf("%s: %d cards, %v", c.op, len(plain), err)
		}
		for _, sm := range plain {
			if sm.ID == 0 { // only the handler's value carries ids: JSON drops them
				t.Fatalf("%s: %s came through JSON, not as the handler's value", c.op, sm.Slug)
			}
		}
		hits, _ := e.App.DB.ReadCacheStats()
		decorated, err := site.PageCards(s, r, c.op, c.args, true)
		if err != nil || len(decorated) != len(plain) || decorated[0].Card == nil {
			t.Fatalf("%s: decorated %d cards (first card view %v), %v", c.op, len(decorated), decorated[0].Card, err)
		}
		again, err := site.PageCards(s, r, c.op, c.args, false)
		if err != nil {
			t.Fatal(err)
		}
		if h, _ := e.App.DB.ReadCacheStats(); c.cached && h < hits+2 {
			t.Fatalf("%s: the read cache answered %d of the two calls; the test needs it to", c.op, h-hits)
		}
		for _, sm := range again {
			if sm.Card != nil {
				t.Fatalf("%s: %s carries the card view another page wrote: %+v", c.op, sm.Slug, sm.Card)
			}
		}
	}
}
