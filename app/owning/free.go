package owning

import (
	"context"
	"database/sql"
	"strings"
	"time"

	"launchdir/app/kernel"
	"launchdir/db"
	"launchdir/ops"
)

// chooseFreeListing checks both conditions of the free launch (badge on the
// homepage, complete founder profile) and queues the listing for the first
// week with a free slot at least free_queue_weeks ahead. On any missing
// condition nothing changes and the 400 says exactly what is missing.
func (a *Service) chooseFreeListing(ctx context.Context, in *ops.Input) (any, error) {
	id, uid := in.Int("listing_id"), in.UserID()
	if err := a.OwnListing(ctx, a.DB.R, uid, id); err != nil {
		return nil, err
	}
	l, err := a.DB.GetOwnerListing(ctx, a.DB.R, id)
	if err != nil {
		return nil, kernel.NotFound(err, "listing")
	}
	if err := freeEligibleStatus(l.Status); err != nil {
		return nil, err
	}
	var missing []ops.FieldError
	missing = append(missing, founderGaps(l.Founders)...)
	missing = append(missing, a.badgeGap(ctx, l)...)
	if len(missing) > 0 {
		e := ops.InvalidFields(missing)
		e.Detail = "the free launch needs the badge on your homepage and a complete founder profile; missing: " + describeFields(missing)
		return nil, e
	}
	var week, status, plan string
	var out FreeLaunch
	err = a.DB.Tx(ctx, func(tx *sql.Tx) error {
		if err := tx.QueryRowContext(ctx, `SELECT status, plan FROM listings WHERE id = ?`, id).Scan(&status, &plan); err != nil {
			return err
		}
		if plan != "paid" {
			plan = "free"
		}
		if err := freeEligibleStatus(status); err != nil {
			return err
		}
		if week, err = a.firstFreeWeek(ctx, tx); err != nil {
			return err
		}
		_, err := tx.ExecContext(ctx, `UPDATE listings SET status = 'scheduled', plan = CASE WHEN plan = 'paid' THEN 'paid' ELSE 'free' END,
			launch_week = ?, updated_at = ? WHERE id = ?`, week, a.Now().UTC().Format(time.RFC3339), id)
		if err != nil {
			return err
		}
		if err := a.NotifyScheduled(ctx, tx, id, 0); err != nil {
			return err
		}
		if err := a.Revise(ctx, tx, "listing_status", id, id, uid, "choose_free_listing",
			map[string]any{"status": status}, map[string]any{"status": "scheduled", "launch_week": week}); err != nil {
			return err
		}
		out = FreeLaunch{ListingID: id, Status: "scheduled", Plan: plan, LaunchWeek: week,
			Note: "The listing goes live automatically when its launch week starts (Monday 00:00 UTC). A paid launch can still move it earlier."}
		return kernel.RespondInTx(ctx, tx, out)
	})
	if err != nil {
		return nil, err
	}
	return out, nil
}

func freeEligibleStatus(status string) error {
	switch status {
	case "draft", "awaiting_badge":
		return nil
	case "scheduled", "live":
		return ops.Invalid("listing_id", "the listing is already %s", status)
	}
	return ops.Invalid("listing_id", "a %s listing cannot be launched; contact the site team", status)
}

func describeFields(fs []ops.FieldError) string {
	parts := make([]string, len(fs))
	for i, f := range fs {
		parts[i] = f.Field + " (" + f.Message + ")"
	}
	return strings.Join(parts, "; ")
}

// founderGaps checks the primary founder has a name, a bio and a social link.
func founderGaps(founders []db.FounderRef) []ops.FieldError {
	if len(founders) == 0 {
		return []ops.FieldError{{Field: "founder", Message: "add a founder with name, bio and at least one social link"}}
	}
	f := founders[0]
	var out []ops.FieldError
	if strings.TrimSpace(f.Name) == "" {
		out = append(out, ops.FieldError{Field: "founder.name", Message: "the founder needs a name"})
	}
	if strings.TrimSpace(f.Bio) == "" {
		out = append(out, ops.FieldError{Field: "founder.bio", Message: "the founder needs a bio"})
	}
	hasSocial := false
	for _, v := range f.Socials {
		hasSocial = hasSocial || strings.TrimSpace(v) != ""
	}
	if !hasSocial {
		out = append(out, ops.FieldError{Field: "founder.socials", Message: "the founder needs at least one social link"})
	}
	return out
}

// badgeGap fetches the homepage and looks for the badge embed code or any
// link back to the listing page.
func (a *Service) badgeGap(ctx context.Context, l *db.Listing) []ops.FieldError {
	html, err := a.Ext.Fetcher.FetchHTML(ctx, l.URL)
	if err != nil {
		return []ops.FieldError{{Field: "badge", Message: "could not read your homepage " + l.URL + ": " + err.Error()}}
	}
	if hasBacklink(html, a.Origin(ctx), l.Slug) {
		return nil
	}
	return []ops.FieldError{{Field: "badge", Message: "the badge (or a link to " + a.ListingURL(ctx, l.Slug) + ") is not on " + l.URL + "; get the embed code from get_badges (GET /api/v1/listings/" + l.Slug + "/badges, signed in as the owner)"}}
}

// hasBacklink accepts the badge image or a link to the listing, over http
// or https. The slug must end where the link does: a link to
// /listings/acme-analytics is not a link to /listings/acme.
func hasBacklink(html, baseURL, slug string) bool {
	host := strings.TrimPrefix(strings.TrimPrefix(baseURL, "https://"), "http://")
	for _, needle := range []string{host + "/listings/" + slug, host + "/badges/" + slug + ".svg"} {
		for _, scheme := range []string{"https://", "http://", "//"} {
			for rest := html; ; {
				i := strings.Index(rest, scheme+needle)
				if i < 0 {
					break
				}
				rest = rest[i+len(scheme+needle):]
				if rest == "" || strings.ContainsRune("\"'?#/ <>", rune(rest[0])) {
					return true
				}
			}
		}
	}
	return false
}

// firstFreeWeek is the first Monday at least free_queue_weeks ahead whose
// free launches are below the weekly capacity. It runs inside the writing
// transaction, so two requests can never take the last slot twice.
func (a *Service) firstFreeWeek(ctx context.Context, tx *sql.Tx) (string, error) {
	capacity := a.FreeWeeklyCapacity(ctx)
	start := kernel.Monday(a.Now()).AddDate(0, 0, 7*a.FreeQueueWeeks(ctx))
	// Another site's calendar counts the free launches of its own listings
	// against its own capacity (the site of the request's host).
	count, site := `SELECT count(*) FROM listings WHERE launch_week = ?1 AND plan = 'free' AND status IN ('scheduled','live')`, a.SiteKey(ctx)
	args := func(week string) []any { return []any{week} }
	if site != kernel.MainSite {
		count += ` AND id IN (SELECT listing_id FROM listing_sites WHERE site_key = ?2)`
		args = func(week string) []any { return []any{week, site} }
	}
	for i := 0; i < 520; i++ {
		week := start.AddDate(0, 0, 7*i).Format(kernel.DateLayout)
		var n int
		if err := tx.QueryRowContext(ctx, count, args(week)...).Scan(&n); err != nil {
			return "", err
		}
		if n < kernel.WeekFreeCapacity(ctx, tx, week, capacity) {
			return week, nil
		}
	}
	return "", &ops.Error{Code: ops.CodeUnavailable, Detail: "the free launch queue is full for the next ten years"}
}
