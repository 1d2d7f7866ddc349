package kernel

import (
	"context"
	"net"
	"net/url"
	"strings"
	"time"

	"launchdir/db"
)

// MainSite is the key of the default site: the directory a single-site
// install has always been. Its origin is the -base-url flag and its
// settings are the settings table.
const MainSite = "main"

// Site is one directory this process serves (table sites). Which site a
// request is for comes from its host name (SiteForHost) and travels in the
// request's context (WithSite); everything that names the directory — links,
// canonical URLs, emails, the issuer — asks Origin(ctx) and Setting(ctx, ...).
type Site struct {
	Key    string
	Origin string   // public origin, scheme://host[:port], no trailing slash
	Hosts  []string // lowercase host[:port] names routed here (the origin's host first)
}

// sitesTTL bounds how long a process serves a stale list of sites: a read
// replica learns of a new site (written on the primary) within it. The
// process that writes a site reloads at once (ReloadSites).
const sitesTTL = 2 * time.Second

type siteTable struct {
	byKey  map[string]*Site
	byHost map[string]*Site
	order  []*Site // main first, then by position and key
	at     time.Time
}

type siteCtxKey struct{}

// WithSite returns ctx carrying the site a request is for; its reads of
// the database are that site's (db.WithSite: another site's reads see only
// its listings, votes, launches and awards).
func WithSite(ctx context.Context, s *Site) context.Context {
	ctx = context.WithValue(ctx, siteCtxKey{}, s)
	if s != nil {
		ctx = db.WithSite(ctx, s.Key)
	}
	return ctx
}

// Site is the site ctx is for: the one set by WithSite, else main (jobs,
// the command line and tests that never name a site).
func (a *Kernel) Site(ctx context.Context) *Site {
	if s, ok := ctx.Value(siteCtxKey{}).(*Site); ok && s != nil {
		return s
	}
	return a.sites(ctx).byKey[MainSite]
}

// SiteKey is the key of the site ctx is for.
func (a *Kernel) SiteKey(ctx context.Context) string { return a.Site(ctx).Key }

// Origin is the public origin of the site ctx is for, no trailing slash.
func (a *Kernel) Origin(ctx context.Context) string { return a.Site(ctx).Origin }

// Sites lists every site, main first.
func (a *Kernel) Sites(ctx context.Context) []*Site { return a.sites(ctx).order }

// SiteByKey finds a site by its key.
func (a *Kernel) SiteByKey(ctx context.Context, key string) (*Site, bool) {
	s, ok := a.sites(ctx).byKey[key]
	return s, ok
}

// SiteForHost picks the site a request's Host header names. A host listed
// for a site (or its origin's host) is that site, with or without the port.
// While main is the only site every host is main, as it has always been;
// once there are several, main answers only its own hosts and any other
// host is unknown (ok false) — never another site's content.
func (a *Kernel) SiteForHost(ctx context.Context, host string) (*Site, bool) {
	t := a.sites(ctx)
	host = strings.ToLower(strings.TrimSuffix(host, "."))
	if s, ok := t.byHost[host]; ok {
		return s, true
	}
	if h, _, err := net.SplitHostPort(host); err == nil {
		if s, ok := t.byHost[h]; ok {
			return s, true
		}
	}
	if len(t.order) == 1 {
		return t.order[0], true
	}
	return nil, false
}

// ReloadSites drops the cached list of sites; call it after a write to
// sites or site_hosts has committed.
func (a *Kernel) ReloadSites() { a.siteCache.Store(nil) }

func (a *Kernel) sites(ctx context.Context) *siteTable {
	if t := a.siteCache.Load(); t != nil && time.Since(t.at) < sitesTTL {
		return t
	}
	t, err := a.loadSites(ctx)
	if err != nil {
		if old := a.siteCache.Load(); old != nil {
			return old // keep serving what we knew; the next call retries
		}
		a.Log.Error("loading sites", "err", err)
		t = a.onlyMain()
	}
	a.siteCache.Store(t)
	return t
}

// onlyMain is the table of a database without the sites table (never
// migrated this far) or that could not be read.
func (a *Kernel) onlyMain() *siteTable {
	main := &Site{Key: MainSite, Origin: a.Cfg.BaseURL}
	t := &siteTable{byKey: map[string]*Site{}, byHost: map[string]*Site{}, order: []*Site{main}, at: time.Now()}
	t.add(main)
	return t
}

func (a *Kernel) loadSites(ctx context.Context) (*siteTable, error) {
	rows, err := a.DB.R.QueryContext(ctx, `SELECT key, origin FROM sites ORDER BY key != 'main', position, key`)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	t := &siteTable{byKey: map[string]*Site{}, byHost: map[string]*Site{}, at: time.Now()}
	for rows.Next() {
		s := &Site{}
		if err := rows.Scan(&s.Key, &s.Origin); err != nil {
			return nil, err
		}
		if s.Key == MainSite || s.Origin == "" {
			s.Origin = a.Cfg.BaseURL
		}
		t.order = append(t.order, s)
	}
	if err := rows.Err(); err != nil {
		return nil, err
	}
	if len(t.order) == 0 || t.order[0].Key != MainSite {
		return a.onlyMain(), nil
	}
	extra := map[string][]string{}
	hr, err := a.DB.R.QueryContext(ctx, `SELECT host, site_key FROM site_hosts ORDER BY host`)
	if err != nil {
		return nil, err
	}
	defer hr.Close()
	for hr.Next() {
		var h, k string
		if err := hr.Scan(&h, &k); err != nil {
			return nil, err
		}
		extra[k] = append(extra[k], h)
	}
	if err := hr.Err(); err != nil {
		return nil, err
	}
	for _, s := range t.order {
		s.Hosts = append(s.Hosts, extra[s.Key]...)
		t.add(s)
	}
	return t, nil
}

// add indexes s (already in t.order) by key and by its hosts, the
// origin's host first (a host listed twice goes to the first site that
// claims it).
func (t *siteTable) add(s *Site) {
	t.byKey[s.Key] = s
	hosts := s.Hosts
	if h := OriginHost(s.Origin); h != "" {
		hosts = append([]string{h}, hosts...)
	}
	s.Hosts = dedupe(hosts)
	for _, h := range s.Hosts {
		if _, taken := t.byHost[h]; !taken {
			t.byHost[h] = s
		}
	}
}

// OriginHost is the lowercase host[:port] of an origin, "" if it is not one.
func OriginHost(origin string) string {
	u, err := url.Parse(origin)
	if err != nil || u.Host == "" {
		return ""
	}
	return strings.ToLower(u.Host)
}

func dedupe(in []string) []string {
	seen := map[string]bool{}
	out := in[:0:0]
	for _, h := range in {
		if h != "" && !seen[h] {
			seen[h] = true
			out = append(out, h)
		}
	}
	return out
}

// SiteRefusal says why a site does not accept a listing ("" when it does):
// a site that shows a subset of categories takes only listings with a
// category in it (a chosen category's subcategories included). q may be a
// write transaction.
func SiteRefusal(ctx context.Context, q Querier, siteKey string, listingID int64) (string, error) {
	var ok bool
	err := q.QueryRowContext(ctx, `WITH chosen AS (SELECT value AS slug FROM json_each(coalesce(
			(SELECT value FROM main.site_settings WHERE site_key = ?1 AND key = 'categories'), '[]')))
		SELECT NOT EXISTS (SELECT 1 FROM chosen) OR EXISTS (
			SELECT 1 FROM main.categories k LEFT JOIN main.categories p ON p.id = k.parent_id
			WHERE (k.slug IN (SELECT slug FROM chosen) OR p.slug IN (SELECT slug FROM chosen))
			  AND (k.id IN (SELECT category_id FROM main.listing_categories WHERE listing_id = ?2)
			       OR k.id = (SELECT primary_category_id FROM main.listings WHERE id = ?2)))`, siteKey, listingID).Scan(&ok)
	if err != nil || ok {
		return "", err
	}
	return "the site " + siteKey + " shows only some categories, and this listing is in none of them", nil
}

// PlaceOnSite puts a listing on the site ctx is for, when that is not main
// (main shows every live listing) and the site accepts it (SiteRefusal);
// placed reports whether it is on the site now. Called in the transaction
// that makes a listing from a draft submitted on that site's host.
func (a *Kernel) PlaceOnSite(ctx context.Context, tx Execer, q Querier, listingID int64) (placed bool, err error) {
	site := a.SiteKey(ctx)
	if site == MainSite {
		return false, nil
	}
	why, err := SiteRefusal(ctx, q, site, listingID)
	if err != nil || why != "" {
		return false, err
	}
	_, err = tx.ExecContext(ctx, `INSERT OR IGNORE INTO listing_sites(site_key, listing_id, added_at) VALUES(?,?,?)`, site, listingID, a.NowText())
	return err == nil, err
}

// CtxSiteKey is the key of the site ctx is for (main when none), for code
// without a Kernel at hand.
func CtxSiteKey(ctx context.Context) string {
	if s, ok := ctx.Value(siteCtxKey{}).(*Site); ok && s != nil {
		return s.Key
	}
	return MainSite
}

// WholeNetwork returns ctx whose database reads see every listing, as
// main's do, while the site (origin, name, settings, prices, calendar)
// stays ctx's. Signed-in work — an owner's listings, orders, drafts,
// claims, the account — is shared by every site: the operations table runs
// every operation that needs a credential with it, and a door's signed-in
// pages should too. Public reads keep the site's view.
func WholeNetwork(ctx context.Context) context.Context { return db.WithSite(ctx, db.MainSite) }

// SiteView returns ctx whose database reads are the site's own again (its
// listings, calendar, votes), undoing WholeNetwork: for a site's calendar
// read inside a signed-in area.
func SiteView(ctx context.Context) context.Context { return db.WithSite(ctx, CtxSiteKey(ctx)) }
