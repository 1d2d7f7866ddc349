package app_test

import (
	"crypto/hmac"
	"crypto/sha256"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"launchdir/apitest"
	"launchdir/app"
)

// verifyStandardWebhook checks a request the way the Standard Webhooks
// specification tells receivers to: the signed content is
// "<webhook-id>.<webhook-timestamp>.<body>", the key is the base64 part of
// the whsec_ secret, the signature HMAC-SHA256, base64, prefixed "v1,";
// the header may hold several space-separated signatures; the timestamp
// must be within 5 minutes of now. Written here from the specification,
// not from our signer.
func verifyStandardWebhook(secret string, h http.Header, body []byte, now time.Time) error {
	id, ts, sigs := h.Get("webhook-id"), h.Get("webhook-timestamp"), h.Get("webhook-signature")
	if id == "" || ts == "" || sigs == "" {
		return errors.New("missing webhook headers")
	}
	sec, err := strconv.ParseInt(ts, 10, 64)
	if err != nil {
		return errors.New("bad timestamp")
	}
	if d := now.Sub(time.Unix(sec, 0)); d > 5*time.Minute || d < -5*time.Minute {
		return errors.New("timestamp outside tolerance")
	}
	key, err := base64.StdEncoding.DecodeString(strings.TrimPrefix(secret, "whsec_"))
	if err != nil {
		return err
	}
	mac := hmac.New(sha256.New, key)
	mac.Write([]byte(id + "." + ts + "." + string(body)))
	want := mac.Sum(nil)
	for _, s := range strings.Fields(sigs) {
		version, sig, ok := strings.Cut(s, ",")
		if !ok || version != "v1" {
			continue
		}
		got, err := base64.StdEncoding.DecodeString(sig)
		if err == nil && hmac.Equal(got, want) {
			return nil
		}
	}
	return errors.New("no valid signature")
}

// receiver is a local endpoint that answers fail times with 500 first.
type receiver struct {
	mu     sync.Mutex
	fail   int
	got    []http.Header
	bodies [][]byte
	srv    *httptest.Server
}

func newReceiver(t *testing.T) *receiver {
	r := &receiver{}
	r.srv = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, req *http.Request) {
		b, _ := io.ReadAll(req.Body)
		r.mu.Lock()
		defer r.mu.Unlock()
		r.got, r.bodies = append(r.got, req.Header.Clone()), append(r.bodies, b)
		if r.fail != 0 {
			if r.fail > 0 {
				r.fail--
			}
			http.Error(w, "receiver down for maintenance", 500)
			return
		}
		w.Write([]byte(`{"ok":true}`))
	}))
	t.Cleanup(r.srv.Close)
	return r
}

func (r *receiver) count() int { r.mu.Lock(); defer r.mu.Unlock(); return len(r.got) }

func TestWebhooksSignedRetriedRedeliveredRotatedDisabled(t *testing.T) {
	e := apitest.New(t, apitest.Options{Fixture: true, Setup: func(a *app.App) { a.Webhooks.AllowPrivateTargets() }})
	e.DB.W.Exec(`UPDATE users SET verified_at = '2026-01-02T00:00:00Z'`)
	owner := apitest.Bearer(e.APIKey("owner@example.com"))
	rec := newReceiver(t)
	r := e.Do("POST", "/api/v1/me/webhooks", map[string]any{"url": rec.srv.URL + "/hook", "events": []string{"comment.created", "listing.updated"}}, owner...)
	if r.Status != 201 || !strings.HasPrefix(r.JSON()["secret"].(string), "whsec_") {
		t.Fatalf("create: %d %s", r.Status, r.Body)
	}
	secret, hook := r.JSON()["secret"].(string), int64(r.JSON()["id"].(float64))
	// The secret is sealed at rest, never stored in clear.
	var stored string
	e.DB.R.QueryRow(`SELECT secret FROM webhook_endpoints WHERE id = ?`, hook).Scan(&stored)
	if strings.Contains(stored, strings.TrimPrefix(secret, "whsec_")) || !strings.HasPrefix(stored, "v1:") {
		t.Fatalf("secret stored as %q", stored)
	}
	if r := e.Do("GET", "/api/v1/me/webhooks", nil, owner...); strings.Contains(string(r.Body), "whsec_") {
		t.Fatalf("list shows the secret: %s", r.Body)
	}
	// A comment on the owner's listing is delivered, signed per the spec;
	// one on someone else's listing is not.
	if _, err := e.App.Conversation.Post(bg, 3, "tablely", 0, "Webhook me", ""); err != nil {
		t.Fatal(err)
	}
	if _, err := e.App.Conversation.Post(bg, 3, "rankrocket", 0, "Not for owner 1", ""); err != nil {
		t.Fatal(err)
	}
	if err := e.App.Webhooks.Deliver(bg); err != nil {
		t.Fatal(err)
	}
	if rec.count() != 1 {
		t.Fatalf("%d requests, want 1", rec.count())
	}
	if err := verifyStandardWebhook(secret, rec.got[0], rec.bodies[0], apitest.Now); err != nil {
		t.Fatalf("signature: %v", err)
	}
	var ev struct {
		Type string
		Data struct {
			Listing struct{ Slug string }
			Comment struct {
				BodyMarkdown string `json:"body_markdown"`
			}
		}
	}
	json.Unmarshal(rec.bodies[0], &ev)
	if ev.Type != "comment.created" || ev.Data.Listing.Slug != "tablely" || ev.Data.Comment.BodyMarkdown != "Webhook me" {
		t.Fatalf("payload: %s", rec.bodies[0])
	}
	// A tampered body fails the verifier (the test can fail).
	if verifyStandardWebhook(secret, rec.got[0], append(rec.bodies[0], ' '), apitest.Now) == nil {
		t.Fatal("verifier accepted a changed body")
	}
	// Retries after 500s: 5 s, then 5 min later; same webhook-id each time.
	rec.fail = 2
	if r := e.Do("PATCH", "/api/v1/me/listings/3", map[string]any{"fields": map[string]any{"tagline": "Now with webhooks"}}, owner...); r.Status != 200 {
		t.Fatalf("patch: %d %s", r.Status, r.Body)
	}
	at := func(d time.Duration) { e.App.Now = func() time.Time { return apitest.Now.Add(d) } }
	for _, d := range []time.Duration{0, 4 * time.Second, 5 * time.Second, 5*time.Second + 5*time.Minute} {
		at(d)
		e.App.Webhooks.Deliver(bg)
	}
	if rec.count() != 4 || rec.got[1].Get("webhook-id") != rec.got[3].Get("webhook-id") {
		t.Fatalf("retries: %d requests", rec.count())
	}
	log := e.Do("GET", fmt.Sprintf("/api/v1/me/webhooks/%d/deliveries", hook), nil, owner...)
	var page struct {
		Items []struct {
			ID       int64
			Status   string
			Attempts int
			Log      []struct {
				Status   int
				Response string
			}
		}
		Total int
	}
	json.Unmarshal(log.Body, &page)
	d := page.Items[0]
	if page.Total != 2 || d.Status != "delivered" || d.Attempts != 3 || d.Log[0].Status != 500 || !strings.Contains(d.Log[0].Response, "maintenance") || d.Log[2].Status != 200 {
		t.Fatalf("delivery log: %s", log.Body)
	}
	// Manual redeliver: the same event again, at once.
	if r := e.Do("POST", fmt.Sprintf("/api/v1/me/webhooks/%d/deliveries/%d/redeliver", hook, d.ID), nil, owner...); r.Status != 200 {
		t.Fatalf("redeliver: %d %s", r.Status, r.Body)
	}
	e.App.Webhooks.Deliver(bg)
	if rec.count() != 5 || rec.got[4].Get("webhook-id") != rec.got[3].Get("webhook-id") {
		t.Fatalf("redelivered: %d", rec.count())
	}
	// Another person's endpoint and deliveries are not found.
	other := apitest.Bearer(e.APIKey("other@example.com"))
	if r := e.Do("POST", fmt.Sprintf("/api/v1/me/webhooks/%d/deliveries/%d/redeliver", hook, d.ID), nil, other...); r.Status != 404 {
		t.Fatalf("another's redeliver: %d", r.Status)
	}
	// Rotation: for 24 h both secrets sign; the new one alone afterwards.
	r = e.Do("POST", fmt.Sprintf("/api/v1/me/webhooks/%d/rotate", hook), nil, owner...)
	fresh := r.JSON()["secret"].(string)
	if fresh == secret {
		t.Fatal("rotation kept the secret")
	}
	e.Do("PATCH", "/api/v1/me/listings/3", map[string]any{"fields": map[string]any{"tagline": "Rotated"}}, owner...)
	e.App.Webhooks.Deliver(bg)
	last := rec.count() - 1
	if verifyStandardWebhook(fresh, rec.got[last], rec.bodies[last], e.App.Now()) != nil || verifyStandardWebhook(secret, rec.got[last], rec.bodies[last], e.App.Now()) != nil {
		t.Fatalf("rotation overlap signatures: %s", rec.got[last].Get("webhook-signature"))
	}
	// Repeated failures turn the endpoint off and email its owner.
	rec.fail = -1
	for i := range 21 {
		e.Do("PATCH", "/api/v1/me/listings/3", map[string]any{"fields": map[string]any{"tagline": fmt.Sprint("Edit ", i)}}, owner...)
	}
	e.App.Webhooks.Deliver(bg)
	var status string
	var failures int
	e.DB.R.QueryRow(`SELECT status, failures FROM webhook_endpoints WHERE id = ?`, hook).Scan(&status, &failures)
	if status != "disabled" || failures != 20 {
		t.Fatalf("after failures: %s %d", status, failures)
	}
	var mail string
	e.DB.R.QueryRow(`SELECT body FROM outbox WHERE kind = 'webhook_disabled' AND to_addr = 'owner@example.com'`).Scan(&mail)
	if !strings.Contains(mail, rec.srv.URL) || !strings.Contains(mail, "/me/webhooks") {
		t.Fatalf("disable email: %q", mail)
	}
	// Turning it on again clears the count; deliveries resume.
	rec.fail = 0
	if r := e.Do("PATCH", fmt.Sprintf("/api/v1/me/webhooks/%d", hook), map[string]any{"enabled": true}, owner...); r.Status != 200 || r.JSON()["status"] != "enabled" {
		t.Fatalf("enable: %d %s", r.Status, r.Body)
	}
}

func TestWebhookTargetsAndSSRFGuard(t *testing.T) {
	e := apitest.New(t, apitest.Options{Fixture: true}) // private targets refused: the default
	owner := apitest.Bearer(e.APIKey("owner@example.com"))
	for _, u := range []string{"http://example.com/hook", "https://127.0.0.1/hook", "https://10.0.0.8/x", "https://[::1]/x", "https://localhost/x",
		"https://169.254.169.254/latest", "https://user:pw@example.com/x", "ftp://example.com/x", "/relative"} {
		if r := e.Do("POST", "/api/v1/me/webhooks", map[string]any{"url": u, "events": []string{"order.paid"}}, owner...); r.Status != 400 {
			t.Errorf("%s: %d %s", u, r.Status, r.Body)
		}
	}
	if r := e.Do("POST", "/api/v1/me/webhooks", map[string]any{"url": "https://hooks.example.com/x", "events": []string{"vote.cast"}}, owner...); r.Status != 400 {
		t.Fatalf("unknown event: %d", r.Status)
	}
	if r := e.Do("POST", "/api/v1/me/webhooks", map[string]any{"url": "https://hooks.example.com/x", "events": []string{"order.paid"}, "site_wide": true}, owner...); r.Status != 403 {
		t.Fatalf("site-wide by an owner: %d", r.Status)
	}
	// At most 10 endpoints.
	for i := range 11 {
		r := e.Do("POST", "/api/v1/me/webhooks", map[string]any{"url": fmt.Sprintf("https://hooks.example.com/%d", i), "events": []string{"order.paid"}}, owner...)
		if (i < 10) != (r.Status == 201) {
			t.Fatalf("endpoint %d: %d", i+1, r.Status)
		}
	}
	// A name that resolves to a private address (here: the stored URL
	// pointing at a local server, as after DNS rebinding) is refused at
	// the connection by the guarded client.
	rec := newReceiver(t)
	e.DB.W.Exec(`DELETE FROM webhook_endpoints WHERE id > 1`)
	e.DB.W.Exec(`UPDATE webhook_endpoints SET url = ?, events = '["listing.updated"]' WHERE id = 1`, rec.srv.URL)
	e.Do("PATCH", "/api/v1/me/listings/3", map[string]any{"fields": map[string]any{"tagline": "x"}}, owner...)
	if err := e.App.Webhooks.Deliver(bg); err != nil {
		t.Fatal(err)
	}
	var lastErr string
	e.DB.R.QueryRow(`SELECT last_error FROM webhook_deliveries`).Scan(&lastErr)
	if rec.count() != 0 || !strings.Contains(lastErr, "blocked") {
		t.Fatalf("guard: %d requests, error %q", rec.count(), lastErr)
	}
}

func TestWebhookVoteMilestone(t *testing.T) {
	e := apitest.New(t, apitest.Options{Fixture: true, Setup: func(a *app.App) { a.Webhooks.AllowPrivateTargets() }})
	e.DB.W.Exec(`UPDATE users SET verified_at = '2026-01-02T00:00:00Z'`)
	e.DB.W.Exec(`UPDATE listings SET votes = 9 WHERE slug = 'tablely'`)
	rec := newReceiver(t)
	owner := apitest.Bearer(e.APIKey("owner@example.com"))
	if r := e.Do("POST", "/api/v1/me/webhooks", map[string]any{"url": rec.srv.URL, "events": []string{"listing.votes_milestone"}}, owner...); r.Status != 201 {
		t.Fatalf("create: %d %s", r.Status, r.Body)
	}
	if st, err := e.App.People.ToggleVote(bg, 3, "tablely", "10.3.0.1"); err != nil || !st.Counted {
		t.Fatalf("vote: %+v %v", st, err)
	}
	e.App.Webhooks.Deliver(bg)
	if rec.count() != 1 || !strings.Contains(string(rec.bodies[0]), `"votes":10`) {
		t.Fatalf("milestone: %d %s", rec.count(), rec.bodies)
	}
	// The next vote is no milestone.
	e.App.People.ToggleVote(bg, 2, "tablely", "10.3.0.2")
	e.App.Webhooks.Deliver(bg)
	if rec.count() != 1 {
		t.Fatalf("a vote past the milestone sent %d", rec.count())
	}
}

// One delivery to an endpoint that keeps failing is tried 10 times over
// about three days, then fails; the endpoint (10 failures) stays on.
func TestWebhookBackoffForThreeDays(t *testing.T) {
	e := apitest.New(t, apitest.Options{Fixture: true, Setup: func(a *app.App) { a.Webhooks.AllowPrivateTargets() }})
	rec := newReceiver(t)
	rec.fail = -1
	owner := apitest.Bearer(e.APIKey("owner@example.com"))
	e.Do("POST", "/api/v1/me/webhooks", map[string]any{"url": rec.srv.URL, "events": []string{"listing.updated"}}, owner...)
	e.Do("PATCH", "/api/v1/me/listings/3", map[string]any{"fields": map[string]any{"tagline": "x"}}, owner...)
	now := apitest.Now
	for i := 0; i < 12; i++ {
		e.App.Now = func() time.Time { return now }
		e.App.Webhooks.Deliver(bg)
		var next string
		e.DB.R.QueryRow(`SELECT next_attempt_at FROM webhook_deliveries`).Scan(&next)
		now, _ = time.Parse(time.RFC3339, next)
		now = now.Add(time.Second)
	}
	var status string
	var attempts int
	var first, last string
	e.DB.R.QueryRow(`SELECT status, attempts FROM webhook_deliveries`).Scan(&status, &attempts)
	e.DB.R.QueryRow(`SELECT min(attempted_at), max(attempted_at) FROM webhook_attempts`).Scan(&first, &last)
	t1, _ := time.Parse(time.RFC3339, first)
	t2, _ := time.Parse(time.RFC3339, last)
	if status != "failed" || attempts != 10 || rec.count() != 10 || t2.Sub(t1) < 71*time.Hour || t2.Sub(t1) > 73*time.Hour {
		t.Fatalf("%s after %d attempts (%d requests) over %v", status, attempts, rec.count(), t2.Sub(t1))
	}
	var endpoint string
	e.DB.R.QueryRow(`SELECT status FROM webhook_endpoints`).Scan(&endpoint)
	if endpoint != "enabled" {
		t.Fatalf("endpoint %s after 10 failures", endpoint)
	}
}
