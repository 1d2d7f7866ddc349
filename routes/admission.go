package routes

import (
	"context"
	"net/http"
	"strings"
	"sync/atomic"
	"time"

	"launchdir/ops"

	"golang.org/x/sync/semaphore"
)

// Admission control: at most a fixed number of requests run handlers at
// once; the rest wait their turn in arrival order (semaphore.Weighted is
// FIFO) for up to a deadline, then get a 503 problem with Retry-After. On
// two cores, letting 64 requests encode JSON and hold SQLite connections at
// the same time only adds context switches, cache misses and live heap: the
// same work done by a bounded set finishes sooner, and overload shows up as
// queueing (bounded memory, ordered service) instead of thrash.
//
// Reads (GET, HEAD) and writes (everything else) have separate lanes: a
// write mostly waits for the one writer connection, and a burst of writes
// holding every slot would otherwise stall reads behind them.
//
// The site's pages (every read outside IsMachinePath) have a third,
// narrow lane: a page is a dozen reads and a template, about 1 ms of CPU
// against 50 µs for an API read, so eight pages at once on two cores take
// turns at random, and the unlucky one waits behind all the others (issue
// 26: the listing page beside a writer, p99 22.4-25.4 ms with 8 in flight,
// 14.5-17.5 ms with 3, same throughput). With one slot per core plus one,
// pages queue in order instead. The files pages embed (media, badges) are
// single reads and stay in the read lane, so they never wait behind pages.
//
// Not covered, so they are never starved by a busy server: /healthz (a
// load balancer must see a saturated server as alive) and the site's static
// files (/static/, embedded, no database). The rate limiter runs first, so
// a refused client never takes a queue place.
type admission struct {
	reads, writes    *semaphore.Weighted
	pages            *semaphore.Weighted // nil: pages share the read lane
	wait             time.Duration
	running, waiting atomic.Int64 // reported by /healthz
}

// newAdmission returns nil (no admission control) when limit <= 0. A
// pageLimit <= 0 leaves pages in the read lane.
func newAdmission(limit, writeLimit, pageLimit int, wait time.Duration) *admission {
	if limit <= 0 {
		return nil
	}
	if writeLimit <= 0 {
		writeLimit = limit
	}
	if wait <= 0 {
		wait = DefaultQueueTimeout
	}
	a := &admission{reads: semaphore.NewWeighted(int64(limit)), writes: semaphore.NewWeighted(int64(writeLimit)), wait: wait}
	if pageLimit > 0 {
		a.pages = semaphore.NewWeighted(int64(pageLimit))
	}
	return a
}

// machinePrefixes are the paths that are not the site's pages: the doors
// for programs (API, MCP, OAuth), what pages embed or link to as files
// (badges, media, problem types), webhooks and the operator's endpoints.
var machinePrefixes = []string{"/api/", "/mcp", "/oauth", "/.well-known/", "/badges/", "/media/", "/problems/", "/webhooks/", "/metrics", "/readyz"}

// IsMachinePath reports whether p is served to programs rather than as a
// site page: such reads wait in the read lane, not the pages' lane, and
// the site answers them with problem+json, not an HTML error page.
func IsMachinePath(p string) bool {
	for _, pre := range machinePrefixes {
		if strings.HasPrefix(p, pre) {
			return true
		}
	}
	return false
}

// lane is the semaphore r waits on.
func (a *admission) lane(r *http.Request) *semaphore.Weighted {
	if r.Method != http.MethodGet && r.Method != http.MethodHead {
		return a.writes
	}
	if a.pages == nil || IsMachinePath(r.URL.Path) {
		return a.reads
	}
	return a.pages
}

// DefaultQueueTimeout is how long a request waits for a slot by default.
const DefaultQueueTimeout = 5 * time.Second

// exempt reports the routes admission control does not cover.
func exempt(r *http.Request) bool {
	return r.URL.Path == "/healthz" || strings.HasPrefix(r.URL.Path, "/static/")
}

// enter takes a slot for r, waiting in line up to a.wait. It returns the
// release function, or nil after writing a 503 (or when the client left).
func (a *admission) enter(w http.ResponseWriter, r *http.Request) func() {
	sem := a.lane(r)
	release := func() { a.running.Add(-1); sem.Release(1) }
	if sem.TryAcquire(1) {
		a.running.Add(1)
		return release
	}
	ctx, cancel := context.WithTimeout(r.Context(), a.wait)
	defer cancel()
	a.waiting.Add(1)
	err := sem.Acquire(ctx, 1)
	a.waiting.Add(-1)
	if err != nil {
		if r.Context().Err() != nil { // the client gave up: nobody to answer
			return nil
		}
		writeProblem(w, r, &ops.Error{Code: ops.CodeUnavailable, RetryAfter: time.Second,
			Detail: "the server is at capacity and this request waited " + a.wait.String() + " for its turn; retry shortly"})
		return nil
	}
	a.running.Add(1)
	return release
}

// status is the admission part of /healthz.
func (a *admission) status() map[string]int64 {
	return map[string]int64{"running": a.running.Load(), "waiting": a.waiting.Load()}
}
