package catalog

import (
	"context"
	"database/sql"
	"launchdir/app/kernel"
	"launchdir/db"
	"time"
)

// GoLiveDue makes scheduled listings live once their launch week has begun.
func (a *Service) GoLiveDue(ctx context.Context) error {
	week := kernel.WeekOf(a.Now())
	return a.DB.Tx(ctx, func(tx *sql.Tx) error {
		res, err := tx.ExecContext(ctx, `UPDATE listings SET status = 'live', launched_at = launch_week || 'T00:00:00Z', updated_at = ?
			WHERE status = 'scheduled' AND launch_week IS NOT NULL AND launch_week <= ?`, a.Now().UTC().Format(time.RFC3339), week)
		if err != nil {
			return err
		}
		if n, _ := res.RowsAffected(); n > 0 {
			a.Log.Info("scheduled listings went live", "count", n, "week", week)
			return db.RecountCategories(ctx, tx)
		}
		return nil
	})
}
