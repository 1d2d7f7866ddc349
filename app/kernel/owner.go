package kernel

import (
	"context"
	"database/sql"

	"launchdir/db"
	"launchdir/ops"
)

// Querier is satisfied by *sql.DB and *sql.Tx.
type Querier interface {
	QueryRowContext(ctx context.Context, query string, args ...any) *sql.Row
}

// RowsQuerier reads rows inside or outside a transaction.
type RowsQuerier interface {
	Querier
	QueryContext(ctx context.Context, query string, args ...any) (*sql.Rows, error)
}

// Execer writes inside or outside a transaction.
type Execer interface {
	ExecContext(ctx context.Context, query string, args ...any) (sql.Result, error)
}

// OwnListing checks that userID owns listingID. Another user's listing is
// reported exactly like a missing one (404), so ids cannot be probed.
func (a *Kernel) OwnListing(ctx context.Context, q Querier, userID, listingID int64) error {
	var one int
	err := q.QueryRowContext(ctx, `SELECT 1 FROM listing_owners WHERE listing_id = `+db.IntArg+` AND user_id = `+db.IntArg, listingID, userID).Scan(&one)
	if db.IsNoRows(err) {
		return ErrNotYourListing()
	}
	return err
}

// ErrNotYourListing: another user's listing is reported like a missing one.
func ErrNotYourListing() error {
	return &ops.Error{Code: ops.CodeNotFound, Detail: "listing not found among your listings",
		Fields: []ops.FieldError{{Field: "listing_id", Message: "no listing of yours has this id"}}}
}
