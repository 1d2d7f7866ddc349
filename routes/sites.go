package routes

import (
	"fmt"
	"html"
	"net/http"
	"strings"

	"launchdir/app/kernel"
	"launchdir/ops"
	"launchdir/site/layout"
)

// routeSite puts the site the request is for into its context: the site
// whose host name the request names (behind a trusted proxy, the
// X-Forwarded-Host it saw), or, on the API and MCP endpoints of the main
// site's host, the site named by an explicit ?site= key. A host no site
// claims is refused with 421 and a page (or problem) saying so — never
// another site's content. Health checks answer on any host.
func (s *Server) routeSite(w http.ResponseWriter, r *http.Request) (*http.Request, bool) {
	if r.URL.Path == "/healthz" || r.URL.Path == "/readyz" {
		return r, true
	}
	host := s.requestHost(r)
	site, ok := s.App.SiteForHost(r.Context(), host)
	if !ok && strings.HasPrefix(r.URL.Path, "/static/") {
		// The shared stylesheet names no site: the refusal page uses it.
		return r, true
	}
	if !ok {
		s.unknownHost(w, r, host)
		return r, false
	}
	if key := r.URL.Query().Get("site"); key != "" && apiPath(r.URL.Path) && key != site.Key {
		if site.Key != kernel.MainSite {
			writeProblem(w, r, ops.InvalidFields([]ops.FieldError{{Field: "site",
				Message: fmt.Sprintf("this host serves the site %q; name another site only on the main site's host", site.Key)}}))
			return r, false
		}
		named, found := s.App.SiteByKey(r.Context(), key)
		if !found {
			writeProblem(w, r, &ops.Error{Code: ops.CodeNotFound, Detail: "no site has this key",
				Fields: []ops.FieldError{{Field: "site", Message: "no site has the key " + key}}})
			return r, false
		}
		site = named
	}
	return r.WithContext(kernel.WithSite(r.Context(), site)), true
}

// requestHost is the host name the client asked for.
func (s *Server) requestHost(r *http.Request) string {
	if s.Opts.TrustProxy {
		if fh := r.Header.Get("X-Forwarded-Host"); fh != "" {
			return strings.TrimSpace(strings.Split(fh, ",")[0])
		}
	}
	return r.Host
}

// apiPath: the doors where a program may name the site explicitly.
func apiPath(p string) bool {
	return strings.HasPrefix(p, "/api/") || p == "/mcp" || strings.HasPrefix(p, "/mcp/")
}

// unknownHost answers a request for a host no site claims: a problem for
// programs, a short page for people. It names no other site.
func (s *Server) unknownHost(w http.ResponseWriter, r *http.Request, host string) {
	if apiPath(r.URL.Path) || strings.Contains(r.Header.Get("Accept"), "json") {
		writeProblem(w, r, ops.Errorf(ops.CodeUnknownSite, "no directory is served at the host name %q", host))
		return
	}
	h := w.Header()
	layout.SecureHeaders(h)
	h.Set("Content-Type", "text/html; charset=utf-8")
	h.Set("Cache-Control", "no-store")
	w.WriteHeader(http.StatusMisdirectedRequest)
	fmt.Fprintf(w, `<!doctype html><html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1"><meta name="robots" content="noindex"><title>No directory here</title><link rel="stylesheet" href="/static/site.css"></head>
<body><main id="main" class="narrow"><h1>No directory here</h1><p>This server does not host a directory at <strong>%s</strong>.</p>
<p>If you run this server, add the host name to a site in the site team's area (Sites), or check the address you were given.</p></main></body></html>
`, html.EscapeString(host))
}
