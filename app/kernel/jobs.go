package kernel

import (
	"context"
	"fmt"
	"log/slog"
	"runtime/debug"
	"time"
)

// Job is a periodic background task. Each is idempotent, so running late
// or twice after a restart is harmless and downtime is caught up on the
// first run.
type Job struct {
	Name  string
	Every time.Duration
	// After delays the first run (0: at start), for work that can wait
	// while a server that just started warms up.
	After time.Duration
	Run   func(ctx context.Context) error
}

// RunJobs runs every job once at start (or after its delay), then on its
// interval, until ctx ends; it returns when all have stopped.
func RunJobs(ctx context.Context, log *slog.Logger, jobs []Job) {
	done := make(chan struct{}, len(jobs))
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
				if err := runJob(ctx, j); err != nil && ctx.Err() == nil {
					log.Error("background job", "job", j.Name, "err", err)
				}
				select {
				case <-ctx.Done():
					return
				case <-t.C:
				}
			}
		}(j)
	}
	for range jobs {
		<-done
	}
}

// runJob runs one job, turning a panic into an error: a bug in one job
// must not take the server down.
func runJob(ctx context.Context, j Job) (err error) {
	defer func() {
		if r := recover(); r != nil {
			err = fmt.Errorf("panic: %v\n%s", r, debug.Stack())
		}
	}()
	return j.Run(ctx)
}
