// Package routes is the REST door: one file registers every route, all
// generated from the operations table; handlers read decode → validate →
// call → respond.
package routes

import (
	"context"
	"net/http"
	"strings"
	"sync"
	"time"

	"launchdir/app"
	"launchdir/ops"

	"github.com/julienschmidt/httprouter"
)

// Options configures the HTTP layer.
type Options struct {
	RatePerSecond float64 // per client; 0 disables
	RateBurst     int
	TrustProxy    bool  // take the client address from X-Forwarded-For
	MaxBodyBytes  int64 // request body cap
	// Replication, when set, reports the replica's position and lag in
	// /healthz (nil: not replicating).
	Replication func() any
	// MaxInFlight bounds the reads (GET, HEAD) running handlers at once and
	// MaxInFlightWrites the other methods (0: as many as reads); the rest
	// wait in line up to QueueTimeout, then get 503 (see admission.go).
	// MaxInFlight 0 turns admission control off.
	MaxInFlight, MaxInFlightWrites int
	// MaxInFlightPages bounds the site's pages (reads outside
	// IsMachinePath) in a lane of their own; 0 leaves them in the read lane.
	MaxInFlightPages int
	QueueTimeout     time.Duration
	// BodyGrace is the fixed part of the time a request body may take to
	// arrive before admission (see bodies.go); 0 means 10 s.
	BodyGrace time.Duration
}

// Server is the HTTP handler of the whole binary.
type Server struct {
	App     *app.App
	Opts    Options
	router  *httprouter.Router
	limiter *limiter
	admit   *admission
	bodies  *bodyBuffer
	openapi sync.Map // site key and origin -> OpenAPI document
	metrics *Metrics // observe.go
}

// New builds the router from the operations table.
func New(a *app.App, o Options) (*Server, error) {
	if o.MaxBodyBytes == 0 {
		o.MaxBodyBytes = 1 << 20
	}
	s := &Server{App: a, Opts: o, router: httprouter.New(), metrics: newMetrics()}
	if o.RatePerSecond > 0 {
		s.limiter = newLimiter(o.RatePerSecond, o.RateBurst)
	}
	s.admit = newAdmission(o.MaxInFlight, o.MaxInFlightWrites, o.MaxInFlightPages, o.QueueTimeout)
	s.bodies = newBodyBuffer(o.BodyGrace)
	if _, err := OpenAPI(context.Background(), a); err != nil {
		return nil, err
	}
	r := s.router
	r.HandleMethodNotAllowed = true
	r.RedirectTrailingSlash = false
	r.RedirectFixedPath = false // a wrong path is a 404 problem, not an HTML redirect
	r.NotFound = http.HandlerFunc(func(w http.ResponseWriter, req *http.Request) {
		writeProblem(w, req, ops.Errorf(ops.CodeNotFound, "no such path: %s", req.URL.Path))
	})
	r.MethodNotAllowed = http.HandlerFunc(func(w http.ResponseWriter, req *http.Request) {
		writeProblem(w, req, ops.Errorf(ops.CodeMethodNotAllowed, "%s is not allowed here; allowed: %s", req.Method, w.Header().Get("Allow")))
	})
	r.PanicHandler = func(w http.ResponseWriter, req *http.Request, v any) {
		a.Log.Error("panic", "path", req.URL.Path, "panic", v)
		writeProblem(w, req, &ops.Error{Code: ops.CodeInternal, Detail: "an unexpected error occurred"})
	}
	for _, op := range a.Table.Ops {
		h := s.operationHandler(op)
		r.Handle(op.Method, "/api/v1"+op.Path, h)
		if op.Method == http.MethodGet {
			r.Handle(http.MethodHead, "/api/v1"+op.Path, h) // net/http drops the body
		}
	}
	r.GET("/api/v1/openapi.json", s.serveOpenAPI)
	r.GET("/healthz", s.healthz)
	r.GET("/badges/:file", s.badge)
	r.GET("/media/:file", s.mediaFile)
	r.HEAD("/media/:file", s.mediaFile)
	r.GET("/problems/:code", s.problemDoc)
	r.GET("/bot", s.botPage)
	r.GET("/claims/email/:token", s.claimEmail)
	r.POST("/claims/email/:token", s.claimEmailConfirm)
	return s, nil
}

// ServeHTTP applies the per-client rate limit, then admission control,
// before routing.
func (s *Server) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	r, ok := s.routeSite(w, r)
	if !ok {
		return
	}
	if s.limiter != nil && !strings.HasPrefix(r.URL.Path, "/healthz") {
		if !s.limiter.allow(w, r, s.clientKey(r)) {
			return
		}
	}
	if s.admit != nil && !exempt(r) {
		if hasBody(r) {
			done := s.bodies.read(w, r)
			if done == nil {
				return
			}
			defer done()
		}
		release := s.admit.enter(w, r)
		if release == nil {
			return
		}
		defer release()
	}
	s.router.ServeHTTP(w, r)
}

// Router exposes the router so other doors can mount routes.
func (s *Server) Router() *httprouter.Router { return s.router }

// Handle mounts another door (MCP, OAuth, checkout) behind the same rate
// limit. Path uses httprouter syntax.
func (s *Server) Handle(method, path string, h http.Handler) {
	s.router.Handler(method, path, labelled(path, h))
}
