package routes_test

import (
	"context"
	"testing"
	"time"

	"launchdir/apitest"
	"launchdir/app/commerce"
	"launchdir/ops"
)

// diesBeforeFinish is the idempotency store of a process killed right
// after a request's effect committed: nothing it would store after the
// handler returned reaches the database (Finish never happens).
type diesBeforeFinish struct{ ops.IdemStore }

func (diesBeforeFinish) Finish(context.Context, int64, string, *ops.Result) error { return nil }

// The response is stored with the effect: when the process dies between
// the effect's commit and the executor's Finish (the window a kill -9 hit
// for 7 of 1,041 keys), a retry of the key after the release window
// replays the original status and body. An idempotent operation that does
// not store its response with its effect (answer_interview) still never
// runs twice: it answers the effect_committed conflict.
func TestResponseStoredWithEffect(t *testing.T) {
	e := newOwnerEnv(t)
	apitest.LoadSQL(t, e.DB, "orders_fixture.sql")
	e.App.Exec.Idem = diesBeforeFinish{e.App.Exec.Idem}
	calls := []struct {
		method, path string
		body         map[string]any
		replays      bool
	}{
		{"PATCH", "/api/v1/me/listings/1", map[string]any{"fields": map[string]any{"tagline": "Stored with the effect"}}, true},
		{"POST", "/api/v1/me/listings/1/updates", map[string]any{"title": "Crash day", "body": "It committed."}, true},
		{"POST", "/api/v1/orders/checkout", apitest.Order(apitest.OrderItem("ai_review", "listing_id", 1)), true},
		{"PUT", "/api/v1/me/listings/1/story", map[string]any{"title": "Why", "story": "Because it committed."}, true},
		{"POST", "/api/v1/me/listings/1/milestones", map[string]any{"date": "2026-05-01", "title": "Stored with its effect"}, true},
		{"PUT", "/api/v1/me/interview", map[string]any{"answers": []any{map[string]any{"question_id": 2, "answer": "Not stored with its effect"}}}, false},
	}
	for i, c := range calls {
		e.App.Now = func() time.Time { return apitest.Now }
		h := append(append([]string{}, e.owner...), "Idempotency-Key", "crash-"+string(rune('a'+i)))
		first := e.Do(c.method, c.path, c.body, h...)
		if first.Status >= 300 {
			t.Fatalf("%s %s: %d %s", c.method, c.path, first.Status, first.Body)
		}
		// After the release window the key is no longer "running".
		e.App.Now = func() time.Time { return apitest.Now.Add(6 * time.Minute) }
		retry := e.Do(c.method, c.path, c.body, h...)
		if c.replays {
			if retry.Status != first.Status || string(retry.Body) != string(first.Body) || retry.Header.Get("Idempotent-Replayed") != "true" {
				t.Errorf("%s %s: retry %d %s, want the original %d %s", c.method, c.path, retry.Status, retry.Body, first.Status, first.Body)
			}
			continue
		}
		if retry.Status != 409 || retry.JSON()["extra"] == nil {
			t.Errorf("%s %s: retry %d %s, want 409 effect_committed", c.method, c.path, retry.Status, retry.Body)
		}
	}
	var updates, orders int
	e.DB.R.QueryRow(`SELECT count(*) FROM listing_updates WHERE title = 'Crash day'`).Scan(&updates)
	e.DB.R.QueryRow(`SELECT count(*) FROM orders WHERE user_id = (SELECT id FROM users WHERE email = 'owner@example.com')`).Scan(&orders)
	if updates != 1 {
		t.Errorf("updates %d, want 1", updates)
	}
	t.Logf("owner orders after one checkout key: %d", orders)
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
