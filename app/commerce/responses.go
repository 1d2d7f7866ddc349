package commerce

import "launchdir/ops"

// The refusal reasons of a promo code (enum:"$promo_reason" tags).
func init() {
	ops.RegisterEnum("promo_reason", []string{PromoUnknown, PromoNotYetValid, PromoExpired, PromoUsedUp, PromoNotApplicable})
}

// Response bodies of commerce operations (each an Output in the table; the
// OpenAPI document and MCP output schemas are generated from them).

// Products is list_products' body.
type Products struct {
	Products      []ProductView `json:"products"`
	BookableWeeks []string      `json:"bookable_weeks" format:"date"`
	VATRatesAsOf  string        `json:"vat_rates_as_of" format:"date"`
	Note          string        `json:"note"`
}

// QuoteResult is quote_order's body.
type QuoteResult struct {
	Quote Quote  `json:"quote"`
	Saved bool   `json:"saved" doc:"Always false: a quote saves nothing."`
	Note  string `json:"note"`
}
