package app

import (
	"context"
	"database/sql"
	"fmt"
	"runtime/debug"
	"time"

	"launchdir/db"
)

// Job is a periodic background task.
type Job struct {
	Name  string
	Every time.Duration
	// After delays the first run (0: at start), for work that can wait
	// while a server that just started warms up.
	After time.Duration
	Run   func(ctx context.Context) error
}

// jobs are the periodic tasks; each is idempotent, so running late or twice
// after a restart is harmless and downtime is caught up on the first run.
func (a *App) jobs() []Job {
	return append([]Job{
		{Name: "launch scheduler", Every: time.Minute, Run: a.GoLiveDue},
		{Name: "idempotency purge", Every: time.Hour, Run: a.PurgeIdempotency},
		{Name: "outbox delivery", Every: 15 * time.Second, Run: a.DeliverOutbox},
		{Name: "planner statistics", Every: time.Hour, Run: a.DB.Optimize},
		{Name: "draft sweep", Every: time.Minute, Run: a.SweepDrafts},
		{Name: "launch awards", Every: time.Hour, Run: a.AwardWeeks},
		// 23 s of batched writes at 1M listings: not in the first minutes.
		{Name: "trending decay", Every: time.Hour, After: 5 * time.Minute, Run: a.RefreshTrending},
		{Name: "session purge", Every: time.Hour, Run: a.PurgeSessions},
	}, a.extraJobs...)
}

// AddJob registers another periodic task (outbox, crawler, orders).
func (a *App) AddJob(j Job) { a.extraJobs = append(a.extraJobs, j) }

// RunBackground runs every job once at start, then on its interval, until ctx ends.
func (a *App) RunBackground(ctx context.Context) {
	jobs := a.jobs()
	done := make(chan struct{}, len(jobs)+1)
	go func() { a.runDraftWorkers(ctx); done <- struct{}{} }()
	for _, j := range jobs {
		go func(j Job) {
			defer func() { done <- struct{}{} }()
			if j.After > 0 {
				select {
				case <-ctx.Done():
					return
				case <-time.After(j.After):
				}
			}
			t := time.NewTicker(j.Every)
			defer t.Stop()
			for {
				if err := a.runJob(ctx, j); err != nil && ctx.Err() == nil {
					a.Log.Error("background job", "job", j.Name, "err", err)
				}
				select {
				case <-ctx.Done():
					return
				case <-t.C:
				}
			}
		}(j)
	}
	for range len(jobs) + 1 {
		<-done
	}
}

// runJob runs one job, turning a panic into an error: a bug in one job
// must not take the server down.
func (a *App) runJob(ctx context.Context, j Job) (err error) {
	defer func() {
		if r := recover(); r != nil {
			err = fmt.Errorf("panic: %v\n%s", r, debug.Stack())
		}
	}()
	return j.Run(ctx)
}

// GoLiveDue makes scheduled listings live once their launch week has begun.
func (a *App) GoLiveDue(ctx context.Context) error {
	week := WeekOf(a.Now())
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
