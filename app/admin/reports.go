package admin

import (
	"context"
	"database/sql"
	"strconv"

	"launchdir/app/kernel"
	"launchdir/ops"
)

// The reports queue: listings and reviews people reported on the site
// (table reports, written by the people layer). Rejecting or archiving the
// listing, or hiding the review, resolves its open reports in the same
// transaction; a report that needs nothing is dismissed.

// Report is one report in the queue.
type Report struct {
	ID            int64  `json:"id"`
	Kind          string `json:"kind"` // listing, review or comment
	ListingID     int64  `json:"listing_id"`
	ListingName   string `json:"listing_name"`
	ListingSlug   string `json:"listing_slug"`
	ListingStatus string `json:"listing_status"`
	ReviewID      int64  `json:"review_id,omitempty"`
	ReviewText    string `json:"review_text,omitempty"`
	ReviewHidden  bool   `json:"review_hidden,omitempty"`
	CommentID     int64  `json:"comment_id,omitempty"`
	CommentText   string `json:"comment_text,omitempty"`
	CommentHidden bool   `json:"comment_hidden,omitempty"`
	Reason        string `json:"reason"`
	ReporterEmail string `json:"reporter_email"`
	Status        string `json:"status"`
	CreatedAt     string `json:"created_at"`
}

// ListReports lists reports of one status (open by default), oldest first
// for the open queue, newest first otherwise.
func (a *Service) ListReports(ctx context.Context, adminID int64, status string, p AdminPage) (kernel.Page[Report], error) {
	var out kernel.Page[Report]
	if err := a.requireAdmin(ctx, adminID); err != nil {
		return out, err
	}
	if status == "" {
		status = "open"
	}
	if status != "open" && status != "resolved" && status != "dismissed" {
		return out, ops.Invalid("status", "must be open, resolved or dismissed")
	}
	page, per, off, err := p.norm()
	if err != nil {
		return out, err
	}
	out = kernel.Page[Report]{Items: []Report{}, Page: page, PerPage: per}
	if out.Total, err = a.DB.Count(ctx, `SELECT count(*) FROM reports WHERE status = ?`, status); err != nil {
		return out, err
	}
	order := "r.id DESC"
	if status == "open" {
		order = "r.id"
	}
	rows, err := a.DB.R.QueryContext(ctx, `SELECT r.id, r.kind, r.listing_id, l.name, l.slug, l.status, coalesce(r.review_id, 0),
		coalesce(v.body, ''), v.hidden_at IS NOT NULL, coalesce(r.comment_id, 0), coalesce(cm.body, ''), cm.hidden_at IS NOT NULL,
		r.reason, coalesce(u.email, ''), r.status, r.created_at
		FROM reports r JOIN listings l ON l.id = r.listing_id LEFT JOIN reviews v ON v.id = r.review_id
		LEFT JOIN comments cm ON cm.id = r.comment_id
		LEFT JOIN users u ON u.id = r.user_id WHERE r.status = ? ORDER BY `+order+` LIMIT ? OFFSET ?`, status, per, off)
	if err != nil {
		return out, err
	}
	defer rows.Close()
	for rows.Next() {
		var r Report
		if err := rows.Scan(&r.ID, &r.Kind, &r.ListingID, &r.ListingName, &r.ListingSlug, &r.ListingStatus, &r.ReviewID,
			&r.ReviewText, &r.ReviewHidden, &r.CommentID, &r.CommentText, &r.CommentHidden, &r.Reason, &r.ReporterEmail, &r.Status, &r.CreatedAt); err != nil {
			return out, err
		}
		out.Items = append(out.Items, r)
	}
	return out, rows.Err()
}

// DismissReport closes an open report without acting on it.
func (a *Service) DismissReport(ctx context.Context, adminID, reportID int64) error {
	return a.adminTx(ctx, adminID, func(tx *sql.Tx) error {
		var status string
		if err := tx.QueryRowContext(ctx, `SELECT status FROM reports WHERE id = ?`, reportID).Scan(&status); err != nil {
			return kernel.NotFound(err, "report")
		}
		if status != "open" {
			return ops.Invalid("report_id", "the report is already %s", status)
		}
		if _, err := tx.ExecContext(ctx, `UPDATE reports SET status = 'dismissed', resolved_at = ? WHERE id = ?`, a.NowText(), reportID); err != nil {
			return err
		}
		return a.audit(ctx, tx, adminID, "dismiss_report", "report "+strconv.FormatInt(reportID, 10),
			map[string]any{"status": "open"}, map[string]any{"status": "dismissed"})
	})
}

// resolveReports closes the open reports an admin action answered.
func (a *Service) resolveReports(ctx context.Context, tx *sql.Tx, where string, arg int64) error {
	_, err := tx.ExecContext(ctx, `UPDATE reports SET status = 'resolved', resolved_at = ? WHERE status = 'open' AND `+where,
		a.NowText(), arg)
	return err
}
