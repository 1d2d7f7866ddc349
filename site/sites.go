package site

import (
	"context"
	"net/http"
	"strings"
	"time"

	"launchdir/app/media"
	"launchdir/db"
	"launchdir/site/layout"

	"github.com/julienschmidt/httprouter"
)

// Several sites, one website door: every page reads the site of its
// request (kernel.Site in the context, put there from the Host by
// routes.Server) for its origin, name, tagline, logo, favicon and colour;
// caches of whole bodies are kept per site.

// secure reports whether the request's site is served over https: its
// cookies are then Secure.
func (s *Site) secure(r *http.Request) bool {
	return strings.HasPrefix(s.App.Origin(r.Context()), "https://")
}

// cacheKey names a cached body of the request's site.
func (s *Site) cacheKey(ctx context.Context, name string) string {
	return s.App.SiteKey(ctx) + " " + name
}

// accent is the site's accent colour setting ("" for the default look).
func (s *Site) accent(ctx context.Context) string {
	return strings.TrimSpace(s.App.Setting(ctx, "accent_color", ""))
}

// themePath is the site's accent stylesheet, "" for the default look.
func (s *Site) themePath(ctx context.Context) string { return layout.ThemePath(s.accent(ctx)) }

// theme serves /theme.css: the accent colour of the request's site. Its
// address carries a hash of the content, so it may be cached long.
func (s *Site) theme(w http.ResponseWriter, r *http.Request, _ httprouter.Params) {
	css := layout.ThemeCSS(s.accent(r.Context()))
	w.Header().Set("Content-Type", "text/css; charset=utf-8")
	w.Header().Set("X-Content-Type-Options", "nosniff")
	writeBody(w, r, []byte(css), "public, max-age=86400")
}

// ownPath is the /media/ path of an image URL stored by any site of this
// process (an image uploaded on one site is stored with that site's
// origin, and every site serves /media/), or ok false for anything else.
func (s *Site) ownPath(u string) (string, bool) {
	for _, site := range s.App.Sites(context.Background()) {
		if p, ok := media.OwnPath(site.Origin, u); ok {
			return p, true
		}
	}
	return media.OwnPath(s.App.Origin(context.Background()), u)
}

// facetEntry is one site's cached category tree of the search filters.
type facetEntry struct {
	items []db.Category
	at    time.Time
}

// secureHeaders sets a page's CSP and framing headers; on a site other
// than main its forms may lead to main's sign-in handoff (handoff.go).
func (s *Site) secureHeaders(h http.Header, r *http.Request) {
	if s.onMain(r) {
		layout.SecureHeaders(h)
		return
	}
	layout.SecureHeadersFor(h, s.mainSite(r).Origin)
}
