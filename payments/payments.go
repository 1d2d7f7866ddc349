// Package payments takes payments for orders: a Provider starts a hosted
// checkout for an order (the built-in TEST MODE page, or Stripe Checkout),
// and the HTTP handlers here serve the checkout page and receive Stripe
// webhooks. Payment effects are applied by the app (app.ConfirmPayment),
// exactly once, whatever the door.
package payments

import (
	"errors"
	"fmt"
	"net/http"
	"os"
	"strings"

	"launchdir/app"
	"launchdir/app/commerce"
	"launchdir/routes"
)

// Provider starts hosted checkouts (same contract as app.PaymentProvider).
type Provider = commerce.PaymentProvider

// Config selects and configures the provider.
type Config struct {
	// Provider is "test" (default: the built-in page, no external service)
	// or "stripe".
	Provider string
	// Stripe settings (provider stripe).
	StripeKey           string // secret API key (LAUNCHDIR_STRIPE_KEY)
	StripeWebhookSecret string // endpoint signing secret (LAUNCHDIR_STRIPE_WEBHOOK_SECRET)
	StripeAPIURL        string // API base URL override (LAUNCHDIR_STRIPE_API_URL; tests)
	HTTPClient          *http.Client
}

// ConfigFromEnv reads LAUNCHDIR_PAYMENTS (test or stripe),
// LAUNCHDIR_STRIPE_KEY, LAUNCHDIR_STRIPE_WEBHOOK_SECRET and
// LAUNCHDIR_STRIPE_API_URL.
func ConfigFromEnv() Config {
	return Config{
		Provider:            strings.ToLower(strings.TrimSpace(os.Getenv("LAUNCHDIR_PAYMENTS"))),
		StripeKey:           os.Getenv("LAUNCHDIR_STRIPE_KEY"),
		StripeWebhookSecret: os.Getenv("LAUNCHDIR_STRIPE_WEBHOOK_SECRET"),
		StripeAPIURL:        os.Getenv("LAUNCHDIR_STRIPE_API_URL"),
	}
}

// New builds the configured provider.
func New(a *app.App, c Config) (Provider, error) {
	switch c.Provider {
	case "", "test":
		return &TestProvider{App: a}, nil
	case "stripe":
		if c.StripeKey == "" {
			return nil, errors.New("payments: provider stripe needs LAUNCHDIR_STRIPE_KEY")
		}
		if c.StripeWebhookSecret == "" {
			return nil, errors.New("payments: provider stripe needs LAUNCHDIR_STRIPE_WEBHOOK_SECRET")
		}
		return NewStripe(a, c.StripeKey, c.StripeWebhookSecret, c.StripeAPIURL, c.HTTPClient), nil
	}
	return nil, fmt.Errorf("payments: unknown provider %q (test or stripe)", c.Provider)
}

// Mount serves the checkout page (GET and POST /checkout/:token) and, for
// Stripe, the webhook (POST /webhooks/stripe).
func Mount(srv *routes.Server, a *app.App, p Provider) {
	page := NewCheckoutPage(a)
	srv.Handle(http.MethodGet, "/checkout/:token", page)
	srv.Handle(http.MethodPost, "/checkout/:token", page)
	if s, ok := p.(*StripeProvider); ok {
		srv.Handle(http.MethodPost, "/webhooks/stripe", s.WebhookHandler())
	}
}

// Setup builds the provider from c, hands it to the app and mounts the
// handlers: the one call main needs.
func Setup(a *app.App, srv *routes.Server, c Config) (Provider, error) {
	p, err := New(a, c)
	if err != nil {
		return nil, err
	}
	a.Commerce.SetPaymentProvider(p)
	Mount(srv, a, p)
	return p, nil
}
