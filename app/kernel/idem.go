package kernel

import (
	"context"
	"database/sql"
	"encoding/json"
	"time"

	"launchdir/db"
	"launchdir/ops"
)

// IdemTTL is how long idempotency keys are remembered.
var IdemTTL = 24 * time.Hour

// IdemStale is when a key still marked running is taken as abandoned (its
// process died mid-request); no operation runs anywhere near this long.
// A variable so crash tests can shorten it (-idempotency-stale).
var IdemStale = 5 * time.Minute

// lostResponse is what a released key answers when its request's effect had
// committed but the process died before storing the response: the effect
// is never run twice; the client looks the result up instead.
var lostResponse = &ops.Error{Code: ops.CodeConflict,
	Detail: "the first request with this Idempotency-Key took effect, but the server stopped before it could store the response; " +
		"do not repeat the request: look the result up (for example GET /api/v1/me/orders or the listing)",
	Extra: map[string]any{"effect_committed": true}}

// IdemStore keeps idempotent responses in SQLite, so replays survive restarts.
// The (user, key) primary key makes concurrent duplicates collide in the
// database: exactly one request runs, the others see "running" (409).
type IdemStore struct{ a *Kernel }

// NewIdemStore is the executor's idempotency store.
func NewIdemStore(k *Kernel) *IdemStore { return &IdemStore{a: k} }

func (s *IdemStore) Begin(ctx context.Context, userID int64, key, hash string) (*ops.Result, error) {
	var prev *ops.Result
	now := s.a.Now().UTC()
	err := s.a.DB.Tx(ctx, func(tx *sql.Tx) error {
		stale := now.Add(-IdemStale).Format(time.RFC3339Nano)
		// A stale running key whose effect never committed is released (the
		// request runs again); one whose effect committed is finished with
		// the lost-response problem (the request never runs twice).
		if _, err := tx.ExecContext(ctx, `DELETE FROM idempotency_keys WHERE user_id = ? AND key = ?
			AND (expires_at <= ? OR (state = 'running' AND created_at <= ? AND effect_at IS NULL))`,
			userID, key, now.Format(time.RFC3339Nano), stale); err != nil {
			return err
		}
		// One whose effect left a recovery point is taken over by this
		// request, which resumes the operation there (the claim is renewed
		// in this transaction, so one retry resumes, others see running).
		var recovery string
		err := tx.QueryRowContext(ctx, `UPDATE idempotency_keys SET created_at = ? WHERE user_id = ? AND key = ? AND state = 'running'
			AND created_at <= ? AND effect_at IS NOT NULL AND recovery <> '' AND request_hash = ? RETURNING recovery`,
			now.Format(time.RFC3339Nano), userID, key, stale, hash).Scan(&recovery)
		if err == nil {
			prev = &ops.Result{Resume: recovery}
			return nil
		}
		if !db.IsNoRows(err) {
			return err
		}
		if _, err := tx.ExecContext(ctx, `UPDATE idempotency_keys SET state = 'done', response_status = ?, response_body = ?
			WHERE user_id = ? AND key = ? AND state = 'running' AND created_at <= ? AND effect_at IS NOT NULL`,
			lostResponse.Code.Status(), []byte(ops.ProblemBody(lostResponse)), userID, key, stale); err != nil {
			return err
		}
		var (
			state, h string
			status   sql.NullInt64
			body     []byte
		)
		err = tx.QueryRowContext(ctx, `SELECT state, request_hash, response_status, response_body FROM idempotency_keys
			WHERE user_id = ? AND key = ?`, userID, key).Scan(&state, &h, &status, &body)
		switch {
		case db.IsNoRows(err):
			_, err = tx.ExecContext(ctx, `INSERT INTO idempotency_keys(user_id, key, request_hash, state, created_at, expires_at)
				VALUES(?,?,?,'running',?,?)`, userID, key, hash, now.Format(time.RFC3339Nano), now.Add(IdemTTL).Format(time.RFC3339Nano))
			return err
		case err != nil:
			return err
		case h != hash:
			return &ops.Error{Code: ops.CodeIdemMismatch, Detail: "this Idempotency-Key was already used with a different request; use a new key"}
		case state == "running":
			return &ops.Error{Code: ops.CodeConflict, Detail: "a request with this Idempotency-Key is still running; retry later"}
		}
		prev = &ops.Result{Status: int(status.Int64), Body: body}
		return nil
	})
	return prev, err
}

func (s *IdemStore) Finish(ctx context.Context, userID int64, key string, r *ops.Result) error {
	_, err := s.a.DB.W.ExecContext(ctx, `UPDATE idempotency_keys SET state = 'done', response_status = ?, response_body = ?
		WHERE user_id = ? AND key = ?`, r.Status, []byte(r.Body), userID, key)
	return err
}

// Abandon forgets the key after a server error (5xx, 429), so a retry runs
// again: the handler reported failure, and a handler that committed
// something before failing undoes it itself (create_checkout marks its
// order failed when the payment provider is down).
func (s *IdemStore) Abandon(ctx context.Context, userID int64, key string) {
	if _, err := s.a.DB.W.ExecContext(ctx, `DELETE FROM idempotency_keys WHERE user_id = ? AND key = ? AND state = 'running'`, userID, key); err != nil {
		s.a.Log.Error("idempotency abandon", "err", err)
	}
}

// PurgeIdempotency deletes expired keys; run periodically.
func (a *Kernel) PurgeIdempotency(ctx context.Context) error {
	_, err := a.DB.W.ExecContext(ctx, `DELETE FROM idempotency_keys WHERE expires_at <= ?`, a.Now().UTC().Format(time.RFC3339Nano))
	return err
}

// RespondInTx stores out (encoded exactly as the executor encodes an
// operation's output) as the response of ctx's idempotent request, inside
// the transaction q that makes the effect. An operation calls it last in
// its final write transaction and returns the same out.
func RespondInTx(ctx context.Context, q db.Execer, out any) error {
	if _, ok := ops.IdemClaimFrom(ctx); !ok {
		return nil
	}
	body, err := json.Marshal(out)
	if err != nil {
		return err
	}
	return db.StoreIdemResponse(ctx, q, body)
}
