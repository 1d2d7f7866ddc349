package crawl

import (
	"fmt"
	"net"
	"net/http"
	"net/netip"
	"syscall"
	"time"

	"code.dny.dev/ssrf"
)

// extraDeniedV6 adds the NAT64 local-use prefix, which the ssrf package does
// not list but which can reach IPv4 private space through a translator.
var extraDeniedV6 = []netip.Prefix{
	netip.MustParsePrefix("64:ff9b:1::/48"),
	netip.MustParsePrefix("64:ff9b::/96"),
	netip.MustParsePrefix("2002::/16"),
	netip.MustParsePrefix("fc00::/7"),
}

// extraDeniedV4 repeats ranges we must never reach even if the upstream list
// changes: cloud metadata and broadcast.
var extraDeniedV4 = []netip.Prefix{
	netip.MustParsePrefix("169.254.169.254/32"),
	netip.MustParsePrefix("255.255.255.255/32"),
}

// guardControl builds the net.Dialer.Control hook. It runs after DNS
// resolution on the concrete IP of every connection (first hop, redirects,
// keep-alive replacements), so DNS rebinding cannot slip past it.
func guardControl(o Options) func(network, address string, c syscall.RawConn) error {
	if o.AllowPrivate {
		return nil
	}
	g := ssrf.New(ssrf.WithAnyPort(), ssrf.WithDeniedV4Prefixes(extraDeniedV4...), ssrf.WithDeniedV6Prefixes(extraDeniedV6...))
	return func(network, address string, c syscall.RawConn) error {
		ap, err := netip.ParseAddrPort(address)
		if err != nil {
			return fmt.Errorf("%w: %s", errBlocked, address)
		}
		if o.allowAddr != nil && o.allowAddr(ap) {
			return nil
		}
		if err := g.Safe(network, address, c); err != nil {
			return fmt.Errorf("%w: %v", errBlocked, err)
		}
		return nil
	}
}

// NewHTTPClient returns THE one outbound HTTP client of the service: SSRF
// guard on every dialled IP, no proxy, at most 5 redirects, http/https only,
// transparent gzip and bounded timeouts.
func NewHTTPClient(o Options) *http.Client {
	o = o.withDefaults()
	dialer := &net.Dialer{
		Timeout:   o.Timeout,
		KeepAlive: 30 * time.Second,
		Resolver:  o.Resolver,
		Control:   guardControl(o),
	}
	tr := &http.Transport{
		Proxy:                  nil, // a proxy would dial on our behalf and bypass the guard
		DialContext:            dialer.DialContext,
		ForceAttemptHTTP2:      true,
		TLSHandshakeTimeout:    10 * time.Second,
		ResponseHeaderTimeout:  o.Timeout,
		ExpectContinueTimeout:  time.Second,
		IdleConnTimeout:        90 * time.Second,
		MaxIdleConns:           64,
		MaxIdleConnsPerHost:    4,
		MaxResponseHeaderBytes: 64 << 10,
	}
	return &http.Client{
		Transport:     tr,
		Timeout:       o.Timeout,
		CheckRedirect: checkRedirect,
	}
}

func checkRedirect(req *http.Request, via []*http.Request) error {
	if len(via) > maxRedirects {
		return errTooManyRedirects
	}
	if req.URL.Scheme != "http" && req.URL.Scheme != "https" {
		return errBadScheme
	}
	return nil
}
