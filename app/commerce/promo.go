package commerce

import (
	"context"
	"database/sql"
	"encoding/json"
	"fmt"
	"slices"
	"sort"
	"strings"
	"time"
	"unicode/utf8"

	"launchdir/app/kernel"
	"launchdir/db"
	"launchdir/ops"
)

// PromoCode is a discount code (created by the CLI, table promo_codes).
// percent: value is 1..100 percent of each eligible line's net price;
// fixed: value is cents taken off the eligible lines together (never more
// than they cost). The discount is taken before VAT.
type PromoCode struct {
	Code           string   `json:"code"`
	Kind           string   `json:"kind"`
	Value          int64    `json:"value"`
	ValidFrom      string   `json:"valid_from,omitempty"`
	ValidUntil     string   `json:"valid_until,omitempty"`
	MaxRedemptions *int64   `json:"max_redemptions,omitempty"`
	Redemptions    int64    `json:"redemptions"`
	Products       []string `json:"products"` // empty = every product
	CreatedAt      string   `json:"created_at"`
	Paused         bool     `json:"paused,omitempty"` // paused by the site team: refused like an expired code
	Sites          []string `json:"sites,omitempty"`  // site keys it may be redeemed on; empty = every site
}

// Reasons a promo code is refused (problem extra "promo_reason").
const (
	PromoUnknown       = "unknown"
	PromoNotYetValid   = "not_yet_valid"
	PromoExpired       = "expired"
	PromoUsedUp        = "used_up"
	PromoNotApplicable = "not_applicable"
)

// Wrong promo guesses (unknown codes) allowed per user in the window; the
// next try is refused with 429 until the oldest guess leaves the window.
// Per-client-address limiting is the REST door's general rate limiter
// (routes.Options.RatePerSecond); handlers never see the client address.
var (
	PromoGuessLimit  = 5
	PromoGuessWindow = 10 * time.Minute
)

func LoadPromo(ctx context.Context, q kernel.RowsQuerier, code string) (*PromoCode, error) {
	var (
		p            PromoCode
		from, until  sql.NullString
		maxR         sql.NullInt64
		productsJSON string
		sitesJSON    string
	)
	err := q.QueryRowContext(ctx, `SELECT code, kind, value, valid_from, valid_until, max_redemptions, redemptions, products, created_at, paused, sites
		FROM promo_codes WHERE code = ?`, code).Scan(&p.Code, &p.Kind, &p.Value, &from, &until, &maxR, &p.Redemptions, &productsJSON, &p.CreatedAt, &p.Paused, &sitesJSON)
	if db.IsNoRows(err) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	p.ValidFrom, p.ValidUntil = from.String, until.String
	if maxR.Valid {
		n := maxR.Int64
		p.MaxRedemptions = &n
	}
	_ = json.Unmarshal([]byte(productsJSON), &p.Products)
	_ = json.Unmarshal([]byte(sitesJSON), &p.Sites)
	if p.Products == nil {
		p.Products = []string{}
	}
	return &p, nil
}

// refusal says why the code cannot be used at now ("" when usable).
func (p *PromoCode) refusal(now time.Time) (reason, msg string) {
	if p.Paused {
		return PromoExpired, "promo code is paused"
	}
	if p.ValidFrom != "" {
		if t, err := time.Parse(time.RFC3339, p.ValidFrom); err == nil && now.Before(t) {
			return PromoNotYetValid, "promo code is not valid yet (valid from " + p.ValidFrom + ")"
		}
	}
	if p.ValidUntil != "" {
		if t, err := time.Parse(time.RFC3339, p.ValidUntil); err == nil && !now.Before(t) {
			return PromoExpired, "promo code expired (valid until " + p.ValidUntil + ")"
		}
	}
	if p.MaxRedemptions != nil && p.Redemptions >= *p.MaxRedemptions {
		return PromoUsedUp, "promo code has been used up"
	}
	return "", ""
}

// onSite: a code restricted to sites is redeemed on those sites only.
func (p *PromoCode) onSite(site string) bool {
	return len(p.Sites) == 0 || slices.Contains(p.Sites, site)
}

func (p *PromoCode) appliesTo(product string) bool {
	if len(p.Products) == 0 {
		return true
	}
	for _, c := range p.Products {
		if c == product {
			return true
		}
	}
	return false
}

func promoError(reason, msg string) *ops.Error {
	return &ops.Error{Code: ops.CodeInvalid, Detail: "promo_code: " + msg,
		Fields: []ops.FieldError{kernel.FieldErr("promo_code", msg)}, Extra: map[string]any{"promo_reason": reason}}
}

// promoBlocked reports whether the user made too many wrong guesses lately.
func (a *Service) promoBlocked(userID int64) (time.Duration, bool) {
	st := a.orderState()
	st.mu.Lock()
	defer st.mu.Unlock()
	now := a.Now()
	list := st.promoFails[userID][:0:0]
	for _, t := range st.promoFails[userID] {
		if now.Sub(t) < PromoGuessWindow {
			list = append(list, t)
		}
	}
	if len(list) == 0 {
		delete(st.promoFails, userID)
	} else {
		st.promoFails[userID] = list
	}
	if len(list) < PromoGuessLimit {
		return 0, false
	}
	return list[0].Add(PromoGuessWindow).Sub(now), true
}

func (a *Service) promoWrongGuess(userID int64) {
	st := a.orderState()
	st.mu.Lock()
	defer st.mu.Unlock()
	st.promoFails[userID] = append(st.promoFails[userID], a.Now())
}

// promoRateLimited is the 429 of too many wrong guesses.
func promoRateLimited(retry time.Duration) *ops.Error {
	return &ops.Error{Code: ops.CodeRateLimited, RetryAfter: retry,
		Detail: fmt.Sprintf("too many wrong promo codes; try again in %d seconds", int(retry.Seconds()+0.999))}
}

// allocateDiscount spreads the promo over the eligible lines' net amounts:
// percent per line rounded half up; fixed split in proportion to the nets
// (floor), the leftover cents going to the lines with the largest remainders.
func allocateDiscount(p *PromoCode, nets []int64, eligible []bool) []int64 {
	out := make([]int64, len(nets))
	switch p.Kind {
	case "percent":
		pct := min(max(p.Value, 0), 100)
		for i, n := range nets {
			if eligible[i] {
				out[i] = (n*pct + 50) / 100
			}
		}
	case "fixed":
		var total int64
		for i, n := range nets {
			if eligible[i] {
				total += n
			}
		}
		if total == 0 {
			return out
		}
		d := min(p.Value, total)
		type rem struct {
			i int
			r int64
		}
		var rems []rem
		var given int64
		for i, n := range nets {
			if !eligible[i] {
				continue
			}
			out[i] = d * n / total
			given += out[i]
			rems = append(rems, rem{i, d * n % total})
		}
		sort.SliceStable(rems, func(x, y int) bool { return rems[x].r > rems[y].r })
		for k := 0; given < d && k < len(rems); k++ {
			out[rems[k].i]++
			given++
		}
	}
	return out
}

// CreatePromo stores a new promo code (admin; CLI `promo create`).
func (a *Service) CreatePromo(ctx context.Context, p PromoCode) error {
	return a.DB.Tx(ctx, func(tx *sql.Tx) error { return a.CreatePromoTx(ctx, tx, &p) })
}

// CreatePromoTx validates and inserts a promo code inside tx.
func (a *Service) CreatePromoTx(ctx context.Context, tx *sql.Tx, p *PromoCode) error {
	var bad []ops.FieldError
	if p.Code == "" || utf8.RuneCountInString(p.Code) > 40 || strings.TrimSpace(p.Code) != p.Code {
		bad = append(bad, kernel.FieldErr("code", "must be 1..40 characters without leading or trailing spaces"))
	}
	switch p.Kind {
	case "percent":
		if p.Value < 1 || p.Value > 100 {
			bad = append(bad, kernel.FieldErr("value", "a percent must be 1..100"))
		}
	case "fixed":
		if p.Value < 1 || p.Value > MaxAmountCents {
			bad = append(bad, kernel.FieldErr("value", fmt.Sprintf("fixed cents must be 1..%d", MaxAmountCents)))
		}
	default:
		bad = append(bad, kernel.FieldErr("kind", "must be percent or fixed"))
	}
	var from, until time.Time
	for _, f := range []struct {
		name string
		v    *string
		t    *time.Time
	}{{"from", &p.ValidFrom, &from}, {"until", &p.ValidUntil, &until}} {
		if *f.v == "" {
			continue
		}
		t, err := time.Parse(time.RFC3339, *f.v)
		if err != nil {
			bad = append(bad, kernel.FieldErr(f.name, "must be an RFC 3339 time, e.g. 2026-12-01T00:00:00Z"))
			continue
		}
		*f.t = t
		*f.v = t.UTC().Format(time.RFC3339)
	}
	if !from.IsZero() && !until.IsZero() && !until.After(from) {
		bad = append(bad, kernel.FieldErr("until", "must be after from"))
	}
	if p.MaxRedemptions != nil && *p.MaxRedemptions < 1 {
		bad = append(bad, kernel.FieldErr("max", "must be at least 1"))
	}
	products, err := loadProducts(ctx, tx, true)
	if err != nil {
		return err
	}
	known := map[string]bool{}
	for _, pr := range products {
		known[pr.Code] = true
	}
	if p.Products == nil {
		p.Products = []string{}
	}
	for _, c := range p.Products {
		if !known[c] {
			bad = append(bad, kernel.FieldErr("products", "unknown product "+c))
		}
	}
	for _, k := range p.Sites {
		if _, ok := a.SiteByKey(ctx, k); !ok {
			bad = append(bad, kernel.FieldErr("sites", "unknown site "+k))
		}
	}
	if len(bad) > 0 {
		return ops.InvalidFields(bad)
	}
	nullable := func(s string) any {
		if s == "" {
			return nil
		}
		return s
	}
	var maxR any
	if p.MaxRedemptions != nil {
		maxR = *p.MaxRedemptions
	}
	if p.Sites == nil {
		p.Sites = []string{}
	}
	_, err = tx.ExecContext(ctx, `INSERT INTO promo_codes(code, kind, value, valid_from, valid_until, max_redemptions, products, created_at, sites)
		VALUES(?,?,?,?,?,?,?,?,?)`, p.Code, p.Kind, p.Value, nullable(p.ValidFrom), nullable(p.ValidUntil), maxR,
		db.EncodeJSON(p.Products), a.NowText(), db.EncodeJSON(p.Sites))
	if err != nil && strings.Contains(err.Error(), "UNIQUE") {
		return ops.Errorf(ops.CodeConflict, "promo code %q already exists", p.Code)
	}
	return err
}

// ListPromos lists every promo code (CLI `promo list`).
func (a *Service) ListPromos(ctx context.Context) ([]PromoCode, error) {
	codes, err := db.Column[string](ctx, a.DB.R, `SELECT code FROM promo_codes ORDER BY created_at, code`)
	if err != nil {
		return nil, err
	}
	out := make([]PromoCode, 0, len(codes))
	for _, c := range codes {
		p, err := LoadPromo(ctx, a.DB.R, c)
		if err != nil {
			return nil, err
		}
		if p != nil {
			out = append(out, *p)
		}
	}
	return out, nil
}
