package site_test

import (
	"fmt"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"launchdir/apitest"
	"launchdir/testsite"

	"github.com/chromedp/chromedp"
)

// The draft page's category suggestions (issue 28) as a founder sees them:
// the drafter's best categories with their quotes, a button per suggestion
// that is not the main category; readable at 1280, 390 and 320 px, axe clean.
func TestBrowserDraftCategorySuggestions(t *testing.T) {
	ctx := areaBrowserCtx(t)
	e := newAreaEnvWith(t, apitest.Options{Fixture: true, Background: true})
	site := testsite.Serve(t, "forgeci", nil)
	owner := e.as(1)
	pg := owner.post("/me/drafts", "/me/drafts", url.Values{"url": {site.URL + "/"}})
	id := strings.TrimPrefix(pg.loc, "/me/drafts/")
	waitDraft(t, owner, id)
	// Make another category the main one, so the suggestion has its button.
	dp := "/me/drafts/" + id
	form := formOf(t, owner.get(dp).body, `action="`+dp+`/save"`)
	form.Set("cat-primary", "Marketing")
	if pg := owner.post(dp+"/save", dp, form); pg.status != 303 {
		t.Fatalf("save: %d", pg.status)
	}
	signInBrowser(t, ctx, e, 1)
	for _, w := range []int64{1280, 390, 320} {
		if err := chromedp.Do(ctx, chromedp.EmulateViewport(w, 900), chromedp.Navigate(e.URL+dp),
			chromedp.WaitVisible(chromedp.CSS(".suggested"))); err != nil {
			t.Fatal(err)
		}
		screenshot(t, ctx, fmt.Sprintf("draft-suggestions-%d", w))
		// The picker itself, to look at without scrolling a long page.
		if png, err := chromedp.Run(ctx, chromedp.Screenshot(chromedp.CSS("#f-categories"))); err == nil {
			os.WriteFile(filepath.Join(artifactsDir(t), fmt.Sprintf("draft-suggestions-picker-%d.png", w)), png, 0o644)
		}
		checkAxe(t, ctx, fmt.Sprintf("draft-suggestions-%d", w))
		if sw, _ := chromedp.Run(ctx, chromedp.Evaluate[float64](`document.documentElement.scrollWidth`)); sw > float64(w) {
			t.Errorf("draft page at %d px is %v px wide", w, sw)
		}
	}
	// The button makes the suggestion the main category.
	if err := chromedp.Do(ctx, chromedp.Click(chromedp.CSS(`.suggested button[value^="primary:"]`)),
		chromedp.WaitVisible(chromedp.CSS(".suggested strong + .state"))); err != nil {
		t.Fatal(err)
	}
	sel, err := chromedp.Run(ctx, chromedp.Evaluate[string](`document.querySelector("#cat-primary").value`))
	if err != nil || sel != "Developer Tools" {
		t.Errorf("main category after the suggestion's button: %q %v", sel, err)
	}
}
