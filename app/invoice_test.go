package app_test

import (
	"bytes"
	"compress/zlib"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"io"
	"regexp"
	"sort"
	"strings"
	"sync"
	"testing"

	"launchdir/apitest"
	"launchdir/app/commerce"
)

// pdfText extracts the text a PDF shows: every content stream inflated,
// every string its text operators (Tj, TJ) draw, in order. Written from
// the PDF specification (7.3.4.2 literal strings, 9.4.3 text operators)
// for the invoices fpdf draws.
func pdfText(t *testing.T, pdf []byte) string {
	t.Helper()
	if !bytes.HasPrefix(pdf, []byte("%PDF-")) {
		t.Fatalf("not a PDF: %.20q", pdf)
	}
	streams := regexp.MustCompile(`(?s)stream\r?\n(.*?)\r?\nendstream`).FindAllSubmatch(pdf, -1)
	var out strings.Builder
	for _, s := range streams {
		content := s[1]
		if r, err := zlib.NewReader(bytes.NewReader(content)); err == nil {
			if b, err := io.ReadAll(r); err == nil {
				content = b
			}
		}
		for _, m := range regexp.MustCompile(`\(((?:\\.|[^\\)])*)\)\s*Tj`).FindAllSubmatch(content, -1) {
			out.WriteString(unescapePDF(string(m[1])))
			out.WriteByte('\n')
		}
	}
	return out.String()
}

func unescapePDF(s string) string {
	r := strings.NewReplacer(`\(`, "(", `\)`, ")", `\\`, `\`, `\n`, "\n", `\r`, "")
	return r.Replace(s)
}

// checkoutAndPay creates an order as the owner with billing details and
// returns its number (not yet paid).
func checkoutFor(t *testing.T, e *adminEnv, country, vat, name string) string {
	t.Helper()
	body := map[string]any{"items": []any{apitest.OrderItem("ai_review", "listing_id", 1)}, "billing_country": country}
	if vat != "" {
		body["vat_number"] = vat
	}
	r := e.Do("POST", "/api/v1/orders/checkout", body, e.owner...)
	if r.Status != 201 {
		t.Fatalf("checkout: %d %s", r.Status, r.Body)
	}
	number := r.JSON()["number"].(string)
	o, err := e.App.Commerce.OrderByNumber(bg, number)
	if err != nil {
		t.Fatal(err)
	}
	err = e.App.Commerce.SetOrderBilling(bg, o.CheckoutToken, commerce.OrderBilling{Name: name, Email: "billing@buyer.example",
		Address: "Hauptstraße 1\n10115 Berlin", Country: country, VATNumber: vat})
	if err != nil {
		t.Fatal(err)
	}
	return number
}

func TestInvoicePDFAndReceipt(t *testing.T) {
	e := newAdminEnv(t)
	e.DB.W.Exec(`INSERT INTO settings(key, value) VALUES ('invoice_seller_name', 'Launchdir Ltd'), ('invoice_seller_address', '1 Market Street, Dublin'),
		('invoice_seller_vat_number', 'EU372000041')`)
	business := checkoutFor(t, e, "DE", "DE123456789", "Müller GmbH")
	// Not paid yet: no invoice.
	if r := e.Do("GET", "/api/v1/orders/"+business+"/invoice", nil, e.owner...); r.Status != 404 {
		t.Fatalf("pending invoice: %d", r.Status)
	}
	if _, err := e.App.Commerce.ConfirmPayment(bg, business, "test", "t"); err != nil {
		t.Fatal(err)
	}
	r := e.Do("GET", "/api/v1/orders/"+business+"/invoice", nil, e.owner...)
	if r.Status != 200 {
		t.Fatalf("invoice: %d %s", r.Status, r.Body)
	}
	pdf, _ := base64.StdEncoding.DecodeString(r.JSON()["pdf_base64"].(string))
	text := pdfText(t, pdf)
	for _, want := range []string{"VAT invoice INV-000001", "Order: " + business, "Launchdir Ltd", "1 Market Street, Dublin", "VAT number: EU372000041",
		"M\xfcller GmbH", "Hauptstra\xdfe 1", "VAT number: DE123456789", "Country: DE", "Reverse charge: VAT to be accounted for by the recipient",
		"Total paid", "VAT 0 %"} {
		if !strings.Contains(text, want) {
			t.Errorf("invoice text lacks %q:\n%s", want, text)
		}
	}
	// Another person's order is not found.
	if r := e.Do("GET", "/api/v1/orders/"+business+"/invoice", nil, e.other...); r.Status != 404 {
		t.Fatalf("another's invoice: %d", r.Status)
	}
	// The receipt: order, lines, VAT, billing details, the invoice link.
	var subject, body string
	e.DB.R.QueryRow(`SELECT subject, body FROM outbox WHERE kind = 'receipt' AND to_addr = 'billing@buyer.example'`).Scan(&subject, &body)
	for _, want := range []string{business, "INV-000001", "VAT (0 %)", "Reverse charge", "Müller GmbH", "/me/orders/" + business + "/invoice.pdf"} {
		if !strings.Contains(subject+body, want) {
			t.Errorf("receipt lacks %q: %s\n%s", want, subject, body)
		}
	}
	// The receipt carries the same invoice as a PDF attachment.
	var attachments string
	e.DB.R.QueryRow(`SELECT attachments FROM outbox WHERE kind = 'receipt' AND to_addr = 'billing@buyer.example'`).Scan(&attachments)
	var files []struct {
		Name        string `json:"name"`
		ContentType string `json:"content_type"`
		Data        []byte `json:"data"`
	}
	json.Unmarshal([]byte(attachments), &files)
	if len(files) != 1 || files[0].Name != "INV-000001.pdf" || files[0].ContentType != "application/pdf" ||
		!strings.Contains(pdfText(t, files[0].Data), "VAT invoice INV-000001") {
		t.Fatalf("receipt attachment: %.200s", attachments)
	}
	// A consumer in Germany pays German VAT; the invoice says so.
	consumer := checkoutFor(t, e, "DE", "", "Max Muster")
	e.App.Commerce.ConfirmPayment(bg, consumer, "test", "t")
	inv, pdf, err := e.App.Commerce.InvoiceFor(bg, 1, consumer)
	if err != nil || inv.Number != "INV-000002" {
		t.Fatalf("second invoice: %+v %v", inv, err)
	}
	if text := pdfText(t, pdf); !strings.Contains(text, "VAT charged at 19 % (DE)") || !strings.Contains(text, "VAT 19 %") {
		t.Errorf("consumer invoice:\n%s", text)
	}
}

// TestInvoiceNumbersGapFreeUnderConcurrentPayments: 16 payments at once
// take 16 consecutive numbers, one each.
func TestInvoiceNumbersGapFreeUnderConcurrentPayments(t *testing.T) {
	e := newAdminEnv(t)
	var numbers []string
	for i := range 16 {
		numbers = append(numbers, checkoutFor(t, e, "US", "", fmt.Sprint("Buyer ", i)))
	}
	var wg sync.WaitGroup
	for _, n := range numbers {
		wg.Add(2) // and a duplicate confirmation (webhook retry) of each
		for range 2 {
			go func() {
				defer wg.Done()
				if _, err := e.App.Commerce.ConfirmPayment(bg, n, "test", "t"); err != nil {
					t.Error(err)
				}
			}()
		}
	}
	wg.Wait()
	rows, err := e.DB.R.Query(`SELECT number FROM invoices ORDER BY number`)
	if err != nil {
		t.Fatal(err)
	}
	var seqs []int
	for rows.Next() {
		var s int
		rows.Scan(&s)
		seqs = append(seqs, s)
	}
	rows.Close()
	sort.Ints(seqs)
	if len(seqs) != 16 || seqs[0] != 1 || seqs[15] != 16 {
		t.Fatalf("invoice numbers %v", seqs)
	}
	var orders int
	e.DB.R.QueryRow(`SELECT count(DISTINCT order_id) FROM invoices`).Scan(&orders)
	if orders != 16 {
		t.Fatalf("%d orders invoiced", orders)
	}
}
