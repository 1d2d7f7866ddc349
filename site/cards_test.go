package site_test

import (
	"encoding/json"
	"fmt"
	"html"
	"net/url"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/chromedp/chromedp"
)

// cardVote is the vote form of the first card of a listing on a page.
type cardVote struct {
	csrf, next, pressed, label string
	count                      int
}

func findCardVote(t *testing.T, body, slug string) cardVote {
	t.Helper()
	re := regexp.MustCompile(`<form class="vote" method="post" action="/listings/` + regexp.QuoteMeta(slug) +
		`/vote">(?:<input type="hidden" name="csrf" value="([^"]+)">)?<input type="hidden" name="next" value="([^"]*)"><button type="submit" aria-pressed="(true|false)"><span aria-hidden="true">▲</span> <span class="sr">([^<]+)</span><span class="count">(\d+)</span><span class="sr">([^<]+)</span>`)
	m := re.FindStringSubmatch(body)
	if m == nil {
		t.Fatalf("no vote button on the card of %s", slug)
	}
	n, _ := strconv.Atoi(m[5])
	// The button's accessible name, as a screen reader reads it.
	label := html.UnescapeString(m[4] + m[5] + m[6])
	return cardVote{csrf: m[1], next: m[2], pressed: m[3], label: label, count: n}
}

// A vote pressed on a home-page card returns to the home page, and the card
// shows one more vote (the week's votes, as the list is ranked) and the
// voted state; without the form's token it is refused; pressed again it is
// withdrawn.
func TestCardVoteSignedIn(t *testing.T) {
	e := peopleEnv(t)
	slug := firstSlug(t, e, "/api/v1/launches?section=this-week")
	p := signUp(t, e, "cards@example.com")
	before := weeklyVotes(t, e, slug)
	v := findCardVote(t, p.get("/").body, slug)
	if v.csrf == "" || v.next != "/" || v.pressed != "false" || v.count != before ||
		!strings.HasPrefix(v.label, "Upvote ") || !strings.HasSuffix(v.label, fmt.Sprintf("(%d votes in the week)", before)) {
		t.Fatalf("card before voting: %+v (week votes %d)", v, before)
	}

	if r := p.post("/listings/"+slug+"/vote", url.Values{"csrf": {""}, "next": {"/"}}); r.status != 403 {
		t.Errorf("vote without the token: %d", r.status)
	}
	if r := p.post("/listings/"+slug+"/vote", url.Values{"csrf": {"not-the-token"}, "next": {"/"}}); r.status != 403 {
		t.Errorf("vote with a wrong token: %d", r.status)
	}
	if got := weeklyVotes(t, e, slug); got != before {
		t.Fatalf("a refused vote counted: %d, want %d", got, before)
	}

	r := p.post("/listings/"+slug+"/vote", url.Values{"csrf": {v.csrf}, "next": {v.next}})
	if r.status != 303 || r.header.Get("Location") != "/" {
		t.Fatalf("card vote: %d %q, want 303 to /", r.status, r.header.Get("Location"))
	}
	after := findCardVote(t, p.get("/").body, slug)
	if after.count != before+1 || after.pressed != "true" || weeklyVotes(t, e, slug) != before+1 {
		t.Errorf("after voting: card %+v, week votes %d, want %d", after, weeklyVotes(t, e, slug), before+1)
	}
	// The listing page shows the same vote.
	if pg := p.get("/listings/" + slug); !strings.Contains(pg.body, `aria-pressed="true">▲ Voted`) {
		t.Errorf("the listing page does not show the card's vote")
	}

	// Pressed again from a category page, it is withdrawn and returns there.
	r = p.post("/listings/"+slug+"/vote", url.Values{"csrf": {v.csrf}, "next": {"/search?q=a&page=2"}})
	if r.header.Get("Location") != "/search?q=a&page=2" || weeklyVotes(t, e, slug) != before {
		t.Errorf("withdraw: %d %q, week votes %d", r.status, r.header.Get("Location"), weeklyVotes(t, e, slug))
	}
	// A next that is not a local path goes to the listing instead.
	for _, next := range []string{"https://evil.example/", "//evil.example/", "/\\evil.example", "javascript:alert(1)"} {
		r = p.post("/listings/"+slug+"/vote", url.Values{"csrf": {v.csrf}, "next": {next}})
		if loc := r.header.Get("Location"); !strings.HasPrefix(loc, "/listings/"+slug+"?done=") {
			t.Errorf("next %q: redirected to %q", next, loc)
		}
	}
}

// Signed out, a card's vote sends the visitor to sign in; the vote is cast
// once they have, they return to the card's page, and signing in again
// through the same link does not withdraw it.
func TestCardVoteSignedOut(t *testing.T) {
	e := peopleEnv(t)
	slug := firstSlug(t, e, "/api/v1/launches?section=this-week")
	signUp(t, e, "erin@example.com")
	before := weeklyVotes(t, e, slug)
	for round := range 2 {
		anon := newVisitor(t, e)
		v := findCardVote(t, anon.get("/").body, slug)
		if v.csrf != "" || v.next != "/" {
			t.Fatalf("signed-out card: %+v", v)
		}
		r := anon.post("/listings/"+slug+"/vote", url.Values{"csrf": {""}, "next": {v.next}})
		loc := r.header.Get("Location")
		want := "/listings/" + slug + "?cast=vote&back=%2F"
		if r.status != 303 || loc != "/signin?next="+url.QueryEscape(want) {
			t.Fatalf("signed-out card vote: %d %s", r.status, loc)
		}
		anon.get(loc)
		r = anon.post("/signin", url.Values{"email": {"erin@example.com"}, "password": {"correct horse battery"}, "next": {want}})
		if r.status != 303 || r.header.Get("Location") != "/" {
			t.Fatalf("round %d: sign in: %d %q, want 303 to /", round, r.status, r.header.Get("Location"))
		}
		if got := weeklyVotes(t, e, slug); got != before+1 {
			t.Fatalf("round %d: week votes %d, want %d", round, got, before+1)
		}
		if c := findCardVote(t, anon.get("/").body, slug); c.pressed != "true" || c.count != before+1 {
			t.Errorf("round %d: card after signing in: %+v", round, c)
		}
	}
	// A back that is not a local path is dropped: the listing, as before.
	anon := newVisitor(t, e)
	anon.get("/signin")
	r := anon.post("/signin", url.Values{"email": {"erin@example.com"}, "password": {"correct horse battery"},
		"next": {"/listings/" + slug + "?cast=vote&back=" + url.QueryEscape("//evil.example/")}})
	if loc := r.header.Get("Location"); loc != "/listings/"+slug {
		t.Errorf("hostile back: %q", loc)
	}
}

// TestBrowserCards: on the demo home page, the launch week, a category and
// a search every live card has a vote button with its count and the
// listings with screenshots show a thumbnail that loads; the first 4 logos
// are not lazy, the rest are; no overflow at 320 px; axe is clean in light
// and dark mode.
func TestBrowserCards(t *testing.T) {
	ctx := browserCtx(t)
	e := newEnv(t)
	nav := func(path string) {
		t.Helper()
		if err := chromedp.Do(ctx, chromedp.Navigate(e.URL+path)); err != nil {
			t.Fatal(err)
		}
	}
	eval := func(js string) int {
		n, err := chromedp.Run(ctx, chromedp.Evaluate[int](js))
		if err != nil {
			t.Fatal(err)
		}
		return n
	}
	cat := firstSlug(t, e, "/api/v1/categories")
	lists := []struct{ name, path string }{{"home", "/"}, {"week", "/launches/this"}, {"category", "/categories/" + cat}, {"search", "/search?q=a"}}
	for _, w := range []int64{1280, 390, 320} {
		viewport(t, ctx, w, false)
		for _, l := range lists {
			nav(l.path)
			live := eval(`document.querySelectorAll('.card:has(a.name)').length`)
			buttons := eval(`document.querySelectorAll('.card form.vote button .count').length`)
			thumbs := eval(`document.querySelectorAll('.card img.thumb[width][height][loading=lazy]').length`)
			if live == 0 || buttons != live || thumbs == 0 && l.name != "category" {
				t.Errorf("%s at %d px: %d live cards, %d vote buttons, %d thumbnails", l.name, w, live, buttons, thumbs)
			}
			if lazy := eval(`[...document.querySelectorAll('.card img.logo')].slice(0, 4).filter(i => i.loading === 'lazy').length`); lazy != 0 {
				t.Errorf("%s at %d px: %d of the first 4 logos are lazy", l.name, w, lazy)
			}
			if eager := eval(`[...document.querySelectorAll('.card img.logo')].slice(4).filter(i => i.loading !== 'lazy').length`); eager != 0 {
				t.Errorf("%s at %d px: %d logos after the first 4 are not lazy", l.name, w, eager)
			}
			if ok, err := waitTrue(ctx, `(() => { scrollTo(0, document.body.scrollHeight); return [...document.querySelectorAll('.card img.thumb')].every(i => i.complete && i.naturalWidth > 0); })()`); !ok {
				t.Errorf("%s at %d px: not every thumbnail loaded (%v)", l.name, w, err)
			}
			chromedp.Run(ctx, chromedp.Evaluate[chromedp.Void](`scrollTo(0, 0)`))
			if over := eval(`document.documentElement.scrollWidth - document.documentElement.clientWidth`); over > 0 {
				t.Errorf("%s at %d px: the page overflows by %d px", l.name, w, over)
			}
			screenshot(t, ctx, fmt.Sprintf("cards-%s-%d", l.name, w))
			checkAxe(t, ctx, fmt.Sprintf("cards on the %s page at %d px", l.name, w))
		}
	}
	viewport(t, ctx, 390, true)
	for _, p := range []string{"/", "/launches/this"} {
		nav(p)
		screenshot(t, ctx, "cards-dark"+strings.ReplaceAll(p, "/", "-"))
		checkAxe(t, ctx, "dark cards "+p)
	}
}

// TestEveryListShowsCards: the launch week, a category and a search show
// the same cards as the home page: every live card has its vote button,
// pressed where the viewer voted, and listings with a screenshot show it.
// (The week, category and search pages once left their cards bare: their
// lists sat in fields the card finder did not follow.)
func TestEveryListShowsCards(t *testing.T) {
	e := peopleEnv(t)
	slug := firstSlug(t, e, "/api/v1/launches?section=this-week")
	var l struct {
		Name     string `json:"name"`
		Category struct {
			Slug string `json:"slug"`
		} `json:"primary_category"`
	}
	if r := e.Do("GET", "/api/v1/listings/"+slug, nil); json.Unmarshal(r.Body, &l) != nil || l.Category.Slug == "" {
		t.Fatalf("listing %s: %d %s", slug, r.Status, r.Body)
	}
	p := signUp(t, e, "lists@example.com")
	v := findCardVote(t, p.get("/").body, slug)
	if r := p.post("/listings/"+slug+"/vote", url.Values{"csrf": {v.csrf}, "next": {"/"}}); r.status != 303 {
		t.Fatalf("vote: %d", r.status)
	}
	liveCard := regexp.MustCompile(`<li class="card">\n.*?\n<div class="body"><a class="name"`)
	for _, path := range []string{"/launches/this", "/categories/" + l.Category.Slug, "/search?q=" + url.QueryEscape(l.Name)} {
		body := p.get(path).body
		live, forms := len(liveCard.FindAllString(body, -1)), strings.Count(body, `<form class="vote"`)
		if live == 0 || forms != live {
			t.Errorf("%s: %d live cards, %d vote buttons", path, live, forms)
		}
		if c := findCardVote(t, body, slug); c.pressed != "true" || c.csrf == "" {
			t.Errorf("%s: the voted card shows %+v", path, c)
		}
		if path == "/launches/this" && !strings.Contains(body, `<img class="thumb"`) {
			t.Errorf("%s: no thumbnails", path)
		}
	}
}
