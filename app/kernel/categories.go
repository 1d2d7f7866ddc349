package kernel

import (
	"context"
	"database/sql"
	"fmt"
	"slices"
	"strings"

	"launchdir/db"
)

// MaxExtraCategories: "Each listing has one primary category; paid listings
// may have up to 3 more" (contract section 2).
const MaxExtraCategories = 3

// CategoryChange is what a write asks of a listing's categories: a primary
// (0 keeps the current one) and extra categories to add, in order.
type CategoryChange struct {
	Primary int64
	Extras  []int64
	// Why names the extras' source in the notes ("the draft", "order LD-…").
	Why string
}

// ApplyCategories is the one place the contract's category rule is
// applied (draft submit and sync, paid extra_categories orders): it sets
// the primary, adds the extras a listing may have (none unless its plan is
// paid; at most MaxExtraCategories besides the primary, counting those it
// has) and never removes one. It returns one note per category not kept,
// saying which and why, for the response and the page. Live counts are
// recounted when anything changed.
func ApplyCategories(ctx context.Context, tx *sql.Tx, listingID int64, c CategoryChange) ([]string, error) {
	var plan string
	var primary sql.NullInt64
	if err := tx.QueryRowContext(ctx, `SELECT plan, primary_category_id FROM listings WHERE id = ?`, listingID).Scan(&plan, &primary); err != nil {
		return nil, err
	}
	changed := false
	if c.Primary != 0 && (!primary.Valid || primary.Int64 != c.Primary) {
		if err := setPrimary(ctx, tx, listingID, c.Primary); err != nil {
			return nil, err
		}
		primary, changed = sql.NullInt64{Int64: c.Primary, Valid: true}, true
	}
	have, err := db.Column[int64](ctx, tx, `SELECT category_id FROM listing_categories WHERE listing_id = ? AND is_primary = 0
		AND category_id IS NOT (SELECT primary_category_id FROM listings WHERE id = ?)`, listingID, listingID)
	if err != nil {
		return nil, err
	}
	var notes, dropped []string
	room := MaxExtraCategories - len(have)
	for _, id := range c.Extras {
		if id == primary.Int64 || slices.Contains(have, id) {
			continue
		}
		name, err := categoryName(ctx, tx, id)
		if err != nil {
			return nil, err
		}
		if plan != "paid" || room <= 0 {
			dropped = append(dropped, name)
			continue
		}
		if _, err := tx.ExecContext(ctx, `INSERT OR IGNORE INTO listing_categories(listing_id, category_id, is_primary) VALUES(?,?,0)`, listingID, id); err != nil {
			return nil, err
		}
		have, room, changed = append(have, id), room-1, true
	}
	if len(dropped) > 0 {
		main, err := categoryName(ctx, tx, primary.Int64)
		if err != nil && !db.IsNoRows(err) {
			return nil, err
		}
		notes = append(notes, droppedNote(plan, main, dropped, c.Why))
	}
	if changed {
		return notes, db.RecountCategories(ctx, tx)
	}
	return notes, nil
}

func droppedNote(plan, primary string, names []string, why string) string {
	list := strings.Join(names, ", ")
	kept := "Kept " + primary + " as the primary category. "
	if primary == "" {
		kept = ""
	}
	if plan != "paid" {
		return fmt.Sprintf("%sNot added from %s: %s. A listing has one primary category; only paid listings may have up to %d more (a paid launch, then extra_categories).",
			kept, why, list, MaxExtraCategories)
	}
	return fmt.Sprintf("%sNot added from %s: %s. A paid listing may have at most %d categories besides its primary, and this one has them all.",
		kept, why, list, MaxExtraCategories)
}

func setPrimary(ctx context.Context, tx *sql.Tx, listingID, cid int64) error {
	if _, err := tx.ExecContext(ctx, `DELETE FROM listing_categories WHERE listing_id = ? AND is_primary = 1`, listingID); err != nil {
		return err
	}
	if _, err := tx.ExecContext(ctx, `INSERT INTO listing_categories(listing_id, category_id, is_primary) VALUES(?,?,1)
		ON CONFLICT(listing_id, category_id) DO UPDATE SET is_primary = 1`, listingID, cid); err != nil {
		return err
	}
	_, err := tx.ExecContext(ctx, `UPDATE listings SET primary_category_id = ? WHERE id = ?`, cid, listingID)
	return err
}

func categoryName(ctx context.Context, tx *sql.Tx, id int64) (string, error) {
	var name string
	err := tx.QueryRowContext(ctx, `SELECT name FROM categories WHERE id = ?`, id).Scan(&name)
	return name, err
}
