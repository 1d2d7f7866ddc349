package webhooks

import (
	"bytes"
	"context"
	"database/sql"
	"fmt"
	"io"
	"net/http"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"

	"launchdir/app/kernel"
)

// due is one delivery to attempt now.
type due struct {
	id, endpointID     int64
	eventID, payload   string
	url                string
	secret, previous   string
	previousUntil      string
	attempts, failures int
}

// Deliver attempts every due delivery of enabled endpoints (the job runs it
// every few seconds, and the outbox wake-up right after an event).
func (a *Service) Deliver(ctx context.Context) error {
	a.mu.Lock()
	defer a.mu.Unlock()
	rows, err := a.DB.R.QueryContext(ctx, `SELECT d.id, d.endpoint_id, d.event_id, ev.payload, w.url, w.secret, w.previous_secret,
		coalesce(w.previous_until, ''), d.attempts FROM webhook_deliveries d JOIN webhook_endpoints w ON w.id = d.endpoint_id
		JOIN webhook_events ev ON ev.id = d.event_id
		WHERE d.status = 'pending' AND d.next_attempt_at <= ? AND w.status = 'enabled' ORDER BY d.next_attempt_at, d.id LIMIT 50`, a.NowText())
	if err != nil {
		return err
	}
	var list []due
	for rows.Next() {
		var d due
		if err := rows.Scan(&d.id, &d.endpointID, &d.eventID, &d.payload, &d.url, &d.secret, &d.previous, &d.previousUntil, &d.attempts); err != nil {
			rows.Close()
			return err
		}
		list = append(list, d)
	}
	rows.Close()
	for _, d := range list {
		if ctx.Err() != nil {
			return ctx.Err()
		}
		if err := a.attempt(ctx, d); err != nil {
			return err
		}
	}
	return nil
}

// result is what one attempt got.
type result struct {
	status  int
	latency time.Duration
	body    string
	err     string
}

// attempt sends one delivery and records the result.
func (a *Service) attempt(ctx context.Context, d due) error {
	// An earlier attempt of this run may have turned the endpoint off.
	var status string
	if err := a.DB.R.QueryRowContext(ctx, `SELECT status FROM webhook_endpoints WHERE id = ?`, d.endpointID).Scan(&status); err != nil || status != "enabled" {
		return nil
	}
	secrets, err := a.secrets(d)
	var r result
	if err != nil {
		r.err = err.Error()
	} else {
		r = a.send(ctx, d, secrets)
	}
	return a.record(ctx, d, r)
}

// secrets are the endpoint's signing secrets in clear: the current one,
// and the previous one during a rotation's overlap.
func (a *Service) secrets(d due) ([]string, error) {
	cur, err := a.Unseal(d.secret)
	if err != nil {
		return nil, err
	}
	out := []string{cur}
	if d.previous != "" && d.previousUntil > a.NowText() {
		if prev, err := a.Unseal(d.previous); err == nil {
			out = append(out, prev)
		}
	}
	return out, nil
}

// send POSTs the payload with the Standard Webhooks headers.
func (a *Service) send(ctx context.Context, d due, secrets []string) result {
	ts := a.Now().Unix()
	body := []byte(d.payload)
	sig, err := Sign(d.eventID, ts, body, secrets...)
	if err != nil {
		return result{err: err.Error()}
	}
	ctx, cancel := context.WithTimeout(ctx, requestTimeout)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, d.url, bytes.NewReader(body))
	if err != nil {
		return result{err: err.Error()}
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("User-Agent", "launchdir-webhooks/1 (+"+a.Cfg.BaseURL+")")
	req.Header.Set("webhook-id", d.eventID)
	req.Header.Set("webhook-timestamp", strconv.FormatInt(ts, 10))
	req.Header.Set("webhook-signature", sig)
	start := time.Now()
	resp, err := a.client.Do(req)
	r := result{latency: time.Since(start)}
	if err != nil {
		r.err = err.Error()
		return r
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(io.LimitReader(resp.Body, responseExcerpt))
	r.status, r.body = resp.StatusCode, strings.ToValidUTF8(string(b), "?")
	if !utf8.ValidString(r.body) {
		r.body = ""
	}
	if resp.StatusCode < 200 || resp.StatusCode > 299 {
		r.err = "the endpoint answered " + resp.Status
	}
	return r
}

// record logs the attempt and moves the delivery and the endpoint on: a
// success delivers and clears the endpoint's failures; a failure retries
// later, fails the delivery after MaxAttempts, and disables the endpoint
// after DisableAfter consecutive failures (its owner is emailed).
func (a *Service) record(ctx context.Context, d due, r result) error {
	now := a.Now().UTC()
	return a.DB.Tx(ctx, func(tx *sql.Tx) error {
		ms := r.latency.Milliseconds()
		if _, err := tx.ExecContext(ctx, `INSERT INTO webhook_attempts(delivery_id, attempted_at, status_code, latency_ms, response, error) VALUES(?,?,?,?,?,?)`,
			d.id, now.Format(time.RFC3339), r.status, ms, r.body, r.err); err != nil {
			return err
		}
		if r.err == "" {
			if _, err := tx.ExecContext(ctx, `UPDATE webhook_deliveries SET status = 'delivered', attempts = attempts + 1, last_status = ?, last_latency_ms = ?,
				last_response = ?, last_error = '', delivered_at = ? WHERE id = ?`, r.status, ms, r.body, now.Format(time.RFC3339), d.id); err != nil {
				return err
			}
			_, err := tx.ExecContext(ctx, `UPDATE webhook_endpoints SET failures = 0 WHERE id = ?`, d.endpointID)
			return err
		}
		status, next := "pending", now
		if d.attempts+1 >= MaxAttempts {
			status = "failed"
		} else {
			next = now.Add(retrySchedule[d.attempts])
		}
		if _, err := tx.ExecContext(ctx, `UPDATE webhook_deliveries SET status = ?, attempts = attempts + 1, next_attempt_at = ?, last_status = ?,
			last_latency_ms = ?, last_response = ?, last_error = ? WHERE id = ?`,
			status, next.Format(time.RFC3339), r.status, ms, r.body, r.err, d.id); err != nil {
			return err
		}
		var failures int
		if err := tx.QueryRowContext(ctx, `UPDATE webhook_endpoints SET failures = failures + 1 WHERE id = ? RETURNING failures`, d.endpointID).Scan(&failures); err != nil {
			return err
		}
		if failures >= DisableAfter {
			return a.disable(ctx, tx, d.endpointID, fmt.Sprintf("%d attempts in a row failed; the last: %s", failures, r.err))
		}
		return nil
	})
}

// disable turns an endpoint off and tells its owner.
func (a *Service) disable(ctx context.Context, tx *sql.Tx, id int64, reason string) error {
	var email, url string
	err := tx.QueryRowContext(ctx, `UPDATE webhook_endpoints SET status = 'disabled', disabled_reason = ? WHERE id = ? AND status = 'enabled'
		RETURNING (SELECT email FROM users WHERE users.id = webhook_endpoints.user_id), url`, reason, id).Scan(&email, &url)
	if err == sql.ErrNoRows {
		return nil
	}
	if err != nil {
		return err
	}
	page := a.Cfg.BaseURL + "/me/webhooks"
	intro := "We turned off your webhook endpoint " + url + " because it kept failing: " + reason + "."
	outro := "Events are no longer sent to it. Fix the endpoint, then turn it on again and redeliver what it missed from the delivery log."
	return a.EnqueueMessage(ctx, tx, a.LinkEmail("webhook_disabled", email, "Your webhook endpoint was turned off", intro, page, "Open your webhooks", outro))
}

// Attempt is one logged attempt of a delivery.
type Attempt struct {
	At        string `json:"at" format:"date-time"`
	Status    int    `json:"status" doc:"HTTP status; 0 when there was no answer."`
	LatencyMS int64  `json:"latency_ms"`
	Response  string `json:"response" doc:"The first 500 bytes of the answer."`
	Error     string `json:"error,omitempty"`
}

// Delivery is one event sent (or to be sent) to one endpoint.
type Delivery struct {
	ID            int64     `json:"id"`
	EventID       string    `json:"event_id" doc:"The webhook-id header."`
	EventType     string    `json:"event_type"`
	Status        string    `json:"status" enum:"pending,delivered,failed"`
	Attempts      int       `json:"attempts"`
	NextAttemptAt string    `json:"next_attempt_at,omitempty" format:"date-time"`
	DeliveredAt   string    `json:"delivered_at,omitempty" format:"date-time"`
	CreatedAt     string    `json:"created_at" format:"date-time"`
	Log           []Attempt `json:"log" doc:"Every attempt, oldest first."`
}

// Deliveries is an endpoint's delivery log, newest first.
func (a *Service) Deliveries(ctx context.Context, userID, endpointID int64, page, perPage int) (kernel.Page[Delivery], error) {
	out := kernel.Page[Delivery]{Items: []Delivery{}, Page: page, PerPage: perPage}
	if _, err := a.Get(ctx, userID, endpointID); err != nil {
		return out, err
	}
	var err error
	if out.Total, err = a.DB.Count(ctx, `SELECT count(*) FROM webhook_deliveries WHERE endpoint_id = ?`, endpointID); err != nil {
		return out, err
	}
	rows, err := a.DB.R.QueryContext(ctx, `SELECT d.id, d.event_id, ev.type, d.status, d.attempts, CASE WHEN d.status = 'pending' THEN d.next_attempt_at ELSE '' END,
		coalesce(d.delivered_at, ''), d.created_at FROM webhook_deliveries d JOIN webhook_events ev ON ev.id = d.event_id
		WHERE d.endpoint_id = ? ORDER BY d.id DESC LIMIT ? OFFSET ?`, endpointID, perPage, (page-1)*perPage)
	if err != nil {
		return out, err
	}
	for rows.Next() {
		var d Delivery
		if err := rows.Scan(&d.ID, &d.EventID, &d.EventType, &d.Status, &d.Attempts, &d.NextAttemptAt, &d.DeliveredAt, &d.CreatedAt); err != nil {
			rows.Close()
			return out, err
		}
		out.Items = append(out.Items, d)
	}
	rows.Close()
	for i := range out.Items {
		if out.Items[i].Log, err = a.attempts(ctx, out.Items[i].ID); err != nil {
			return out, err
		}
	}
	return out, rows.Err()
}

func (a *Service) attempts(ctx context.Context, deliveryID int64) ([]Attempt, error) {
	rows, err := a.DB.R.QueryContext(ctx, `SELECT attempted_at, status_code, latency_ms, response, error FROM webhook_attempts
		WHERE delivery_id = ? ORDER BY id LIMIT 20`, deliveryID)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	out := []Attempt{}
	for rows.Next() {
		var at Attempt
		if err := rows.Scan(&at.At, &at.Status, &at.LatencyMS, &at.Response, &at.Error); err != nil {
			return nil, err
		}
		out = append(out, at)
	}
	return out, rows.Err()
}

// Redeliver sends a delivery's event again as a new delivery, now.
func (a *Service) Redeliver(ctx context.Context, userID, endpointID, deliveryID int64) (*Delivery, error) {
	if _, err := a.Get(ctx, userID, endpointID); err != nil {
		return nil, err
	}
	var out Delivery
	err := a.DB.Tx(ctx, func(tx *sql.Tx) error {
		var id int64
		err := tx.QueryRowContext(ctx, `INSERT INTO webhook_deliveries(endpoint_id, event_id, next_attempt_at, created_at)
			SELECT endpoint_id, event_id, ?1, ?1 FROM webhook_deliveries WHERE id = ? AND endpoint_id = ? RETURNING id`,
			a.NowText(), deliveryID, endpointID).Scan(&id)
		if err == sql.ErrNoRows {
			return notFoundDelivery()
		}
		if err != nil {
			return err
		}
		// The new delivery as the log shows it before its first attempt
		// (the worker starts after this commit), stored as the response.
		if err := tx.QueryRowContext(ctx, `SELECT d.id, d.event_id, ev.type, d.status, d.attempts, d.next_attempt_at, d.created_at
			FROM webhook_deliveries d JOIN webhook_events ev ON ev.id = d.event_id WHERE d.id = ?`, id).
			Scan(&out.ID, &out.EventID, &out.EventType, &out.Status, &out.Attempts, &out.NextAttemptAt, &out.CreatedAt); err != nil {
			return err
		}
		out.Log = []Attempt{}
		return kernel.RespondInTx(ctx, tx, out)
	})
	if err != nil {
		return nil, err
	}
	a.WakeOutbox()
	return &out, nil
}
