package app

import (
	"context"
	"database/sql"

	"launchdir/db"
	"launchdir/ops"
)

// querier is satisfied by *sql.DB and *sql.Tx.
type querier interface {
	QueryRowContext(ctx context.Context, query string, args ...any) *sql.Row
}

// OwnListing checks that userID owns listingID. Another user's listing is
// reported exactly like a missing one (404), so ids cannot be probed.
func (a *App) OwnListing(ctx context.Context, q querier, userID, listingID int64) error {
	return ownListing(ctx, q, userID, listingID)
}

func ownListing(ctx context.Context, q querier, userID, listingID int64) error {
	var one int
	err := q.QueryRowContext(ctx, `SELECT 1 FROM listing_owners WHERE listing_id = `+db.IntArg+` AND user_id = `+db.IntArg, listingID, userID).Scan(&one)
	if db.IsNoRows(err) {
		return errNotYourListing()
	}
	return err
}

// errNotYourListing: another user's listing is reported like a missing one.
func errNotYourListing() error {
	return &ops.Error{Code: ops.CodeNotFound, Detail: "listing not found among your listings",
		Fields: []ops.FieldError{{Field: "listing_id", Message: "no listing of yours has this id"}}}
}
