package commerce

import (
	"context"
	"database/sql"
	"encoding/base64"
	"fmt"

	"launchdir/app/kernel"
	"launchdir/app/vat"
	"launchdir/db"
	"launchdir/ops"
)

// Order input schemas (spec sections 4 and 8).
var (
	orderWeekSchema = ops.Pattern(`^[0-9]{4}-[0-9]{2}-[0-9]{2}$`, 10).
			Desc("Launch week: its Monday as YYYY-MM-DD, one of the weeks list_products lists. launch: optional (omitted = live now); featured, launch_bundle, relaunch: required.")
	orderOptionsSchema = (&ops.Schema{Type: "object", Values: ops.Str(100), MaxProps: 20}).
				Desc("Product options (max 20), e.g. {\"placement\":\"homepage\"}; allowed values are in list_products. Omitted options take their first value.")
	orderItemSchema = ops.Obj(
		ops.R("product", ops.Str(60).Min1().Desc("Product code from list_products: launch, featured, done_for_you, launch_bundle, extra_categories, relaunch, ai_review, billboard_min, trophy_cabinet, trophy_plaque.")),
		ops.P("listing_id", ops.IntMin(1).Desc("One of your listings; required where the product has needs_listing=true.")),
		ops.P("week", orderWeekSchema),
		ops.P("amount_cents", ops.Int(1, MaxAmountCents).Desc("billboard_min only: the contribution in cents, at least the product's price (the minimum).")),
		ops.P("categories", ops.Arr(ops.Str(120).Min1().Desc("A category slug (e.g. developer-tools) or its name (e.g. Developer Tools, any case)."), 10).
			Desc("extra_categories only: categories by slug or name as list_categories shows them, up to 3 extra per listing besides the primary. Order lines show slugs.")),
		ops.P("options", orderOptionsSchema),
	)
	orderBody = ops.Obj(
		ops.R("items", ops.Arr(orderItemSchema, maxOrderItems).Min1().Desc("1 to 20 order lines.")),
		ops.P("billing_country", kernel.Country2.Desc("Billing country, ISO 3166-1 alpha-2, for the VAT preview.")),
		ops.P("vat_number", ops.Str(32).Desc("EU business VAT number (with or without country prefix): reverse charge when valid.")),
		ops.P("promo_code", ops.Str(40).Desc("Promo code exactly as typed. Unusable codes are refused with the reason; wrong guesses are rate-limited.")),
	)
	orderNumberSchema = ops.Pattern(`^LD-[0-9]{4}-[0-9]{6,9}$`, 32).Desc("Order number, e.g. LD-2026-000123.")
)

// Operations: list_products, quote_order, create_checkout, list_my_orders, get_order.
func (a *Service) Operations() []*ops.Operation {
	return []*ops.Operation{
		{ID: "list_products", Output: ops.Out[Products](), Method: "GET", Path: "/products", Toolset: "orders",
			Summary: "Products, prices and bookable weeks",
			Description: "Every product with name, description, price_cents (net of VAT) and currency, needs_listing, options with allowed values, " +
				"and for week-bound products the next bookable weeks (Mondays) with free capacity.",
			Handler: a.listProducts},
		{ID: "quote_order", Output: ops.Out[QuoteResult](), Method: "POST", Path: "/orders/quote", Toolset: "orders", Scope: ops.ScopeOrdersWrite, Body: orderBody,
			Summary: "Price an order with VAT preview and promo code; nothing is saved",
			Description: "Validates every item (product, your listing, week, capacity, categories, billboard minimum, options), applies the promo code " +
				"before VAT and previews VAT: EU consumers pay their country's rate, EU businesses with a valid VAT number reverse charge, outside the EU 0%.",
			Handler: a.quoteOrder},
		{ID: "create_checkout", Output: ops.Out[Order](), Location: "/orders/{number}", Method: "POST", Path: "/orders/checkout", Toolset: "orders", Scope: ops.ScopeOrdersWrite, Body: orderBody,
			Status: 201, Idem: true,
			Summary: "Build an order and get its checkout_url",
			Description: "Prices the items like quote_order, freezes them into a pending order and returns its number and checkout_url: a secure page " +
				"where the person reviews, enters billing details and pays (card, wallet, PayPal or crypto). Give the link to the user; card details never pass " +
				"through the API. get_order shows the status after payment. Send an Idempotency-Key to make retries safe.",
			Handler: a.createCheckout},
		{ID: "list_my_orders", Output: ops.Out[kernel.Page[Order]](), Method: "GET", Path: "/orders", Toolset: "orders", Scope: ops.ScopeAccountRead, Paginated: true,
			Summary:     "Your orders, newest first",
			Description: "Your orders, newest first, with status, lines, totals and VAT; pending orders carry their checkout_url.", Handler: a.listMyOrders},
		{ID: "get_order", Output: ops.Out[Order](), Method: "GET", Path: "/orders/:number", Toolset: "orders", Scope: ops.ScopeAccountRead,
			Summary:     "One of your orders and its status",
			Description: "Status is pending, paid, failed, expired, canceled or refunded; lines, totals, VAT and, while pending, checkout_url.",
			Params:      []ops.Param{kernel.PathParam("number", orderNumberSchema)}, Handler: a.getOrder},
		{ID: "cancel_order", Output: ops.Out[Order](), Method: "POST", Path: "/me/orders/:number/cancel", Toolset: "orders", Scope: ops.ScopeOrdersWrite,
			Idem: true, Destructive: true,
			Summary:     "Cancel one of your unpaid orders",
			Description: "A pending order becomes canceled: its checkout link stops working and the weeks and slots it held are free again. A paid, failed, expired or canceled order is refused with its status.",
			Params:      []ops.Param{kernel.PathParam("number", orderNumberSchema)}, Handler: a.cancelOrder},
		{ID: "get_invoice", Output: ops.Out[Invoice](), Method: "GET", Path: "/orders/:number/invoice", Toolset: "orders", Scope: ops.ScopeAccountRead,
			Summary:     "The VAT invoice of one of your paid orders",
			Description: "Invoice number (gap-free sequence), issue date, seller and customer details with VAT numbers, the VAT wording (reverse charge where it applies) and the PDF as pdf_base64. Orders not paid have no invoice (404).",
			Params:      []ops.Param{kernel.PathParam("number", orderNumberSchema)}, Handler: a.getInvoice},
	}
}

func (a *Service) getInvoice(ctx context.Context, in *ops.Input) (any, error) {
	inv, pdf, err := a.InvoiceFor(ctx, in.UserID(), in.Str("number"))
	if err != nil {
		return nil, err
	}
	inv.PDFBase64 = base64.StdEncoding.EncodeToString(pdf)
	return inv, nil
}

// prepareOrder runs the checks that come before pricing: the promo guess
// limit and the VAT number (which may ask VIES, so never inside a write
// transaction).
// The caller must call the returned release func when pricing is done.
func (a *Service) prepareOrder(ctx context.Context, in *ops.Input) (*OrderRequest, vat.VATInfo, []ops.FieldError, func(), error) {
	req, err := decodeOrderRequest(in)
	if err != nil {
		return nil, vat.VATInfo{}, nil, nil, err
	}
	release := func() {}
	if req.PromoCode != "" {
		gate := &a.orderState().promoGate
		gate.Lock()
		release = gate.Unlock
		if retry, blocked := a.promoBlocked(in.UserID()); blocked {
			release()
			return nil, vat.VATInfo{}, nil, nil, promoRateLimited(retry)
		}
	}
	vat, vatErrs := a.VAT.For(ctx, req.BillingCountry, req.VATNumber)
	return req, vat, vatErrs, release, nil
}

func (a *Service) quoteOrder(ctx context.Context, in *ops.Input) (any, error) {
	req, vat, vatErrs, release, err := a.prepareOrder(ctx, in)
	if err != nil {
		return nil, err
	}
	defer release()
	q, err := a.priceOrder(ctx, a.DB.R, in.UserID(), req, vat, vatErrs)
	if err != nil {
		return nil, err
	}
	return QuoteResult{Quote: *q, Saved: false,
		Note: "A preview: nothing was saved or charged. create_checkout with the same body builds the order at the then current prices."}, nil
}

// createCheckout runs in two atomic phases, Stripe's way: the order (its
// transaction also records the order number as the idempotency key's
// recovery point), then the payment step and the response (stored in the
// final transaction with the checkout URL). A retry of a key whose process
// died between them resumes at the payment step with the same order
// instead of answering "effect committed, response lost".
func (a *Service) createCheckout(ctx context.Context, in *ops.Input) (any, error) {
	number := ""
	if c, ok := ops.IdemClaimFrom(ctx); ok {
		number = c.Recovery
	}
	if number == "" {
		var err error
		if number, err = a.placeOrder(ctx, in); err != nil {
			return nil, err
		}
	}
	o, err := a.OrderByNumber(ctx, number)
	if err != nil {
		return nil, err
	}
	checkoutURL, ref := a.TestCheckoutURL(o.CheckoutToken), ""
	prov := a.paymentProvider()
	switch {
	case o.Status != "pending": // paid (nothing to pay) before a resume
	case o.TotalCents == 0:
		// Nothing to pay: the order is paid at once.
		if _, err := a.ConfirmPayment(ctx, number, "none", "free"); err != nil {
			return nil, err
		}
	case prov != nil:
		checkoutURL, ref, err = prov.CreateSession(ctx, o)
		if err != nil {
			a.Log.Error("payment provider", "provider", prov.Name(), "order", number, "err", err)
			if _, ferr := a.FailPayment(context.WithoutCancel(ctx), number, "the payment provider could not start a checkout"); ferr != nil {
				a.Log.Error("fail order", "order", number, "err", ferr)
			}
			return nil, &ops.Error{Code: ops.CodeUnavailable, Detail: "the payment provider could not start a checkout; retry shortly"}
		}
	}
	var v *Order
	err = a.DB.Tx(ctx, func(tx *sql.Tx) error {
		if _, err := tx.ExecContext(ctx, `UPDATE orders SET checkout_url = ?, provider_ref = CASE WHEN ? <> '' THEN ? ELSE provider_ref END WHERE number = ?`,
			checkoutURL, ref, ref, number); err != nil {
			return err
		}
		o, err := loadOrder(ctx, tx, `WHERE o.number = ?`, number)
		if err != nil {
			return err
		}
		v = o.publicView()
		if o.Status == "paid" {
			v.CheckoutURL = checkoutURL // the page shows the receipt
		}
		return kernel.RespondInTx(ctx, tx, v)
	})
	if err != nil {
		return nil, err
	}
	return v, nil
}

// placeOrder prices the request and inserts the pending order (phase one
// of createCheckout), returning its number.
func (a *Service) placeOrder(ctx context.Context, in *ops.Input) (string, error) {
	req, vat, vatErrs, release, err := a.prepareOrder(ctx, in)
	if err != nil {
		return "", err
	}
	defer release()
	if req.BillingCountry == "" {
		// A quote may leave VAT open; an order must not, or an EU consumer
		// would pay no VAT.
		return "", ops.Invalid("billing_country", "is required to build an order: VAT depends on the buyer's country")
	}
	provName := "test"
	if prov := a.paymentProvider(); prov != nil {
		provName = prov.Name()
	}
	var number string
	err = a.DB.Tx(ctx, func(tx *sql.Tx) error {
		q, err := a.priceOrder(ctx, tx, in.UserID(), req, vat, vatErrs)
		if err != nil {
			return err
		}
		if number, _, err = a.insertOrder(ctx, tx, in.UserID(), q, provName); err != nil {
			return err
		}
		return db.SetIdemRecovery(ctx, tx, number)
	})
	return number, err
}

func (a *Service) listMyOrders(ctx context.Context, in *ops.Input) (any, error) {
	off, limit := kernel.Offset(in)
	uid := in.UserID()
	total, err := a.DB.Count(ctx, `SELECT count(*) FROM orders WHERE user_id = ?`, uid)
	if err != nil {
		return nil, err
	}
	rows, err := a.DB.R.QueryContext(ctx, `SELECT `+orderCols+`WHERE o.user_id = ? ORDER BY o.id DESC LIMIT ? OFFSET ?`, uid, limit, off)
	if err != nil {
		return nil, err
	}
	var list []*Order
	for rows.Next() {
		o, err := scanOrder(rows)
		if err != nil {
			rows.Close()
			return nil, err
		}
		list = append(list, o)
	}
	rows.Close()
	if err := rows.Err(); err != nil {
		return nil, err
	}
	if err := loadOrderLines(ctx, a.DB.R, list); err != nil {
		return nil, err
	}
	items := make([]*Order, len(list))
	for i, o := range list {
		items[i] = o.publicView()
	}
	return kernel.NewPage(in, items, total), nil
}

func (a *Service) cancelOrder(ctx context.Context, in *ops.Input) (any, error) {
	number := in.Str("number")
	o, err := loadOrder(ctx, a.DB.R, `WHERE o.number = ? AND o.user_id = ?`, number, in.UserID())
	if err != nil {
		return nil, kernel.NotFound(err, fmt.Sprintf("order %s", number))
	}
	// One transaction: the key records the effect and the canceled order
	// is stored as the response with it.
	var out *Order
	err = a.DB.Tx(ctx, func(tx *sql.Tx) error {
		res, err := tx.ExecContext(ctx, `UPDATE orders SET status = 'canceled', status_note = 'canceled by you', updated_at = ? WHERE number = ? AND status = 'pending'`,
			a.NowText(), number)
		if err != nil {
			return err
		}
		n, _ := res.RowsAffected()
		if o, err = loadOrder(ctx, tx, `WHERE o.number = ? AND o.user_id = ?`, number, in.UserID()); err != nil {
			return err
		}
		if n != 1 {
			return ops.Invalid("number", "order %s is %s; only an unpaid (pending) order can be canceled", number, o.Status)
		}
		out = o.publicView()
		return kernel.RespondInTx(ctx, tx, out)
	})
	if err != nil {
		return nil, err
	}
	return out, nil
}

func (a *Service) getOrder(ctx context.Context, in *ops.Input) (any, error) {
	o, err := loadOrder(ctx, a.DB.R, `WHERE o.number = ? AND o.user_id = ?`, in.Str("number"), in.UserID())
	if err != nil {
		return nil, kernel.NotFound(err, fmt.Sprintf("order %s", in.Str("number")))
	}
	return o.publicView(), nil
}
