package people

import (
	"context"
	"database/sql"

	"launchdir/app/kernel"
	"launchdir/db"
	"launchdir/ops"
)

// CheckResetLink says, before the new-password form is shown, whether a
// reset link can still be used: nil, or the same refusal ResetPassword
// would give (not valid, already used, expired). It reads only.
func (a *Service) CheckResetLink(ctx context.Context, token string) error {
	const what = "password reset link"
	if token == "" || len(token) > 200 {
		return ops.Invalid("token", "this %s is not valid", what)
	}
	var expires string
	var used sql.NullString
	err := a.DB.R.QueryRowContext(ctx, `SELECT expires_at, used_at FROM person_tokens WHERE hash = ? AND kind = 'reset'`,
		kernel.HashSecret(token)).Scan(&expires, &used)
	switch {
	case db.IsNoRows(err):
		return ops.Invalid("token", "this %s is not valid", what)
	case err != nil:
		return err
	case used.Valid:
		return ops.Invalid("token", "this %s was already used: ask for a new one below if you need to", what)
	case expires <= a.NowText():
		return ops.Invalid("token", "this %s has expired: ask for a new one below", what)
	}
	return nil
}
