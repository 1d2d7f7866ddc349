package server

import (
	"bytes"
	"compress/gzip"
	"context"
	"database/sql"
	"encoding/json"
	"io"
	"log/slog"
	"net"
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"launchdir/replica"

	"github.com/klauspost/compress/zstd"
)

// syncBuffer is a log sink safe for the server's goroutines.
type syncBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (s *syncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

func (s *syncBuffer) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}

type testServer struct {
	*httptest.Server
	svc *Service
	log *syncBuffer
}

// startTest serves a new empty database through the real wiring (Start,
// wrapOps) with the serve flags in args.
func startTest(t *testing.T, args ...string) *testServer {
	t.Helper()
	c := DefaultConfig()
	fs := c.flags()
	args = append([]string{"-db", filepath.Join(t.TempDir(), "t.db"), "-demo=false", "-log-format", "json", "-rate", "0"}, args...)
	if err := ParseFlags(fs, args); err != nil {
		t.Fatal(err)
	}
	if err := c.Check(); err != nil {
		t.Fatal(err)
	}
	buf := &syncBuffer{}
	svc, err := Start(context.Background(), c, c.NewLogger(buf))
	if err != nil {
		t.Fatal(err)
	}
	ts := httptest.NewServer(svc.Handler)
	t.Cleanup(func() { ts.Close(); svc.Close() })
	return &testServer{Server: ts, svc: svc, log: buf}
}

func (ts *testServer) do(t *testing.T, method, path string, hdr map[string]string, body string) (*http.Response, []byte) {
	t.Helper()
	req, _ := http.NewRequest(method, ts.URL+path, strings.NewReader(body))
	for k, v := range hdr {
		req.Header.Set(k, v)
	}
	// Go's transport would ask for gzip itself and hide the encoding.
	tr := &http.Transport{DisableCompression: true}
	resp, err := (&http.Client{Transport: tr}).Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	return resp, b
}

// Requests through REST, MCP and the site are counted per operation or
// route, and the database, cache, queue and admission gauges are exposed.
func TestMetricsPerOperation(t *testing.T) {
	ts := startTest(t)
	if r, _ := ts.do(t, "GET", "/api/v1/listings?limit=2", nil, ""); r.StatusCode != 200 {
		t.Fatalf("listings: %d", r.StatusCode)
	}
	ts.do(t, "GET", "/api/v1/nope", nil, "")
	ts.do(t, "GET", "/", nil, "")
	mcpHdr := map[string]string{"Content-Type": "application/json", "Accept": "application/json, text/event-stream", "MCP-Protocol-Version": "2025-06-18"}
	r, b := ts.do(t, "POST", "/mcp", mcpHdr, `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"search_listings","arguments":{"limit":1}}}`)
	if r.StatusCode != 200 || !strings.Contains(string(b), `"result"`) {
		t.Fatalf("mcp tools/call: %d %s", r.StatusCode, b)
	}
	_, m := ts.do(t, "GET", "/metrics", nil, "")
	for _, want := range []string{
		`launchdir_http_requests_total{door="rest",method="GET",route="search_listings",status="200"} 1`,
		`launchdir_http_requests_total{door="mcp",method="POST",route="search_listings",status="200"} 1`,
		`launchdir_http_requests_total{door="site",method="GET",route="/",status="200"} 1`,
		`launchdir_http_requests_total{door="rest",method="GET",route="unmatched",status="404"} 1`,
		`launchdir_http_request_duration_seconds_count{door="rest",route="search_listings"} 1`,
		`launchdir_admission_waiting 0`,
		`launchdir_db_connections_open{pool="writer"}`,
		`launchdir_db_connection_waits_total{pool="readers"}`,
		`launchdir_read_cache_misses_total`,
		`launchdir_db_write_batch_size_bucket{le="1"}`,
		`launchdir_queue_items{queue="outbox",status="pending"} 0`,
		`launchdir_queue_items{queue="drafts",status="crawling"} 0`,
		`go_goroutines`,
	} {
		if !strings.Contains(string(m), want) {
			t.Errorf("metrics lack %s", want)
		}
	}
	if t.Failed() {
		t.Log(string(m))
	}
}

// /metrics: loopback only by default; a token opens it to any address
// that presents it; an allow-list refuses other addresses.
func TestMetricsGuard(t *testing.T) {
	ts := startTest(t, "-metrics-token", "s3cret")
	for tok, want := range map[string]int{"": 401, "Bearer wrong": 401, "s3cret": 401, "Bearer s3cret": 200} {
		r, _ := ts.do(t, "GET", "/metrics", map[string]string{"Authorization": tok}, "")
		if r.StatusCode != want {
			t.Errorf("Authorization %q: %d, want %d", tok, r.StatusCode, want)
		}
	}
	other := startTest(t, "-metrics-allow", "10.0.0.0/8, 192.168.1.7")
	if r, _ := other.do(t, "GET", "/metrics", nil, ""); r.StatusCode != 404 {
		t.Fatalf("from 127.0.0.1 outside the list: %d", r.StatusCode)
	}
	// Behind a trusted proxy the forwarded address is the one checked.
	proxied := startTest(t, "-metrics-allow", "192.168.1.7", "-trust-proxy")
	for ip, want := range map[string]int{"192.168.1.7": 200, "192.168.1.8": 404} {
		if r, _ := proxied.do(t, "GET", "/metrics", map[string]string{"X-Forwarded-For": ip}, ""); r.StatusCode != want {
			t.Errorf("forwarded for %s: %d, want %d", ip, r.StatusCode, want)
		}
	}
	off := startTest(t, "-metrics=false")
	if r, _ := off.do(t, "GET", "/metrics", nil, ""); r.StatusCode != 404 {
		t.Fatalf("-metrics=false: %d", r.StatusCode)
	}
	for _, bad := range []string{"10.0.0.0/33", "nope"} {
		c := DefaultConfig()
		c.MetricsAllow = bad
		if c.Check() == nil {
			t.Errorf("-metrics-allow %q accepted", bad)
		}
	}
}

// Every request gets an id: the client's when short and plain, else a new
// one; it is in the response header, a problem body and the access log.
func TestRequestIDAndAccessLog(t *testing.T) {
	ts := startTest(t)
	long64 := strings.Repeat("a", 64)
	for sent, kept := range map[string]bool{"abc-123.x_y:z": true, long64: true, long64 + "a": false, "has space": false, "": false} {
		r, b := ts.do(t, "GET", "/api/v1/listings/no-such-listing", map[string]string{"X-Request-Id": sent}, "")
		id := r.Header.Get("X-Request-Id")
		if (id == sent) != kept || id == "" {
			t.Errorf("sent %q, got %q", sent, id)
		}
		var p struct {
			Status    int    `json:"status"`
			RequestID string `json:"request_id"`
		}
		if err := json.Unmarshal(b, &p); err != nil || p.Status != 404 || p.RequestID != id {
			t.Errorf("problem %s does not carry %q", b, id)
		}
	}
	r, _ := ts.do(t, "GET", "/api/v1/listings?limit=1", nil, "")
	id := r.Header.Get("X-Request-Id")
	var line map[string]any
	for _, l := range strings.Split(ts.log.String(), "\n") {
		if strings.Contains(l, id) {
			if err := json.Unmarshal([]byte(l), &line); err != nil {
				t.Fatal(err)
			}
		}
	}
	if line["msg"] != "request" || line["method"] != "GET" || line["route"] != "search_listings" || line["status"] != 200.0 ||
		line["bytes"].(float64) < 10 || line["duration_ms"] == nil || line["path"] != "/api/v1/listings" {
		t.Fatalf("access log line %v", line)
	}
	quiet := startTest(t, "-log-level", "warn")
	quiet.do(t, "GET", "/api/v1/listings?limit=1", nil, "")
	if strings.Contains(quiet.log.String(), `"msg":"request"`) {
		t.Fatal("access log at -log-level warn")
	}
	for _, bad := range [][2]string{{"-log-format", "xml"}, {"-log-level", "loud"}} {
		c := DefaultConfig()
		if err := ParseFlags(c.flags(), bad[:]); err != nil {
			t.Fatal(err)
		}
		if c.Check() == nil {
			t.Errorf("%v accepted", bad)
		}
	}
}

// /readyz fails while the database cannot take the write lock and when the
// migrations recorded are not this binary's.
func TestReadyz(t *testing.T) {
	ts := startTest(t)
	r, b := ts.do(t, "GET", "/readyz", nil, "")
	if r.StatusCode != 200 || !strings.Contains(string(b), `"database":"ok"`) || !strings.Contains(string(b), `"migrations":"ok"`) {
		t.Fatalf("readyz: %d %s", r.StatusCode, b)
	}
	// Another process holding the write lock (busy_timeout is 5 s, the
	// check gives up after 2 s).
	// busy_timeout: the server's own background jobs may hold the lock
	// for a moment at start; wait for them instead of failing.
	other, err := sql.Open("sqlite", "file:"+ts.svc.DB.Path+"?_pragma=busy_timeout(10000)")
	if err != nil {
		t.Fatal(err)
	}
	defer other.Close()
	conn, err := other.Conn(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	if _, err := conn.ExecContext(context.Background(), "BEGIN IMMEDIATE"); err != nil {
		t.Fatal(err)
	}
	r, b = ts.do(t, "GET", "/readyz", nil, "")
	conn.ExecContext(context.Background(), "ROLLBACK")
	conn.Close()
	if r.StatusCode != 503 || !strings.Contains(string(b), "not writable") {
		t.Fatalf("readyz with the write lock held: %d %s", r.StatusCode, b)
	}
	if _, err := ts.svc.DB.W.Exec(`DELETE FROM schema_migrations WHERE version = (SELECT max(version) FROM schema_migrations)`); err != nil {
		t.Fatal(err)
	}
	r, b = ts.do(t, "GET", "/readyz", nil, "")
	if r.StatusCode != 503 || !strings.Contains(string(b), "this binary expects") {
		t.Fatalf("readyz with a migration missing: %d %s", r.StatusCode, b)
	}
}

func TestReplicationLagBounds(t *testing.T) {
	if _, _, ok := replicationLag(nil); ok {
		t.Fatal("nil status read as replication")
	}
	if lag, in, ok := replicationLag(replica.FollowStatus{LagSeconds: 31, InSync: false}); !ok || lag != 31 || in {
		t.Fatal("follower status misread")
	}
	if lag, in, ok := replicationLag(replica.Status{LagSeconds: 2, InSync: true}); !ok || lag != 2 || !in {
		t.Fatal("replicator status misread")
	}
	for _, c := range []struct {
		replica bool
		lag     float64
		inSync  bool
		ready   bool
	}{
		{true, 30, false, true}, {true, 30.001, false, false}, {true, 300, true, true},
		{false, 300, false, true}, // a primary stays ready
	} {
		if _, ok := replicaReady(c.replica, c.lag, c.inSync, 30*time.Second); ok != c.ready {
			t.Errorf("%+v: ready %v", c, ok)
		}
	}
}

// pprof answers only on its own listener.
func TestPprofSeparateListener(t *testing.T) {
	ln, _ := net.Listen("tcp", "127.0.0.1:0")
	addr := ln.Addr().String()
	ln.Close()
	stop, err := startPprof(addr, nilLogger())
	if err != nil {
		t.Fatal(err)
	}
	defer stop()
	resp, err := http.Get("http://" + addr + "/debug/pprof/cmdline")
	if err != nil || resp.StatusCode != 200 {
		t.Fatalf("pprof: %v", err)
	}
	resp.Body.Close()
	ts := startTest(t)
	if r, _ := ts.do(t, "GET", "/debug/pprof/", nil, ""); r.StatusCode != 404 {
		t.Fatalf("pprof on the public listener: %d", r.StatusCode)
	}
}

// CORS: preflight and simple requests from listed origins get the headers
// (never Allow-Credentials); others get none.
func TestCORS(t *testing.T) {
	ts := startTest(t, "-cors-origins", "https://app.example.com, http://localhost:5173")
	pre := map[string]string{"Origin": "https://app.example.com", "Access-Control-Request-Method": "PATCH", "Access-Control-Request-Headers": "authorization, content-type"}
	r, _ := ts.do(t, "OPTIONS", "/api/v1/me", pre, "")
	h := r.Header
	if r.StatusCode != 204 || h.Get("Access-Control-Allow-Origin") != "https://app.example.com" || !strings.Contains(h.Get("Access-Control-Allow-Methods"), "PATCH") ||
		!strings.Contains(h.Get("Access-Control-Allow-Headers"), "Authorization") || h.Get("Access-Control-Allow-Credentials") != "" || !strings.Contains(strings.Join(h.Values("Vary"), ","), "Origin") {
		t.Fatalf("preflight: %d %v", r.StatusCode, h)
	}
	pre["Origin"] = "https://evil.example"
	if r, _ := ts.do(t, "OPTIONS", "/api/v1/me", pre, ""); r.Header.Get("Access-Control-Allow-Origin") != "" || r.Header.Get("Access-Control-Allow-Methods") != "" {
		t.Fatalf("preflight from another origin allowed: %v", r.Header)
	}
	// A signed-in call with a bearer token from the listed origin.
	key, _, err := ts.svc.App.People.CreateAPIKey(context.Background(), "ada@example.com", "app", []string{"account:read"})
	if err != nil {
		t.Fatal(err)
	}
	r, b := ts.do(t, "GET", "/api/v1/me", map[string]string{"Origin": "http://localhost:5173", "Authorization": "Bearer " + key}, "")
	if r.StatusCode != 200 || r.Header.Get("Access-Control-Allow-Origin") != "http://localhost:5173" ||
		!strings.Contains(r.Header.Get("Access-Control-Expose-Headers"), "ETag") || r.Header.Get("Access-Control-Allow-Credentials") != "" {
		t.Fatalf("bearer call: %d %v %s", r.StatusCode, r.Header, b)
	}
	// The site is not covered.
	if r, _ := ts.do(t, "GET", "/", map[string]string{"Origin": "https://app.example.com"}, ""); r.Header.Get("Access-Control-Allow-Origin") != "" {
		t.Fatal("CORS on a site page")
	}
	star := startTest(t, "-cors-origins", "*")
	r, _ = star.do(t, "GET", "/api/v1/listings?limit=1", map[string]string{"Origin": "https://any.example"}, "")
	if r.Header.Get("Access-Control-Allow-Origin") != "*" || r.Header.Get("Access-Control-Allow-Credentials") != "" {
		t.Fatalf("*: %v", r.Header)
	}
	none := startTest(t)
	if r, _ := none.do(t, "OPTIONS", "/api/v1/me", pre, ""); r.Header.Get("Access-Control-Allow-Origin") != "" {
		t.Fatal("CORS without -cors-origins")
	}
	for _, bad := range []string{"*,https://a.example", "https://a.example/path", "ftp://a.example", "a.example", "https://u@a.example"} {
		if _, err := parseOrigins(bad); err == nil {
			t.Errorf("-cors-origins %q accepted", bad)
		}
	}
}

// Compression: zstd or gzip as asked, the same bytes once decoded, weak
// ETags on compressed bodies, 304s on revalidation either way.
func TestCompressionKeepsETags(t *testing.T) {
	ts := startTest(t)
	r, plain := ts.do(t, "GET", "/api/v1/openapi.json", nil, "")
	strong := r.Header.Get("ETag")
	if r.Header.Get("Content-Encoding") != "" || !strings.HasPrefix(strong, `"`) || len(plain) < 100_000 {
		t.Fatalf("identity: %v %d bytes", r.Header, len(plain))
	}
	for _, enc := range []string{"zstd", "gzip"} {
		r, body := ts.do(t, "GET", "/api/v1/openapi.json", map[string]string{"Accept-Encoding": enc}, "")
		if r.Header.Get("Content-Encoding") != enc || r.Header.Get("ETag") != "W/"+strong || !strings.Contains(r.Header.Get("Vary"), "Accept-Encoding") {
			t.Fatalf("%s: %v", enc, r.Header)
		}
		if got := decode(t, enc, body); !bytes.Equal(got, plain) {
			t.Fatalf("%s: decoded body differs", enc)
		}
		if len(body)*4 > len(plain) {
			t.Errorf("%s: %d bytes of %d", enc, len(body), len(plain))
		}
		r, _ = ts.do(t, "GET", "/api/v1/openapi.json", map[string]string{"Accept-Encoding": enc, "If-None-Match": r.Header.Get("ETag")}, "")
		if r.StatusCode != 304 || r.Header.Get("ETag") != "W/"+strong {
			t.Fatalf("%s revalidation: %d %v", enc, r.StatusCode, r.Header)
		}
	}
	if r, _ := ts.do(t, "GET", "/api/v1/openapi.json", map[string]string{"If-None-Match": strong}, ""); r.StatusCode != 304 || r.Header.Get("ETag") != strong {
		t.Fatalf("identity revalidation: %d %v", r.StatusCode, r.Header)
	}
	// Preferences: gzip weighted above zstd wins.
	if r, _ := ts.do(t, "GET", "/api/v1/openapi.json", map[string]string{"Accept-Encoding": "gzip;q=1.0, zstd;q=0.5"}, ""); r.Header.Get("Content-Encoding") != "gzip" {
		t.Fatalf("q-values: %v", r.Header)
	}
	// HTML pages too; tiny bodies (under 1 KB) stay as they are.
	if r, _ := ts.do(t, "GET", "/", map[string]string{"Accept-Encoding": "gzip"}, ""); r.Header.Get("Content-Encoding") != "gzip" {
		t.Fatalf("home page: %v", r.Header)
	}
	if r, _ := ts.do(t, "GET", "/healthz", map[string]string{"Accept-Encoding": "gzip"}, ""); r.Header.Get("Content-Encoding") != "" {
		t.Fatalf("healthz compressed: %v", r.Header)
	}
}

// Raster images and event streams are never compressed; SVG is.
func TestCompressionSkipsImages(t *testing.T) {
	big := bytes.Repeat([]byte("launchdir "), 500)
	for ct, want := range map[string]string{"image/png": "", "image/jpeg": "", "image/webp": "", "text/event-stream": "", "image/svg+xml": "zstd", "application/feed+json": "zstd", "application/atom+xml": "zstd"} {
		h := compress(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			w.Header().Set("Content-Type", ct)
			w.Header().Set("ETag", `"x"`)
			w.Write(big)
		}))
		rec := httptest.NewRecorder()
		req := httptest.NewRequest("GET", "/", nil)
		req.Header.Set("Accept-Encoding", "zstd, gzip")
		h.ServeHTTP(rec, req)
		if got := rec.Header().Get("Content-Encoding"); got != want {
			t.Errorf("%s: Content-Encoding %q, want %q", ct, got, want)
		}
		if wantTag := map[bool]string{true: `W/"x"`, false: `"x"`}[want != ""]; rec.Header().Get("ETag") != wantTag {
			t.Errorf("%s: ETag %q", ct, rec.Header().Get("ETag"))
		}
	}
}

func decode(t *testing.T, enc string, b []byte) []byte {
	t.Helper()
	var r io.Reader
	switch enc {
	case "gzip":
		g, err := gzip.NewReader(bytes.NewReader(b))
		if err != nil {
			t.Fatal(err)
		}
		r = g
	default:
		z, err := zstd.NewReader(bytes.NewReader(b))
		if err != nil {
			t.Fatal(err)
		}
		defer z.Close()
		r = z
	}
	out, err := io.ReadAll(r)
	if err != nil {
		t.Fatal(err)
	}
	return out
}

func nilLogger() *slog.Logger { return slog.New(slog.NewTextHandler(io.Discard, nil)) }
