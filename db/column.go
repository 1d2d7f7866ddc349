package db

import (
	"context"
	"database/sql"
	"fmt"
)

// Column runs a one-column query and returns its values, so callers never
// repeat the open/scan/close/err loop.
func Column[T any](ctx context.Context, q interface {
	QueryContext(ctx context.Context, query string, args ...any) (*sql.Rows, error)
}, query string, args ...any) ([]T, error) {
	rows, err := q.QueryContext(ctx, query, args...)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var out []T
	for rows.Next() {
		var v T
		if err := rows.Scan(&v); err != nil {
			return nil, err
		}
		out = append(out, v)
	}
	return out, rows.Err()
}

// ownedBytes scans a BLOB column without the copy database/sql makes for
// a *[]byte destination. modernc.org/sqlite hands each row's BLOB over as a
// slice it has just allocated and copied out of SQLite's memory, and never
// touches it again (TestOwnedBytesOutliveTheRow pins this), so a Scanner
// may keep it. For a ready-made profile that is one 3-5 KB allocation and
// copy fewer per read: a quarter of the bytes an uncached get allocated.
type ownedBytes []byte

// Scan keeps src when it is a []byte, and copies a string (a TEXT value).
func (b *ownedBytes) Scan(src any) error {
	switch v := src.(type) {
	case []byte:
		*b = v
	case string:
		*b = []byte(v)
	case nil:
		*b = nil
	default:
		return fmt.Errorf("scanning %T into bytes", src)
	}
	return nil
}
