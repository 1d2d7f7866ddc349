package crawl

import (
	"errors"
	"net"
	"net/url"
	"regexp"
	"strconv"
	"strings"

	"golang.org/x/net/idna"
)

const maxURLLen = 2048

// schemeLike matches "mailto:", "javascript:" etc., but not "host:8080".
var schemeLike = regexp.MustCompile(`^[A-Za-z][A-Za-z0-9+.-]*:[^0-9]`)

// ValidateSubmitURL checks a URL given by a user: http/https only, has a host,
// no userinfo credentials, at most 2048 characters. A bare domain such as
// "acme.com" gets https:// added. It returns the normalised URL, or an error
// whose message names the problem.
func ValidateSubmitURL(raw string) (string, error) {
	raw = strings.TrimSpace(raw)
	if raw == "" {
		return "", errors.New("URL is required")
	}
	if len(raw) > maxURLLen {
		return "", errors.New("URL must be at most 2048 characters")
	}
	if !strings.Contains(raw, "://") {
		if schemeLike.MatchString(raw) {
			return "", errors.New("URL must start with http:// or https://")
		}
		raw = "https://" + raw
	}
	u, err := url.Parse(raw)
	if err != nil {
		return "", errors.New("URL is not valid")
	}
	if err := checkURLParts(u); err != nil {
		return "", err
	}
	out := normalizeURL(u).String()
	if len(out) > maxURLLen {
		return "", errors.New("URL must be at most 2048 characters")
	}
	return out, nil
}

func checkURLParts(u *url.URL) error {
	u.Scheme = strings.ToLower(u.Scheme)
	if u.Scheme != "http" && u.Scheme != "https" {
		return errors.New("URL must start with http:// or https://")
	}
	if u.User != nil {
		return errors.New("URL must not contain a username or password")
	}
	host := u.Hostname()
	if host == "" {
		return errors.New("URL must include a host name")
	}
	if p := u.Port(); p != "" {
		if n, err := strconv.Atoi(p); err != nil || n < 1 || n > 65535 {
			return errors.New("URL has an invalid port")
		}
	}
	if net.ParseIP(host) == nil {
		ascii, err := idna.Lookup.ToASCII(strings.TrimSuffix(host, "."))
		if err != nil || ascii == "" {
			return errors.New("URL host name is not valid")
		}
		if u.Port() != "" {
			u.Host = ascii + ":" + u.Port()
		} else {
			u.Host = ascii
		}
	}
	return nil
}

// normalizeURL lower-cases scheme and host, drops default ports and the
// fragment, and gives an empty path "/", so equal pages compare equal.
func normalizeURL(u *url.URL) *url.URL {
	n := *u
	n.Scheme = strings.ToLower(n.Scheme)
	n.Host = strings.ToLower(n.Host)
	if (n.Scheme == "http" && n.Port() == "80") || (n.Scheme == "https" && n.Port() == "443") {
		n.Host = n.Hostname()
		if strings.Contains(n.Host, ":") {
			n.Host = "[" + n.Host + "]"
		}
	}
	n.Fragment, n.RawFragment = "", ""
	if n.Path == "" {
		n.Path, n.RawPath = "/", ""
	}
	return &n
}

// parseHTTPURL parses an absolute http(s) URL.
func parseHTTPURL(raw string) (*url.URL, error) {
	u, err := url.Parse(strings.TrimSpace(raw))
	if err != nil {
		return nil, err
	}
	if u.Scheme != "http" && u.Scheme != "https" || u.Host == "" {
		return nil, errors.New("not an absolute http(s) URL")
	}
	return u, nil
}
