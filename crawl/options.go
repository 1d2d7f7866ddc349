package crawl

import (
	"net"
	"net/netip"
	"time"
)

// Options for the crawler; zero values mean defaults.
type Options struct {
	UserAgent    string        // full UA, e.g. "launchdirbot/1.0 (+http://host/bot)"; robots matching uses only the product token "launchdirbot"
	AllowPrivate bool          // turns OFF the SSRF guard (tests/local dev only)
	MaxPages     int           // default 12
	MaxBytes     int64         // per page, default 2 MiB
	Timeout      time.Duration // per request, default 15s
	Resolver     *net.Resolver // optional, for tests

	// MaxCrawlDelay caps the robots.txt Crawl-delay so a hostile value cannot
	// stall a crawl forever; default 10s. Tests lower it.
	MaxCrawlDelay time.Duration

	// allowAddr lets tests exempt one listener (e.g. the first hop of a
	// redirect) from the SSRF guard while every other address stays guarded.
	allowAddr func(netip.AddrPort) bool
}

// RobotsToken is the product token matched against robots.txt user-agent lines.
const RobotsToken = "launchdirbot"

const (
	defaultUserAgent     = "launchdirbot/1.0"
	defaultMaxPages      = 12
	defaultMaxBytes      = 2 << 20
	defaultTimeout       = 15 * time.Second
	defaultMaxCrawlDelay = 10 * time.Second
	maxRedirects         = 5
	robotsMaxBytes       = 512 << 10 // RFC 9309 asks for at least 500 KiB
)

func (o Options) withDefaults() Options {
	if o.UserAgent == "" {
		o.UserAgent = defaultUserAgent
	}
	if o.MaxPages <= 0 {
		o.MaxPages = defaultMaxPages
	}
	if o.MaxBytes <= 0 {
		o.MaxBytes = defaultMaxBytes
	}
	if o.Timeout <= 0 {
		o.Timeout = defaultTimeout
	}
	if o.MaxCrawlDelay <= 0 {
		o.MaxCrawlDelay = defaultMaxCrawlDelay
	}
	return o
}
