package kernel

import (
	"context"
	"database/sql"
	"encoding/json"
	"sync"
	"time"
)

// The outbox: every email is first a row written in the same transaction
// as the change that caused it, then delivered by a background job with
// retries. Nothing is lost on restart; nothing is sent for a rolled-back change.

const outboxMaxAttempts = 8

// EnqueueMail adds an email to the outbox inside tx.
func (a *Kernel) EnqueueMail(ctx context.Context, tx *sql.Tx, kind, to, subject, body string) error {
	now := a.Now().UTC().Format(time.RFC3339)
	_, err := tx.ExecContext(ctx, `INSERT INTO outbox(kind, to_addr, subject, body, next_attempt_at, created_at) VALUES(?,?,?,?,?,?)`,
		kind, to, subject, body, now, now)
	a.WakeOutbox()
	return err
}

// outboxState lets an enqueued email leave at once instead of at the next
// tick of the delivery job, and keeps the job and the waker from sending
// the same email twice.
type outboxState struct {
	wake  chan struct{} // capacity 1: many wakes while a delivery runs make one more
	mu    sync.Mutex    // one delivery at a time
	after []func(context.Context) error
}

// OnOutboxWake adds a delivery that also runs when the outbox is woken
// (webhooks share the wake-up: their events are queued the same way).
func (a *Kernel) OnOutboxWake(fn func(context.Context) error) {
	a.outbox.after = append(a.outbox.after, fn)
}

// WakeOutbox asks the outbox waker to deliver soon. It is called inside
// the enqueuing transaction; the waker waits for that transaction to end.
func (a *Kernel) WakeOutbox() {
	select {
	case a.outbox.wake <- struct{}{}:
	default:
	}
}

// RunOutboxWaker delivers the outbox each time something is queued, until
// ctx ends. The timer job (every 15 s) still runs for retries and for
// emails queued by another process.
func (a *Kernel) RunOutboxWaker(ctx context.Context) {
	for {
		select {
		case <-ctx.Done():
			return
		case <-a.outbox.wake:
		}
		// The writer pool has one connection, held by the transaction
		// that queued the email until it commits or rolls back: taking
		// it here means that row is visible (or will never be).
		if c, err := a.DB.W.Conn(ctx); err == nil {
			c.Close()
		}
		for _, deliver := range append([]func(context.Context) error{a.DeliverOutbox}, a.outbox.after...) {
			if err := deliver(ctx); err != nil && ctx.Err() == nil {
				a.Log.Warn("outbox delivery", "err", err)
			}
		}
	}
}

type outboxRow struct {
	id                int64
	kind              string
	to, subject, body string
	html, headers     string
	attachments       string
	attempts          int
}

// DeliverOutbox sends due emails; failures back off exponentially and end
// in status failed after outboxMaxAttempts.
func (a *Kernel) DeliverOutbox(ctx context.Context) error {
	a.outbox.mu.Lock()
	defer a.outbox.mu.Unlock()
	now := a.Now().UTC()
	rows, err := a.DB.R.QueryContext(ctx, `SELECT id, kind, to_addr, subject, body, html, headers, attachments, attempts FROM outbox
		WHERE status = 'pending' AND next_attempt_at <= ? ORDER BY id LIMIT 50`, now.Format(time.RFC3339))
	if err != nil {
		return err
	}
	var due []outboxRow
	for rows.Next() {
		var r outboxRow
		if err := rows.Scan(&r.id, &r.kind, &r.to, &r.subject, &r.body, &r.html, &r.headers, &r.attachments, &r.attempts); err != nil {
			rows.Close()
			return err
		}
		due = append(due, r)
	}
	rows.Close()
	for _, r := range due {
		if err := a.deliverOne(ctx, r, now); err != nil {
			return err
		}
	}
	return nil
}

func (a *Kernel) deliverOne(ctx context.Context, r outboxRow, now time.Time) error {
	var sendErr error
	if es, ok := a.Ext.Mailer.(EmailSender); ok {
		e := Email{Kind: r.kind, To: r.to, Subject: r.subject, Text: r.body, HTML: r.html}
		json.Unmarshal([]byte(r.headers), &e.Headers)
		json.Unmarshal([]byte(r.attachments), &e.Attachments)
		sendErr = es.SendEmail(ctx, e)
	} else {
		sendErr = a.Ext.Mailer.Send(ctx, r.to, r.subject, r.body)
	}
	if sendErr == nil {
		_, err := a.DB.W.ExecContext(ctx, `UPDATE outbox SET status = 'sent', attempts = attempts + 1, sent_at = ? WHERE id = ?`,
			now.Format(time.RFC3339), r.id)
		return err
	}
	a.Log.Warn("email delivery failed", "id", r.id, "to", r.to, "err", sendErr)
	status, next := "pending", now.Add(time.Duration(1<<r.attempts)*time.Minute)
	if r.attempts+1 >= outboxMaxAttempts {
		status = "failed"
	}
	_, err := a.DB.W.ExecContext(ctx, `UPDATE outbox SET status = ?, attempts = attempts + 1, last_error = ?, next_attempt_at = ? WHERE id = ?`,
		status, sendErr.Error(), next.Format(time.RFC3339), r.id)
	return err
}
