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
// override (table week_capacity; another site's: site_week_capacity) or
// the default setting. The site is ctx's (q may be a write transaction,
// which reads main's tables as they are).
func WeekFreeCapacity(ctx context.Context, q Querier, week string, def int) int {
	var n int
	query, args := `SELECT free_capacity FROM week_capacity WHERE week = ?`, []any{week}
	if site := CtxSiteKey(ctx); site != MainSite {
		query, args = `SELECT free_capacity FROM main.site_week_capacity WHERE site_key = ? AND week = ?`, []any{site, week}
	}
	if err := q.QueryRowContext(ctx, query, args...).Scan(&n); err != nil {
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

// PutSetting writes the value of a setting for the site ctx is for: main's
// in settings, another site's in site_settings (its own value, which
// Setting reads first).
func (a *Kernel) PutSetting(ctx context.Context, tx Execer, key, value string) error {
	if site := a.SiteKey(ctx); site != MainSite {
		_, err := tx.ExecContext(ctx, `INSERT INTO site_settings(site_key, key, value) VALUES(?,?,?)
			ON CONFLICT(site_key, key) DO UPDATE SET value = excluded.value`, site, key, value)
		return err
	}
	_, err := tx.ExecContext(ctx, `INSERT INTO settings(key, value) VALUES(?,?) ON CONFLICT(key) DO UPDATE SET value = excluded.value`, key, value)
	return err
}

// DeleteSetting removes the ctx site's own value of a setting (another
// site then uses main's; main uses the default).
func (a *Kernel) DeleteSetting(ctx context.Context, tx Execer, key string) error {
	if site := a.SiteKey(ctx); site != MainSite {
		_, err := tx.ExecContext(ctx, `DELETE FROM site_settings WHERE site_key = ? AND key = ?`, site, key)
		return err
	}
	_, err := tx.ExecContext(ctx, `DELETE FROM settings WHERE key = ?`, key)
	return err
}
