package admin

import (
	"context"
	"database/sql"
	"strconv"

	"launchdir/app/kernel"
	"launchdir/ops"
)

// OutboxEmail is one queued email as the site team sees it.
type OutboxEmail struct {
	ID            int64  `json:"id"`
	Kind          string `json:"kind"`
	To            string `json:"to"`
	Subject       string `json:"subject"`
	Status        string `json:"status"`
	Attempts      int    `json:"attempts"`
	LastError     string `json:"last_error,omitempty"`
	NextAttemptAt string `json:"next_attempt_at"`
	CreatedAt     string `json:"created_at"`
}

// ListOutbox lists emails of one status (pending or failed; sent ones are
// history), oldest first: the order they are delivered in.
func (a *Service) ListOutbox(ctx context.Context, adminID int64, status string, p AdminPage) (kernel.Page[OutboxEmail], error) {
	var out kernel.Page[OutboxEmail]
	if err := a.requireAdmin(ctx, adminID); err != nil {
		return out, err
	}
	if status != "pending" && status != "failed" && status != "sent" {
		return out, ops.Invalid("status", "must be pending, failed or sent")
	}
	page, per, off, err := p.norm()
	if err != nil {
		return out, err
	}
	out = kernel.Page[OutboxEmail]{Items: []OutboxEmail{}, Page: page, PerPage: per}
	if out.Total, err = a.DB.Count(ctx, `SELECT count(*) FROM outbox WHERE status = ?`, status); err != nil {
		return out, err
	}
	order := "id"
	if status == "sent" {
		order = "id DESC"
	}
	rows, err := a.DB.R.QueryContext(ctx, `SELECT id, kind, to_addr, subject, status, attempts, last_error, next_attempt_at, created_at
		FROM outbox WHERE status = ? ORDER BY `+order+` LIMIT ? OFFSET ?`, status, per, off)
	if err != nil {
		return out, err
	}
	defer rows.Close()
	for rows.Next() {
		var e OutboxEmail
		if err := rows.Scan(&e.ID, &e.Kind, &e.To, &e.Subject, &e.Status, &e.Attempts, &e.LastError, &e.NextAttemptAt, &e.CreatedAt); err != nil {
			return out, err
		}
		out.Items = append(out.Items, e)
	}
	return out, rows.Err()
}

// RetryOutbox puts a failed (or waiting) email back at the head of the
// queue with a fresh set of attempts; a sent email cannot be retried.
func (a *Service) RetryOutbox(ctx context.Context, adminID, id int64) error {
	return a.adminTx(ctx, adminID, func(tx *sql.Tx) error {
		var status string
		var attempts int
		if err := tx.QueryRowContext(ctx, `SELECT status, attempts FROM outbox WHERE id = ?`, id).Scan(&status, &attempts); err != nil {
			return kernel.NotFound(err, "email")
		}
		if status == "sent" {
			return ops.Invalid("id", "the email was already sent")
		}
		if _, err := tx.ExecContext(ctx, `UPDATE outbox SET status = 'pending', attempts = 0, next_attempt_at = ? WHERE id = ?`,
			a.NowText(), id); err != nil {
			return err
		}
		return a.audit(ctx, tx, adminID, "retry_email", "email "+strconv.FormatInt(id, 10),
			map[string]any{"status": status, "attempts": attempts}, map[string]any{"status": "pending", "attempts": 0})
	})
}
