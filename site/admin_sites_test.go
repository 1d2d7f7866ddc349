package site_test

import (
	"io"
	"net/http"
	"net/url"
	"strings"
	"testing"

	"launchdir/apitest"
	"launchdir/app/kernel"

	"github.com/chromedp/chromedp"
)

// The site team's Sites pages: add a site, edit every field, a refusal
// names the field in words and keeps what was typed; others find no page.
func TestAdminSitesPages(t *testing.T) {
	e := newAreaEnv(t)
	if r := e.as(1).get("/admin/sites"); r.status != 404 {
		t.Fatalf("non-admin: %d", r.status)
	}
	a := e.as(e.admin)
	if r := a.get("/admin/sites"); r.status != 200 || !strings.Contains(r.body, "Test Directory") {
		t.Fatalf("sites page: %d %s", r.status, r.body)
	}
	// A refused key: the field in words, what was typed kept.
	r := a.post("/admin/sites", "/admin/sites", url.Values{"key": {"Dev Tools"}, "origin": {"http://devtools.test"}})
	if r.status != 400 || !strings.Contains(r.body, "Key: may hold only") || !strings.Contains(r.body, `value="http://devtools.test"`) {
		t.Fatalf("refused key: %d %s", r.status, r.body)
	}
	r = a.post("/admin/sites", "/admin/sites", url.Values{"key": {"devtools"}, "origin": {"http://devtools.test"}, "name": {"DevTools Launch"}})
	if r.status != 303 || !strings.HasPrefix(r.loc, "/admin/sites/devtools") {
		t.Fatalf("create: %d %s", r.status, r.loc)
	}
	form := url.Values{"origin": {"http://devtools.test"}, "hosts": {"dev.test:8080\nwww.devtools.test"}, "name": {"DevTools Launch"},
		"tagline": {"Tools for builders"}, "accent_color": {"#0f766e"}, "email_from_name": {"DevTools"}, "categories": {"developer-tools"},
		"free_weekly_capacity": {"5"}, "free_queue_weeks": {"2"}, "price_launch": {"12.34"}}
	if r := a.post("/admin/sites/devtools", "/admin/sites/devtools", form); r.status != 303 {
		t.Fatalf("save: %d %s", r.status, r.body)
	}
	r = a.get("/admin/sites/devtools")
	for _, want := range []string{`value="#0f766e"`, "www.devtools.test", `value="developer-tools" checked`, `value="12.34"`, `value="5"`, "Tools for builders"} {
		if !strings.Contains(r.body, want) {
			t.Errorf("edit page lacks %s", want)
		}
	}
	if site, _ := e.App.SiteForHost(t.Context(), "www.devtools.test"); site == nil || site.Key != "devtools" {
		t.Errorf("extra host not routed")
	}
	// A bad colour and a bad price: named in words, the typed values kept.
	form.Set("accent_color", "green")
	form.Set("price_launch", "12.345")
	r = a.post("/admin/sites/devtools", "/admin/sites/devtools", form)
	if r.status != 400 || !strings.Contains(r.body, "Price of launch") || !strings.Contains(r.body, `value="green"`) || !strings.Contains(r.body, `value="12.345"`) {
		t.Fatalf("refused edit: %d %s", r.status, r.body)
	}
	form.Set("price_launch", "12.34")
	r = a.post("/admin/sites/devtools", "/admin/sites/devtools", form)
	if r.status != 400 || !strings.Contains(r.body, "Accent colour: must be a colour") {
		t.Fatalf("refused colour: %d %s", r.status, r.body)
	}
	// Its logo is its own; main keeps none.
	if pg := a.postImage("/admin/sites/devtools/images", "/admin/sites/devtools", map[string]string{"which": "site_logo"}, apitest.PNG(120, 60)); pg.status != 303 {
		t.Fatalf("logo upload: %d %s", pg.status, pg.body)
	}
	if pg := a.postImage("/admin/sites/devtools/images", "/admin/sites/devtools", map[string]string{"which": "favicon"}, []byte("not an image")); pg.status != 400 || !strings.Contains(pg.body, "Image:") {
		t.Fatalf("bad favicon: %d %s", pg.status, pg.body)
	}
	dev, _ := e.App.SiteByKey(t.Context(), "devtools")
	if p := e.App.Media.SiteLogoPath(kernel.WithSite(t.Context(), dev)); p == "" || !strings.Contains(a.get("/admin/sites/devtools").body, p) {
		t.Errorf("devtools' logo %q not set or not shown", p)
	}
	if p := e.App.Media.SiteLogoPath(t.Context()); p != "" {
		t.Errorf("main got devtools' logo: %q", p)
	}
	// Without the CSRF token nothing changes.
	if r := a.do("POST", "/admin/sites/devtools/delete", "application/x-www-form-urlencoded", strings.NewReader("force=1")); r.status != 403 {
		t.Fatalf("no csrf: %d", r.status)
	}
	if r := a.post("/admin/sites/devtools/delete", "/admin/sites/devtools", url.Values{"force": {"1"}}); r.status != 303 {
		t.Fatalf("delete: %d %s", r.status, r.body)
	}
	if _, ok := e.App.SiteByKey(t.Context(), "devtools"); ok {
		t.Fatal("deleted site still there")
	}
}

// The Sites pages at 1280, 390 and 320 px, axe clean, no sideways scroll.
func TestBrowserAdminSites(t *testing.T) {
	ctx := areaBrowserCtx(t)
	e := newAreaEnv(t)
	a := e.as(e.admin)
	a.post("/admin/sites", "/admin/sites", url.Values{"key": {"devtools"}, "origin": {"http://devtools.test"}, "name": {"DevTools Launch"}})
	signInBrowser(t, ctx, e, e.admin)
	for _, p := range []struct{ path, name string }{{"/admin/sites", "admin-sites"}, {"/admin/sites/devtools", "admin-site-edit"}} {
		for _, w := range []int64{1280, 390, 320} {
			if err := chromedp.Do(ctx, chromedp.EmulateViewport(w, 900), chromedp.Navigate(e.URL+p.path)); err != nil {
				t.Fatal(err)
			}
			over, err := chromedp.Run(ctx, chromedp.Evaluate[bool](`document.documentElement.scrollWidth > window.innerWidth + 1`))
			if err != nil {
				t.Fatal(err)
			}
			if over {
				t.Errorf("%s scrolls sideways at %d px", p.path, w)
			}
			screenshot(t, ctx, p.name+"-"+map[int64]string{1280: "1280", 390: "390", 320: "320"}[w])
			if w == 1280 {
				checkAxe(t, ctx, p.name)
			}
		}
	}
}

// On another site's host the signed-in areas read the whole network (an
// owner's listings, the site team's queues), while the public reads of
// that host show only its own listings.
func TestOwnerAreaOnAnotherSitesHost(t *testing.T) {
	e := newAreaEnv(t)
	if _, err := e.DB.W.Exec(`INSERT INTO sites(key, origin, created_at, updated_at) VALUES ('devtools', 'http://devtools.test', '2026-01-01', '2026-01-01')`); err != nil {
		t.Fatal(err)
	}
	e.App.ReloadSites()
	owner := e.as(1)
	get := func(path string) (int, string) {
		req, _ := http.NewRequest("GET", e.URL+path, nil)
		req.Host = "devtools.test"
		req.AddCookie(&http.Cookie{Name: "ld_session", Value: owner.cookie})
		resp, err := owner.c.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		b, _ := io.ReadAll(resp.Body)
		return resp.StatusCode, string(b)
	}
	if status, body := get("/me/listings"); status != 200 || !strings.Contains(body, "QuickBase") {
		t.Fatalf("owner's listings on devtools' host: %d %.300s", status, body)
	}
	// The site team's moderation queue is the network's: reviews of a
	// listing devtools does not show are there too.
	owner = e.as(e.admin)
	if status, body := get("/admin/moderation"); status != 200 || !strings.Contains(body, "QuickBase") {
		t.Fatalf("moderation on devtools' host: %d", status)
	}
	if status, _ := get("/api/v1/listings/quickbase"); status != 404 {
		t.Fatalf("quickbase is public on devtools without being on it: %d", status)
	}
}
