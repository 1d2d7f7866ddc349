//go:build findings

package routes_test

import (
	"strings"
	"testing"

	"launchdir/apitest"
)

// Findings of the issue 24 review left for the integrator: these tests
// fail on review-24 (go test -tags findings ./routes -run TestFinding).

// Finding: an order's effects are network-wide (featured_slots, launches,
// billboard have no site) while its price is the site's (site_prices). So
// a founder buys "featured" on the site with the lowest price, for a
// listing that site does not even show, and is featured on main and on
// every site that shows the listing. Expected: a site sells only for
// listings it shows, and what it sells takes effect there (or the order
// records its site and its effects are that site's).
func TestFindingCheaperSiteBuysMainPlacement(t *testing.T) {
	e, key := sitesEnv(t)
	if r := e.Do("PATCH", "/api/v1/sites/devtools", map[string]any{"prices": map[string]any{"featured": 100}}, key...); r.Status != 200 {
		t.Fatalf("set devtools' price: %d %s", r.Status, r.Body)
	}
	order := apitest.Order(apitest.OrderItem("featured", "listing_id", 1, "week", "2026-12-07"))
	r := e.Do("POST", "/api/v1/orders/quote", order, dev(key)...)
	if r.Status == 200 && strings.Contains(string(r.Body), `"subtotal_cents":100`) {
		t.Fatalf("devtools sells a featured week at its price for quickbase, which it does not show (the slot shows on main): %.400s", r.Body)
	}
}
