package routes_test

import (
	"context"
	"encoding/base64"
	"strings"
	"testing"

	"launchdir/apitest"
)

// What a site sells is placed on that site, at its price: a site sells
// only for listings it shows; an order records its site, and its featured
// slot is that site's (main's stays free), whichever request confirms the
// payment (here the provider's, with no site at all).
func TestPlacementsBoughtOnASiteArePlacedThere(t *testing.T) {
	e, key := sitesEnv(t)
	if r := e.Do("PATCH", "/api/v1/sites/devtools", map[string]any{"prices": map[string]any{"featured": 100}}, key...); r.Status != 200 {
		t.Fatalf("set devtools' price: %d %s", r.Status, r.Body)
	}
	const week = "2026-12-07"
	order := apitest.Order(apitest.OrderItem("featured", "listing_id", 1, "week", week))
	if r := e.Do("POST", "/api/v1/orders/quote", order, dev(key)...); r.Status != 404 || !strings.Contains(string(r.Body), `"field":"items[0].listing_id"`) {
		t.Fatalf("devtools quoted a placement for a listing it does not show: %d %.300s", r.Status, r.Body)
	}
	if r := e.Do("PUT", "/api/v1/me/listings/1/sites", map[string]any{"sites": []string{"devtools"}}, key...); r.Status != 200 {
		t.Fatalf("choose devtools: %d %s", r.Status, r.Body)
	}
	r := e.Do("POST", "/api/v1/orders/checkout", order, dev(key)...)
	if r.Status != 201 || !strings.Contains(string(r.Body), `"subtotal_cents":100`) {
		t.Fatalf("checkout on devtools: %d %.400s", r.Status, r.Body)
	}
	number, _ := r.JSON()["number"].(string)
	if _, err := e.App.Commerce.ConfirmPayment(context.Background(), number, "test", "ref"); err != nil {
		t.Fatal(err)
	}
	var onDev, onMain int
	e.DB.R.QueryRow(`SELECT (SELECT count(*) FROM site_featured_slots WHERE site_key = 'devtools' AND listing_id = 1 AND week = ?1),
		(SELECT count(*) FROM featured_slots WHERE listing_id = 1 AND week = ?1)`, week).Scan(&onDev, &onMain)
	if onDev != 1 || onMain != 0 {
		t.Fatalf("featured slots after a devtools order: devtools %d, main %d", onDev, onMain)
	}
	// Devtools' slot is taken; main's is still for sale, at main's price.
	if r := e.Do("POST", "/api/v1/orders/quote", order, dev(key)...); r.Status != 400 || !strings.Contains(string(r.Body), "already featured") {
		t.Fatalf("devtools sold its slot twice: %d %.300s", r.Status, r.Body)
	}
	if r := e.Do("POST", "/api/v1/orders/quote", order, key...); r.Status != 200 || strings.Contains(string(r.Body), `"subtotal_cents":100,`) {
		t.Fatalf("main's slot after a devtools order: %d %.300s", r.Status, r.Body)
	}
}

// The site team sets a directory's logo and favicon through the operations
// table: only that site changes; anyone else gets 404 before any decode;
// the image limits are set_listing_logo's; delete goes back to main's.
func TestSiteImagesThroughOperations(t *testing.T) {
	e, key := sitesEnv(t)
	logo := map[string]any{"image_base64": base64.StdEncoding.EncodeToString(apitest.PNG(200, 80))}
	other := apitest.Bearer(e.APIKey("other@example.com"))
	if r := e.Do("PUT", "/api/v1/sites/devtools/images/logo", logo, other...); r.Status != 404 {
		t.Fatalf("a non-admin set a site's logo: %d %s", r.Status, r.Body)
	}
	if r := e.Do("PUT", "/api/v1/sites/nope/images/logo", logo, key...); r.Status != 404 || !strings.Contains(string(r.Body), `"field":"key"`) {
		t.Fatalf("unknown site: %d %s", r.Status, r.Body)
	}
	if r := e.Do("PUT", "/api/v1/sites/devtools/images/banner", logo, key...); r.Status != 400 || !strings.Contains(string(r.Body), `"field":"kind"`) {
		t.Fatalf("unknown kind: %d %s", r.Status, r.Body)
	}
	tiny := map[string]any{"image_base64": base64.StdEncoding.EncodeToString(apitest.PNG(15, 15))}
	if r := e.Do("PUT", "/api/v1/sites/devtools/images/favicon", tiny, key...); r.Status != 400 {
		t.Fatalf("a 15 px favicon: %d %s", r.Status, r.Body)
	}
	r := e.Do("PUT", "/api/v1/sites/devtools/images/logo", logo, key...)
	if r.Status != 200 || !strings.Contains(string(r.Body), `"url":"http://`+devHost+`/media/`) {
		t.Fatalf("set devtools' logo: %d %s", r.Status, r.Body)
	}
	var onDev, onMain int
	e.DB.R.QueryRow(`SELECT (SELECT count(*) FROM site_settings WHERE site_key = 'devtools' AND key = 'site_logo_hash'),
		(SELECT count(*) FROM settings WHERE key = 'site_logo_hash')`).Scan(&onDev, &onMain)
	if onDev != 1 || onMain != 0 {
		t.Fatalf("devtools' logo is stored for devtools %d, for main %d", onDev, onMain)
	}
	if r := e.Do("DELETE", "/api/v1/sites/devtools/images/logo", nil, key...); r.Status != 200 || !strings.Contains(string(r.Body), `"url":""`) {
		t.Fatalf("delete devtools' logo: %d %s", r.Status, r.Body)
	}
	e.DB.R.QueryRow(`SELECT count(*) FROM site_settings WHERE site_key = 'devtools' AND key = 'site_logo_hash'`).Scan(&onDev)
	if onDev != 0 {
		t.Fatal("the logo is still devtools' after the delete")
	}
}
