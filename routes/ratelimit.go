package routes

import (
	"math"
	"net"
	"net/http"
	"strconv"
	"strings"
	"sync"
	"time"

	"launchdir/ops"

	"golang.org/x/time/rate"
)

// limiter is a token bucket per client. Idle buckets are dropped so the map
// cannot grow without bound.
type limiter struct {
	mu      sync.Mutex
	perSec  rate.Limit
	burst   int
	clients map[string]*bucket
	lastGC  time.Time
}

type bucket struct {
	lim  *rate.Limiter
	seen time.Time
}

func newLimiter(perSec float64, burst int) *limiter {
	if burst < 1 {
		burst = int(math.Max(1, perSec*2))
	}
	return &limiter{perSec: rate.Limit(perSec), burst: burst, clients: map[string]*bucket{}, lastGC: time.Now()}
}

func (l *limiter) get(key string, now time.Time) *rate.Limiter {
	l.mu.Lock()
	defer l.mu.Unlock()
	if now.Sub(l.lastGC) > time.Minute {
		for k, b := range l.clients {
			if now.Sub(b.seen) > 10*time.Minute {
				delete(l.clients, k)
			}
		}
		l.lastGC = now
	}
	b, ok := l.clients[key]
	if !ok {
		b = &bucket{lim: rate.NewLimiter(l.perSec, l.burst)}
		l.clients[key] = b
	}
	b.seen = now
	return b.lim
}

// allow takes a token for key and sets the RateLimit headers; on refusal it
// writes a 429 problem with Retry-After.
func (l *limiter) allow(w http.ResponseWriter, req *http.Request, key string) bool {
	now := time.Now()
	lim := l.get(key, now)
	r := lim.ReserveN(now, 1)
	delay := r.DelayFrom(now)
	h := w.Header()
	quota, window := l.policy()
	h.Set("RateLimit-Limit", strconv.Itoa(quota))
	h.Set("RateLimit-Policy", strconv.Itoa(quota)+";w="+strconv.Itoa(window)+";burst="+strconv.Itoa(l.burst))
	if delay > 0 {
		r.CancelAt(now)
		h.Set("RateLimit-Remaining", "0")
		h.Set("RateLimit-Reset", strconv.Itoa(int(math.Ceil(delay.Seconds()))))
		writeProblem(w, req, &ops.Error{Code: ops.CodeRateLimited, Detail: "too many requests from this client; slow down", RetryAfter: delay})
		return false
	}
	remaining := int(lim.TokensAt(now))
	// Remaining never exceeds Limit: a client pacing itself by these two
	// headers stays within the sustained rate; the burst above it is in the
	// policy's burst parameter.
	h.Set("RateLimit-Remaining", strconv.Itoa(min(quota, max(0, remaining))))
	h.Set("RateLimit-Reset", strconv.Itoa(int(math.Ceil(float64(l.burst-remaining)/float64(l.perSec)))))
	return true
}

// policy is the sustained rate as quota per window in seconds (20/s is
// "20;w=1"; 0.5/s is "1;w=2"; 2.5/s is "150;w=60"): RateLimit-Limit
// advertises what a client may keep sending, not the one-off burst.
func (l *limiter) policy() (quota, window int) {
	r := float64(l.perSec)
	switch {
	case r >= 1 && r == math.Trunc(r):
		return int(r), 1
	case r < 1 && 1/r == math.Trunc(1/r):
		return 1, int(1 / r)
	default:
		return max(1, int(r*60)), 60
	}
}

// clientKey identifies the caller for rate limiting: the peer address, or,
// behind a trusted proxy, the address that proxy saw: the LAST
// X-Forwarded-For hop (earlier hops are whatever the client sent).
func (s *Server) clientKey(r *http.Request) string {
	if s.Opts.TrustProxy {
		if xff := r.Header.Values("X-Forwarded-For"); len(xff) > 0 {
			hops := strings.Split(xff[len(xff)-1], ",")
			if last := strings.TrimSpace(hops[len(hops)-1]); last != "" {
				return last
			}
		}
	}
	host, _, err := net.SplitHostPort(r.RemoteAddr)
	if err != nil {
		return r.RemoteAddr
	}
	return host
}

// ClientIP is the client address the rate limits use (other doors key
// their own limits on it).
func (s *Server) ClientIP(r *http.Request) string { return s.clientKey(r) }
