package routes

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"log/slog"
	"net/http"
	"strconv"
	"strings"
	"sync/atomic"
	"time"

	"launchdir/ops"

	"github.com/prometheus/client_golang/prometheus"
)

// Observability of the HTTP layer: every request gets an id (the client's
// X-Request-Id when it is sane, else a fresh one), echoed in the response
// header and in problem bodies, one access log line, and a count and a
// latency observation labelled by door and route. The route is the
// operation id for REST and MCP tool calls, and the registered path
// pattern for everything else, never the raw path: a label per URL would
// grow without bound.

type ctxKey int

const reqInfoKey ctxKey = iota

// reqInfo travels in the request context; handlers fill in the route.
type reqInfo struct {
	id    string
	route atomic.Pointer[string]
}

// RequestID is the request's id ("" outside a request).
func RequestID(ctx context.Context) string {
	if ri, ok := ctx.Value(reqInfoKey).(*reqInfo); ok {
		return ri.id
	}
	return ""
}

// SetRoute names the route of the request being served, for the access
// log and the metrics (an operation id, a tool name or a path pattern).
func SetRoute(ctx context.Context, route string) {
	if ri, ok := ctx.Value(reqInfoKey).(*reqInfo); ok {
		ri.route.Store(&route)
	}
}

// requestID keeps a client's id when it is short and plain (so a log line
// cannot be forged through it), else makes one.
func requestID(r *http.Request) string {
	if id := r.Header.Get("X-Request-Id"); id != "" && len(id) <= 64 && strings.Trim(id, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789-_.:") == "" {
		return id
	}
	var b [12]byte
	rand.Read(b[:])
	return hex.EncodeToString(b[:])
}

// door classifies a path for the metrics' door label.
func door(path string) string {
	switch {
	case strings.HasPrefix(path, "/api/"):
		return "rest"
	case path == "/mcp" || strings.HasPrefix(path, "/mcp/"):
		return "mcp"
	case strings.HasPrefix(path, "/oauth") || strings.HasPrefix(path, "/.well-known/"):
		return "oauth"
	case path == "/metrics" || path == "/healthz" || path == "/readyz":
		return "ops"
	}
	return "site"
}

// Metrics is the HTTP layer's instruments, in their own registry (one per
// Server, so tests can run several servers in one process).
type Metrics struct {
	Registry *prometheus.Registry
	requests *prometheus.CounterVec
	duration *prometheus.HistogramVec
	bytes    *prometheus.CounterVec
}

func newMetrics() *Metrics {
	m := &Metrics{
		Registry: prometheus.NewRegistry(),
		requests: prometheus.NewCounterVec(prometheus.CounterOpts{Name: "launchdir_http_requests_total",
			Help: "HTTP requests answered, by door (rest, mcp, site, oauth, ops), route (operation id, MCP tool or path pattern), method and status."},
			[]string{"door", "route", "method", "status"}),
		duration: prometheus.NewHistogramVec(prometheus.HistogramOpts{Name: "launchdir_http_request_duration_seconds",
			Help:    "Time from the request's arrival to the end of its response (queueing included), by door and route.",
			Buckets: []float64{.001, .0025, .005, .01, .025, .05, .1, .25, .5, 1, 2.5, 5, 10, 30, 60}},
			[]string{"door", "route"}),
		bytes: prometheus.NewCounterVec(prometheus.CounterOpts{Name: "launchdir_http_response_bytes_total",
			Help: "Response body bytes written (after compression), by door."}, []string{"door"}),
	}
	m.Registry.MustRegister(m.requests, m.duration, m.bytes)
	return m
}

// statusWriter records what the handler sent.
type statusWriter struct {
	http.ResponseWriter
	status int
	bytes  int64
}

func (w *statusWriter) WriteHeader(code int) {
	if w.status == 0 {
		w.status = code
	}
	w.ResponseWriter.WriteHeader(code)
}

func (w *statusWriter) Write(b []byte) (int, error) {
	if w.status == 0 {
		w.status = http.StatusOK
	}
	n, err := w.ResponseWriter.Write(b)
	w.bytes += int64(n)
	return n, err
}

// Unwrap lets http.ResponseController reach Flush and deadlines (the MCP
// transport streams).
func (w *statusWriter) Unwrap() http.ResponseWriter { return w.ResponseWriter }

func (w *statusWriter) Flush() {
	if f, ok := w.ResponseWriter.(http.Flusher); ok {
		f.Flush()
	}
}

// Observe wraps the whole handler (outermost): request id, access log
// line at Info, metrics. The access log goes to log (nil: none).
func (s *Server) Observe(next http.Handler, log *slog.Logger) http.Handler {
	m := s.metrics
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		start := time.Now()
		ri := &reqInfo{id: requestID(r)}
		w.Header().Set("X-Request-Id", ri.id)
		sw := &statusWriter{ResponseWriter: w}
		next.ServeHTTP(sw, r.WithContext(context.WithValue(r.Context(), reqInfoKey, ri)))
		if sw.status == 0 {
			sw.status = http.StatusOK
		}
		// Operations name their route (SetRoute); matching the path
		// against the router again is for the rest only.
		var route string
		if p := ri.route.Load(); p != nil {
			route = *p
		} else {
			route = s.pattern(r)
		}
		d := door(r.URL.Path)
		took := time.Since(start)
		m.requests.WithLabelValues(d, route, r.Method, strconv.Itoa(sw.status)).Inc()
		m.duration.WithLabelValues(d, route).Observe(took.Seconds())
		m.bytes.WithLabelValues(d).Add(float64(sw.bytes))
		if log != nil {
			log.LogAttrs(r.Context(), slog.LevelInfo, AccessLogMessage, slog.String("method", r.Method), slog.String("path", r.URL.Path),
				slog.String("route", route), slog.Int("status", sw.status), slog.Int64("bytes", sw.bytes),
				slog.Float64("duration_ms", float64(took.Microseconds())/1000), slog.String("request_id", ri.id),
				slog.String("client", s.clientKey(r)))
		}
	})
}

// AccessLogMessage is the message of the access log's line per request
// (the server writes those in batches: server/logbuffer.go).
const AccessLogMessage = "request"

// pattern is the registered route r matched, with its parameters' names
// in place of their values ("unmatched" when none did), for routes whose
// handlers do not name themselves.
func (s *Server) pattern(r *http.Request) string {
	h, ps, _ := s.router.Lookup(r.Method, r.URL.Path)
	if h == nil {
		return "unmatched"
	}
	segs := strings.Split(r.URL.Path, "/")
	for _, p := range ps {
		for i := len(segs) - 1; i >= 0; i-- {
			if segs[i] == strings.TrimPrefix(p.Value, "/") {
				segs[i] = ":" + p.Key
				break
			}
		}
	}
	return strings.Join(segs, "/")
}

// Metrics is this server's instruments (other packages add collectors to
// its Registry).
func (s *Server) Metrics() *Metrics { return s.metrics }

// AdmissionStatus is the admission queue: requests running handlers and
// waiting for a slot; ok is false when admission control is off.
func (s *Server) AdmissionStatus() (running, waiting int64, ok bool) {
	if s.admit == nil {
		return 0, 0, false
	}
	return s.admit.running.Load(), s.admit.waiting.Load(), true
}

// labelled wraps a handler mounted by another door so its requests carry
// the path pattern as their route.
func labelled(pattern string, h http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		SetRoute(r.Context(), pattern)
		h.ServeHTTP(w, r)
	})
}

// corsDoc is the OpenAPI description's word on calls from browsers and on
// request ids (CORS itself is applied by the server package, server/cors.go).
const corsDoc = "Browser apps on another origin may call /api/v1 when the operator lists that origin (`launchdir serve -cors-origins`): " +
	"preflights are answered, bearer tokens in Authorization work, cookies never do (no credentialed CORS), and ETag, Location, Retry-After, " +
	"Idempotent-Replayed, WWW-Authenticate, X-Request-Id and the RateLimit-* headers are exposed. Every response carries X-Request-Id " +
	"(yours when you send a short one of letters, digits and -_.:), repeated as `request_id` in problem bodies."

// problemBody is the problem document with the request's id, so a user
// reporting an error can quote it and the operator find the log line.
func problemBody(r *http.Request, e *ops.Error) []byte {
	p := ops.ProblemFor(e)
	p.RequestID = RequestID(r.Context())
	b, _ := json.Marshal(p)
	return b
}
