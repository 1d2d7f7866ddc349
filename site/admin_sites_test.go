package site_test

import (
	"net/url"
	"strings"
	"testing"

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
