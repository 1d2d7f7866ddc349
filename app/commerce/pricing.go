package commerce

import (
	"context"
	"database/sql"
	"fmt"
	"sort"
	"strings"
	"time"

	"launchdir/app/kernel"
	"launchdir/app/vat"
	"launchdir/db"
	"launchdir/ops"
)

// OrderItem is one requested line of quote_order / create_checkout.
type OrderItem struct {
	Product     string             `json:"product"`
	ListingID   int64              `json:"listing_id"`
	Week        string             `json:"week"`
	AmountCents *int64             `json:"amount_cents"`
	Categories  *[]string          `json:"categories"`
	Options     *map[string]string `json:"options"`
}

// OrderRequest is the body of quote_order and create_checkout.
type OrderRequest struct {
	Items          []OrderItem `json:"items"`
	BillingCountry string      `json:"billing_country"`
	VATNumber      string      `json:"vat_number"`
	PromoCode      string      `json:"promo_code"`
}

// LineDetails are what a line books besides its price.
type LineDetails struct {
	AmountCents int64             `json:"amount_cents,omitempty"`
	Categories  []string          `json:"categories,omitempty"`
	Options     map[string]string `json:"options,omitempty"`
	LiveNow     bool              `json:"live_now,omitempty"` // launch without a week
	Includes    []string          `json:"includes,omitempty"` // bundle parts
}

// QuoteLine is one priced line.
type QuoteLine struct {
	Position       int         `json:"position"`
	Product        string      `json:"product"`
	Name           string      `json:"name"`
	ListingID      *int64      `json:"listing_id"`
	ListingName    string      `json:"listing_name,omitempty"`
	Week           *string     `json:"week" format:"date" doc:"Launch week (Monday) for week-bound products."`
	Quantity       int64       `json:"quantity"`
	UnitPriceCents int64       `json:"unit_price_cents"`
	NetCents       int64       `json:"net_cents"`
	DiscountCents  int64       `json:"discount_cents"`
	TaxableCents   int64       `json:"taxable_cents"`
	VATRate        string      `json:"vat_rate"`
	VATCents       int64       `json:"vat_cents"`
	TotalCents     int64       `json:"total_cents"`
	Details        LineDetails `json:"details"`
}

// PromoView is what a promo code takes off.
type PromoView struct {
	Code          string   `json:"code"`
	Kind          string   `json:"kind"`
	Value         int64    `json:"value"`
	DiscountCents int64    `json:"discount_cents"`
	AppliesTo     []string `json:"applies_to"` // products of this order it discounts
	Note          string   `json:"note"`
}

// Quote is a priced order.
type Quote struct {
	Currency      string      `json:"currency"`
	Lines         []QuoteLine `json:"lines"`
	SubtotalCents int64       `json:"subtotal_cents"`
	DiscountCents int64       `json:"discount_cents"`
	TaxableCents  int64       `json:"taxable_cents"`
	VATCents      int64       `json:"vat_cents"`
	TotalCents    int64       `json:"total_cents"`
	VAT           vat.VATInfo `json:"vat"`
	Promo         *PromoView  `json:"promo"`
	Rounding      string      `json:"rounding"`
}

func (q *Quote) promoCode() string {
	if q.Promo == nil {
		return ""
	}
	return q.Promo.Code
}

// listingInfo is what pricing needs to know about a listing.
type listingInfo struct {
	ID         int64
	Name       string
	Status     string
	Plan       string
	PrimaryCat sql.NullInt64
	Cats       map[int64]bool // every category it is in
	Extras     int            // non-primary categories
}

// launchesIn says whether the order's items launch the listing (a launch
// makes it paid before its extra categories apply: see applyEffects).
func launchesIn(items []OrderItem, listingID int64) bool {
	for _, it := range items {
		if it.ListingID == listingID && (it.Product == "launch" || it.Product == "launch_bundle") {
			return true
		}
	}
	return false
}

func planName(plan string) string {
	if plan == "none" || plan == "" {
		return "no"
	}
	return plan
}

// mayRelaunch: moving a listing's launch is the listing owner's decision
// (role owner, or claimed through a verified claim); a co-founder added by
// an invite is refused with 403 (contract section 5: signed in but not
// permitted).
func (a *Service) mayRelaunch(ctx context.Context, q kernel.Querier, userID int64, it OrderItem, i int) error {
	if it.Product != "relaunch" {
		return nil
	}
	var role string
	if err := q.QueryRowContext(ctx, `SELECT role FROM listing_owners WHERE listing_id = ? AND user_id = ?`, it.ListingID, userID).Scan(&role); err != nil {
		return err
	}
	if role == "owner" || role == "claimed" {
		return nil
	}
	f := fmt.Sprintf("items[%d].product", i)
	return &ops.Error{Code: ops.CodeForbidden, Detail: f + ": only the listing's owner can book a relaunch; you are a co-founder on it",
		Fields: []ops.FieldError{kernel.FieldErr(f, "only the listing's owner can book a relaunch")}}
}

func loadListingInfo(ctx context.Context, q kernel.RowsQuerier, id int64) (*listingInfo, error) {
	l := &listingInfo{ID: id, Cats: map[int64]bool{}}
	if err := q.QueryRowContext(ctx, `SELECT name, status, plan, primary_category_id FROM listings WHERE id = ?`, id).
		Scan(&l.Name, &l.Status, &l.Plan, &l.PrimaryCat); err != nil {
		return nil, err
	}
	rows, err := q.QueryContext(ctx, `SELECT category_id, is_primary FROM listing_categories WHERE listing_id = ?`, id)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	for rows.Next() {
		var (
			c       int64
			primary bool
		)
		if err := rows.Scan(&c, &primary); err != nil {
			return nil, err
		}
		l.Cats[c] = true
		if !primary && (!l.PrimaryCat.Valid || c != l.PrimaryCat.Int64) {
			l.Extras++
		}
	}
	return l, rows.Err()
}

func isLaunchKind(code string) bool {
	return code == "launch" || code == "launch_bundle" || code == "relaunch"
}

// decodeOrderRequest turns validated arguments into a request.
func decodeOrderRequest(in *ops.Input) (*OrderRequest, error) {
	var req OrderRequest
	if err := in.Decode(&req); err != nil {
		return nil, ops.Invalid("body", "could not be read: %v", err)
	}
	req.BillingCountry = strings.ToUpper(req.BillingCountry)
	return &req, nil
}

// priceOrder validates every item against the catalogue, the caller's
// listings, bookable weeks and capacity, applies the promo code and VAT,
// and returns the quote. It reads through q (the read pool for quotes, the
// write transaction for checkouts so capacity cannot be oversold). Another
// user's listing is a 404; every other problem is a 400 naming its field.
func (a *Service) priceOrder(ctx context.Context, q kernel.RowsQuerier, userID int64, req *OrderRequest, tax vat.VATInfo, vatErrs []ops.FieldError) (*Quote, error) {
	// Ownership first: someone else's listing is reported as missing.
	for i, it := range req.Items {
		if it.ListingID > 0 {
			if err := a.OwnListing(ctx, q, userID, it.ListingID); err != nil {
				if e := ops.AsError(err); e.Code == ops.CodeNotFound {
					f := fmt.Sprintf("items[%d].listing_id", i)
					return nil, &ops.Error{Code: ops.CodeNotFound, Detail: f + ": no listing of yours has this id",
						Fields: []ops.FieldError{kernel.FieldErr(f, "no listing of yours has this id")}}
				}
				return nil, err
			}
			// A site sells placements only for the listings it shows: what
			// is bought here is placed here, at this site's price.
			if shown, err := kernel.ShownHere(ctx, q, it.ListingID); err != nil {
				return nil, err
			} else if !shown {
				f := fmt.Sprintf("items[%d].listing_id", i)
				return nil, &ops.Error{Code: ops.CodeNotFound, Detail: f + ": this site does not show that listing",
					Fields: []ops.FieldError{kernel.FieldErr(f, "this site does not show that listing; choose this site for it first, or order on a site that shows it")}}
			}
			if err := a.mayRelaunch(ctx, q, userID, it, i); err != nil {
				return nil, err
			}
		}
	}
	products, err := loadProducts(ctx, q, false)
	if err != nil {
		return nil, err
	}
	byCode := map[string]Product{}
	for _, p := range products {
		byCode[p.Code] = p
	}
	weeks := a.bookableWeeks(ctx)
	weekSet := map[string]bool{}
	for _, w := range weeks {
		weekSet[w] = true
	}
	usage, err := weekUsage(ctx, q, kernel.CtxSiteKey(ctx), weeks)
	if err != nil {
		return nil, err
	}
	capc := newCapacity(products, usage)

	errs := append([]ops.FieldError{}, vatErrs...)
	listings := map[int64]*listingInfo{}
	launchSeen := map[int64]int{}        // listing -> item index
	featuredSeen := map[string]int{}     // listing|week -> item index
	newCats := map[int64]map[int64]int{} // listing -> category -> item index
	quote := &Quote{Lines: []QuoteLine{}}

	for i, it := range req.Items {
		p := fmt.Sprintf("items[%d]", i)
		bad := func(field, format string, args ...any) {
			errs = append(errs, kernel.FieldErr(p+field, fmt.Sprintf(format, args...)))
		}
		prod, ok := byCode[it.Product]
		if !ok {
			bad(".product", "unknown product %q; see list_products", it.Product)
			continue
		}
		rule := ruleOf(prod.Code)
		line := QuoteLine{Position: i, Product: prod.Code, Name: prod.Name, Quantity: 1, UnitPriceCents: prod.PriceCents}
		if quote.Currency == "" {
			quote.Currency = prod.Currency
		} else if prod.Currency != quote.Currency {
			bad(".product", "is priced in %s but the order is in %s; order them separately", prod.Currency, quote.Currency)
		}

		// Listing.
		var li *listingInfo
		if it.ListingID > 0 {
			if li = listings[it.ListingID]; li == nil {
				if li, err = loadListingInfo(ctx, q, it.ListingID); err != nil {
					return nil, err
				}
				listings[it.ListingID] = li
			}
			id := it.ListingID
			line.ListingID, line.ListingName = &id, li.Name
			if li.Status == "rejected" || li.Status == "archived" {
				bad(".listing_id", "the listing is %s; nothing can be booked for it", li.Status)
			}
		} else if prod.NeedsListing {
			bad(".listing_id", "is required for %s (the id of one of your listings)", prod.Code)
		}

		// Week.
		switch {
		case rule.Week == "none" && it.Week != "":
			bad(".week", "%s is not booked by week; omit week", prod.Code)
		case rule.Week == "required" && it.Week == "":
			bad(".week", "is required for %s: a Monday from list_products (e.g. %s)", prod.Code, weeks[0])
		case rule.Week == "optional" && it.Week == "":
			line.Details.LiveNow = true
		case it.Week != "":
			t, perr := time.Parse(kernel.DateLayout, it.Week)
			switch {
			case perr != nil:
				bad(".week", "must be a date as YYYY-MM-DD")
			case t.Weekday() != time.Monday:
				bad(".week", "must be a Monday (weeks run Monday to Sunday); %s is a %s", it.Week, t.Weekday())
			case !weekSet[it.Week]:
				bad(".week", "is not a bookable week; choose one of %s .. %s from list_products", weeks[0], weeks[len(weeks)-1])
			default:
				if _, free, limited := capc.free(prod.Code, it.Week); limited && free < 1 {
					bad(".week", "is sold out for %s; choose another week", prod.Code)
				} else {
					capc.take(prod.Code, it.Week)
					w := it.Week
					line.Week = &w
				}
			}
		}

		// Launch rules: one launch per listing per order; a paid launch once.
		if isLaunchKind(prod.Code) && li != nil {
			if j, dup := launchSeen[li.ID]; dup {
				bad(".product", "items[%d] already launches this listing; one launch per listing per order", j)
			} else {
				launchSeen[li.ID] = i
			}
			switch {
			case prod.Code == "relaunch" && li.Status != "live":
				bad(".listing_id", "only a live listing can be relaunched (this one is %s); use launch", li.Status)
			case prod.Code != "relaunch" && li.Plan == "paid" && (li.Status == "live" || li.Status == "scheduled"):
				bad(".product", "this listing already has a paid launch; use relaunch to launch it again")
			case prod.Code == "launch" && it.Week != "" && li.Status == "live":
				bad(".week", "the listing is already live; omit week to upgrade it to paid now, or use relaunch")
			case prod.Code == "launch_bundle" && li.Status == "live":
				bad(".product", "the listing is already live; use launch (upgrade) with featured, or relaunch")
			}
			if number, err := pendingBooking(ctx, q, "", li.ID, launchProducts, nil); err != nil {
				return nil, err
			} else if number != "" {
				bad(".product", "unpaid order %s already launches this listing; pay it or let it expire", number)
			}
		}
		if prod.Code == "launch_bundle" {
			line.Details.Includes = []string{"launch", "featured", "ai_review"}
		}
		// Featured slots: once per listing and week.
		if (prod.Code == "featured" || prod.Code == "launch_bundle") && li != nil && line.Week != nil {
			key := fmt.Sprintf("%d|%s", li.ID, *line.Week)
			if j, dup := featuredSeen[key]; dup {
				bad(".week", "items[%d] already features this listing in %s", j, *line.Week)
			} else {
				featuredSeen[key] = i
				if number, err := pendingBooking(ctx, q, kernel.CtxSiteKey(ctx), li.ID, featuredProducts, line.Week); err != nil {
					return nil, err
				} else if number != "" {
					bad(".week", "unpaid order %s already features this listing in %s; pay it or let it expire", number, *line.Week)
				}
				var one int
				err := q.QueryRowContext(ctx, featuredSlotSQL(kernel.CtxSiteKey(ctx)), li.ID, *line.Week, kernel.CtxSiteKey(ctx)).Scan(&one)
				if err == nil {
					bad(".week", "the listing is already featured in %s", *line.Week)
				} else if !db.IsNoRows(err) {
					return nil, err
				}
			}
		}

		// Amount (billboard).
		if rule.Unit == "amount" {
			amt := prod.PriceCents
			if it.AmountCents != nil {
				amt = *it.AmountCents
				if amt < prod.PriceCents {
					bad(".amount_cents", "must be at least %d (the billboard minimum)", prod.PriceCents)
				}
			}
			line.Details.AmountCents = amt
			line.UnitPriceCents = amt
		} else if it.AmountCents != nil {
			bad(".amount_cents", "is only for billboard_min")
		}

		// Categories.
		if rule.Unit == "category" {
			var cats []string
			if it.Categories != nil {
				cats = *it.Categories
			}
			if len(cats) == 0 {
				bad(".categories", "is required for %s: 1 to %d category slugs", prod.Code, maxExtraCategories)
			}
			// Slugs or names (as drafts take them); lines keep the slug.
			cats = append([]string(nil), cats...)
			for j, given := range cats {
				f := fmt.Sprintf(".categories[%d]", j)
				var (
					cid  int64
					slug string
				)
				err := q.QueryRowContext(ctx, `SELECT id, slug FROM categories WHERE slug = ?1 OR name = ?1 COLLATE NOCASE ORDER BY slug = ?1 DESC LIMIT 1`, given).Scan(&cid, &slug)
				if db.IsNoRows(err) {
					bad(f, "unknown category %q; see list_categories", given)
					continue
				} else if err != nil {
					return nil, err
				}
				cats[j] = slug
				if li == nil {
					continue
				}
				if newCats[li.ID] == nil {
					newCats[li.ID] = map[int64]int{}
				}
				switch {
				case li.PrimaryCat.Valid && li.PrimaryCat.Int64 == cid:
					bad(f, "%q is the listing's primary category", slug)
				case li.Cats[cid]:
					bad(f, "the listing is already in %q", slug)
				default:
					if k, dup := newCats[li.ID][cid]; dup {
						bad(f, "%q is already requested in items[%d]", slug, k)
						continue
					}
					newCats[li.ID][cid] = i
				}
			}
			if li != nil && li.Plan != "paid" && !launchesIn(req.Items, li.ID) {
				bad(".product", "extra categories are for paid listings (this one is on the %s plan): add launch for listing %d to this order, or buy it first",
					planName(li.Plan), li.ID)
			}
			if li != nil && len(cats) > 0 {
				if total := li.Extras + len(newCats[li.ID]); total > maxExtraCategories {
					bad(".categories", "a listing may have at most %d extra categories besides its primary (it has %d, this order would make %d)",
						maxExtraCategories, li.Extras, total)
				}
			}
			line.Details.Categories = cats
			line.Quantity = int64(max(len(cats), 1))
		} else if it.Categories != nil {
			bad(".categories", "is only for extra_categories")
		}

		// Options.
		given := map[string]string{}
		if it.Options != nil {
			given = *it.Options
		}
		if len(prod.Options) == 0 {
			if len(given) > 0 {
				bad(".options", "%s has no options", prod.Code)
			}
		} else {
			resolved := map[string]string{}
			for _, k := range sortedOptionKeys(given) {
				allowed, ok := prod.Options[k]
				if !ok {
					bad(".options."+k, "unknown option; allowed: %s", strings.Join(sortedOptionKeys(prod.Options), ", "))
					continue
				}
				if !inList(allowed, given[k]) {
					bad(".options."+k, "must be one of %s", strings.Join(allowed, ", "))
					continue
				}
				resolved[k] = given[k]
			}
			for k, vals := range prod.Options {
				if _, ok := resolved[k]; !ok && len(vals) > 0 {
					resolved[k] = vals[0]
				}
			}
			line.Details.Options = resolved
		}

		line.NetCents = line.UnitPriceCents * line.Quantity
		quote.Lines = append(quote.Lines, line)
	}

	// Promo code: refused with its reason; unknown codes count as guesses.
	var promo *PromoCode
	promoReason := ""
	if req.PromoCode != "" {
		promo, err = LoadPromo(ctx, q, req.PromoCode)
		if err != nil {
			return nil, err
		}
		msg := ""
		if promo == nil {
			a.promoWrongGuess(userID)
			promoReason, msg = PromoUnknown, "unknown promo code"
		} else if !promo.onSite(a.SiteKey(ctx)) {
			promoReason, msg = PromoNotApplicable, "promo code is not valid on this site"
		} else if promoReason, msg = promo.refusal(a.Now()); promoReason == "" {
			applicable := false
			for _, l := range quote.Lines {
				applicable = applicable || promo.appliesTo(l.Product)
			}
			if !applicable && len(quote.Lines) > 0 {
				promoReason, msg = PromoNotApplicable, "promo code does not apply to these products (it is for: "+strings.Join(promo.Products, ", ")+")"
			}
		}
		if promoReason != "" {
			errs = append(errs, kernel.FieldErr("promo_code", msg))
		}
	}
	if len(errs) > 0 {
		e := ops.InvalidFields(errs)
		if promoReason != "" {
			e.Extra = map[string]any{"promo_reason": promoReason}
		}
		return nil, e
	}

	// Discount (before VAT), VAT per line, totals.
	nets := make([]int64, len(quote.Lines))
	eligible := make([]bool, len(quote.Lines))
	for i, l := range quote.Lines {
		nets[i] = l.NetCents
		eligible[i] = promo != nil && promo.appliesTo(l.Product)
	}
	var discounts []int64
	if promo != nil {
		discounts = allocateDiscount(promo, nets, eligible)
		pv := &PromoView{Code: promo.Code, Kind: promo.Kind, Value: promo.Value, AppliesTo: []string{}}
		seen := map[string]bool{}
		for i, l := range quote.Lines {
			if eligible[i] && !seen[l.Product] {
				seen[l.Product] = true
				pv.AppliesTo = append(pv.AppliesTo, l.Product)
			}
		}
		if promo.Kind == "percent" {
			pv.Note = fmt.Sprintf("%d%% off the eligible lines' net price, before VAT", promo.Value)
		} else {
			pv.Note = fmt.Sprintf("%d cents off the eligible lines together, before VAT", promo.Value)
		}
		quote.Promo = pv
	}
	quote.VAT = tax
	for i := range quote.Lines {
		l := &quote.Lines[i]
		if discounts != nil {
			l.DiscountCents = discounts[i]
		}
		l.TaxableCents = l.NetCents - l.DiscountCents
		l.VATRate = tax.Rate
		l.VATCents = vat.Amount(l.TaxableCents, tax.RateBasisPoints)
		l.TotalCents = l.TaxableCents + l.VATCents
		quote.SubtotalCents += l.NetCents
		quote.DiscountCents += l.DiscountCents
		quote.VATCents += l.VATCents
	}
	if quote.Promo != nil {
		quote.Promo.DiscountCents = quote.DiscountCents
	}
	quote.TaxableCents = quote.SubtotalCents - quote.DiscountCents
	quote.TotalCents = quote.TaxableCents + quote.VATCents
	quote.Rounding = "integer cents; percent discounts and VAT rounded half up per line; fixed discounts split by net price, leftover cents to the largest remainders; totals are sums of lines"
	return quote, nil
}

func sortedOptionKeys[V any](m map[string]V) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return keys
}

func inList(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}

var (
	launchProducts   = []string{"launch", "launch_bundle", "relaunch"}
	featuredProducts = []string{"featured", "launch_bundle"}
)

// pendingBooking finds an unpaid order that already books one of products
// for the listing (in week, when given): a second order for the same
// launch or slot would be paid twice and hold capacity twice.
func pendingBooking(ctx context.Context, q kernel.Querier, site string, listingID int64, products []string, week *string) (string, error) {
	var number string
	marks := strings.TrimSuffix(strings.Repeat("?,", len(products)), ",")
	args := []any{site, listingID} // site "": any site (a launch is the listing's, on every site)
	for _, p := range products {
		args = append(args, p)
	}
	cond := ""
	if week != nil {
		cond, args = " AND ol.week = ?", append(args, *week)
	}
	err := q.QueryRowContext(ctx, `SELECT o.number FROM order_lines ol JOIN orders o ON o.id = ol.order_id
		WHERE o.status = 'pending' AND ?1 IN ('', o.site_key) AND ol.listing_id = ? AND ol.product IN (`+marks+`)`+cond+` ORDER BY o.id LIMIT 1`, args...).Scan(&number)
	if db.IsNoRows(err) {
		return "", nil
	}
	return number, err
}

// featuredSlotSQL asks whether a listing holds a featured slot in a week on
// a site (args: listing, week, site).
func featuredSlotSQL(site string) string {
	if site != kernel.MainSite {
		return `SELECT 1 FROM site_featured_slots WHERE listing_id = ?1 AND week = ?2 AND site_key = ?3`
	}
	return `SELECT 1 FROM featured_slots WHERE listing_id = ?1 AND week = ?2 AND ?3 = 'main'`
}
