package crawl

import (
	"context"
	"crypto/tls"
	"crypto/x509"
	"errors"
	"fmt"
	"net"
	"os"
	"strings"
)

// FetchError is a failure the user can act on. Kind is one of "dns", "tls",
// "connect", "timeout", "robots_disallowed", "http_status", "not_html",
// "blocked_address", "too_many_redirects", "bad_url"; Message is a plain
// English sentence.
type FetchError struct {
	Kind    string
	Message string
}

func (e *FetchError) Error() string { return e.Message }

// errBlocked marks a dial refused by the SSRF guard, so it can be told apart
// from ordinary connection failures after net/http wraps it.
var errBlocked = errors.New("blocked address")

// errTooManyRedirects is returned by the client's redirect policy.
var errTooManyRedirects = errors.New("too many redirects")

// errBadScheme is returned when a redirect leaves http/https.
var errBadScheme = errors.New("redirect to a non-http(s) URL")

func hostOf(rawURL string) string {
	if u, err := parseHTTPURL(rawURL); err == nil {
		return u.Hostname()
	}
	return rawURL
}

// classifyError turns a transport error into a FetchError with advice.
func classifyError(err error, rawURL string) *FetchError {
	var fe *FetchError
	if errors.As(err, &fe) {
		return fe
	}
	host := hostOf(rawURL)
	var dnsErr *net.DNSError
	var certErr *tls.CertificateVerificationError
	var unknownAuth x509.UnknownAuthorityError
	var hostnameErr x509.HostnameError
	var invalidCert x509.CertificateInvalidError
	var recordErr tls.RecordHeaderError
	var alertErr tls.AlertError
	switch {
	case errors.Is(err, errBlocked):
		return &FetchError{Kind: "blocked_address", Message: fmt.Sprintf("%s points to a private or reserved network address, which we never connect to. Submit the public address of your website.", host)}
	case errors.Is(err, errTooManyRedirects):
		return tooManyRedirects(rawURL)
	case errors.Is(err, errBadScheme):
		return &FetchError{Kind: "bad_url", Message: fmt.Sprintf("%s redirects to an address that is not http or https. Submit the final https:// address of your website.", host)}
	case errors.Is(err, context.Canceled):
		return &FetchError{Kind: "timeout", Message: fmt.Sprintf("Reading %s was cancelled before it finished. Try again.", host)}
	case errors.As(err, &dnsErr):
		return &FetchError{Kind: "dns", Message: fmt.Sprintf("We could not find the domain %s (DNS lookup failed). Check the address for typos and that the domain's DNS is set up.", host)}
	case errors.Is(err, context.DeadlineExceeded), errors.Is(err, os.ErrDeadlineExceeded), isTimeout(err):
		return &FetchError{Kind: "timeout", Message: fmt.Sprintf("%s took too long to answer. Check that the website is up and try again later.", host)}
	case errors.As(err, &certErr), errors.As(err, &unknownAuth), errors.As(err, &hostnameErr),
		errors.As(err, &invalidCert), errors.As(err, &recordErr), errors.As(err, &alertErr),
		strings.Contains(err.Error(), "tls:"):
		return &FetchError{Kind: "tls", Message: fmt.Sprintf("The secure connection to %s failed (HTTPS certificate or TLS problem). Check the site's certificate, or submit the http:// address.", host)}
	}
	return &FetchError{Kind: "connect", Message: fmt.Sprintf("We could not connect to %s. Check that the website is online and reachable from the internet.", host)}
}

func isTimeout(err error) bool {
	var ne net.Error
	return errors.As(err, &ne) && ne.Timeout()
}

func tooManyRedirects(rawURL string) *FetchError {
	return &FetchError{Kind: "too_many_redirects", Message: fmt.Sprintf("%s redirected more than %d times. Submit the final address of your homepage.", rawURL, maxRedirects)}
}

func robotsDisallowed(rawURL string) *FetchError {
	return &FetchError{Kind: "robots_disallowed", Message: fmt.Sprintf("The site's robots.txt does not allow %s to read %s. Allow %s in robots.txt, or fill in the profile by hand (update_draft with fields, at least a name) and submit it.", RobotsToken, rawURL, RobotsToken)}
}

func httpStatusError(rawURL string, status int) *FetchError {
	return &FetchError{Kind: "http_status", Message: fmt.Sprintf("%s answered with HTTP status %d. Check that the address is right and the page is public.", rawURL, status)}
}

func notHTMLError(rawURL, contentType string) *FetchError {
	if contentType == "" {
		contentType = "no content type"
	}
	return &FetchError{Kind: "not_html", Message: fmt.Sprintf("%s is not a web page (it returned %s). Submit the address of your homepage.", rawURL, contentType)}
}

func badURL(msg string) *FetchError {
	return &FetchError{Kind: "bad_url", Message: msg}
}
