package admin

import (
	"context"
	"database/sql"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"

	"launchdir/app/kernel"
	"launchdir/app/people"
	"launchdir/db"
	"launchdir/ops"
)

// The site team's admin. Every admin function takes the acting admin's user
// id, checks it is an admin (not one is reported like a missing page: 404),
// runs its change in one transaction and records an audit entry (who, what,
// before, after) in that same transaction. The site's admin pages call these
// functions; API keys and OAuth tokens never reach them.

// IsAdmin reports whether userID is an admin account.
func (a *Service) IsAdmin(ctx context.Context, userID int64) bool {
	var admin bool
	err := a.DB.R.QueryRowContext(ctx, `SELECT is_admin FROM users WHERE id = ?`, userID).Scan(&admin)
	return err == nil && admin
}

// errNotAdmin is what a non-admin gets: the admin area does not exist for them.
func errNotAdmin() error { return ops.NotFound("page") }

// adminTx runs fn in one transaction after checking adminID is an admin.
func (a *Service) adminTx(ctx context.Context, adminID int64, fn func(tx *sql.Tx) error) error {
	return a.DB.Tx(ctx, func(tx *sql.Tx) error {
		var admin bool
		if err := tx.QueryRowContext(ctx, `SELECT is_admin FROM users WHERE id = ?`, adminID).Scan(&admin); err != nil || !admin {
			if err != nil && !db.IsNoRows(err) {
				return err
			}
			return errNotAdmin()
		}
		return fn(tx)
	})
}

// requireAdmin guards the read-only admin functions.
func (a *Service) requireAdmin(ctx context.Context, adminID int64) error {
	if !a.IsAdmin(ctx, adminID) {
		return errNotAdmin()
	}
	return nil
}

// audit records one admin action inside its transaction.
func (a *Service) audit(ctx context.Context, tx *sql.Tx, adminID int64, action, target string, before, after any) error {
	_, err := tx.ExecContext(ctx, `INSERT INTO admin_audit(admin_id, action, target, before, after, created_at) VALUES(?,?,?,?,?,?)`,
		adminID, action, target, db.EncodeJSON(before), db.EncodeJSON(after), a.Now().UTC().Format(time.RFC3339Nano))
	return err
}

// AuditEntry is one admin action.
type AuditEntry struct {
	ID         int64  `json:"id"`
	AdminID    int64  `json:"admin_id"`
	AdminEmail string `json:"admin_email"`
	Action     string `json:"action"`
	Target     string `json:"target"`
	Before     string `json:"before"` // JSON
	After      string `json:"after"`  // JSON
	CreatedAt  string `json:"created_at"`
}

// AdminPage is a page request of an admin list: page 1..1000, per page 1..100.
type AdminPage struct{ Page, PerPage int }

func (p AdminPage) norm() (page, perPage, offset int, err error) {
	page, perPage = p.Page, p.PerPage
	if page == 0 {
		page = 1
	}
	if perPage == 0 {
		perPage = 50
	}
	if page < 1 || page > 1000 {
		return 0, 0, 0, ops.Invalid("page", "must be 1..1000")
	}
	if perPage < 1 || perPage > 100 {
		return 0, 0, 0, ops.Invalid("per_page", "must be 1..100")
	}
	return page, perPage, (page - 1) * perPage, nil
}

// ListAudit lists admin actions, newest first.
func (a *Service) ListAudit(ctx context.Context, adminID int64, p AdminPage) (kernel.Page[AuditEntry], error) {
	var out kernel.Page[AuditEntry]
	if err := a.requireAdmin(ctx, adminID); err != nil {
		return out, err
	}
	page, per, off, err := p.norm()
	if err != nil {
		return out, err
	}
	out = kernel.Page[AuditEntry]{Items: []AuditEntry{}, Page: page, PerPage: per}
	if out.Total, err = a.DB.Count(ctx, `SELECT count(*) FROM admin_audit`); err != nil {
		return out, err
	}
	rows, err := a.DB.R.QueryContext(ctx, `SELECT x.id, x.admin_id, coalesce(u.email,''), x.action, x.target, x.before, x.after, x.created_at
		FROM admin_audit x LEFT JOIN users u ON u.id = x.admin_id ORDER BY x.id DESC LIMIT ? OFFSET ?`, per, off)
	if err != nil {
		return out, err
	}
	defer rows.Close()
	for rows.Next() {
		var e AuditEntry
		if err := rows.Scan(&e.ID, &e.AdminID, &e.AdminEmail, &e.Action, &e.Target, &e.Before, &e.After, &e.CreatedAt); err != nil {
			return out, err
		}
		out.Items = append(out.Items, e)
	}
	return out, rows.Err()
}

// SiteSettings are the settings the site team edits.
type SiteSettings struct {
	SiteName           string `json:"site_name"`
	SiteDescription    string `json:"site_description"`
	FreeQueueWeeks     int    `json:"free_queue_weeks"`
	FreeWeeklyCapacity int    `json:"free_weekly_capacity"`
}

// Bounds of the settings.
const (
	maxSiteName        = 80
	maxSiteDescription = 300
	maxFreeQueueWeeks  = 52
	maxFreeCapacity    = 1000
)

// Settings reads the editable settings with their defaults.
func (a *Service) Settings(ctx context.Context) SiteSettings {
	return SiteSettings{
		SiteName:           a.Setting(ctx, "site_name", a.SiteName(ctx)),
		SiteDescription:    a.Setting(ctx, "site_description", "A directory of startup products, launched weekly."),
		FreeQueueWeeks:     a.FreeQueueWeeks(ctx),
		FreeWeeklyCapacity: a.FreeWeeklyCapacity(ctx),
	}
}

// UpdateSettings validates and saves every setting at once.
func (a *Service) UpdateSettings(ctx context.Context, adminID int64, s SiteSettings) error {
	s.SiteName = strings.TrimSpace(s.SiteName)
	s.SiteDescription = strings.TrimSpace(s.SiteDescription)
	var bad []ops.FieldError
	if n := utf8.RuneCountInString(s.SiteName); n < 1 || n > maxSiteName {
		bad = append(bad, kernel.FieldErr("site_name", "must be 1..80 characters"))
	}
	if utf8.RuneCountInString(s.SiteDescription) > maxSiteDescription {
		bad = append(bad, kernel.FieldErr("site_description", "must be at most 300 characters"))
	}
	if s.FreeQueueWeeks < 0 || s.FreeQueueWeeks > maxFreeQueueWeeks {
		bad = append(bad, kernel.FieldErr("free_queue_weeks", "must be 0..52"))
	}
	if s.FreeWeeklyCapacity < 1 || s.FreeWeeklyCapacity > maxFreeCapacity {
		bad = append(bad, kernel.FieldErr("free_weekly_capacity", "must be 1..1000"))
	}
	if len(bad) > 0 {
		return ops.InvalidFields(bad)
	}
	before := a.Settings(ctx)
	return a.adminTx(ctx, adminID, func(tx *sql.Tx) error {
		for k, v := range map[string]string{"site_name": s.SiteName, "site_description": s.SiteDescription,
			"free_queue_weeks": strconv.Itoa(s.FreeQueueWeeks), "free_weekly_capacity": strconv.Itoa(s.FreeWeeklyCapacity)} {
			if err := a.PutSetting(ctx, tx, k, v); err != nil { // the ctx site's settings
				return err
			}
		}
		return a.audit(ctx, tx, adminID, "update_settings", "settings", before, s)
	})
}

// SetAdmin makes a user an admin or not (CLI; the first admin has no admin
// to act for it, so this is not audited as an admin action).
func (a *Service) SetAdmin(ctx context.Context, email string, admin bool) (*people.User, error) {
	email, err := kernel.NormEmail(email)
	if err != nil {
		return nil, err
	}
	var u people.User
	err = a.DB.R.QueryRowContext(ctx, `SELECT id, email, name, created_at FROM users WHERE email = ?`, email).
		Scan(&u.ID, &u.Email, &u.Name, &u.CreatedAt)
	if err != nil {
		return nil, kernel.NotFound(err, "user "+email)
	}
	_, err = a.DB.W.ExecContext(ctx, `UPDATE users SET is_admin = ? WHERE id = ?`, admin, u.ID)
	return &u, err
}
