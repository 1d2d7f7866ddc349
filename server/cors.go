package server

import (
	"fmt"
	"net/http"
	"net/url"
	"slices"
	"strings"
)

// CORS for the public API: a browser app on an origin the operator lists
// (-cors-origins) may call /api/v1, reading public data and, with a bearer
// token in Authorization, the caller's own. The API never reads cookies, so
// credentialed requests are never allowed (no Access-Control-Allow-Credentials),
// and "*" answers every origin with "*". The site, MCP and OAuth are not
// covered here (OAuth sets its own headers for its token endpoints).

const (
	corsMethods = "GET, HEAD, POST, PUT, PATCH, DELETE"
	corsHeaders = "Authorization, Content-Type, Idempotency-Key, If-None-Match, If-Match, X-Request-Id"
	// corsExpose are the response headers a client acts on.
	corsExpose = "ETag, Location, Retry-After, Idempotent-Replayed, WWW-Authenticate, X-Request-Id, RateLimit-Limit, RateLimit-Remaining, RateLimit-Reset"
)

// parseOrigins checks -cors-origins: "*" alone, or scheme://host[:port]
// origins without paths.
func parseOrigins(s string) ([]string, error) {
	var out []string
	for _, o := range strings.Split(s, ",") {
		o = strings.TrimRight(strings.TrimSpace(o), "/")
		if o == "" {
			continue
		}
		if o != "*" {
			u, err := url.Parse(o)
			if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" || u.Path != "" || u.RawQuery != "" || u.User != nil {
				return nil, fmt.Errorf("bad -cors-origins entry %q: want an origin like https://app.example.com, or *", o)
			}
			o = strings.ToLower(o)
		}
		out = append(out, o)
	}
	if len(out) > 1 && slices.Contains(out, "*") {
		return nil, fmt.Errorf("bad -cors-origins %q: * stands alone", s)
	}
	return out, nil
}

// cors answers preflights for /api/v1 and marks responses to allowed
// origins; with no origins configured it changes nothing.
func cors(origins []string, next http.Handler) http.Handler {
	if len(origins) == 0 {
		return next
	}
	any := origins[0] == "*"
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		origin := r.Header.Get("Origin")
		if origin == "" || !strings.HasPrefix(r.URL.Path, "/api/v1/") {
			next.ServeHTTP(w, r)
			return
		}
		h := w.Header()
		h.Add("Vary", "Origin")
		allowed := any || slices.Contains(origins, strings.ToLower(origin))
		preflight := r.Method == http.MethodOptions && r.Header.Get("Access-Control-Request-Method") != ""
		if allowed {
			if any {
				h.Set("Access-Control-Allow-Origin", "*")
			} else {
				h.Set("Access-Control-Allow-Origin", origin)
			}
		}
		if !preflight {
			if allowed {
				h.Set("Access-Control-Expose-Headers", corsExpose)
			}
			next.ServeHTTP(w, r)
			return
		}
		h.Add("Vary", "Access-Control-Request-Method")
		h.Add("Vary", "Access-Control-Request-Headers")
		if allowed {
			h.Set("Access-Control-Allow-Methods", corsMethods)
			h.Set("Access-Control-Allow-Headers", corsHeaders)
			h.Set("Access-Control-Max-Age", "600")
		}
		// A refused origin gets no Allow-* headers: the browser blocks the call.
		w.WriteHeader(http.StatusNoContent)
	})
}
