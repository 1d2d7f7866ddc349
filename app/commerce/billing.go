package commerce

import (
	"context"
	"database/sql"
	"encoding/json"
	"net/mail"
	"strings"
	"unicode/utf8"

	"launchdir/app/kernel"
	"launchdir/app/vat"
	"launchdir/ops"
)

// Billing details on the checkout page. The billing country and VAT number
// decide the VAT, so changing them on the page re-prices the pending order
// (validated exactly like create_checkout) before anything is paid; name,
// email and address are kept as confirmed and get_order returns them.

// OrderBilling is what the person confirmed on the checkout page.
type OrderBilling struct {
	Name      string `json:"name"`
	Email     string `json:"email"`
	Address   string `json:"address"`
	Country   string `json:"country"`
	VATNumber string `json:"vat_number,omitempty"`
}

const maxBillingField = 500

// RepriceOrderVAT changes the billing country and VAT number of a pending
// order paid on the built-in page and recomputes VAT per line and the
// totals in one transaction. Orders at an external provider (whose session
// already holds the amount) cannot be re-priced: build a new checkout.
func (a *Service) RepriceOrderVAT(ctx context.Context, token, country, vatNumber string) (*Order, error) {
	o, err := a.OrderByToken(ctx, token)
	if err != nil {
		return nil, err
	}
	country = strings.ToUpper(strings.TrimSpace(country))
	vatNumber = strings.TrimSpace(vatNumber)
	if country == "" {
		return nil, ops.Invalid("billing_country", "is required: VAT depends on the buyer's country")
	}
	if len(vatNumber) > 32 {
		return nil, ops.Invalid("vat_number", "must be at most 32 characters")
	}
	tax, errs := a.VAT.For(ctx, country, vatNumber) // may ask VIES: outside the transaction
	if len(errs) > 0 {
		return nil, ops.InvalidFields(errs)
	}
	err = a.DB.Tx(ctx, func(tx *sql.Tx) error {
		var status, provider string
		if err := tx.QueryRowContext(ctx, `SELECT status, provider FROM orders WHERE id = ?`, o.ID).Scan(&status, &provider); err != nil {
			return err
		}
		if status != "pending" {
			return errNotPayable(o.Number, status)
		}
		if provider != "test" {
			return ops.Errorf(ops.CodeConflict, "this order is paid at %s; start a new checkout to change the billing country", provider)
		}
		rows, err := tx.QueryContext(ctx, `SELECT id, details, net_cents, discount_cents FROM order_lines WHERE order_id = ? ORDER BY position`, o.ID)
		if err != nil {
			return err
		}
		type line struct {
			id        int64
			details   string
			net, disc int64
		}
		var lines []line
		for rows.Next() {
			var l line
			if err := rows.Scan(&l.id, &l.details, &l.net, &l.disc); err != nil {
				rows.Close()
				return err
			}
			lines = append(lines, l)
		}
		rows.Close()
		var vatTotal, taxable int64
		for _, l := range lines {
			lineVAT := vat.Amount(l.net-l.disc, tax.RateBasisPoints)
			var d map[string]any
			if err := json.Unmarshal([]byte(l.details), &d); err != nil {
				return err
			}
			d["vat_rate"], d["vat_cents"], d["total_cents"] = tax.Rate, lineVAT, l.net-l.disc+lineVAT
			b, _ := json.Marshal(d)
			if _, err := tx.ExecContext(ctx, `UPDATE order_lines SET vat_cents = ?, details = ? WHERE id = ?`, lineVAT, string(b), l.id); err != nil {
				return err
			}
			vatTotal += lineVAT
			taxable += l.net - l.disc
		}
		_, err = tx.ExecContext(ctx, `UPDATE orders SET vat_cents = ?, total_cents = ?, vat_rate = ?, vat_note = ?, billing_country = ?,
			vat_number = ?, updated_at = ? WHERE id = ?`, vatTotal, taxable+vatTotal, tax.Rate, tax.Note, tax.Country, tax.VATNumber,
			a.NowText(), o.ID)
		return err
	})
	if err != nil {
		return nil, err
	}
	return a.OrderByToken(ctx, token)
}

// SetOrderBilling keeps the name, email and address confirmed on the page
// of a pending order (just before payment).
func (a *Service) SetOrderBilling(ctx context.Context, token string, b OrderBilling) error {
	b.Name, b.Email, b.Address = strings.TrimSpace(b.Name), strings.TrimSpace(b.Email), strings.TrimSpace(b.Address)
	var bad []ops.FieldError
	for _, f := range []struct{ name, v string }{{"billing_name", b.Name}, {"billing_email", b.Email}, {"billing_address", b.Address}} {
		if utf8.RuneCountInString(f.v) > maxBillingField {
			bad = append(bad, kernel.FieldErr(f.name, "must be at most 500 characters"))
		}
	}
	if b.Email != "" {
		if ad, err := mail.ParseAddress(b.Email); err != nil || ad.Address != b.Email || !strings.Contains(b.Email[strings.LastIndex(b.Email, "@"):], ".") {
			bad = append(bad, kernel.FieldErr("billing_email", "must be an email address"))
		}
	}
	if len(bad) > 0 {
		return ops.InvalidFields(bad)
	}
	res, err := a.DB.W.ExecContext(ctx, `UPDATE orders SET billing_name = ?, billing_email = ?, billing_address = ?, updated_at = ?
		WHERE checkout_token = ? AND status = 'pending'`, b.Name, b.Email, b.Address, a.NowText(), token)
	if err != nil {
		return err
	}
	if n, _ := res.RowsAffected(); n == 0 {
		return ops.Errorf(ops.CodeConflict, "the order is no longer pending")
	}
	return nil
}

// OrderListingLink is where a listing of an order can be seen next.
type OrderListingLink struct {
	Name   string `json:"name"`
	Status string `json:"status"`
	Week   string `json:"week,omitempty"`
	URL    string `json:"url,omitempty"` // public page once live
}

// OrderListings are the listings an order is about, with their state now.
func (a *Service) OrderListings(ctx context.Context, o *Order) ([]OrderListingLink, error) {
	var out []OrderListingLink
	seen := map[int64]bool{}
	for _, l := range o.Lines {
		if l.ListingID == nil || seen[*l.ListingID] {
			continue
		}
		seen[*l.ListingID] = true
		var k OrderListingLink
		var slug string
		var week sql.NullString
		err := a.DB.R.QueryRowContext(ctx, `SELECT name, slug, status, launch_week FROM listings WHERE id = ?`, *l.ListingID).
			Scan(&k.Name, &slug, &k.Status, &week)
		if err != nil {
			return nil, kernel.NotFound(err, "listing")
		}
		k.Week = week.String
		if k.Status == "live" {
			k.URL = a.ListingURL(slug)
		}
		out = append(out, k)
	}
	return out, nil
}
