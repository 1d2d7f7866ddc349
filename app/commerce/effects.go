package commerce

import (
	"context"
	"database/sql"
	"encoding/json"
	"sort"
	"time"

	"launchdir/app/kernel"
	"launchdir/db"
)

// Paid effects, applied by ConfirmPayment inside the transaction that moves
// the order from pending to paid (so exactly once):
//
//	launch           plan 'paid', story/milestones/media unlocked; live now
//	                 (launched_at now, launch_week this week) or scheduled for
//	                 the booked week; a live free listing is upgraded in place
//	featured         featured_slots row for the booked week
//	launch_bundle    launch in the booked week + featured that week + ai_review task
//	extra_categories listing_categories rows (is_primary 0) through
//	                 kernel.ApplyCategories: paid listings only, at most 3 extra
//	relaunch         a launches row for the booked week; the listing stays live
//	                 and keeps its first launch week (and that week's place)
//	billboard_min    billboard_contributions row, listings.billboard_cents += amount
//
// Placements go to the site the order was bought on (orders.site_key, not
// the site of the request that confirms the payment, which may be a
// provider's webhook): a featured slot or a relaunch bought on another site
// than main is that site's (site_featured_slots, site_launches). The plan
// a launch buys (paid listing features, going live) and billboard money are
// the listing's, on every site.
//	trophy_cabinet   story/milestones/media unlocked
//	ai_review, done_for_you, trophy_plaque and any other product: a team_tasks row
//
// Category live counts are recounted when statuses or categories changed.

type paidLine struct {
	Product   string
	ListingID sql.NullInt64
	Week      sql.NullString
	Details   QuoteLine
}

func (a *Service) applyEffects(ctx context.Context, tx *sql.Tx, orderID int64) error {
	rows, err := tx.QueryContext(ctx, `SELECT product, listing_id, week, details FROM order_lines WHERE order_id = ? ORDER BY position`, orderID)
	if err != nil {
		return err
	}
	var lines []paidLine
	for rows.Next() {
		var (
			l       paidLine
			details string
		)
		if err := rows.Scan(&l.Product, &l.ListingID, &l.Week, &details); err != nil {
			rows.Close()
			return err
		}
		_ = json.Unmarshal([]byte(details), &l.Details)
		lines = append(lines, l)
	}
	rows.Close()
	if err := rows.Err(); err != nil {
		return err
	}
	now := a.Now().UTC()
	e := effects{a: a, ctx: ctx, tx: tx, orderID: orderID, now: now.Format(time.RFC3339), thisWeek: kernel.WeekOf(now)}
	if err := tx.QueryRowContext(ctx, `SELECT site_key FROM orders WHERE id = ?`, orderID).Scan(&e.site); err != nil {
		return err
	}
	// Launches first: extra categories need the paid plan a launch in the
	// same order gives.
	sort.SliceStable(lines, func(i, j int) bool {
		return lines[i].Product != "extra_categories" && lines[j].Product == "extra_categories"
	})
	recount := false
	for _, l := range lines {
		lid := l.ListingID.Int64
		week := l.Week.String
		switch l.Product {
		case "launch":
			err = e.launch(lid, week)
			recount = true
		case "launch_bundle":
			if err = e.launch(lid, week); err == nil {
				if err = e.featured(lid, week); err == nil {
					err = e.task("ai_review", lid)
				}
			}
			recount = true
		case "relaunch":
			err = e.relaunch(lid, week)
			recount = true
		case "featured":
			err = e.featured(lid, week)
		case "extra_categories":
			err = e.extraCategories(lid, l.Details.Details.Categories)
			recount = true
		case "billboard_min":
			// The billboard ranks money actually contributed: a promo
			// discount is not a contribution.
			err = e.billboard(lid, l.Details.TaxableCents)
		case "trophy_cabinet":
			err = e.unlock(lid)
		default: // ai_review, done_for_you, trophy_plaque, new products
			err = e.task(l.Product, lid)
		}
		if err != nil {
			return err
		}
	}
	if recount {
		return db.RecountCategories(ctx, tx)
	}
	return nil
}

type effects struct {
	a        *Service
	ctx      context.Context
	tx       *sql.Tx
	orderID  int64
	now      string
	thisWeek string
	site     string // the site the order was bought on
}

func (e *effects) exec(q string, args ...any) error {
	_, err := e.tx.ExecContext(e.ctx, q, args...)
	return err
}

func (e *effects) unlock(listing int64) error {
	return e.exec(`UPDATE listings SET unlock_story = 1, unlock_milestones = 1, unlock_media = 1, updated_at = ? WHERE id = ?`, e.now, listing)
}

// launch publishes a listing as paid: live now (week "") or in week.
func (e *effects) launch(listing int64, week string) error {
	var status string
	if err := e.tx.QueryRowContext(e.ctx, `SELECT status FROM listings WHERE id = ?`, listing).Scan(&status); err != nil {
		return err
	}
	if err := e.exec(`UPDATE listings SET plan = 'paid', unlock_story = 1, unlock_milestones = 1, unlock_media = 1, updated_at = ? WHERE id = ?`,
		e.now, listing); err != nil {
		return err
	}
	switch {
	case status == "live":
		return nil // a live free listing is upgraded in place
	case week == "" || week <= e.thisWeek:
		if err := e.exec(`UPDATE listings SET status = 'live', launched_at = ?, launch_week = ? WHERE id = ?`, e.now, e.thisWeek, listing); err != nil {
			return err
		}
		return e.a.NotifyWentLive(e.ctx, e.tx, listing)
	default:
		if err := e.exec(`UPDATE listings SET status = 'scheduled', launch_week = ?, launched_at = NULL WHERE id = ?`, week, listing); err != nil {
			return err
		}
		return e.a.NotifyScheduled(e.ctx, e.tx, listing, 0)
	}
}

// relaunch adds a launch week: the listing stays live (its page and the API
// keep answering) and joins that week's ranking with its votes of that week,
// while its earlier weeks keep their places (and awards).
func (e *effects) relaunch(listing int64, week string) error {
	if week < e.thisWeek {
		week = e.thisWeek
	}
	if e.site != kernel.MainSite {
		if err := e.exec(`INSERT INTO site_launches(site_key, week, listing_id, votes, relaunch) VALUES(?1, ?2, ?3,
			coalesce((SELECT votes FROM site_weekly_votes WHERE site_key = ?1 AND week = ?2 AND listing_id = ?3), 0), 1)
			ON CONFLICT(site_key, week, listing_id) DO UPDATE SET relaunch = 1`, e.site, week, listing); err != nil {
			return err
		}
		return e.exec(`UPDATE listings SET updated_at = ? WHERE id = ?`, e.now, listing)
	}
	if err := e.exec(`INSERT INTO launches(week, listing_id, votes, relaunch) VALUES(?1, ?2,
		coalesce((SELECT votes FROM weekly_votes WHERE week = ?1 AND listing_id = ?2), 0), 1)
		ON CONFLICT(week, listing_id) DO UPDATE SET relaunch = 1`, week, listing); err != nil {
		return err
	}
	if err := e.exec(`UPDATE listings SET updated_at = ? WHERE id = ?`, e.now, listing); err != nil {
		return err
	}
	return e.a.NotifyRelaunch(e.ctx, e.tx, listing, week)
}

func (e *effects) featured(listing int64, week string) error {
	if e.site != kernel.MainSite {
		return e.exec(`INSERT OR IGNORE INTO site_featured_slots(site_key, listing_id, week, order_id) VALUES(?,?,?,?)`, e.site, listing, week, e.orderID)
	}
	return e.exec(`INSERT OR IGNORE INTO featured_slots(listing_id, week, order_id) VALUES(?,?,?)`, listing, week, e.orderID)
}

// extraCategories adds the bought categories through the one category rule
// (kernel.ApplyCategories); the quote refused what the rule would drop, so
// a note here means the listing changed between quote and payment: it is
// logged for the site team.
func (e *effects) extraCategories(listing int64, slugs []string) error {
	var ids []int64
	for _, slug := range slugs {
		var id int64
		err := e.tx.QueryRowContext(e.ctx, `SELECT id FROM categories WHERE slug = ?`, slug).Scan(&id)
		if db.IsNoRows(err) {
			continue // removed since the order was placed
		}
		if err != nil {
			return err
		}
		ids = append(ids, id)
	}
	notes, err := kernel.ApplyCategories(e.ctx, e.tx, listing, kernel.CategoryChange{Extras: ids, Why: "the order"})
	for _, n := range notes {
		e.a.Log.Warn("extra categories not added", "listing", listing, "order", e.orderID, "note", n)
	}
	return err
}

func (e *effects) billboard(listing, amount int64) error {
	if amount <= 0 {
		return nil
	}
	if err := e.exec(`INSERT INTO billboard_contributions(listing_id, amount_cents, order_id, created_at) VALUES(?,?,?,?)`,
		listing, amount, e.orderID, e.now); err != nil {
		return err
	}
	return e.exec(`UPDATE listings SET billboard_cents = billboard_cents + ?, updated_at = ? WHERE id = ?`, amount, e.now, listing)
}

func (e *effects) task(kind string, listing int64) error {
	var l any
	if listing > 0 {
		l = listing
	}
	return e.exec(`INSERT INTO team_tasks(kind, listing_id, order_id, status, created_at) VALUES(?,?,?,'open',?)`, kind, l, e.orderID, e.now)
}
