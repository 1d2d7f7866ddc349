package server

import (
	"context"
	"crypto/subtle"
	"database/sql"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"net/http/pprof"
	"net/netip"
	"strings"
	"time"

	"launchdir/db"
	"launchdir/replica"
	"launchdir/routes"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/promhttp"
)

// OpsConfig is the operator's side of serving: logs, /metrics, /readyz,
// pprof, CORS and compression (Config embeds it).
type OpsConfig struct {
	LogFormat    string
	LogLevel     string
	LogFlush     time.Duration
	Metrics      bool
	MetricsToken string
	MetricsAllow string
	ReadyMaxLag  time.Duration
	PprofAddr    string
	CORSOrigins  string
	Compress     bool
}

func defaultOps() OpsConfig {
	return OpsConfig{LogFormat: "text", LogLevel: "info", LogFlush: 100 * time.Millisecond, Metrics: true, ReadyMaxLag: 30 * time.Second, Compress: true}
}

func opsFlags(fs *flag.FlagSet, c *Config) {
	fs.StringVar(&c.LogFormat, "log-format", c.LogFormat, "log format: text or json (one object per line)")
	fs.StringVar(&c.LogLevel, "log-level", c.LogLevel, "least severe level logged: debug, info (includes one access log line per request), warn or error")
	fs.DurationVar(&c.LogFlush, "log-flush", c.LogFlush, "write the access log's lines in batches at least this often (every other line at once; 0: every line at once)")
	fs.BoolVar(&c.Metrics, "metrics", c.Metrics, "serve Prometheus metrics at /metrics")
	fs.StringVar(&c.MetricsToken, "metrics-token", "", "require Authorization: Bearer TOKEN on /metrics")
	fs.StringVar(&c.MetricsAllow, "metrics-allow", "", "client addresses (CIDRs, comma separated) allowed to read /metrics (default: loopback only, or any address when -metrics-token is set)")
	fs.DurationVar(&c.ReadyMaxLag, "ready-max-lag", c.ReadyMaxLag, "a read replica further behind its primary than this answers /readyz with 503")
	fs.StringVar(&c.PprofAddr, "pprof-addr", "", "serve Go's pprof profiles on this separate address, e.g. 127.0.0.1:6060 (empty: off; never expose it publicly)")
	fs.StringVar(&c.CORSOrigins, "cors-origins", "", "origins (comma separated, e.g. https://app.example.com) whose browser apps may call /api/v1 with a bearer token; * lets any origin call it without credentials")
	fs.BoolVar(&c.Compress, "compress", c.Compress, "compress JSON, HTML, feeds and the OpenAPI document (zstd or gzip, as the client accepts)")
}

func (c *Config) checkOps() error {
	if c.LogFormat != "text" && c.LogFormat != "json" {
		return fmt.Errorf("bad -log-format %q: text or json", c.LogFormat)
	}
	if _, err := logLevel(c.LogLevel); err != nil {
		return err
	}
	if c.LogFlush < 0 || c.LogFlush > time.Minute {
		return fmt.Errorf("bad -log-flush %s: from 0 (every line at once) to 1m", c.LogFlush)
	}
	if _, err := c.metricsNets(); err != nil {
		return err
	}
	if c.ReadyMaxLag <= 0 {
		return errors.New("bad -ready-max-lag: must be positive")
	}
	if c.PprofAddr != "" {
		if _, _, err := net.SplitHostPort(c.PprofAddr); err != nil {
			return fmt.Errorf("bad -pprof-addr %q: %v", c.PprofAddr, err)
		}
	}
	_, err := parseOrigins(c.CORSOrigins)
	return err
}

func logLevel(s string) (slog.Level, error) {
	var l slog.Level
	if err := l.UnmarshalText([]byte(s)); err != nil {
		return 0, fmt.Errorf("bad -log-level %q: debug, info, warn or error", s)
	}
	return l, nil
}

// NewLogger is the process's logger as -log-format and -log-level say.
func (c *Config) NewLogger(w io.Writer) *slog.Logger {
	l, _ := logLevel(c.LogLevel)
	o := &slog.HandlerOptions{Level: l}
	var h slog.Handler = slog.NewTextHandler(w, o)
	if c.LogFormat == "json" {
		h = slog.NewJSONHandler(w, o)
	}
	if b, ok := w.(*logBuffer); ok {
		h = flushingHandler{Handler: h, b: b}
	}
	return slog.New(h)
}

// NewBufferedLogger is NewLogger writing to w in batches (-log-flush);
// flush writes what is held, and is due before the process exits.
func (c *Config) NewBufferedLogger(w io.Writer) (log *slog.Logger, flush func()) {
	bw, flush := newLogBuffer(w, c.LogFlush)
	return c.NewLogger(bw), flush
}

// metricsNets is the /metrics allow-list; nil means any address.
func (c *Config) metricsNets() ([]netip.Prefix, error) {
	list := c.MetricsAllow
	if list == "" {
		if c.MetricsToken != "" {
			return nil, nil
		}
		list = "127.0.0.0/8,::1/128"
	}
	var out []netip.Prefix
	for _, s := range strings.Split(list, ",") {
		s = strings.TrimSpace(s)
		p, err := netip.ParsePrefix(s)
		if err != nil {
			a, aerr := netip.ParseAddr(s)
			if aerr != nil {
				return nil, fmt.Errorf("bad -metrics-allow %q: want CIDRs like 10.0.0.0/8 or addresses", s)
			}
			p = netip.PrefixFrom(a, a.BitLen())
		}
		out = append(out, p)
	}
	return out, nil
}

// wrapOps mounts /metrics and /readyz on srv and wraps h, the handler
// being served, in compression, CORS and the access log (outermost).
func wrapOps(c *Config, srv *routes.Server, h http.Handler, d *db.DB, log *slog.Logger) http.Handler {
	if c.Metrics {
		reg := srv.Metrics().Registry
		registerCollectors(reg, srv, d)
		nets, _ := c.metricsNets()
		// The default registry holds Go runtime and process metrics and
		// litestream's replication counters.
		mh := promhttp.HandlerFor(prometheus.Gatherers{prometheus.DefaultGatherer, reg}, promhttp.HandlerOpts{DisableCompression: true}) // compress() does it
		srv.Handle(http.MethodGet, "/metrics", guardMetrics(srv, c.MetricsToken, nets, mh))
	}
	srv.Handle(http.MethodGet, "/readyz", readyz(srv, d, c.ReadyMaxLag))
	if c.Compress {
		h = compress(h)
	}
	origins, _ := parseOrigins(c.CORSOrigins)
	h = cors(origins, h)
	return srv.Observe(h, log)
}

// guardMetrics lets a scraper in with the token (if set) from an allowed
// address (if a list applies); others get a 404, as if there were none.
func guardMetrics(srv *routes.Server, token string, nets []netip.Prefix, next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if token != "" {
			got, ok := strings.CutPrefix(r.Header.Get("Authorization"), "Bearer ")
			if !ok || subtle.ConstantTimeCompare([]byte(got), []byte(token)) != 1 {
				w.Header().Set("WWW-Authenticate", `Bearer realm="metrics"`)
				http.Error(w, "metrics need the bearer token set by -metrics-token", http.StatusUnauthorized)
				return
			}
		}
		if nets != nil && !inNets(srv.ClientIP(r), nets) {
			http.NotFound(w, r)
			return
		}
		next.ServeHTTP(w, r)
	})
}

func inNets(ip string, nets []netip.Prefix) bool {
	a, err := netip.ParseAddr(ip)
	if err != nil {
		return false
	}
	a = a.Unmap()
	for _, n := range nets {
		if n.Contains(a) {
			return true
		}
	}
	return false
}

// registerCollectors adds the gauges read at scrape time: the admission
// queue, the database pools, the read cache, group commit sizes, the
// outbox and draft queues and replication.
func registerCollectors(reg *prometheus.Registry, srv *routes.Server, d *db.DB) {
	gauge := func(name, help string, f func() float64) {
		reg.MustRegister(prometheus.NewGaugeFunc(prometheus.GaugeOpts{Name: name, Help: help}, f))
	}
	counter := func(name, help string, f func() float64) {
		reg.MustRegister(prometheus.NewCounterFunc(prometheus.CounterOpts{Name: name, Help: help}, f))
	}
	if _, _, ok := srv.AdmissionStatus(); ok {
		gauge("launchdir_admission_running", "Requests running handlers (admission control slots taken).",
			func() float64 { r, _, _ := srv.AdmissionStatus(); return float64(r) })
		gauge("launchdir_admission_waiting", "Requests waiting in line for a slot.",
			func() float64 { _, w, _ := srv.AdmissionStatus(); return float64(w) })
	}
	reg.MustRegister(&poolCollector{d: d})
	counter("launchdir_read_cache_hits_total", "Public reads answered from the read cache.",
		func() float64 { h, _ := d.ReadCacheStats(); return float64(h) })
	counter("launchdir_read_cache_misses_total", "Public reads that went to the database.",
		func() float64 { _, m := d.ReadCacheStats(); return float64(m) })
	counter("launchdir_db_wal_restarts_total", "Times the writer restarted a WAL that continuous writes had kept growing (a RESTART checkpoint).",
		func() float64 { return float64(d.WALRestarts()) })
	counter("launchdir_db_wal_restart_fails_total", "WAL restarts a reader of old frames (replication, a backup) prevented; each backs off, 1 s doubling to 30 s.",
		func() float64 { return float64(d.WALRestartFails()) })
	counter("launchdir_db_read_pins_total", "Site pages that read in one read transaction of their own (one snapshot, the page cache emptied once).",
		func() float64 { n, _ := d.PinStats(); return float64(n) })
	counter("launchdir_db_read_pins_full_total", "Site pages that read statement by statement because half the read pool was pinned by other pages already.",
		func() float64 { _, n := d.PinStats(); return float64(n) })
	counter("launchdir_db_fts_merge_steps_total", "Full-text index merge steps run between commits (about 32 pages each; automerge is off).",
		func() float64 { n, _, _, _, _ := d.FTSMergeStats(); return float64(n) })
	counter("launchdir_db_fts_merge_forced_steps_total", "Of those, steps run under writes that left no idle moment for a second or more.",
		func() float64 { _, n, _, _, _ := d.FTSMergeStats(); return float64(n) })
	counter("launchdir_db_fts_merge_rounds_total", "Idle merge rounds run to the end (nothing left to merge).",
		func() float64 { _, _, n, _, _ := d.FTSMergeStats(); return float64(n) })
	counter("launchdir_db_fts_merge_yields_total", "Idle merge rounds cut short because an edit arrived.",
		func() float64 { _, _, _, n, _ := d.FTSMergeStats(); return float64(n) })
	counter("launchdir_db_fts_merge_failures_total", "Idle merge steps that failed (a busy or read-only file); each ends its round unfinished and the merger tries again a second later.",
		func() float64 { return float64(d.FTSMergeFailures()) })
	counter("launchdir_db_fts_merge_seconds_total", "Time the writer spent in full-text merge steps.",
		func() float64 { _, _, _, _, s := d.FTSMergeStats(); return s })
	batches := prometheus.NewHistogram(prometheus.HistogramOpts{Name: "launchdir_db_write_batch_size",
		Help: "Edits committed together by one group commit.", Buckets: []float64{1, 2, 4, 8, 16, 32, 64}})
	reg.MustRegister(batches)
	d.OnWriteBatch(func(n int) { batches.Observe(float64(n)) })
	reg.MustRegister(&queueCollector{d: d})
	if srv.Opts.Replication != nil {
		reg.MustRegister(&replicationCollector{status: srv.Opts.Replication})
	}
}

var (
	poolOpen    = prometheus.NewDesc("launchdir_db_connections_open", "Open SQLite connections, by pool (writer, readers).", []string{"pool"}, nil)
	poolInUse   = prometheus.NewDesc("launchdir_db_connections_in_use", "Connections running a statement.", []string{"pool"}, nil)
	poolWaits   = prometheus.NewDesc("launchdir_db_connection_waits_total", "Times a statement waited for a free connection.", []string{"pool"}, nil)
	poolWaited  = prometheus.NewDesc("launchdir_db_connection_wait_seconds_total", "Time statements spent waiting for a connection.", []string{"pool"}, nil)
	queueDesc   = prometheus.NewDesc("launchdir_queue_items", "Outbox messages and drafts by state (outbox pending = emails not yet sent; drafts crawling/drafting = the draft pipeline's queue).", []string{"queue", "status"}, nil)
	lagDesc     = prometheus.NewDesc("launchdir_replication_lag_seconds", "How far the replica (off-site copy, or this read replica) is behind.", nil, nil)
	inSyncDesc  = prometheus.NewDesc("launchdir_replication_in_sync", "1 when the replica holds the latest transaction.", nil, nil)
	scrapeQuery = 2 * time.Second
)

type poolCollector struct{ d *db.DB }

func (p *poolCollector) Describe(ch chan<- *prometheus.Desc) {
	ch <- poolOpen
	ch <- poolInUse
	ch <- poolWaits
	ch <- poolWaited
}

func (p *poolCollector) Collect(ch chan<- prometheus.Metric) {
	for _, pool := range []struct {
		name string
		db   *sql.DB
	}{{"writer", p.d.W}, {"readers", p.d.R.DB}} {
		s, name := pool.db.Stats(), pool.name
		ch <- prometheus.MustNewConstMetric(poolOpen, prometheus.GaugeValue, float64(s.OpenConnections), name)
		ch <- prometheus.MustNewConstMetric(poolInUse, prometheus.GaugeValue, float64(s.InUse), name)
		ch <- prometheus.MustNewConstMetric(poolWaits, prometheus.CounterValue, float64(s.WaitCount), name)
		ch <- prometheus.MustNewConstMetric(poolWaited, prometheus.CounterValue, s.WaitDuration.Seconds(), name)
	}
}

type queueCollector struct{ d *db.DB }

func (q *queueCollector) Describe(ch chan<- *prometheus.Desc) { ch <- queueDesc }

// Collect counts by state with one grouped query per table on a reader.
func (q *queueCollector) Collect(ch chan<- prometheus.Metric) {
	ctx, cancel := context.WithTimeout(context.Background(), scrapeQuery)
	defer cancel()
	known := map[string][]string{"outbox": {"pending", "failed"}, "drafts": {"crawling", "drafting", "failed"}}
	for _, table := range []string{"outbox", "drafts"} {
		n := map[string]float64{}
		for _, st := range known[table] { // reported as 0 rather than missing
			n[st] = 0
		}
		rows, err := q.d.R.QueryContext(ctx, `SELECT status, count(*) FROM `+table+` GROUP BY status`)
		if err != nil {
			ch <- prometheus.NewInvalidMetric(queueDesc, err)
			continue
		}
		for rows.Next() {
			var status string
			var c float64
			if rows.Scan(&status, &c) == nil {
				n[status] = c
			}
		}
		rows.Close()
		for status, c := range n {
			ch <- prometheus.MustNewConstMetric(queueDesc, prometheus.GaugeValue, c, table, status)
		}
	}
}

type replicationCollector struct{ status func() any }

func (r *replicationCollector) Describe(ch chan<- *prometheus.Desc) {
	ch <- lagDesc
	ch <- inSyncDesc
}

func (r *replicationCollector) Collect(ch chan<- prometheus.Metric) {
	lag, inSync, ok := replicationLag(r.status())
	if !ok {
		return
	}
	ch <- prometheus.MustNewConstMetric(lagDesc, prometheus.GaugeValue, lag)
	v := 0.0
	if inSync {
		v = 1
	}
	ch <- prometheus.MustNewConstMetric(inSyncDesc, prometheus.GaugeValue, v)
}

// replicationLag reads a primary's or a read replica's status.
func replicationLag(st any) (lag float64, inSync, ok bool) {
	switch s := st.(type) {
	case replica.Status:
		return s.LagSeconds, s.InSync, true
	case replica.FollowStatus:
		return s.LagSeconds, s.InSync, true
	}
	return 0, false, false
}

// readyz answers 200 when this instance should get traffic: migrations
// are all applied, the database takes a write lock (the primary), and a
// read replica is within maxLag of its primary. A primary whose off-site
// replication is behind stays ready (its data is safe on its own disk and
// it is the only writer: taking it out would stop the site); the lag is
// reported and in /metrics.
func readyz(srv *routes.Server, d *db.DB, maxLag time.Duration) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		ctx, cancel := context.WithTimeout(r.Context(), scrapeQuery)
		defer cancel()
		checks := map[string]string{}
		ready := true
		fail := func(k, v string) { checks[k], ready = v, false }
		var applied int
		if err := d.R.QueryRowContext(ctx, `SELECT coalesce(max(version), 0) FROM schema_migrations`).Scan(&applied); err != nil {
			fail("migrations", "cannot read: "+err.Error())
		} else if applied != db.SchemaVersion() {
			fail("migrations", fmt.Sprintf("database at %d, this binary expects %d", applied, db.SchemaVersion()))
		} else {
			checks["migrations"] = "ok"
		}
		if d.IsReplica() {
			checks["database"] = "read replica (writes go to the primary)"
		} else if err := writable(ctx, d); err != nil {
			fail("database", "not writable: "+err.Error())
		} else {
			checks["database"] = "ok"
		}
		if srv.Opts.Replication != nil {
			if lag, inSync, ok := replicationLag(srv.Opts.Replication()); ok {
				if msg, ok := replicaReady(d.IsReplica(), lag, inSync, maxLag); ok {
					checks["replication"] = msg
				} else {
					fail("replication", msg)
				}
			}
		}
		status := "ready"
		if !ready {
			status = "not ready"
			w.WriteHeader(http.StatusServiceUnavailable)
		}
		w.Header().Set("Cache-Control", "no-store")
		writeJSON(w, map[string]any{"status": status, "checks": checks, "request_id": routes.RequestID(r.Context())})
	})
}

// replicaReady: a read replica serves reads only while at most maxLag
// behind its primary; a primary's own replication never makes it unready.
func replicaReady(isReplica bool, lag float64, inSync bool, maxLag time.Duration) (string, bool) {
	if isReplica && !inSync && lag > maxLag.Seconds() {
		return fmt.Sprintf("%.1fs behind the primary (more than -ready-max-lag %s)", lag, maxLag), false
	}
	return fmt.Sprintf("lag %.1fs, in sync %v", lag, inSync), true
}

// writable takes SQLite's write lock and lets it go: a read-only file, a
// full disk's locked journal or a stuck writer shows here without writing.
func writable(ctx context.Context, d *db.DB) error {
	conn, err := d.W.Conn(ctx)
	if err != nil {
		return err
	}
	defer conn.Close()
	if _, err := conn.ExecContext(ctx, "BEGIN IMMEDIATE"); err != nil {
		return err
	}
	_, err = conn.ExecContext(context.WithoutCancel(ctx), "ROLLBACK")
	return err
}

// startPprof serves net/http/pprof on its own listener (never on the
// public one); it returns the function that stops it.
func startPprof(addr string, log *slog.Logger) (func(), error) {
	if addr == "" {
		return func() {}, nil
	}
	mux := http.NewServeMux()
	mux.HandleFunc("/debug/pprof/", pprof.Index)
	mux.HandleFunc("/debug/pprof/cmdline", pprof.Cmdline)
	mux.HandleFunc("/debug/pprof/profile", pprof.Profile)
	mux.HandleFunc("/debug/pprof/symbol", pprof.Symbol)
	mux.HandleFunc("/debug/pprof/trace", pprof.Trace)
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		return nil, fmt.Errorf("listen on -pprof-addr %s: %v", addr, err)
	}
	srv := &http.Server{Handler: mux, ReadHeaderTimeout: 10 * time.Second}
	go srv.Serve(ln)
	log.Info("pprof", "addr", ln.Addr().String())
	return func() { srv.Close() }, nil
}

func writeJSON(w http.ResponseWriter, v any) {
	w.Header().Set("Content-Type", "application/json")
	b, _ := json.Marshal(v)
	w.Write(b)
}
