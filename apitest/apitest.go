// Package apitest starts the real HTTP stack on a temporary SQLite file for
// tests of every door (REST, MCP, checkout).
package apitest

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
	"time"

	"launchdir/app"
	"launchdir/app/drafting"
	"launchdir/app/kernel"
	"launchdir/crawl"
	"launchdir/db"
	"launchdir/ops"
	"launchdir/routes"
)

// Now is the fixed clock of test environments: Wednesday of week 2026-11-16.
var Now = time.Date(2026, 11, 18, 12, 0, 0, 0, time.UTC)

// Env is a running test server.
type Env struct {
	T      testing.TB
	App    *app.App
	DB     *db.DB
	Server *httptest.Server
	Routes *routes.Server
	URL    string // server origin
}

// Options tweak the environment.
type Options struct {
	Fixture bool // load testdata/public_fixture.sql
	Routes  routes.Options
	Setup   func(*app.App) // runs before routes are built
	Log     io.Writer
	// Background runs the app's workers (draft pipeline, scheduler, outbox).
	Background bool
}

// New starts a server on a fresh database file.
func New(t testing.TB, o Options) *Env {
	t.Helper()
	ctx := context.Background()
	d, err := db.Open(ctx, filepath.Join(t.TempDir(), "test.db"))
	if err != nil {
		t.Fatal(err)
	}
	if o.Fixture {
		LoadSQL(t, d, "public_fixture.sql")
	}
	srv := httptest.NewUnstartedServer(nil)
	base := "http://" + srv.Listener.Addr().String()
	ops.ProblemTypeBase = base + "/problems/"
	w := o.Log
	if w == nil {
		w = io.Discard
	}
	a, err := app.New(d, kernel.Config{BaseURL: base, SiteName: "Test Directory"}, slog.New(slog.NewTextHandler(w, nil)))
	if err != nil {
		t.Fatal(err)
	}
	a.Now = func() time.Time { return Now }
	a.SetExternals(kernel.Externals{Images: TestCrawler()}) // image URLs from local servers
	a.Drafting.SetDraftPipeline(drafting.DraftConfig{Crawler: TestCrawler(), Workers: 2})
	if o.Setup != nil {
		o.Setup(a)
	}
	rs, err := routes.New(a, o.Routes)
	if err != nil {
		t.Fatal(err)
	}
	srv.Config.Handler = rs
	srv.Start()
	e := &Env{T: t, App: a, DB: d, Server: srv, Routes: rs, URL: base}
	bg, stop := context.WithCancel(context.Background())
	done := make(chan struct{})
	if o.Background {
		go func() { a.RunBackground(bg); close(done) }()
	} else {
		close(done)
	}
	t.Cleanup(func() {
		writeValidatedCount()
		srv.Close()
		stop()
		<-done
		d.Close()
	})
	return e
}

// TestCrawler is the crawler of test environments: local fixture sites
// (SSRF guard off) and tiny politeness delays.
func TestCrawler() *crawl.Crawler {
	return crawl.New(crawl.Options{AllowPrivate: true, Timeout: 5 * time.Second, MaxCrawlDelay: 20 * time.Millisecond,
		UserAgent: "launchdirbot/1.0 (+http://launchdir.test/bot)"})
}

// TestdataDir finds the repository's testdata directory.
func TestdataDir() string {
	_, file, _, _ := runtime.Caller(0)
	return filepath.Join(filepath.Dir(file), "..", "testdata")
}

// LoadSQL runs a SQL file from testdata in one transaction.
func LoadSQL(t testing.TB, d *db.DB, name string) {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(TestdataDir(), name))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := d.W.Exec(string(b)); err != nil {
		t.Fatalf("load %s: %v", name, err)
	}
}

// Response is a finished request.
type Response struct {
	Status int
	Header http.Header
	Body   []byte
}

// JSON decodes the body into a generic map.
func (r *Response) JSON() map[string]any {
	var m map[string]any
	json.Unmarshal(r.Body, &m)
	return m
}

// Do sends a request; body may be nil, a string or any JSON-marshalable value.
func (e *Env) Do(method, path string, body any, headers ...string) *Response {
	e.T.Helper()
	var rd io.Reader
	switch b := body.(type) {
	case nil:
	case string:
		rd = strings.NewReader(b)
	case []byte:
		rd = bytes.NewReader(b)
	default:
		j, _ := json.Marshal(b)
		rd = bytes.NewReader(j)
	}
	if !strings.HasPrefix(path, "http") {
		path = e.URL + path
	}
	// Errorf, not Fatal: tests call Do from several goroutines.
	req, err := http.NewRequest(method, path, rd)
	if err != nil {
		e.T.Errorf("request %s %s: %v", method, path, err)
		return &Response{Header: http.Header{}}
	}
	if rd != nil {
		req.Header.Set("Content-Type", "application/json")
	}
	for i := 0; i+1 < len(headers); i += 2 {
		if strings.EqualFold(headers[i], "Host") { // the site a request is for
			req.Host = headers[i+1]
			continue
		}
		req.Header.Set(headers[i], headers[i+1])
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		e.T.Errorf("%s %s: %v", method, path, err)
		return &Response{Header: http.Header{}}
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	out := &Response{Status: resp.StatusCode, Header: resp.Header, Body: b}
	e.checkResponse(method, path, out)
	return out
}

// APIKey creates a user (if missing) and a key with the given scopes.
func (e *Env) APIKey(email string, scopes ...string) string {
	e.T.Helper()
	if len(scopes) == 0 {
		scopes = ops.AllScopes
	}
	secret, _, err := e.App.People.CreateAPIKey(context.Background(), email, "test", scopes)
	if err != nil {
		e.T.Fatal(err)
	}
	return secret
}

// Bearer returns the Authorization header pair for a key.
func Bearer(key string) []string { return []string{"Authorization", "Bearer " + key} }

// OrderItem builds an order item from key/value pairs.
func OrderItem(product string, kv ...any) map[string]any {
	m := map[string]any{"product": product}
	for i := 0; i+1 < len(kv); i += 2 {
		m[kv[i].(string)] = kv[i+1]
	}
	return m
}

// Order builds a quote/checkout body billed to the US (no VAT).
func Order(items ...map[string]any) map[string]any {
	list := make([]any, len(items))
	for i, x := range items {
		list[i] = x
	}
	return map[string]any{"items": list, "billing_country": "US"}
}
