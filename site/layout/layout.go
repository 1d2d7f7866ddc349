// Package layout is the one page frame of every HTML page the binary
// serves: the website (site), the OAuth sign-in and consent pages (oauth)
// and the checkout page (payments). Each door renders its own content, then
// wraps it here, so all pages share one header, footer and stylesheet
// (/static/site.css, served by the site door).
package layout

import (
	_ "embed"
	"html/template"
	"io"
	"net/http"
	"strings"
)

//go:embed layout.html
var layoutHTML string

var frame = template.Must(template.New("layout").Parse(layoutHTML))

// Head is what the frame needs besides the page's content.
type Head struct {
	Title       string
	Site        string
	Description string
	Canonical   string // absolute URL; empty leaves out canonical and OpenGraph tags
	OGType      string
	NoIndex     bool
	NoReferrer  bool
	Nav         string // highlighted navigation item
	Narrow      bool   // a small centred box (forms)
	OGImage     string // absolute URL of the page's social card (1200×630 PNG)
	SiteLogo    string // path of the site team's logo, shown beside the name
	Theme       string // the site's accent stylesheet (ThemePath), "" for the default look
	Tagline     string // the site's tagline, shown in the footer
	Account     template.HTML
	Body        template.HTML
}

// Render writes the whole page.
func Render(w io.Writer, h *Head) error {
	if h.OGType == "" {
		h.OGType = "website"
	}
	return frame.Execute(w, h)
}

// StyleSrc is the Content-Security-Policy directive pages need for the
// shared stylesheet (no scripts).
const StyleSrc = "style-src 'self' 'unsafe-inline'"

// PageCSP is the Content-Security-Policy of every public and people page
// (the founder and admin area, the OAuth and checkout pages have their
// own, as strict): nothing loads from another origin, scripts only from
// this site's files (no inline script), forms post only here, and no
// page can be framed (clickjacking a vote, follow or sign-in form).
const PageCSP = "default-src 'none'; script-src 'self'; " + StyleSrc + "; img-src 'self' data:; connect-src 'self'; " +
	"form-action 'self'; frame-ancestors 'none'; base-uri 'none'"

// SecureHeaders sets the headers every HTML page sends: the CSP above,
// X-Frame-Options for browsers without frame-ancestors, and nosniff.
func SecureHeaders(h http.Header) { SecureHeadersFor(h) }

// SecureHeadersFor is SecureHeaders for a page whose forms may also lead
// to the given origins: on a site other than main, a vote or sign-in
// pressed before signing in is sent on to the main site's sign-in handoff,
// and form-action also governs where a form's redirects go.
func SecureHeadersFor(h http.Header, formOrigins ...string) {
	csp := PageCSP
	if len(formOrigins) > 0 {
		csp = strings.Replace(csp, "form-action 'self'", "form-action 'self' "+strings.Join(formOrigins, " "), 1)
	}
	h.Set("Content-Security-Policy", csp)
	h.Set("X-Frame-Options", "DENY")
	h.Set("X-Content-Type-Options", "nosniff")
}
