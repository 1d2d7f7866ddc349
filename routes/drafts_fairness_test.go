package routes_test

import (
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"testing"
	"time"

	"launchdir/apitest"
	"launchdir/app"
	"launchdir/app/drafting"
	"launchdir/testsite"
)

// TestDraftFairness: one user's drafts to a site that accepts connections
// and never answers do not delay another user's draft; the per-user caps
// answer 429 with Retry-After; a silent site fails only its own draft when
// its wall-clock budget ends.
func TestDraftFairness(t *testing.T) {
	const budget = 3 * time.Second
	e := apitest.New(t, apitest.Options{Fixture: true, Background: true, Setup: func(a *app.App) {
		a.Drafting.SetDraftPipeline(drafting.DraftConfig{Crawler: apitest.TestCrawler(), Workers: 2, InFlightPerUser: 5, PerHourPerUser: 6, Budget: budget})
	}})
	slowUser, otherUser := apitest.Bearer(e.APIKey("owner@example.com")), apitest.Bearer(e.APIKey("other@example.com"))
	stop := make(chan struct{})
	silent := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		select { // accepts the connection, never answers
		case <-stop:
		case <-r.Context().Done():
		}
	}))
	t.Cleanup(func() { close(stop); silent.Close() })
	submit := func(who []string, url string, want int) string {
		t.Helper()
		r := e.Do("POST", "/api/v1/drafts", map[string]any{"url": url}, who...)
		if r.Status != want {
			t.Fatalf("submit %s: %d %s", url, r.Status, r.Body)
		}
		var d struct{ ID string }
		json.Unmarshal(r.Body, &d)
		return d.ID
	}
	status := func(who []string, id string) (string, string) {
		r := e.Do("GET", "/api/v1/drafts/"+id, nil, who...)
		var d struct {
			Status  string
			Failure struct{ Kind string }
		}
		json.Unmarshal(r.Body, &d)
		return d.Status, d.Failure.Kind
	}
	// Five in flight is the cap: the sixth is refused with Retry-After.
	var slow []string
	for i := 0; i < 5; i++ {
		slow = append(slow, submit(slowUser, silent.URL+"/", 201))
	}
	r := e.Do("POST", "/api/v1/drafts", map[string]any{"url": silent.URL + "/"}, slowUser...)
	if r.Status != 429 || r.Header.Get("Retry-After") == "" {
		t.Fatalf("6th draft in flight: %d %s (Retry-After %q)", r.Status, r.Body, r.Header.Get("Retry-After"))
	}
	// Another user's draft is served at once by the worker the slow user
	// may not take: well within one budget, while the slow drafts wait.
	site := testsite.Serve(t, "acme-analytics", nil)
	start := time.Now()
	id := submit(otherUser, site.URL+"/", 201)
	for {
		st, _ := status(otherUser, id)
		if st == "ready" {
			break
		}
		if st == "failed" || time.Since(start) > budget {
			t.Fatalf("other user's draft %s after %v", st, time.Since(start))
		}
		time.Sleep(20 * time.Millisecond)
	}
	if st, _ := status(slowUser, slow[len(slow)-1]); st != "crawling" {
		t.Errorf("the slow user's last draft is %s, want still crawling", st)
	}
	t.Logf("other user's draft ready in %v with 5 silent drafts queued", time.Since(start))
	// The first silent draft fails on its budget, with its own reason.
	deadline := time.Now().Add(3 * budget)
	for {
		st, kind := status(slowUser, slow[0])
		if st == "failed" {
			if kind != "timeout" {
				t.Errorf("failure kind %q, want timeout", kind)
			}
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("silent draft still %s after %v", st, 3*budget)
		}
		time.Sleep(50 * time.Millisecond)
	}
	// A slot is free again; the hourly cap (6) is the next limit.
	submit(slowUser, silent.URL+"/", 201)
	r = e.Do("POST", "/api/v1/drafts", map[string]any{"url": site.URL + "/"}, slowUser...)
	if r.Status != 429 || r.Header.Get("Retry-After") != "3600" {
		t.Fatalf("7th draft in the hour: %d %s (Retry-After %q)", r.Status, r.Body, r.Header.Get("Retry-After"))
	}
}
