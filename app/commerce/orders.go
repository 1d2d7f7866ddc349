package commerce

import (
	"context"
	"crypto/rand"
	"database/sql"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"strconv"
	"strings"
	"sync"
	"time"

	"launchdir/app/kernel"
	"launchdir/app/vat"
	"launchdir/db"
	"launchdir/ops"
)

// Order statuses and their transitions (copy into the README):
//
//	| From     | Trigger                                               | To       | Also                                              |
//	|----------|-------------------------------------------------------|----------|---------------------------------------------------|
//	| (none)   | POST /orders/checkout                                 | pending  | lines, prices, VAT and promo frozen; capacity of  |
//	|          |                                                       |          | booked weeks reserved; checkout_url returned      |
//	| (none)   | POST /orders/checkout with a total of 0               | paid     | effects applied at once (nothing to pay)          |
//	| pending  | payment confirmed (checkout page "succeed", Stripe     | paid     | effects applied exactly once, promo redemption    |
//	|          | checkout.session.completed / async_payment_succeeded)  |          | counted, in the same transaction                  |
//	| pending  | payment declined (page "fail", Stripe async failure)  | failed   | capacity released; nothing applied                |
//	| pending  | promo code no longer usable when paying (test page)   | failed   | status_note says why; no money taken              |
//	| pending  | person abandons on the checkout page                  | canceled | capacity released                                 |
//	| pending  | Stripe session expired                                | expired  | capacity released                                 |
//	| pending  | OrderTTL (24 h) passes (background job every minute)  | expired  | capacity released                                 |
//	| expired  | a real provider reports a captured payment late       | paid     | effects applied (money was taken, so honoured)    |
//	| paid     | RefundOrder (site team / provider refund)             | refunded | effects are NOT reverted automatically            |
//
// paid, failed, canceled and refunded are final for the API; a failed,
// canceled or expired order is never paid through the test checkout page —
// the person starts a new checkout. Duplicate confirmations (webhook
// replays, page reloads, concurrent requests) change nothing: the status
// change is UPDATE ... WHERE status = 'pending' and effects run only when
// that changed exactly one row.
var OrderStatuses = []string{"pending", "paid", "failed", "expired", "canceled", "refunded"}

// OrderTTL is how long a pending order waits for payment.
var OrderTTL = 24 * time.Hour

// PaymentProvider starts a hosted payment for an order. The payments
// package implements it (test page, Stripe Checkout); main wires it with
// SetPaymentProvider. Without one, orders use the built-in test checkout
// page URL (<base>/checkout/{token}).
type PaymentProvider interface {
	// Name is stored on the order ("test", "stripe").
	Name() string
	// CreateSession returns the URL the person pays on and the provider's
	// reference (e.g. the Checkout Session id).
	CreateSession(ctx context.Context, o *Order) (checkoutURL, providerRef string, err error)
}

// orderRuntime is the orders capability's in-memory state.
type orderRuntime struct {
	mu         sync.Mutex
	provider   PaymentProvider
	promoFails map[int64][]time.Time
	// promoGate serialises requests that carry a promo code, so checking
	// the guess limit and recording a wrong guess are one step: parallel
	// guesses cannot slip past the limit.
	promoGate sync.Mutex
}

func (a *Service) orderState() *orderRuntime { return a.orders }

// SetPaymentProvider sets the provider create_checkout uses.
func (a *Service) SetPaymentProvider(p PaymentProvider) {
	st := a.orderState()
	st.mu.Lock()
	st.provider = p
	st.mu.Unlock()
}

func (a *Service) paymentProvider() PaymentProvider {
	st := a.orderState()
	st.mu.Lock()
	defer st.mu.Unlock()
	return st.provider
}

// Jobs are commerce's periodic tasks: pending orders expire after OrderTTL,
// which releases the capacity they held.
func (a *Service) Jobs() []kernel.Job {
	return []kernel.Job{{Name: "order expiry", Every: time.Minute, Run: func(ctx context.Context) error {
		_, err := a.ExpireOrders(ctx)
		return err
	}}}
}

// TestCheckoutURL is the built-in checkout page of an order.
func (a *Service) TestCheckoutURL(ctx context.Context, token string) string {
	return a.Origin(ctx) + "/checkout/" + token
}

// frozenVAT completes the VAT stored on an order (country, rate, note,
// VAT number) into the vat.VATInfo a quote shows, so both carry one shape.
func frozenVAT(v vat.VATInfo) vat.VATInfo {
	v.RatesAsOf = vat.VATRatesAsOf
	whole, frac, _ := strings.Cut(v.Rate, ".")
	frac = (frac + "00")[:2]
	w, _ := strconv.Atoi(whole)
	f, _ := strconv.Atoi(frac)
	v.RateBasisPoints = w*100 + f
	inEU := vat.InEU(v.Country)
	switch {
	case v.Country == "":
		v.Treatment = vat.VATNoCountry
	case !inEU:
		v.Treatment = vat.VATOutsideEU
	case v.VATNumber != "" && v.RateBasisPoints == 0:
		v.Treatment = vat.VATReverseCharge
		valid := true
		v.VATNumberValid = &valid
	default:
		v.Treatment = vat.VATEUConsumer
	}
	return v
}

// Order is an order as get_order shows it.
type Order struct {
	Number        string      `json:"number"`
	Status        string      `json:"status" enum:"pending,paid,failed,expired,canceled,refunded"`
	StatusNote    string      `json:"status_note,omitempty"`
	Currency      string      `json:"currency"`
	SubtotalCents int64       `json:"subtotal_cents"`
	DiscountCents int64       `json:"discount_cents"`
	TaxableCents  int64       `json:"taxable_cents"`
	VATCents      int64       `json:"vat_cents"`
	TotalCents    int64       `json:"total_cents"`
	VAT           vat.VATInfo `json:"vat" doc:"The VAT frozen on the order: the same object as a quote's."`
	PromoCode     string      `json:"promo_code,omitempty"`
	Lines         []QuoteLine `json:"lines"`
	Provider      string      `json:"provider" enum:"test,stripe,none"`
	CheckoutURL   string      `json:"checkout_url,omitempty" format:"uri" doc:"While pending (and right after a free order): the hosted checkout page to give the buyer."`
	CreatedAt     string      `json:"created_at" format:"date-time"`
	ExpiresAt     string      `json:"expires_at" format:"date-time" doc:"When a pending order expires."`
	PaidAt        *string     `json:"paid_at" format:"date-time"`
	// Billing is what the person confirmed on the checkout page; country
	// and VAT number are the ones the VAT was worked out from.
	Billing OrderBilling `json:"billing" doc:"Billing details the buyer confirmed on the checkout page; country and vat_number decided the VAT."`

	ID            int64  `json:"-"`
	UserID        int64  `json:"-"`
	UserEmail     string `json:"-"`
	CheckoutToken string `json:"-"`
	ProviderRef   string `json:"-"`
}

const orderCols = `o.id, o.number, o.user_id, u.email, o.status, o.status_note, o.currency, o.subtotal_cents, o.discount_cents, o.vat_cents,
	o.total_cents, o.vat_rate, o.vat_note, o.billing_country, o.vat_number, o.promo_code, o.provider, o.provider_ref, o.checkout_token,
	o.checkout_url, o.created_at, o.expires_at, o.paid_at, o.billing_name, o.billing_email, o.billing_address FROM orders o JOIN users u ON u.id = o.user_id `

func scanOrder(sc interface{ Scan(...any) error }) (*Order, error) {
	var (
		o    Order
		paid sql.NullString
	)
	err := sc.Scan(&o.ID, &o.Number, &o.UserID, &o.UserEmail, &o.Status, &o.StatusNote, &o.Currency, &o.SubtotalCents, &o.DiscountCents,
		&o.VATCents, &o.TotalCents, &o.VAT.Rate, &o.VAT.Note, &o.VAT.Country, &o.VAT.VATNumber, &o.PromoCode, &o.Provider, &o.ProviderRef,
		&o.CheckoutToken, &o.CheckoutURL, &o.CreatedAt, &o.ExpiresAt, &paid, &o.Billing.Name, &o.Billing.Email, &o.Billing.Address)
	if err != nil {
		return nil, err
	}
	if paid.Valid {
		o.PaidAt = &paid.String
	}
	o.TaxableCents = o.SubtotalCents - o.DiscountCents
	o.VAT = frozenVAT(o.VAT)
	o.Billing.Country, o.Billing.VATNumber = o.VAT.Country, o.VAT.VATNumber
	return &o, nil
}

// loadOrder reads one order and its lines; where follows the FROM clause.
func loadOrder(ctx context.Context, q kernel.RowsQuerier, where string, args ...any) (*Order, error) {
	o, err := scanOrder(q.QueryRowContext(ctx, `SELECT `+orderCols+where, args...))
	if err != nil {
		return nil, err
	}
	if err := loadOrderLines(ctx, q, []*Order{o}); err != nil {
		return nil, err
	}
	return o, nil
}

func loadOrderLines(ctx context.Context, q kernel.RowsQuerier, orders []*Order) error {
	for _, o := range orders {
		rows, err := q.QueryContext(ctx, `SELECT details, net_cents, discount_cents, vat_cents FROM order_lines WHERE order_id = ? ORDER BY position`, o.ID)
		if err != nil {
			return err
		}
		o.Lines = []QuoteLine{}
		for rows.Next() {
			var (
				details string
				l       QuoteLine
			)
			if err := rows.Scan(&details, &l.NetCents, &l.DiscountCents, &l.VATCents); err != nil {
				rows.Close()
				return err
			}
			net, disc, vat := l.NetCents, l.DiscountCents, l.VATCents
			if err := json.Unmarshal([]byte(details), &l); err != nil {
				rows.Close()
				return fmt.Errorf("order %s: bad line details: %w", o.Number, err)
			}
			l.NetCents, l.DiscountCents, l.VATCents = net, disc, vat
			l.TaxableCents = net - disc
			l.TotalCents = l.TaxableCents + vat
			o.Lines = append(o.Lines, l)
		}
		rows.Close()
		if err := rows.Err(); err != nil {
			return err
		}
	}
	return nil
}

// publicView hides the checkout link once it can no longer be used.
func (o *Order) publicView() *Order {
	c := *o
	if c.Status != "pending" {
		c.CheckoutURL = ""
	}
	return &c
}

// OrderByToken finds an order by its checkout token (checkout page).
func (a *Service) OrderByToken(ctx context.Context, token string) (*Order, error) {
	if token == "" || len(token) > 100 {
		return nil, ops.NotFound("checkout")
	}
	o, err := loadOrder(ctx, a.DB.R, `WHERE o.checkout_token = ?`, token)
	return o, kernel.NotFound(err, "checkout")
}

// OrderByNumber finds an order by its number (payment providers).
func (a *Service) OrderByNumber(ctx context.Context, number string) (*Order, error) {
	o, err := loadOrder(ctx, a.DB.R, `WHERE o.number = ?`, number)
	return o, kernel.NotFound(err, "order")
}

func randomToken() string {
	b := make([]byte, 24)
	if _, err := rand.Read(b); err != nil {
		panic(err)
	}
	return base64.RawURLEncoding.EncodeToString(b)
}

// insertOrder freezes a quote into a pending order inside tx.
func (a *Service) insertOrder(ctx context.Context, tx *sql.Tx, userID int64, q *Quote, provider string) (number, token string, err error) {
	now := a.Now().UTC()
	token = randomToken()
	res, err := tx.ExecContext(ctx, `INSERT INTO orders(number, user_id, status, currency, subtotal_cents, discount_cents, vat_cents, total_cents,
		vat_rate, vat_note, billing_country, vat_number, promo_code, provider, checkout_token, created_at, updated_at, expires_at, site_key)
		VALUES(?,?,'pending',?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?)`,
		"new-"+token, userID, q.Currency, q.SubtotalCents, q.DiscountCents, q.VATCents, q.TotalCents,
		q.VAT.Rate, q.VAT.Note, q.VAT.Country, q.VAT.VATNumber, q.promoCode(), provider, token,
		now.Format(time.RFC3339), now.Format(time.RFC3339), now.Add(OrderTTL).Format(time.RFC3339), kernel.CtxSiteKey(ctx))
	if err != nil {
		return "", "", err
	}
	id, err := res.LastInsertId()
	if err != nil {
		return "", "", err
	}
	number = fmt.Sprintf("LD-%04d-%06d", now.Year(), id)
	if _, err := tx.ExecContext(ctx, `UPDATE orders SET number = ? WHERE id = ?`, number, id); err != nil {
		return "", "", err
	}
	for _, l := range q.Lines {
		details, _ := json.Marshal(l)
		var listing, week any
		if l.ListingID != nil {
			listing = *l.ListingID
		}
		if l.Week != nil {
			week = *l.Week
		}
		if _, err := tx.ExecContext(ctx, `INSERT INTO order_lines(order_id, position, product, listing_id, week, details, net_cents, discount_cents, vat_cents)
			VALUES(?,?,?,?,?,?,?,?,?)`, id, l.Position, l.Product, listing, week, string(details), l.NetCents, l.DiscountCents, l.VATCents); err != nil {
			return "", "", err
		}
	}
	return number, token, nil
}

// errNotPayable is returned when an order cannot be paid any more.
func errNotPayable(number, status string) *ops.Error {
	return ops.Errorf(ops.CodeConflict, "order %s is %s and can no longer be paid; start a new checkout", number, status)
}

// ConfirmPayment marks a pending order paid and applies its effects in ONE
// transaction. It is idempotent: a second call (webhook replay, page reload,
// concurrent request) finds the order paid and changes nothing; applied
// reports whether this call applied the effects. provider is who confirms
// ("test", "stripe", "none"); a real provider's captured payment is honoured
// even when the order expired or its promo code meanwhile ran out, while the
// test page refuses both (nothing was taken yet).
func (a *Service) ConfirmPayment(ctx context.Context, number, provider, providerRef string) (applied bool, err error) {
	captured := provider != "test"
	var after error // an error to report AFTER committing (status changes)
	err = a.DB.Tx(ctx, func(tx *sql.Tx) error {
		var (
			id               int64
			status, promo    string
			expiresAt, owner string
		)
		err := tx.QueryRowContext(ctx, `SELECT id, status, promo_code, expires_at, provider FROM orders WHERE number = ?`, number).
			Scan(&id, &status, &promo, &expiresAt, &owner)
		if err != nil {
			return kernel.NotFound(err, "order")
		}
		now := a.Now().UTC()
		switch status {
		case "paid", "refunded":
			return nil // already done: nothing more
		case "pending":
			if exp, perr := time.Parse(time.RFC3339, expiresAt); perr == nil && !now.Before(exp) && !captured {
				if _, err := tx.ExecContext(ctx, `UPDATE orders SET status = 'expired', updated_at = ? WHERE id = ? AND status = 'pending'`,
					now.Format(time.RFC3339), id); err != nil {
					return err
				}
				after = errNotPayable(number, "expired")
				return nil
			}
		case "expired":
			if !captured {
				return errNotPayable(number, status)
			}
			a.Log.Warn("payment captured for an expired order; honouring it", "order", number, "provider", provider)
		default:
			if captured {
				a.Log.Error("payment captured for an order that is not payable; refund by hand", "order", number, "status", status, "provider", provider)
			}
			return errNotPayable(number, status)
		}
		if promo != "" {
			p, err := LoadPromo(ctx, tx, promo)
			if err != nil {
				return err
			}
			reason, msg := PromoUnknown, "promo code no longer exists"
			if p != nil {
				reason, msg = p.refusal(now)
			}
			if reason != "" {
				if !captured {
					if _, err := tx.ExecContext(ctx, `UPDATE orders SET status = 'failed', status_note = ?, updated_at = ? WHERE id = ? AND status = 'pending'`,
						"promo code "+promo+": "+msg, now.Format(time.RFC3339), id); err != nil {
						return err
					}
					after = promoError(reason, msg+"; the order was not paid, start a new checkout")
					return nil
				}
				a.Log.Warn("promo code no longer usable but payment captured; honouring it", "order", number, "promo", promo, "reason", reason)
			}
		}
		res, err := tx.ExecContext(ctx, `UPDATE orders SET status = 'paid', paid_at = ?, updated_at = ?,
			provider_ref = CASE WHEN ? <> '' THEN ? ELSE provider_ref END WHERE id = ? AND status = ?`,
			now.Format(time.RFC3339), now.Format(time.RFC3339), providerRef, providerRef, id, status)
		if err != nil {
			return err
		}
		if n, _ := res.RowsAffected(); n != 1 {
			return nil // someone else confirmed it first
		}
		if promo != "" {
			if _, err := tx.ExecContext(ctx, `UPDATE promo_codes SET redemptions = redemptions + 1 WHERE code = ?`, promo); err != nil {
				return err
			}
		}
		if err := a.applyEffects(ctx, tx, id); err != nil {
			return err
		}
		seq, err := a.issueInvoice(ctx, tx, id)
		if err != nil {
			return err
		}
		if err := a.receipt(ctx, tx, id, seq); err != nil {
			return err
		}
		if err := a.emitPaid(ctx, tx, id, seq); err != nil {
			return err
		}
		applied = true
		return nil
	})
	if err != nil {
		return false, err
	}
	if applied {
		a.Log.Info("order paid", "order", number, "provider", provider)
	}
	return applied, after
}

// setPendingStatus moves a pending order to status; changed is false when
// it was not pending.
func (a *Service) setPendingStatus(ctx context.Context, number, status, note string) (bool, error) {
	res, err := a.DB.W.ExecContext(ctx, `UPDATE orders SET status = ?, status_note = ?, updated_at = ? WHERE number = ? AND status = 'pending'`,
		status, note, a.NowText(), number)
	if err != nil {
		return false, err
	}
	n, _ := res.RowsAffected()
	return n == 1, nil
}

// FailPayment marks a pending order failed (payment declined).
func (a *Service) FailPayment(ctx context.Context, number, reason string) (bool, error) {
	return a.setPendingStatus(ctx, number, "failed", reason)
}

// CancelOrder marks a pending order canceled (abandoned at checkout).
func (a *Service) CancelOrder(ctx context.Context, number, reason string) (bool, error) {
	return a.setPendingStatus(ctx, number, "canceled", reason)
}

// ExpireOrder marks one pending order expired (provider session expired).
func (a *Service) ExpireOrder(ctx context.Context, number, reason string) (bool, error) {
	return a.setPendingStatus(ctx, number, "expired", reason)
}

// ExpireOrders expires pending orders whose TTL passed (background job).
func (a *Service) ExpireOrders(ctx context.Context) (int64, error) {
	now := a.NowText()
	res, err := a.DB.W.ExecContext(ctx, `UPDATE orders SET status = 'expired', status_note = 'not paid within the checkout time', updated_at = ?
		WHERE status = 'pending' AND expires_at <= ?`, now, now)
	if err != nil {
		return 0, err
	}
	n, _ := res.RowsAffected()
	if n > 0 {
		a.Log.Info("orders expired", "count", n)
	}
	return n, nil
}

// RefundOrder marks a paid order refunded. Effects are not reverted
// automatically (the site team decides what a refund withdraws).
func (a *Service) RefundOrder(ctx context.Context, number, note string) (bool, error) {
	res, err := a.DB.W.ExecContext(ctx, `UPDATE orders SET status = 'refunded', status_note = ?, updated_at = ? WHERE number = ? AND status = 'paid'`,
		note, a.NowText(), number)
	if err != nil {
		return false, err
	}
	n, _ := res.RowsAffected()
	return n == 1, nil
}

// RecordPaymentEvent remembers a provider event id; first is false when it
// was seen before (a replay).
func (a *Service) RecordPaymentEvent(ctx context.Context, provider, eventID, typ, number string) (first bool, err error) {
	res, err := a.DB.W.ExecContext(ctx, `INSERT OR IGNORE INTO payment_events(provider, event_id, type, order_number, received_at) VALUES(?,?,?,?,?)`,
		provider, eventID, typ, number, a.NowText())
	if err != nil {
		return false, err
	}
	n, _ := res.RowsAffected()
	return n == 1, nil
}

// PaymentEventSeen reports whether a provider event id was processed.
func (a *Service) PaymentEventSeen(ctx context.Context, provider, eventID string) (bool, error) {
	var one int
	err := a.DB.R.QueryRowContext(ctx, `SELECT 1 FROM payment_events WHERE provider = ? AND event_id = ?`, provider, eventID).Scan(&one)
	if db.IsNoRows(err) {
		return false, nil
	}
	return err == nil, err
}
