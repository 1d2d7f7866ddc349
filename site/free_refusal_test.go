package site_test

import (
	"context"
	"launchdir/app/commerce"
	"net/url"
	"strings"
	"testing"
)

// The free launch of a listing that already launched is refused on the
// listing's own page with the reason, not a 404.
func TestFreeLaunchOfLaunchedListing(t *testing.T) {
	e := newAreaEnv(t)
	owner := e.as(1)
	pg := owner.post("/me/listings/1/free", "/me/listings/1", url.Values{})
	if pg.status != 400 || !strings.Contains(pg.body, "already") {
		t.Fatalf("free launch of a launched listing: %d %.400s", pg.status, pg.body)
	}
}

// A promo code's discount is shown in the founder's quote, so the lines add
// up to the total.
func TestFounderQuoteShowsDiscount(t *testing.T) {
	e := newAreaEnv(t)
	if err := e.App.Commerce.CreatePromo(context.Background(), commerce.PromoCode{Code: "TEN", Kind: "percent", Value: 10}); err != nil {
		t.Fatal(err)
	}
	owner := e.as(1)
	pg := owner.post("/me/listings/1/buy", "/me/listings/1", url.Values{"product": {"ai_review"}, "billing_country": {"US"},
		"promo_code": {"TEN"}, "action": {"quote"}})
	if pg.status != 200 || !strings.Contains(pg.body, `<th scope="col">Discount</th>`) || !strings.Contains(pg.body, "−") {
		t.Fatalf("quote with a promo: %d %.600s", pg.status, pg.body)
	}
}
