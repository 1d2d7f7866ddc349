// Package app holds the business rules and the one operations table. REST
// (routes) and MCP (mcp) are thin doors generated from that table, so both
// behave the same.
package app

import (
	"context"
	"log/slog"
	"sync"
	"time"

	"launchdir/db"
	"launchdir/ops"
)

// Version is the binary's version, also the OpenAPI interface version.
const Version = "1.0.0"

// Config is what the business layer needs to know about its deployment.
type Config struct {
	BaseURL  string // public origin, no trailing slash
	SiteName string
	SiteKey  string // this directory's key in a network of sites
	// VoteMinAccountAge: votes of younger accounts are stored but not
	// counted (0 means the default, 24 h; negative means no minimum).
	VoteMinAccountAge time.Duration
}

// App is the business layer.
type App struct {
	DB    *db.DB
	Cfg   Config
	Log   *slog.Logger
	Now   func() time.Time
	Table *ops.Table
	Exec  *ops.Executor
	// OAuthTokens resolves OAuth access tokens (set by the OAuth server).
	OAuthTokens TokenResolver

	extraJobs []Job
	ext       Externals
	drafts    *draftPipeline
	orders    *orderRuntime
	people    *peopleRuntime
	// keyTouched: the minute (Unix time / 60) each API key's last use was
	// last recorded (touchAPIKey).
	keyTouched sync.Map
}

// New builds the app and its operations table.
func New(d *db.DB, cfg Config, log *slog.Logger) (*App, error) {
	if cfg.SiteName == "" {
		cfg.SiteName = "launchdir"
	}
	if cfg.SiteKey == "" {
		cfg.SiteKey = "main"
	}
	a := &App{DB: d, Cfg: cfg, Log: log, Now: time.Now, orders: &orderRuntime{promoFails: map[int64][]time.Time{}},
		people: newPeopleRuntime()}
	t, err := ops.NewTable(a.operations())
	if err != nil {
		return nil, err
	}
	a.Table = t
	a.Exec = &ops.Executor{Table: t, Idem: &idemStore{a: a}, Log: log}
	a.SetExternals(Externals{})
	return a, nil
}

// APIURL is the REST base.
func (a *App) APIURL() string { return a.Cfg.BaseURL + "/api/v1" }

// MCPURL is the MCP endpoint.
func (a *App) MCPURL() string { return a.Cfg.BaseURL + "/mcp" }

// Page is the paginated body used everywhere.
type Page[T any] struct {
	Items   []T `json:"items"`
	Page    int `json:"page"`
	PerPage int `json:"per_page"`
	Total   int `json:"total" doc:"How many items match. Exact unless total_is_estimate is true."`
	// TotalIsEstimate is true when more items match than a list counts
	// (10,000; searches, leaderboards and the founders list): Total is then a lower bound
	// or an estimate, not exact.
	TotalIsEstimate bool `json:"total_is_estimate,omitempty" doc:"Present, and true, when more than 10,000 items match a listing search, a leaderboard or the founders list: no request waits for a full count, so total is then an estimate (a one-word search: the documents the full-text index holds for the word, scaled by the share of live listings) or 10,000, meaning 10,000 or more."`
}

func page[T any](in *ops.Input, items []T, total int) Page[T] {
	p, pp := in.Page()
	if items == nil {
		items = []T{}
	}
	return Page[T]{Items: items, Page: p, PerPage: pp, Total: total}
}

// offset returns the SQL offset and limit of the input's page.
func offset(in *ops.Input) (int, int) {
	p, pp := in.Page()
	return (p - 1) * pp, pp
}

// notFound maps sql.ErrNoRows to a 404 naming what was missing.
func notFound(err error, what string) error {
	if db.IsNoRows(err) {
		return ops.NotFound(what)
	}
	return err
}

func (a *App) today() string { return a.Now().UTC().Format(dateLayout) }

// setting reads one setting with a fallback.
func (a *App) setting(ctx context.Context, key, def string) string {
	var v string
	if err := a.DB.R.QueryRowContext(ctx, `SELECT value FROM settings WHERE key = ?`, key).Scan(&v); err != nil {
		return def
	}
	return v
}
