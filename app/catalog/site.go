package catalog

import (
	"context"
	"encoding/json"

	"launchdir/db"
)

// Reads the website (site/) needs beyond the operations table. They are
// plain public reads; every rule stays in the operations they mirror.

// FeaturedInWeek lists the live listings holding a paid featured slot in
// week (YYYY-MM-DD Monday), in booking order.
func (a *Service) FeaturedInWeek(ctx context.Context, week string) ([]db.Summary, error) {
	return a.DB.Summaries(ctx, ` JOIN featured_slots f ON f.listing_id = l.id
		WHERE f.week = ?1 AND l.status = 'live' ORDER BY l.votes DESC, l.id LIMIT 6`, week)
}

// ListingIDs maps the slugs of listings to their ids (slugs of none are
// left out): cards that came through JSON, which drops ids, find their
// thumbnails and votes by id in one query for the page.
func (a *Service) ListingIDs(ctx context.Context, slugs []string) (map[string]int64, error) {
	out := map[string]int64{}
	if len(slugs) == 0 {
		return out, nil
	}
	list, _ := json.Marshal(slugs)
	rows, err := a.DB.Prepared(a.DB.R).QueryContext(ctx, `SELECT slug, id FROM listings WHERE slug IN (SELECT value FROM json_each(?))`, string(list))
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	for rows.Next() {
		var slug string
		var id int64
		if err := rows.Scan(&slug, &id); err != nil {
			return nil, err
		}
		out[slug] = id
	}
	return out, rows.Err()
}

// SitemapEntry is one public address for sitemap.xml.
type SitemapEntry struct {
	Slug      string
	UpdatedAt string
}

// SitemapListings pages through live listings by id for the sitemap. The
// offset skips entries of the small index of live ids in id order, and only
// the page's rows are read from the table: the planner's own choice (the
// status index, then every live listing sorted by id) took 429 ms for the
// first file at 1M listings.
func (a *Service) SitemapListings(ctx context.Context, offset, limit int) ([]SitemapEntry, error) {
	return a.sitemapRows(ctx, `SELECT slug, coalesce(updated_at,'') FROM listings INDEXED BY listings_live_ids
		WHERE status = 'live' ORDER BY id LIMIT ? OFFSET ?`, limit, offset)
}

// LiveListingCount is the number of live listings: the counter the listing
// triggers keep (exact and O(1); a count was 0.1 s at 1M listings).
func (a *Service) LiveListingCount(ctx context.Context) (int, error) {
	return a.DB.StatusCount(ctx, "live")
}

// SitemapOthers lists founders ("founder"), categories ("category") and blog posts ("post").
func (a *Service) SitemapOthers(ctx context.Context, kind string) ([]SitemapEntry, error) {
	q := map[string]string{
		"founder":  `SELECT DISTINCT f.slug, '' FROM founders f JOIN listing_founders lf ON lf.founder_id = f.id JOIN listings l ON l.id = lf.listing_id WHERE l.status = 'live' ORDER BY f.slug LIMIT 50000`,
		"category": `SELECT slug, '' FROM categories ORDER BY slug`,
		"post":     `SELECT slug, coalesce(published_at,'') FROM blog_posts ORDER BY published_at DESC LIMIT 50000`,
	}[kind]
	return a.sitemapRows(ctx, q)
}

func (a *Service) sitemapRows(ctx context.Context, q string, args ...any) ([]SitemapEntry, error) {
	rows, err := a.DB.R.QueryContext(ctx, q, args...)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var out []SitemapEntry
	for rows.Next() {
		var e SitemapEntry
		if err := rows.Scan(&e.Slug, &e.UpdatedAt); err != nil {
			return nil, err
		}
		out = append(out, e)
	}
	return out, rows.Err()
}
