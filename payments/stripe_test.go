package payments_test

import (
	"bytes"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"sync"
	"testing"
	"time"

	"launchdir/apitest"
	"launchdir/payments"

	"github.com/stripe/stripe-go/v85"
	"github.com/stripe/stripe-go/v85/webhook"
)

const whsec = "whsec_test_secret"

// fakeStripe is a local stand-in for the Stripe API's Checkout Sessions.
type fakeStripe struct {
	mu    sync.Mutex
	forms []url.Values
	hdrs  []http.Header
	fail  bool
	n     int
}

func (f *fakeStripe) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	f.mu.Lock()
	defer f.mu.Unlock()
	if r.Method != http.MethodPost || r.URL.Path != "/v1/checkout/sessions" {
		http.Error(w, `{"error":{"message":"not found"}}`, 404)
		return
	}
	r.ParseForm()
	f.forms = append(f.forms, r.PostForm)
	f.hdrs = append(f.hdrs, r.Header.Clone())
	w.Header().Set("Content-Type", "application/json")
	if f.fail {
		w.WriteHeader(400)
		fmt.Fprint(w, `{"error":{"type":"invalid_request_error","message":"bad things"}}`)
		return
	}
	f.n++
	id := fmt.Sprintf("cs_test_%d", f.n)
	json.NewEncoder(w).Encode(map[string]any{"id": id, "object": "checkout.session", "url": "https://checkout.stripe.test/c/pay/" + id,
		"client_reference_id": r.PostForm.Get("client_reference_id"), "payment_status": "unpaid", "mode": "payment"})
}

func stripeEnv(t *testing.T) (*apitest.Env, *fakeStripe) {
	t.Helper()
	fs := &fakeStripe{}
	srv := httptest.NewServer(fs)
	t.Cleanup(srv.Close)
	e := env(t, payments.Config{Provider: "stripe", StripeKey: "sk_test_123", StripeWebhookSecret: whsec, StripeAPIURL: srv.URL})
	return e, fs
}

func event(id, typ, session, number, paymentStatus string) []byte {
	b, _ := json.Marshal(map[string]any{
		"id": id, "object": "event", "api_version": stripe.APIVersion, "type": typ, "created": time.Now().Unix(),
		"data": map[string]any{"object": map[string]any{
			"id": session, "object": "checkout.session", "client_reference_id": number, "payment_status": paymentStatus,
			"metadata": map[string]string{"order_number": number},
		}},
	})
	return b
}

func deliver(t *testing.T, e *apitest.Env, payload []byte, sig string) *apitest.Response {
	t.Helper()
	req, _ := http.NewRequest("POST", e.URL+"/webhooks/stripe", bytes.NewReader(payload))
	req.Header.Set("Content-Type", "application/json")
	if sig != "" {
		req.Header.Set("Stripe-Signature", sig)
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	var buf bytes.Buffer
	buf.ReadFrom(resp.Body)
	return &apitest.Response{Status: resp.StatusCode, Header: resp.Header, Body: buf.Bytes()}
}

func sign(payload []byte, secret string, at time.Time) string {
	return webhook.GenerateTestSignedPayload(&webhook.UnsignedPayload{Payload: payload, Secret: secret, Timestamp: at}).Header
}

func TestStripeCheckoutAndWebhook(t *testing.T) {
	e, fs := stripeEnv(t)
	key := e.APIKey("owner@example.com")
	body := order(it("billboard_min", "listing_id", 3, "amount_cents", 1000), it("ai_review", "listing_id", 3))
	body["billing_country"] = "DE"
	number, u := checkout(t, e, key, body)
	if u != "https://checkout.stripe.test/c/pay/cs_test_1" {
		t.Fatalf("checkout_url %q", u)
	}
	f := fs.forms[0]
	for k, want := range map[string]string{
		"mode": "payment", "client_reference_id": number, "metadata[order_number]": number,
		"line_items[0][price_data][currency]": "usd", "line_items[0][price_data][unit_amount]": "1190", // 1000 + 19 % VAT
		"line_items[1][price_data][unit_amount]": "4641", "line_items[0][quantity]": "1", "customer_email": "owner@example.com",
	} {
		if got := f.Get(k); got != want {
			t.Errorf("stripe form %s = %q, want %q", k, got, want)
		}
	}
	if !strings.Contains(f.Get("success_url"), "/checkout/") || f.Get("cancel_url") == "" || f.Get("expires_at") == "" {
		t.Errorf("urls: %v", f)
	}
	if h := fs.hdrs[0]; h.Get("Authorization") != "Bearer sk_test_123" || h.Get("Idempotency-Key") != "launchdir-"+number {
		t.Errorf("headers %v", h)
	}
	if got := scalar(t, e, `SELECT provider||'/'||provider_ref||'/'||status FROM orders WHERE number = ?`, number); got != "stripe/cs_test_1/pending" {
		t.Errorf("order %s", got)
	}

	// Our page for a Stripe order links to Stripe and takes no POST payment.
	page := e.Do("GET", strings.Split(fs.forms[0].Get("cancel_url"), "?")[0]+"?stripe=canceled", nil)
	if !strings.Contains(string(page.Body), "checkout.stripe.test") || strings.Contains(string(page.Body), "TEST MODE") {
		t.Errorf("stripe order page: %s", page.Body)
	}

	paid := event("evt_1", "checkout.session.completed", "cs_test_1", number, "paid")
	// Bad signatures change nothing.
	for name, sig := range map[string]string{
		"missing":   "",
		"wrong key": sign(paid, "whsec_other", time.Now()),
		"tampered":  sign(event("evt_1", "checkout.session.completed", "cs_test_1", number, "unpaid"), whsec, time.Now()),
		"too old":   sign(paid, whsec, time.Now().Add(-10*time.Minute)),
		"not a sig": "t=1,v1=zz",
	} {
		if r := deliver(t, e, paid, sig); r.Status != 400 {
			t.Errorf("%s signature: %d %s", name, r.Status, r.Body)
		}
	}
	if got := scalar(t, e, `SELECT status FROM orders WHERE number = ?`, number); got != "pending" {
		t.Fatalf("status after bad signatures: %s", got)
	}

	r := deliver(t, e, paid, sign(paid, whsec, time.Now()))
	if r.Status != 200 || !strings.Contains(string(r.Body), `"outcome":"paid"`) {
		t.Fatalf("good webhook: %d %s", r.Status, r.Body)
	}
	// Replayed event: nothing more.
	r = deliver(t, e, paid, sign(paid, whsec, time.Now()))
	if r.Status != 200 || !strings.Contains(string(r.Body), `"duplicate":true`) {
		t.Errorf("replay: %d %s", r.Status, r.Body)
	}
	// Another event for the same session (e.g. async_payment_succeeded): already paid.
	again := event("evt_2", "checkout.session.async_payment_succeeded", "cs_test_1", number, "paid")
	r = deliver(t, e, again, sign(again, whsec, time.Now()))
	if r.Status != 200 || !strings.Contains(string(r.Body), "already paid") {
		t.Errorf("second event: %d %s", r.Status, r.Body)
	}
	if got := scalar(t, e, `SELECT status||'/'||provider_ref||'/'||(paid_at IS NOT NULL) FROM orders WHERE number = ?`, number); got != "paid/cs_test_1/1" {
		t.Errorf("order %s", got)
	}
	if got := scalar(t, e, `SELECT count(*)||'/'||sum(amount_cents) FROM billboard_contributions WHERE order_id IS NOT NULL`); got != "1/1000" {
		t.Errorf("contributions %s", got)
	}
	if got := scalar(t, e, `SELECT billboard_cents FROM listings WHERE id = 3`); got != "6000" {
		t.Errorf("billboard_cents %s", got)
	}
	if got := scalar(t, e, `SELECT count(*) FROM team_tasks`); got != "1" {
		t.Errorf("tasks %s", got)
	}
	if got := scalar(t, e, `SELECT count(*) FROM payment_events`); got != "2" {
		t.Errorf("events recorded %s", got)
	}
	get := e.Do("GET", "/api/v1/orders/"+number, nil, apitest.Bearer(key)...)
	if !strings.Contains(string(get.Body), `"status":"paid"`) {
		t.Errorf("get_order: %s", get.Body)
	}
}

func TestStripeWebhookOtherEvents(t *testing.T) {
	e, _ := stripeEnv(t)
	key := e.APIKey("owner@example.com")
	n1, _ := checkout(t, e, key, order(it("ai_review", "listing_id", 1)))
	n2, _ := checkout(t, e, key, order(it("ai_review", "listing_id", 1)))
	n3, _ := checkout(t, e, key, order(it("ai_review", "listing_id", 1)))
	send := func(id, typ, session, number, ps string) string {
		p := event(id, typ, session, number, ps)
		r := deliver(t, e, p, sign(p, whsec, time.Now()))
		if r.Status != 200 {
			t.Fatalf("%s: %d %s", id, r.Status, r.Body)
		}
		return string(r.Body)
	}
	if b := send("evt_a", "checkout.session.completed", "cs_test_1", n1, "unpaid"); !strings.Contains(b, "waiting") {
		t.Errorf("unpaid completion: %s", b)
	}
	if b := send("evt_b", "checkout.session.async_payment_failed", "cs_test_1", n1, "unpaid"); !strings.Contains(b, `"outcome":"failed"`) {
		t.Errorf("async failure: %s", b)
	}
	if b := send("evt_c", "checkout.session.expired", "cs_test_2", n2, "unpaid"); !strings.Contains(b, `"outcome":"expired"`) {
		t.Errorf("expired: %s", b)
	}
	if b := send("evt_d", "checkout.session.completed", "cs_test_999", n3, "paid"); !strings.Contains(b, "mismatch") {
		t.Errorf("session mismatch: %s", b)
	}
	if b := send("evt_e", "customer.created", "", "", ""); !strings.Contains(b, "ignored") {
		t.Errorf("other type: %s", b)
	}
	for n, want := range map[string]string{n1: "failed", n2: "expired", n3: "pending"} {
		if got := scalar(t, e, `SELECT status FROM orders WHERE number = ?`, n); got != want {
			t.Errorf("%s: %s, want %s", n, got, want)
		}
	}
}

func TestStripeUnavailable(t *testing.T) {
	e, fs := stripeEnv(t)
	fs.fail = true
	key := e.APIKey("owner@example.com")
	r := e.Do("POST", "/api/v1/orders/checkout", order(it("ai_review", "listing_id", 1)), append(apitest.Bearer(key), "Idempotency-Key", "s-1")...)
	if r.Status != 503 {
		t.Fatalf("provider down: %d %s", r.Status, r.Body)
	}
	if got := scalar(t, e, `SELECT status FROM orders`); got != "failed" {
		t.Errorf("order %s", got)
	}
	// The key was released: a retry builds a new order once Stripe is back.
	fs.fail = false
	r = e.Do("POST", "/api/v1/orders/checkout", order(it("ai_review", "listing_id", 1)), append(apitest.Bearer(key), "Idempotency-Key", "s-1")...)
	if r.Status != 201 || r.Header.Get("Idempotent-Replayed") != "" {
		t.Errorf("retry: %d %s", r.Status, r.Body)
	}
}

func TestProviderConfig(t *testing.T) {
	e := apitest.New(t, apitest.Options{})
	if _, err := payments.New(e.App, payments.Config{Provider: "stripe"}); err == nil {
		t.Error("stripe without key accepted")
	}
	if _, err := payments.New(e.App, payments.Config{Provider: "bitcoin"}); err == nil {
		t.Error("unknown provider accepted")
	}
	p, err := payments.New(e.App, payments.Config{})
	if err != nil || p.Name() != "test" {
		t.Errorf("default provider: %v %v", p, err)
	}
}
