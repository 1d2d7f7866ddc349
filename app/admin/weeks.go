package admin

import (
	"context"
	"database/sql"
	"strconv"
	"strings"
	"time"

	"launchdir/app/kernel"
	"launchdir/ops"
)

// WeekPlan is one launch week as the site team plans it.
type WeekPlan struct {
	Week         string `json:"week"`
	FreeCapacity int    `json:"free_capacity"`
	Overridden   bool   `json:"overridden"` // the week has its own capacity
	FreeBooked   int    `json:"free_booked"`
	PaidBooked   int    `json:"paid_booked"`
}

// maxPlannedWeeks bounds the weeks shown at once.
const maxPlannedWeeks = 52

// LaunchWeeks lists the next n weeks (this week first) with their free
// capacity and bookings.
func (a *Service) LaunchWeeks(ctx context.Context, adminID int64, n int) ([]WeekPlan, error) {
	if err := a.requireAdmin(ctx, adminID); err != nil {
		return nil, err
	}
	if n < 1 || n > maxPlannedWeeks {
		return nil, ops.Invalid("weeks", "must be 1..52")
	}
	ctx = kernel.SiteView(ctx) // the calendar of the request's site: its listings and capacities
	def := a.FreeWeeklyCapacity(ctx)
	out := make([]WeekPlan, 0, n)
	for i := 0; i < n; i++ {
		w := kernel.Monday(a.Now()).AddDate(0, 0, 7*i).Format(kernel.DateLayout)
		p := WeekPlan{Week: w, FreeCapacity: kernel.WeekFreeCapacity(ctx, a.DB.R, w, def)}
		var over int
		if err := a.DB.R.QueryRowContext(ctx, `SELECT count(*) FROM week_capacity WHERE week = ?`, w).Scan(&over); err != nil {
			return nil, err
		}
		p.Overridden = over > 0
		err := a.DB.R.QueryRowContext(ctx, `SELECT coalesce(sum(plan = 'free'),0), coalesce(sum(plan = 'paid'),0) FROM listings
			WHERE launch_week = ? AND status IN ('scheduled','live')`, w).Scan(&p.FreeBooked, &p.PaidBooked)
		if err != nil {
			return nil, err
		}
		out = append(out, p)
	}
	return out, nil
}

// parseMonday checks a week given as its Monday, this week or later.
func (a *Service) parseMonday(field, s string) (string, error) {
	t, err := time.Parse(kernel.DateLayout, s)
	if err != nil {
		return "", ops.Invalid(field, "must be a date as YYYY-MM-DD")
	}
	if t.Weekday() != time.Monday {
		return "", ops.Invalid(field, "must be a Monday (weeks are named by their Monday)")
	}
	if t.Before(kernel.Monday(a.Now())) {
		return "", ops.Invalid(field, "must be this week or later")
	}
	if t.After(kernel.Monday(a.Now()).AddDate(10, 0, 0)) {
		return "", ops.Invalid(field, "must be within ten years")
	}
	return s, nil
}

// SetWeekCapacity sets one week's free launch capacity (0..1000); a
// negative capacity removes the override (the week uses the default).
func (a *Service) SetWeekCapacity(ctx context.Context, adminID int64, week string, capacity int) error {
	week, err := a.parseMonday("week", week)
	if err != nil {
		return err
	}
	if capacity > maxFreeCapacity {
		return ops.Invalid("capacity", "must be 0..1000 (or empty for the default)")
	}
	// Another site's weeks are its own (site_week_capacity); main's are week_capacity.
	site := a.SiteKey(ctx)
	get, del, put := `SELECT free_capacity FROM week_capacity WHERE week = ?2`, `DELETE FROM week_capacity WHERE week = ?2`,
		`INSERT INTO week_capacity(week, free_capacity) VALUES(?2, ?3) ON CONFLICT(week) DO UPDATE SET free_capacity = excluded.free_capacity`
	if site != kernel.MainSite {
		get, del, put = `SELECT free_capacity FROM site_week_capacity WHERE site_key = ?1 AND week = ?2`,
			`DELETE FROM site_week_capacity WHERE site_key = ?1 AND week = ?2`,
			`INSERT INTO site_week_capacity(site_key, week, free_capacity) VALUES(?1, ?2, ?3)
				ON CONFLICT(site_key, week) DO UPDATE SET free_capacity = excluded.free_capacity`
	}
	return a.adminTx(ctx, adminID, func(tx *sql.Tx) error {
		before := any(nil)
		var old int
		if err := tx.QueryRowContext(ctx, get, site, week).Scan(&old); err == nil {
			before = old
		}
		var after any
		if capacity < 0 {
			if _, err := tx.ExecContext(ctx, del, site, week); err != nil {
				return err
			}
		} else {
			after = capacity
			if _, err := tx.ExecContext(ctx, put, site, week, capacity); err != nil {
				return err
			}
		}
		return a.audit(ctx, tx, adminID, "set_week_capacity", "week "+week, before, after)
	})
}

// MoveListingWeek moves a scheduled listing to another launch week (this
// week or later). The site team may overbook a week on purpose; the result
// says how full the week is now.
func (a *Service) MoveListingWeek(ctx context.Context, adminID, listingID int64, week string) (*WeekPlan, error) {
	week, err := a.parseMonday("week", week)
	if err != nil {
		return nil, err
	}
	err = a.adminTx(ctx, adminID, func(tx *sql.Tx) error {
		var status string
		var old sql.NullString
		if err := tx.QueryRowContext(ctx, `SELECT status, launch_week FROM listings WHERE id = ?`, listingID).Scan(&status, &old); err != nil {
			return kernel.NotFound(err, "listing")
		}
		if status != "scheduled" {
			return ops.Invalid("listing_id", "only a scheduled listing can move; this one is %s", status)
		}
		if old.String == week {
			return ops.Invalid("week", "the listing is already scheduled for %s", week)
		}
		if _, err := tx.ExecContext(ctx, `UPDATE listings SET launch_week = ?, updated_at = ? WHERE id = ?`, week, a.NowText(), listingID); err != nil {
			return err
		}
		// The owners (and their webhooks) hear the new week.
		if err := a.NotifyScheduled(ctx, tx, listingID, 0); err != nil {
			return err
		}
		return a.audit(ctx, tx, adminID, "move_listing_week", "listing "+strconv.FormatInt(listingID, 10),
			map[string]any{"launch_week": old.String}, map[string]any{"launch_week": week})
	})
	if err != nil {
		return nil, err
	}
	plans, err := a.LaunchWeeks(ctx, adminID, maxPlannedWeeks)
	if err != nil {
		return nil, err
	}
	for _, p := range plans {
		if p.Week == week {
			return &p, nil
		}
	}
	return &WeekPlan{Week: week}, nil
}

// QueuedListing is one listing in the free launch queue.
type QueuedListing struct {
	Position   int    `json:"position"`
	ListingID  int64  `json:"listing_id"`
	Name       string `json:"name"`
	Slug       string `json:"slug"`
	LaunchWeek string `json:"launch_week"`
	QueuedAt   string `json:"queued_at"`
}

// FreeQueue lists scheduled free launches in the order they go live: by
// week, then by when they were queued.
func (a *Service) FreeQueue(ctx context.Context, adminID int64, p AdminPage) (kernel.Page[QueuedListing], error) {
	var out kernel.Page[QueuedListing]
	if err := a.requireAdmin(ctx, adminID); err != nil {
		return out, err
	}
	ctx = kernel.SiteView(ctx) // the queue of the request's site
	page, per, off, err := p.norm()
	if err != nil {
		return out, err
	}
	out = kernel.Page[QueuedListing]{Items: []QueuedListing{}, Page: page, PerPage: per}
	const where = ` FROM listings l WHERE l.status = 'scheduled' AND l.plan = 'free'`
	if out.Total, err = a.DB.Count(ctx, `SELECT count(*)`+where); err != nil {
		return out, err
	}
	// queued_at: when choose_free_listing scheduled it (its revision).
	rows, err := a.DB.R.QueryContext(ctx, `SELECT l.id, l.name, l.slug, l.launch_week,
		coalesce((SELECT max(r.created_at) FROM revisions r WHERE r.listing_id = l.id AND r.operation = 'choose_free_listing'), l.updated_at) AS queued`+
		where+` ORDER BY l.launch_week, queued, l.id LIMIT ? OFFSET ?`, per, off)
	if err != nil {
		return out, err
	}
	defer rows.Close()
	for i := 1; rows.Next(); i++ {
		q := QueuedListing{Position: off + i}
		if err := rows.Scan(&q.ListingID, &q.Name, &q.Slug, &q.LaunchWeek, &q.QueuedAt); err != nil {
			return out, err
		}
		out.Items = append(out.Items, q)
	}
	return out, rows.Err()
}

// ScheduledListingRef finds a scheduled listing for the site team's forms
// by its id, its slug or its exact name (any case): a name two scheduled
// listings share is refused with their slugs.
func (a *Service) ScheduledListingRef(ctx context.Context, ref string) (int64, error) {
	ref = strings.TrimSpace(ref)
	if id, err := strconv.ParseInt(ref, 10, 64); err == nil && id > 0 {
		return id, nil
	}
	rows, err := a.DB.R.QueryContext(ctx, `SELECT id, slug FROM listings WHERE status = 'scheduled' AND (slug = ?1 OR name = ?1 COLLATE NOCASE)
		ORDER BY slug = ?1 DESC, id LIMIT 5`, ref)
	if err != nil {
		return 0, err
	}
	defer rows.Close()
	var ids []int64
	var slugs []string
	for rows.Next() {
		var id int64
		var slug string
		if err := rows.Scan(&id, &slug); err != nil {
			return 0, err
		}
		if slug == ref {
			return id, nil
		}
		ids, slugs = append(ids, id), append(slugs, slug)
	}
	if err := rows.Err(); err != nil {
		return 0, err
	}
	switch len(ids) {
	case 0:
		return 0, ops.Invalid("listing", "no scheduled listing has the id, address name or name %q", ref)
	case 1:
		return ids[0], nil
	}
	return 0, ops.Invalid("listing", "several scheduled listings are named %q: use one of %s", ref, strings.Join(slugs, ", "))
}
