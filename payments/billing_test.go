package payments_test

import (
	"net/url"
	"strings"
	"testing"

	"launchdir/apitest"
	"launchdir/payments"
)

// Changing the billing country on the page re-prices the order before
// payment; get_order returns what the person confirmed.
func TestCheckoutBillingCountryRepricesBeforePayment(t *testing.T) {
	e := env(t, payments.Config{})
	key := e.APIKey("owner@example.com")
	body := order(it("ai_review", "listing_id", 1))
	body["billing_country"] = "DE"
	number, u := checkout(t, e, key, body)
	b := newBrowser(t)
	csrf := b.open(u)
	total := func() string {
		return scalar(t, e, `SELECT billing_country||'/'||vat_rate||'/'||vat_cents||'/'||total_cents FROM orders WHERE number = ?`, number)
	}
	if got := total(); got != "DE/19/741/4641" {
		t.Fatalf("DE order: %s", got)
	}
	// Paying with another country typed in is refused, never silently ignored.
	st, _, page := b.post(u, url.Values{"action": {"succeed"}, "method": {"card"}, "csrf": {csrf}, "billing_country": {"FR"}})
	if st != 400 || !strings.Contains(page, "Update billing country") {
		t.Fatalf("pay with a changed country: %d", st)
	}
	// Bad country, bad VAT number: 400, the typed values kept, nothing changed.
	for _, f := range []url.Values{{"billing_country": {"ZZ"}}, {"billing_country": {""}}, {"billing_country": {"FR"}, "vat_number": {"DE123456789"}},
		{"billing_country": {"FR"}, "vat_number": {strings.Repeat("1", 33)}}} {
		f.Set("action", "billing")
		f.Set("csrf", csrf)
		if st, _, page := b.post(u, f); st != 400 || !strings.Contains(page, `value="`+f.Get("billing_country")+`"`) {
			t.Errorf("%v: %d", f, st)
		}
	}
	if got := total(); got != "DE/19/741/4641" {
		t.Fatalf("refused changes altered the order: %s", got)
	}
	// DE → FR: 20 %, the new total shown before paying.
	st, loc, _ := b.post(u, url.Values{"action": {"billing"}, "csrf": {csrf}, "billing_country": {"fr"}})
	if st != 303 || !strings.HasSuffix(loc, "?result=repriced") {
		t.Fatalf("reprice: %d %s", st, loc)
	}
	if got := total(); got != "FR/20/780/4680" {
		t.Fatalf("FR order: %s", got)
	}
	_, page = b.get(u + "?result=repriced")
	for _, want := range []string{"Billing country updated", "46.80 USD", `id="billing-country">FR<`} {
		if !strings.Contains(page, want) {
			t.Errorf("page lacks %q", want)
		}
	}
	// A valid EU business VAT number: reverse charge.
	b.post(u, url.Values{"action": {"billing"}, "csrf": {csrf}, "billing_country": {"FR"}, "vat_number": {"FR12345678901"}})
	if got := total(); got != "FR/0/0/3900" {
		t.Fatalf("reverse charge: %s", got)
	}
	// Outside the EU: no VAT.
	b.post(u, url.Values{"action": {"billing"}, "csrf": {csrf}, "billing_country": {"US"}})
	if got := total(); got != "US/0/0/3900" {
		t.Fatalf("US: %s", got)
	}
	b.post(u, url.Values{"action": {"billing"}, "csrf": {csrf}, "billing_country": {"FR"}})
	// Billing details are validated and kept.
	if st, _, _ := b.post(u, url.Values{"action": {"succeed"}, "method": {"card"}, "csrf": {csrf}, "billing_name": {strings.Repeat("n", 501)}}); st != 400 {
		t.Errorf("name 501: %d", st)
	}
	st, _, _ = b.post(u, url.Values{"action": {"succeed"}, "method": {"card"}, "csrf": {csrf}, "billing_country": {"FR"},
		"billing_name": {strings.Repeat("n", 500)}, "billing_email": {"bill@example.com"}, "billing_address": {"1 Rue X, Paris"}})
	if st != 303 {
		t.Fatalf("pay: %d", st)
	}
	o := e.Do("GET", "/api/v1/orders/"+number, nil, apitest.Bearer(key)...).JSON()
	bill, _ := o["billing"].(map[string]any)
	if o["status"] != "paid" || o["total_cents"] != float64(4680) || bill["country"] != "FR" || bill["email"] != "bill@example.com" ||
		bill["address"] != "1 Rue X, Paris" || bill["name"] != strings.Repeat("n", 500) {
		t.Fatalf("get_order: %v", o)
	}
	// After payment: a human date, a way back to the listing; no re-pricing.
	_, page = b.get(u)
	if !strings.Contains(page, "18 Nov 2026, 12:00 UTC") || strings.Contains(strings.ReplaceAll(page, `datetime="2026-11-18T12:00:00Z"`, ""), "2026-11-18T12:00:00Z") {
		t.Errorf("paid page date: %s", page)
	}
	if !strings.Contains(page, `href="`+e.URL+`/listings/quickbase"`) || !strings.Contains(page, `href="`+e.URL+`/"`) {
		t.Errorf("paid page links: %s", page)
	}
	if st, _, _ := b.post(u, url.Values{"action": {"billing"}, "csrf": {csrf}, "billing_country": {"DE"}}); st != 409 {
		t.Errorf("reprice a paid order: %d", st)
	}
}

// A listing not live yet is named with its state instead of a dead link.
func TestCheckoutPaidPageNamesScheduledListing(t *testing.T) {
	e := env(t, payments.Config{})
	key := e.APIKey("owner@example.com")
	_, u := checkout(t, e, key, order(it("launch", "listing_id", 7, "week", week2)))
	b := newBrowser(t)
	csrf := b.open(u)
	if st, _, _ := b.post(u, url.Values{"action": {"succeed"}, "method": {"card"}, "csrf": {csrf}}); st != 303 {
		t.Fatalf("pay: %d", st)
	}
	_, page := b.get(u)
	if !strings.Contains(page, "BundleApp: scheduled, launch week of "+week2) {
		t.Errorf("page: %s", page)
	}
}
