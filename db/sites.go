package db

import (
	"context"
	"database/sql/driver"
	"fmt"
	"regexp"
	"strings"
	"sync"
)

// Several sites over one file (issue 24). The main site is the network's
// full directory and reads main's tables exactly as before. A read for any
// other site runs the same query text with views prepended (a WITH clause)
// that shadow main's table names with that site's rows: listings becomes
// the listings on the site (listing_sites) carrying the site's vote count
// and its copy of the headline/summary/SEO fields; categories the site's
// subset with counts of its own listings; votes, weekly_votes, launches,
// awards and week_capacity the site_* rows of that site. So every public
// read, count and ranking (WeekRankFrom) is written once and cannot show
// another site's listings, and main's queries, plans and caches are
// untouched.
//
// The site travels in the context (WithSite, set by kernel.WithSite). The
// read pool's connections rewrite each statement for the context's site
// (siteConn); a read-cache or count-cache key is prefixed with the site.
// Writes name the site's tables explicitly.

// MainSite is the default site's key (kernel.MainSite).
const MainSite = "main"

type siteCtxKey struct{}

// WithSite returns ctx whose reads are for the site key.
func WithSite(ctx context.Context, key string) context.Context {
	return context.WithValue(ctx, siteCtxKey{}, key)
}

// SiteOf is the site key ctx reads for (main when none was set).
func SiteOf(ctx context.Context) string {
	if k, ok := ctx.Value(siteCtxKey{}).(string); ok && k != "" {
		return k
	}
	return MainSite
}

// siteKeyRE is what a site key may be; only such keys are written into a
// view's SQL (they are also checked when a site is created).
var siteKeyRE = regexp.MustCompile(`^[a-z0-9][a-z0-9-]{0,39}$`)

// indexedBy: an INDEXED BY names an index of main's table, which a view
// does not have; the view's own plan is used instead.
var indexedBy = regexp.MustCompile(`(?i)\s+INDEXED\s+BY\s+\w+`)

// siteShape is what the views need from the schema, read once at open.
type siteShape struct {
	listingCols  []string
	categoryCols []string
	shadowEmpty  []string // stored tables a non-main site must not read (assembled fresh instead)
	views        sync.Map // site key -> WITH body
}

// siteCopyCols are the listing fields a site's copy overrides when not empty.
var siteCopyCols = map[string]bool{"headline": true, "summary": true, "seo_title": true, "seo_description": true}

// storedForMain lists tables of stored, assembled main-site data (e.g. a
// listing's ready-made profile) that another site sees as empty, so its
// reads assemble fresh from the shadowed tables.
var storedForMain = []string{"listing_profiles"}

func (d *DB) loadSiteShape(ctx context.Context, q querier) error {
	cols := func(table string) ([]string, error) {
		return Column[string](ctx, q, `SELECT name FROM pragma_table_info(?) ORDER BY cid`, table)
	}
	s := &siteShape{}
	var err error
	if s.listingCols, err = cols("listings"); err != nil {
		return err
	}
	if s.categoryCols, err = cols("categories"); err != nil {
		return err
	}
	for _, t := range storedForMain {
		c, err := cols(t)
		if err != nil {
			return err
		}
		if len(c) > 0 {
			s.shadowEmpty = append(s.shadowEmpty, t)
		}
	}
	d.shape = s
	return nil
}

// views is the WITH body of the site key's views.
func (s *siteShape) viewsFor(key string) string {
	if v, ok := s.views.Load(key); ok {
		return v.(string)
	}
	k := "'" + key + "'"
	lc := make([]string, len(s.listingCols))
	for i, c := range s.listingCols {
		switch {
		case c == "votes":
			lc[i] = "s.votes AS votes"
		case siteCopyCols[c]:
			lc[i] = fmt.Sprintf("coalesce(nullif(cp.%[1]s, ''), x.%[1]s) AS %[1]s", c)
		default:
			lc[i] = "x." + c
		}
	}
	sel := `coalesce((SELECT value FROM main.site_settings WHERE site_key = ` + k + ` AND key = 'categories'), '[]')`
	chosen := `(SELECT c2.id FROM main.categories c2 WHERE json_array_length(` + sel + `) = 0 OR c2.slug IN (SELECT value FROM json_each(` + sel + `)))`
	cc := make([]string, len(s.categoryCols))
	for i, c := range s.categoryCols {
		switch c {
		case "parent_id": // a chosen subcategory without its parent is a top category here
			cc[i] = "CASE WHEN x.parent_id IN " + chosen + " THEN x.parent_id END AS parent_id"
		case "live_count":
			cc[i] = `(SELECT count(DISTINCT lc.listing_id) FROM main.listing_categories lc
				JOIN main.listing_sites s2 ON s2.listing_id = lc.listing_id AND s2.site_key = ` + k + `
				JOIN main.listings l2 ON l2.id = lc.listing_id AND l2.status = 'live'
				JOIN main.categories k2 ON k2.id = lc.category_id WHERE k2.id = x.id OR k2.parent_id = x.id) AS live_count`
		default:
			cc[i] = "x." + c
		}
	}
	parts := []string{
		`listings AS (SELECT ` + strings.Join(lc, ", ") + ` FROM main.listings x
			JOIN main.listing_sites s ON s.listing_id = x.id AND s.site_key = ` + k + `
			LEFT JOIN main.listing_site_copy cp ON cp.listing_id = x.id AND cp.site_key = ` + k + `)`,
		`categories AS (SELECT ` + strings.Join(cc, ", ") + ` FROM main.categories x WHERE x.id IN ` + chosen + ` OR x.parent_id IN ` + chosen + `)`,
		`listing_status_counts AS (SELECT status, count(*) AS n FROM listings GROUP BY status)`,
		`votes AS (SELECT listing_id, voter, week, created_at, counted, ip, net, ring_id FROM main.site_votes WHERE site_key = ` + k + `)`,
		`weekly_votes AS (SELECT week, listing_id, votes FROM main.site_weekly_votes WHERE site_key = ` + k + `)`,
		`launches AS (SELECT week, listing_id, votes, relaunch FROM main.site_launches WHERE site_key = ` + k + `)`,
		`awards AS (SELECT week, rank, listing_id, votes FROM main.site_awards WHERE site_key = ` + k + `)`,
		`week_capacity AS (SELECT week, free_capacity FROM main.site_week_capacity WHERE site_key = ` + k + `)`,
		`featured_slots AS (SELECT listing_id, week, order_id FROM main.site_featured_slots WHERE site_key = ` + k + `)`,
	}
	for _, t := range s.shadowEmpty {
		parts = append(parts, t+` AS (SELECT * FROM main.`+t+` WHERE 0)`)
	}
	v := strings.Join(parts, ",\n")
	s.views.Store(key, v)
	return v
}

// SiteSQL is query as it runs for the site key: unchanged for main, else
// with the site's views prepended. Statements other than a SELECT (or a
// WITH ... SELECT) are returned unchanged.
func (d *DB) SiteSQL(key, query string) string {
	if key == MainSite || d.shape == nil || !siteKeyRE.MatchString(key) {
		return query
	}
	t := strings.TrimLeft(query, " \t\r\n")
	head := strings.ToUpper(t[:min(len(t), 16)])
	views := d.shape.viewsFor(key)
	switch {
	case strings.HasPrefix(head, "WITH RECURSIVE"):
		return "WITH RECURSIVE " + views + ",\n" + indexedBy.ReplaceAllString(t[len("WITH RECURSIVE"):], "")
	case strings.HasPrefix(head, "WITH"):
		return "WITH " + views + ",\n" + indexedBy.ReplaceAllString(t[len("WITH"):], "")
	case strings.HasPrefix(head, "SELECT"):
		return "WITH " + views + "\n" + indexedBy.ReplaceAllString(t, "")
	}
	return query
}

// siteKeyPrefix is what a cache key starts with for ctx's site.
func siteKeyPrefix(ctx context.Context) string {
	if k := SiteOf(ctx); k != MainSite {
		return "site:" + k + " "
	}
	return ""
}

// openReadPool opens a read pool whose connections run each query for the
// context's site (connstmts.go).
func (d *DB) openReadPool(dsn string) (*ReadPool, error) {
	p, err := openPool(dsn, d)
	if err != nil {
		return nil, err
	}
	return &ReadPool{DB: p, d: d}, nil
}

// rawConn is what database/sql uses of the driver's connection.
type rawConn interface {
	driver.Conn
	driver.QueryerContext
	driver.ExecerContext
	driver.ConnPrepareContext
	driver.ConnBeginTx
	driver.Pinger
	driver.SessionResetter
	driver.Validator
}

// ListingCopy is the headline, summary and SEO fields a live listing shows
// on ctx's site: another site's own copy (apply_to) where it wrote one,
// else the listing's.
type ListingCopy struct {
	Headline, Summary, SEOTitle, SEODescription string
}

// LiveListingCopy reads a live listing's copy for ctx's site.
func (d *DB) LiveListingCopy(ctx context.Context, slug string) (ListingCopy, error) {
	var c ListingCopy
	err := d.R.QueryRowContext(ctx, `SELECT headline, summary, seo_title, seo_description FROM listings WHERE slug = ? AND status = 'live'`, slug).
		Scan(&c.Headline, &c.Summary, &c.SEOTitle, &c.SEODescription)
	return c, err
}
