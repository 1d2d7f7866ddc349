package routes_test

import (
	"encoding/json"
	"net/http"
	"strings"
	"testing"
	"time"

	"launchdir/apitest"
	"launchdir/routes"
)

// holder mounts a route (behind admission control, like every route) whose
// requests hold their slot until released, so a test can fill the server.
type holder struct {
	entered chan struct{}
	release chan struct{}
}

func mountHolder(e *apitest.Env, method, path string) *holder {
	h := &holder{entered: make(chan struct{}, 16), release: make(chan struct{})}
	e.Routes.Handle(method, path, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		h.entered <- struct{}{}
		<-h.release
		w.WriteHeader(http.StatusNoContent)
	}))
	return h
}

// holding starts a server with admission options o and one request held
// on a route mounted at method and path.
func holding(t *testing.T, o routes.Options, method, path string) (*apitest.Env, *holder, chan *apitest.Response) {
	e := apitest.New(t, apitest.Options{Fixture: true, Routes: o})
	h := mountHolder(e, method, path)
	return e, h, h.hold(t, e, method, path, 1)
}

// hold sends n requests that each take a slot and waits until all run.
func (h *holder) hold(t *testing.T, e *apitest.Env, method, path string, n int) chan *apitest.Response {
	done := make(chan *apitest.Response, n)
	for range n {
		go func() { done <- e.Do(method, path, nil) }()
	}
	for range n {
		select {
		case <-h.entered:
		case <-time.After(10 * time.Second):
			t.Fatal("holding request never started")
		}
	}
	return done
}

// finish lets the n held requests go, checks they completed and waits
// until no slot is taken.
func (h *holder) finish(t *testing.T, e *apitest.Env, done chan *apitest.Response, n int) {
	t.Helper()
	close(h.release)
	for range n {
		if r := <-done; r.Status != http.StatusNoContent {
			t.Errorf("holding request: %d", r.Status)
		}
	}
	waitFor(t, e, 0, 0)
}

// requests reads the admission counters /healthz reports.
func requests(t *testing.T, e *apitest.Env) (running, waiting int) {
	t.Helper()
	r := e.Do("GET", "/healthz", nil)
	if r.Status != 200 {
		t.Fatalf("healthz while saturated: %d %s", r.Status, r.Body)
	}
	var m struct {
		Requests *struct{ Running, Waiting int }
	}
	if err := json.Unmarshal(r.Body, &m); err != nil || m.Requests == nil {
		t.Fatalf("healthz has no requests counters: %s", r.Body)
	}
	return m.Requests.Running, m.Requests.Waiting
}

// waitFor polls /healthz until the counters read running and waiting.
func waitFor(t *testing.T, e *apitest.Env, running, waiting int) {
	t.Helper()
	for deadline := time.Now().Add(10 * time.Second); time.Now().Before(deadline); time.Sleep(5 * time.Millisecond) {
		if r, w := requests(t, e); r == running && w == waiting {
			return
		}
	}
	r, w := requests(t, e)
	t.Fatalf("running %d waiting %d, want %d and %d", r, w, running, waiting)
}

// A saturated server answers a read that waited its full turn with a 503
// problem and Retry-After instead of hanging; /healthz is not covered and
// answers at once; a slot freed lets the next request through.
func TestAdmissionSaturatedAnswers503(t *testing.T) {
	e := apitest.New(t, apitest.Options{Fixture: true,
		Routes: routes.Options{MaxInFlight: 2, MaxInFlightWrites: 1, QueueTimeout: 150 * time.Millisecond}})
	h := mountHolder(e, "GET", "/test/hold")
	e.Routes.Handle("GET", "/static/*file", http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { w.Write([]byte("css")) }))
	done := h.hold(t, e, "GET", "/test/hold", 2) // the limit exactly
	waitFor(t, e, 2, 0)
	start := time.Now()
	r := e.Do("GET", "/api/v1/site", nil) // one past the limit
	if r.Status != http.StatusServiceUnavailable || r.Header.Get("Retry-After") != "1" {
		t.Fatalf("saturated: %d Retry-After %q %s", r.Status, r.Header.Get("Retry-After"), r.Body)
	}
	if waited := time.Since(start); waited < 150*time.Millisecond {
		t.Errorf("refused after %v, before its queue timeout", waited)
	}
	checkProblem(t, r)
	// The site's static files are not covered either (requests() checked
	// /healthz).
	if r := e.Do("GET", "/static/site.css", nil); r.Status != 200 {
		t.Errorf("static file while saturated: %d", r.Status)
	}
	if !strings.Contains(string(r.Body), `"status":503`) || !strings.Contains(string(r.Body), "/problems/unavailable") {
		t.Errorf("problem body: %s", r.Body)
	}
	// Writes have their own lane: reads filling theirs do not block them.
	if r := e.Do("POST", "/api/v1/drafts", map[string]any{}); r.Status != http.StatusUnauthorized {
		t.Errorf("write while reads are saturated: %d %s", r.Status, r.Body)
	}
	h.finish(t, e, done, 2)
	if r := e.Do("GET", "/api/v1/site", nil); r.Status != 200 {
		t.Errorf("after the slots freed: %d", r.Status)
	}
}

// A request that finds every slot taken waits in line and completes when
// one frees, well within its queue timeout.
func TestAdmissionQueuedRequestCompletes(t *testing.T) {
	e, h, done := holding(t, routes.Options{MaxInFlight: 1, MaxInFlightWrites: 1, QueueTimeout: 30 * time.Second}, "GET", "/test/hold")
	queued := make(chan *apitest.Response, 1)
	go func() { queued <- e.Do("GET", "/api/v1/listings/quickbase", nil) }()
	waitFor(t, e, 1, 1) // it is in line, not running
	select {
	case r := <-queued:
		t.Fatalf("answered while the only slot was held: %d", r.Status)
	case <-time.After(50 * time.Millisecond):
	}
	close(h.release)
	if r := <-done; r.Status != http.StatusNoContent {
		t.Errorf("holding request: %d", r.Status)
	}
	if r := <-queued; r.Status != 200 || !strings.Contains(string(r.Body), `"slug":"quickbase"`) {
		t.Errorf("queued request: %d %s", r.Status, r.Body)
	}
	waitFor(t, e, 0, 0)
}

// The write lane has its own limit: one write holding it makes the next
// write wait (and be refused at its timeout) while reads go on.
func TestAdmissionWriteLane(t *testing.T) {
	e, h, done := holding(t, routes.Options{MaxInFlight: 4, MaxInFlightWrites: 1, QueueTimeout: 100 * time.Millisecond}, "POST", "/test/hold")
	if r := e.Do("PATCH", "/api/v1/me/listings/1", map[string]any{}); r.Status != http.StatusServiceUnavailable || r.Header.Get("Retry-After") == "" {
		t.Errorf("second write: %d %s", r.Status, r.Body)
	}
	if r := e.Do("GET", "/api/v1/site", nil); r.Status != 200 {
		t.Errorf("read while the write lane is full: %d", r.Status)
	}
	close(h.release)
	<-done
}

// Off (MaxInFlight 0), /healthz keeps its short shape.
func TestAdmissionOff(t *testing.T) {
	e := apitest.New(t, apitest.Options{Fixture: true})
	r := e.Do("GET", "/healthz", nil)
	if r.Status != 200 || strings.Contains(string(r.Body), "requests") {
		t.Errorf("healthz without admission control: %d %s", r.Status, r.Body)
	}
}

// Site pages have a narrow lane of their own: one page holding it makes the
// next page wait (and be refused at its timeout) while API reads go on; a
// freed slot lets the next page in.
func TestAdmissionPageLane(t *testing.T) {
	e, h, done := holding(t, routes.Options{MaxInFlight: 4, MaxInFlightWrites: 4, MaxInFlightPages: 1, QueueTimeout: 100 * time.Millisecond}, "GET", "/test/page")
	if r := e.Do("GET", "/launches/last", nil); r.Status != http.StatusServiceUnavailable || r.Header.Get("Retry-After") == "" {
		t.Errorf("second page while the page lane is full: %d %s", r.Status, r.Body)
	}
	if r := e.Do("GET", "/api/v1/site", nil); r.Status != 200 {
		t.Errorf("API read while the page lane is full: %d", r.Status)
	}
	h.finish(t, e, done, 1)
	if r := e.Do("GET", "/launches/last", nil); r.Status == http.StatusServiceUnavailable {
		t.Errorf("page after the lane emptied: %d", r.Status)
	}
}

// Pages share the read lane when they have none (MaxInFlightPages 0): a
// full read lane holds pages back too.
func TestAdmissionPagesShareReadLaneWhenOff(t *testing.T) {
	e, h, done := holding(t, routes.Options{MaxInFlight: 1, MaxInFlightWrites: 4, QueueTimeout: 100 * time.Millisecond}, "GET", "/test/hold")
	if r := e.Do("GET", "/launches/last", nil); r.Status != http.StatusServiceUnavailable {
		t.Errorf("page while the shared read lane is full: %d", r.Status)
	}
	close(h.release)
	<-done
}

// Files pages embed (media, badges) and the machine doors wait in the read
// lane, not behind pages.
func TestAdmissionMachinePathsSkipThePageLane(t *testing.T) {
	for _, c := range []struct {
		path string
		want bool
	}{
		{"/api/v1/site", true}, {"/mcp", true}, {"/oauth/authorize", true}, {"/.well-known/oauth-authorization-server", true},
		{"/media/abc.webp", true}, {"/badges/x.svg", true}, {"/problems/invalid", true}, {"/metrics", true}, {"/readyz", true},
		{"/", false}, {"/listings/quickbase", false}, {"/search", false}, {"/feeds/launches.atom", false}, {"/sitemap.xml", false},
	} {
		if got := routes.IsMachinePath(c.path); got != c.want {
			t.Errorf("IsMachinePath(%q) = %v, want %v", c.path, got, c.want)
		}
	}
}
