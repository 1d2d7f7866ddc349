package payments

import (
	"context"
	"encoding/json"
	"errors"
	"io"
	"net/http"
	"time"

	"launchdir/app"
	"launchdir/app/commerce"
	"launchdir/ops"

	"github.com/stripe/stripe-go/v85"
	"github.com/stripe/stripe-go/v85/webhook"
)

// StripeProvider uses Stripe Checkout Sessions: checkout_url is Stripe's
// hosted page and payment is confirmed by the signed webhook
// checkout.session.completed (or async_payment_succeeded).
type StripeProvider struct {
	App           *app.App
	client        *stripe.Client
	webhookSecret string
}

// NewStripe builds the provider. apiURL overrides https://api.stripe.com
// (tests point it at a local fake); httpClient may be nil.
func NewStripe(a *app.App, key, webhookSecret, apiURL string, httpClient *http.Client) *StripeProvider {
	cfg := &stripe.BackendConfig{
		LeveledLogger:     &stripe.LeveledLogger{Level: stripe.LevelNull},
		MaxNetworkRetries: stripe.Int64(2),
	}
	if httpClient != nil {
		cfg.HTTPClient = httpClient
	} else {
		cfg.HTTPClient = &http.Client{Timeout: 30 * time.Second}
	}
	if apiURL != "" {
		cfg.URL = stripe.String(apiURL)
	}
	return &StripeProvider{App: a, webhookSecret: webhookSecret,
		client: stripe.NewClient(key, stripe.WithBackends(stripe.NewBackendsWithConfig(cfg)))}
}

// Name is stored on orders.
func (*StripeProvider) Name() string { return "stripe" }

// CreateSession creates a Checkout Session with one line per order line at
// its VAT-inclusive, discounted amount, so Stripe charges the order total.
func (s *StripeProvider) CreateSession(ctx context.Context, o *commerce.Order) (string, string, error) {
	page := s.App.Commerce.TestCheckoutURL(ctx, o.CheckoutToken)
	params := &stripe.CheckoutSessionCreateParams{
		Mode:              stripe.String(string(stripe.CheckoutSessionModePayment)),
		ClientReferenceID: stripe.String(o.Number),
		SuccessURL:        stripe.String(page + "?stripe=success"),
		CancelURL:         stripe.String(page + "?stripe=canceled"),
		CustomerEmail:     stripe.String(o.UserEmail),
		Metadata:          map[string]string{"order_number": o.Number},
	}
	if exp, err := time.Parse(time.RFC3339, o.ExpiresAt); err == nil {
		// Stripe accepts 30 minutes to 24 hours from now.
		now := time.Now()
		if latest := now.Add(23*time.Hour + 30*time.Minute); exp.After(latest) {
			exp = latest
		}
		if earliest := now.Add(31 * time.Minute); exp.Before(earliest) {
			exp = earliest
		}
		params.ExpiresAt = stripe.Int64(exp.Unix())
	}
	cur := lower(o.Currency)
	for _, l := range o.Lines {
		name := l.Name
		if l.ListingName != "" {
			name += " — " + l.ListingName
		}
		if l.Week != nil {
			name += " (week of " + *l.Week + ")"
		}
		params.LineItems = append(params.LineItems, &stripe.CheckoutSessionCreateLineItemParams{
			Quantity: stripe.Int64(1),
			PriceData: &stripe.CheckoutSessionCreateLineItemPriceDataParams{
				Currency:    stripe.String(cur),
				UnitAmount:  stripe.Int64(l.TotalCents),
				ProductData: &stripe.CheckoutSessionCreateLineItemPriceDataProductDataParams{Name: stripe.String(name)},
			},
		})
	}
	params.SetIdempotencyKey("launchdir-" + o.Number)
	cs, err := s.client.V1CheckoutSessions.Create(ctx, params)
	if err != nil {
		return "", "", err
	}
	if cs.URL == "" || cs.ID == "" {
		return "", "", errors.New("stripe: session without id or url")
	}
	return cs.URL, cs.ID, nil
}

func lower(s string) string {
	b := []byte(s)
	for i, c := range b {
		if c >= 'A' && c <= 'Z' {
			b[i] = c + 32
		}
	}
	return string(b)
}

// WebhookHandler receives Stripe events. It verifies Stripe-Signature with
// webhook.ConstructEvent, ignores events it processed before (replays) and
// confirms orders idempotently.
func (s *StripeProvider) WebhookHandler() http.Handler {
	return http.HandlerFunc(s.serveWebhook)
}

func writeJSON(w http.ResponseWriter, status int, v any) {
	w.Header().Set("Content-Type", "application/json")
	w.Header().Set("Cache-Control", "no-store")
	w.WriteHeader(status)
	json.NewEncoder(w).Encode(v)
}

func (s *StripeProvider) serveWebhook(w http.ResponseWriter, r *http.Request) {
	body, err := io.ReadAll(http.MaxBytesReader(w, r.Body, 1<<20))
	if err != nil {
		writeJSON(w, http.StatusBadRequest, map[string]any{"error": "body could not be read"})
		return
	}
	ev, err := webhook.ConstructEvent(body, r.Header.Get("Stripe-Signature"), s.webhookSecret)
	if err != nil {
		s.App.Log.Warn("stripe webhook refused", "err", err)
		writeJSON(w, http.StatusBadRequest, map[string]any{"error": "invalid signature or payload"})
		return
	}
	ctx := r.Context()
	if seen, err := s.App.Commerce.PaymentEventSeen(ctx, "stripe", ev.ID); err != nil {
		writeJSON(w, http.StatusInternalServerError, map[string]any{"error": "try again"})
		return
	} else if seen {
		writeJSON(w, http.StatusOK, map[string]any{"received": true, "duplicate": true})
		return
	}
	number, outcome, err := s.handle(ctx, ev)
	if err != nil {
		// Transient: Stripe retries the delivery.
		s.App.Log.Error("stripe webhook", "event", ev.ID, "type", ev.Type, "err", err)
		writeJSON(w, http.StatusInternalServerError, map[string]any{"error": "try again"})
		return
	}
	if _, err := s.App.Commerce.RecordPaymentEvent(ctx, "stripe", ev.ID, string(ev.Type), number); err != nil {
		s.App.Log.Error("record stripe event", "event", ev.ID, "err", err)
	}
	writeJSON(w, http.StatusOK, map[string]any{"received": true, "outcome": outcome})
}

// handle applies one event; outcome says what happened (for logs and tests).
func (s *StripeProvider) handle(ctx context.Context, ev stripe.Event) (number, outcome string, err error) {
	typ := string(ev.Type)
	switch typ {
	case "checkout.session.completed", "checkout.session.async_payment_succeeded",
		"checkout.session.async_payment_failed", "checkout.session.expired":
	default:
		return "", "ignored", nil
	}
	if ev.Data == nil {
		return "", "ignored", nil
	}
	var cs stripe.CheckoutSession
	if err := json.Unmarshal(ev.Data.Raw, &cs); err != nil {
		return "", "ignored: bad session object", nil
	}
	number = cs.ClientReferenceID
	if number == "" {
		number = cs.Metadata["order_number"]
	}
	o, err := s.App.Commerce.OrderByNumber(ctx, number)
	if err != nil {
		if ops.AsError(err).Code == ops.CodeNotFound {
			return number, "ignored: unknown order", nil
		}
		return number, "", err
	}
	if o.ProviderRef != "" && cs.ID != "" && o.ProviderRef != cs.ID {
		s.App.Log.Warn("stripe session does not match the order", "order", number, "session", cs.ID, "expected", o.ProviderRef)
		return number, "ignored: session mismatch", nil
	}
	switch typ {
	case "checkout.session.completed", "checkout.session.async_payment_succeeded":
		if cs.PaymentStatus == stripe.CheckoutSessionPaymentStatusUnpaid {
			return number, "waiting for asynchronous payment", nil
		}
		applied, err := s.App.Commerce.ConfirmPayment(ctx, number, "stripe", cs.ID)
		if err != nil {
			if e := ops.AsError(err); e.Code == ops.CodeConflict || e.Code == ops.CodeInvalid {
				return number, "not applied: " + e.Detail, nil
			}
			return number, "", err
		}
		if applied {
			return number, "paid", nil
		}
		return number, "already paid", nil
	case "checkout.session.async_payment_failed":
		_, err := s.App.Commerce.FailPayment(ctx, number, "payment failed at Stripe")
		return number, "failed", err
	default: // checkout.session.expired
		_, err := s.App.Commerce.ExpireOrder(ctx, number, "Stripe checkout session expired")
		return number, "expired", err
	}
}
