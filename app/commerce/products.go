package commerce

import (
	"context"
	"database/sql"
	"encoding/json"
	"fmt"
	"sort"
	"strconv"
	"strings"

	"launchdir/app/kernel"
	"launchdir/app/vat"
	"launchdir/ops"
)

// Product is one product on sale. Price, capacity and options are admin
// settings in the products table; behaviour (week rule, effects) is code.
type Product struct {
	Code           string              `json:"code"`
	Name           string              `json:"name"`
	Description    string              `json:"description"`
	PriceCents     int64               `json:"price_cents"`
	Currency       string              `json:"currency"`
	NeedsListing   bool                `json:"needs_listing"`
	Options        map[string][]string `json:"options"`         // option -> allowed values (first is the default)
	WeeklyCapacity *int64              `json:"weekly_capacity"` // nil: not limited per week
	Position       int                 `json:"-"`
	Active         bool                `json:"-"`
}

// productRule is how a product behaves.
type productRule struct {
	Week  string   // none, optional or required
	Pools []string // weekly capacity pools a booked week consumes (product codes)
	Unit  string   // order (one per line), category (per category) or amount (amount_cents)
}

var productRules = map[string]productRule{
	"launch":           {Week: "optional", Pools: []string{"launch"}, Unit: "order"},
	"featured":         {Week: "required", Pools: []string{"featured"}, Unit: "order"},
	"launch_bundle":    {Week: "required", Pools: []string{"launch", "featured"}, Unit: "order"},
	"relaunch":         {Week: "required", Pools: []string{"relaunch"}, Unit: "order"},
	"extra_categories": {Week: "none", Unit: "category"},
	"billboard_min":    {Week: "none", Unit: "amount"},
}

func ruleOf(code string) productRule {
	if r, ok := productRules[code]; ok {
		return r
	}
	return productRule{Week: "none", Unit: "order"}
}

// poolsConsumedBy lists, for each pool, the products whose lines use it.
func poolUsers(pool string) []string {
	var out []string
	for code, r := range productRules {
		for _, p := range r.Pools {
			if p == pool {
				out = append(out, code)
			}
		}
	}
	sort.Strings(out)
	return out
}

// maxExtraCategories is how many categories besides the primary a listing may have.
const maxExtraCategories = kernel.MaxExtraCategories

// Order item limits (spec section 8).
const (
	maxOrderItems  = 20
	MaxAmountCents = 100_000_000
)

// loadProducts reads the catalogue (active products only unless all).
func loadProducts(ctx context.Context, q kernel.RowsQuerier, all bool) ([]Product, error) {
	cond := ` WHERE active = 1`
	if all {
		cond = ``
	}
	// Another site may sell a product at its own price (site_prices).
	price, args := "price_cents", []any{}
	if site := kernel.CtxSiteKey(ctx); site != kernel.MainSite {
		price, args = "coalesce((SELECT sp.price_cents FROM site_prices sp WHERE sp.site_key = ? AND sp.product_code = code), price_cents)", []any{site}
	}
	rows, err := q.QueryContext(ctx, `SELECT code, name, description, `+price+`, currency, needs_listing, options, weekly_capacity, position, active
		FROM products`+cond+` ORDER BY position, code`, args...)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var out []Product
	for rows.Next() {
		var (
			p    Product
			opts string
			cap  sql.NullInt64
		)
		if err := rows.Scan(&p.Code, &p.Name, &p.Description, &p.PriceCents, &p.Currency, &p.NeedsListing, &opts, &cap, &p.Position, &p.Active); err != nil {
			return nil, err
		}
		p.Options = map[string][]string{}
		if opts != "" {
			if err := json.Unmarshal([]byte(opts), &p.Options); err != nil {
				return nil, fmt.Errorf("product %s: bad options JSON: %w", p.Code, err)
			}
		}
		if cap.Valid {
			n := cap.Int64
			p.WeeklyCapacity = &n
		}
		out = append(out, p)
	}
	return out, rows.Err()
}

// bookableWeeks are the Mondays that can be booked: the next N weeks after
// the current one (setting bookable_weeks, default 8).
func (a *Service) bookableWeeks(ctx context.Context) []string {
	n, err := strconv.Atoi(a.Setting(ctx, "bookable_weeks", "8"))
	if err != nil || n < 1 || n > 52 {
		n = 8
	}
	start := kernel.Monday(a.Now())
	out := make([]string, n)
	for i := range out {
		out[i] = start.AddDate(0, 0, 7*(i+1)).Format(kernel.DateLayout)
	}
	return out
}

// weekUsage counts, per product and week, the lines of pending and paid
// orders (capacity is reserved while an order waits for payment).
// weekUsage counts the booked lines per product and week on one site (a
// site's capacity is its own).
func weekUsage(ctx context.Context, q kernel.RowsQuerier, site string, weeks []string) (map[string]map[string]int64, error) {
	out := map[string]map[string]int64{}
	if len(weeks) == 0 {
		return out, nil
	}
	args := []any{site}
	for _, w := range weeks {
		args = append(args, w)
	}
	rows, err := q.QueryContext(ctx, `SELECT l.product, l.week, count(*) FROM order_lines l JOIN orders o ON o.id = l.order_id
		WHERE o.status IN ('pending','paid') AND o.site_key = ? AND l.week IN (?`+strings.Repeat(",?", len(weeks)-1)+`)
		GROUP BY l.product, l.week`, args...)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	for rows.Next() {
		var (
			p, w string
			n    int64
		)
		if err := rows.Scan(&p, &w, &n); err != nil {
			return nil, err
		}
		if out[p] == nil {
			out[p] = map[string]int64{}
		}
		out[p][w] = n
	}
	return out, rows.Err()
}

// capacity answers free capacity of week-bound products.
type capacity struct {
	products map[string]Product
	usage    map[string]map[string]int64 // product -> week -> lines
	extra    map[string]map[string]int64 // pool -> week -> lines added by the request being priced
}

func newCapacity(products []Product, usage map[string]map[string]int64) *capacity {
	c := &capacity{products: map[string]Product{}, usage: usage, extra: map[string]map[string]int64{}}
	for _, p := range products {
		c.products[p.Code] = p
	}
	return c
}

// poolFree is the free capacity of a pool in a week; ok=false when unlimited.
func (c *capacity) poolFree(pool, week string) (cap, free int64, ok bool) {
	p, exists := c.products[pool]
	if !exists || p.WeeklyCapacity == nil {
		return 0, 0, false
	}
	used := c.extra[pool][week]
	for _, code := range poolUsers(pool) {
		used += c.usage[code][week]
	}
	return *p.WeeklyCapacity, max(0, *p.WeeklyCapacity-used), true
}

// free is the free capacity of product code in week (the tightest of its
// pools); ok=false when not limited.
func (c *capacity) free(code, week string) (cap, free int64, ok bool) {
	first := true
	for _, pool := range ruleOf(code).Pools {
		pc, pf, limited := c.poolFree(pool, week)
		if !limited {
			continue
		}
		if first || pf < free {
			cap, free = pc, pf
		}
		first, ok = false, true
	}
	return cap, free, ok
}

func (c *capacity) take(code, week string) {
	for _, pool := range ruleOf(code).Pools {
		if c.extra[pool] == nil {
			c.extra[pool] = map[string]int64{}
		}
		c.extra[pool][week]++
	}
}

// ProductWeek is one bookable week of a week-bound product.
type ProductWeek struct {
	Week     string `json:"week" format:"date"`
	Capacity int64  `json:"capacity" doc:"-1: unlimited."`
	Free     int64  `json:"free" doc:"Remaining capacity; -1: unlimited."`
}

// ProductView is a product as list_products shows it.
type ProductView struct {
	Product
	Unit           string            `json:"unit"` // order, category or amount
	WeekRule       string            `json:"week"` // none, optional or required
	OptionDefaults map[string]string `json:"option_defaults,omitempty"`
	MinAmountCents *int64            `json:"min_amount_cents,omitempty"`
	MaxCategories  *int              `json:"max_categories,omitempty"`
	Weeks          []ProductWeek     `json:"weeks,omitempty"`
}

func (a *Service) listProducts(ctx context.Context, in *ops.Input) (any, error) {
	products, err := loadProducts(ctx, a.DB.R, false)
	if err != nil {
		return nil, err
	}
	weeks := a.bookableWeeks(ctx)
	usage, err := weekUsage(ctx, a.DB.R, kernel.CtxSiteKey(ctx), weeks)
	if err != nil {
		return nil, err
	}
	c := newCapacity(products, usage)
	views := make([]ProductView, 0, len(products))
	for _, p := range products {
		r := ruleOf(p.Code)
		v := ProductView{Product: p, Unit: r.Unit, WeekRule: r.Week}
		if len(p.Options) > 0 {
			v.OptionDefaults = map[string]string{}
			for k, vals := range p.Options {
				if len(vals) > 0 {
					v.OptionDefaults[k] = vals[0]
				}
			}
		}
		switch r.Unit {
		case "amount":
			m := p.PriceCents
			v.MinAmountCents = &m
		case "category":
			n := maxExtraCategories
			v.MaxCategories = &n
		}
		if r.Week != "none" {
			for _, w := range weeks {
				capN, free, limited := c.free(p.Code, w)
				if !limited {
					capN, free = -1, -1
				}
				v.Weeks = append(v.Weeks, ProductWeek{Week: w, Capacity: capN, Free: free})
			}
		}
		views = append(views, v)
	}
	return Products{
		Products:      views,
		BookableWeeks: weeks,
		VATRatesAsOf:  vat.VATRatesAsOf,
		Note: "Prices are net of VAT, in integer cents. Weeks are Mondays (YYYY-MM-DD); free is the remaining capacity " +
			"(-1 = unlimited). launch: week optional (omitted = live now); featured, launch_bundle, relaunch: week required.",
	}, nil
}

// SetProductPrice changes a product's price (admin; CLI `price set`).
// capacity < 0 leaves the weekly capacity unchanged.
func (a *Service) SetProductPrice(ctx context.Context, code string, cents int64, capacity int64) error {
	if cents < 0 || cents > MaxAmountCents {
		return ops.Invalid("cents", "must be 0..%d", MaxAmountCents)
	}
	return a.DB.Tx(ctx, func(tx *sql.Tx) error {
		res, err := tx.ExecContext(ctx, `UPDATE products SET price_cents = ? WHERE code = ?`, cents, code)
		if err != nil {
			return err
		}
		if n, _ := res.RowsAffected(); n == 0 {
			return ops.NotFound("product " + code)
		}
		if capacity >= 0 {
			_, err = tx.ExecContext(ctx, `UPDATE products SET weekly_capacity = ? WHERE code = ?`, capacity, code)
		}
		return err
	})
}

// AdminProducts lists every product, active or not (CLI `price list`).
func (a *Service) AdminProducts(ctx context.Context) ([]Product, error) {
	return loadProducts(ctx, a.DB.R, true)
}
