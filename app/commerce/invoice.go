package commerce

import (
	"context"
	"database/sql"
	"encoding/json"
	"fmt"
	"strings"

	"launchdir/app/kernel"
	"launchdir/app/vat"
	"launchdir/ops"
)

// VAT invoices (issue 22). Every paid order gets one invoice, issued in
// the payment's transaction with the next number of one gap-free
// sequence; the seller's and buyer's details are frozen on it. The PDF is
// drawn from the stored invoice each time it is asked for (invoice_pdf.go),
// so the same invoice always reads the same.

// Seller settings: the site team sets them in the settings table (keys
// below); the seller's name defaults to the site's name.
const (
	SettingSellerName    = "invoice_seller_name"
	SettingSellerAddress = "invoice_seller_address"
	SettingSellerVAT     = "invoice_seller_vat_number"
	SettingSellerEmail   = "invoice_seller_email"
)

// Party is a seller or buyer as printed on an invoice.
type Party struct {
	Name      string `json:"name"`
	Address   string `json:"address,omitempty"`
	Country   string `json:"country,omitempty"`
	Email     string `json:"email,omitempty"`
	VATNumber string `json:"vat_number,omitempty"`
}

// Invoice is an issued invoice with its order.
type Invoice struct {
	Number    string `json:"number" doc:"Invoice number: INV- and a gap-free sequence."`
	Sequence  int64  `json:"sequence"`
	Order     string `json:"order"`
	IssuedAt  string `json:"issued_at" format:"date-time"`
	Seller    Party  `json:"seller"`
	Buyer     Party  `json:"buyer"`
	Wording   string `json:"vat_wording" doc:"The VAT statement printed on the invoice (e.g. reverse charge)."`
	PDFBase64 string `json:"pdf_base64,omitempty" doc:"The invoice as a PDF, base64-encoded."`

	order *Order
}

// InvoiceNumber formats a sequence number.
func InvoiceNumber(seq int64) string { return fmt.Sprintf("INV-%06d", seq) }

// issueInvoice gives a just-paid order its invoice inside the payment tx.
func (a *Service) issueInvoice(ctx context.Context, tx *sql.Tx, orderID int64) (int64, error) {
	o, err := loadOrder(ctx, tx, `WHERE o.id = ?`, orderID)
	if err != nil {
		return 0, err
	}
	seller := a.seller(ctx, tx)
	buyer := Party{Name: o.Billing.Name, Address: o.Billing.Address, Country: o.VAT.Country, Email: firstOf(o.Billing.Email, o.UserEmail),
		VATNumber: o.VAT.VATNumber}
	sb, _ := json.Marshal(seller)
	bb, _ := json.Marshal(buyer)
	var seq int64
	err = tx.QueryRowContext(ctx, `INSERT INTO invoices(number, order_id, issued_at, seller, buyer)
		VALUES((SELECT coalesce(max(number), 0) + 1 FROM invoices), ?, ?, ?, ?) RETURNING number`,
		orderID, a.NowText(), string(sb), string(bb)).Scan(&seq)
	return seq, err
}

func firstOf(a, b string) string {
	if strings.TrimSpace(a) != "" {
		return a
	}
	return b
}

// seller reads the seller's details from the settings.
func (a *Service) seller(ctx context.Context, q kernel.Querier) Party {
	get := func(key, def string) string {
		var v string
		if err := q.QueryRowContext(ctx, `SELECT value FROM settings WHERE key = ?`, key).Scan(&v); err != nil || v == "" {
			return def
		}
		return v
	}
	return Party{Name: get(SettingSellerName, a.Cfg.SiteName), Address: get(SettingSellerAddress, ""),
		VATNumber: get(SettingSellerVAT, ""), Email: get(SettingSellerEmail, "")}
}

// vatWording is the statement the invoice must carry for its treatment.
func vatWording(v vat.VATInfo) string {
	switch v.Treatment {
	case vat.VATReverseCharge:
		return "Reverse charge: VAT to be accounted for by the recipient (Article 196, Council Directive 2006/112/EC)."
	case vat.VATEUConsumer:
		return "VAT charged at " + v.Rate + " % (" + v.Country + "), the rate of the customer's member state for electronically supplied services."
	case vat.VATOutsideEU:
		return "VAT not charged: electronically supplied services to a customer outside the EU (place of supply outside the EU)."
	default:
		return "VAT not charged: no billing country was given."
	}
}

// InvoiceFor is the invoice of one of userID's paid orders (another
// person's order, or one without an invoice, is not found), with its PDF.
func (a *Service) InvoiceFor(ctx context.Context, userID int64, number string) (*Invoice, []byte, error) {
	o, err := loadOrder(ctx, a.DB.R, `WHERE o.number = ? AND o.user_id = ?`, number, userID)
	if err != nil {
		return nil, nil, kernel.NotFound(err, "order "+number)
	}
	inv, err := loadInvoice(ctx, a.DB.R, o)
	if err != nil {
		return nil, nil, err
	}
	pdf, err := a.invoicePDF(inv)
	if err != nil {
		return nil, nil, err
	}
	return inv, pdf, nil
}

// loadInvoice reads the invoice issued for order o.
func loadInvoice(ctx context.Context, q kernel.Querier, o *Order) (*Invoice, error) {
	var inv Invoice
	var seller, buyer string
	err := q.QueryRowContext(ctx, `SELECT number, issued_at, seller, buyer FROM invoices WHERE order_id = ?`, o.ID).
		Scan(&inv.Sequence, &inv.IssuedAt, &seller, &buyer)
	if err == sql.ErrNoRows {
		return nil, &ops.Error{Code: ops.CodeNotFound, Detail: "order " + o.Number + " has no invoice: invoices are issued when an order is paid"}
	}
	if err != nil {
		return nil, err
	}
	json.Unmarshal([]byte(seller), &inv.Seller)
	json.Unmarshal([]byte(buyer), &inv.Buyer)
	inv.Number, inv.Order, inv.Wording, inv.order = InvoiceNumber(inv.Sequence), o.Number, vatWording(o.VAT), o
	return &inv, nil
}

// receipt queues the buyer's receipt in the payment transaction: order,
// lines, VAT, billing details and where to download the invoice.
func (a *Service) receipt(ctx context.Context, tx *sql.Tx, orderID, seq int64) error {
	o, err := loadOrder(ctx, tx, `WHERE o.id = ?`, orderID)
	if err != nil {
		return err
	}
	money := func(c int64) string { return fmt.Sprintf("%s %d.%02d", o.Currency, c/100, c%100) }
	var lines strings.Builder
	for _, l := range o.Lines {
		name := l.Name
		if l.ListingName != "" {
			name += " for " + l.ListingName
		}
		if l.Week != nil {
			name += ", week of " + *l.Week
		}
		fmt.Fprintf(&lines, "- %s: %s net, VAT %s %% %s\n", name, money(l.TaxableCents), l.VATRate, money(l.VATCents))
	}
	link := a.Cfg.BaseURL + "/me/orders/" + o.Number + "/invoice.pdf"
	billing := strings.TrimSpace(strings.Join([]string{o.Billing.Name, o.Billing.Address, o.VAT.Country, o.VAT.VATNumber}, "\n"))
	text := "Thank you for your payment. Your receipt (the VAT invoice is attached as a PDF):\n\nOrder " + o.Number + ", invoice " + InvoiceNumber(seq) + "\n\n" + lines.String() +
		"\nNet " + money(o.TaxableCents) + "\nVAT (" + o.VAT.Rate + " %) " + money(o.VATCents) + "\nTotal paid " + money(o.TotalCents) +
		"\n\n" + vatWording(o.VAT) + "\n\nBilled to:\n" + firstOf(billing, o.UserEmail) + "\n\nYour VAT invoice (PDF): " + link + "\n\n-- \n" +
		a.Cfg.SiteName + " " + a.Cfg.BaseURL + "\n"
	html := a.HTMLEmail(kernel.Paragraph("Thank you for your payment. Your receipt for order "+o.Number+" (invoice "+InvoiceNumber(seq)+"):") +
		`<pre style="font-family:inherit;white-space:pre-wrap;margin:0 0 16px">` + kernel.Escape(lines.String()) + "</pre>" +
		kernel.Paragraph("Net "+money(o.TaxableCents)+"\nVAT ("+o.VAT.Rate+" %) "+money(o.VATCents)+"\nTotal paid "+money(o.TotalCents)) +
		kernel.Paragraph(vatWording(o.VAT)) + kernel.Paragraph("Billed to:\n"+firstOf(billing, o.UserEmail)) +
		kernel.ButtonHTML(link, "Download the VAT invoice (PDF)"))
	inv, err := loadInvoice(ctx, tx, o)
	if err != nil {
		return err
	}
	pdf, err := a.invoicePDF(inv)
	if err != nil {
		return err
	}
	return a.EnqueueMessage(ctx, tx, kernel.Email{Kind: "receipt", To: firstOf(o.Billing.Email, o.UserEmail),
		Subject: "Receipt for order " + o.Number + " (invoice " + InvoiceNumber(seq) + ")", Text: text, HTML: html,
		Attachments: []kernel.Attachment{{Name: inv.Number + ".pdf", ContentType: "application/pdf", Data: pdf}}})
}

// invoiceDate is an RFC 3339 time as a date.
func invoiceDate(s string) string { return kernel.HumanDate(s) }

// emitPaid sends order.paid to the buyer's webhooks and the site team's.
func (a *Service) emitPaid(ctx context.Context, tx *sql.Tx, orderID, seq int64) error {
	o, err := loadOrder(ctx, tx, `WHERE o.id = ?`, orderID)
	if err != nil {
		return err
	}
	var lines []map[string]any
	for _, l := range o.Lines {
		lines = append(lines, map[string]any{"product": l.Product, "listing_id": l.ListingID, "week": l.Week, "total_cents": l.TotalCents})
	}
	return a.EmitEvent(ctx, tx, kernel.Event{Type: "order.paid", UserID: o.UserID, Data: map[string]any{"order": map[string]any{
		"number": o.Number, "currency": o.Currency, "total_cents": o.TotalCents, "vat_cents": o.VATCents, "invoice": InvoiceNumber(seq),
		"lines": lines}}})
}
