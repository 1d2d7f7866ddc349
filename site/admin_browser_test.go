package site_test

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"time"

	"launchdir/apitest"
	"launchdir/testsite"

	"github.com/chromedp/chromedp"
)

// areaBrowserCtx is browserCtx with room for a loaded machine: the founder
// journey crawls a site and pays, many steps in one browser.
func areaBrowserCtx(t *testing.T) context.Context { return browserCtxFor(t, 5*time.Minute) }

// signInBrowser gives the browser the person's session cookie.
func signInBrowser(t *testing.T, ctx context.Context, e *areaEnv, userID int64) {
	t.Helper()
	p := e.as(userID)
	err := chromedp.Do(ctx, chromedp.Navigate(e.URL+"/robots.txt"),
		chromedp.Evaluate[chromedp.Void](`document.cookie = "ld_session=`+p.cookie+`; path=/"`))
	if err != nil {
		t.Fatal(err)
	}
}

// mainText is the text of the page's main element.
func mainText(t *testing.T, ctx context.Context) string {
	t.Helper()
	s, err := chromedp.Run(ctx, chromedp.Text(chromedp.CSS("main")))
	if err != nil {
		t.Fatal(err)
	}
	return s
}

// A founder creates a key in the keys area and uses it against the API.
func TestBrowserFounderCreatesAKey(t *testing.T) {
	ctx := areaBrowserCtx(t)
	e := newAreaEnv(t)
	signInBrowser(t, ctx, e, 1)
	err := chromedp.Do(ctx, chromedp.Navigate(e.URL+"/me/keys"),
		chromedp.SendKeys(chromedp.CSS("#key-name"), "Zapier"),
		chromedp.Click(chromedp.CSS(`input[value="listings:write"]`)),
		chromedp.Click(chromedp.CSS(`form[action="/me/keys"] button`)),
		chromedp.WaitVisible(chromedp.CSS("#secret")))
	if err != nil {
		t.Fatal(err)
	}
	secret, err := chromedp.Run(ctx, chromedp.Text(chromedp.CSS("#secret")))
	if err != nil || !strings.HasPrefix(secret, "ldk_") {
		t.Fatalf("secret %q: %v", secret, err)
	}
	screenshot(t, ctx, "founder-keys")
	checkAxe(t, ctx, "founder-keys")
	r := e.Do("GET", "/api/v1/me", nil, apitest.Bearer(secret)...)
	if r.Status != 200 || !strings.Contains(string(r.Body), `"listings:write"`) {
		t.Fatalf("key against the API: %d %s", r.Status, r.Body)
	}
	// Reloading the list never shows the secret again.
	if err := chromedp.Do(ctx, chromedp.Navigate(e.URL+"/me/keys")); err != nil {
		t.Fatal(err)
	}
	if txt := mainText(t, ctx); strings.Contains(txt, secret) || !strings.Contains(txt, "Zapier") {
		t.Fatalf("list after reload: %s", txt)
	}
}

// The site team reverts an owner edit; the API shows the reverted value.
func TestBrowserAdminRevertsAnOwnerEdit(t *testing.T) {
	ctx := areaBrowserCtx(t)
	e := newAreaEnv(t)
	before := e.Do("GET", "/api/v1/listings/quickbase", nil).JSON()["tagline"]
	if r := e.Do("PATCH", "/api/v1/me/listings/1", map[string]any{"fields": map[string]any{"tagline": "Spammy owner tagline"}},
		apitest.Bearer(e.APIKey("owner@example.com"))...); r.Status != 200 {
		t.Fatalf("patch: %d", r.Status)
	}
	signInBrowser(t, ctx, e, e.admin)
	if err := chromedp.Do(ctx, chromedp.Navigate(e.URL+"/admin/revisions?listing=1")); err != nil {
		t.Fatal(err)
	}
	if txt := mainText(t, ctx); !strings.Contains(txt, "Spammy owner tagline") {
		t.Fatalf("revisions page: %s", txt)
	}
	screenshot(t, ctx, "admin-revisions")
	checkAxe(t, ctx, "admin-revisions")
	err := chromedp.Do(ctx, chromedp.Click(chromedp.CSS(`form[action$="/revert"] input[name="confirm"]`)),
		chromedp.Click(chromedp.CSS(`form[action$="/revert"] button`)),
		chromedp.WaitVisible(chromedp.CSS(`p.msg`)))
	if err != nil {
		t.Fatal(err)
	}
	if got := e.Do("GET", "/api/v1/listings/quickbase", nil).JSON()["tagline"]; got != before {
		t.Fatalf("API after revert: %v, want %v", got, before)
	}
	// The audit log wraps its long before/after values at 1280 px.
	long := strings.Repeat("a-very-long-unbroken-description-", 60)
	e.Do("PATCH", "/api/v1/me/listings/1", map[string]any{"fields": map[string]any{"description": long}}, apitest.Bearer(e.APIKey("owner@example.com"))...)
	if err := chromedp.Do(ctx, chromedp.EmulateViewport(1280, 900), chromedp.Navigate(e.URL+"/admin/revisions?listing=1")); err != nil {
		t.Fatal(err)
	}
	err = chromedp.Do(ctx, chromedp.Click(chromedp.CSS(`form[action$="/revert"] input[name="confirm"]`)),
		chromedp.Click(chromedp.CSS(`form[action$="/revert"] button`)), chromedp.WaitVisible(chromedp.CSS(`p.msg`)),
		chromedp.Navigate(e.URL+"/admin/audit"))
	if err != nil {
		t.Fatal(err)
	}
	screenshot(t, ctx, "admin-audit-1280")
	if sw, _ := chromedp.Run(ctx, chromedp.Evaluate[float64](`document.documentElement.scrollWidth`)); sw > 1280 {
		t.Errorf("audit log at 1280 px is %v px wide", sw)
	}
	// Moderation is usable on a phone: its tables stack at 390 px.
	if err := chromedp.Do(ctx, chromedp.EmulateViewport(390, 900), chromedp.Navigate(e.URL+"/admin/moderation")); err != nil {
		t.Fatal(err)
	}
	screenshot(t, ctx, "admin-moderation-390")
	checkAxe(t, ctx, "admin-moderation-390")
	if sw, _ := chromedp.Run(ctx, chromedp.Evaluate[float64](`document.documentElement.scrollWidth`)); sw > 390 {
		t.Errorf("moderation at 390 px is %v px wide", sw)
	}
}

// The site team imports a Domain Rating CSV; the board shows it.
func TestBrowserAdminImportsDomainRating(t *testing.T) {
	ctx := areaBrowserCtx(t)
	e := newAreaEnv(t)
	signInBrowser(t, ctx, e, e.admin)
	err := chromedp.Do(ctx, chromedp.Navigate(e.URL+"/admin/data"),
		chromedp.SendKeys(chromedp.CSS("#im-source"), "Ahrefs export"),
		chromedp.SetValue(chromedp.CSS("#im-asof"), "2026-11-15"),
		chromedp.SetValue(chromedp.CSS("#im-csv"), "slug,domain_rating\ntablely,93\n"),
		chromedp.Click(chromedp.CSS(`form[action="/admin/data/preview"] button`)),
		chromedp.WaitVisible(chromedp.CSS(`form[action="/admin/data/apply"] button`)))
	if err != nil {
		t.Fatal(err)
	}
	screenshot(t, ctx, "admin-data-preview")
	err = chromedp.Do(ctx, chromedp.Click(chromedp.CSS(`form[action="/admin/data/apply"] button`)),
		chromedp.WaitVisible(chromedp.CSS(`p.msg`)),
		chromedp.Navigate(e.URL+"/leaderboards/domain-rating"))
	if err != nil {
		t.Fatal(err)
	}
	if txt := mainText(t, ctx); !strings.Contains(txt, "Tablely") || !strings.Contains(txt, "Ahrefs export, as of 15 Nov 2026") {
		t.Fatalf("board: %s", txt)
	}
	screenshot(t, ctx, "domain-rating-board")
}

// A signed-in non-admin gets the 404 page on every admin page.
func TestBrowserNonAdminGetsNotFound(t *testing.T) {
	ctx := areaBrowserCtx(t)
	e := newAreaEnv(t)
	signInBrowser(t, ctx, e, 1)
	for _, path := range adminGETs {
		tctx, cancel := context.WithTimeout(ctx, 20*time.Second)
		err := chromedp.Do(tctx, chromedp.Navigate(e.URL+path))
		cancel()
		if err != nil {
			t.Fatal(err)
		}
		if txt := mainText(t, ctx); !strings.Contains(txt, "Page not found") {
			t.Errorf("%s: %s", path, txt)
		}
	}
	screenshot(t, ctx, "admin-not-found")
}

// A founder submits a fixture site, watches the progress, edits and locks a
// field, submits, sees what the free launch misses, buys a paid launch on
// the checkout page and finds the listing live.
func TestBrowserFounderJourney(t *testing.T) {
	ctx := areaBrowserCtx(t)
	e := newAreaEnvWith(t, apitest.Options{Fixture: true, Background: true})
	fixture := testsite.Serve(t, "acme-analytics", nil)
	signInBrowser(t, ctx, e, 1)
	err := chromedp.Do(ctx, chromedp.Navigate(e.URL+"/me/drafts"),
		chromedp.SendKeys(chromedp.CSS("#d-url"), fixture.URL+"/"),
		chromedp.Click(chromedp.CSS(`form[action="/me/drafts"] button`)),
		chromedp.WaitVisible(chromedp.CSS("#draft-status")))
	if err != nil {
		t.Fatal(err)
	}
	// The page polls while the site is read and reloads when it is ready.
	deadline := time.Now().Add(2 * time.Minute)
	for {
		st, err := chromedp.Run(ctx, chromedp.Text(chromedp.CSS("#draft-status")))
		if err == nil && st == "ready for you to check" {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("draft status %q: %v", st, err)
		}
		time.Sleep(200 * time.Millisecond)
	}
	screenshot(t, ctx, "founder-draft-review")
	checkAxe(t, ctx, "founder-draft-review")
	// One form, one save: two fields edited and a category chosen, saved
	// once, are all kept (and the fields not touched keep their state).
	err = chromedp.Do(ctx, chromedp.SetValue(chromedp.CSS("#v-tagline"), "Cookie-free analytics"),
		chromedp.SetValue(chromedp.CSS("#v-pricing_summary"), "Free up to 10k views, then $9 a month"),
		chromedp.SetValue(chromedp.CSS("#cat-primary"), "Developer Tools"),
		chromedp.Click(chromedp.CSS(`.savebar button`)))
	if err != nil {
		t.Fatal(err)
	}
	waitText(t, ctx, "The draft was updated.")
	if err := chromedp.Do(ctx, chromedp.Navigate(e.URL+"/me/drafts/"+draftIDFromURL(t, ctx))); err != nil {
		t.Fatal(err)
	}
	for sel, want := range map[string]string{"#v-tagline": "Cookie-free analytics", "#v-pricing_summary": "Free up to 10k views, then $9 a month", "#cat-primary": "Developer Tools"} {
		if got, err := chromedp.Run(ctx, chromedp.Value(chromedp.CSS(sel))); err != nil || got != want {
			t.Fatalf("%s after one save: %q (%v), want %q", sel, got, err, want)
		}
	}
	txt := strings.Join(strings.Fields(mainText(t, ctx)), " ")
	if !strings.Contains(txt, "Tagline (changed by you)") || !strings.Contains(txt, "Pricing in short (changed by you)") || !strings.Contains(txt, "Product name (from your site)") {
		t.Fatalf("states after one save: %s", txt)
	}
	if card, _ := chromedp.Run(ctx, chromedp.Text(chromedp.CSS(".cards.preview"))); !strings.Contains(card, "Cookie-free analytics") || !strings.Contains(card, "Developer Tools") {
		t.Fatalf("card preview: %q", card)
	}
	checkAxe(t, ctx, "founder-draft-saved")
	for _, w := range []int64{1280, 390} {
		if err := chromedp.Do(ctx, chromedp.EmulateViewport(w, 900)); err != nil {
			t.Fatal(err)
		}
		screenshot(t, ctx, fmt.Sprintf("founder-draft-%d", w))
		if w == 390 {
			checkAxe(t, ctx, "founder-draft-390")
			if sw, _ := chromedp.Run(ctx, chromedp.Evaluate[float64](`document.documentElement.scrollWidth`)); sw > 390 {
				t.Errorf("draft page at 390 px is %v px wide", sw)
			}
		}
	}
	draftURL := e.URL + "/me/drafts/" + draftIDFromURL(t, ctx)
	if err := chromedp.Do(ctx, chromedp.EmulateViewport(1280, 900), chromedp.Navigate(draftURL+"/preview")); err != nil {
		t.Fatal(err)
	}
	if txt := mainText(t, ctx); !strings.Contains(txt, "Cookie-free analytics") {
		t.Fatalf("page preview: %s", txt)
	}
	screenshot(t, ctx, "founder-draft-preview")
	checkAxe(t, ctx, "founder-draft-preview")
	if err := chromedp.Do(ctx, chromedp.Navigate(draftURL)); err != nil {
		t.Fatal(err)
	}
	if err := chromedp.Do(ctx, chromedp.EmulateViewport(1280, 900), chromedp.Click(chromedp.CSS(`button[value="lock:tagline"]`))); err != nil {
		t.Fatal(err)
	}
	waitText(t, ctx, "locked: drafting again leaves it as it is")
	err = chromedp.Do(ctx, chromedp.Click(chromedp.CSS(`form[action$="/submit"] button`)),
		chromedp.WaitVisible(chromedp.CSS("#status")),
		chromedp.Click(chromedp.CSS(`form[action$="/free"] button`)),
		chromedp.WaitVisible(chromedp.CSS(`ul[aria-label="What is missing"]`)))
	if err != nil {
		t.Fatal(err)
	}
	screenshot(t, ctx, "founder-listing-free-missing")
	err = chromedp.Do(ctx, chromedp.SetValue(chromedp.CSS("#b-product"), "launch"),
		chromedp.SetValue(chromedp.CSS("#b-country"), "US"),
		chromedp.Click(chromedp.CSS(`button[value="checkout"]`)),
		chromedp.WaitVisible(chromedp.CSS(`button[value="succeed"]`)),
		chromedp.Click(chromedp.CSS(`button[value="succeed"]`)),
		// The "Next steps" links are on the page before paying too: wait
		// for what only the paid page shows, else a loaded machine lets the
		// wait pass on the old page and the next action meets the
		// navigation (it then hangs until the test's deadline).
		chromedp.WaitVisible(`//p[contains(., "Your purchase is active")]`))
	if err != nil {
		t.Fatal(err)
	}
	screenshot(t, ctx, "checkout-paid")
	if st, _ := chromedp.Run(ctx, chromedp.Text(chromedp.CSS("#status"))); st != "paid" {
		t.Fatalf("checkout status %q", st)
	}
	// The listing is live: the checkout page links to its public page.
	err = chromedp.Do(ctx, chromedp.Click(chromedp.CSS(`nav[aria-label="Next steps"] a`)))
	if err != nil {
		t.Fatal(err)
	}
	time.Sleep(300 * time.Millisecond)
	if txt := mainText(t, ctx); !strings.Contains(txt, "Cookie-free analytics") {
		t.Fatalf("public listing page: %s", txt)
	}
}

// draftIDFromURL is the draft id of the draft page the browser shows.
func draftIDFromURL(t *testing.T, ctx context.Context) string {
	t.Helper()
	u, err := chromedp.Run(ctx, chromedp.Location())
	if err != nil {
		t.Fatal(err)
	}
	u = strings.TrimPrefix(u[strings.Index(u, "/me/drafts/"):], "/me/drafts/")
	if i := strings.IndexAny(u, "?#/"); i >= 0 {
		u = u[:i]
	}
	return u
}

// waitText waits until the page's main text contains want.
func waitText(t *testing.T, ctx context.Context, want string) {
	t.Helper()
	deadline := time.Now().Add(time.Minute)
	for {
		txt, err := chromedp.Run(ctx, chromedp.Text(chromedp.CSS("main")))
		if err == nil && strings.Contains(txt, want) {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("page never showed %q: %s", want, txt)
		}
		time.Sleep(100 * time.Millisecond)
	}
}
