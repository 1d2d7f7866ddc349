package people

import (
	"context"
	"database/sql"
	"strconv"
	"strings"

	"launchdir/app/kernel"
	"launchdir/db"
	"launchdir/ops"
)

// AccountResult says what an idempotent account command changed.
type AccountResult struct {
	User    User
	Created bool
	Changes []string // "password set", "name set", "admin" ...
}

// Summary is the one-line answer of the command line.
func (r *AccountResult) Summary() string {
	head := "user " + strconv.FormatInt(r.User.ID, 10) + " " + r.User.Email
	if r.Created {
		head = "created " + head
	} else {
		head += " already exists"
	}
	if len(r.Changes) == 0 {
		if r.Created {
			return head
		}
		return head + ": nothing to change"
	}
	return head + ": " + strings.Join(r.Changes, ", ")
}

// UpsertAccount is `launchdir user create`: it creates the account or,
// when the email already has one (made on the site or by `apikey create`),
// sets what was given (name, password, admin) on that same account.
// Running it twice changes nothing the second time. The operator vouches
// for the address, so an account given a password here is verified.
func (a *Service) UpsertAccount(ctx context.Context, email, name, password string, admin bool) (*AccountResult, error) {
	email, err := kernel.NormEmail(email)
	if err != nil {
		return nil, err
	}
	if name, err = checkName(name); err != nil {
		return nil, err
	}
	var hash string
	if password != "" {
		if err := CheckPasswordRule(password); err != nil {
			return nil, err
		}
		if hash, err = HashPassword(password); err != nil {
			return nil, err
		}
	}
	res := &AccountResult{}
	err = a.DB.Tx(ctx, func(tx *sql.Tx) error {
		u := &res.User
		var oldHash sql.NullString
		var wasAdmin bool
		err := tx.QueryRowContext(ctx, `SELECT id, email, name, created_at, password_hash, is_admin FROM users WHERE email = ?`, email).
			Scan(&u.ID, &u.Email, &u.Name, &u.CreatedAt, &oldHash, &wasAdmin)
		now := a.NowText()
		switch {
		case db.IsNoRows(err):
			var ph, verified any
			if hash != "" {
				ph, verified = hash, now
				res.Changes = append(res.Changes, "password set")
			}
			r, err := tx.ExecContext(ctx, `INSERT INTO users(email, name, password_hash, is_admin, verified_at, created_at) VALUES(?,?,?,?,?,?)`,
				email, name, ph, admin, verified, now)
			if err != nil {
				return err
			}
			res.Created = true
			*u = User{Email: email, Name: name, CreatedAt: now}
			u.ID, err = r.LastInsertId()
			if admin {
				res.Changes = append(res.Changes, "admin")
			}
			return err
		case err != nil:
			return err
		}
		if name != "" && name != u.Name {
			if _, err := tx.ExecContext(ctx, `UPDATE users SET name = ? WHERE id = ?`, name, u.ID); err != nil {
				return err
			}
			u.Name = name
			res.Changes = append(res.Changes, "name set")
		}
		if hash != "" {
			if oldHash.Valid && PasswordMatches(oldHash.String, password) {
				res.Changes = append(res.Changes, "password unchanged (same)")
			} else {
				if err := a.setPasswordTx(ctx, tx, u.ID, hash); err != nil {
					return err
				}
				res.Changes = append(res.Changes, "password set")
			}
		}
		if admin && !wasAdmin {
			if _, err := tx.ExecContext(ctx, `UPDATE users SET is_admin = 1 WHERE id = ?`, u.ID); err != nil {
				return err
			}
			res.Changes = append(res.Changes, "admin")
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	return res, nil
}

// SetPassword is `launchdir user password`: a new sign-in password for an
// existing account; its sessions end and the address counts as verified.
func (a *Service) SetPassword(ctx context.Context, email, password string) (*User, error) {
	email, err := kernel.NormEmail(email)
	if err != nil {
		return nil, err
	}
	if err := CheckPasswordRule(password); err != nil {
		return nil, err
	}
	hash, err := HashPassword(password)
	if err != nil {
		return nil, err
	}
	var u User
	err = a.DB.Tx(ctx, func(tx *sql.Tx) error {
		err := tx.QueryRowContext(ctx, `SELECT id, email, name, created_at FROM users WHERE email = ?`, email).Scan(&u.ID, &u.Email, &u.Name, &u.CreatedAt)
		if db.IsNoRows(err) {
			return ops.Errorf(ops.CodeNotFound, "no account has the email %s: create it with `launchdir user create -email %s -password-stdin`", email, email)
		}
		if err != nil {
			return err
		}
		return a.setPasswordTx(ctx, tx, u.ID, hash)
	})
	if err != nil {
		return nil, err
	}
	return &u, nil
}

func (a *Service) setPasswordTx(ctx context.Context, tx *sql.Tx, userID int64, hash string) error {
	now := a.NowText()
	if _, err := tx.ExecContext(ctx, `UPDATE users SET password_hash = ? WHERE id = ?`, hash, userID); err != nil {
		return err
	}
	res, err := tx.ExecContext(ctx, `UPDATE users SET verified_at = ? WHERE id = ? AND verified_at IS NULL`, now, userID)
	if err != nil {
		return err
	}
	if n, _ := res.RowsAffected(); n > 0 {
		if err := a.regenuineReviews(ctx, tx, userID); err != nil {
			return err
		}
	}
	if err := revokeSessions(ctx, tx, userID, now); err != nil {
		return err
	}
	_, err = tx.ExecContext(ctx, `UPDATE person_tokens SET used_at = ? WHERE user_id = ? AND kind = 'reset' AND used_at IS NULL`, now, userID)
	return err
}
