package commerce

import (
	"bytes"
	"context"
	"fmt"
	"strings"
	"time"

	"github.com/go-pdf/fpdf"
)

// invoicePDF draws an issued invoice on one A4 page (more when the lines
// need them) with the PDF core fonts, so the binary carries no font files.
// The core fonts are cp1252: the translator maps € and accented letters.
func (a *Service) invoicePDF(ctx context.Context, inv *Invoice) ([]byte, error) {
	o := inv.order
	pdf := fpdf.New("P", "mm", "A4", "")
	issued, _ := time.Parse(time.RFC3339, inv.IssuedAt)
	pdf.SetCreationDate(issued)
	pdf.SetModificationDate(issued)
	pdf.SetTitle("Invoice "+inv.Number, true)
	pdf.SetAuthor(inv.Seller.Name, true)
	pdf.SetCreator(a.SiteName(ctx), true)
	pdf.SetMargins(18, 18, 18)
	pdf.SetAutoPageBreak(true, 18)
	pdf.AddPage()
	tr := pdf.UnicodeTranslatorFromDescriptor("")
	text := func(style string, size float64, s string) {
		pdf.SetFont("Helvetica", style, size)
		pdf.MultiCell(0, size*0.5, tr(s), "", "L", false)
	}
	text("B", 18, "VAT invoice "+inv.Number)
	pdf.Ln(2)
	text("", 10, "Date of issue: "+invoiceDate(inv.IssuedAt))
	if o.PaidAt != nil {
		text("", 10, "Date of supply and payment: "+invoiceDate(*o.PaidAt))
	}
	text("", 10, "Order: "+o.Number)
	pdf.Ln(4)
	party := func(title string, p Party) {
		text("B", 11, title)
		lines := []string{p.Name}
		lines = append(lines, strings.Split(strings.ReplaceAll(p.Address, "\r\n", "\n"), "\n")...)
		if p.Country != "" {
			lines = append(lines, "Country: "+p.Country)
		}
		if p.VATNumber != "" {
			lines = append(lines, "VAT number: "+p.VATNumber)
		}
		if p.Email != "" {
			lines = append(lines, p.Email)
		}
		for _, l := range lines {
			if strings.TrimSpace(l) != "" {
				text("", 10, l)
			}
		}
		pdf.Ln(3)
	}
	party("Seller", inv.Seller)
	party("Customer", inv.Buyer)
	money := func(c int64) string { return fmt.Sprintf("%s %d.%02d", o.Currency, c/100, c%100) }
	widths := []float64{80, 26, 26, 16, 26}
	row := func(style string, cells ...string) {
		pdf.SetFont("Helvetica", style, 9)
		for i, c := range cells {
			align := "R"
			if i == 0 {
				align = "L"
			}
			pdf.CellFormat(widths[i], 7, tr(c), "B", 0, align, false, 0, "")
		}
		pdf.Ln(-1)
	}
	row("B", "Description", "Net", "Discount", "VAT %", "VAT")
	for _, l := range o.Lines {
		d := l.Name
		if l.ListingName != "" {
			d += " for " + l.ListingName
		}
		if l.Week != nil {
			d += ", week of " + *l.Week
		}
		if len(d) > 60 {
			d = d[:57] + "..."
		}
		row("", d, money(l.NetCents), money(l.DiscountCents), l.VATRate, money(l.VATCents))
	}
	pdf.Ln(3)
	total := func(label, v string, style string) {
		pdf.SetFont("Helvetica", style, 10)
		pdf.CellFormat(widths[0]+widths[1]+widths[2]+widths[3], 6, tr(label), "", 0, "R", false, 0, "")
		pdf.CellFormat(widths[4], 6, tr(v), "", 1, "R", false, 0, "")
	}
	total("Subtotal (net)", money(o.SubtotalCents), "")
	if o.DiscountCents > 0 {
		total("Discount"+promoLabel(o.PromoCode), "-"+money(o.DiscountCents), "")
	}
	total("Taxable amount", money(o.TaxableCents), "")
	total("VAT "+o.VAT.Rate+" %", money(o.VATCents), "")
	total("Total paid", money(o.TotalCents), "B")
	pdf.Ln(5)
	text("", 10, inv.Wording)
	if o.VAT.Note != "" && o.VAT.Note != inv.Wording {
		text("", 9, o.VAT.Note)
	}
	var buf bytes.Buffer
	if err := pdf.Output(&buf); err != nil {
		return nil, err
	}
	return buf.Bytes(), nil
}

func promoLabel(code string) string {
	if code == "" {
		return ""
	}
	return " (promo code " + code + ")"
}
