// Package kernel is the bottom of the business layer: what every domain
// needs and none owns. It holds the Kernel (database, configuration, clock,
// logger, the outside world), paging, error helpers, settings, the launch
// calendar's week arithmetic, ownership checks, secrets, the email outbox,
// idempotency and the background job runner.
//
// The domains (catalog, people, owning, drafting, commerce, admin) sit on
// top of it; kernel imports none of them.
package kernel

import (
	"context"
	"log/slog"
	"strings"
	"sync/atomic"
	"time"

	"launchdir/db"
	"launchdir/ops"
)

// Config is what the business layer needs to know about its deployment.
type Config struct {
	BaseURL  string // public origin, no trailing slash
	SiteName string
	SiteKey  string // this directory's key in a network of sites
	// VoteMinAccountAge: votes of younger accounts are stored but not
	// counted (0 means the default, 24 h; negative means no minimum).
	VoteMinAccountAge time.Duration
	// KeyFile holds the key that seals secrets the service must use again
	// (webhook signing secrets); see sealed.go. Empty: a per-process key.
	KeyFile string
	// Sign-up limits per address and per network in 24 hours, and the size
	// at which accounts voting together are a suspected ring (app/people,
	// integrity.go): 0 means the default, negative means off.
	SignupsPerAddress, SignupsPerNetwork, VoteRingSize int
}

// Kernel is what every domain service embeds: one per process, shared by
// pointer, so setting Now in a test moves every domain's clock.
type Kernel struct {
	DB  *db.DB
	Cfg Config
	Log *slog.Logger
	Now func() time.Time
	// Ext is the outside world (web fetcher, DNS, mailer); see SetExternals.
	Ext Externals

	outbox    outboxState
	seal      sealKey
	siteCache atomic.Pointer[siteTable]
}

// New builds the kernel with offline externals.
func New(d *db.DB, cfg Config, log *slog.Logger) *Kernel {
	if cfg.SiteName == "" {
		cfg.SiteName = "launchdir"
	}
	if cfg.SiteKey == "" {
		cfg.SiteKey = "main"
	}
	k := &Kernel{DB: d, Cfg: cfg, Log: log, Now: time.Now, outbox: outboxState{wake: make(chan struct{}, 1)}}
	k.SetExternals(Externals{})
	return k
}

// APIURL is the REST base of the site ctx is for.
func (a *Kernel) APIURL(ctx context.Context) string { return a.Origin(ctx) + "/api/v1" }

// MCPURL is the MCP endpoint of the site ctx is for.
func (a *Kernel) MCPURL(ctx context.Context) string { return a.Origin(ctx) + "/mcp" }

// ListingURL is a listing's public page on the site ctx is for.
func (a *Kernel) ListingURL(ctx context.Context, slug string) string {
	return a.Origin(ctx) + "/listings/" + slug
}

// Page is the paginated body used everywhere.
type Page[T any] struct {
	Items   []T `json:"items"`
	Page    int `json:"page"`
	PerPage int `json:"per_page"`
	Total   int `json:"total" doc:"How many items match. Exact unless total_is_estimate is true."`
	// TotalIsEstimate is true when more items match than a list counts
	// (10,000; searches, leaderboards and the founders list): Total is then a lower bound
	// or an estimate, not exact.
	TotalIsEstimate bool `json:"total_is_estimate,omitempty" doc:"Present, and true, when more than 10,000 items match a listing search, a leaderboard or the founders list: no request waits for a full count, so total is then an estimate (a one-word search: the share of listings among which its newest 500 matches fall, applied to the live listings) or 10,000, meaning 10,000 or more."`
}

// NewPage is the input's page of items (never a null list).
func NewPage[T any](in *ops.Input, items []T, total int) Page[T] {
	p, pp := in.Page()
	if items == nil {
		items = []T{}
	}
	return Page[T]{Items: items, Page: p, PerPage: pp, Total: total}
}

// Offset returns the SQL offset and limit of the input's page.
func Offset(in *ops.Input) (int, int) {
	p, pp := in.Page()
	return (p - 1) * pp, pp
}

// NotFound maps sql.ErrNoRows to a 404 naming what was missing.
func NotFound(err error, what string) error {
	if db.IsNoRows(err) {
		return ops.NotFound(what)
	}
	return err
}

// FieldErr is one field's message in a 400 problem.
func FieldErr(field, msg string) ops.FieldError { return ops.FieldError{Field: field, Message: msg} }

// Today is the current UTC date (YYYY-MM-DD).
func (a *Kernel) Today() string { return a.Now().UTC().Format(DateLayout) }

// NowText is the current time as stored (RFC 3339, UTC).
func (a *Kernel) NowText() string { return a.Now().UTC().Format(time.RFC3339) }

// Setting reads one setting with a fallback.
func (a *Kernel) Setting(ctx context.Context, key, def string) string {
	var v string
	if site := a.Site(ctx).Key; site != MainSite {
		// A site's own value first; main has none (its values are the
		// settings table), so main reads exactly as a single-site install.
		if err := a.DB.Prepared(a.DB.R).QueryRowContext(ctx, `SELECT value FROM site_settings WHERE site_key = ? AND key = ?`, site, key).Scan(&v); err == nil {
			return v
		}
	}
	if err := a.DB.Prepared(a.DB.R).QueryRowContext(ctx, `SELECT value FROM settings WHERE key = ?`, key).Scan(&v); err != nil {
		return def
	}
	return v
}

// withField names the input a 404 came from.
func WithField(err error, field string) error {
	if e, ok := err.(*ops.Error); ok && e.Code == ops.CodeNotFound {
		e.Fields = []ops.FieldError{{Field: field, Message: "no live listing has this slug"}}
	}
	return err
}

// NormalizeText turns the line endings browsers send (CRLF, or a lone CR)
// into LF, so a text saved from a form and the same text sent through the
// API are equal (and revisions show no spurious change).
func NormalizeText(s string) string {
	return strings.ReplaceAll(strings.ReplaceAll(s, "\r\n", "\n"), "\r", "\n")
}
