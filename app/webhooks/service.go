// Package webhooks sends the service's events to the endpoints people
// register, following the Standard Webhooks specification: each request
// carries webhook-id, webhook-timestamp and webhook-signature ("v1," and
// the base64 HMAC-SHA256 of "id.timestamp.body" under the endpoint's
// whsec_ secret). Deliveries come from the tables the events were written
// to in the changes' own transactions (kernel.EmitEvent), retried with
// exponential backoff for three days; every attempt is logged; endpoints
// that keep failing are disabled and their owner emailed.
//
// Owners register endpoints for the events of the listings they own (and
// their own orders); the site team registers site-wide endpoints for
// every event. Requests go through the crawler's SSRF-guarded client:
// private, loopback and link-local targets are refused unless the
// deployment allows them (AllowPrivateTargets, for local development and
// tests).
package webhooks

import (
	"net/http"
	"sync"
	"time"

	"launchdir/app/kernel"
	"launchdir/crawl"
)

// Service is the webhooks domain.
type Service struct {
	*kernel.Kernel
	mu           sync.Mutex // one delivery run at a time
	client       *http.Client
	allowPrivate bool
}

// New builds the webhooks domain with the SSRF-guarded client.
func New(k *kernel.Kernel) *Service {
	s := &Service{Kernel: k}
	s.setClient(false)
	return s
}

// AllowPrivateTargets lets endpoints on private, loopback and link-local
// addresses (and plain http) be registered and reached: local
// development and tests only.
func (a *Service) AllowPrivateTargets() { a.setClient(true) }

func (a *Service) setClient(allowPrivate bool) {
	c := crawl.NewHTTPClient(crawl.Options{Timeout: requestTimeout, AllowPrivate: allowPrivate})
	// A redirect is an answer, not a place to follow: the body and its
	// signature were meant for the registered URL only.
	c.CheckRedirect = func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }
	a.client, a.allowPrivate = c, allowPrivate
}

// The delivery rules.
const (
	requestTimeout = 10 * time.Second
	// MaxEndpoints is how many endpoints one person may register.
	MaxEndpoints = 10
	// DisableAfter consecutive failed attempts disable an endpoint.
	DisableAfter = 20
	// responseExcerpt is how much of a response the log keeps.
	responseExcerpt = 500
	// rotationOverlap: after a rotation the old secret also signs for this
	// long, so receivers can switch without losing events.
	rotationOverlap = 24 * time.Hour
)

// retrySchedule is the wait after each failed attempt: 10 attempts over
// about three days (5 s, 5 min, 30 min, 2 h, 5 h, 10 h, 14 h, 20 h, 20 h).
var retrySchedule = []time.Duration{5 * time.Second, 5 * time.Minute, 30 * time.Minute, 2 * time.Hour, 5 * time.Hour,
	10 * time.Hour, 14 * time.Hour, 20 * time.Hour, 20 * time.Hour}

// MaxAttempts is how many times one delivery is tried.
var MaxAttempts = len(retrySchedule) + 1
