package app

import (
	"context"
	"database/sql"
	"time"

	"launchdir/db"
	"launchdir/ops"
)

// IdemTTL is how long idempotency keys are remembered.
var IdemTTL = 24 * time.Hour

// idemStale is when a key still marked running is taken as abandoned (its
// process died mid-request); no operation runs anywhere near this long.
const idemStale = 5 * time.Minute

// idemStore keeps idempotent responses in SQLite, so replays survive restarts.
// The (user, key) primary key makes concurrent duplicates collide in the
// database: exactly one request runs, the others see "running" (409).
type idemStore struct{ a *App }

func (s *idemStore) Begin(ctx context.Context, userID int64, key, hash string) (*ops.Result, error) {
	var prev *ops.Result
	now := s.a.Now().UTC()
	err := s.a.DB.Tx(ctx, func(tx *sql.Tx) error {
		if _, err := tx.ExecContext(ctx, `DELETE FROM idempotency_keys WHERE user_id = ? AND key = ?
			AND (expires_at <= ? OR (state = 'running' AND created_at <= ?))`,
			userID, key, now.Format(time.RFC3339Nano), now.Add(-idemStale).Format(time.RFC3339Nano)); err != nil {
			return err
		}
		var (
			state, h string
			status   sql.NullInt64
			body     []byte
		)
		err := tx.QueryRowContext(ctx, `SELECT state, request_hash, response_status, response_body FROM idempotency_keys
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

func (s *idemStore) Finish(ctx context.Context, userID int64, key string, r *ops.Result) error {
	_, err := s.a.DB.W.ExecContext(ctx, `UPDATE idempotency_keys SET state = 'done', response_status = ?, response_body = ?
		WHERE user_id = ? AND key = ?`, r.Status, []byte(r.Body), userID, key)
	return err
}

func (s *idemStore) Abandon(ctx context.Context, userID int64, key string) {
	if _, err := s.a.DB.W.ExecContext(ctx, `DELETE FROM idempotency_keys WHERE user_id = ? AND key = ? AND state = 'running'`, userID, key); err != nil {
		s.a.Log.Error("idempotency abandon", "err", err)
	}
}

// PurgeIdempotency deletes expired keys; run periodically.
func (a *App) PurgeIdempotency(ctx context.Context) error {
	_, err := a.DB.W.ExecContext(ctx, `DELETE FROM idempotency_keys WHERE expires_at <= ?`, a.Now().UTC().Format(time.RFC3339Nano))
	return err
}
