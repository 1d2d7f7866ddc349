package sites

import (
	"context"
	"database/sql"
	"fmt"
	"slices"

	"launchdir/app/kernel"
	"launchdir/db"
	"launchdir/ops"
)

// ListingSite is one site a listing appears on.
type ListingSite struct {
	Key  string `json:"key"`
	Name string `json:"name"`
	URL  string `json:"url" format:"uri" doc:"The listing's page on that site."`
}

// ListingSites are the sites a listing appears on: main (every live
// listing) and the others chosen for it.
type ListingSites struct {
	ListingID int64         `json:"listing_id"`
	Sites     []ListingSite `json:"sites"`
	Available []string      `json:"available" doc:"Keys of every other site, which the listing may be put on within each site's categories."`
}

// MyListingSites returns the sites of the caller's listing.
func (a *Service) MyListingSites(ctx context.Context, userID, listingID int64) (*ListingSites, error) {
	if err := a.OwnListing(ctx, a.DB.R, userID, listingID); err != nil {
		return nil, err
	}
	return a.listingSites(ctx, a.DB.R, listingID)
}

// SetMyListingSites puts the caller's listing on exactly the given other
// sites (main always shows it). A site showing a subset of categories
// takes only a listing with a category in it; the refusal names the site.
func (a *Service) SetMyListingSites(ctx context.Context, userID, listingID int64, keys []string) (*ListingSites, error) {
	var out *ListingSites
	err := a.DB.Tx(ctx, func(tx *sql.Tx) error {
		if err := a.OwnListing(ctx, tx, userID, listingID); err != nil {
			return err
		}
		if err := a.checkSiteKeys(ctx, tx, listingID, keys); err != nil {
			return err
		}
		if _, err := tx.ExecContext(ctx, `DELETE FROM listing_sites WHERE listing_id = ? AND site_key NOT IN (SELECT value FROM json_each(?))`,
			listingID, db.EncodeJSON(keys)); err != nil {
			return err
		}
		for _, k := range keys {
			if _, err := tx.ExecContext(ctx, `INSERT OR IGNORE INTO listing_sites(site_key, listing_id, added_at) VALUES(?,?,?)`, k, listingID, a.NowText()); err != nil {
				return err
			}
		}
		var err error
		out, err = a.listingSites(ctx, tx, listingID)
		return err
	})
	return out, err
}

// checkSiteKeys: known, not main, not twice, and each site accepts the listing.
func (a *Service) checkSiteKeys(ctx context.Context, q kernel.Querier, listingID int64, keys []string) error {
	var bad []ops.FieldError
	for i, k := range keys {
		field := fmt.Sprintf("sites[%d]", i)
		if _, ok := a.SiteByKey(ctx, k); !ok {
			bad = append(bad, kernel.FieldErr(field, "no site has the key "+k))
			continue
		}
		if k == kernel.MainSite {
			bad = append(bad, kernel.FieldErr(field, "main shows every live listing; list only the other sites"))
			continue
		}
		if slices.Index(keys, k) != i {
			bad = append(bad, kernel.FieldErr(field, "is listed twice"))
			continue
		}
		why, err := kernel.SiteRefusal(ctx, q, k, listingID)
		if err != nil {
			return err
		}
		if why != "" {
			bad = append(bad, kernel.FieldErr(field, why))
		}
	}
	if len(bad) > 0 {
		return ops.InvalidFields(bad)
	}
	return nil
}

func (a *Service) listingSites(ctx context.Context, q kernel.RowsQuerier, listingID int64) (*ListingSites, error) {
	var slug string
	if err := q.QueryRowContext(ctx, `SELECT slug FROM main.listings WHERE id = ?`, listingID).Scan(&slug); err != nil {
		return nil, kernel.NotFound(err, "listing")
	}
	on, err := db.Column[string](ctx, q, `SELECT site_key FROM listing_sites WHERE listing_id = ?`, listingID)
	if err != nil {
		return nil, err
	}
	out := &ListingSites{ListingID: listingID, Sites: []ListingSite{}, Available: []string{}}
	for _, s := range a.Sites(ctx) {
		if s.Key != kernel.MainSite {
			out.Available = append(out.Available, s.Key)
		}
		if s.Key != kernel.MainSite && !slices.Contains(on, s.Key) {
			continue
		}
		sctx := kernel.WithSite(ctx, s)
		out.Sites = append(out.Sites, ListingSite{Key: s.Key, Name: a.SiteName(sctx), URL: a.ListingURL(sctx, slug)})
	}
	return out, nil
}

// SiteListingsChange is what the site team changed on a site.
type SiteListingsChange struct {
	Site     string  `json:"site"`
	Added    []int64 `json:"added"`
	Removed  []int64 `json:"removed"`
	Listings int     `json:"listings" doc:"Live listings the site shows now."`
}

// ChangeSiteListings puts listings on a site and takes others off (the
// site team; the site's category rule applies as it does to owners).
func (a *Service) ChangeSiteListings(ctx context.Context, userID int64, key string, add, remove []int64) (*SiteListingsChange, error) {
	if key == kernel.MainSite {
		return nil, ops.InvalidFields([]ops.FieldError{kernel.FieldErr("key", "main shows every live listing")})
	}
	site, ok := a.SiteByKey(ctx, key)
	if !ok {
		return nil, &ops.Error{Code: ops.CodeNotFound, Detail: "no site has the key " + key}
	}
	out := &SiteListingsChange{Site: key, Added: []int64{}, Removed: []int64{}}
	err := a.DB.Tx(ctx, func(tx *sql.Tx) error {
		if err := a.requireTeam(ctx, tx, userID); err != nil {
			return err
		}
		var bad []ops.FieldError
		for i, id := range add {
			var n int
			if err := tx.QueryRowContext(ctx, `SELECT count(*) FROM listings WHERE id = ?`, id).Scan(&n); err != nil {
				return err
			}
			if n == 0 {
				bad = append(bad, kernel.FieldErr(fmt.Sprintf("add[%d]", i), "no listing has this id"))
				continue
			}
			why, err := kernel.SiteRefusal(ctx, tx, key, id)
			if err != nil {
				return err
			}
			if why != "" {
				bad = append(bad, kernel.FieldErr(fmt.Sprintf("add[%d]", i), why))
			}
		}
		if len(bad) > 0 {
			return ops.InvalidFields(bad)
		}
		for _, id := range add {
			res, err := tx.ExecContext(ctx, `INSERT OR IGNORE INTO listing_sites(site_key, listing_id, added_at) VALUES(?,?,?)`, key, id, a.NowText())
			if err != nil {
				return err
			}
			if n, _ := res.RowsAffected(); n > 0 {
				out.Added = append(out.Added, id)
			}
		}
		for _, id := range remove {
			res, err := tx.ExecContext(ctx, `DELETE FROM listing_sites WHERE site_key = ? AND listing_id = ?`, key, id)
			if err != nil {
				return err
			}
			if n, _ := res.RowsAffected(); n > 0 {
				out.Removed = append(out.Removed, id)
			}
		}
		return a.audit(ctx, tx, userID, "change_site_listings", key, nil, out)
	})
	if err != nil {
		return nil, err
	}
	n, err := a.DB.Count(kernel.WithSite(ctx, site), `SELECT count(*) FROM listings WHERE status = 'live'`)
	out.Listings = n
	return out, err
}
