package conversation

import (
	"context"
	"database/sql"

	"launchdir/app/kernel"
	"launchdir/ops"
)

// Upcoming is a scheduled listing's public page: what it is, when it
// launches, and whether the viewer asked to hear when it goes live.
type Upcoming struct {
	ID               int64
	Slug, Name       string
	URL, Tagline     string
	ShortDescription string
	LogoURL          string
	LaunchWeek       string
	Watchers         int
	Watching         bool // the viewer asked to be told at launch
	IsOwner          bool
}

// UpcomingListing finds a scheduled listing for its public page (any
// other status is not found: a live listing has its full page).
func (a *Service) UpcomingListing(ctx context.Context, slug string, viewer int64) (*Upcoming, error) {
	var u Upcoming
	err := a.DB.R.QueryRowContext(ctx, `SELECT l.id, l.slug, l.name, l.url, l.tagline, l.short_description, l.logo_url, coalesce(l.launch_week,''),
		(SELECT count(*) FROM launch_watchers w WHERE w.listing_id = l.id),
		EXISTS(SELECT 1 FROM launch_watchers w WHERE w.listing_id = l.id AND w.user_id = ?1),
		EXISTS(SELECT 1 FROM listing_owners o WHERE o.listing_id = l.id AND o.user_id = ?1)
		FROM listings l WHERE l.slug = ?2 AND l.status = 'scheduled'`, viewer, slug).
		Scan(&u.ID, &u.Slug, &u.Name, &u.URL, &u.Tagline, &u.ShortDescription, &u.LogoURL, &u.LaunchWeek, &u.Watchers, &u.Watching, &u.IsOwner)
	if err != nil {
		return nil, kernel.NotFound(err, "listing "+slug)
	}
	return &u, nil
}

// ToggleLaunchNotice adds or removes the person from the listing's
// "notify me at launch" list; they get one email when it goes live.
func (a *Service) ToggleLaunchNotice(ctx context.Context, userID int64, slug string) (bool, error) {
	var on bool
	err := a.DB.Tx(ctx, func(tx *sql.Tx) error {
		var id int64
		err := tx.QueryRowContext(ctx, `SELECT id FROM listings WHERE slug = ? AND status = 'scheduled'`, slug).Scan(&id)
		if err == nil {
			var shown bool
			if shown, err = kernel.ShownHere(ctx, tx, id); err == nil && !shown {
				err = sql.ErrNoRows
			}
		}
		if err != nil {
			return kernel.NotFound(err, "upcoming listing "+slug)
		}
		var banned bool
		if err := tx.QueryRowContext(ctx, `SELECT EXISTS(SELECT 1 FROM account_bans WHERE user_id = ?)`, userID).Scan(&banned); err != nil {
			return err
		}
		if banned {
			return &ops.Error{Code: ops.CodeForbidden, Detail: "this account can no longer ask for launch emails"}
		}
		res, err := tx.ExecContext(ctx, `DELETE FROM launch_watchers WHERE listing_id = ? AND user_id = ?`, id, userID)
		if err != nil {
			return err
		}
		if n, _ := res.RowsAffected(); n > 0 {
			return nil
		}
		on = true
		_, err = tx.ExecContext(ctx, `INSERT INTO launch_watchers(listing_id, user_id, created_at) VALUES(?,?,?)`, id, userID, a.NowText())
		return err
	})
	return on, err
}
