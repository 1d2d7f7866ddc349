package routes_test

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"testing"
	"time"

	"launchdir/apitest"
	"launchdir/app/commerce"
	"launchdir/ops"
	"launchdir/testsite"
)

// diesBeforeFinish is the idempotency store of a process killed right
// after a request's effect committed: nothing it would store after the
// handler returned reaches the database (Finish never happens).
type diesBeforeFinish struct{ ops.IdemStore }

func (diesBeforeFinish) Finish(context.Context, int64, string, *ops.Result) error { return nil }

// storedCall is a request of one idempotent operation that succeeds on the
// owner fixture (orders_fixture.sql loaded) after the calls before it.
// {name} in path (and "{name}" in body, by a number) is replaced by the "id" (or name.id) of the response of
// the call whose capture is name; setup prepares what the call needs.
type storedCall struct {
	op, method, path string
	body             map[string]any
	setup            func(e *ownerEnv, vars map[string]string)
	capture          string // a name for the response's id (or name.id, or number)
}

// storedWithEffect lists, for every idempotent operation that stores its
// response in its effect's transaction (kernel.RespondInTx), a request of
// it, run in this order on one database (the draft operations, which
// need the crawler, are in draftsStoredWithEffect).
var storedWithEffect = []storedCall{
	{op: "update_my_listing", method: "PATCH", path: "/api/v1/me/listings/1", body: map[string]any{"fields": map[string]any{"tagline": "Stored with the effect"}}},
	{op: "post_listing_update", method: "POST", path: "/api/v1/me/listings/1/updates", body: map[string]any{"title": "Crash day", "body": "It committed."}, capture: "update"},
	{op: "create_checkout", method: "POST", path: "/api/v1/orders/checkout", body: apitest.Order(apitest.OrderItem("ai_review", "listing_id", 1)), capture: "order"},
	{op: "cancel_order", method: "POST", path: "/api/v1/me/orders/{order}/cancel"},
	{op: "set_founder_story", method: "PUT", path: "/api/v1/me/listings/1/story", body: map[string]any{"title": "Why", "story": "Because it committed."}},
	{op: "add_milestone", method: "POST", path: "/api/v1/me/listings/1/milestones", body: map[string]any{"date": "2026-05-01", "title": "Stored with its effect"}, capture: "milestone"},
	{op: "delete_milestone", method: "DELETE", path: "/api/v1/me/listings/1/milestones/{milestone}"},
	{op: "answer_interview", method: "PUT", path: "/api/v1/me/interview", body: map[string]any{"answers": []any{map[string]any{"question_id": 2, "answer": "Stored with its effect"}}}},
	{op: "choose_free_listing", method: "POST", path: "/api/v1/me/listings/6/free", setup: func(e *ownerEnv, _ map[string]string) {
		e.DB.W.Exec(`UPDATE founders SET socials = '{"x":"https://x.com/ghost"}' WHERE id = 3`)
		e.web.set("https://secretdraft.example/", `<a href="`+e.URL+`/listings/secretdraft"><img src="`+e.URL+`/badges/secretdraft.svg"></a>`)
	}},
	{op: "claim_listing", method: "POST", path: "/api/v1/claims", body: map[string]any{"slug": "rankrocket", "method": "dns"}, capture: "claim"},
	{op: "verify_claim", method: "POST", path: "/api/v1/claims/{claim}/verify"},
	{op: "update_listing_update", method: "PATCH", path: "/api/v1/me/listings/1/updates/{update}", body: map[string]any{"title": "Crash day, edited"}},
	{op: "delete_listing_update", method: "DELETE", path: "/api/v1/me/listings/1/updates/{update}"},
	{op: "set_alternatives", method: "PUT", path: "/api/v1/me/listings/1/alternatives", body: map[string]any{"approved": []string{"rankrocket", "tablely"}}},
	{op: "set_category_attributes", method: "PATCH", path: "/api/v1/me/listings/1/attributes", body: map[string]any{"attributes": map[string]any{"Open source": "Yes", "API": "REST"}}},
	{op: "archive_my_listing", method: "POST", path: "/api/v1/me/listings/3/archive"},
	// Last: the owner hands listing 1 over and leaves it.
	{op: "create_webhook", method: "POST", path: "/api/v1/me/webhooks", body: map[string]any{"url": "https://hooks.example.com/launchdir", "events": []string{"comment.created"}}, capture: "webhook"},
	{op: "update_webhook", method: "PATCH", path: "/api/v1/me/webhooks/{webhook}", body: map[string]any{"description": "crash drill"}},
	{op: "rotate_webhook_secret", method: "POST", path: "/api/v1/me/webhooks/{webhook}/rotate"},
	{op: "post_comment", method: "POST", path: "/api/v1/listings/quickbase/comments", body: map[string]any{"body": "Stored with its effect"}, capture: "comment",
		setup: func(e *ownerEnv, _ map[string]string) {
			e.DB.W.Exec(`UPDATE users SET verified_at = '2026-01-02T00:00:00Z' WHERE id IN (1, 2)`)
		}},
	{op: "reply_to_comment", method: "POST", path: "/api/v1/comments/{comment}/replies", body: map[string]any{"body": "A reply, stored too"}},
	{op: "edit_comment", method: "PATCH", path: "/api/v1/comments/{comment}", body: map[string]any{"body": "Stored with its effect, edited"}},
	{op: "pin_comment", method: "PUT", path: "/api/v1/comments/{comment}/pin", body: map[string]any{"pinned": true}},
	{op: "delete_comment", method: "DELETE", path: "/api/v1/comments/{comment}"},
	{op: "redeliver_webhook", method: "POST", path: "/api/v1/me/webhooks/{webhook}/deliveries/{delivery}/redeliver", setup: func(e *ownerEnv, vars map[string]string) {
		var d int64 // the comment's event, delivered to the endpoint
		e.DB.R.QueryRow(`SELECT min(id) FROM webhook_deliveries WHERE endpoint_id = ?`, vars["webhook"]).Scan(&d)
		vars["delivery"] = fmt.Sprint(d)
	}},
	{op: "delete_webhook", method: "DELETE", path: "/api/v1/me/webhooks/{webhook}"},
	{op: "update_notification_settings", method: "PATCH", path: "/api/v1/me/notifications", body: map[string]any{"settings": []any{map[string]any{"kind": "comment", "on": false}}}},
	{op: "set_listing_logo", method: "PUT", path: "/api/v1/me/listings/1/logo", body: map[string]any{"image_base64": b64(apitest.PNG(256, 256))}},
	{op: "delete_listing_logo", method: "DELETE", path: "/api/v1/me/listings/1/logo"},
	{op: "add_screenshot", method: "POST", path: "/api/v1/me/listings/1/screenshots", body: map[string]any{"image_base64": b64(apitest.PNG(640, 400)), "caption": "Crash"}},
	{op: "reorder_screenshots", method: "PUT", path: "/api/v1/me/listings/1/screenshots", body: map[string]any{"ids": []string{"{screenshot}", "{first}"}},
		setup: func(e *ownerEnv, vars map[string]string) {
			var first, last int64
			e.DB.R.QueryRow(`SELECT min(id), max(id) FROM media WHERE listing_id = 1 AND kind = 'image'`).Scan(&first, &last)
			vars["first"], vars["screenshot"] = fmt.Sprint(first), fmt.Sprint(last)
		}},
	{op: "delete_screenshot", method: "DELETE", path: "/api/v1/me/listings/1/screenshots/{screenshot}"},
	{op: "set_founder_avatar", method: "PUT", path: "/api/v1/me/listings/1/founders/ada-lovelace/avatar", body: map[string]any{"image_base64": b64(apitest.PNG(128, 128))}},
	{op: "transfer_ownership", method: "POST", path: "/api/v1/me/listings/1/transfer", body: map[string]any{"user_id": 2}, setup: func(e *ownerEnv, _ map[string]string) {
		e.DB.W.Exec(`INSERT INTO listing_owners(listing_id, user_id, role, created_at) VALUES (1, 2, 'cofounder', '2026-11-01T00:00:00Z')`)
	}},
	{op: "remove_co_owner", method: "DELETE", path: "/api/v1/me/listings/1/owners/1"},
}

// draftsStoredWithEffect is storedWithEffect for the draft operations, on
// a draft the crawler could not read (filled in by hand, then submitted).
var draftsStoredWithEffect = []storedCall{
	{op: "submit_listing", method: "POST", path: "/api/v1/drafts", capture: "draft"}, // body: the test site's URL
	{op: "update_draft", method: "PATCH", path: "/api/v1/drafts/{draft}", body: map[string]any{"fields": map[string]any{"name": "Closed Bot", "tagline": "Typed by hand"}}},
	{op: "invite_cofounder", method: "POST", path: "/api/v1/drafts/{draft}/invites", body: map[string]any{"email": "cofounder@example.com"}},
	{op: "submit_draft", method: "POST", path: "/api/v1/drafts/{draft}/submit"},
	{op: "delete_draft", method: "DELETE", path: "/api/v1/drafts/{draft}"},
}

// cannotStoreWithEffect is the allow-list: idempotent operations whose
// response is not computed inside the transaction of their effect, with
// why. A retry of their key after a crash between the effect and the
// response answers 409 effect_committed (the effect never runs twice).
// Empty: every idempotent operation's effect is one transaction that
// also stores its response. One path keeps the fallback: submit_listing
// called with an MCP progress token answers the draft as the crawl leaves
// it, known only after the commit (mcp TestSubmitListingProgressFallback).
var cannotStoreWithEffect = map[string]string{}

// replaysAfterCrash runs c under a fresh key on a store whose process dies
// before Finish, then retries the key after the release window: the retry
// must replay the original status and body byte for byte.
func replaysAfterCrash(t *testing.T, e *apitest.Env, auth []string, c storedCall, key string, vars map[string]string) {
	t.Helper()
	path := c.path
	raw, _ := json.Marshal(c.body)
	for name, v := range vars {
		path = strings.ReplaceAll(path, "{"+name+"}", v)
		raw = bytes.ReplaceAll(raw, []byte(`"{`+name+`}"`), []byte(v)) // a number in the body
	}
	var body map[string]any
	json.Unmarshal(raw, &body)
	e.App.Now = func() time.Time { return apitest.Now }
	h := append(append([]string{}, auth...), "Idempotency-Key", key)
	first := e.Do(c.method, path, body, h...)
	if first.Status >= 300 {
		t.Fatalf("%s %s %s: %d %s", c.op, c.method, path, first.Status, first.Body)
	}
	if c.capture != "" {
		m := first.JSON()
		if inner, ok := m[c.capture].(map[string]any); ok {
			m = inner // {"milestone": {"id": ...}, ...}
		}
		id, ok := m["id"]
		if !ok {
			id = m["number"] // an order
		}
		vars[c.capture] = fmt.Sprint(id)
	}
	// After the release window the key is no longer "running".
	e.App.Now = func() time.Time { return apitest.Now.Add(6 * time.Minute) }
	retry := e.Do(c.method, path, body, h...)
	if retry.Status != first.Status || string(retry.Body) != string(first.Body) || retry.Header.Get("Idempotent-Replayed") != "true" {
		t.Errorf("%s: retry %d %s, want the original %d %s", c.op, retry.Status, retry.Body, first.Status, first.Body)
	}
}

// The response is stored with the effect: when the process dies between
// the effect's commit and the executor's Finish (the window a kill -9 hit
// for 7 of 1,041 keys), a retry of the key after the release window
// replays the original status and body.
func TestResponseStoredWithEffect(t *testing.T) {
	e := newOwnerEnv(t)
	apitest.LoadSQL(t, e.DB, "orders_fixture.sql")
	e.App.Exec.Idem = diesBeforeFinish{e.App.Exec.Idem}
	vars := map[string]string{}
	for i, c := range storedWithEffect {
		if c.setup != nil {
			c.setup(e, vars)
		}
		replaysAfterCrash(t, e.Env, e.owner, c, fmt.Sprintf("crash-%d", i), vars)
	}
	var revisions int
	e.DB.R.QueryRow(`SELECT count(*) FROM revisions WHERE operation = 'post_listing_update'`).Scan(&revisions)
	if revisions != 1 {
		t.Errorf("post_listing_update ran %d times, want 1", revisions)
	}
}

func TestDraftResponseStoredWithEffect(t *testing.T) {
	e := newDraftEnv(t)
	closed := testsite.Serve(t, "closedbot", nil)
	e.App.Exec.Idem = diesBeforeFinish{e.App.Exec.Idem}
	vars := map[string]string{}
	for i, c := range draftsStoredWithEffect {
		if c.op == "submit_listing" {
			c.body = map[string]any{"url": closed.URL + "/"}
		}
		replaysAfterCrash(t, e.Env, e.owner, c, fmt.Sprintf("draft-crash-%d", i), vars)
		if c.op == "submit_listing" {
			if d := e.wait(t, vars["draft"]); d.Status != "failed" {
				t.Fatalf("closedbot: %+v", d)
			}
		}
	}
}

// Every idempotent operation either shows that it stores its response
// with its effect or is on the allow-list with why: a new idempotent
// operation without kernel.RespondInTx fails here.
func TestEveryIdemOperationStoresWithEffect(t *testing.T) {
	e := apitest.New(t, apitest.Options{})
	covered := map[string]bool{}
	for _, c := range append(append([]storedCall{}, storedWithEffect...), draftsStoredWithEffect...) {
		covered[c.op] = true
	}
	n := 0
	for _, op := range e.App.Table.Ops {
		if op.Idem {
			n++
		}
		reason, allowed := cannotStoreWithEffect[op.ID]
		switch {
		case op.Idem && covered[op.ID] && allowed:
			t.Errorf("%s is tested as storing its response with its effect and allow-listed (%s)", op.ID, reason)
		case op.Idem && !covered[op.ID] && !allowed:
			t.Errorf("idempotent %s does not show that it stores its response with its effect (kernel.RespondInTx): add it to storedWithEffect, or to cannotStoreWithEffect with why", op.ID)
		case !op.Idem && (covered[op.ID] || allowed):
			t.Errorf("%s is not idempotent: remove it from the crash tables", op.ID)
		}
	}
	t.Logf("%d idempotent operations: %d store their response with their effect, %d allow-listed", n, len(covered), len(cannotStoreWithEffect))
}

// stalledProvider is a payment provider that answers only when told to,
// as one that is slow while the process dies would never answer.
type stalledProvider struct {
	entered chan struct{}
	answer  chan struct{}
}

func (stalledProvider) Name() string { return "stripe" }

func (p stalledProvider) CreateSession(_ context.Context, o *commerce.Order) (string, string, error) {
	p.entered <- struct{}{}
	<-p.answer
	return "https://pay.example/" + o.Number, "sess_" + o.Number, nil
}

// create_checkout resumes at its payment step: while the first request is
// stuck after committing its order (as when its process dies there), a
// retry of the key after the release window takes the key over, pays for
// the same order and answers 201 with it; exactly one order exists.
func TestCheckoutResumesAfterOrderPhase(t *testing.T) {
	e := newOwnerEnv(t)
	apitest.LoadSQL(t, e.DB, "orders_fixture.sql")
	p := stalledProvider{entered: make(chan struct{}, 2), answer: make(chan struct{})}
	e.App.Commerce.SetPaymentProvider(p)
	h := append(append([]string{}, e.owner...), "Idempotency-Key", "resume-1")
	body := apitest.Order(apitest.OrderItem("ai_review", "listing_id", 1))
	first := make(chan *apitest.Response, 1)
	go func() { first <- e.Do("POST", "/api/v1/orders/checkout", body, h...) }()
	<-p.entered // the order committed; the response did not
	e.App.Now = func() time.Time { return apitest.Now.Add(6 * time.Minute) }
	retried := make(chan *apitest.Response, 1)
	go func() { retried <- e.Do("POST", "/api/v1/orders/checkout", body, h...) }()
	<-p.entered // the retry resumed at the payment step
	p.answer <- struct{}{}
	p.answer <- struct{}{}
	r1, r2 := <-first, <-retried
	n1, _ := r1.JSON()["number"].(string)
	n2, _ := r2.JSON()["number"].(string)
	if r1.Status != 201 || r2.Status != 201 || n1 == "" || n1 != n2 {
		t.Fatalf("first %d %s, resumed %d %s", r1.Status, r1.Body, r2.Status, r2.Body)
	}
	var orders int
	e.DB.R.QueryRow(`SELECT count(*) FROM orders WHERE number = ? OR provider_ref LIKE 'sess_%'`, n1).Scan(&orders)
	if orders != 1 {
		t.Errorf("%d orders for one key, want 1", orders)
	}
	// Later retries replay the stored response.
	if r := e.Do("POST", "/api/v1/orders/checkout", body, h...); r.Status != 201 || r.Header.Get("Idempotent-Replayed") != "true" || r.JSON()["number"] != n1 {
		t.Errorf("replay: %d %s", r.Status, r.Body)
	}
}
