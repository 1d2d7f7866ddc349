package vat

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"strings"
	"time"
)

// DefaultVIESURL is the European Commission's VIES REST endpoint.
const DefaultVIESURL = "https://ec.europa.eu/taxation_customs/vies/rest-api/check-vat-number"

// VIESValidator checks VAT numbers against the EU VIES register. It applies
// the offline format check first, so malformed numbers never leave the
// process. Errors (register or member state unavailable) mean "could not
// check"; the VAT preview then charges VAT and says so.
type VIESValidator struct {
	URL    string       // check-vat-number endpoint; DefaultVIESURL when empty
	Client *http.Client // default: 10 s timeout
}

type viesRequest struct {
	CountryCode string `json:"countryCode"`
	VATNumber   string `json:"vatNumber"`
}

type viesResponse struct {
	Valid         *bool  `json:"valid"`
	Name          string `json:"name"`
	ActionSucceed *bool  `json:"actionSucceed"`
	ErrorWrappers []struct {
		Error   string `json:"error"`
		Message string `json:"message"`
	} `json:"errorWrappers"`
}

// Validate asks VIES whether country+number is a valid, active VAT number.
func (v *VIESValidator) Validate(ctx context.Context, country, number string) (VATCheck, error) {
	if chk, _ := (FormatValidator{}).Validate(ctx, country, number); !chk.Valid {
		return chk, nil
	}
	url := v.URL
	if url == "" {
		url = DefaultVIESURL
	}
	client := v.Client
	if client == nil {
		client = &http.Client{Timeout: 10 * time.Second}
	}
	body, _ := json.Marshal(viesRequest{CountryCode: vatPrefix(country), VATNumber: number})
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, url, bytes.NewReader(body))
	if err != nil {
		return VATCheck{}, err
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json")
	resp, err := client.Do(req)
	if err != nil {
		return VATCheck{}, fmt.Errorf("vies: %w", err)
	}
	defer resp.Body.Close()
	raw, err := io.ReadAll(io.LimitReader(resp.Body, 1<<20))
	if err != nil {
		return VATCheck{}, fmt.Errorf("vies: %w", err)
	}
	if resp.StatusCode != http.StatusOK {
		return VATCheck{}, fmt.Errorf("vies: HTTP %d", resp.StatusCode)
	}
	var r viesResponse
	if err := json.Unmarshal(raw, &r); err != nil {
		return VATCheck{}, fmt.Errorf("vies: bad response: %w", err)
	}
	if len(r.ErrorWrappers) > 0 || (r.ActionSucceed != nil && !*r.ActionSucceed) {
		var codes []string
		for _, e := range r.ErrorWrappers {
			codes = append(codes, e.Error)
		}
		// INVALID_INPUT is an answer about the number, not an outage.
		if len(codes) == 1 && codes[0] == "INVALID_INPUT" {
			return VATCheck{Valid: false, Source: "vies"}, nil
		}
		return VATCheck{}, fmt.Errorf("vies: %s", strings.Join(codes, ", "))
	}
	if r.Valid == nil {
		return VATCheck{}, errors.New("vies: response lacks valid")
	}
	return VATCheck{Valid: *r.Valid, Source: "vies", Name: r.Name}, nil
}
