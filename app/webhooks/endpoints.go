package webhooks

import (
	"context"
	"database/sql"
	"encoding/json"
	"net/netip"
	"net/url"
	"strings"
	"time"

	"launchdir/app/kernel"
	"launchdir/db"
	"launchdir/ops"
)

// Endpoint is a registered webhook endpoint. Secret is present only in the
// answers of create_webhook and rotate_webhook_secret.
type Endpoint struct {
	ID             int64    `json:"id"`
	URL            string   `json:"url" format:"uri"`
	Description    string   `json:"description"`
	Events         []string `json:"events"`
	SiteWide       bool     `json:"site_wide" doc:"The site team's endpoint: every event of every listing."`
	Status         string   `json:"status" enum:"enabled,disabled"`
	DisabledReason string   `json:"disabled_reason,omitempty"`
	Failures       int      `json:"consecutive_failures"`
	CreatedAt      string   `json:"created_at" format:"date-time"`
	Secret         string   `json:"secret,omitempty" doc:"The whsec_ signing secret; shown only when created or rotated."`
}

// EndpointInput is what create and update take.
type EndpointInput struct {
	URL         *string  `json:"url"`
	Description *string  `json:"description"`
	Events      []string `json:"events"`
	SiteWide    bool     `json:"site_wide"`
	Enabled     *bool    `json:"enabled"`
}

// checkURL applies the target rules: an absolute https URL (http only
// where private targets are allowed), no credentials, and no private,
// loopback or link-local address named directly (the guarded client
// checks every resolved address again at delivery).
func (a *Service) checkURL(raw string) (string, error) {
	u, err := url.Parse(strings.TrimSpace(raw))
	if err != nil || u.Host == "" || (u.Scheme != "https" && u.Scheme != "http") {
		return "", ops.Invalid("url", "must be an absolute https URL")
	}
	if u.Scheme == "http" && !a.allowPrivate {
		return "", ops.Invalid("url", "must use https: the events carry your listings' data")
	}
	if u.User != nil {
		return "", ops.Invalid("url", "must not carry a user name or password")
	}
	host := u.Hostname()
	if !a.allowPrivate {
		if ip, err := netip.ParseAddr(host); err == nil && (ip.IsPrivate() || ip.IsLoopback() || ip.IsLinkLocalUnicast() || ip.IsUnspecified() || ip.IsMulticast()) {
			return "", ops.Invalid("url", "private, loopback and link-local addresses are refused")
		}
		if host == "localhost" || strings.HasSuffix(host, ".localhost") || strings.HasSuffix(host, ".internal") || strings.HasSuffix(host, ".local") {
			return "", ops.Invalid("url", "private host names are refused")
		}
	}
	return u.String(), nil
}

func checkEvents(events []string) ([]string, error) {
	if len(events) == 0 {
		return nil, ops.Invalid("events", "choose at least one of %s", strings.Join(kernel.EventTypes, ", "))
	}
	seen := map[string]bool{}
	var out []string
	for _, e := range events {
		if !kernel.IsEventType(e) {
			return nil, ops.Invalid("events", "%q is not an event type; the types are %s", e, strings.Join(kernel.EventTypes, ", "))
		}
		if !seen[e] {
			seen[e] = true
			out = append(out, e)
		}
	}
	return out, nil
}

// Create registers an endpoint and returns it with its secret (the only
// time the secret is shown, until a rotation).
func (a *Service) Create(ctx context.Context, userID int64, in EndpointInput) (*Endpoint, error) {
	if in.URL == nil {
		return nil, ops.Invalid("url", "is required")
	}
	target, err := a.checkURL(*in.URL)
	if err != nil {
		return nil, err
	}
	events, err := checkEvents(in.Events)
	if err != nil {
		return nil, err
	}
	desc := ""
	if in.Description != nil {
		desc = strings.TrimSpace(*in.Description)
	}
	secret := newSecret()
	sealed, err := a.Seal(secret)
	if err != nil {
		return nil, err
	}
	var out *Endpoint
	err = a.DB.Tx(ctx, func(tx *sql.Tx) error {
		scope := "owner"
		if in.SiteWide {
			var admin bool
			if err := tx.QueryRowContext(ctx, `SELECT is_admin FROM users WHERE id = ?`, userID).Scan(&admin); err != nil || !admin {
				return &ops.Error{Code: ops.CodeForbidden, Detail: "only the site team registers site-wide endpoints",
					Fields: []ops.FieldError{{Field: "site_wide", Message: "only the site team registers site-wide endpoints"}}}
			}
			scope = "site"
		}
		var n int
		if err := tx.QueryRowContext(ctx, `SELECT count(*) FROM webhook_endpoints WHERE user_id = ?`, userID).Scan(&n); err != nil {
			return err
		}
		if n >= MaxEndpoints {
			return ops.Invalid("url", "you have %d endpoints, the most one account may; delete one first", MaxEndpoints)
		}
		ev, _ := json.Marshal(events)
		now := a.NowText()
		var id int64
		if err := tx.QueryRowContext(ctx, `INSERT INTO webhook_endpoints(user_id, scope, url, description, events, secret, created_at, updated_at)
			VALUES(?,?,?,?,?,?,?,?) RETURNING id`, userID, scope, target, desc, string(ev), sealed, now, now).Scan(&id); err != nil {
			return err
		}
		var err error
		out, err = a.respond(ctx, tx, userID, id, secret)
		return err
	})
	if err != nil {
		return nil, err
	}
	return out, nil
}

// respond reads endpoint id (with secret, when one was just made) inside
// the write transaction that changed it and stores it there as the
// idempotent response (kernel.RespondInTx): a retry after a crash
// replays it. Like the response the executor would store, it holds the
// secret shown once for the retention of the key.
func (a *Service) respond(ctx context.Context, tx *sql.Tx, userID, id int64, secret string) (*Endpoint, error) {
	e, err := a.getIn(ctx, tx, userID, id)
	if err != nil {
		return nil, err
	}
	e.Secret = secret
	return e, kernel.RespondInTx(ctx, tx, e)
}

const endpointCols = `id, url, description, events, scope = 'site', status, disabled_reason, failures, created_at`

func scanEndpoint(sc interface{ Scan(...any) error }) (*Endpoint, error) {
	var e Endpoint
	var events string
	if err := sc.Scan(&e.ID, &e.URL, &e.Description, &events, &e.SiteWide, &e.Status, &e.DisabledReason, &e.Failures, &e.CreatedAt); err != nil {
		return nil, err
	}
	json.Unmarshal([]byte(events), &e.Events)
	return &e, nil
}

// notYours is the 404 for another person's endpoint, or none.
func notYours() error {
	return &ops.Error{Code: ops.CodeNotFound, Detail: "webhook endpoint not found among yours",
		Fields: []ops.FieldError{{Field: "webhook_id", Message: "none of your endpoints has this id"}}}
}

// Get is one of the person's endpoints.
func (a *Service) Get(ctx context.Context, userID, id int64) (*Endpoint, error) {
	return a.getIn(ctx, a.DB.R, userID, id)
}

// getIn is Get through q (the read pool or a write transaction).
func (a *Service) getIn(ctx context.Context, q kernel.Querier, userID, id int64) (*Endpoint, error) {
	e, err := scanEndpoint(q.QueryRowContext(ctx, `SELECT `+endpointCols+` FROM webhook_endpoints WHERE id = ? AND user_id = ?`, id, userID))
	if db.IsNoRows(err) {
		return nil, notYours()
	}
	return e, err
}

// List is the person's endpoints, oldest first.
func (a *Service) List(ctx context.Context, userID int64) ([]Endpoint, error) {
	rows, err := a.DB.R.QueryContext(ctx, `SELECT `+endpointCols+` FROM webhook_endpoints WHERE user_id = ? ORDER BY id`, userID)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	out := []Endpoint{}
	for rows.Next() {
		e, err := scanEndpoint(rows)
		if err != nil {
			return nil, err
		}
		out = append(out, *e)
	}
	return out, rows.Err()
}

// Update changes an endpoint's URL, description, events, or turns it on
// (which clears its failure count) or off.
func (a *Service) Update(ctx context.Context, userID, id int64, in EndpointInput) (*Endpoint, error) {
	var out *Endpoint
	err := a.DB.Tx(ctx, func(tx *sql.Tx) error {
		var one int
		if err := tx.QueryRowContext(ctx, `SELECT 1 FROM webhook_endpoints WHERE id = ? AND user_id = ?`, id, userID).Scan(&one); err != nil {
			if db.IsNoRows(err) {
				return notYours()
			}
			return err
		}
		now := a.NowText()
		if in.URL != nil {
			target, err := a.checkURL(*in.URL)
			if err != nil {
				return err
			}
			if _, err := tx.ExecContext(ctx, `UPDATE webhook_endpoints SET url = ?, updated_at = ? WHERE id = ?`, target, now, id); err != nil {
				return err
			}
		}
		if in.Description != nil {
			if _, err := tx.ExecContext(ctx, `UPDATE webhook_endpoints SET description = ?, updated_at = ? WHERE id = ?`, strings.TrimSpace(*in.Description), now, id); err != nil {
				return err
			}
		}
		if in.Events != nil {
			events, err := checkEvents(in.Events)
			if err != nil {
				return err
			}
			ev, _ := json.Marshal(events)
			if _, err := tx.ExecContext(ctx, `UPDATE webhook_endpoints SET events = ?, updated_at = ? WHERE id = ?`, string(ev), now, id); err != nil {
				return err
			}
		}
		if in.Enabled != nil {
			status, reason := "disabled", "turned off by its owner"
			if *in.Enabled {
				status, reason = "enabled", ""
			}
			if _, err := tx.ExecContext(ctx, `UPDATE webhook_endpoints SET status = ?, disabled_reason = ?, failures = 0, updated_at = ? WHERE id = ?`,
				status, reason, now, id); err != nil {
				return err
			}
		}
		var err error
		out, err = a.respond(ctx, tx, userID, id, "")
		return err
	})
	if err != nil {
		return nil, err
	}
	return out, nil
}

// Delete removes an endpoint and its delivery log.
func (a *Service) Delete(ctx context.Context, userID, id int64) (*Endpoint, error) {
	var out *Endpoint
	err := a.DB.Tx(ctx, func(tx *sql.Tx) error {
		var err error
		if out, err = a.getIn(ctx, tx, userID, id); err != nil {
			return err
		}
		if _, err = tx.ExecContext(ctx, `DELETE FROM webhook_endpoints WHERE id = ? AND user_id = ?`, id, userID); err != nil {
			return err
		}
		return kernel.RespondInTx(ctx, tx, out)
	})
	if err != nil {
		return nil, err
	}
	return out, nil
}

// Rotate gives an endpoint a new secret; the old one keeps signing (a
// second signature in the header) for rotationOverlap.
func (a *Service) Rotate(ctx context.Context, userID, id int64) (*Endpoint, error) {
	secret := newSecret()
	sealed, err := a.Seal(secret)
	if err != nil {
		return nil, err
	}
	var out *Endpoint
	err = a.DB.Tx(ctx, func(tx *sql.Tx) error {
		res, err := tx.ExecContext(ctx, `UPDATE webhook_endpoints SET previous_secret = secret, previous_until = ?, secret = ?, updated_at = ?
			WHERE id = ? AND user_id = ?`, a.Now().Add(rotationOverlap).UTC().Format(time.RFC3339), sealed, a.NowText(), id, userID)
		if err != nil {
			return err
		}
		if n, _ := res.RowsAffected(); n == 0 {
			return notYours()
		}
		out, err = a.respond(ctx, tx, userID, id, secret)
		return err
	})
	if err != nil {
		return nil, err
	}
	return out, nil
}
