package kernel

import (
	"context"
	"strconv"
)

// MaxInterviewAnswers bounds answer_interview (and is shown with the questions).
const MaxInterviewAnswers = 30

// SignedIn starts the description of every operation that needs a credential.
const SignedIn = "Signed in: needs scope "

// FreeQueueWeeks is how many weeks ahead the free launch queue starts (setting).
func (a *Kernel) FreeQueueWeeks(ctx context.Context) int {
	n, err := strconv.Atoi(a.Setting(ctx, "free_queue_weeks", "4"))
	if err != nil || n < 0 {
		return 4
	}
	return n
}

// FreeWeeklyCapacity is how many free launches a week holds (setting).
func (a *Kernel) FreeWeeklyCapacity(ctx context.Context) int {
	n, err := strconv.Atoi(a.Setting(ctx, "free_weekly_capacity", "10"))
	if err != nil || n < 1 {
		return 10
	}
	return n
}

// WeekFreeCapacity is the free launch capacity of one week: its own
// override (table week_capacity) or the default setting.
func WeekFreeCapacity(ctx context.Context, q Querier, week string, def int) int {
	var n int
	if err := q.QueryRowContext(ctx, `SELECT free_capacity FROM week_capacity WHERE week = ?`, week).Scan(&n); err != nil {
		return def
	}
	return n
}

// SiteDescription is the directory's one-line description (settings), for
// page descriptions, without get_site_info's counts.
func (a *Kernel) SiteDescription(ctx context.Context) string {
	return a.Setting(ctx, "site_description", "A directory of startup products, launched weekly.")
}

// SiteName is the directory's name as the site team set it (settings
// site_name), falling back to the configured name, so every door shows the
// same name as get_site_info.
func (a *Kernel) SiteName(ctx context.Context) string {
	return a.Setting(ctx, "site_name", a.Cfg.SiteName)
}
