package admin

import (
	"context"
	"database/sql"
	"strconv"

	"launchdir/app/kernel"
	"launchdir/ops"
)

// HideComment hides a comment (table comments, written by the
// conversation domain) from every door; its open reports are resolved in
// the same transaction. A hidden top-level comment with replies stays as
// a placeholder so the replies keep their place.
func (a *Service) HideComment(ctx context.Context, adminID, commentID int64, reason string) error {
	reason, err := checkReason(reason)
	if err != nil {
		return err
	}
	return a.adminTx(ctx, adminID, func(tx *sql.Tx) error {
		var hidden sql.NullString
		if err := tx.QueryRowContext(ctx, `SELECT hidden_at FROM comments WHERE id = ?`, commentID).Scan(&hidden); err != nil {
			return kernel.NotFound(err, "comment")
		}
		if hidden.Valid {
			return ops.Invalid("comment_id", "the comment is already hidden")
		}
		if _, err := tx.ExecContext(ctx, `UPDATE comments SET hidden_at = ?, hidden_reason = ?, pinned = 0 WHERE id = ?`,
			a.NowText(), reason, commentID); err != nil {
			return err
		}
		if err := a.resolveReports(ctx, tx, "comment_id = ?", commentID); err != nil {
			return err
		}
		return a.audit(ctx, tx, adminID, "hide_comment", "comment "+strconv.FormatInt(commentID, 10),
			map[string]any{"hidden": false}, map[string]any{"hidden": true, "reason": reason})
	})
}

// RestoreComment shows a comment the site team hid again.
func (a *Service) RestoreComment(ctx context.Context, adminID, commentID int64) error {
	return a.adminTx(ctx, adminID, func(tx *sql.Tx) error {
		var hidden sql.NullString
		var reason string
		if err := tx.QueryRowContext(ctx, `SELECT hidden_at, hidden_reason FROM comments WHERE id = ?`, commentID).Scan(&hidden, &reason); err != nil {
			return kernel.NotFound(err, "comment")
		}
		if !hidden.Valid {
			return ops.Invalid("comment_id", "the comment is not hidden")
		}
		if _, err := tx.ExecContext(ctx, `UPDATE comments SET hidden_at = NULL, hidden_reason = '' WHERE id = ?`, commentID); err != nil {
			return err
		}
		return a.audit(ctx, tx, adminID, "restore_comment", "comment "+strconv.FormatInt(commentID, 10),
			map[string]any{"hidden": true, "reason": reason}, map[string]any{"hidden": false})
	})
}

// HiddenComment is a comment the site team hid, for the restore list.
type HiddenComment struct {
	ID          int64  `json:"id"`
	ListingName string `json:"listing_name"`
	ListingSlug string `json:"listing_slug"`
	Body        string `json:"body"`
	Reason      string `json:"reason"`
	HiddenAt    string `json:"hidden_at"`
}

// HiddenComments lists hidden comments, most recently hidden first.
func (a *Service) HiddenComments(ctx context.Context, adminID int64, p AdminPage) (kernel.Page[HiddenComment], error) {
	var out kernel.Page[HiddenComment]
	if err := a.requireAdmin(ctx, adminID); err != nil {
		return out, err
	}
	page, per, off, err := p.norm()
	if err != nil {
		return out, err
	}
	out = kernel.Page[HiddenComment]{Items: []HiddenComment{}, Page: page, PerPage: per}
	if out.Total, err = a.DB.Count(ctx, `SELECT count(*) FROM comments WHERE hidden_at IS NOT NULL`); err != nil {
		return out, err
	}
	rows, err := a.DB.R.QueryContext(ctx, `SELECT c.id, l.name, l.slug, c.body, c.hidden_reason, c.hidden_at FROM comments c
		JOIN listings l ON l.id = c.listing_id WHERE c.hidden_at IS NOT NULL ORDER BY c.hidden_at DESC, c.id DESC LIMIT ? OFFSET ?`, per, off)
	if err != nil {
		return out, err
	}
	defer rows.Close()
	for rows.Next() {
		var h HiddenComment
		if err := rows.Scan(&h.ID, &h.ListingName, &h.ListingSlug, &h.Body, &h.Reason, &h.HiddenAt); err != nil {
			return out, err
		}
		out.Items = append(out.Items, h)
	}
	return out, rows.Err()
}
