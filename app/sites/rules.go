package sites

import (
	"context"
	"database/sql"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"unicode/utf8"

	"launchdir/app/kernel"
	"launchdir/db"
	"launchdir/ops"
)

// The rules of a site's fields: what a key, origin, host name, category
// list and price may be, and that a host belongs to one site only. Each
// bound is tested at its edge and one past it (routes/sites_business_test.go).

// checkKey: a site key is 2..40 of a-z, 0-9 and '-', and main's is taken.
func checkKey(key string) []ops.FieldError {
	switch n := len(key); {
	case n < MinKeyLen || n > MaxKeyLen:
		return []ops.FieldError{kernel.FieldErr("key", fmt.Sprintf("must be %d..%d characters", MinKeyLen, MaxKeyLen))}
	case !keyRE.MatchString(key) || strings.HasPrefix(key, "-"):
		return []ops.FieldError{kernel.FieldErr("key", "may hold only a-z, 0-9 and '-' (not first)")}
	case key == kernel.MainSite:
		return []ops.FieldError{kernel.FieldErr("key", "'main' is the default site's key")}
	}
	return nil
}

// check validates every given field, trimming strings in place.
func (a *Service) check(ctx context.Context, in *Input, main bool) []ops.FieldError {
	var bad []ops.FieldError
	trim := func(p *string) {
		if p != nil {
			*p = strings.TrimSpace(*p)
		}
	}
	trim(in.Origin)
	trim(in.Name)
	trim(in.Tagline)
	trim(in.AccentColor)
	trim(in.EmailFromName)
	if in.Origin != nil {
		o := strings.TrimSuffix(strings.ToLower(*in.Origin), "/")
		*in.Origin = o
		switch {
		case main:
			bad = append(bad, kernel.FieldErr("origin", "main's address is the server's -base-url flag"))
		case len(o) > MaxOriginLen || !originRE.MatchString(o) || !portOK(strings.TrimPrefix(strings.TrimPrefix(o, "http://"), "https://")):
			bad = append(bad, kernel.FieldErr("origin", "must be http(s)://host[:port], nothing after it"))
		}
	}
	if in.Hosts != nil {
		bad = append(bad, checkHosts(*in.Hosts)...)
	}
	lenCheck := func(p *string, field string, min, max int) {
		if p != nil {
			if n := utf8.RuneCountInString(*p); n < min || n > max {
				bad = append(bad, kernel.FieldErr(field, fmt.Sprintf("must be %d..%d characters", min, max)))
			}
		}
	}
	lenCheck(in.Name, "name", 1, MaxName)
	lenCheck(in.Tagline, "tagline", 0, MaxTagline)
	lenCheck(in.EmailFromName, "email_from_name", 0, MaxEmailFrom)
	if in.AccentColor != nil && *in.AccentColor != "" && !colorRE.MatchString(*in.AccentColor) {
		bad = append(bad, kernel.FieldErr("accent_color", "must be a colour like #1a7f5a"))
	}
	if in.Categories != nil {
		bad = append(bad, a.checkCategories(ctx, *in.Categories)...)
	}
	if in.FreeWeeklyCapacity != nil && (*in.FreeWeeklyCapacity < 1 || *in.FreeWeeklyCapacity > MaxFreeCapacity) {
		bad = append(bad, kernel.FieldErr("free_weekly_capacity", fmt.Sprintf("must be 1..%d", MaxFreeCapacity)))
	}
	if in.FreeQueueWeeks != nil && (*in.FreeQueueWeeks < 0 || *in.FreeQueueWeeks > MaxQueueWeeks) {
		bad = append(bad, kernel.FieldErr("free_queue_weeks", fmt.Sprintf("must be 0..%d", MaxQueueWeeks)))
	}
	if in.Prices != nil {
		bad = append(bad, a.checkPrices(ctx, *in.Prices, main)...)
	}
	return bad
}

// portOK: a host[:port] whose port, if any, is one a browser can reach
// (1..65535); the patterns allow five digits.
func portOK(hostport string) bool {
	i := strings.LastIndexByte(hostport, ':')
	if i < 0 {
		return true
	}
	n, err := strconv.Atoi(hostport[i+1:])
	return err == nil && n >= 1 && n <= 65535
}

func checkHosts(hosts []string) []ops.FieldError {
	var bad []ops.FieldError
	if len(hosts) > MaxHosts {
		return []ops.FieldError{kernel.FieldErr("hosts", fmt.Sprintf("at most %d host names", MaxHosts))}
	}
	seen := map[string]bool{}
	for i, h := range hosts {
		h = strings.ToLower(strings.TrimSpace(h))
		hosts[i] = h
		field := fmt.Sprintf("hosts[%d]", i)
		switch {
		case len(h) == 0 || len(h) > MaxHostLen || !hostRE.MatchString(h) || !portOK(h):
			bad = append(bad, kernel.FieldErr(field, "must be a host name, optionally with :port (no scheme or path)"))
		case seen[h]:
			bad = append(bad, kernel.FieldErr(field, "is listed twice"))
		}
		seen[h] = true
	}
	return bad
}

func (a *Service) checkCategories(ctx context.Context, slugs []string) []ops.FieldError {
	if len(slugs) > MaxCategories {
		return []ops.FieldError{kernel.FieldErr("categories", fmt.Sprintf("at most %d categories", MaxCategories))}
	}
	var bad []ops.FieldError
	for i, s := range slugs {
		var n int
		if err := a.DB.W.QueryRowContext(ctx, `SELECT count(*) FROM categories WHERE slug = ?`, s).Scan(&n); err != nil || n == 0 {
			bad = append(bad, kernel.FieldErr(fmt.Sprintf("categories[%d]", i), "no category has the slug "+strconv.Quote(s)))
		}
	}
	return bad
}

func (a *Service) checkPrices(ctx context.Context, prices map[string]int64, main bool) []ops.FieldError {
	if main && len(prices) > 0 {
		return []ops.FieldError{kernel.FieldErr("prices", "main sells at the products' own prices (set them on the prices page)")}
	}
	var bad []ops.FieldError
	for _, code := range slices.Sorted(mapsKeys(prices)) {
		var n int
		if err := a.DB.W.QueryRowContext(ctx, `SELECT count(*) FROM products WHERE code = ?`, code).Scan(&n); err != nil || n == 0 {
			bad = append(bad, kernel.FieldErr("prices."+code, "no product has this code"))
		} else if c := prices[code]; c < 0 || c > MaxPriceCents {
			bad = append(bad, kernel.FieldErr("prices."+code, fmt.Sprintf("must be 0..%d cents", MaxPriceCents)))
		}
	}
	return bad
}

func mapsKeys(m map[string]int64) func(func(string) bool) {
	return func(yield func(string) bool) {
		for k := range m {
			if !yield(k) {
				return
			}
		}
	}
}

// mainHost: main routes host (its -base-url host, and on a loopback
// origin the other loopback spellings of it).
func (a *Service) mainHost(ctx context.Context, host string) bool {
	main, ok := a.SiteByKey(ctx, kernel.MainSite)
	return ok && slices.Contains(main.Hosts, host)
}

// hostsTaken refuses a host name (or origin host) another site routes.
func (a *Service) hostsTaken(ctx context.Context, tx *sql.Tx, in Input) error {
	check := func(field, host string) error {
		var other string
		err := tx.QueryRowContext(ctx, `SELECT site_key FROM site_hosts WHERE host = ?1 AND site_key != ?2
			UNION ALL SELECT key FROM sites WHERE key != ?2 AND key != 'main' AND lower(substr(origin, instr(origin, '://') + 3)) = ?1 LIMIT 1`, host, in.Key).Scan(&other)
		if err == nil || in.Key != kernel.MainSite && a.mainHost(ctx, host) {
			if other == "" {
				other = kernel.MainSite
			}
			return &ops.Error{Code: ops.CodeConflict, Detail: "the host name " + host + " belongs to the site " + other,
				Fields: []ops.FieldError{{Field: field, Message: "belongs to the site " + other}}}
		}
		if !db.IsNoRows(err) {
			return err
		}
		return nil
	}
	if in.Origin != nil {
		if err := check("origin", kernel.OriginHost(*in.Origin)); err != nil {
			return err
		}
	}
	if in.Hosts == nil {
		return nil
	}
	for i, h := range *in.Hosts {
		if err := check(fmt.Sprintf("hosts[%d]", i), h); err != nil {
			return err
		}
	}
	if _, err := tx.ExecContext(ctx, `DELETE FROM site_hosts WHERE site_key = ?`, in.Key); err != nil {
		return err
	}
	for _, h := range *in.Hosts {
		if _, err := tx.ExecContext(ctx, `INSERT INTO site_hosts(host, site_key) VALUES(?, ?)`, h, in.Key); err != nil {
			return err
		}
	}
	return nil
}
