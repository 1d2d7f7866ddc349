// Package vat is EU VAT for the sales of a seller established outside the
// EU: the standard rates of the member states, VAT number formats and the
// VIES check, and the treatment of one sale (consumer rate, reverse charge,
// outside the EU). Its types keep their VAT prefix because their names are
// the OpenAPI component names clients were generated with (VATInfo).
//
// It imports nothing of the business layer; commerce prices with it.
package vat

import (
	"context"
	"fmt"
	"log/slog"
	"regexp"
	"strings"
	"sync"

	"launchdir/ops"
)

// VAT preview.
//
// Assumption (documented for the README): the seller is established OUTSIDE
// the EU (no EU VAT establishment), selling electronically supplied services.
// Hence:
//   - EU consumer (no valid VAT number): the buyer country's standard rate
//     (EU place-of-supply rules for B2C digital services, OSS/non-Union scheme);
//   - EU business with a valid VAT number of its billing country: reverse
//     charge, 0 %, note "reverse charge" — for every member state, because
//     the seller's own country is never the buyer's;
//   - buyer outside the EU (or no billing country given): 0 %.
// Amounts are integer cents; VAT per line is rounded half up to the cent and
// the order's VAT is the sum of its lines.

// VATRatesAsOf is the date the embedded rate table was last checked.
const VATRatesAsOf = "2026-01-01"

// euVATRates are the EU standard VAT rates in basis points (1/100 of a
// percent), as of VATRatesAsOf, keyed by ISO 3166-1 alpha-2 billing country.
var euVATRates = map[string]int{
	"AT": 2000, // Austria
	"BE": 2100, // Belgium
	"BG": 2000, // Bulgaria
	"HR": 2500, // Croatia
	"CY": 1900, // Cyprus
	"CZ": 2100, // Czechia
	"DK": 2500, // Denmark
	"EE": 2400, // Estonia (24 % since 2025-07-01)
	"FI": 2550, // Finland (25.5 % since 2024-09-01)
	"FR": 2000, // France
	"DE": 1900, // Germany
	"GR": 2400, // Greece (VAT numbers use the prefix EL)
	"HU": 2700, // Hungary
	"IE": 2300, // Ireland
	"IT": 2200, // Italy
	"LV": 2100, // Latvia
	"LT": 2100, // Lithuania
	"LU": 1700, // Luxembourg
	"MT": 1800, // Malta
	"NL": 2100, // Netherlands
	"PL": 2300, // Poland
	"PT": 2300, // Portugal
	"RO": 2100, // Romania (21 % since 2025-08-01)
	"SK": 2300, // Slovakia (23 % since 2025-01-01)
	"SI": 2200, // Slovenia
	"ES": 2100, // Spain
	"SE": 2500, // Sweden
}

// InEU reports whether country (ISO alpha-2, upper case) is an EU member state.
func InEU(country string) bool { _, ok := euVATRates[country]; return ok }

// EUVATRates returns a copy of the rate table (basis points by country).
func EUVATRates() map[string]int {
	out := make(map[string]int, len(euVATRates))
	for k, v := range euVATRates {
		out[k] = v
	}
	return out
}

// vatPrefix is the VAT number prefix of an EU billing country.
func vatPrefix(country string) string {
	if country == "GR" {
		return "EL"
	}
	return country
}

// vatNumberFormats are the national number formats after the prefix.
var vatNumberFormats = map[string]*regexp.Regexp{}

func init() {
	for cc, re := range map[string]string{
		"AT": `U[0-9]{8}`,
		"BE": `[01][0-9]{9}`,
		"BG": `[0-9]{9,10}`,
		"HR": `[0-9]{11}`,
		"CY": `[0-9]{8}[A-Z]`,
		"CZ": `[0-9]{8,10}`,
		"DK": `[0-9]{8}`,
		"EE": `[0-9]{9}`,
		"FI": `[0-9]{8}`,
		"FR": `[0-9A-HJ-NP-Z]{2}[0-9]{9}`,
		"DE": `[0-9]{9}`,
		"GR": `[0-9]{9}`,
		"HU": `[0-9]{8}`,
		"IE": `(?:[0-9]{7}[A-W][A-IW]?|[0-9][A-Z+*][0-9]{5}[A-W])`,
		"IT": `[0-9]{11}`,
		"LV": `[0-9]{11}`,
		"LT": `(?:[0-9]{9}|[0-9]{12})`,
		"LU": `[0-9]{8}`,
		"MT": `[0-9]{8}`,
		"NL": `[0-9]{9}B[0-9]{2}`,
		"PL": `[0-9]{10}`,
		"PT": `[0-9]{9}`,
		"RO": `[1-9][0-9]{1,9}`,
		"SK": `[0-9]{10}`,
		"SI": `[0-9]{8}`,
		"ES": `[0-9A-Z][0-9]{7}[0-9A-Z]`,
		"SE": `[0-9]{10}01`,
	} {
		vatNumberFormats[cc] = regexp.MustCompile(`^` + re + `$`)
	}
}

// VATCheck is the outcome of checking a VAT number.
type VATCheck struct {
	Valid  bool
	Source string // "format" or "vies"
	Name   string // registered name, when the source tells
}

// VATValidator checks an EU VAT number (national part, without prefix) of a
// billing country. An error means "could not check" (e.g. VIES down), not
// "invalid".
type VATValidator interface {
	Validate(ctx context.Context, country, number string) (VATCheck, error)
}

// FormatValidator is the offline default: the national format of each
// member state.
type FormatValidator struct{}

// Validate checks the number's format.
func (FormatValidator) Validate(_ context.Context, country, number string) (VATCheck, error) {
	re, ok := vatNumberFormats[country]
	return VATCheck{Valid: ok && re.MatchString(number), Source: "format"}, nil
}

// Service works out the VAT of a sale with a replaceable number check.
type Service struct {
	log       *slog.Logger
	mu        sync.Mutex
	validator VATValidator
}

// New is the VAT service with the offline format check.
func New(log *slog.Logger) *Service { return &Service{log: log, validator: FormatValidator{}} }

// SetValidator replaces the VAT number validator (default: FormatValidator;
// main wires VIESValidator with -vat-check vies).
func (a *Service) SetValidator(v VATValidator) {
	a.mu.Lock()
	a.validator = v
	a.mu.Unlock()
}

func (a *Service) numberValidator() VATValidator {
	a.mu.Lock()
	defer a.mu.Unlock()
	return a.validator
}

// normalizeVATNumber upper-cases, drops separators and splits off the
// country prefix (defaulting to the billing country's prefix).
func normalizeVATNumber(country, raw string) (prefix, number string) {
	s := strings.Map(func(r rune) rune {
		switch r {
		case ' ', '.', '-', '/', '\t':
			return -1
		}
		return r
	}, strings.ToUpper(strings.TrimSpace(raw)))
	if len(s) >= 2 && s[0] >= 'A' && s[0] <= 'Z' && s[1] >= 'A' && s[1] <= 'Z' {
		return s[:2], s[2:]
	}
	return vatPrefix(country), s
}

// VATInfo is the VAT treatment of a quote or order.
type VATInfo struct {
	Country         string `json:"country" doc:"Billing country, ISO 3166-1 alpha-2; empty when not given."`
	Treatment       string `json:"treatment" enum:"eu_consumer,reverse_charge,outside_eu,no_billing_country"`
	RateBasisPoints int    `json:"rate_basis_points"`
	Rate            string `json:"rate" doc:"Percent as text, e.g. 19 or 25.5 (rate_basis_points / 100)."`
	Note            string `json:"note"`
	VATNumber       string `json:"vat_number,omitempty"`
	VATNumberValid  *bool  `json:"vat_number_valid,omitempty"`
	VATNumberCheck  string `json:"vat_number_check,omitempty" doc:"Who checked the VAT number: format, vies, or unavailable."`
	RatesAsOf       string `json:"rates_as_of" format:"date"`
}

// VAT treatments.
const (
	VATEUConsumer    = "eu_consumer"
	VATReverseCharge = "reverse_charge"
	VATOutsideEU     = "outside_eu"
	VATNoCountry     = "no_billing_country"
)

// FormatRate renders basis points as a percent string.
func FormatRate(bp int) string {
	if bp%100 == 0 {
		return fmt.Sprint(bp / 100)
	}
	s := fmt.Sprintf("%d.%02d", bp/100, bp%100)
	return strings.TrimRight(s, "0")
}

// Amount is taxable × rate, rounded half up to the cent (taxable ≥ 0).
func Amount(taxable int64, bp int) int64 {
	return (taxable*int64(bp) + 5000) / 10000
}

// For works out the VAT treatment; it returns field errors for a VAT
// number that is malformed, invalid or of another country.
func (a *Service) For(ctx context.Context, country, vatNumber string) (VATInfo, []ops.FieldError) {
	country = strings.ToUpper(country)
	info := VATInfo{Country: country, RatesAsOf: VATRatesAsOf, Rate: "0"}
	rate, inEU := euVATRates[country]
	switch {
	case country == "":
		info.Treatment = VATNoCountry
		info.Note = "no billing_country given: no VAT added in this preview; EU buyers pay their country's VAT"
		if vatNumber != "" {
			return info, []ops.FieldError{fieldErr("billing_country", "is required when vat_number is given")}
		}
		return info, nil
	case !isISOCountry(country):
		return info, []ops.FieldError{fieldErr("billing_country", "is not an ISO 3166-1 alpha-2 country code")}
	case !inEU:
		info.Treatment = VATOutsideEU
		info.Note = "buyer outside the EU: no VAT charged"
		return info, nil
	}
	info.Treatment = VATEUConsumer
	info.RateBasisPoints = rate
	info.Rate = FormatRate(rate)
	info.Note = fmt.Sprintf("EU consumer: %s VAT at %s%%", country, info.Rate)
	if vatNumber == "" {
		return info, nil
	}
	prefix, num := normalizeVATNumber(country, vatNumber)
	info.VATNumber = prefix + num
	if prefix != vatPrefix(country) {
		return info, []ops.FieldError{fieldErr("vat_number", fmt.Sprintf("is a %s number but billing_country is %s (expected prefix %s)", prefix, country, vatPrefix(country)))}
	}
	chk, err := a.numberValidator().Validate(ctx, country, num)
	if err != nil {
		// The register could not be asked: charge VAT now, say why.
		a.log.Warn("VAT number check unavailable", "country", country, "err", err)
		info.VATNumberCheck = "unavailable"
		info.Note += "; the VAT number could not be verified right now (VIES unavailable), so VAT is charged"
		return info, nil
	}
	info.VATNumberCheck = chk.Source
	valid := chk.Valid
	info.VATNumberValid = &valid
	if !valid {
		return info, []ops.FieldError{fieldErr("vat_number", fmt.Sprintf("is not a valid %s VAT number (checked by %s)", country, chk.Source))}
	}
	info.Treatment = VATReverseCharge
	info.RateBasisPoints = 0
	info.Rate = "0"
	info.Note = "reverse charge: VAT to be accounted for by the recipient (Article 196, Council Directive 2006/112/EC)"
	return info, nil
}

// isoCountries are all ISO 3166-1 alpha-2 codes officially assigned.
const isoCountryCodes = "AD AE AF AG AI AL AM AO AQ AR AS AT AU AW AX AZ BA BB BD BE BF BG BH BI BJ BL BM BN BO BQ BR BS BT BV BW BY BZ " +
	"CA CC CD CF CG CH CI CK CL CM CN CO CR CU CV CW CX CY CZ DE DJ DK DM DO DZ EC EE EG EH ER ES ET FI FJ FK FM FO FR " +
	"GA GB GD GE GF GG GH GI GL GM GN GP GQ GR GS GT GU GW GY HK HM HN HR HT HU ID IE IL IM IN IO IQ IR IS IT JE JM JO JP " +
	"KE KG KH KI KM KN KP KR KW KY KZ LA LB LC LI LK LR LS LT LU LV LY MA MC MD ME MF MG MH MK ML MM MN MO MP MQ MR MS MT MU MV MW MX MY MZ " +
	"NA NC NE NF NG NI NL NO NP NR NU NZ OM PA PE PF PG PH PK PL PM PN PR PS PT PW PY QA RE RO RS RU RW " +
	"SA SB SC SD SE SG SH SI SJ SK SL SM SN SO SR SS ST SV SX SY SZ TC TD TF TG TH TJ TK TL TM TN TO TR TT TV TW TZ " +
	"UA UG UM US UY UZ VA VC VE VG VI VN VU WF WS YE YT ZA ZM ZW"

var isoCountrySet = func() map[string]bool {
	m := map[string]bool{}
	for _, c := range strings.Fields(isoCountryCodes) {
		m[c] = true
	}
	return m
}()

func isISOCountry(c string) bool { return isoCountrySet[c] }

func fieldErr(field, msg string) ops.FieldError { return ops.FieldError{Field: field, Message: msg} }
