package server

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"log/slog"
	"net"
	"net/http"
	"net/url"
	"os"
	"runtime"
	"runtime/debug"
	"strings"
	"sync"
	"time"

	"launchdir/app"
	"launchdir/app/drafting"
	"launchdir/app/kernel"
	"launchdir/app/vat"
	"launchdir/crawl"
	"launchdir/db"
	"launchdir/demo"
	"launchdir/mailer"
	"launchdir/mcp"
	"launchdir/oauth"
	"launchdir/ops"
	"launchdir/payments"
	"launchdir/replica"
	"launchdir/routes"
	"launchdir/site"
)

// Config is every serve flag; each is also LAUNCHDIR_<NAME>.
type Config struct {
	Addr            string
	DB              string
	BaseURL         string
	Demo            bool
	DemoSeed        int64
	DemoSite        string // key of a second demo site to create if missing (issue 24)
	RatePerSecond   float64
	RateBurst       int
	TrustProxy      bool
	ShutdownTimeout time.Duration
	IdemTTL         time.Duration
	IdemStale       time.Duration
	Replicate       string
	ReplicaSync     time.Duration
	SnapInterval    time.Duration
	SnapRetention   time.Duration
	RestoreMissing  bool
	ReplicaOf       string
	PrimaryURL      string
	FollowInterval  time.Duration
	ReplicaWrites   string
	CrawlPrivate    bool
	CrawlWorkers    int
	CrawlMaxPages   int
	CrawlMaxBytes   int64
	CrawlTimeout    time.Duration
	LLMURL          string
	LLMModel        string
	SMTPURL         string
	Payments        string
	VATCheck        string
	VoteMinAge      time.Duration
	// Vote integrity (app/people/integrity.go): sign-ups per address and
	// per network in 24 h, and the size of a suspected ring; 0 turns one off.
	SignupsPerAddress, SignupsPerNetwork, VoteRingSize int
	ReadConns                                          int
	ReadCacheMB                                        int
	WriteCacheMB                                       int
	MaxInFlight                                        int
	MaxWrites                                          int
	MaxPages                                           int
	QueueTimeout                                       time.Duration
	OpsConfig                                          // logs, metrics, readiness, pprof, CORS, compression (observe.go)
}

func DefaultConfig() *Config {
	return &Config{Addr: "127.0.0.1:8080", DB: "./launchdir.db", Demo: true, DemoSeed: 1,
		RatePerSecond: 20, RateBurst: 40, ShutdownTimeout: 15 * time.Second, IdemTTL: 24 * time.Hour, IdemStale: 5 * time.Minute,
		CrawlWorkers: 2, CrawlMaxPages: 12, CrawlMaxBytes: 2 << 20, CrawlTimeout: 15 * time.Second,
		Payments: "test", VATCheck: "offline", VoteMinAge: 24 * time.Hour,
		SignupsPerAddress: 5, SignupsPerNetwork: 20, VoteRingSize: 3,
		ReadConns: db.DefaultReadConns(), ReadCacheMB: db.DefaultReadCacheKB / 1000, WriteCacheMB: db.DefaultWriteCacheKB / 1000, MaxInFlight: defaultMaxInFlight(), MaxWrites: defaultMaxWrites, MaxPages: defaultMaxPages(), QueueTimeout: routes.DefaultQueueTimeout,
		OpsConfig: defaultOps()}
}

func (c *Config) flags() *flag.FlagSet {
	fs := flag.NewFlagSet("serve", flag.ContinueOnError)
	fs.StringVar(&c.Addr, "addr", c.Addr, "listen address")
	fs.StringVar(&c.DB, "db", c.DB, "SQLite database file")
	fs.StringVar(&c.BaseURL, "base-url", c.BaseURL, "public origin (default http://<addr>)")
	fs.BoolVar(&c.Demo, "demo", c.Demo, "fill a NEW database with the demo directory")
	fs.Int64Var(&c.DemoSeed, "demo-seed", c.DemoSeed, "seed of the demo generator")
	fs.StringVar(&c.DemoSite, "demo-site", "", "also serve a second demo directory with this key (e.g. devtools) at http://<key>.localhost:<port>, created if missing")
	fs.Float64Var(&c.RatePerSecond, "rate", c.RatePerSecond, "requests per second per client (0 = off)")
	fs.IntVar(&c.RateBurst, "rate-burst", c.RateBurst, "burst per client")
	fs.BoolVar(&c.TrustProxy, "trust-proxy", c.TrustProxy, "take the client address from X-Forwarded-For")
	fs.DurationVar(&c.ShutdownTimeout, "shutdown-timeout", c.ShutdownTimeout, "how long in-flight requests may finish")
	fs.DurationVar(&c.IdemTTL, "idempotency-ttl", c.IdemTTL, "how long Idempotency-Key responses are kept")
	fs.DurationVar(&c.IdemStale, "idempotency-stale", c.IdemStale, "after how long a key left running by a crashed process is released")
	replicationFlags(fs, c)
	fs.IntVar(&c.ReadConns, "read-conns", c.ReadConns, "SQLite read connections")
	fs.IntVar(&c.ReadCacheMB, "read-page-cache", c.ReadCacheMB, "SQLite page cache per read connection, MB")
	fs.IntVar(&c.WriteCacheMB, "write-page-cache", c.WriteCacheMB, "SQLite page cache of the writer connection, MB")
	fs.IntVar(&c.MaxInFlight, "max-inflight", c.MaxInFlight, "GET/HEAD requests running handlers at once; more wait in line (0 = no admission control)")
	fs.IntVar(&c.MaxPages, "max-inflight-pages", c.MaxPages, "site pages (GET/HEAD outside /api/, /mcp, /oauth, /media/, /badges/ and other machine paths) running handlers at once, a lane of their own; more wait in line (0 = they share the -max-inflight lane)")
	fs.IntVar(&c.MaxWrites, "max-inflight-writes", c.MaxWrites, "other requests (POST, PATCH, DELETE…) running handlers at once; more wait in line")
	fs.DurationVar(&c.QueueTimeout, "queue-timeout", c.QueueTimeout, "how long a request waits in line before a 503 with Retry-After")
	readReplicaFlags(fs, c)
	fs.BoolVar(&c.CrawlPrivate, "crawl-allow-private", c.CrawlPrivate, "let the crawler reach private/loopback addresses (local development only)")
	fs.IntVar(&c.CrawlWorkers, "crawl-workers", c.CrawlWorkers, "draft pipeline workers")
	fs.IntVar(&c.CrawlMaxPages, "crawl-max-pages", c.CrawlMaxPages, "pages read per site")
	fs.Int64Var(&c.CrawlMaxBytes, "crawl-max-bytes", c.CrawlMaxBytes, "bytes read per page")
	fs.DurationVar(&c.CrawlTimeout, "crawl-timeout", c.CrawlTimeout, "timeout per request")
	fs.StringVar(&c.LLMURL, "llm-url", c.LLMURL, "OpenAI-compatible chat completions endpoint (key in LAUNCHDIR_LLM_KEY); empty uses the built-in offline drafter")
	fs.StringVar(&c.LLMModel, "llm-model", c.LLMModel, "model name for -llm-url")
	fs.StringVar(&c.SMTPURL, "smtp-url", c.SMTPURL, "smtp://user:pass@host:587?from=addr; empty logs emails instead of sending")
	fs.StringVar(&c.Payments, "payments", c.Payments, "payment provider: test (built-in TEST MODE checkout page) or stripe (LAUNCHDIR_STRIPE_KEY, LAUNCHDIR_STRIPE_WEBHOOK_SECRET)")
	fs.StringVar(&c.VATCheck, "vat-check", c.VATCheck, "VAT number validation: offline (format check) or vies (EU VIES lookup)")
	fs.DurationVar(&c.VoteMinAge, "vote-min-account-age", c.VoteMinAge, "votes of younger accounts are stored but not counted (0 = every verified account counts)")
	fs.IntVar(&c.SignupsPerAddress, "signups-per-address", c.SignupsPerAddress, "accounts one network address may make in 24 hours (0 = no limit)")
	fs.IntVar(&c.SignupsPerNetwork, "signups-per-network", c.SignupsPerNetwork, "accounts one network (IPv4 /24, IPv6 /48) may make in 24 hours (0 = no limit)")
	fs.IntVar(&c.VoteRingSize, "vote-ring-size", c.VoteRingSize, "accounts voting together that make a suspected ring whose votes wait for review (0 = off; at least 2)")
	opsFlags(fs, c)
	return fs
}

func (c *Config) Check() error {
	if _, _, err := net.SplitHostPort(c.Addr); err != nil {
		return fmt.Errorf("bad -addr %q: %v", c.Addr, err)
	}
	if c.BaseURL == "" {
		c.BaseURL = "http://" + c.Addr
	}
	u, err := url.Parse(c.BaseURL)
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		return fmt.Errorf("bad -base-url %q: want http(s)://host[:port]", c.BaseURL)
	}
	c.BaseURL = strings.TrimRight(c.BaseURL, "/")
	if c.RatePerSecond < 0 || c.RateBurst < 0 {
		return errors.New("bad -rate/-rate-burst: must not be negative")
	}
	if err := c.checkReplication(); err != nil {
		return err
	}
	if err := c.checkReadReplica(); err != nil {
		return err
	}
	if c.IdemTTL <= 0 || c.IdemStale <= 0 {
		return errors.New("bad -idempotency-ttl/-idempotency-stale: must be positive")
	}
	if c.CrawlWorkers < 1 || c.CrawlMaxPages < 1 || c.CrawlMaxBytes < 1024 || c.CrawlTimeout <= 0 {
		return errors.New("bad crawl flags: workers and pages must be >= 1, max bytes >= 1024, timeout > 0")
	}
	if c.LLMURL != "" && c.LLMModel == "" {
		return errors.New("-llm-url needs -llm-model")
	}
	if c.Payments != "test" && c.Payments != "stripe" {
		return fmt.Errorf("bad -payments %q: test or stripe", c.Payments)
	}
	if c.VATCheck != "offline" && c.VATCheck != "vies" {
		return fmt.Errorf("bad -vat-check %q: offline or vies", c.VATCheck)
	}
	if c.ReadCacheMB < 1 || c.WriteCacheMB < 1 {
		return errors.New("bad -read-page-cache/-write-page-cache: at least 1 (MB)")
	}
	if c.ReadConns < 1 || c.MaxInFlight < 0 || c.MaxWrites < 1 || c.MaxPages < 0 || c.QueueTimeout <= 0 {
		return errors.New("bad -read-conns/-max-inflight/-max-inflight-writes/-max-inflight-pages/-queue-timeout: read conns and writes >= 1, max-inflight and pages >= 0, queue timeout > 0")
	}
	if err := c.checkOps(); err != nil {
		return err
	}
	if c.VoteMinAge < 0 {
		return errors.New("bad -vote-min-account-age: must not be negative")
	}
	if c.SignupsPerAddress < 0 || c.SignupsPerNetwork < 0 || c.VoteRingSize < 0 || c.VoteRingSize == 1 {
		return errors.New("bad -signups-per-address/-signups-per-network/-vote-ring-size: 0 (off) or positive, and a ring is at least 2 accounts")
	}
	if c.SMTPURL != "" {
		if _, err := mailer.New(c.SMTPURL); err != nil {
			return fmt.Errorf("bad -smtp-url: %v", err)
		}
	}
	return nil
}

// Service is a started binary: the app, its HTTP handler and what to close.
type Service struct {
	App     *app.App
	Handler http.Handler
	cancel  context.CancelFunc
	wg      sync.WaitGroup
	DB      *db.DB
	rep     *replica.Replicator
	fol     *replica.Follower // a read replica's follower
}

// Start opens the database (filling a new one with the demo directory),
// builds the app and the HTTP handler, and starts background workers.
func Start(ctx context.Context, c *Config, log *slog.Logger) (*Service, error) {
	if c.ReplicaOf != "" {
		return startReadReplica(ctx, c, log)
	}
	gcSettings()
	if err := restoreIfMissing(ctx, c, log); err != nil {
		return nil, err
	}
	d, err := db.OpenWith(ctx, c.DB, db.Options{ReadConns: c.ReadConns, ReadCacheKB: c.ReadCacheMB * 1000, WriteCacheKB: c.WriteCacheMB * 1000})
	if err != nil {
		return nil, fmt.Errorf("database %s: %v", c.DB, err)
	}
	first, err := firstServe(ctx, d)
	if err != nil {
		d.Close()
		return nil, err
	}
	if first && c.Demo {
		if err := demo.Generate(ctx, d, demo.Options{Seed: c.DemoSeed, Now: time.Now(), BaseURL: c.BaseURL}); err != nil {
			d.Close()
			return nil, fmt.Errorf("demo directory: %v", err)
		}
		if err := d.Analyze(ctx); err != nil {
			d.Close()
			return nil, err
		}
		log.Info("filled the new database with the demo directory", "seed", c.DemoSeed)
	}
	if first {
		if err := d.SetSetting(ctx, "first_served_at", time.Now().UTC().Format(time.RFC3339)); err != nil {
			d.Close()
			return nil, err
		}
	}
	kernel.IdemTTL = c.IdemTTL
	kernel.IdemStale = c.IdemStale
	ops.ProblemTypeBase = c.BaseURL + "/problems/"
	a, err := app.New(d, c.kernelConfig(), log)
	if err != nil {
		d.Close()
		return nil, err
	}
	if err := wireExternals(a, c); err != nil {
		d.Close()
		return nil, err
	}
	if err := demoSite(ctx, a, c, log); err != nil {
		d.Close()
		return nil, err
	}
	var rep *replica.Replicator // started last, once nothing else can fail
	srv, err := routes.New(a, routes.Options{RatePerSecond: c.RatePerSecond, RateBurst: c.RateBurst, TrustProxy: c.TrustProxy,
		MaxInFlight: c.MaxInFlight, MaxInFlightWrites: c.MaxWrites, MaxInFlightPages: c.MaxPages, QueueTimeout: c.QueueTimeout,
		Replication: func() any { return replicationStatus(rep) }})
	if err != nil {
		d.Close()
		return nil, err
	}
	pay := payments.ConfigFromEnv()
	pay.Provider = c.Payments
	if c.VATCheck == "vies" {
		a.VAT.SetValidator(&vat.VIESValidator{})
	}
	if _, err := payments.Setup(a, srv, pay); err != nil {
		d.Close()
		return nil, err
	}
	// Issuer, resource and cookies follow each request's site (its origin).
	oa := oauth.New(a, oauth.Options{
		HTTPClient: crawl.NewHTTPClient(crawl.Options{AllowPrivate: c.CrawlPrivate, Timeout: c.CrawlTimeout}),
	})
	oa.Mount(srv)
	mcp.Mount(srv, a)
	if _, err := site.Mount(srv, a, a.People); err != nil {
		d.Close()
		return nil, err
	}
	bg, cancel := context.WithCancel(context.Background())
	if rep, err = startReplication(ctx, c, log); err != nil {
		cancel()
		d.Close()
		return nil, err
	}
	var h http.Handler = srv
	if rep != nil { // read replicas may follow: mark browsers that just wrote (see toPrimary)
		h = markWrites(srv, a, c.TrustProxy)
	}
	s := &Service{App: a, Handler: wrapOps(c, srv, h, d, log), cancel: cancel, DB: d, rep: rep}
	s.wg.Add(1)
	go func() { defer s.wg.Done(); a.RunBackground(bg) }()
	return s, nil
}

// close stops background work, then closes the database cleanly.
func (s *Service) Close() {
	s.cancel()
	s.wg.Wait()
	stopReplication(s.rep, s.App.Log)
	if err := s.DB.Close(); err != nil {
		s.App.Log.Error("closing database", "err", err)
	}
	if s.fol != nil { // after the readers: see Follower.Close
		if err := s.fol.Close(); err != nil {
			s.App.Log.Error("stopping the follower", "err", err)
		}
	}
}

// firstServe reports whether this database is served for the first time
// with an empty directory: a file made by another subcommand first (e.g.
// `apikey create`, which adds only an account) still gets the demo
// directory, while a directory someone filled, or served empty once with
// -demo=false, is left alone.
func firstServe(ctx context.Context, d *db.DB) (bool, error) {
	var served, n int
	err := d.R.QueryRowContext(ctx, `SELECT (SELECT count(*) FROM settings WHERE key = 'first_served_at'),
		(SELECT count(*) FROM listings) + (SELECT count(*) FROM categories)`).Scan(&served, &n)
	return served == 0 && n == 0, err
}

// voteMinAge maps the flag (0 = no minimum) to app.Config (0 = default).
// kernelConfig is the business layer's configuration from the flags.
func (c *Config) kernelConfig() kernel.Config {
	off := func(n int) int { // the flags' 0 is the kernel's "off" (negative)
		if n == 0 {
			return -1
		}
		return n
	}
	return kernel.Config{BaseURL: c.BaseURL, VoteMinAccountAge: voteMinAge(c.VoteMinAge),
		SignupsPerAddress: off(c.SignupsPerAddress), SignupsPerNetwork: off(c.SignupsPerNetwork), VoteRingSize: off(c.VoteRingSize),
		KeyFile: c.DB + ".key"}
}

func voteMinAge(d time.Duration) time.Duration {
	if d == 0 {
		return -1
	}
	return d
}

// wireExternals installs the real adapters: the SSRF-guarded crawler (also
// used for badge and claim checks), the drafter and the mailer.
func wireExternals(a *app.App, c *Config) error {
	cr := crawl.New(crawl.Options{
		UserAgent:    "launchdirbot/" + kernel.Version + " (+" + c.BaseURL + "/bot)",
		AllowPrivate: c.CrawlPrivate, MaxPages: c.CrawlMaxPages, MaxBytes: c.CrawlMaxBytes, Timeout: c.CrawlTimeout,
	})
	x := kernel.Externals{Fetcher: cr, Images: cr}
	if c.SMTPURL != "" {
		m, err := mailer.New(c.SMTPURL)
		if err != nil {
			return err
		}
		x.Mailer = m
	}
	a.SetExternals(x)
	var drafter crawl.Drafter = crawl.NewBuiltinDrafter()
	if c.LLMURL != "" {
		// The LLM server is the operator's choice (often local Ollama or
		// llama.cpp), so it is not behind the SSRF guard meant for user URLs.
		drafter = crawl.NewLLMDrafter(c.LLMURL, c.LLMModel, os.Getenv("LAUNCHDIR_LLM_KEY"), nil)
	}
	a.Drafting.SetDraftPipeline(drafting.DraftConfig{Crawler: cr, Drafter: drafter, Workers: c.CrawlWorkers})
	return nil
}

// gcSettings sets how the Go heap is collected, unless GOGC or GOMEMLIMIT
// say otherwise. The live heap is small (12 MB on a fresh server under
// owner PATCHes, about 25 MB after a sweep of every page at c=32), so at
// GOGC=100 the collector ran 16 times a second for 11% of the server's
// CPU under PATCHes; at 400 it runs a quarter as often and PATCHes at c=8
// went 5,180–5,450 → 5,610–5,800 req/s (100k, interleaved). The soft limit
// of 64 MiB caps what the larger ratio would let the heap grow to under
// load: SQLite's page caches (about 25 MB) and the binary's mapped pages
// (about 30 MB) count in RSS outside it, and the goal is RSS < 150 MB at
// c=32 on 100k. Peak RSS of the sweep with the site pages: 142–143 MB
// (three runs) against 150–157 MB at GOGC=100 with a 96 MiB limit, for
// 0–14% more CPU per page at c=32, where the limit, not the ratio,
// decides when to collect.
const (
	gcPercent   = 400
	memoryLimit = 64 << 20
)

func gcSettings() {
	if os.Getenv("GOGC") == "" {
		debug.SetGCPercent(gcPercent)
	}
	if os.Getenv("GOMEMLIMIT") == "" {
		debug.SetMemoryLimit(memoryLimit)
	}
}

// Admission control defaults (README, performance: measured with the
// concurrency sweep): enough requests in flight to keep every core and
// every read connection busy, no more.
const defaultMaxWrites = 16

func defaultMaxInFlight() int { return max(8, 4*runtime.GOMAXPROCS(0)) }

// defaultMaxPages: a site page is about 1 ms of CPU, so one per core plus
// one to cover a page's reads from the OS (routes/admission.go).
func defaultMaxPages() int { return runtime.GOMAXPROCS(0) + 1 }

// demoSite creates the -demo-site directory when missing: a developer-tools
// directory over the same listings at http://<key>.localhost:<port>
// (browsers and curl resolve *.localhost to this machine).
func demoSite(ctx context.Context, a *app.App, c *Config, log *slog.Logger) error {
	if c.DemoSite == "" {
		return nil
	}
	_, port, _ := net.SplitHostPort(c.Addr)
	origin := "http://" + c.DemoSite + ".localhost"
	if port != "" && port != "80" {
		origin += ":" + port
	}
	created, err := demo.SecondSite(ctx, a.Network, a.DB, c.DemoSite, origin)
	if err != nil {
		return fmt.Errorf("-demo-site %s: %v", c.DemoSite, err)
	}
	if created {
		log.Info("created the second demo directory", "site", c.DemoSite, "origin", origin)
	}
	return nil
}
