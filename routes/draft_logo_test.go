package routes_test

import (
	"net/http"
	"strings"
	"testing"

	"launchdir/apitest"
	"launchdir/testsite"
)

// The drafter's logo: fetched (through the crawler's client), re-encoded,
// kept with the draft with its evidence, carried to the listing on submit;
// an SVG logo is not kept (the draft says none was found).
func TestDraftLogoArrivesOnListing(t *testing.T) {
	e := newDraftEnv(t)
	site := testsite.Serve(t, "cartelier", nil)
	site.Overrides["/images/cartelier-logo.png"] = func(w http.ResponseWriter, r *http.Request) { w.Write(apitest.PNG(200, 200)) }
	d := e.wait(t, e.submit(t, site.URL+"/").ID)
	if d.Status != "ready" {
		t.Fatalf("status %s", d.Status)
	}
	got := e.Do("GET", "/api/v1/drafts/"+d.ID, nil, e.owner...).JSON()
	logo, _ := got["logo"].(map[string]any)
	if logo == nil || !strings.HasPrefix(logo["url"].(string), e.URL+"/media/") || logo["source"] != site.URL+"/images/cartelier-logo.png" ||
		!strings.HasPrefix(logo["page"].(string), site.URL) {
		t.Fatalf("draft logo: %v", got["logo"])
	}
	r := e.Do("POST", "/api/v1/drafts/"+d.ID+"/submit", nil, e.owner...)
	if r.Status != 200 && r.Status != 201 {
		t.Fatalf("submit: %d %s", r.Status, r.Body)
	}
	var logoURL string
	e.DB.R.QueryRow(`SELECT l.logo_url FROM listings l JOIN drafts d ON d.listing_id = l.id WHERE d.id = ?`, d.ID).Scan(&logoURL)
	if logoURL != logo["url"] {
		t.Errorf("listing logo_url %q, want %q", logoURL, logo["url"])
	}
	if g := e.Do("GET", strings.TrimPrefix(logoURL, e.URL), nil); g.Status != 200 || g.Header.Get("Content-Type") != "image/png" {
		t.Errorf("stored logo: %d %s", g.Status, g.Header.Get("Content-Type"))
	}

	// helpwise names an SVG logo: refused, so the draft has none.
	svgSite := testsite.Serve(t, "helpwise", nil)
	svgSite.Overrides["/static/helpwise-logo.svg"] = func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "image/svg+xml")
		w.Write([]byte(`<svg xmlns="http://www.w3.org/2000/svg"><script>alert(1)</script></svg>`))
	}
	d2 := e.wait(t, e.submit(t, svgSite.URL+"/").ID)
	if got := e.Do("GET", "/api/v1/drafts/"+d2.ID, nil, e.owner...).JSON(); got["logo"] != nil {
		t.Errorf("an SVG logo was kept: %v", got["logo"])
	}

	// forgeci's logo is an SVG too, but the site has the conventional
	// apple-touch-icon: the drafter falls back to it, evidence the home page.
	iconSite := testsite.Serve(t, "forgeci", nil)
	iconSite.Overrides["/apple-touch-icon.png"] = func(w http.ResponseWriter, r *http.Request) { w.Write(apitest.PNG(180, 180)) }
	d3 := e.wait(t, e.submit(t, iconSite.URL+"/").ID)
	got = e.Do("GET", "/api/v1/drafts/"+d3.ID, nil, e.owner...).JSON()
	if l, _ := got["logo"].(map[string]any); l == nil || l["source"] != iconSite.URL+"/apple-touch-icon.png" || !strings.HasPrefix(l["page"].(string), iconSite.URL) {
		t.Errorf("fallback icon: %v", got["logo"])
	}
}
