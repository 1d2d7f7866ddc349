package site_test

import (
	"context"
	"net/http/cookiejar"
	"net/url"
	"regexp"
	"strings"
	"testing"
	"time"

	"launchdir/apitest"
)

// verify marks fixture accounts verified and of an age (comments need both).
func (e *areaEnv) verify(age time.Duration, ids ...int64) {
	e.T.Helper()
	for _, id := range ids {
		if _, err := e.DB.W.Exec(`UPDATE users SET verified_at = ?, created_at = ? WHERE id = ?`,
			apitest.Now.Format(time.RFC3339), apitest.Now.Add(-age).Format(time.RFC3339), id); err != nil {
			e.T.Fatal(err)
		}
	}
}

func TestListingPageConversation(t *testing.T) {
	e := newAreaEnv(t)
	e.verify(72*time.Hour, 1, 3)
	e.verify(time.Hour, 2)
	fan, owner, young, anon := e.as(3), e.as(1), e.as(2), e.as(0)
	// Anonymous visitors read; the form asks them to sign in.
	pg := anon.get("/listings/tablely")
	if pg.status != 200 || !strings.Contains(pg.body, `id="comments"`) || !strings.Contains(pg.body, "to comment") {
		t.Fatalf("anonymous: %d", pg.status)
	}
	// A refused comment keeps what was typed, with the message beside it.
	pg = young.post("/listings/tablely/comments", "/listings/tablely", url.Values{"body": {"Try https://spam.example now"}})
	if pg.status != 400 || !strings.Contains(pg.body, "Try https://spam.example now</textarea>") || !strings.Contains(pg.body, "younger than 24 hours") ||
		!strings.Contains(pg.body, `aria-invalid="true"`) {
		t.Fatalf("refused: %d %s", pg.status, pg.body)
	}
	// Without the token the form is refused.
	if pg := fan.do("POST", "/listings/tablely/comments", "application/x-www-form-urlencoded", strings.NewReader("body=hi")); pg.status != 403 {
		t.Fatalf("no csrf: %d", pg.status)
	}
	// The visitor asks; the maker answers from the listing page.
	pg = fan.post("/listings/tablely/comments", "/listings/tablely", url.Values{"body": {"Can I *export* to Excel?"}})
	if pg.status != 303 || !strings.Contains(pg.loc, "done=commented#comment-") {
		t.Fatalf("post: %d %s", pg.status, pg.loc)
	}
	id := regexp.MustCompile(`#comment-(\d+)`).FindStringSubmatch(pg.loc)[1]
	pg = owner.post("/listings/tablely/comments", "/listings/tablely", url.Values{"body": {"Yes, from the menu."}, "parent": {id}})
	if pg.status != 303 {
		t.Fatalf("reply: %d %s", pg.status, pg.body)
	}
	pg = anon.get("/listings/tablely")
	if !strings.Contains(pg.body, "Can I <em>export</em> to Excel?") || !strings.Contains(pg.body, `<span class="badge maker">Maker</span>`) ||
		!strings.Contains(pg.body, "Comments (2)") {
		t.Fatalf("thread: %s", pg.body)
	}
	// The visitor got the reply email; its one-click unsubscribe works
	// as a cross-site POST from the mail client (RFC 8058).
	var body string
	e.DB.R.QueryRow(`SELECT body FROM outbox WHERE to_addr = 'fan@example.com' AND kind = 'reply'`).Scan(&body)
	m := regexp.MustCompile(`/unsubscribe/([a-z0-9]+)`).FindStringSubmatch(body)
	if m == nil || !strings.Contains(body, "Yes, from the menu.") {
		t.Fatalf("reply email: %q", body)
	}
	if pg := anon.do("POST", "/unsubscribe/"+m[1], "application/x-www-form-urlencoded", strings.NewReader("List-Unsubscribe=One-Click"), "Origin", "https://mail.example"); pg.status != 200 {
		t.Fatalf("one-click: %d %s", pg.status, pg.body)
	}
	pg = fan.get("/settings/notifications")
	if pg.status != 200 || !strings.Contains(pg.body, `name="reply" value="on">`) || !strings.Contains(pg.body, `name="comment" value="on" checked>`) {
		t.Fatalf("settings after unsubscribe: %d %s", pg.status, pg.body)
	}
	// The settings form turns kinds back on.
	pg = fan.post("/settings/notifications", "/settings/notifications", url.Values{"reply": {"on"}, "comment": {"on"}})
	if pg.status != 303 {
		t.Fatalf("save settings: %d", pg.status)
	}
	if pg := fan.get("/settings/notifications"); !strings.Contains(pg.body, `name="reply" value="on" checked>`) || strings.Contains(pg.body, `name="launch" value="on" checked>`) {
		t.Fatalf("saved settings: %s", pg.body)
	}
	if pg := anon.get("/settings/notifications"); pg.status != 303 {
		t.Fatalf("anonymous settings: %d", pg.status)
	}
	// Upvote (the maker's reply), then edit and delete the visitor's own.
	var replyID string
	e.DB.R.QueryRow(`SELECT id FROM comments WHERE parent_id = ?`, id).Scan(&replyID)
	if pg := fan.post("/listings/tablely/comments/"+replyID+"/upvote", "/listings/tablely", url.Values{}); !strings.Contains(pg.loc, "done=upvoted") {
		t.Fatalf("upvote: %d %s", pg.status, pg.loc)
	}
	if pg := fan.post("/listings/tablely/comments/"+id+"/edit", "/listings/tablely", url.Values{"body": {"Can I export to CSV?"}}); pg.status != 303 {
		t.Fatalf("edit: %d %s", pg.status, pg.body)
	}
	if pg := owner.post("/listings/tablely/comments/"+id+"/delete", "/listings/tablely", url.Values{}); pg.status != 404 {
		t.Fatalf("owner deletes another's comment: %d", pg.status)
	}
	fan.post("/listings/tablely/comments/"+id+"/delete", "/listings/tablely", url.Values{})
	if pg := anon.get("/listings/tablely"); !strings.Contains(pg.body, "This comment was deleted.") || !strings.Contains(pg.body, "Yes, from the menu.") {
		t.Fatalf("after delete: %s", pg.body)
	}
}

func TestUpcomingListingPage(t *testing.T) {
	e := newAreaEnv(t)
	e.verify(72*time.Hour, 3)
	fan, anon := e.as(3), e.as(0)
	pg := anon.get("/listings/soonapp")
	if pg.status != 200 || !strings.Contains(pg.body, "Launching soon") || !strings.Contains(pg.body, `id="comments"`) {
		t.Fatalf("upcoming page: %d %s", pg.status, pg.body)
	}
	if pg := anon.get("/listings/secretdraft"); pg.status != 404 {
		t.Fatalf("draft page: %d", pg.status)
	}
	pg = fan.post("/listings/soonapp/notify-me", "/listings/soonapp", url.Values{})
	if pg.status != 303 || !strings.Contains(pg.loc, "watching") {
		t.Fatalf("notify me: %d %s", pg.status, pg.loc)
	}
	if pg := fan.get("/listings/soonapp"); !strings.Contains(pg.body, "Do not email me at launch") || !strings.Contains(pg.body, "1 person is waiting") {
		t.Fatalf("watching: %s", pg.body)
	}
	// A refused comment on the upcoming page keeps the page and the text.
	pg = fan.post("/listings/soonapp/comments", "/listings/soonapp", url.Values{"body": {strings.Repeat("x", 5001)}})
	if pg.status != 400 || !strings.Contains(pg.body, "Launching soon") || !strings.Contains(pg.body, "1 to 5000 characters") {
		t.Fatalf("refused on upcoming: %d", pg.status)
	}
}

func TestClaimDisputePage(t *testing.T) {
	e := newAreaEnv(t)
	if _, err := e.DB.W.Exec(`INSERT INTO claims(id, listing_id, user_id, method, token, email, status, created_at) VALUES
		(7, 1, 2, 'dns', 'tok', '', 'pending', '2026-11-18T10:00:00Z')`); err != nil {
		t.Fatal(err)
	}
	owner, claimant, anon := e.as(1), e.as(2), e.as(0)
	if pg := owner.get("/claim-disputes/7"); pg.status != 200 || !strings.Contains(pg.body, "Oscar Other claimed") {
		t.Fatalf("dispute page: %d %s", pg.status, pg.body)
	}
	if pg := claimant.get("/claim-disputes/7"); pg.status != 404 {
		t.Fatalf("claimant: %d", pg.status)
	}
	if pg := anon.get("/claim-disputes/7"); pg.status != 303 {
		t.Fatalf("anonymous: %d", pg.status)
	}
	pg := owner.post("/claim-disputes/7", "/claim-disputes/7", url.Values{"reason": {strings.Repeat("r", 401)}})
	if pg.status != 400 || !strings.Contains(pg.body, strings.Repeat("r", 401)+"</textarea>") {
		t.Fatalf("too long: %d", pg.status)
	}
	pg = owner.post("/claim-disputes/7", "/claim-disputes/7", url.Values{"reason": {"Not my cofounder"}})
	if pg.status != 200 || !strings.Contains(pg.body, "the site team will look") {
		t.Fatalf("dispute: %d %s", pg.status, pg.body)
	}
}

func TestFounderDownloadsInvoice(t *testing.T) {
	e := newAreaEnv(t)
	key := apitest.Bearer(e.APIKey("owner@example.com"))
	r := e.Do("POST", "/api/v1/orders/checkout", apitest.Order(apitest.OrderItem("ai_review", "listing_id", 1)), key...)
	number := r.JSON()["number"].(string)
	owner, other := e.as(1), e.as(2)
	if pg := owner.get("/me/orders/" + number + "/invoice.pdf"); pg.status != 404 {
		t.Fatalf("unpaid invoice: %d", pg.status)
	}
	e.App.Commerce.ConfirmPayment(context.Background(), number, "test", "t")
	pg := owner.get("/me/orders/" + number + "/invoice.pdf")
	if pg.status != 200 || pg.header.Get("Content-Type") != "application/pdf" || !strings.HasPrefix(pg.body, "%PDF-") ||
		!strings.Contains(pg.header.Get("Content-Disposition"), "INV-000001.pdf") {
		t.Fatalf("invoice download: %d %v", pg.status, pg.header)
	}
	if pg := owner.get("/me/orders/" + number); !strings.Contains(pg.body, "/invoice.pdf") {
		t.Fatalf("order page has no invoice link")
	}
	if pg := other.get("/me/orders/" + number + "/invoice.pdf"); pg.status != 404 {
		t.Fatalf("another's invoice: %d", pg.status)
	}
}

func TestFounderWebhooksPage(t *testing.T) {
	e := newAreaEnv(t)
	owner, other := e.as(1), e.as(2)
	pg := owner.post("/me/webhooks", "/me/webhooks", url.Values{"url": {"http://127.0.0.1/x"}, "events": {"order.paid"}})
	if pg.status != 400 || !strings.Contains(pg.body, `value="http://127.0.0.1/x"`) || !strings.Contains(pg.body, "https") {
		t.Fatalf("refused: %d %s", pg.status, pg.body)
	}
	pg = owner.post("/me/webhooks", "/me/webhooks", url.Values{"url": {"https://hooks.example.com/in"}, "events": {"order.paid", "comment.created"}})
	if pg.status != 200 || !strings.Contains(pg.body, `<code id="secret">whsec_`) {
		t.Fatalf("create: %d %s", pg.status, pg.body)
	}
	if pg := owner.get("/me/webhooks"); strings.Contains(pg.body, "whsec_") || !strings.Contains(pg.body, "https://hooks.example.com/in") {
		t.Fatalf("list shows the secret or lacks the endpoint")
	}
	if pg := owner.get("/me/webhooks?log=1"); pg.status != 200 || !strings.Contains(pg.body, "No deliveries yet.") {
		t.Fatalf("log: %d", pg.status)
	}
	if pg := other.get("/me/webhooks?log=1"); pg.status != 404 {
		t.Fatalf("another's log: %d", pg.status)
	}
	if pg := other.post("/me/webhooks/1/delete", "/me/webhooks", url.Values{}); pg.status != 404 {
		t.Fatalf("another's delete: %d", pg.status)
	}
	if pg := owner.post("/me/webhooks/1/rotate", "/me/webhooks", url.Values{}); !strings.Contains(pg.body, `<code id="secret">whsec_`) {
		t.Fatalf("rotate: %d", pg.status)
	}
	if pg := owner.post("/me/webhooks/1/update", "/me/webhooks", url.Values{"enabled": {"0"}}); pg.status != 303 {
		t.Fatalf("turn off: %d", pg.status)
	}
	if pg := owner.get("/me/webhooks"); !strings.Contains(pg.body, "turned off by its owner") {
		t.Fatalf("status not shown")
	}
	if pg := owner.post("/me/webhooks/1/delete", "/me/webhooks", url.Values{}); pg.status != 303 {
		t.Fatalf("delete: %d", pg.status)
	}
}

func TestDigestPages(t *testing.T) {
	e := newAreaEnv(t)
	anon := e.as(0)
	// A visitor's browser keeps the double-submit cookie of anonymous forms.
	jar, _ := cookiejar.New(nil)
	anon.c.Jar = jar
	if pg := anon.get("/digests"); pg.status != 200 || !strings.Contains(pg.body, "No digest was sent yet.") {
		t.Fatalf("index: %d", pg.status)
	}
	pg := anon.post("/digests", "/digests", url.Values{"email": {"not-an-email"}})
	if pg.status != 400 || !strings.Contains(pg.body, `value="not-an-email"`) {
		t.Fatalf("bad email: %d %s", pg.status, pg.body)
	}
	if pg := anon.post("/digests", "/digests", url.Values{"email": {"visitor@example.com"}}); pg.status != 200 || !strings.Contains(pg.body, "Check your inbox") {
		t.Fatalf("subscribe: %d", pg.status)
	}
	var body string
	e.DB.R.QueryRow(`SELECT body FROM outbox WHERE kind = 'digest_confirm'`).Scan(&body)
	tok := regexp.MustCompile(`/digest/confirm/([a-z0-9]+)`).FindStringSubmatch(body)[1]
	// Opening the link (as a mail scanner would) confirms nothing.
	if pg := anon.get("/digest/confirm/" + tok); pg.status != 200 || !strings.Contains(pg.body, "Yes, send me the digest") {
		t.Fatalf("confirm page: %d", pg.status)
	}
	var status string
	e.DB.R.QueryRow(`SELECT status FROM digest_subscribers`).Scan(&status)
	if status != "pending" {
		t.Fatalf("GET confirmed: %s", status)
	}
	if pg := anon.post("/digest/confirm/"+tok, "/digest/confirm/"+tok, url.Values{}); pg.status != 200 || !strings.Contains(pg.body, "Confirmed") {
		t.Fatalf("confirm: %d %s", pg.status, pg.body)
	}
	e.App.Now = func() time.Time { return time.Date(2026, 11, 23, 8, 0, 0, 0, time.UTC) }
	e.App.Digest.SendDue(context.Background())
	if pg := anon.get("/digests/2026-11-16"); pg.status != 200 || !strings.Contains(pg.body, "QuickBase") {
		t.Fatalf("issue page: %d", pg.status)
	}
	if pg := anon.get("/digests/2026-11-09"); pg.status != 404 {
		t.Fatalf("missing issue: %d", pg.status)
	}
	e.DB.R.QueryRow(`SELECT body FROM outbox WHERE kind = 'digest'`).Scan(&body)
	unsub := regexp.MustCompile(`/digest/unsubscribe/([a-z0-9]+)`).FindStringSubmatch(body)[1]
	if pg := anon.do("POST", "/digest/unsubscribe/"+unsub, "application/x-www-form-urlencoded", strings.NewReader("List-Unsubscribe=One-Click"), "Origin", "https://mail.example"); pg.status != 200 {
		t.Fatalf("one-click: %d", pg.status)
	}
}
