package site_test

import (
	"html"
	"net/url"
	"regexp"
	"strings"
	"testing"
)

// A newcomer who presses Sign in on devtools lands on main's sign-in page
// ("Sign in to continue to DevTools Hunt"); its "Create an account" and
// header "Sign up" links go to devtools' own sign-up (review finding 7:
// they were plain /signup on main, which stranded the newcomer there).
func TestHandoffSignUpKeepsTheWayBack(t *testing.T) {
	e := peopleEnv(t)
	dev := devtoolsSite(t, e)
	b := newBrowser(t, e)
	r := b.get(dev + "/signin?next=" + url.QueryEscape("/categories"))
	loc := r.header.Get("Location")
	if r.status != 303 || !strings.Contains(loc, "/signin/handoff?") {
		t.Fatalf("sign-in on devtools: %d %s", r.status, loc)
	}
	page := b.get(loc)
	if page.status != 200 || !strings.Contains(page.body, "DevTools Hunt") {
		t.Fatalf("handoff page: %d", page.status)
	}
	links := regexp.MustCompile(`href="([^"]*signup[^"]*)"`).FindAllStringSubmatch(page.body, -1)
	if len(links) != 2 {
		t.Fatalf("want the header's and the form's sign-up links, got %v", links)
	}
	for _, m := range links {
		if !strings.HasPrefix(html.UnescapeString(m[1]), dev+"/signup?next=%2Fcategories") {
			t.Errorf("the handoff sign-in page links %q: signing up there never returns to devtools", m[1])
		}
	}
	// Main's own sign-in page keeps main's sign-up.
	if p := b.get(e.URL + "/signin"); !strings.Contains(p.body, `href="/signup"`) {
		t.Errorf("main's sign-in page lost its sign-up link")
	}
}
