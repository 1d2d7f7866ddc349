package people

import (
	"context"

	"launchdir/app/kernel"
	"launchdir/ops"
)

func (a *Service) getAccount(ctx context.Context, in *ops.Input) (any, error) {
	uid := in.UserID()
	var u User
	err := a.DB.R.QueryRowContext(ctx, `SELECT id, email, name, created_at FROM users WHERE id = ?`, uid).
		Scan(&u.ID, &u.Email, &u.Name, &u.CreatedAt)
	if err != nil {
		return nil, kernel.NotFound(err, "user")
	}
	var counts AccountCounts
	for n, q := range map[*int]string{
		&counts.Drafts:   `SELECT count(*) FROM drafts WHERE user_id = ?`,
		&counts.Listings: `SELECT count(*) FROM listing_owners WHERE user_id = ?`,
		&counts.Orders:   `SELECT count(*) FROM orders WHERE user_id = ?`,
		&counts.Claims:   `SELECT count(*) FROM claims WHERE user_id = ?`,
	} {
		c, err := a.DB.Count(ctx, q, uid)
		if err != nil {
			return nil, err
		}
		*n = c
	}
	return Account{User: u, Scopes: in.Principal.Scopes, Credential: in.Principal.Credential, Counts: counts}, nil
}
