package routes_test

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"sync"
	"testing"
	"time"

	"launchdir/apitest"
	"launchdir/ops"
)

// Bookable weeks in the test clock (now = 2026-11-18, week 2026-11-16).
const (
	week1 = "2026-11-23"
	week2 = "2026-11-30"
	week8 = "2027-01-11"
)

func ordersEnv(t *testing.T) *apitest.Env {
	t.Helper()
	e := apitest.New(t, apitest.Options{Fixture: true})
	apitest.LoadSQL(t, e.DB, "orders_fixture.sql")
	return e
}

// it and order build order bodies (shared with the other order tests).
var (
	it    = apitest.OrderItem
	order = apitest.Order
)

// without copies body leaving out key.
func without(body map[string]any, key string) map[string]any {
	out := map[string]any{}
	for k, v := range body {
		if k != key {
			out[k] = v
		}
	}
	return out
}

func with(body map[string]any, kv ...any) map[string]any {
	out := map[string]any{}
	for k, v := range body {
		out[k] = v
	}
	for i := 0; i+1 < len(kv); i += 2 {
		out[kv[i].(string)] = kv[i+1]
	}
	return out
}

func repeat(n int, x map[string]any) map[string]any {
	items := make([]map[string]any, n)
	for i := range items {
		items[i] = x
	}
	return order(items...)
}

func count(t *testing.T, e *apitest.Env, q string, args ...any) int {
	t.Helper()
	var n int
	if err := e.DB.W.QueryRow(q, args...).Scan(&n); err != nil {
		t.Fatal(err)
	}
	return n
}

// quoteOf decodes a quote_order response.
type quoteResp struct {
	Quote struct {
		Currency      string `json:"currency"`
		SubtotalCents int64  `json:"subtotal_cents"`
		DiscountCents int64  `json:"discount_cents"`
		TaxableCents  int64  `json:"taxable_cents"`
		VATCents      int64  `json:"vat_cents"`
		TotalCents    int64  `json:"total_cents"`
		VAT           struct {
			Country   string `json:"country"`
			Treatment string `json:"treatment"`
			Rate      string `json:"rate"`
			Note      string `json:"note"`
			Check     string `json:"vat_number_check"`
		} `json:"vat"`
		Promo *struct {
			Code          string `json:"code"`
			DiscountCents int64  `json:"discount_cents"`
		} `json:"promo"`
		Lines []struct {
			Product       string `json:"product"`
			NetCents      int64  `json:"net_cents"`
			DiscountCents int64  `json:"discount_cents"`
			VATCents      int64  `json:"vat_cents"`
			TotalCents    int64  `json:"total_cents"`
			Quantity      int64  `json:"quantity"`
		} `json:"lines"`
	} `json:"quote"`
	Saved bool `json:"saved"`
}

func decodeQuote(t *testing.T, r *apitest.Response) quoteResp {
	t.Helper()
	if r.Status != 200 {
		t.Fatalf("quote status %d: %s", r.Status, r.Body)
	}
	var q quoteResp
	if err := json.Unmarshal(r.Body, &q); err != nil {
		t.Fatal(err)
	}
	return q
}

func TestListProducts(t *testing.T) {
	e := ordersEnv(t)
	r := e.Do("GET", "/api/v1/products", nil)
	if r.Status != 200 {
		t.Fatalf("status %d: %s", r.Status, r.Body)
	}
	var body struct {
		Products []struct {
			Code         string              `json:"code"`
			Name         string              `json:"name"`
			Description  string              `json:"description"`
			PriceCents   json.Number         `json:"price_cents"`
			Currency     string              `json:"currency"`
			NeedsListing *bool               `json:"needs_listing"`
			Options      map[string][]string `json:"options"`
			Weeks        []struct {
				Week     string `json:"week"`
				Capacity int64  `json:"capacity"`
				Free     int64  `json:"free"`
			} `json:"weeks"`
		} `json:"products"`
		BookableWeeks []string `json:"bookable_weeks"`
	}
	if err := json.Unmarshal(r.Body, &body); err != nil {
		t.Fatal(err)
	}
	byCode := map[string]int{}
	for i, p := range body.Products {
		byCode[p.Code] = i
		if p.Name == "" || p.Description == "" || p.Currency != "USD" || p.NeedsListing == nil {
			t.Errorf("product %s incomplete: %+v", p.Code, p)
		}
		if _, err := p.PriceCents.Int64(); err != nil {
			t.Errorf("product %s price not an integer: %s", p.Code, p.PriceCents)
		}
	}
	for _, c := range []string{"launch", "featured", "done_for_you", "launch_bundle", "extra_categories", "relaunch", "ai_review", "billboard_min", "trophy_cabinet", "trophy_plaque"} {
		if _, ok := byCode[c]; !ok {
			t.Errorf("product %s missing", c)
		}
	}
	if len(body.BookableWeeks) != 8 || body.BookableWeeks[0] != week1 || body.BookableWeeks[7] != week8 {
		t.Errorf("bookable weeks %v", body.BookableWeeks)
	}
	feat := body.Products[byCode["featured"]]
	if got := feat.Options["placement"]; len(got) != 2 || got[0] != "homepage" {
		t.Errorf("featured options %v", feat.Options)
	}
	if len(feat.Weeks) != 8 || feat.Weeks[0].Capacity != 3 || feat.Weeks[0].Free != 3 {
		t.Errorf("featured weeks %+v", feat.Weeks)
	}
	if len(body.Products[byCode["ai_review"]].Weeks) != 0 {
		t.Errorf("ai_review is not week-bound")
	}

	// Prices are admin settings; quote always uses the current value.
	owner := apitest.Bearer(e.APIKey("owner@example.com"))
	before := decodeQuote(t, e.Do("POST", "/api/v1/orders/quote", order(it("ai_review", "listing_id", 1)), owner...))
	if before.Quote.SubtotalCents != 3900 {
		t.Errorf("ai_review price %d", before.Quote.SubtotalCents)
	}
	if err := e.App.Commerce.SetProductPrice(context.Background(), "ai_review", 4500, -1); err != nil {
		t.Fatal(err)
	}
	after := decodeQuote(t, e.Do("POST", "/api/v1/orders/quote", order(it("ai_review", "listing_id", 1)), owner...))
	if after.Quote.SubtotalCents != 4500 {
		t.Errorf("new ai_review price not used: %d", after.Quote.SubtotalCents)
	}
	if r := e.Do("GET", "/api/v1/products", nil); !strings.Contains(string(r.Body), `"price_cents":4500`) {
		t.Errorf("list_products lacks the new price")
	}
}

func TestOrderScopes(t *testing.T) {
	e := ordersEnv(t)
	readOnly := apitest.Bearer(e.APIKey("owner@example.com", ops.ScopeAccountRead))
	body := order(it("ai_review", "listing_id", 1))
	runScenarios(t, e, []scenario{
		{name: "quote no key", method: "POST", path: "/api/v1/orders/quote", body: body, status: 401},
		{name: "checkout no key", method: "POST", path: "/api/v1/orders/checkout", body: body, status: 401},
		{name: "list no key", path: "/api/v1/orders", status: 401},
		{name: "get no key", path: "/api/v1/orders/LD-2026-000001", status: 401},
	})
	runScenarios(t, e, []scenario{
		{name: "quote read only", method: "POST", path: "/api/v1/orders/quote", body: body, status: 403, contains: []string{"orders:write"}},
		{name: "checkout read only", method: "POST", path: "/api/v1/orders/checkout", body: body, status: 403, contains: []string{"orders:write"}},
		{name: "list read only", path: "/api/v1/orders", status: 200, contains: []string{`"items":[]`, `"total":0`}},
		{name: "products public", path: "/api/v1/products", status: 200},
	}, readOnly...)
}

func TestOrderBounds(t *testing.T) {
	e := ordersEnv(t)
	// Listing 3 is paid here (extra categories are for paid listings);
	// listing 8 stays on the free plan.
	if _, err := e.DB.W.Exec(`UPDATE listings SET plan = 'paid' WHERE id = 3`); err != nil {
		t.Fatal(err)
	}
	owner := apitest.Bearer(e.APIKey("owner@example.com"))
	const q = "/api/v1/orders/quote"
	ai := it("ai_review", "listing_id", 1)
	long := func(n int) string { return strings.Repeat("a", n) }
	opts := func(n int) map[string]any {
		m := map[string]any{}
		for i := 0; i < n; i++ {
			m[fmt.Sprintf("k%02d", i)] = "v"
		}
		return m
	}
	runScenarios(t, e, []scenario{
		{name: "items 0", method: "POST", path: q, body: order(), status: 400, contains: []string{`"field":"items"`, "at least 1"}},
		{name: "items missing", method: "POST", path: q, body: map[string]any{}, status: 400, contains: []string{`"field":"items"`, "is required"}},
		{name: "items 1", method: "POST", path: q, body: order(ai), status: 200, contains: []string{`"subtotal_cents":3900`}},
		{name: "items 20", method: "POST", path: q, body: repeat(20, ai), status: 200, contains: []string{`"subtotal_cents":78000`}},
		{name: "items 21", method: "POST", path: q, body: repeat(21, ai), status: 400, contains: []string{"at most 20 items"}},
		{name: "product 60", method: "POST", path: q, body: order(it(long(60), "listing_id", 1)), status: 400, contains: []string{`"field":"items[0].product"`, "unknown product"}},
		{name: "product 61", method: "POST", path: q, body: order(it(long(61), "listing_id", 1)), status: 400, contains: []string{`"field":"items[0].product"`, "at most 60"}},
		{name: "product empty", method: "POST", path: q, body: order(it("", "listing_id", 1)), status: 400, contains: []string{"items[0].product"}},
		{name: "unknown item property", method: "POST", path: q, body: order(it("ai_review", "listing_id", 1, "color", "red")), status: 400, contains: []string{`"field":"items[0].color"`, "unknown property"}},
		{name: "unknown body property", method: "POST", path: q, body: with(order(ai), "coupon", "X"), status: 400, contains: []string{`"field":"coupon"`}},
		{name: "listing required", method: "POST", path: q, body: order(it("ai_review")), status: 400, contains: []string{`"field":"items[0].listing_id"`, "required"}},
		{name: "listing 0", method: "POST", path: q, body: order(it("ai_review", "listing_id", 0)), status: 400, contains: []string{"items[0].listing_id", "at least 1"}},
		{name: "listing of another user", method: "POST", path: q, body: order(ai, it("ai_review", "listing_id", 2)), status: 404, contains: []string{"items[1].listing_id"}},
		{name: "listing unknown", method: "POST", path: q, body: order(it("ai_review", "listing_id", 9999)), status: 404},
		{name: "listing rejected", method: "POST", path: q, body: order(it("ai_review", "listing_id", 9)), status: 400, contains: []string{"items[0].listing_id", "rejected"}},
		// amount_cents
		{name: "amount 0", method: "POST", path: q, body: order(it("billboard_min", "listing_id", 1, "amount_cents", 0)), status: 400, contains: []string{"items[0].amount_cents", "at least 1"}},
		{name: "amount 1 below minimum", method: "POST", path: q, body: order(it("billboard_min", "listing_id", 1, "amount_cents", 1)), status: 400, contains: []string{"items[0].amount_cents", "billboard minimum"}},
		{name: "amount 499 below minimum", method: "POST", path: q, body: order(it("billboard_min", "listing_id", 1, "amount_cents", 499)), status: 400, contains: []string{"billboard minimum"}},
		{name: "amount at minimum", method: "POST", path: q, body: order(it("billboard_min", "listing_id", 1, "amount_cents", 500)), status: 200, contains: []string{`"subtotal_cents":500`}},
		{name: "amount omitted is minimum", method: "POST", path: q, body: order(it("billboard_min", "listing_id", 1)), status: 200, contains: []string{`"subtotal_cents":500`}},
		{name: "amount max", method: "POST", path: q, body: order(it("billboard_min", "listing_id", 1, "amount_cents", 100000000)), status: 200, contains: []string{`"subtotal_cents":100000000`}},
		{name: "amount max+1", method: "POST", path: q, body: order(it("billboard_min", "listing_id", 1, "amount_cents", 100000001)), status: 400, contains: []string{"items[0].amount_cents", "at most 100000000"}},
		{name: "amount not integer", method: "POST", path: q, body: order(it("billboard_min", "listing_id", 1, "amount_cents", 500.5)), status: 400, contains: []string{"items[0].amount_cents"}},
		{name: "amount on other product", method: "POST", path: q, body: order(it("ai_review", "listing_id", 1, "amount_cents", 900)), status: 400, contains: []string{"items[0].amount_cents", "only for billboard_min"}},
		// categories (listing 3: primary databases, no extras)
		{name: "categories 3 extra", method: "POST", path: q, body: order(it("extra_categories", "listing_id", 3, "categories", []string{"developer-tools", "marketing", "seo"})), status: 200, contains: []string{`"subtotal_cents":5700`, `"quantity":3`}},
		{name: "categories by name", method: "POST", path: q, body: order(it("extra_categories", "listing_id", 3, "categories", []string{"Developer Tools", "seo"})), status: 200, contains: []string{`"categories":["developer-tools","seo"]`, `"quantity":2`}},
		{name: "categories 4 extra", method: "POST", path: q, body: order(it("extra_categories", "listing_id", 3, "categories", []string{"developer-tools", "marketing", "seo", "empty-cat"})), status: 400, contains: []string{`"field":"items[0].categories"`, "at most 3 extra"}},
		{name: "categories 3 across lines with existing extra", method: "POST", path: q, body: order(it("extra_categories", "listing_id", 1, "categories", []string{"developer-tools"}), it("extra_categories", "listing_id", 1, "categories", []string{"seo", "empty-cat"})), status: 400, contains: []string{"items[1].categories", "it has 1"}},
		{name: "categories 11 slugs", method: "POST", path: q, body: order(it("extra_categories", "listing_id", 3, "categories", strings.Split(strings.Repeat("seo,", 11)[:43], ","))), status: 400, contains: []string{"at most 10 items"}},
		{name: "category primary", method: "POST", path: q, body: order(it("extra_categories", "listing_id", 3, "categories", []string{"databases"})), status: 400, contains: []string{"items[0].categories[0]", "primary"}},
		{name: "category unknown", method: "POST", path: q, body: order(it("extra_categories", "listing_id", 3, "categories", []string{"nope"})), status: 400, contains: []string{"items[0].categories[0]", "unknown category"}},
		{name: "category already", method: "POST", path: q, body: order(it("extra_categories", "listing_id", 1, "categories", []string{"marketing"})), status: 400, contains: []string{"items[0].categories[0]", "already in"}},
		{name: "categories missing", method: "POST", path: q, body: order(it("extra_categories", "listing_id", 3)), status: 400, contains: []string{"items[0].categories", "is required"}},
		{name: "categories on a free listing", method: "POST", path: q, body: order(it("extra_categories", "listing_id", 8, "categories", []string{"developer-tools"})), status: 400, contains: []string{`"field":"items[0].product"`, "extra categories are for paid listings (this one is on the free plan)"}},
		{name: "categories with the launch that makes it paid", method: "POST", path: q, body: order(it("extra_categories", "listing_id", 8, "categories", []string{"developer-tools"}), it("launch", "listing_id", 8)), status: 200, contains: []string{`"categories":["developer-tools"]`}},
		{name: "categories on other product", method: "POST", path: q, body: order(it("ai_review", "listing_id", 3, "categories", []string{"seo"})), status: 400, contains: []string{"only for extra_categories"}},
		// options
		{name: "options valid", method: "POST", path: q, body: order(it("featured", "listing_id", 1, "week", week1, "options", map[string]any{"placement": "category"})), status: 200, contains: []string{`"placement":"category"`}},
		{name: "options default", method: "POST", path: q, body: order(it("trophy_plaque", "listing_id", 1, "options", map[string]any{"size": "large"})), status: 200, contains: []string{`"finish":"oak"`, `"size":"large"`}},
		{name: "option bad value", method: "POST", path: q, body: order(it("featured", "listing_id", 1, "week", week1, "options", map[string]any{"placement": "sidebar"})), status: 400, contains: []string{`"field":"items[0].options.placement"`, "homepage, category"}},
		{name: "option unknown", method: "POST", path: q, body: order(it("featured", "listing_id", 1, "week", week1, "options", map[string]any{"color": "red"})), status: 400, contains: []string{`"field":"items[0].options.color"`}},
		{name: "options on product without", method: "POST", path: q, body: order(it("ai_review", "listing_id", 1, "options", map[string]any{"x": "y"})), status: 400, contains: []string{`"field":"items[0].options"`, "no options"}},
		{name: "options 20 props", method: "POST", path: q, body: order(it("trophy_plaque", "listing_id", 1, "options", opts(20))), status: 400, contains: []string{"items[0].options.k19", "unknown option"}, absent: []string{"at most 20 properties"}},
		{name: "options 21 props", method: "POST", path: q, body: order(it("trophy_plaque", "listing_id", 1, "options", opts(21))), status: 400, contains: []string{`"field":"items[0].options"`, "at most 20 properties"}},
		{name: "option value not string", method: "POST", path: q, body: order(it("trophy_plaque", "listing_id", 1, "options", map[string]any{"size": 3})), status: 400, contains: []string{"items[0].options.size", "must be a string"}},
		// weeks
		{name: "week not a Monday", method: "POST", path: q, body: order(it("featured", "listing_id", 1, "week", "2026-11-24")), status: 400, contains: []string{`"field":"items[0].week"`, "must be a Monday"}},
		{name: "week not listed (this week)", method: "POST", path: q, body: order(it("featured", "listing_id", 1, "week", "2026-11-16")), status: 400, contains: []string{"items[0].week", "not a bookable week"}},
		{name: "week not listed (far)", method: "POST", path: q, body: order(it("featured", "listing_id", 1, "week", "2027-01-18")), status: 400, contains: []string{"not a bookable week"}},
		{name: "week last listed", method: "POST", path: q, body: order(it("featured", "listing_id", 1, "week", week8)), status: 200},
		{name: "week bad date", method: "POST", path: q, body: order(it("featured", "listing_id", 1, "week", "2026-13-01")), status: 400, contains: []string{"items[0].week", "YYYY-MM-DD"}},
		{name: "week 11 chars", method: "POST", path: q, body: order(it("featured", "listing_id", 1, "week", "2026-11-230")), status: 400, contains: []string{"items[0].week", "at most 10"}},
		{name: "week this", method: "POST", path: q, body: order(it("featured", "listing_id", 1, "week", "this")), status: 400, contains: []string{"items[0].week"}},
		{name: "relaunch without week", method: "POST", path: q, body: order(it("relaunch", "listing_id", 1)), status: 400, contains: []string{`"field":"items[0].week"`, "is required for relaunch"}},
		{name: "relaunch with week", method: "POST", path: q, body: order(it("relaunch", "listing_id", 1, "week", week2)), status: 200},
		{name: "relaunch of a draft", method: "POST", path: q, body: order(it("relaunch", "listing_id", 6, "week", week2)), status: 400, contains: []string{"only a live listing"}},
		{name: "featured without week", method: "POST", path: q, body: order(it("featured", "listing_id", 1)), status: 400, contains: []string{"items[0].week", "required"}},
		{name: "week on unbooked product", method: "POST", path: q, body: order(it("ai_review", "listing_id", 1, "week", week1)), status: 400, contains: []string{"items[0].week", "not booked by week"}},
		{name: "launch now", method: "POST", path: q, body: order(it("launch", "listing_id", 6)), status: 200, contains: []string{`"live_now":true`}},
		{name: "launch in a week", method: "POST", path: q, body: order(it("launch", "listing_id", 6, "week", week2)), status: 200, contains: []string{`"week":"` + week2 + `"`}},
		{name: "launch of a paid listing", method: "POST", path: q, body: order(it("launch", "listing_id", 1)), status: 400, contains: []string{"already has a paid launch"}},
		{name: "launch twice", method: "POST", path: q, body: order(it("launch", "listing_id", 6), it("launch", "listing_id", 6, "week", week1)), status: 400, contains: []string{"items[1].product", "one launch per listing"}},
		{name: "featured twice same week", method: "POST", path: q, body: order(it("featured", "listing_id", 1, "week", week1), it("featured", "listing_id", 1, "week", week1)), status: 400, contains: []string{"items[1].week", "already features"}},
		{name: "errors name every item", method: "POST", path: q, body: order(ai, it("relaunch", "listing_id", 1), it("featured", "listing_id", 1, "week", "2026-11-25")), status: 400, contains: []string{"items[1].week", "items[2].week"}},
		// billing country, VAT number, promo code
		{name: "country 3 letters", method: "POST", path: q, body: with(order(ai), "billing_country", "DEU"), status: 400, contains: []string{`"field":"billing_country"`}},
		{name: "country not ISO", method: "POST", path: q, body: with(order(ai), "billing_country", "XX"), status: 400, contains: []string{`"field":"billing_country"`, "ISO 3166-1"}},
		{name: "country lower case", method: "POST", path: q, body: with(order(ai), "billing_country", "de"), status: 200, contains: []string{`"country":"DE"`}},
		{name: "vat number 32", method: "POST", path: q, body: with(order(ai), "billing_country", "DE", "vat_number", "DE"+strings.Repeat("1", 30)), status: 400, contains: []string{`"field":"vat_number"`, "not a valid DE VAT number"}},
		{name: "vat number 33", method: "POST", path: q, body: with(order(ai), "billing_country", "DE", "vat_number", "DE"+strings.Repeat("1", 31)), status: 400, contains: []string{`"field":"vat_number"`, "at most 32"}},
		{name: "vat number of another country", method: "POST", path: q, body: with(order(ai), "billing_country", "DE", "vat_number", "FR12345678901"), status: 400, contains: []string{`"field":"vat_number"`, "prefix DE"}},
		{name: "vat number without country", method: "POST", path: q, body: with(without(order(ai), "billing_country"), "vat_number", "DE123456789"), status: 400, contains: []string{`"field":"billing_country"`}},
		{name: "promo 41", method: "POST", path: q, body: with(order(ai), "promo_code", long(41)), status: 400, contains: []string{`"field":"promo_code"`, "at most 40"}},
		{name: "promo 40", method: "POST", path: q, body: with(order(ai), "promo_code", long(40)), status: 400, contains: []string{`"field":"promo_code"`, "unknown promo code", `"promo_reason":"unknown"`}},
	}, owner...)
}

func TestQuotePricingAndVAT(t *testing.T) {
	e := ordersEnv(t)
	owner := apitest.Bearer(e.APIKey("owner@example.com"))
	qt := func(body map[string]any) quoteResp {
		t.Helper()
		return decodeQuote(t, e.Do("POST", "/api/v1/orders/quote", body, owner...))
	}
	launch := order(it("launch", "listing_id", 6))

	de := qt(with(launch, "billing_country", "DE"))
	if de.Quote.VAT.Rate != "19" || de.Quote.VAT.Treatment != "eu_consumer" || de.Quote.VATCents != 931 || de.Quote.TotalCents != 5831 {
		t.Errorf("DE B2C: %+v", de.Quote)
	}
	fi := qt(with(launch, "billing_country", "FI"))
	if fi.Quote.VAT.Rate != "25.5" || fi.Quote.VATCents != 1250 { // 4900 × 25.5 % = 1249.5 → 1250 (half up)
		t.Errorf("FI: %+v", fi.Quote)
	}
	rc := qt(with(launch, "billing_country", "DE", "vat_number", "DE 123 456 789"))
	if rc.Quote.VAT.Treatment != "reverse_charge" || rc.Quote.VATCents != 0 || rc.Quote.VAT.Rate != "0" || !strings.Contains(rc.Quote.VAT.Note, "reverse charge") {
		t.Errorf("reverse charge: %+v", rc.Quote)
	}
	gr := qt(with(launch, "billing_country", "GR", "vat_number", "EL123456789"))
	if gr.Quote.VAT.Treatment != "reverse_charge" {
		t.Errorf("Greek EL number: %+v", gr.Quote.VAT)
	}
	us := qt(with(launch, "billing_country", "US"))
	if us.Quote.VAT.Treatment != "outside_eu" || us.Quote.VATCents != 0 || us.Quote.TotalCents != 4900 {
		t.Errorf("US: %+v", us.Quote)
	}
	none := qt(without(launch, "billing_country"))
	if none.Quote.VAT.Treatment != "no_billing_country" || none.Quote.TotalCents != 4900 {
		t.Errorf("no country: %+v", none.Quote)
	}

	// Percent promo: per line, before VAT.
	p := qt(with(order(it("launch", "listing_id", 6), it("featured", "listing_id", 1, "week", week1)), "billing_country", "DE", "promo_code", "WELCOME10"))
	if p.Quote.DiscountCents != 490+990 || p.Quote.TaxableCents != 14800-1480 || p.Quote.Promo == nil || p.Quote.Promo.DiscountCents != 1480 {
		t.Errorf("percent promo: %+v", p.Quote)
	}
	if want := (int64(4410)*1900+5000)/10000 + (int64(8910)*1900+5000)/10000; p.Quote.VATCents != want {
		t.Errorf("VAT after discount %d, want %d", p.Quote.VATCents, want)
	}
	// Fixed promo split by net: 500 over 4900 and 3900 → 278 + 222.
	f := qt(with(order(it("launch", "listing_id", 6), it("ai_review", "listing_id", 6)), "promo_code", "FIVEOFF"))
	if f.Quote.DiscountCents != 500 || f.Quote.Lines[0].DiscountCents != 278 || f.Quote.Lines[1].DiscountCents != 222 {
		t.Errorf("fixed promo: %+v", f.Quote.Lines)
	}
	// Product-limited promo discounts only its products.
	fo := qt(with(order(it("ai_review", "listing_id", 1), it("featured", "listing_id", 1, "week", week1)), "promo_code", "FEATONLY"))
	if fo.Quote.Lines[0].DiscountCents != 0 || fo.Quote.Lines[1].DiscountCents != 1980 {
		t.Errorf("product promo: %+v", fo.Quote.Lines)
	}
	// Lines and totals add up.
	for _, q := range []quoteResp{de, fi, p, f, fo} {
		var net, disc, vat, total int64
		for _, l := range q.Quote.Lines {
			net, disc, vat, total = net+l.NetCents, disc+l.DiscountCents, vat+l.VATCents, total+l.TotalCents
		}
		if net != q.Quote.SubtotalCents || disc != q.Quote.DiscountCents || vat != q.Quote.VATCents || total != q.Quote.TotalCents {
			t.Errorf("lines do not add up: %+v", q.Quote)
		}
	}
}

func TestPromoReasonsAndRateLimit(t *testing.T) {
	e := ordersEnv(t)
	owner := apitest.Bearer(e.APIKey("owner@example.com"))
	body := order(it("ai_review", "listing_id", 1))
	const q = "/api/v1/orders/quote"
	runScenarios(t, e, []scenario{
		{name: "unknown", method: "POST", path: q, body: with(body, "promo_code", "NOPE"), status: 400, contains: []string{`"promo_reason":"unknown"`, "unknown promo code"}},
		{name: "case matters", method: "POST", path: q, body: with(body, "promo_code", "welcome10"), status: 400, contains: []string{`"promo_reason":"unknown"`}},
		{name: "expired", method: "POST", path: q, body: with(body, "promo_code", "OLD"), status: 400, contains: []string{`"promo_reason":"expired"`}},
		{name: "not yet valid", method: "POST", path: q, body: with(body, "promo_code", "FUTURE"), status: 400, contains: []string{`"promo_reason":"not_yet_valid"`}},
		{name: "used up", method: "POST", path: q, body: with(body, "promo_code", "GONE"), status: 400, contains: []string{`"promo_reason":"used_up"`}},
		{name: "not for these products", method: "POST", path: q, body: with(body, "promo_code", "FEATONLY"), status: 400, contains: []string{`"promo_reason":"not_applicable"`, "featured"}},
		{name: "good", method: "POST", path: q, body: with(body, "promo_code", "WELCOME10"), status: 200, contains: []string{`"discount_cents":390`}},
	}, owner...)
	// Checkout with an unusable code builds nothing.
	if r := e.Do("POST", "/api/v1/orders/checkout", with(body, "promo_code", "OLD"), owner...); r.Status != 400 {
		t.Fatalf("checkout with expired promo: %d %s", r.Status, r.Body)
	}
	if n := count(t, e, `SELECT count(*) FROM orders`); n != 0 {
		t.Fatalf("an order was built: %d", n)
	}

	// Wrong guesses: 5 per user per 10 minutes, then 429 with Retry-After.
	guesser := apitest.Bearer(e.APIKey("guesser@example.com"))
	// The owner already guessed wrong twice (NOPE, welcome10): 3 more, then 429.
	for i := 0; i < 3; i++ {
		r := e.Do("POST", q, with(body, "promo_code", fmt.Sprintf("GUESS%d", i)), owner...)
		if r.Status != 400 {
			t.Fatalf("guess %d: %d %s", i, r.Status, r.Body)
		}
	}
	r := e.Do("POST", q, with(body, "promo_code", "WELCOME10"), owner...)
	if r.Status != 429 || r.Header.Get("Retry-After") == "" {
		t.Fatalf("6th try: %d %s (Retry-After %q)", r.Status, r.Body, r.Header.Get("Retry-After"))
	}
	checkProblem(t, r)
	if ra := r.Header.Get("Retry-After"); ra != "600" {
		t.Errorf("Retry-After %s, want 600 (test clock stands still)", ra)
	}
	if r := e.Do("POST", "/api/v1/orders/checkout", with(body, "promo_code", "WELCOME10"), append(owner, "Idempotency-Key", "rl-1")...); r.Status != 429 {
		t.Errorf("checkout while limited: %d", r.Status)
	}
	// Without a promo code the user can still quote; other users are not limited.
	if r := e.Do("POST", q, body, owner...); r.Status != 200 {
		t.Errorf("quote without promo while limited: %d", r.Status)
	}
	if r := e.Do("POST", q, with(order(it("ai_review")), "promo_code", "NOPE2"), guesser...); r.Status != 400 {
		t.Errorf("other user: %d %s", r.Status, r.Body)
	}
	// Once the window has passed, guesses are allowed again.
	e.App.Now = func() time.Time { return apitest.Now.Add(11 * time.Minute) }
	if r := e.Do("POST", q, with(body, "promo_code", "WELCOME10"), owner...); r.Status != 200 {
		t.Errorf("after the window: %d %s", r.Status, r.Body)
	}
}

func TestQuoteSavesNothing(t *testing.T) {
	e := ordersEnv(t)
	owner := apitest.Bearer(e.APIKey("owner@example.com"))
	tables := []string{"orders", "order_lines", "featured_slots", "team_tasks", "billboard_contributions", "listing_categories", "idempotency_keys"}
	before := map[string]int{}
	for _, tb := range tables {
		before[tb] = count(t, e, "SELECT count(*) FROM "+tb)
	}
	body := with(order(it("launch", "listing_id", 6), it("featured", "listing_id", 1, "week", week1),
		it("extra_categories", "listing_id", 6, "categories", []string{"seo"}), it("billboard_min", "listing_id", 3, "amount_cents", 1000)),
		"billing_country", "DE", "promo_code", "WELCOME10")
	r := e.Do("POST", "/api/v1/orders/quote", body, append(owner, "Idempotency-Key", "ignored")...)
	q := decodeQuote(t, r)
	if q.Saved {
		t.Error("saved = true")
	}
	for _, tb := range tables {
		if n := count(t, e, "SELECT count(*) FROM "+tb); n != before[tb] {
			t.Errorf("%s: %d rows, was %d", tb, n, before[tb])
		}
	}
	if n := count(t, e, `SELECT redemptions FROM promo_codes WHERE code = 'WELCOME10'`); n != 0 {
		t.Errorf("redemptions %d", n)
	}
}

func TestCheckoutIdempotentAndOrders(t *testing.T) {
	e := ordersEnv(t)
	owner := apitest.Bearer(e.APIKey("owner@example.com"))
	other := apitest.Bearer(e.APIKey("other@example.com"))
	body := with(order(it("launch", "listing_id", 6), it("featured", "listing_id", 1, "week", week1)), "billing_country", "DE")
	k := append(owner, "Idempotency-Key", "order-1")
	r1 := e.Do("POST", "/api/v1/orders/checkout", body, k...)
	if r1.Status != 201 {
		t.Fatalf("checkout %d: %s", r1.Status, r1.Body)
	}
	o := r1.JSON()
	number, _ := o["number"].(string)
	if !strings.HasPrefix(number, "LD-2026-") || len(number) != len("LD-2026-000001") || o["status"] != "pending" {
		t.Fatalf("order %v", o)
	}
	if cu, _ := o["checkout_url"].(string); !strings.HasPrefix(cu, e.URL+"/checkout/") {
		t.Errorf("checkout_url %q", cu)
	}
	if o["total_cents"].(float64) != (4900+9900)*1.19 {
		t.Errorf("total %v", o["total_cents"])
	}
	if lines, _ := o["lines"].([]any); len(lines) != 2 {
		t.Errorf("lines %v", o["lines"])
	}
	if loc := r1.Header.Get("Location"); loc != "/api/v1/orders/"+number {
		t.Errorf("Location %q", loc)
	} else if r := e.Do("GET", loc, nil, owner...); r.Status != 200 || r.JSON()["number"] != number {
		t.Errorf("GET Location: %d %s", r.Status, r.Body)
	}
	r2 := e.Do("POST", "/api/v1/orders/checkout", body, k...)
	if r2.Status != 201 || r2.Header.Get("Idempotent-Replayed") != "true" || string(r2.Body) != string(r1.Body) ||
		r2.Header.Get("Location") != r1.Header.Get("Location") {
		t.Errorf("replay: %d %q %s", r2.Status, r2.Header.Get("Idempotent-Replayed"), r2.Body)
	}
	r3 := e.Do("POST", "/api/v1/orders/checkout", with(body, "billing_country", "FR"), k...)
	if r3.Status != 422 {
		t.Errorf("same key, other body: %d %s", r3.Status, r3.Body)
	}
	if n := count(t, e, `SELECT count(*) FROM orders`); n != 1 {
		t.Errorf("orders %d", n)
	}
	// A second order without a key; capacity is reserved by pending orders.
	r4 := e.Do("POST", "/api/v1/orders/checkout", order(it("ai_review", "listing_id", 3)), owner...)
	if r4.Status != 201 {
		t.Fatalf("second checkout %d: %s", r4.Status, r4.Body)
	}
	second := r4.JSON()["number"].(string)
	runScenarios(t, e, []scenario{
		{name: "list newest first", path: "/api/v1/orders", status: 200, contains: []string{`"total":2`, `"items":[{"number":"` + second + `"`}},
		{name: "list page 2", path: "/api/v1/orders?per_page=1&page=2", status: 200, contains: []string{`"number":"` + number + `"`, `"per_page":1`}},
		{name: "get own", path: "/api/v1/orders/" + number, status: 200, contains: []string{`"status":"pending"`, `"vat":{"country":"DE","treatment":"eu_consumer","rate_basis_points":1900,"rate":"19"`, "checkout_url"}},
		{name: "get unknown", path: "/api/v1/orders/LD-2026-999999", status: 404},
		{name: "get bad number", path: "/api/v1/orders/12", status: 400, contains: []string{`"field":"number"`}},
	}, owner...)
	runScenarios(t, e, []scenario{
		{name: "other user's order", path: "/api/v1/orders/" + number, status: 404},
		{name: "other user's list", path: "/api/v1/orders", status: 200, contains: []string{`"total":0`}},
	}, other...)
}

func TestCheckoutCapacity(t *testing.T) {
	e := ordersEnv(t)
	owner := apitest.Bearer(e.APIKey("owner@example.com"))
	if err := e.App.Commerce.SetProductPrice(context.Background(), "featured", 9900, 1); err != nil {
		t.Fatal(err)
	}
	if r := e.Do("POST", "/api/v1/orders/checkout", order(it("featured", "listing_id", 1, "week", week1)), owner...); r.Status != 201 {
		t.Fatalf("first: %d %s", r.Status, r.Body)
	}
	r := e.Do("POST", "/api/v1/orders/checkout", order(it("featured", "listing_id", 3, "week", week1)), owner...)
	if r.Status != 400 || !strings.Contains(string(r.Body), "sold out") {
		t.Fatalf("second: %d %s", r.Status, r.Body)
	}
	// The bundle uses featured capacity too.
	if r := e.Do("POST", "/api/v1/orders/quote", order(it("launch_bundle", "listing_id", 7, "week", week1)), owner...); r.Status != 400 {
		t.Errorf("bundle in a sold-out week: %d %s", r.Status, r.Body)
	}
	lp := e.Do("GET", "/api/v1/products", nil)
	if !strings.Contains(string(lp.Body), `{"week":"`+week1+`","capacity":1,"free":0}`) {
		t.Errorf("list_products does not show the week sold out: %s", lp.Body)
	}
	// An expired order frees its capacity.
	e.DB.W.Exec(`UPDATE orders SET expires_at = '2026-11-18T00:00:00Z'`)
	if n, err := e.App.Commerce.ExpireOrders(context.Background()); err != nil || n != 1 {
		t.Fatalf("expire: %d %v", n, err)
	}
	if r := e.Do("POST", "/api/v1/orders/quote", order(it("featured", "listing_id", 3, "week", week1)), owner...); r.Status != 200 {
		t.Errorf("after expiry: %d %s", r.Status, r.Body)
	}
}

func TestCheckoutNeedsBillingCountry(t *testing.T) {
	e := apitest.New(t, apitest.Options{Fixture: true})
	apitest.LoadSQL(t, e.DB, "orders_fixture.sql")
	key := apitest.Bearer(e.APIKey("owner@example.com"))
	body := without(order(map[string]any{"product": "ai_review", "listing_id": 1}), "billing_country")
	if r := e.Do("POST", "/api/v1/orders/quote", body, key...); r.Status != 200 {
		t.Fatalf("a quote may leave the country open: %d %s", r.Status, r.Body)
	}
	if r := e.Do("POST", "/api/v1/orders/checkout", body, key...); r.Status != 400 || !strings.Contains(string(r.Body), `"field":"billing_country"`) {
		t.Fatalf("checkout without country: %d %s", r.Status, r.Body)
	}
}

func TestConcurrentCheckoutOneKeyOneOrder(t *testing.T) {
	e := ordersEnv(t)
	h := append(apitest.Bearer(e.APIKey("owner@example.com")), "Idempotency-Key", "same-cart")
	body := order(it("ai_review", "listing_id", 1))
	var wg sync.WaitGroup
	statuses := make([]int, 10)
	for i := range statuses {
		wg.Add(1)
		go func(i int) {
			defer wg.Done()
			statuses[i] = e.Do("POST", "/api/v1/orders/checkout", body, h...).Status
		}(i)
	}
	wg.Wait()
	for _, s := range statuses {
		if s != 201 && s != 409 {
			t.Fatalf("statuses %v", statuses)
		}
	}
	var n int
	e.DB.R.QueryRow(`SELECT count(*) FROM orders`).Scan(&n)
	if n != 1 {
		t.Fatalf("%d orders from one idempotency key", n)
	}
}

func TestRefundOnlyPaidOrders(t *testing.T) {
	e := ordersEnv(t)
	key := apitest.Bearer(e.APIKey("owner@example.com"))
	r := e.Do("POST", "/api/v1/orders/checkout", order(it("ai_review", "listing_id", 1)), key...)
	number, _ := r.JSON()["number"].(string)
	ctx := context.Background()
	if ok, err := e.App.Commerce.RefundOrder(ctx, number, "test"); err != nil || ok {
		t.Fatalf("refunded a pending order: %v %v", ok, err)
	}
	if _, err := e.App.Commerce.ConfirmPayment(ctx, number, "test", "ref"); err != nil {
		t.Fatal(err)
	}
	if ok, err := e.App.Commerce.RefundOrder(ctx, number, "customer asked"); err != nil || !ok {
		t.Fatalf("refund: %v %v", ok, err)
	}
	if r := e.Do("GET", "/api/v1/orders/"+number, nil, key...); !strings.Contains(string(r.Body), `"status":"refunded"`) {
		t.Fatalf("order after refund: %s", r.Body)
	}
	if ok, _ := e.App.Commerce.RefundOrder(ctx, number, "again"); ok {
		t.Fatal("refunded twice")
	}
}
