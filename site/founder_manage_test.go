package site_test

import (
	"fmt"
	"net/url"
	"strings"
	"testing"

	"launchdir/apitest"
)

// The founder area runs the owner operations of issue 23 through forms:
// each destructive one needs its confirm box (without it nothing changes
// and the page says so), and each lands back on a page saying what
// happened.
func TestFounderManagesListing(t *testing.T) {
	e := newAreaEnv(t)
	owner, other := e.as(1), e.as(2)
	e.DB.W.Exec(`INSERT INTO listing_owners(listing_id, user_id, role, created_at) VALUES (1, 2, 'cofounder', '2026-11-01T00:00:00Z')`)
	const lp = "/me/listings/1"
	pg := owner.get(lp)
	for _, want := range []string{`id="attributes"`, `name="a-Open source"`, `id="alternatives"`, `Oscar Other — co-founder`, `Archive the listing`} {
		if !strings.Contains(pg.body, want) {
			t.Fatalf("listing page lacks %q", want)
		}
	}
	// Updates: post, edit the title (the text is sent as shown), delete.
	if pg := owner.post(lp+"/updates", lp, url.Values{"title": {"v2"}, "body": {"Line one\r\nLine two"}}); pg.status != 303 {
		t.Fatalf("post update: %d", pg.status)
	}
	var uid int64
	e.DB.W.QueryRow(`SELECT id FROM listing_updates WHERE listing_id = 1 AND title = 'v2'`).Scan(&uid)
	up := fmt.Sprintf("%s/updates/%d", lp, uid)
	if pg := owner.post(up+"/edit", lp, url.Values{"title": {"v2.0"}, "body": {"Line one\r\nLine two"}}); pg.status != 303 || !strings.Contains(pg.loc, "done=update-edited") {
		t.Fatalf("edit update: %d %s", pg.status, pg.loc)
	}
	var body string
	e.DB.W.QueryRow(`SELECT title || '|' || body FROM listing_updates WHERE id = ?`, uid).Scan(&body)
	if body != "v2.0|Line one\nLine two" {
		t.Errorf("edited update: %q", body)
	}
	if pg := owner.post(up+"/delete", lp, url.Values{}); pg.status != 400 || !strings.Contains(pg.body, "tick the box to confirm") {
		t.Fatalf("delete without confirm: %d", pg.status)
	}
	if pg := owner.post(up+"/delete", lp, url.Values{"confirm": {"yes"}}); pg.status != 303 {
		t.Fatalf("delete update: %d", pg.status)
	}
	// Attributes and alternatives.
	if pg := owner.post(lp+"/attributes", lp, url.Values{"a-Open source": {"Yes"}, "a-API": {""}}); pg.status != 303 {
		t.Fatalf("attributes: %d %s", pg.status, pg.body)
	}
	if pg := owner.post(lp+"/attributes", lp, url.Values{"a-SSO": {"Yes"}}); pg.status != 400 || !strings.Contains(pg.body, "attributes.SSO") {
		t.Fatalf("unknown attribute: %d", pg.status)
	}
	if pg := owner.post(lp+"/alternatives", lp, url.Values{"approved": {"tablely\r\nrankrocket"}}); pg.status != 303 {
		t.Fatalf("alternatives: %d %s", pg.status, pg.body)
	}
	if pg := owner.get(lp); !strings.Contains(pg.body, "tablely") || !strings.Contains(pg.body, ">rankrocket\ntablely</textarea>") && !strings.Contains(pg.body, ">tablely\nrankrocket</textarea>") ||
		!strings.Contains(pg.body, `name="a-Open source" value="Yes"`) {
		t.Fatalf("listing page after the edits: %s", pg.body)
	}
	if pg := owner.post(lp+"/alternatives", lp, url.Values{"approved": {"nope-nope"}}); pg.status != 400 || !strings.Contains(pg.body, "nope-nope") {
		t.Fatalf("bad alternative keeps what was typed: %d", pg.status)
	}
	// People: the co-founder cannot archive; the owner hands over, leaves.
	if pg := other.post(lp+"/archive", lp, url.Values{"confirm": {"yes"}}); pg.status != 403 {
		t.Fatalf("co-founder archives: %d", pg.status)
	}
	if pg := owner.post(lp+"/transfer", lp, url.Values{"user_id": {"2"}, "confirm": {"yes"}}); pg.status != 303 || !strings.Contains(pg.loc, "done=transferred") {
		t.Fatalf("transfer: %d %s", pg.status, pg.body)
	}
	if pg := other.post(lp+"/owners/1/remove", lp, url.Values{"confirm": {"yes"}}); pg.status != 303 {
		t.Fatalf("new owner removes the old: %d %s", pg.status, pg.body)
	}
	if pg := owner.get(lp); pg.status != 404 {
		t.Fatalf("removed owner's page: %d", pg.status)
	}
	// The new owner archives it.
	if pg := other.post(lp+"/archive", lp, url.Values{"confirm": {"yes"}}); pg.status != 303 {
		t.Fatalf("archive: %d %s", pg.status, pg.body)
	}
	if pg := other.get(lp); !strings.Contains(pg.body, `<dd id="status">archived`) {
		t.Fatalf("after archive: %s", pg.body)
	}
}

func TestFounderCancelsUnpaidOrder(t *testing.T) {
	e := newAreaEnv(t)
	owner := e.as(1)
	r := e.Do("POST", "/api/v1/orders/checkout", apitest.Order(apitest.OrderItem("ai_review", "listing_id", 1)), apitest.Bearer(e.APIKey("owner@example.com"))...)
	number, _ := r.JSON()["number"].(string)
	op := "/me/orders/" + number
	if pg := owner.get(op); !strings.Contains(pg.body, "Cancel this order") {
		t.Fatalf("order page: %s", pg.body)
	}
	if pg := e.as(2).post(op+"/cancel", "/me/orders", url.Values{}); pg.status != 404 {
		t.Fatalf("another user's order: %d", pg.status)
	}
	pg := owner.post(op+"/cancel", op, url.Values{})
	if pg.status != 303 {
		t.Fatalf("cancel: %d %s", pg.status, pg.body)
	}
	if pg := owner.get(pg.loc[strings.Index(pg.loc, "/me/"):]); !strings.Contains(pg.body, `id="status">canceled`) || strings.Contains(pg.body, "Cancel this order") ||
		!strings.Contains(pg.body, "The order is canceled") {
		t.Fatalf("after cancel: %s", pg.body)
	}
}

// The ways in: "Submit your product" in the header and on the home page,
// "Claim this listing" on a listing page (the claim form names it).
func TestSubmitAndClaimCallsToAction(t *testing.T) {
	e := newAreaEnv(t)
	home := e.as(0).get("/")
	if !strings.Contains(home.body, `<a class="cta" href="/me/drafts">Submit your product</a>`) || !strings.Contains(home.body, "Launching something?") {
		t.Fatalf("home page lacks the submit call to action")
	}
	if pg := e.as(0).get("/listings/tablely"); !strings.Contains(pg.body, `<a href="/me/claims?slug=tablely">Claim this listing</a>`) {
		t.Fatalf("listing page lacks the claim link")
	}
	if pg := e.as(2).get("/me/claims?slug=tablely"); !strings.Contains(pg.body, `name="slug" required maxlength="100" value="tablely"`) {
		t.Fatalf("claim form does not name the listing: %s", pg.body)
	}
	if pg := e.as(0).get("/me/claims?slug=tablely"); pg.status != 303 || !strings.Contains(pg.loc, "/signin?next=") {
		t.Fatalf("signed out: %d %s", pg.status, pg.loc)
	}
}
