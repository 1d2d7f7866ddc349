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
		rows, err := tx.QueryContext(ctx, `UPDATE listings SET status = 'live', launched_at = launch_week || 'T00:00:00Z', updated_at = ?
			WHERE status = 'scheduled' AND launch_week IS NOT NULL AND launch_week <= ? RETURNING id`, a.Now().UTC().Format(time.RFC3339), week)
		if err != nil {
			return err
		}
		var ids []int64
		for rows.Next() {
			var id int64
			if err := rows.Scan(&id); err != nil {
				rows.Close()
				return err
			}
			ids = append(ids, id)
		}
		rows.Close()
		if err := rows.Err(); err != nil || len(ids) == 0 {
			return err
		}
		a.Log.Info("scheduled listings went live", "count", len(ids), "week", week)
		// Owners and the people waiting are told in the same transaction.
		for _, id := range ids {
			if err := a.NotifyWentLive(ctx, tx, id); err != nil {
				return err
			}
		}
		return db.RecountCategories(ctx, tx)
	})
}
