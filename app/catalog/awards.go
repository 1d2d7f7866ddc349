package catalog

import (
	"context"
	"database/sql"
	"launchdir/app/kernel"
)

// AwardWeeks gives Launch of the Week awards (#1-#3 by counted weekly
// votes, ties to the older listing) for every finished week since the
// first award-less one, up to 8 weeks back. Idempotent; runs hourly.
func (a *Service) AwardWeeks(ctx context.Context) error {
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
				SELECT ?1, row_number() OVER (ORDER BY w.votes DESC, w.listing_id), w.listing_id, w.votes
				FROM weekly_votes w JOIN listings l ON l.id = w.listing_id
				WHERE w.week = ?1 AND w.votes > 0 AND l.status = 'live' ORDER BY w.votes DESC, w.listing_id LIMIT 3`, week); err != nil {
				return err
			}
		}
		return nil
	})
}
