package people

import (
	"context"
	"database/sql"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"

	"launchdir/app/kernel"
	"launchdir/db"
	"launchdir/ops"
)

// Reviews: one per person and listing, stars and text; only genuine
// reviews (verified, unbanned authors) move a listing's rating.

// Review is a review as the site shows it.
type Review struct {
	ID          int64
	ListingSlug string
	AuthorName  string
	Rating      int
	Body        string
	Genuine     bool // counts in the community rating
	CreatedAt   time.Time
	UpdatedAt   time.Time
}

const maxReviewBody = 2000

// SaveReview creates the person's review of a live listing, or edits it
// (one per person per listing). Genuine = verified account, not an owner,
// not hidden by the site team; only genuine reviews count in the
// community rating, which moves in the same transaction.
func (a *Service) SaveReview(ctx context.Context, userID int64, slug string, rating int, body string) (*Review, error) {
	body = strings.TrimSpace(strings.ReplaceAll(body, "\r\n", "\n"))
	var errs []ops.FieldError
	if rating < 1 || rating > 5 {
		errs = append(errs, ops.FieldError{Field: "rating", Message: "choose 1 to 5 stars"})
	}
	if n := utf8.RuneCountInString(body); n < 1 || n > maxReviewBody {
		errs = append(errs, ops.FieldError{Field: "body", Message: "write 1 to 2000 characters (" + strconv.Itoa(n) + " now)"})
	}
	if !utf8.ValidString(body) {
		errs = append(errs, ops.FieldError{Field: "body", Message: "must be valid UTF-8 text"})
	}
	if len(errs) > 0 {
		return nil, ops.InvalidFields(errs)
	}
	var id int64
	err := a.DB.Tx(ctx, func(tx *sql.Tx) error {
		l, err := a.actionListing(ctx, tx, slug, "reviewing")
		if err != nil {
			return err
		}
		v, err := a.voter(ctx, tx, userID, l.ID)
		if err != nil {
			return err
		}
		if v.banned {
			return &ops.Error{Code: ops.CodeForbidden, Detail: "this account can no longer write reviews"}
		}
		var author string
		if err := tx.QueryRowContext(ctx, `SELECT CASE WHEN name != '' THEN name ELSE substr(email, 1, instr(email, '@') - 1) END FROM users WHERE id = ?`,
			userID).Scan(&author); err != nil {
			return err
		}
		var oldRating int
		var oldGenuine bool
		var hidden sql.NullString
		err = tx.QueryRowContext(ctx, `SELECT id, rating, genuine, hidden_at FROM reviews WHERE listing_id = ? AND user_id = ?`, l.ID, userID).
			Scan(&id, &oldRating, &oldGenuine, &hidden)
		genuine := v.verified && !v.owner && !hidden.Valid
		now := a.NowText()
		switch {
		case db.IsNoRows(err):
			res, err := tx.ExecContext(ctx, `INSERT INTO reviews(listing_id, user_id, author_name, rating, body, genuine, created_at, updated_at)
				VALUES(?,?,?,?,?,?,?,?)`, l.ID, userID, author, rating, body, genuine, now, now)
			if err != nil {
				return err
			}
			id, _ = res.LastInsertId()
			if err := a.NotifyReview(ctx, tx, l.ID, userID, author, rating, body); err != nil {
				return err
			}
			return moveRating(ctx, tx, l.ID, false, 0, genuine, rating)
		case err == nil:
			if _, err := tx.ExecContext(ctx, `UPDATE reviews SET author_name = ?, rating = ?, body = ?, genuine = ?, updated_at = ? WHERE id = ?`,
				author, rating, body, genuine, now, id); err != nil {
				return err
			}
			return moveRating(ctx, tx, l.ID, oldGenuine, oldRating, genuine, rating)
		default:
			return err
		}
	})
	if err != nil {
		return nil, err
	}
	return a.reviewByID(ctx, id)
}

// moveRating replaces a review's contribution to the community rating.
func moveRating(ctx context.Context, tx *sql.Tx, listingID int64, oldGenuine bool, oldRating int, newGenuine bool, newRating int) error {
	dSum, dCount := 0, 0
	if oldGenuine {
		dSum, dCount = -oldRating, -1
	}
	if newGenuine {
		dSum, dCount = dSum+newRating, dCount+1
	}
	if dSum == 0 && dCount == 0 {
		return nil
	}
	_, err := tx.ExecContext(ctx, `UPDATE listings SET rating_sum = max(0, rating_sum + ?), rating_count = max(0, rating_count + ?) WHERE id = ?`,
		dSum, dCount, listingID)
	return err
}

// regenuineReviews makes a newly verified person's reviews genuine (except
// on listings they own and reviews the site team hid).
func (a *Service) regenuineReviews(ctx context.Context, tx *sql.Tx, userID int64) error {
	rows, err := tx.QueryContext(ctx, `SELECT r.id, r.listing_id, r.rating FROM reviews r WHERE r.user_id = ? AND NOT r.genuine AND r.hidden_at IS NULL
		AND NOT EXISTS(SELECT 1 FROM listing_owners o WHERE o.listing_id = r.listing_id AND o.user_id = r.user_id)`, userID)
	if err != nil {
		return err
	}
	type rv struct{ id, listing, rating int64 }
	var rs []rv
	for rows.Next() {
		var r rv
		if err := rows.Scan(&r.id, &r.listing, &r.rating); err != nil {
			rows.Close()
			return err
		}
		rs = append(rs, r)
	}
	rows.Close()
	for _, r := range rs {
		if _, err := tx.ExecContext(ctx, `UPDATE reviews SET genuine = 1 WHERE id = ?`, r.id); err != nil {
			return err
		}
		if err := moveRating(ctx, tx, r.listing, false, 0, true, int(r.rating)); err != nil {
			return err
		}
	}
	return nil
}

const reviewCols = `r.id, l.slug, r.author_name, r.rating, r.body, r.genuine, r.created_at, coalesce(r.updated_at, r.created_at)`

func scanReview(sc interface{ Scan(...any) error }) (Review, error) {
	var r Review
	var c, u string
	err := sc.Scan(&r.ID, &r.ListingSlug, &r.AuthorName, &r.Rating, &r.Body, &r.Genuine, &c, &u)
	r.CreatedAt, _ = time.Parse(time.RFC3339, c)
	r.UpdatedAt, _ = time.Parse(time.RFC3339, u)
	return r, err
}

func (a *Service) reviewByID(ctx context.Context, id int64) (*Review, error) {
	r, err := scanReview(a.DB.R.QueryRowContext(ctx, `SELECT `+reviewCols+` FROM reviews r JOIN listings l ON l.id = r.listing_id WHERE r.id = ?`, id))
	if err != nil {
		return nil, kernel.NotFound(err, "review")
	}
	return &r, nil
}

// ListingReviews lists a public listing's reviews (hidden ones never),
// newest first.
func (a *Service) ListingReviews(ctx context.Context, slug string, page, perPage int) (kernel.Page[Review], error) {
	page, perPage, err := checkPaging(page, perPage)
	if err != nil {
		return kernel.Page[Review]{}, err
	}
	out := kernel.Page[Review]{Items: []Review{}, Page: page, PerPage: perPage}
	var id int64
	if err := a.DB.R.QueryRowContext(ctx, `SELECT id FROM listings WHERE slug = ? AND status = 'live'`, slug).Scan(&id); err != nil {
		return out, kernel.NotFound(err, "listing "+slug)
	}
	if out.Total, err = a.DB.Count(ctx, `SELECT count(*) FROM reviews WHERE listing_id = ? AND hidden_at IS NULL`, id); err != nil {
		return out, err
	}
	rows, err := a.DB.R.QueryContext(ctx, `SELECT `+reviewCols+` FROM reviews r JOIN listings l ON l.id = r.listing_id
		WHERE r.listing_id = ? AND r.hidden_at IS NULL ORDER BY r.created_at DESC, r.id DESC LIMIT ? OFFSET ?`, id, perPage, (page-1)*perPage)
	if err != nil {
		return out, err
	}
	defer rows.Close()
	for rows.Next() {
		r, err := scanReview(rows)
		if err != nil {
			return out, err
		}
		out.Items = append(out.Items, r)
	}
	return out, rows.Err()
}
