package app

import (
	"context"

	"launchdir/ops"
)

func (a *App) getAccount(ctx context.Context, in *ops.Input) (any, error) {
	uid := in.UserID()
	var u User
	err := a.DB.R.QueryRowContext(ctx, `SELECT id, email, name, created_at FROM users WHERE id = ?`, uid).
		Scan(&u.ID, &u.Email, &u.Name, &u.CreatedAt)
	if err != nil {
		return nil, notFound(err, "user")
	}
	counts := map[string]int{}
	for name, q := range map[string]string{
		"drafts":   `SELECT count(*) FROM drafts WHERE user_id = ?`,
		"listings": `SELECT count(*) FROM listing_owners WHERE user_id = ?`,
		"orders":   `SELECT count(*) FROM orders WHERE user_id = ?`,
		"claims":   `SELECT count(*) FROM claims WHERE user_id = ?`,
	} {
		n, err := a.DB.Count(ctx, q, uid)
		if err != nil {
			return nil, err
		}
		counts[name] = n
	}
	return map[string]any{
		"user": u, "scopes": in.Principal.Scopes, "credential": in.Principal.Credential, "counts": counts,
	}, nil
}
