// Package sites is the network of directories one process serves (issue
// 24): the site team creates and edits sites (key, origin, host names,
// name, look, categories shown, calendar, email sender, prices), chooses
// which listings another site shows, and an owner chooses the sites of
// their listing within the site team's rules.
//
// A site's values live in site_settings (read through kernel.Setting with
// the site in the context, so every setting is per site), its host names in
// site_hosts, its prices in site_prices, its listings in listing_sites.
// Main is the network's full directory: it shows every live listing and
// its key, origin (the -base-url flag) and existence are fixed.
package sites

import (
	"context"
	"database/sql"
	"encoding/json"
	"fmt"
	"regexp"
	"strconv"
	"strings"
	"time"

	"launchdir/app/kernel"
	"launchdir/app/media"
	"launchdir/db"
	"launchdir/ops"
)

// Service is the sites domain.
type Service struct {
	*kernel.Kernel
	media *media.Service // a site's logo and favicon (images.go)
}

// New builds the sites domain.
func New(k *kernel.Kernel, m *media.Service) *Service { return &Service{Kernel: k, media: m} }

// Bounds of a site's fields (each tested at its edge and one past it).
const (
	MinKeyLen       = 2
	MaxKeyLen       = 40
	MaxHosts        = 10
	MaxHostLen      = 253
	MaxOriginLen    = 300
	MaxName         = 80
	MaxTagline      = 300
	MaxEmailFrom    = 80
	MaxCategories   = 50
	MaxFreeCapacity = 1000
	MaxQueueWeeks   = 52
	MaxPriceCents   = 100_000_000
	MaxListingBatch = 100
)

var (
	keyRE    = regexp.MustCompile(`^[a-z0-9-]+$`)
	colorRE  = regexp.MustCompile(`^#[0-9a-fA-F]{6}$`)
	hostRE   = regexp.MustCompile(`^[a-z0-9]([a-z0-9.-]*[a-z0-9])?(:[0-9]{1,5})?$`)
	originRE = regexp.MustCompile(`^https?://[a-z0-9]([a-z0-9.-]*[a-z0-9])?(:[0-9]{1,5})?$`)
)

// The per-site settings a site's fields are stored as (the keys the doors
// read through kernel.Setting).
const (
	setName       = "site_name"
	setTagline    = "site_description"
	setAccent     = "accent_color"
	setEmailFrom  = "email_from_name"
	setCategories = "categories"
	setCapacity   = "free_weekly_capacity"
	setQueueWeeks = "free_queue_weeks"
)

// Site is one directory of the network as the site team sees it.
type Site struct {
	Key                string           `json:"key"`
	Origin             string           `json:"origin" format:"uri" doc:"The site's public origin (scheme://host[:port]); main's is the server's -base-url."`
	Hosts              []string         `json:"hosts" doc:"Host names routed to this site besides its origin's host."`
	Name               string           `json:"name"`
	Tagline            string           `json:"tagline"`
	AccentColor        string           `json:"accent_color" doc:"#rrggbb, or empty for the default look."`
	EmailFromName      string           `json:"email_from_name"`
	Categories         []string         `json:"categories" doc:"Category slugs the site shows, each with its subcategories; empty: every category."`
	FreeWeeklyCapacity int              `json:"free_weekly_capacity"`
	FreeQueueWeeks     int              `json:"free_queue_weeks"`
	Prices             map[string]int64 `json:"prices" doc:"Product code -> price in cents on this site (products not named sell at their own price)."`
	Listings           int              `json:"listings" doc:"Live listings the site shows."`
	Main               bool             `json:"main" doc:"The network's full directory: shows every live listing; cannot be deleted."`
	CreatedAt          string           `json:"created_at" format:"date-time"`
	UpdatedAt          string           `json:"updated_at" format:"date-time"`
}

// Input is a create or update of a site: nil fields are left as they are
// (create: the defaults, i.e. main's values).
type Input struct {
	Key                string            `json:"key"`
	Origin             *string           `json:"origin"`
	Hosts              *[]string         `json:"hosts"`
	Name               *string           `json:"name"`
	Tagline            *string           `json:"tagline"`
	AccentColor        *string           `json:"accent_color"`
	EmailFromName      *string           `json:"email_from_name"`
	Categories         *[]string         `json:"categories"`
	FreeWeeklyCapacity *int              `json:"free_weekly_capacity"`
	FreeQueueWeeks     *int              `json:"free_queue_weeks"`
	Prices             *map[string]int64 `json:"prices"`
}

// requireTeam: the sites belong to the site team; anyone else finds no
// such thing (404, like the admin area).
func (a *Service) requireTeam(ctx context.Context, q kernel.Querier, userID int64) error {
	var admin bool
	err := q.QueryRowContext(ctx, `SELECT is_admin FROM users WHERE id = ?`, userID).Scan(&admin)
	if err != nil && !db.IsNoRows(err) {
		return err
	}
	if !admin {
		return ops.NotFound("sites")
	}
	return nil
}

// IsTeam reports whether userID is on the site team.
func (a *Service) IsTeam(ctx context.Context, userID int64) bool {
	return a.requireTeam(ctx, a.DB.R, userID) == nil
}

// List returns every site, main first.
func (a *Service) List(ctx context.Context, userID int64) ([]Site, error) {
	if err := a.requireTeam(ctx, a.DB.R, userID); err != nil {
		return nil, err
	}
	out := []Site{}
	for _, s := range a.Sites(ctx) {
		site, err := a.load(ctx, a.DB.R, s.Key)
		if err != nil {
			return nil, err
		}
		out = append(out, *site)
	}
	return out, nil
}

// Get returns one site by key.
func (a *Service) Get(ctx context.Context, userID int64, key string) (*Site, error) {
	if err := a.requireTeam(ctx, a.DB.R, userID); err != nil {
		return nil, err
	}
	return a.load(ctx, a.DB.R, key)
}

// load reads a site with its settings (main's values where it has none).
func (a *Service) load(ctx context.Context, q kernel.RowsQuerier, key string) (*Site, error) {
	s := &Site{Key: key, Main: key == kernel.MainSite, Hosts: []string{}, Categories: []string{}, Prices: map[string]int64{}}
	err := q.QueryRowContext(ctx, `SELECT origin, created_at, updated_at FROM sites WHERE key = ?`, key).Scan(&s.Origin, &s.CreatedAt, &s.UpdatedAt)
	if db.IsNoRows(err) {
		return nil, &ops.Error{Code: ops.CodeNotFound, Detail: "no site has the key " + key, Fields: []ops.FieldError{{Field: "key", Message: "no site has this key"}}}
	}
	if err != nil {
		return nil, err
	}
	if s.Main {
		s.Origin = a.Cfg.BaseURL
	}
	if s.Hosts, err = db.Column[string](ctx, q, `SELECT host FROM site_hosts WHERE site_key = ? ORDER BY host`, key); err != nil {
		return nil, err
	}
	if s.Hosts == nil {
		s.Hosts = []string{}
	}
	site := &kernel.Site{Key: key, Origin: s.Origin}
	sctx := kernel.WithSite(ctx, site)
	s.Name = a.SiteName(sctx)
	s.Tagline = a.SiteDescription(sctx)
	s.AccentColor = a.Setting(sctx, setAccent, "")
	s.EmailFromName = a.Setting(sctx, setEmailFrom, "")
	_ = json.Unmarshal([]byte(a.Setting(sctx, setCategories, "[]")), &s.Categories)
	if s.Categories == nil {
		s.Categories = []string{}
	}
	s.FreeWeeklyCapacity = a.FreeWeeklyCapacity(sctx)
	s.FreeQueueWeeks = a.FreeQueueWeeks(sctx)
	rows, err := q.QueryContext(ctx, `SELECT product_code, price_cents FROM site_prices WHERE site_key = ?`, key)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	for rows.Next() {
		var code string
		var cents int64
		if err := rows.Scan(&code, &cents); err != nil {
			return nil, err
		}
		s.Prices[code] = cents
	}
	if err := rows.Err(); err != nil {
		return nil, err
	}
	if s.Listings, err = a.DB.Count(sctx, `SELECT count(*) FROM listings WHERE status = 'live'`); err != nil {
		return nil, err
	}
	return s, nil
}

// Create adds a site. Its key is immutable; 'main' is taken by the default site.
func (a *Service) Create(ctx context.Context, userID int64, in Input) (*Site, error) {
	in.Key = strings.TrimSpace(in.Key)
	bad := checkKey(in.Key)
	if in.Origin == nil || strings.TrimSpace(*in.Origin) == "" {
		bad = append(bad, kernel.FieldErr("origin", "is required: the site's address, e.g. https://devtools.example"))
	}
	err := a.write(ctx, userID, in, bad, true)
	if err != nil {
		return nil, err
	}
	return a.load(ctx, a.DB.R, in.Key)
}

// Ensure creates a site unless one has its key, for the command line and
// the demo (no account acts: nothing is audited). created is false when
// the site was there already; it is then left as it is.
func (a *Service) Ensure(ctx context.Context, in Input) (created bool, err error) {
	if _, ok := a.SiteByKey(ctx, in.Key); ok {
		return false, nil
	}
	bad := checkKey(in.Key)
	if in.Origin == nil || strings.TrimSpace(*in.Origin) == "" {
		bad = append(bad, kernel.FieldErr("origin", "is required"))
	}
	if err := a.write(ctx, system, in, bad, true); err != nil {
		return false, err
	}
	return true, nil
}

// system is the user id of Ensure: no account, no team check, no audit.
const system = -1

// PutListings puts listings on a site within its category rule, for the
// demo (no account acts); it returns how many it put there.
func (a *Service) PutListings(ctx context.Context, key string, ids []int64) (int, error) {
	n := 0
	err := a.DB.Tx(ctx, func(tx *sql.Tx) error {
		for _, id := range ids {
			why, err := kernel.SiteRefusal(ctx, tx, key, id)
			if err != nil {
				return err
			}
			if why != "" {
				continue
			}
			res, err := tx.ExecContext(ctx, `INSERT OR IGNORE INTO listing_sites(site_key, listing_id, added_at) VALUES(?,?,?)`, key, id, a.NowText())
			if err != nil {
				return err
			}
			k, _ := res.RowsAffected()
			n += int(k)
		}
		return nil
	})
	return n, err
}

// Update changes a site's fields (the key stays).
func (a *Service) Update(ctx context.Context, userID int64, in Input) (*Site, error) {
	if err := a.write(ctx, userID, in, nil, false); err != nil {
		return nil, err
	}
	return a.load(ctx, a.DB.R, in.Key)
}

// write validates in and stores it in one transaction, then reloads the
// routing table. bad holds errors found by the caller.
func (a *Service) write(ctx context.Context, userID int64, in Input, bad []ops.FieldError, create bool) error {
	main := in.Key == kernel.MainSite
	bad = append(bad, a.check(ctx, &in, main)...)
	if len(bad) > 0 {
		return ops.InvalidFields(bad)
	}
	now := a.NowText()
	err := a.DB.Tx(ctx, func(tx *sql.Tx) error {
		if userID != system {
			if err := a.requireTeam(ctx, tx, userID); err != nil {
				return err
			}
		}
		before, _ := a.load(ctx, tx, in.Key)
		if create {
			if before != nil {
				return &ops.Error{Code: ops.CodeConflict, Detail: "a site has the key " + in.Key, Fields: []ops.FieldError{{Field: "key", Message: "is taken"}}}
			}
			if _, err := tx.ExecContext(ctx, `INSERT INTO sites(key, origin, position, created_at, updated_at)
				VALUES(?, ?, (SELECT coalesce(max(position), 0) + 1 FROM sites), ?, ?)`, in.Key, *in.Origin, now, now); err != nil {
				return err
			}
		} else {
			if before == nil {
				return &ops.Error{Code: ops.CodeNotFound, Detail: "no site has the key " + in.Key}
			}
			if in.Origin != nil && !main {
				if _, err := tx.ExecContext(ctx, `UPDATE sites SET origin = ? WHERE key = ?`, *in.Origin, in.Key); err != nil {
					return err
				}
			}
			if _, err := tx.ExecContext(ctx, `UPDATE sites SET updated_at = ? WHERE key = ?`, now, in.Key); err != nil {
				return err
			}
		}
		if err := a.hostsTaken(ctx, tx, in); err != nil {
			return err
		}
		if err := a.store(ctx, tx, in); err != nil {
			return err
		}
		if userID == system {
			return nil
		}
		return a.audit(ctx, tx, userID, map[bool]string{true: "create_site", false: "update_site"}[create], in.Key, before, in)
	})
	if err != nil {
		return err
	}
	a.ReloadSites()
	return nil
}

// store writes the given settings and prices of the site.
func (a *Service) store(ctx context.Context, tx *sql.Tx, in Input) error {
	sctx := kernel.WithSite(ctx, &kernel.Site{Key: in.Key})
	put := func(key string, p *string) error {
		if p == nil {
			return nil
		}
		if *p == "" && key != setName {
			return a.DeleteSetting(sctx, tx, key)
		}
		return a.PutSetting(sctx, tx, key, *p)
	}
	itoa := func(p *int) *string {
		if p == nil {
			return nil
		}
		s := strconv.Itoa(*p)
		return &s
	}
	var cats *string
	if in.Categories != nil {
		s := db.EncodeJSON(*in.Categories)
		if len(*in.Categories) == 0 {
			s = ""
		}
		cats = &s
	}
	for _, kv := range []struct {
		key string
		v   *string
	}{{setName, in.Name}, {setTagline, in.Tagline}, {setAccent, in.AccentColor}, {setEmailFrom, in.EmailFromName},
		{setCategories, cats}, {setCapacity, itoa(in.FreeWeeklyCapacity)}, {setQueueWeeks, itoa(in.FreeQueueWeeks)}} {
		if err := put(kv.key, kv.v); err != nil {
			return err
		}
	}
	if in.Prices == nil {
		return nil
	}
	if _, err := tx.ExecContext(ctx, `DELETE FROM site_prices WHERE site_key = ?`, in.Key); err != nil {
		return err
	}
	for code, cents := range *in.Prices {
		if _, err := tx.ExecContext(ctx, `INSERT INTO site_prices(site_key, product_code, price_cents) VALUES(?,?,?)`, in.Key, code, cents); err != nil {
			return err
		}
	}
	return nil
}

// Delete removes a site with its settings, hosts, prices, votes, launches
// and awards there. Main cannot be deleted. A site that still shows
// listings is refused unless force is set: its votes and ranks would go.
func (a *Service) Delete(ctx context.Context, userID int64, key string, force bool) error {
	if key == kernel.MainSite {
		return ops.InvalidFields([]ops.FieldError{kernel.FieldErr("key", "main is the default site and cannot be deleted")})
	}
	err := a.DB.Tx(ctx, func(tx *sql.Tx) error {
		if err := a.requireTeam(ctx, tx, userID); err != nil {
			return err
		}
		before, err := a.load(ctx, tx, key)
		if err != nil {
			return err
		}
		var n int
		if err := tx.QueryRowContext(ctx, `SELECT count(*) FROM listing_sites WHERE site_key = ?`, key).Scan(&n); err != nil {
			return err
		}
		if n > 0 && !force {
			return &ops.Error{Code: ops.CodeConflict, Detail: fmt.Sprintf("the site %s still shows %d listings; take them off first or delete with force", key, n),
				Fields: []ops.FieldError{{Field: "force", Message: fmt.Sprintf("the site shows %d listings: set force to delete it with its votes and ranks", n)}}}
		}
		for _, t := range []string{"site_votes", "site_weekly_votes", "site_launches", "site_awards", "site_week_capacity", "site_prices", "listing_sites", "site_settings", "site_hosts"} {
			if _, err := tx.ExecContext(ctx, `DELETE FROM `+t+` WHERE site_key = ?`, key); err != nil {
				return err
			}
		}
		if _, err := tx.ExecContext(ctx, `DELETE FROM listing_site_copy WHERE site_key = ?`, key); err != nil {
			return err
		}
		if _, err := tx.ExecContext(ctx, `DELETE FROM sites WHERE key = ?`, key); err != nil {
			return err
		}
		return a.audit(ctx, tx, userID, "delete_site", key, before, nil)
	})
	if err != nil {
		return err
	}
	a.ReloadSites()
	return nil
}

func (a *Service) audit(ctx context.Context, tx *sql.Tx, adminID int64, action, target string, before, after any) error {
	_, err := tx.ExecContext(ctx, `INSERT INTO admin_audit(admin_id, action, target, before, after, created_at) VALUES(?,?,?,?,?,?)`,
		adminID, action, "site "+target, db.EncodeJSON(before), db.EncodeJSON(after), a.Now().UTC().Format(time.RFC3339Nano))
	return err
}
