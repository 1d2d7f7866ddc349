package demo

import (
	"context"
	"database/sql"
	"strings"

	"launchdir/app/sites"
	"launchdir/db"
)

// The demo's second directory (serve -demo-site devtools, issue 24): a
// developer-tools directory over the same listings, so an operator sees
// two sites from one database in a minute. It shows the demo's live
// listings of its categories, and carries votes of its own, so its weekly
// ranks and awards differ from main's.

// DevCategories are the categories the second demo site shows.
var DevCategories = []string{"developer-tools", "ai", "security-privacy"}

// SecondSite makes the site key at origin if it is missing: named, coloured
// and limited to DevCategories, with the live listings of those categories
// on it and votes cast there by demo accounts. created is false when the
// site existed (it is then left as it is).
func SecondSite(ctx context.Context, net *sites.Service, d *db.DB, key, origin string) (created bool, err error) {
	name, tagline, accent := "DevTools Launch", "Developer tools, launched weekly.", "#0f766e"
	if key != "devtools" {
		name = strings.ToUpper(key[:1]) + key[1:] + " Launch"
	}
	cats, capacity := append([]string{}, DevCategories...), 5
	created, err = net.Ensure(ctx, sites.Input{Key: key, Origin: &origin, Name: &name, Tagline: &tagline,
		AccentColor: &accent, Categories: &cats, FreeWeeklyCapacity: &capacity})
	if err != nil || !created {
		return created, err
	}
	ids, err := db.Column[int64](ctx, d.W, `SELECT DISTINCT l.id FROM listings l
		JOIN listing_categories lc ON lc.listing_id = l.id JOIN categories k ON k.id = lc.category_id
		LEFT JOIN categories p ON p.id = k.parent_id
		WHERE l.status IN ('live','scheduled') AND (k.slug IN (SELECT value FROM json_each(?1)) OR p.slug IN (SELECT value FROM json_each(?1)))
		ORDER BY l.id`, db.EncodeJSON(cats))
	if err != nil {
		return true, err
	}
	if _, err := net.PutListings(ctx, key, ids); err != nil {
		return true, err
	}
	return true, siteVotes(ctx, d, key)
}

// siteVotes casts the site's own votes: in each launch week there, a
// deterministic share of the demo's accounts (by listing), so the site's
// order is not main's. The counters are what the vote path keeps.
func siteVotes(ctx context.Context, d *db.DB, key string) error {
	return d.Tx(ctx, func(tx *sql.Tx) error {
		for _, q := range []string{
			`INSERT INTO site_votes(site_key, listing_id, voter, week, created_at, counted)
			 SELECT ?1, n.listing_id, CAST(u.id AS TEXT), n.week, n.week || 'T12:00:00Z', 1
			 FROM site_launches n JOIN users u ON u.id <= 60 AND u.id % 17 < (n.listing_id * 7) % 13
			 WHERE n.site_key = ?1`,
			`INSERT INTO site_weekly_votes(site_key, week, listing_id, votes)
			 SELECT ?1, week, listing_id, count(*) FROM site_votes WHERE site_key = ?1 AND counted GROUP BY week, listing_id`,
			`UPDATE listing_sites SET votes = (SELECT count(*) FROM site_votes v WHERE v.site_key = ?1 AND v.listing_id = listing_sites.listing_id AND v.counted)
			 WHERE site_key = ?1`,
		} {
			if _, err := tx.ExecContext(ctx, q, key); err != nil {
				return err
			}
		}
		return nil
	})
}
