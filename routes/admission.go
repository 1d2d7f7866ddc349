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
// Not covered, so they are never starved by a busy server: /healthz (a
// load balancer must see a saturated server as alive) and the site's static
// files (/static/, embedded, no database). The rate limiter runs first, so
// a refused client never takes a queue place.
type admission struct {
	reads, writes    *semaphore.Weighted
	wait             time.Duration
	running, waiting atomic.Int64 // reported by /healthz
}

// newAdmission returns nil (no admission control) when limit <= 0.
func newAdmission(limit, writeLimit int, wait time.Duration) *admission {
	if limit <= 0 {
		return nil
	}
	if writeLimit <= 0 {
		writeLimit = limit
	}
	if wait <= 0 {
		wait = DefaultQueueTimeout
	}
	return &admission{reads: semaphore.NewWeighted(int64(limit)), writes: semaphore.NewWeighted(int64(writeLimit)), wait: wait}
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
	sem := a.reads
	if r.Method != http.MethodGet && r.Method != http.MethodHead {
		sem = a.writes
	}
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
