package admin

import (
	"context"
	"database/sql"
	"fmt"
	"strconv"
	"strings"
	"unicode/utf8"

	"launchdir/app/kernel"
	"launchdir/app/people"
	"launchdir/db"
	"launchdir/ops"
)

const maxModerationReason = 500

func checkReason(reason string) (string, error) {
	reason = strings.TrimSpace(reason)
	if n := utf8.RuneCountInString(reason); n < 1 || n > maxModerationReason {
		return "", ops.Invalid("reason", "give a reason of 1..500 characters (the owner sees it)")
	}
	return reason, nil
}

// ModerateListing rejects or archives a listing with a reason its owners see
// (on their listing and by email). A live listing leaves the public site at
// once; category counters follow in the same transaction.
func (a *Service) ModerateListing(ctx context.Context, adminID, listingID int64, status, reason string) error {
	if status != "rejected" && status != "archived" {
		return ops.Invalid("status", "must be rejected or archived")
	}
	reason, err := checkReason(reason)
	if err != nil {
		return err
	}
	return a.adminTx(ctx, adminID, func(tx *sql.Tx) error {
		var old, name, oldReason string
		err := tx.QueryRowContext(ctx, `SELECT status, name, moderation_reason FROM listings WHERE id = ?`, listingID).Scan(&old, &name, &oldReason)
		if err != nil {
			return kernel.NotFound(err, "listing")
		}
		if old == status {
			return ops.Invalid("status", "the listing is already %s", status)
		}
		if _, err := tx.ExecContext(ctx, `UPDATE listings SET status = ?, moderation_reason = ?, updated_at = ? WHERE id = ?`,
			status, reason, a.NowText(), listingID); err != nil {
			return err
		}
		if old == "live" {
			if err := db.RecountCategories(ctx, tx); err != nil {
				return err
			}
		}
		if err := a.resolveReports(ctx, tx, "kind = 'listing' AND listing_id = ?", listingID); err != nil {
			return err
		}
		emails, err := db.Column[string](ctx, tx, `SELECT u.email FROM listing_owners o JOIN users u ON u.id = o.user_id WHERE o.listing_id = ? ORDER BY u.id`, listingID)
		if err != nil {
			return err
		}
		for _, e := range emails {
			body := fmt.Sprintf("The site team has %s your listing %s.\n\nReason: %s\n\nReply to this email if you think this is a mistake.", status, name, reason)
			if err := a.EnqueueMail(ctx, tx, "listing_"+status, e, name+" was "+status, body); err != nil {
				return err
			}
		}
		return a.audit(ctx, tx, adminID, "moderate_listing", "listing "+strconv.FormatInt(listingID, 10),
			map[string]any{"status": old, "reason": oldReason}, map[string]any{"status": status, "reason": reason})
	})
}

// AdminReview is a review as moderation sees it.
type AdminReview struct {
	ID           int64  `json:"id"`
	ListingID    int64  `json:"listing_id"`
	ListingName  string `json:"listing_name"`
	AuthorName   string `json:"author_name"`
	Rating       int    `json:"rating"`
	Body         string `json:"body"`
	Genuine      bool   `json:"genuine"`
	HiddenAt     string `json:"hidden_at,omitempty"`
	HiddenReason string `json:"hidden_reason,omitempty"`
	CreatedAt    string `json:"created_at"`
}

// ListReviews lists reviews newest first, optionally of one listing.
func (a *Service) ListReviews(ctx context.Context, adminID, listingID int64, p AdminPage) (kernel.Page[AdminReview], error) {
	var out kernel.Page[AdminReview]
	if err := a.requireAdmin(ctx, adminID); err != nil {
		return out, err
	}
	page, per, off, err := p.norm()
	if err != nil {
		return out, err
	}
	out = kernel.Page[AdminReview]{Items: []AdminReview{}, Page: page, PerPage: per}
	where, args := "", []any{}
	if listingID > 0 {
		where, args = " WHERE r.listing_id = ?", []any{listingID}
	}
	if out.Total, err = a.DB.Count(ctx, `SELECT count(*) FROM reviews r`+where, args...); err != nil {
		return out, err
	}
	rows, err := a.DB.R.QueryContext(ctx, `SELECT r.id, r.listing_id, l.name, r.author_name, r.rating, r.body, r.genuine,
		coalesce(r.hidden_at,''), r.hidden_reason, r.created_at FROM reviews r JOIN listings l ON l.id = r.listing_id`+where+
		` ORDER BY r.id DESC LIMIT ? OFFSET ?`, append(args, per, off)...)
	if err != nil {
		return out, err
	}
	defer rows.Close()
	for rows.Next() {
		var r AdminReview
		if err := rows.Scan(&r.ID, &r.ListingID, &r.ListingName, &r.AuthorName, &r.Rating, &r.Body, &r.Genuine, &r.HiddenAt,
			&r.HiddenReason, &r.CreatedAt); err != nil {
			return out, err
		}
		out.Items = append(out.Items, r)
	}
	return out, rows.Err()
}

// HideReview hides a review: it is flagged (never counted) and the
// listing's community rating drops it in the same transaction.
func (a *Service) HideReview(ctx context.Context, adminID, reviewID int64, reason string) error {
	reason, err := checkReason(reason)
	if err != nil {
		return err
	}
	return a.adminTx(ctx, adminID, func(tx *sql.Tx) error {
		var listingID int64
		var rating int
		var genuine bool
		var hidden sql.NullString
		err := tx.QueryRowContext(ctx, `SELECT listing_id, rating, genuine, hidden_at FROM reviews WHERE id = ?`, reviewID).
			Scan(&listingID, &rating, &genuine, &hidden)
		if err != nil {
			return kernel.NotFound(err, "review")
		}
		if hidden.Valid {
			return ops.Invalid("review_id", "the review is already hidden")
		}
		if _, err := tx.ExecContext(ctx, `UPDATE reviews SET genuine = 0, hidden_at = ?, hidden_reason = ? WHERE id = ?`,
			a.NowText(), reason, reviewID); err != nil {
			return err
		}
		if err := a.resolveReports(ctx, tx, "review_id = ?", reviewID); err != nil {
			return err
		}
		if genuine {
			if _, err := tx.ExecContext(ctx, `UPDATE listings SET rating_sum = max(0, rating_sum - ?), rating_count = max(0, rating_count - 1)
				WHERE id = ?`, rating, listingID); err != nil {
				return err
			}
		}
		return a.audit(ctx, tx, adminID, "hide_review", "review "+strconv.FormatInt(reviewID, 10),
			map[string]any{"genuine": genuine}, map[string]any{"hidden": true, "reason": reason})
	})
}

// BanUser bans an account: its votes stop counting (the listings' vote
// counters and the weekly boards lose them in the same transaction) and it
// can no longer vote. Admin accounts cannot be banned.
func (a *Service) BanUser(ctx context.Context, adminID, userID int64, reason string) error {
	reason, err := checkReason(reason)
	if err != nil {
		return err
	}
	return a.adminTx(ctx, adminID, func(tx *sql.Tx) error {
		var email string
		var isAdmin bool
		if err := tx.QueryRowContext(ctx, `SELECT email, is_admin FROM users WHERE id = ?`, userID).Scan(&email, &isAdmin); err != nil {
			return kernel.NotFound(err, "user")
		}
		if isAdmin {
			return ops.Invalid("user_id", "an admin account cannot be banned")
		}
		res, err := tx.ExecContext(ctx, `INSERT OR IGNORE INTO account_bans(user_id, reason, banned_by, created_at) VALUES(?,?,?,?)`,
			userID, reason, adminID, a.NowText())
		if err != nil {
			return err
		}
		if n, _ := res.RowsAffected(); n == 0 {
			return ops.Invalid("user_id", "the account is already banned")
		}
		removed, err := a.uncountVotes(ctx, tx, userID)
		if err != nil {
			return err
		}
		return a.audit(ctx, tx, adminID, "ban_user", "user "+strconv.FormatInt(userID, 10)+" "+email,
			map[string]any{"banned": false}, map[string]any{"banned": true, "reason": reason, "votes_uncounted": removed})
	})
}

// IsBanned reports whether the account is banned.
func (a *Service) IsBanned(ctx context.Context, userID int64) bool {
	var n int
	a.DB.R.QueryRowContext(ctx, `SELECT count(*) FROM account_bans WHERE user_id = ?`, userID).Scan(&n)
	return n > 0
}

// uncountVotes takes a banned account's counted votes out of the
// maintained counters (all-time and weekly) and marks them not counted
// (votes.counted = 0, like the people layer's uncounted votes), so a
// recount can never bring them back.
func (a *Service) uncountVotes(ctx context.Context, tx *sql.Tx, userID int64) (int, error) {
	voter := strconv.FormatInt(userID, 10)
	type vote struct {
		listing int64
		week    string
	}
	rows, err := tx.QueryContext(ctx, `SELECT listing_id, week FROM votes WHERE voter = ? AND counted = 1`, voter)
	if err != nil {
		return 0, err
	}
	var votes []vote
	for rows.Next() {
		var v vote
		if err := rows.Scan(&v.listing, &v.week); err != nil {
			rows.Close()
			return 0, err
		}
		votes = append(votes, v)
	}
	rows.Close()
	for _, v := range votes {
		if _, err := tx.ExecContext(ctx, `UPDATE listings SET votes = max(0, votes - 1) WHERE id = ?`, v.listing); err != nil {
			return 0, err
		}
		if _, err := tx.ExecContext(ctx, `UPDATE weekly_votes SET votes = max(0, votes - 1) WHERE week = ? AND listing_id = ?`, v.week, v.listing); err != nil {
			return 0, err
		}
	}
	if _, err = tx.ExecContext(ctx, `UPDATE votes SET counted = 0 WHERE voter = ?`, voter); err != nil {
		return 0, err
	}
	n, err := uncountSiteVotes(ctx, tx, voter)
	return len(votes) + n, err
}

// uncountSiteVotes does the same on every other site (site_votes and its
// counters: listing_sites.votes, site_weekly_votes and so site_launches).
func uncountSiteVotes(ctx context.Context, tx *sql.Tx, voter string) (int, error) {
	steps := []string{
		`UPDATE listing_sites SET votes = max(0, votes - (SELECT count(*) FROM site_votes v
			WHERE v.voter = ?1 AND v.counted AND v.site_key = listing_sites.site_key AND v.listing_id = listing_sites.listing_id))
		 WHERE EXISTS (SELECT 1 FROM site_votes v WHERE v.voter = ?1 AND v.counted AND v.site_key = listing_sites.site_key AND v.listing_id = listing_sites.listing_id)`,
		`UPDATE site_weekly_votes SET votes = max(0, votes - 1)
		 WHERE EXISTS (SELECT 1 FROM site_votes v WHERE v.voter = ?1 AND v.counted AND v.site_key = site_weekly_votes.site_key
			AND v.week = site_weekly_votes.week AND v.listing_id = site_weekly_votes.listing_id)`,
		`UPDATE site_votes SET counted = 0 WHERE voter = ?1 AND counted`,
	}
	n := 0
	for _, q := range steps {
		res, err := tx.ExecContext(ctx, q, voter)
		if err != nil {
			return 0, err
		}
		k, _ := res.RowsAffected()
		n = int(k) // the last step: the votes taken out
	}
	return n, nil
}

// AdminUser is an account as the site team sees it.
type AdminUser struct {
	people.User
	Admin     bool   `json:"admin"`
	BannedAt  string `json:"banned_at,omitempty"`
	BanReason string `json:"ban_reason,omitempty"`
}

// ListAccounts lists accounts, optionally filtered by an email substring.
func (a *Service) ListAccounts(ctx context.Context, adminID int64, q string, p AdminPage) (kernel.Page[AdminUser], error) {
	var out kernel.Page[AdminUser]
	if err := a.requireAdmin(ctx, adminID); err != nil {
		return out, err
	}
	page, per, off, err := p.norm()
	if err != nil {
		return out, err
	}
	if len(q) > 254 {
		return out, ops.Invalid("q", "must be at most 254 characters")
	}
	out = kernel.Page[AdminUser]{Items: []AdminUser{}, Page: page, PerPage: per}
	like := "%" + strings.NewReplacer(`\`, `\\`, "%", `\%`, "_", `\_`).Replace(strings.ToLower(q)) + "%"
	if out.Total, err = a.DB.Count(ctx, `SELECT count(*) FROM users WHERE lower(email) LIKE ? ESCAPE '\'`, like); err != nil {
		return out, err
	}
	rows, err := a.DB.R.QueryContext(ctx, `SELECT u.id, u.email, u.name, u.created_at, u.is_admin, coalesce(b.created_at,''), coalesce(b.reason,'')
		FROM users u LEFT JOIN account_bans b ON b.user_id = u.id WHERE lower(u.email) LIKE ? ESCAPE '\' ORDER BY u.id LIMIT ? OFFSET ?`, like, per, off)
	if err != nil {
		return out, err
	}
	defer rows.Close()
	for rows.Next() {
		var u AdminUser
		if err := rows.Scan(&u.ID, &u.Email, &u.Name, &u.CreatedAt, &u.Admin, &u.BannedAt, &u.BanReason); err != nil {
			return out, err
		}
		out.Items = append(out.Items, u)
	}
	return out, rows.Err()
}

// SuspectedRings lists the rings of accounts voting together whose votes
// are held (app/people, integrity.go), open ones first.
func (a *Service) SuspectedRings(ctx context.Context, adminID int64) ([]people.Ring, error) {
	if err := a.requireAdmin(ctx, adminID); err != nil {
		return nil, err
	}
	return a.People.Rings(ctx, 200)
}

// ReviewRing discounts a suspected ring (its votes stay uncounted) or
// counts its votes after all, with an audit entry.
func (a *Service) ReviewRing(ctx context.Context, adminID, ringID int64, action string) error {
	return a.adminTx(ctx, adminID, func(tx *sql.Tx) error {
		n, err := a.People.ReviewRingTx(ctx, tx, adminID, ringID, action)
		if err != nil {
			return err
		}
		return a.audit(ctx, tx, adminID, "review_vote_ring", "ring "+strconv.FormatInt(ringID, 10),
			map[string]any{"status": "open"}, map[string]any{"action": action, "votes": n})
	})
}
