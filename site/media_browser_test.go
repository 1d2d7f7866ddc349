package site_test

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/cdproto/cdp"
	"github.com/chromedp/cdproto/emulation"
	"github.com/chromedp/chromedp"
)

// viewport sets the page's width (mobile for narrow ones) and colour scheme.
func viewport(t *testing.T, ctx context.Context, width int64, dark bool) {
	t.Helper()
	scheme := "light"
	if dark {
		scheme = "dark"
	}
	opts := []chromedp.EmulateViewportOption{}
	if width < 600 {
		opts = append(opts, chromedp.EmulateMobile)
	}
	err := chromedp.Do(ctx, chromedp.EmulateViewport(width, 900, opts...),
		chromedp.Func(func(ctx context.Context, t *chromedp.Target) error {
			_, err := cdp.Call(ctx, t, emulation.SetEmulatedMedia, emulation.SetEmulatedMediaParams{
				Features: []*emulation.MediaFeature{{Name: "prefers-color-scheme", Value: scheme}}})
			return err
		}))
	if err != nil {
		t.Fatal(err)
	}
}

// waitTrue polls a JavaScript condition until it holds (images load
// asynchronously) and reports the last value.
func waitTrue(ctx context.Context, js string) (bool, error) {
	deadline := time.Now().Add(15 * time.Second)
	for {
		ok, err := chromedp.Run(ctx, chromedp.Evaluate[bool](js))
		if err != nil || ok || time.Now().After(deadline) {
			return ok, err
		}
		time.Sleep(100 * time.Millisecond)
	}
}

// loaded is true when every image matching sel has decoded (naturalWidth > 0).
func loaded(sel string) string {
	return fmt.Sprintf(`(() => { const im = [...document.querySelectorAll(%q)]; return im.length > 0 && im.every(i => i.complete && i.naturalWidth > 0); })()`, sel)
}

// TestBrowserImages: on the demo directory, every card on the home page
// shows a logo that loaded, a listing page shows its logo, gallery (a plain
// list, also without JavaScript), founders' pictures and a social card;
// no page overflows at 320 px; axe is clean in light and dark mode;
// screenshots at 1280 and 390 px are saved.
func TestBrowserImages(t *testing.T) {
	ctx := browserCtx(t)
	e := newEnv(t)
	var slug string
	e.DB.R.QueryRow(`SELECT l.slug FROM listings l WHERE l.status = 'live' AND l.unlock_media = 1
		AND (SELECT count(*) FROM media m WHERE m.listing_id = l.id AND m.kind = 'image') >= 3 ORDER BY l.votes DESC LIMIT 1`).Scan(&slug)
	if slug == "" {
		t.Fatal("no live listing with a gallery in the demo")
	}
	nav := func(path string) {
		t.Helper()
		if err := chromedp.Do(ctx, chromedp.Navigate(e.URL+path)); err != nil {
			t.Fatal(err)
		}
	}
	for _, w := range []int64{1280, 390} {
		viewport(t, ctx, w, false)
		nav("/")
		// Every card has a logo image; those in view have loaded (lazy ones
		// below load as they scroll in).
		cards, _ := chromedp.Run(ctx, chromedp.Evaluate[int](`document.querySelectorAll('.card').length`))
		logos, _ := chromedp.Run(ctx, chromedp.Evaluate[int](`document.querySelectorAll('.card img.logo').length`))
		if cards == 0 || logos != cards {
			t.Errorf("%d px: %d cards, %d logo images", w, cards, logos)
		}
		if ok, err := waitTrue(ctx, `(() => { const im = [...document.querySelectorAll('.card img.logo')].filter(i => i.getBoundingClientRect().top < innerHeight); return im.length > 0 && im.every(i => i.complete && i.naturalWidth > 0); })()`); !ok {
			t.Errorf("%d px: the home page's visible logos did not load (%v)", w, err)
		}
		// Scrolled through, every lazy logo loads too.
		if ok, err := waitTrue(ctx, `(() => { scrollTo(0, document.body.scrollHeight); return [...document.querySelectorAll('.card img.logo')].every(i => i.complete && i.naturalWidth > 0); })()`); !ok {
			t.Errorf("%d px: not every logo on the home page loaded (%v)", w, err)
		}
		chromedp.Run(ctx, chromedp.Evaluate[chromedp.Void](`scrollTo(0, 0)`))
		screenshot(t, ctx, fmt.Sprintf("images-home-%d", w))
		checkAxe(t, ctx, fmt.Sprintf("home %d px", w))

		nav("/listings/" + slug)
		if ok, err := waitTrue(ctx, loaded(".listing-head img.logo")); !ok {
			t.Errorf("%d px: the listing's logo did not load (%v)", w, err)
		}
		n, _ := chromedp.Run(ctx, chromedp.Evaluate[int](`document.querySelectorAll('.gallery li img').length`))
		if n < 3 {
			t.Errorf("%d px: gallery shows %d images", w, n)
		}
		if ok, err := waitTrue(ctx, `(() => { document.querySelector('.gallery').scrollIntoView(); const i = document.querySelector('.gallery li img'); return i.complete && i.naturalWidth > 0; })()`); !ok {
			t.Errorf("%d px: the first screenshot did not load (%v)", w, err)
		}
		if ok, _ := waitTrue(ctx, loaded("img.avatar")); !ok {
			t.Errorf("%d px: founders' pictures did not load", w)
		}
		screenshot(t, ctx, fmt.Sprintf("images-listing-%d", w))
		checkAxe(t, ctx, fmt.Sprintf("listing %d px", w))
	}

	// The share card: og:image is a 1200×630 PNG that loads.
	og, _ := chromedp.Run(ctx, chromedp.Evaluate[string](`document.querySelector('meta[property="og:image"]').content`))
	if !strings.Contains(og, "/og/listing/"+slug+".png?v=") {
		t.Errorf("og:image %q", og)
	}
	nav(strings.TrimPrefix(og, e.URL))
	if ok, _ := waitTrue(ctx, `(() => { const i = document.querySelector('img'); return !!i && i.naturalWidth === 1200 && i.naturalHeight === 630; })()`); !ok {
		t.Errorf("the social card is not a 1200×630 image")
	}
	screenshot(t, ctx, "images-social-card")

	// Dark mode: same pages, axe checks the contrast of the dark colours.
	viewport(t, ctx, 1280, true)
	for _, p := range []string{"/", "/listings/" + slug} {
		nav(p)
		screenshot(t, ctx, "images-dark"+strings.ReplaceAll(p, "/", "-"))
		checkAxe(t, ctx, "dark "+p)
	}

	// Reflow: nothing wider than a 320 px viewport (WCAG 1.4.10).
	viewport(t, ctx, 320, false)
	for _, p := range []string{"/", "/listings/" + slug, "/search?q=a", "/launches/this", "/categories", "/leaderboards/community-weekly", "/founders", "/signin"} {
		nav(p)
		sw, _ := chromedp.Run(ctx, chromedp.Evaluate[int](`document.documentElement.scrollWidth`))
		if sw > 320 {
			wide, _ := chromedp.Run(ctx, chromedp.Evaluate[string](`[...document.querySelectorAll('body *')].filter(n => n.getBoundingClientRect().right > 321).slice(0, 3).map(n => n.tagName + '.' + n.className).join(', ')`))
			t.Errorf("%s at 320 px is %d px wide (%s)", p, sw, wide)
		}
	}
	screenshot(t, ctx, "images-listing-320")

	// Without JavaScript the gallery is the same plain list of images.
	if err := chromedp.Do(ctx, chromedp.Func(func(ctx context.Context, t *chromedp.Target) error {
		_, err := cdp.Call(ctx, t, emulation.SetScriptExecutionDisabled, emulation.SetScriptExecutionDisabledParams{Value: true})
		return err
	})); err != nil {
		t.Fatal(err)
	}
	viewport(t, ctx, 1280, false)
	nav("/listings/" + slug)
	time.Sleep(time.Second) // the first screenshot is not lazy; give it a moment
	nodes, err := chromedp.Run(ctx, chromedp.EvaluateAsDevTools[[]string](`[...document.querySelectorAll('.gallery li img')].map(i => String(i.naturalWidth))`))
	if err != nil {
		t.Fatal(err)
	}
	if len(nodes) < 3 || nodes[0] == "0" {
		t.Errorf("without JavaScript the gallery has %v", nodes)
	}
	screenshot(t, ctx, "images-listing-nojs")
}
