package admin

import (
	"context"
	"database/sql"
	"slices"
	"strings"
	"unicode/utf8"

	"launchdir/app/commerce"
	"launchdir/app/kernel"
	"launchdir/ops"
)

// Prices, capacities, promo codes and refunds for the site team. The rules
// (bounds, known products, promo validation) are the CLI's; these add the
// admin check and the audit entry.

// AdminSetPrice sets a product's net price in cents and, when capacity is
// not nil, its weekly capacity (nil pointer target < 0: unlimited).
func (a *Service) AdminSetPrice(ctx context.Context, adminID int64, code string, cents int64, capacity *int64) error {
	if err := a.requireAdmin(ctx, adminID); err != nil {
		return err
	}
	if cents < 0 || cents > commerce.MaxAmountCents {
		return ops.Invalid("price_cents", "must be 0..%d", commerce.MaxAmountCents)
	}
	if capacity != nil && (*capacity < -1 || *capacity > maxFreeCapacity) {
		return ops.Invalid("weekly_capacity", "must be 0..1000, or empty for unlimited")
	}
	return a.adminTx(ctx, adminID, func(tx *sql.Tx) error {
		var oldPrice int64
		var oldCap sql.NullInt64
		if err := tx.QueryRowContext(ctx, `SELECT price_cents, weekly_capacity FROM products WHERE code = ?`, code).Scan(&oldPrice, &oldCap); err != nil {
			return kernel.NotFound(err, "product "+code)
		}
		before := map[string]any{"price_cents": oldPrice, "weekly_capacity": nullInt(oldCap)}
		after := map[string]any{"price_cents": cents, "weekly_capacity": nullInt(oldCap)}
		if _, err := tx.ExecContext(ctx, `UPDATE products SET price_cents = ? WHERE code = ?`, cents, code); err != nil {
			return err
		}
		if capacity != nil {
			var v any
			if *capacity >= 0 {
				v = *capacity
			}
			after["weekly_capacity"] = v
			if _, err := tx.ExecContext(ctx, `UPDATE products SET weekly_capacity = ? WHERE code = ?`, v, code); err != nil {
				return err
			}
		}
		return a.audit(ctx, tx, adminID, "set_price", "product "+code, before, after)
	})
}

func nullInt(n sql.NullInt64) any {
	if n.Valid {
		return n.Int64
	}
	return nil
}

// AdminCreatePromo creates a promo code (same validation as the CLI).
func (a *Service) AdminCreatePromo(ctx context.Context, adminID int64, p commerce.PromoCode) error {
	return a.adminTx(ctx, adminID, func(tx *sql.Tx) error {
		if err := a.Commerce.CreatePromoTx(ctx, tx, &p); err != nil {
			return err
		}
		created, err := commerce.LoadPromo(ctx, tx, p.Code)
		if err != nil {
			return err
		}
		return a.audit(ctx, tx, adminID, "create_promo", "promo "+p.Code, nil, created)
	})
}

// SetPromoPaused pauses or resumes a promo code; a paused code is refused.
func (a *Service) SetPromoPaused(ctx context.Context, adminID int64, code string, paused bool) error {
	return a.adminTx(ctx, adminID, func(tx *sql.Tx) error {
		var was bool
		if err := tx.QueryRowContext(ctx, `SELECT paused FROM promo_codes WHERE code = ?`, code).Scan(&was); err != nil {
			return kernel.NotFound(err, "promo code")
		}
		if was == paused {
			state := "active"
			if paused {
				state = "paused"
			}
			return ops.Invalid("code", "the promo code is already %s", state)
		}
		if _, err := tx.ExecContext(ctx, `UPDATE promo_codes SET paused = ? WHERE code = ?`, paused, code); err != nil {
			return err
		}
		return a.audit(ctx, tx, adminID, "pause_promo", "promo "+code, map[string]any{"paused": was}, map[string]any{"paused": paused})
	})
}

// PromoUsage is a promo code with what it was used for.
type PromoUsage struct {
	commerce.PromoCode
	OrdersByStatus map[string]int `json:"orders_by_status"` // orders carrying the code, by status
	PaidDiscount   int64          `json:"paid_discount_cents"`
}

// PromoCodes lists every promo code with its usage.
func (a *Service) PromoCodes(ctx context.Context, adminID int64) ([]PromoUsage, error) {
	if err := a.requireAdmin(ctx, adminID); err != nil {
		return nil, err
	}
	codes, err := a.Commerce.ListPromos(ctx)
	if err != nil {
		return nil, err
	}
	out := make([]PromoUsage, 0, len(codes))
	for _, c := range codes {
		u := PromoUsage{PromoCode: c, OrdersByStatus: map[string]int{}}
		rows, err := a.DB.R.QueryContext(ctx, `SELECT status, count(*), sum(discount_cents) FROM orders WHERE promo_code = ? GROUP BY status`, c.Code)
		if err != nil {
			return nil, err
		}
		for rows.Next() {
			var st string
			var n int
			var disc int64
			if err := rows.Scan(&st, &n, &disc); err != nil {
				rows.Close()
				return nil, err
			}
			u.OrdersByStatus[st] = n
			if st == "paid" {
				u.PaidDiscount = disc
			}
		}
		rows.Close()
		out = append(out, u)
	}
	return out, nil
}

// AdminOrder is an order in the site team's list.
type AdminOrder struct {
	Number     string `json:"number"`
	UserEmail  string `json:"user_email"`
	Status     string `json:"status"`
	StatusNote string `json:"status_note,omitempty"`
	TotalCents int64  `json:"total_cents"`
	Currency   string `json:"currency"`
	PromoCode  string `json:"promo_code,omitempty"`
	Provider   string `json:"provider"`
	CreatedAt  string `json:"created_at"`
	PaidAt     string `json:"paid_at,omitempty"`
}

// AdminOrders lists orders newest first, optionally of one status.
func (a *Service) AdminOrders(ctx context.Context, adminID int64, status string, p AdminPage) (kernel.Page[AdminOrder], error) {
	var out kernel.Page[AdminOrder]
	if err := a.requireAdmin(ctx, adminID); err != nil {
		return out, err
	}
	page, per, off, err := p.norm()
	if err != nil {
		return out, err
	}
	if status != "" && !slices.Contains([]string{"pending", "paid", "failed", "expired", "canceled", "refunded"}, status) {
		return out, ops.Invalid("status", "must be pending, paid, failed, expired, canceled or refunded")
	}
	out = kernel.Page[AdminOrder]{Items: []AdminOrder{}, Page: page, PerPage: per}
	if out.Total, err = a.DB.Count(ctx, `SELECT count(*) FROM orders WHERE ? = '' OR status = ?`, status, status); err != nil {
		return out, err
	}
	rows, err := a.DB.R.QueryContext(ctx, `SELECT o.number, u.email, o.status, o.status_note, o.total_cents, o.currency, o.promo_code,
		o.provider, o.created_at, coalesce(o.paid_at,'') FROM orders o JOIN users u ON u.id = o.user_id
		WHERE ? = '' OR o.status = ? ORDER BY o.id DESC LIMIT ? OFFSET ?`, status, status, per, off)
	if err != nil {
		return out, err
	}
	defer rows.Close()
	for rows.Next() {
		var o AdminOrder
		if err := rows.Scan(&o.Number, &o.UserEmail, &o.Status, &o.StatusNote, &o.TotalCents, &o.Currency, &o.PromoCode,
			&o.Provider, &o.CreatedAt, &o.PaidAt); err != nil {
			return out, err
		}
		out.Items = append(out.Items, o)
	}
	return out, rows.Err()
}

// AdminRefund marks a paid order refunded after the provider refunded it.
func (a *Service) AdminRefund(ctx context.Context, adminID int64, number, note string) error {
	note = strings.TrimSpace(note)
	if utf8.RuneCountInString(note) > maxModerationReason {
		return ops.Invalid("note", "must be at most 500 characters")
	}
	if note == "" {
		note = "refunded by the site team"
	}
	return a.adminTx(ctx, adminID, func(tx *sql.Tx) error {
		var status string
		if err := tx.QueryRowContext(ctx, `SELECT status FROM orders WHERE number = ?`, number).Scan(&status); err != nil {
			return kernel.NotFound(err, "order")
		}
		if status != "paid" {
			return ops.Invalid("number", "only a paid order can be marked refunded; this one is %s", status)
		}
		if _, err := tx.ExecContext(ctx, `UPDATE orders SET status = 'refunded', status_note = ?, updated_at = ? WHERE number = ?`,
			note, a.NowText(), number); err != nil {
			return err
		}
		return a.audit(ctx, tx, adminID, "refund_order", "order "+number, map[string]any{"status": status},
			map[string]any{"status": "refunded", "note": note})
	})
}
