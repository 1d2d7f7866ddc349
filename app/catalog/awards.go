package catalog

import (
	"context"
	"database/sql"
	"launchdir/app/kernel"
	"launchdir/db"
)

// AwardWeeks gives Launch of the Week awards for every finished week since
// the first award-less one, up to 8 weeks back: #1-#3 are the first three
// of that week's ranking (db.WeekRankFrom: listings launched or relaunched
// that week, by their votes in it, ties to the older listing) with at least
// one vote, so a listing can win only in a week it launched in. Idempotent;
// runs hourly. Every site gives its own awards from its own ranking (the
// same rule over that site's launches: db.SiteSQL).
func (a *Service) AwardWeeks(ctx context.Context) error {
	for _, s := range a.Sites(ctx) {
		if s.Key == kernel.MainSite {
			if err := a.awardMainWeeks(ctx); err != nil {
				return err
			}
		} else if err := a.awardSiteWeeks(ctx, s.Key); err != nil {
			return err
		}
	}
	return nil
}

// awardSiteWeeks is awardMainWeeks for another site: its rows in site_awards.
func (a *Service) awardSiteWeeks(ctx context.Context, site string) error {
	this := kernel.Monday(a.Now())
	rank := a.DB.SiteSQL(site, `SELECT ?2, ?1, row_number() OVER (`+db.WeekRankOrder+`), n.listing_id, n.votes`+db.WeekRankFrom+`
		AND n.votes > 0`+db.WeekRankOrder+` LIMIT 3`)
	return a.DB.Tx(ctx, func(tx *sql.Tx) error {
		for i := 8; i >= 1; i-- {
			week := this.AddDate(0, 0, -7*i).Format(kernel.DateLayout)
			var n int
			if err := tx.QueryRowContext(ctx, `SELECT count(*) FROM site_awards WHERE site_key = ? AND week = ?`, site, week).Scan(&n); err != nil {
				return err
			}
			if n > 0 {
				continue
			}
			if _, err := tx.ExecContext(ctx, `INSERT INTO site_awards(site_key, week, rank, listing_id, votes) `+rank, week, site); err != nil {
				return err
			}
		}
		return nil
	})
}

func (a *Service) awardMainWeeks(ctx context.Context) error {
	this := kernel.Monday(a.Now())
	return a.DB.Tx(ctx, func(tx *sql.Tx) error {
		for i := 8; i >= 1; i-- {
			week := this.AddDate(0, 0, -7*i).Format(kernel.DateLayout)
			var n int
			if err := tx.QueryRowContext(ctx, `SELECT count(*) FROM awards WHERE week = ?`, week).Scan(&n); err != nil {
				return err
			}
			if n > 0 {
				continue
			}
			if _, err := tx.ExecContext(ctx, `INSERT INTO awards(week, rank, listing_id, votes)
				SELECT ?1, row_number() OVER (`+db.WeekRankOrder+`), n.listing_id, n.votes`+db.WeekRankFrom+`
				AND n.votes > 0`+db.WeekRankOrder+` LIMIT 3`, week); err != nil {
				return err
			}
		}
		return nil
	})
}
