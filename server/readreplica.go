package server

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"net/http/httputil"
	"net/url"
	"strconv"
	"strings"
	"sync/atomic"
	"time"

	"launchdir/app"
	"launchdir/db"
	"launchdir/mcp"
	"launchdir/oauth"
	"launchdir/ops"
	"launchdir/payments"
	"launchdir/replica"
	"launchdir/routes"
	"launchdir/site"
)

// Read replicas (README "Read replicas"): one primary takes every write and
// replicates with -replicate; each replica follows that replica URL into a
// local read-only copy and serves the public API, the website and MCP reads
// from it. Writes that reach a replica are redirected (307) to the primary;
// an MCP tool that writes answers with an error naming the primary.

func readReplicaFlags(fs *flag.FlagSet, c *Config) {
	fs.StringVar(&c.ReplicaOf, "replica-of", c.ReplicaOf, "serve as a read replica following this -replicate URL of the primary (file:///dir or s3://…); needs -primary-url")
	fs.StringVar(&c.PrimaryURL, "primary-url", c.PrimaryURL, "a read replica's primary, as clients reach it (https://host): writes are redirected there")
	fs.DurationVar(&c.FollowInterval, "replica-poll-interval", time.Second, "how often a read replica looks for the primary's new transactions")
	fs.StringVar(&c.ReplicaWrites, "replica-writes", "proxy", "what a read replica does with a write: proxy (forward it to -primary-url and relay the answer) or redirect (307 to -primary-url)")
}

func (c *Config) checkReadReplica() error {
	if c.ReplicaOf == "" {
		if c.PrimaryURL != "" {
			return errors.New("-primary-url is for a read replica: it needs -replica-of URL")
		}
		return nil
	}
	if err := replica.CheckURL(c.ReplicaOf); err != nil {
		return fmt.Errorf("bad -replica-of: %v", err)
	}
	if c.Replicate != "" || c.RestoreMissing {
		return errors.New("-replica-of cannot be combined with -replicate or -restore-if-missing: a read replica only follows its primary")
	}
	u, err := url.Parse(c.PrimaryURL)
	if c.PrimaryURL == "" || err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" || (u.Path != "" && u.Path != "/") {
		return fmt.Errorf("bad -primary-url %q: want the primary's origin, http(s)://host[:port]", c.PrimaryURL)
	}
	c.PrimaryURL = strings.TrimRight(c.PrimaryURL, "/")
	if strings.EqualFold(c.PrimaryURL, c.BaseURL) {
		return errors.New("-primary-url is this replica's own -base-url: it must reach the primary directly (e.g. its internal address), or every write would come back here")
	}
	if c.ReplicaWrites != "proxy" && c.ReplicaWrites != "redirect" {
		return fmt.Errorf("bad -replica-writes %q: proxy or redirect", c.ReplicaWrites)
	}
	if c.FollowInterval <= 0 {
		return errors.New("bad -replica-poll-interval: must be positive")
	}
	return nil
}

// startReadReplica copies (or resumes) the primary's database, opens it
// read-only and mounts every door; no background job runs on a replica:
// the primary's jobs write, and their effects arrive with its pages.
func startReadReplica(ctx context.Context, c *Config, log *slog.Logger) (*Service, error) {
	gcSettings()
	fol, err := replica.Follow(ctx, c.DB, replica.FollowOptions{URL: c.ReplicaOf, Interval: c.FollowInterval, Log: log})
	if err != nil {
		return nil, fmt.Errorf("read replica: %v", err)
	}
	d, err := db.OpenReplica(ctx, c.DB, db.Options{ReadConns: c.ReadConns, ReadCacheKB: c.ReadCacheMB * 1000})
	if err != nil {
		fol.Close()
		return nil, fmt.Errorf("read replica %s: %v", c.DB, err)
	}
	fol.OnApply(d.Invalidate) // cached reads retire with every applied batch
	gate := &schemaGate{}
	fol.OnApply(schemaWatch(d, log, gate))
	fail := func(err error) (*Service, error) {
		d.Close()
		fol.Close()
		return nil, err
	}
	ops.ProblemTypeBase = c.BaseURL + "/problems/"
	a, err := app.New(d, c.kernelConfig(), log)
	if err != nil {
		return fail(err)
	}
	a.Exec.Primary = c.PrimaryURL
	if err := wireExternals(a, c); err != nil {
		return fail(err)
	}
	srv, err := routes.New(a, routes.Options{RatePerSecond: c.RatePerSecond, RateBurst: c.RateBurst, TrustProxy: c.TrustProxy,
		MaxInFlight: c.MaxInFlight, MaxInFlightWrites: c.MaxWrites, MaxInFlightPages: c.MaxPages, QueueTimeout: c.QueueTimeout,
		Replication: func() any {
			st := fol.Status()
			st.Primary = c.PrimaryURL
			if reason := gate.reason(); reason != "" {
				st.InSync, st.Error = false, reason
			}
			return st
		}})
	if err != nil {
		return fail(err)
	}
	pay := payments.ConfigFromEnv()
	pay.Provider = c.Payments
	if _, err := payments.Setup(a, srv, pay); err != nil {
		return fail(err)
	}
	oauth.New(a, oauth.Options{}).Mount(srv)
	mcp.Mount(srv, a)
	if _, err := site.Mount(srv, a, a.People); err != nil {
		return fail(err)
	}
	log.Info("read replica", "primary", c.PrimaryURL, "follows", replica.Redact(c.ReplicaOf))
	return &Service{App: a, Handler: wrapOps(c, srv, gate.wrap(toPrimary(srv, c, a)), d, log), cancel: func() {}, DB: d, fol: fol}, nil
}

// schemaWatch checks the copy's schema after every applied batch. When the
// primary's schema moves away from this binary's (the primary was upgraded)
// the replica stops serving: its queries were written for the old schema,
// and answering from a schema it does not know could be wrong in ways no
// test covers. It says why on every answer and on /readyz (503) until it
// is restarted with the primary's version; /healthz stays up and reports
// the reason. A binary cannot learn a newer schema, so "catching up" means
// that restart.
func schemaWatch(d *db.DB, log *slog.Logger, gate *schemaGate) func() {
	return func() {
		err := d.CheckReplicaSchema(context.Background())
		if err == nil {
			gate.set("")
			return
		}
		if gate.set(err.Error()) {
			log.Error("the primary's schema changed: this replica stops serving until it is restarted with the primary's launchdir version", "err", err)
		}
	}
}

// schemaGate holds why a replica stopped serving ("" while it serves).
type schemaGate struct{ why atomic.Pointer[string] }

// set records the reason and reports whether it changed.
func (g *schemaGate) set(reason string) bool {
	old := g.why.Swap(&reason)
	return old == nil && reason != "" || old != nil && *old != reason
}

func (g *schemaGate) reason() string {
	if p := g.why.Load(); p != nil {
		return *p
	}
	return ""
}

// wrap refuses everything but /healthz while stopped (so /readyz is 503
// with the reason); while serving, /readyz is the operator checks of observe.go.
func (g *schemaGate) wrap(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		reason := g.reason()
		switch {
		case reason != "" && r.URL.Path != "/healthz":
			e := &ops.Error{Code: ops.CodeUnavailable, RetryAfter: 30 * time.Second,
				Detail: "this read replica stopped serving: " + reason}
			writeReplicaProblem(w, http.StatusServiceUnavailable, e)
		default:
			next.ServeHTTP(w, r)
		}
	})
}

// A write reaching a replica goes to the primary: by default the replica
// forwards it (a reverse proxy, so clients and browsers never see another
// origin: cookies, CSRF tokens and Authorization stay as sent) and relays
// the answer; with -replica-writes redirect it answers 307 with the same
// URL on the primary instead. GET pages that write (email verification,
// the OAuth flow, checkout) go there too. MCP reads answer here; an MCP
// call of a write tool is forwarded to the primary in both modes (MCP
// clients do not follow redirects of a POST), like a REST write.
//
// Read-your-writes: the primary marks the browser that just wrote with a
// short-lived cookie (RecentWriteCookie); a proxying replica sends that
// browser's reads to the primary until the cookie expires, by which time
// the write has reached the replicas.

// RecentWriteCookie and its lifetime (well above the default sync + poll).
const (
	RecentWriteCookie = "ld_recent_write"
	recentWriteWindow = 10 * time.Second
)

// ForwardedHeader marks a request a replica forwarded; a replica receiving
// one is the target of another replica's -primary-url (a loop).
const ForwardedHeader = "Launchdir-Forwarded-By-Replica"

// ViaReplica is the Via entry of an answer a replica relayed from the primary.
const ViaReplica = "1.1 launchdir-replica"

// publicHost is the host name a request was sent to: behind a trusted
// proxy, the first X-Forwarded-Host (the rule routes.Server uses to pick
// the site).
func publicHost(r *http.Request, trustProxy bool) string {
	if trustProxy {
		if fh := r.Header.Get("X-Forwarded-Host"); fh != "" {
			return strings.TrimSpace(strings.Split(fh, ",")[0])
		}
	}
	return r.Host
}

// siteHTTPS reports whether the site a request's host names is served
// over https (an unknown host: whether main is).
func siteHTTPS(a *app.App, r *http.Request, trustProxy bool) bool {
	site, ok := a.SiteForHost(r.Context(), publicHost(r, trustProxy))
	if !ok {
		site = a.Site(r.Context())
	}
	return strings.HasPrefix(site.Origin, "https://")
}

func toPrimary(next http.Handler, c *Config, a *app.App) http.Handler {
	table := a.Table
	target, _ := url.Parse(c.PrimaryURL) // checked by checkReadReplica
	proxy := &httputil.ReverseProxy{
		Rewrite: func(pr *httputil.ProxyRequest) {
			pr.SetURL(target)
			// The host the browser used (what this replica took it to be
			// behind its proxy): the primary serves that host's site.
			pr.Out.Host = publicHost(pr.In, c.TrustProxy)
			forwardClient(pr, c.TrustProxy, siteHTTPS(a, pr.In, c.TrustProxy))
			pr.Out.Header.Set(ForwardedHeader, "1")
		},
		ModifyResponse: func(resp *http.Response) error {
			resp.Header.Add("Via", ViaReplica) // RFC 9110 7.6.3: this answer came through a proxy
			return nil
		},
		ErrorHandler: func(w http.ResponseWriter, r *http.Request, err error) {
			e := ops.ReadReplica(c.PrimaryURL)
			e.Detail = "this read replica could not reach the primary (" + c.PrimaryURL + "): the request may not have been made; repeat it (with the same Idempotency-Key) shortly"
			e.RetryAfter = 5 * time.Second
			writeReplicaProblem(w, http.StatusServiceUnavailable, e)
		},
	}
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Header.Get(ForwardedHeader) != "" {
			e := ops.ReadReplica(c.PrimaryURL)
			e.Detail = "a read replica forwarded this request to another read replica: its -primary-url must point at the primary"
			writeReplicaProblem(w, http.StatusLoopDetected, e)
			return
		}
		if mcpWrite(r, table) {
			proxy.ServeHTTP(w, r)
			return
		}
		toP := writesOnPrimary(r)
		if c.ReplicaWrites == "redirect" {
			if toP {
				w.Header().Set("Location", c.PrimaryURL+r.URL.RequestURI())
				writeReplicaProblem(w, http.StatusTemporaryRedirect, ops.ReadReplica(c.PrimaryURL))
				return
			}
		} else if toP || recentWriter(r) {
			proxy.ServeHTTP(w, r)
			return
		}
		next.ServeHTTP(w, r)
	})
}

// forwardClient tells the primary who the client is: the address this
// replica took as the client's (the last X-Forwarded-For hop when it trusts
// its proxy, else the peer), so the primary's rate limits (with
// -trust-proxy) apply to the client, not to the replica.
func forwardClient(pr *httputil.ProxyRequest, trustProxy, https bool) {
	client, _, err := net.SplitHostPort(pr.In.RemoteAddr)
	if err != nil {
		client = pr.In.RemoteAddr
	}
	if xff := pr.In.Header.Values("X-Forwarded-For"); trustProxy && len(xff) > 0 {
		hops := strings.Split(strings.Join(xff, ","), ",")
		client = strings.TrimSpace(hops[len(hops)-1])
	}
	pr.Out.Header.Set("X-Forwarded-For", client)
	if https {
		pr.Out.Header.Set("X-Forwarded-Proto", "https")
	}
}

func writeReplicaProblem(w http.ResponseWriter, status int, e *ops.Error) {
	p := ops.ProblemFor(e)
	p.Status = status
	if status == http.StatusTemporaryRedirect {
		p.Title = "Read replica: repeat the request at the primary"
	}
	if e.RetryAfter > 0 {
		w.Header().Set("Retry-After", strconv.Itoa(int(e.RetryAfter.Seconds())))
	}
	w.Header().Set("Cache-Control", "no-store")
	w.Header().Set("Content-Type", "application/problem+json")
	w.WriteHeader(status)
	json.NewEncoder(w).Encode(p)
}

// mcpWrite reports whether r is an MCP call of a tool that writes. It reads
// the message (at most maxMCPPeek bytes; the MCP door refuses larger
// bodies anyway) and puts it back for whoever serves the request.
func mcpWrite(r *http.Request, table *ops.Table) bool {
	if r.Method != http.MethodPost || !strings.HasPrefix(r.URL.Path, "/mcp") || r.Body == nil {
		return false
	}
	if name := r.Header.Get("Mcp-Name"); r.Header.Get("Mcp-Method") == "tools/call" && name != "" {
		op := table.Get(name)
		return op != nil && !op.ReadOnly()
	}
	head, err := io.ReadAll(io.LimitReader(r.Body, maxMCPPeek))
	r.Body = struct {
		io.Reader
		io.Closer
	}{io.MultiReader(bytes.NewReader(head), r.Body), r.Body}
	if err != nil {
		return false
	}
	var m struct {
		Method string `json:"method"`
		Params struct {
			Name string `json:"name"`
		} `json:"params"`
	}
	if json.Unmarshal(head, &m) != nil || m.Method != "tools/call" {
		return false
	}
	op := table.Get(m.Params.Name)
	return op != nil && !op.ReadOnly()
}

// maxMCPPeek is the MCP door's body limit (1 MiB).
const maxMCPPeek = 1 << 20

func writesOnPrimary(r *http.Request) bool {
	if strings.HasPrefix(r.URL.Path, "/mcp") { // sessions live in this process; write tools are forwarded by mcpWrite
		return false
	}
	switch r.Method {
	case http.MethodOptions: // CORS preflights are answered here (browsers do not follow redirects there)
		return false
	case http.MethodGet, http.MethodHead:
		for _, prefix := range []string{"/oauth/", "/verify/", "/checkout/"} {
			if strings.HasPrefix(r.URL.Path, prefix) {
				return true
			}
		}
		return false
	}
	return true
}

func recentWriter(r *http.Request) bool {
	_, err := r.Cookie(RecentWriteCookie)
	return err == nil
}

// markWrites is the primary's half of read-your-writes (used when it
// replicates): a successful write answer carries the recent-write cookie.
// The cookie is Secure when the request's site is served over https.
func markWrites(next http.Handler, a *app.App, trustProxy bool) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Method == http.MethodGet || r.Method == http.MethodHead || r.Method == http.MethodOptions || r.URL.Path == "/mcp" {
			next.ServeHTTP(w, r)
			return
		}
		next.ServeHTTP(&writeMarker{ResponseWriter: w, secure: siteHTTPS(a, r, trustProxy)}, r)
	})
}

type writeMarker struct {
	http.ResponseWriter
	secure, done bool
}

func (m *writeMarker) WriteHeader(code int) {
	if !m.done && code < 400 {
		http.SetCookie(m.ResponseWriter, &http.Cookie{Name: RecentWriteCookie, Value: "1", Path: "/",
			MaxAge: int(recentWriteWindow.Seconds()), HttpOnly: true, Secure: m.secure, SameSite: http.SameSiteLaxMode})
	}
	m.done = true
	m.ResponseWriter.WriteHeader(code)
}

func (m *writeMarker) Write(b []byte) (int, error) {
	if !m.done {
		m.WriteHeader(http.StatusOK)
	}
	return m.ResponseWriter.Write(b)
}

func (m *writeMarker) Unwrap() http.ResponseWriter { return m.ResponseWriter }
