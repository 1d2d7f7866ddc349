package app_test

import (
	"context"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"sort"
	"strings"
	"sync/atomic"
	"testing"

	"launchdir/apitest"
	"launchdir/app"
	"launchdir/app/vat"
)

func TestEUVATTable(t *testing.T) {
	members := "AT BE BG HR CY CZ DK EE FI FR DE GR HU IE IT LV LT LU MT NL PL PT RO SK SI ES SE"
	rates := vat.EUVATRates()
	var got []string
	for c := range rates {
		got = append(got, c)
	}
	sort.Strings(got)
	want := strings.Fields(members)
	sort.Strings(want)
	if strings.Join(got, " ") != strings.Join(want, " ") {
		t.Fatalf("rate table countries %v, want the 27 member states %v", got, want)
	}
	for c, bp := range map[string]int{"DE": 1900, "FR": 2000, "HU": 2700, "LU": 1700, "FI": 2550, "IE": 2300, "GR": 2400, "SE": 2500, "MT": 1800} {
		if rates[c] != bp {
			t.Errorf("%s: %d basis points, want %d", c, rates[c], bp)
		}
	}
	if vat.VATRatesAsOf == "" {
		t.Error("the table has no date")
	}
}

func TestFormatValidator(t *testing.T) {
	v := vat.FormatValidator{}
	for _, c := range []struct {
		country, number string
		valid           bool
	}{
		{"DE", "123456789", true}, {"DE", "12345678", false}, {"AT", "U12345678", true}, {"AT", "12345678", false},
		{"NL", "123456789B01", true}, {"FR", "AB123456789", true}, {"GR", "123456789", true}, {"IE", "1234567WA", true},
		{"ES", "X1234567X", true}, {"SE", "123456789001", true}, {"US", "123456789", false},
	} {
		chk, err := v.Validate(context.Background(), c.country, c.number)
		if err != nil || chk.Valid != c.valid || chk.Source != "format" {
			t.Errorf("%s %s: %+v %v, want valid=%v", c.country, c.number, chk, err, c.valid)
		}
	}
}

// fakeVIES answers like the VIES REST API.
func fakeVIES(t *testing.T, calls *atomic.Int32, answer func(cc, num string) (int, string)) *httptest.Server {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		calls.Add(1)
		var req struct {
			CountryCode string `json:"countryCode"`
			VATNumber   string `json:"vatNumber"`
		}
		if r.Method != http.MethodPost || json.NewDecoder(r.Body).Decode(&req) != nil {
			w.WriteHeader(400)
			return
		}
		status, body := answer(req.CountryCode, req.VATNumber)
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(status)
		w.Write([]byte(body))
	}))
	t.Cleanup(srv.Close)
	return srv
}

func TestVIESValidator(t *testing.T) {
	var calls atomic.Int32
	srv := fakeVIES(t, &calls, func(cc, num string) (int, string) {
		switch {
		case cc == "EL" && num == "123456789":
			return 200, `{"countryCode":"EL","vatNumber":"123456789","valid":true,"name":"ACME AE"}`
		case num == "999999999":
			return 200, `{"actionSucceed":false,"errorWrappers":[{"error":"MS_UNAVAILABLE"}]}`
		case num == "888888888":
			return 500, `oops`
		case num == "777777777":
			return 200, `{"actionSucceed":false,"errorWrappers":[{"error":"INVALID_INPUT"}]}`
		}
		return 200, `{"valid":false}`
	})
	v := &vat.VIESValidator{URL: srv.URL}
	ctx := context.Background()
	chk, err := v.Validate(ctx, "GR", "123456789")
	if err != nil || !chk.Valid || chk.Source != "vies" || chk.Name != "ACME AE" {
		t.Errorf("valid Greek number (EL prefix sent): %+v %v", chk, err)
	}
	if chk, err := v.Validate(ctx, "DE", "111111111"); err != nil || chk.Valid {
		t.Errorf("invalid number: %+v %v", chk, err)
	}
	if chk, err := v.Validate(ctx, "DE", "777777777"); err != nil || chk.Valid {
		t.Errorf("INVALID_INPUT: %+v %v", chk, err)
	}
	for _, n := range []string{"999999999", "888888888"} {
		if _, err := v.Validate(ctx, "DE", n); err == nil {
			t.Errorf("%s: outage not reported", n)
		}
	}
	before := calls.Load()
	if chk, err := v.Validate(ctx, "DE", "12"); err != nil || chk.Valid || calls.Load() != before {
		t.Errorf("malformed number should fail the format check without calling VIES: %+v %v", chk, err)
	}
}

func TestQuoteWithVIES(t *testing.T) {
	var calls atomic.Int32
	srv := fakeVIES(t, &calls, func(cc, num string) (int, string) {
		switch num {
		case "123456789":
			return 200, `{"valid":true}`
		case "999999999":
			return 200, `{"actionSucceed":false,"errorWrappers":[{"error":"SERVICE_UNAVAILABLE"}]}`
		}
		return 200, `{"valid":false}`
	})
	e := apitest.New(t, apitest.Options{Fixture: true, Setup: func(a *app.App) { a.VAT.SetValidator(&vat.VIESValidator{URL: srv.URL}) }})
	owner := apitest.Bearer(e.APIKey("owner@example.com"))
	body := func(vat string) map[string]any {
		return map[string]any{"items": []any{map[string]any{"product": "ai_review", "listing_id": 1}}, "billing_country": "DE", "vat_number": vat}
	}
	r := e.Do("POST", "/api/v1/orders/quote", body("DE123456789"), owner...)
	if r.Status != 200 || !strings.Contains(string(r.Body), `"treatment":"reverse_charge"`) || !strings.Contains(string(r.Body), `"vat_number_check":"vies"`) {
		t.Errorf("VIES valid: %d %s", r.Status, r.Body)
	}
	r = e.Do("POST", "/api/v1/orders/quote", body("DE111111111"), owner...)
	if r.Status != 400 || !strings.Contains(string(r.Body), `"field":"vat_number"`) {
		t.Errorf("VIES invalid: %d %s", r.Status, r.Body)
	}
	r = e.Do("POST", "/api/v1/orders/quote", body("DE999999999"), owner...)
	if r.Status != 200 || !strings.Contains(string(r.Body), `"vat_cents":741`) || !strings.Contains(string(r.Body), "could not be verified") {
		t.Errorf("VIES down: %d %s", r.Status, r.Body)
	}
}
