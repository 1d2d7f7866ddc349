package site_test

import (
	"strings"
	"testing"

	"github.com/chromedp/chromedp"
)

// One person, two sites in one browser: signed in once on main (the only
// password typed), they vote on the second site through the sign-in
// handoff, then on main; each site counts its own vote. The second site's
// pages show its own name and colour at three widths and pass axe.
func TestBrowserTwoSites(t *testing.T) {
	ctx := browserCtx(t)
	e := peopleEnv(t)
	dev := devtoolsSite(t, e)
	signUp(t, e, "bo@example.com") // a verified account (signed in in another client)
	slug := firstSlug(t, e, "/api/v1/launches?section=this-week")
	devVotes := func() (n int) {
		e.DB.R.QueryRow(`SELECT count(*) FROM site_votes v JOIN listings l ON l.id = v.listing_id WHERE v.site_key = 'devtools' AND l.slug = ?`, slug).Scan(&n)
		return n
	}
	mainBefore := weeklyVotes(t, e, slug)

	nav := func(u string) {
		t.Helper()
		if err := chromedp.Do(ctx, chromedp.Navigate(u)); err != nil {
			t.Fatalf("%s: %v", u, err)
		}
	}
	nav(e.URL + "/signin")
	submit(t, ctx, `form[action="/signin"]`, map[string]string{"#email": "bo@example.com", "#password": "correct horse battery"})

	// The second site: not signed in there yet; the vote goes through main
	// and comes back cast, no password asked.
	nav(dev + "/listings/" + slug)
	if txt := mainText(t, ctx); strings.Contains(txt, "Sign out") {
		t.Fatal("signed in on devtools before any handoff")
	}
	submit(t, ctx, `form[action="/listings/`+slug+`/vote"]`, nil)
	at, _ := chromedp.Run(ctx, chromedp.Location())
	if txt := mainText(t, ctx); !strings.HasPrefix(at, dev+"/listings/"+slug) || !strings.Contains(txt, "Your vote is in.") {
		t.Fatalf("vote on devtools via the handoff: at %s: %.300s", at, txt)
	}
	if n := devVotes(); n != 1 {
		t.Errorf("devtools votes for %s: %d, want 1", slug, n)
	}
	if got := weeklyVotes(t, e, slug); got != mainBefore {
		t.Errorf("main's weekly votes moved with devtools' vote: %d → %d", mainBefore, got)
	}
	// Signed in on devtools now, in devtools' colour.
	accent, _ := chromedp.Run(ctx, chromedp.Evaluate[string](`getComputedStyle(document.documentElement).getPropertyValue('--accent').trim()`))
	if accent != "#0f766e" {
		t.Errorf("devtools accent: %q", accent)
	}
	brand, _ := chromedp.Run(ctx, chromedp.Text(chromedp.CSS("header .brand")))
	if strings.TrimSpace(brand) != "DevTools Hunt" {
		t.Errorf("devtools brand: %q", brand)
	}
	checkAxe(t, ctx, "devtools-listing-signed-in")

	// Then on main, the same listing: its own vote.
	nav(e.URL + "/listings/" + slug)
	submit(t, ctx, `form[action="/listings/`+slug+`/vote"]`, nil)
	if txt := mainText(t, ctx); !strings.Contains(txt, "Your vote is in.") {
		t.Fatalf("vote on main: %.300s", txt)
	}
	if got := weeklyVotes(t, e, slug); got != mainBefore+1 {
		t.Errorf("main's weekly votes: %d, want %d", got, mainBefore+1)
	}
	if n := devVotes(); n != 1 {
		t.Errorf("devtools votes moved with main's vote: %d", n)
	}

	// A host no site claims: the refusal page, styled, naming no site.
	nav(strings.Replace(dev, "devtools.localhost", "nowhere.localhost", 1) + "/")
	if txt := mainText(t, ctx); !strings.Contains(txt, "No directory here") || strings.Contains(txt, "DevTools") {
		t.Errorf("unknown host page: %.200s", txt)
	}
	screenshot(t, ctx, "unknown-host")
	checkAxe(t, ctx, "unknown-host")

	// devtools' home and listing at three widths.
	for _, w := range []int64{1280, 390, 320} {
		if err := chromedp.Do(ctx, chromedp.EmulateViewport(w, 900)); err != nil {
			t.Fatal(err)
		}
		for _, p := range []struct{ name, path string }{{"home", "/"}, {"listing", "/listings/" + slug}} {
			nav(dev + p.path)
			title, _ := chromedp.Run(ctx, chromedp.Title())
			if !strings.Contains(title, "DevTools Hunt") {
				t.Errorf("devtools %s title: %q", p.name, title)
			}
			overflow, _ := chromedp.Run(ctx, chromedp.Evaluate[bool](`document.documentElement.scrollWidth > document.documentElement.clientWidth`))
			if overflow {
				t.Errorf("devtools %s scrolls sideways at %d px", p.name, w)
			}
			screenshot(t, ctx, "devtools-"+p.name+"-"+itoa(w))
			if w == 1280 || w == 320 {
				checkAxe(t, ctx, "devtools-"+p.name+"-"+itoa(w))
			}
		}
	}
}
