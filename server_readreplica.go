package main

import (
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"log/slog"
	"net/http"
	"net/url"
	"strings"
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

func readReplicaFlags(fs *flag.FlagSet, c *serveConfig) {
	fs.StringVar(&c.ReplicaOf, "replica-of", c.ReplicaOf, "serve as a read replica following this -replicate URL of the primary (file:///dir or s3://…); needs -primary-url")
	fs.StringVar(&c.PrimaryURL, "primary-url", c.PrimaryURL, "a read replica's primary, as clients reach it (https://host): writes are redirected there")
	fs.DurationVar(&c.FollowInterval, "replica-poll-interval", time.Second, "how often a read replica looks for the primary's new transactions")
}

func (c *serveConfig) checkReadReplica() error {
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
	if c.FollowInterval <= 0 {
		return errors.New("bad -replica-poll-interval: must be positive")
	}
	return nil
}

// startReadReplica copies (or resumes) the primary's database, opens it
// read-only and mounts every door; no background job runs on a replica:
// the primary's jobs write, and their effects arrive with its pages.
func startReadReplica(ctx context.Context, c *serveConfig, log *slog.Logger) (*service, error) {
	softMemoryLimit()
	fol, err := replica.Follow(ctx, c.DB, replica.FollowOptions{URL: c.ReplicaOf, Interval: c.FollowInterval, Log: log})
	if err != nil {
		return nil, fmt.Errorf("read replica: %v", err)
	}
	d, err := db.OpenReplica(ctx, c.DB)
	if err != nil {
		fol.Close()
		return nil, fmt.Errorf("read replica %s: %v", c.DB, err)
	}
	fol.OnApply(d.Invalidate) // cached reads retire with every applied batch
	fail := func(err error) (*service, error) {
		d.Close()
		fol.Close()
		return nil, err
	}
	ops.ProblemTypeBase = c.BaseURL + "/problems/"
	a, err := app.New(d, app.Config{BaseURL: c.BaseURL, VoteMinAccountAge: voteMinAge(c.VoteMinAge)}, log)
	if err != nil {
		return fail(err)
	}
	a.Exec.Primary = c.PrimaryURL
	if err := wireExternals(a, c); err != nil {
		return fail(err)
	}
	srv, err := routes.New(a, routes.Options{RatePerSecond: c.RatePerSecond, RateBurst: c.RateBurst, TrustProxy: c.TrustProxy,
		Replication: func() any { st := fol.Status(); st.Primary = c.PrimaryURL; return st }})
	if err != nil {
		return fail(err)
	}
	pay := payments.ConfigFromEnv()
	pay.Provider = c.Payments
	if _, err := payments.Setup(a, srv, pay); err != nil {
		return fail(err)
	}
	oauth.New(a, oauth.Options{BaseURL: c.BaseURL, SecureCookies: strings.HasPrefix(c.BaseURL, "https://")}).Mount(srv)
	mcp.Mount(srv, a)
	if _, err := site.Mount(srv, a, a); err != nil {
		return fail(err)
	}
	log.Info("read replica", "primary", c.PrimaryURL, "follows", replica.Redact(c.ReplicaOf))
	return &service{app: a, handler: toPrimary(srv, c.PrimaryURL), cancel: func() {}, db: d, fol: fol}, nil
}

// toPrimary answers, on a read replica, every request that would write with
// a 307 to the same URL on the primary (307 keeps the method and body).
// GET pages that write (email verification, the OAuth flow, checkout) go
// there too. MCP stays: its read tools answer here and its write tools say
// where the primary is.
func toPrimary(next http.Handler, primary string) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if !writesOnPrimary(r) {
			next.ServeHTTP(w, r)
			return
		}
		w.Header().Set("Location", primary+r.URL.RequestURI())
		w.Header().Set("Cache-Control", "no-store")
		w.Header().Set("Content-Type", "application/problem+json")
		w.WriteHeader(http.StatusTemporaryRedirect)
		p := ops.ProblemFor(ops.ReadReplica(primary))
		p.Status, p.Title = http.StatusTemporaryRedirect, "Read replica: repeat the request at the primary"
		json.NewEncoder(w).Encode(p)
	})
}

func writesOnPrimary(r *http.Request) bool {
	if r.URL.Path == "/mcp" { // sessions live in this process; tools check themselves
		return false
	}
	switch r.Method {
	case http.MethodGet, http.MethodHead, http.MethodOptions:
		for _, prefix := range []string{"/oauth/", "/verify/", "/checkout/"} {
			if strings.HasPrefix(r.URL.Path, prefix) {
				return true
			}
		}
		return false
	}
	return true
}
