package site_test

import (
	"net/url"
	"strings"
	"testing"
)

func TestFounderListingPages(t *testing.T) {
	e := newAreaEnv(t)
	owner, other := e.as(1), e.as(2)
	pg := owner.get("/me/listings")
	for _, want := range []string{"QuickBase", "Tablely", "SecretDraft"} {
		if !strings.Contains(pg.body, want) {
			t.Errorf("my listings lack %s", want)
		}
	}
	if strings.Contains(pg.body, "RankRocket") {
		t.Error("another founder's listing listed")
	}
	for _, path := range []string{"/me/listings/2", "/me/listings/999", "/me/listings/abc"} {
		if pg := owner.get(path); pg.status != 404 {
			t.Errorf("%s: %d", path, pg.status)
		}
	}
	if pg := other.post("/me/listings/1/facts", "/me/keys", url.Values{"tagline": {"hijack"}}); pg.status != 404 {
		t.Errorf("another founder edits: %d", pg.status)
	}
	pg = owner.get("/me/listings/6")
	if pg.status != 200 || !strings.Contains(pg.body, "Choose the free launch") || !strings.Contains(pg.body, `id="status">draft`) ||
		!strings.Contains(pg.body, `id="badge-code"`) || !strings.Contains(pg.body, "/badges/") {
		t.Fatalf("draft listing page: %d", pg.status)
	}
	// Facts: the PATCH bounds (tagline 200) and checks (country), value kept on refusal.
	long := strings.Repeat("t", 201)
	if pg := owner.post("/me/listings/1/facts", "/me/listings/1", url.Values{"tagline": {long}}); pg.status != 400 || !strings.Contains(pg.body, long) {
		t.Errorf("tagline 201: %d", pg.status)
	}
	if pg := owner.post("/me/listings/1/facts", "/me/listings/1", url.Values{"country": {"ZZ"}}); pg.status != 400 {
		t.Errorf("country ZZ: %d", pg.status)
	}
	ok := strings.Repeat("t", 200)
	if pg := owner.post("/me/listings/1/facts", "/me/listings/1", url.Values{"tagline": {ok}}); pg.status != 303 || pg.loc != "/me/listings/1?done=facts" {
		t.Fatalf("tagline 200: %d %s", pg.status, pg.body)
	}
	if got := e.Do("GET", "/api/v1/listings/quickbase", nil).JSON()["tagline"]; got != ok {
		t.Fatalf("API: %v", got)
	}
	// Pricing is nested in the profile but flat in the form: the form shows it.
	if pg := owner.post("/me/listings/1/facts", "/me/listings/1", url.Values{"pricing_model": {"freemium"}}); pg.status != 303 {
		t.Fatalf("pricing_model: %d", pg.status)
	}
	if pg := owner.get("/me/listings/1"); !strings.Contains(pg.body, `value="freemium"`) {
		t.Fatalf("facts form lost the pricing model")
	}
	if n := count(t, e.Env, `SELECT count(*) FROM revisions WHERE listing_id = 1 AND operation = 'update_my_listing'`); n != 2 {
		t.Fatalf("revisions: %d", n)
	}
	// Updates.
	if pg := owner.post("/me/listings/1/updates", "/me/listings/1", url.Values{"title": {""}, "body": {"b"}}); pg.status != 400 {
		t.Errorf("empty title: %d", pg.status)
	}
	if pg := owner.post("/me/listings/1/updates", "/me/listings/1", url.Values{"title": {"v3"}, "body": {"Shipped."}}); pg.status != 303 {
		t.Errorf("update: %d", pg.status)
	}
	// Free launch: what is missing is listed and nothing changes.
	pg = owner.post("/me/listings/6/free", "/me/listings/6", url.Values{})
	if pg.status != 400 || !strings.Contains(pg.body, `aria-label="What is missing"`) || !strings.Contains(pg.body, "badge") {
		t.Fatalf("free: %d %s", pg.status, pg.body)
	}
	// Buy: quote, then checkout sends the person to the hosted page.
	buy := url.Values{"product": {"ai_review"}, "billing_country": {"DE"}, "action": {"quote"}}
	pg = owner.post("/me/listings/1/buy", "/me/listings/1", buy)
	if pg.status != 200 || !strings.Contains(pg.body, `id="quote-total">46.41 USD`) {
		t.Fatalf("quote: %d %s", pg.status, pg.body)
	}
	if pg := owner.post("/me/listings/1/buy", "/me/listings/1", url.Values{"product": {"ai_review"}, "billing_country": {"ZZ"}, "action": {"quote"}}); pg.status != 400 {
		t.Errorf("bad country: %d", pg.status)
	}
	buy.Set("action", "checkout")
	pg = owner.post("/me/listings/1/buy", "/me/listings/1", buy)
	if pg.status != 303 || !strings.HasPrefix(pg.loc, e.URL+"/checkout/") {
		t.Fatalf("checkout: %d %s", pg.status, pg.loc)
	}
	// Orders: listed for the owner, 404 for another founder.
	pg = owner.get("/me/orders")
	number := regexpFind(t, pg.body, `/me/orders/(LD-[0-9-]+)`)
	if pg := owner.get("/me/orders/" + number); pg.status != 200 || !strings.Contains(pg.body, "Continue to the checkout page") {
		t.Fatalf("order page: %d", pg.status)
	}
	if pg := other.get("/me/orders/" + number); pg.status != 404 {
		t.Fatalf("another's order: %d", pg.status)
	}
	if pg := owner.get("/me/orders/nonsense"); pg.status != 404 {
		t.Fatalf("bad number: %d", pg.status)
	}
}

func TestFounderClaimPages(t *testing.T) {
	e := newAreaEnv(t)
	fan := e.as(3)
	if pg := fan.post("/me/claims", "/me/keys", url.Values{"slug": {"nope"}, "method": {"dns"}}); pg.status != 404 {
		t.Errorf("unknown listing: %d", pg.status)
	}
	if pg := fan.post("/me/claims", "/me/keys", url.Values{"slug": {"rankrocket"}, "method": {"carrier-pigeon"}}); pg.status != 400 {
		t.Errorf("bad method: %d", pg.status)
	}
	pg := fan.post("/me/claims", "/me/keys", url.Values{"slug": {"rankrocket"}, "method": {"dns"}})
	if pg.status != 303 {
		t.Fatalf("claim: %d %s", pg.status, pg.body)
	}
	pg = fan.get("/me/claims")
	if !strings.Contains(pg.body, "Add a DNS TXT record named") || !strings.Contains(pg.body, "launchdir-verify=") {
		t.Fatalf("instructions: %s", pg.body)
	}
	id := regexpFind(t, pg.body, `/me/claims/([0-9]+)/verify`)
	if pg := e.as(2).post("/me/claims/"+id+"/verify", "/me/keys", url.Values{}); pg.status != 404 {
		t.Errorf("another's claim: %d", pg.status)
	}
	pg = fan.post("/me/claims/"+id+"/verify", "/me/claims", url.Values{})
	if pg.status == 303 || !strings.Contains(pg.body, "class=\"err\"") {
		t.Fatalf("verify without the record: %d %s", pg.status, pg.body)
	}
}

func TestFounderListingStoryAndMilestones(t *testing.T) {
	e := newAreaEnv(t)
	owner := e.as(1)
	if pg := owner.post("/me/listings/1/story", "/me/listings/1", url.Values{"title": {strings.Repeat("t", 201)}}); pg.status != 400 {
		t.Errorf("story title 201: %d", pg.status)
	}
	if pg := owner.post("/me/listings/1/story", "/me/listings/1", url.Values{"title": {"How we started"}, "story": {"In a garage."}}); pg.status != 303 {
		t.Fatalf("story: %d %s", pg.status, pg.body)
	}
	if pg := owner.get("/me/listings/1"); !strings.Contains(pg.body, "In a garage.") {
		t.Errorf("story not shown")
	}
	if pg := owner.post("/me/listings/1/milestones", "/me/listings/1", url.Values{"date": {"2026-13-01"}, "title": {"x"}}); pg.status != 400 {
		t.Errorf("bad date: %d", pg.status)
	}
	if pg := owner.post("/me/listings/1/milestones", "/me/listings/1", url.Values{"date": {"2026-10-01"}, "title": {"2.0 shipped"}, "url": {"http://insecure.example"}}); pg.status != 400 {
		t.Errorf("http link: %d", pg.status)
	}
	if pg := owner.post("/me/listings/1/milestones", "/me/listings/1", url.Values{"date": {"2026-10-01"}, "title": {"2.0 shipped"}}); pg.status != 303 {
		t.Fatalf("milestone: %d %s", pg.status, pg.body)
	}
	pg := owner.get("/me/listings/1")
	mid := regexpFind(t, pg.body, `/me/listings/1/milestones/([0-9]+)/delete`)
	if pg := e.as(2).post("/me/listings/1/milestones/"+mid+"/delete", "/me/keys", url.Values{}); pg.status != 404 {
		t.Errorf("another founder deletes: %d", pg.status)
	}
	if pg := owner.post("/me/listings/1/milestones/"+mid+"/delete", "/me/listings/1", url.Values{}); pg.status != 303 {
		t.Errorf("delete: %d", pg.status)
	}
	if pg := owner.post("/me/listings/1/milestones/"+mid+"/delete", "/me/listings/1", url.Values{}); pg.status != 404 {
		t.Errorf("delete twice: %d", pg.status)
	}
}
