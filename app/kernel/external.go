package kernel

import (
	"context"
	"fmt"
	"log/slog"
	"net"
)

// Every external thing sits behind an interface with an offline default, so
// the binary runs and tests with zero outside services.

// Fetcher reads one web page through the service's SSRF-guarded client
// (badge checks, claim checks). It returns the page's HTML as UTF-8.
type Fetcher interface {
	FetchHTML(ctx context.Context, url string) (html string, err error)
}

// ImageFetcher reads one image URL through the service's SSRF-guarded
// client (owners' image URLs, the drafter's logos), at most limit bytes; a
// longer body is an error, not a truncated image.
type ImageFetcher interface {
	FetchImage(ctx context.Context, url string, limit int64) ([]byte, error)
}

// Resolver looks up DNS TXT records (claims by DNS).
type Resolver interface {
	LookupTXT(ctx context.Context, name string) ([]string, error)
}

// Mailer delivers one email.
type Mailer interface {
	Send(ctx context.Context, to, subject, body string) error
}

// LogMailer is the offline default: it logs the message instead of sending.
type LogMailer struct{ Log *slog.Logger }

// Send logs the email.
func (m LogMailer) Send(ctx context.Context, to, subject, body string) error {
	m.Log.Info("email (not sent: no -smtp-url configured)", "to", to, "subject", subject, "body", body)
	return nil
}

// noFetcher refuses, so a missing wiring shows up as a clear error.
type noFetcher struct{}

func (noFetcher) FetchHTML(ctx context.Context, url string) (string, error) {
	return "", fmt.Errorf("no web fetcher configured")
}

func (noFetcher) FetchImage(ctx context.Context, url string, limit int64) ([]byte, error) {
	return nil, fmt.Errorf("no web fetcher configured")
}

// Externals are the adapters the app uses; zero values get offline defaults.
type Externals struct {
	Fetcher  Fetcher
	Images   ImageFetcher
	Resolver Resolver
	Mailer   Mailer
}

// SetExternals installs adapters (main and tests call this before serving).
func (a *Kernel) SetExternals(x Externals) {
	if x.Fetcher == nil {
		x.Fetcher = noFetcher{}
	}
	if x.Images == nil {
		x.Images = noFetcher{}
	}
	if x.Resolver == nil {
		x.Resolver = net.DefaultResolver
	}
	if x.Mailer == nil {
		x.Mailer = LogMailer{Log: a.Log}
	}
	a.Ext = x
}
