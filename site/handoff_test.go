package site_test

import (
	"encoding/json"
	"html"
	"net/http"
	"net/url"
	"regexp"
	"strings"
	"testing"
	"time"

	"launchdir/apitest"
	"launchdir/app/people"
)

// signedInOn reports whether the page at u shows a signed-in account.
func (b *browser) signedInOn(u string) bool {
	b.t.Helper()
	return strings.Contains(b.get(u).body, `action="/signout"`)
}

// toComplete runs a handoff from dev's sign-in up to (not into) the
// complete address main sends the browser to.
func (b *browser) toComplete(dev, next string) string {
	b.t.Helper()
	r := b.get(dev + "/signin?next=" + url.QueryEscape(next))
	loc := r.header.Get("Location")
	if r.status != 303 || !strings.Contains(loc, "/signin/handoff?") {
		b.t.Fatalf("sign-in on dev: %d %s", r.status, loc)
	}
	r = b.get(loc)
	done := r.header.Get("Location")
	if r.status != 303 || !strings.HasPrefix(done, dev+"/signin/handoff/complete?code=ldh_") {
		b.t.Fatalf("handoff on main: %d %s %.300s", r.status, done, r.body)
	}
	return done
}

// One account on every site: signed in on main, a browser signs in on the
// second site without a password; the code is single-use, short-lived,
// bound to its site and to the browser that asked; no redirect leaves the
// network.
func TestSignInHandoff(t *testing.T) {
	e := peopleEnv(t)
	dev := devtoolsSite(t, e)
	signUp(t, e, "ann@example.com")
	b := newBrowser(t, e)
	b.signIn(e.URL, "ann@example.com")

	t.Run("signed in on main: straight through", func(t *testing.T) {
		b.t = t
		done := b.toComplete(dev, "/categories")
		r := b.get(done)
		if r.status != 303 || r.header.Get("Location") != "/categories" {
			t.Fatalf("complete: %d %s %.300s", r.status, r.header.Get("Location"), r.body)
		}
		if !b.signedInOn(dev + "/") {
			t.Fatal("not signed in on dev after the handoff")
		}
		// The founder area there wears devtools' name and colour.
		if pg := b.get(dev + "/me/listings"); pg.status != 200 || !strings.Contains(pg.body, " · DevTools Hunt</title>") || !strings.Contains(pg.body, `href="/theme.css?v=`) {
			t.Errorf("devtools founder area: %d", pg.status)
		}
		// Used once: the same link again (with the state cookie put back) fails.
		u, _ := url.Parse(dev)
		state := ""
		for _, c := range b.c.Jar.Cookies(&url.URL{Scheme: "http", Host: u.Host, Path: "/signin/handoff/complete"}) {
			if c.Name == "ld_handoff" {
				state = c.Value
			}
		}
		if state != "" {
			t.Fatalf("the state cookie outlived its handoff: %q", state)
		}
	})

	t.Run("reused, expired, other site, other browser", func(t *testing.T) {
		b.t = t
		// A fresh browser signed in on main only.
		c := newBrowser(t, e)
		c.signIn(e.URL, "ann@example.com")
		done := c.toComplete(dev, "/")
		state := jarCookie(c, dev, "/signin/handoff/complete", "ld_handoff")
		if r := c.get(done); r.status != 303 {
			t.Fatalf("first use: %d", r.status)
		}
		setJar(c, dev, "ld_handoff", state)
		if r := c.get(done); r.status != 400 || !strings.Contains(r.body, "not valid, was already used or has expired") {
			t.Errorf("reused code: %d %.200s", r.status, r.body)
		}

		// Expired: a minute and a second later.
		d := newBrowser(t, e)
		d.signIn(e.URL, "ann@example.com")
		done = d.toComplete(dev, "/")
		e.App.Now = func() time.Time { return apitest.Now.Add(61 * time.Second) }
		r := d.get(done)
		e.App.Now = func() time.Time { return apitest.Now }
		if r.status != 400 || d.signedInOn(dev+"/") {
			t.Errorf("expired code: %d, signed in %v", r.status, d.signedInOn(dev+"/"))
		}

		// Another site: a code for dev does not sign in on a third site,
		// even with the right state cookie there.
		third := strings.Replace(dev, "devtools", "third", 1)
		addSite(t, e, "third", third, map[string]string{"site_name": "Third"})
		f := newBrowser(t, e)
		f.signIn(e.URL, "ann@example.com")
		done = f.toComplete(dev, "/")
		setJar(f, third, "ld_handoff", jarCookie(f, dev, "/signin/handoff/complete", "ld_handoff"))
		if r := f.get(strings.Replace(done, dev, third, 1)); r.status != 400 || f.signedInOn(third+"/") {
			t.Errorf("code used on another site: %d", r.status)
		}

		// Another browser (login CSRF): someone's code in a link opened by
		// a browser that never asked for it signs nobody in.
		g := newBrowser(t, e)
		g.signIn(e.URL, "ann@example.com")
		done = g.toComplete(dev, "/")
		victim := newBrowser(t, e)
		if r := victim.get(done); r.status != 400 || victim.signedInOn(dev+"/") {
			t.Errorf("code without its browser: %d", r.status)
		}
		// A made-up code with a real state.
		h := newBrowser(t, e)
		h.get(dev + "/signin")
		if r := h.get(dev + "/signin/handoff/complete?code=ldh_aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa&next=/"); r.status != 400 {
			t.Errorf("made-up code: %d", r.status)
		}
	})

	t.Run("redirects stay in the network", func(t *testing.T) {
		b.t = t
		for _, to := range []string{"https://evil.example/", "http://evil.example" + strings.TrimPrefix(dev, "http://devtools.localhost"), "javascript:alert(1)", e.URL + "/", "//evil.example/"} {
			r := b.get(e.URL + "/signin/handoff?" + url.Values{"to": {to}, "state": {strings.Repeat("a", 52)}}.Encode())
			if r.status != 400 || r.header.Get("Location") != "" {
				t.Errorf("to=%s: %d %s", to, r.status, r.header.Get("Location"))
			}
		}
		// A bad state is refused too.
		if r := b.get(e.URL + "/signin/handoff?" + url.Values{"to": {dev + "/"}, "state": {"short"}}.Encode()); r.status != 400 {
			t.Errorf("short state: %d", r.status)
		}
		// The path part of to, and next at the end, stay local.
		for _, next := range []string{"//evil.example/x", "/\\evil.example", "https://evil.example/"} {
			done := b.toComplete(dev, "/")
			done = strings.Replace(done, "next=%2F", "next="+url.QueryEscape(next), 1)
			if r := b.get(done); r.status != 303 || r.header.Get("Location") != "/" {
				t.Errorf("next=%s: %d %s", next, r.status, r.header.Get("Location"))
			}
		}
		r := b.get(dev + "/signin?next=" + url.QueryEscape("//evil.example/"))
		if loc, _ := url.Parse(r.header.Get("Location")); loc == nil || loc.Query().Get("to") != dev+"/" {
			t.Errorf("dev sign-in with a foreign next: %s", r.header.Get("Location"))
		}
		// Only main hands over.
		if r := b.get(dev + "/signin/handoff?" + url.Values{"to": {dev + "/"}, "state": {strings.Repeat("a", 52)}}.Encode()); r.status != 404 {
			t.Errorf("handoff on dev: %d", r.status)
		}
	})

	t.Run("not signed in on main: its form first", func(t *testing.T) {
		b.t = t
		n := newBrowser(t, e)
		r := n.get(dev + "/signin?next=/awards")
		r, at := n.follow(r, dev+"/signin?next=/awards")
		if r.status != 200 || !strings.HasPrefix(at, e.URL+"/signin/handoff?") || !strings.Contains(r.body, "continue to DevTools Hunt") {
			t.Fatalf("main's form: %d %s", r.status, at)
		}
		m := csrfValue.FindStringSubmatch(r.body)
		next := regexpNext.FindStringSubmatch(r.body)
		if m == nil || next == nil {
			t.Fatalf("form without csrf or next: %s", r.body)
		}
		r = n.do("POST", e.URL+"/signin", url.Values{"csrf": {m[1]}, "email": {"ann@example.com"}, "password": {"correct horse battery"}, "next": {html.UnescapeString(next[1])}})
		r, at = n.follow(r, e.URL+"/signin")
		if at != dev+"/awards" || r.status != 200 || !n.signedInOn(dev+"/") || !n.signedInOn(e.URL+"/") {
			t.Fatalf("after main's form: %d %s", r.status, at)
		}
	})

	t.Run("a vote pressed on the second site", func(t *testing.T) {
		b.t = t
		v := newBrowser(t, e)
		v.signIn(e.URL, "ann@example.com")
		slug := firstSlug(t, e, "/api/v1/launches?section=this-week")
		r := v.do("POST", dev+"/listings/"+slug+"/vote", url.Values{})
		r, at := v.follow(r, dev+"/listings/"+slug+"/vote")
		if !strings.HasPrefix(at, dev+"/listings/"+slug+"?done=voted") || !strings.Contains(r.body, `aria-pressed="true"`) {
			t.Fatalf("vote via handoff: %d %s", r.status, at)
		}
		// A handoff a link started (a GET, no press) casts nothing.
		w := newBrowser(t, e)
		w.signIn(e.URL, "ann@example.com")
		other := firstSlug(t, e, "/api/v1/launches?section=this-week&page=2&per_page=1")
		start := dev + "/signin?next=" + url.QueryEscape("/listings/"+other+"?cast=vote")
		r, at = w.follow(w.get(start), start)
		if at != dev+"/listings/"+other || strings.Contains(at, "done=") {
			t.Errorf("a linked handoff cast a vote: %s", at)
		}
	})
}

var regexpNext = regexp.MustCompile(`name="next" value="([^"]+)"`)

func jarCookie(b *browser, origin, path, name string) string {
	u, _ := url.Parse(origin + path)
	for _, c := range b.c.Jar.Cookies(u) {
		if c.Name == name {
			return c.Value
		}
	}
	return ""
}

func setJar(b *browser, origin, name, value string) {
	u, _ := url.Parse(origin + "/signin/handoff")
	b.c.Jar.SetCookies(u, []*http.Cookie{{Name: name, Value: value, Path: "/signin/handoff"}})
}

// The header's sign-in link returns to the page it was pressed on; on
// devtools through the handoff.
func TestSignInLinkReturns(t *testing.T) {
	e := peopleEnv(t)
	dev := devtoolsSite(t, e)
	signUp(t, e, "cy@example.com")
	b := newBrowser(t, e)
	b.signIn(e.URL, "cy@example.com")
	pg := b.get(dev + "/categories")
	if !strings.Contains(pg.body, `href="/signin?next=%2fcategories"`) && !strings.Contains(pg.body, `href="/signin?next=%2Fcategories"`) {
		t.Fatalf("sign-in link on /categories: %s", regexp.MustCompile(`href="/signin[^"]*"`).FindString(pg.body))
	}
	r, at := b.follow(b.get(dev+"/signin?next=%2Fcategories"), dev+"/signin?next=%2Fcategories")
	if at != dev+"/categories" || r.status != 200 || !strings.Contains(r.body, `action="/signout"`) {
		t.Errorf("after the header's sign-in: %d %s", r.status, at)
	}
	if pg := newBrowser(t, e).get(e.URL + "/signup"); !strings.Contains(pg.body, `href="/signin"`) || strings.Contains(pg.body, "/signin?next=") {
		t.Errorf("the sign-up page's sign-in link returns to sign-up")
	}
}

// Signing up on devtools: the verification email links to devtools and
// names it; the account then signs in on main too (one account).
func TestSignUpOnSecondSite(t *testing.T) {
	e := peopleEnv(t)
	dev := devtoolsSite(t, e)
	b := newBrowser(t, e)
	pg := b.get(dev + "/signup")
	m, ch := csrfValue.FindStringSubmatch(pg.body), challengeAttr.FindStringSubmatch(pg.body)
	if m == nil || ch == nil {
		t.Fatalf("devtools sign-up form: %d", pg.status)
	}
	var c people.SignupChallenge
	if err := json.Unmarshal([]byte(html.UnescapeString(ch[1])), &c); err != nil {
		t.Fatal(err)
	}
	r := b.do("POST", dev+"/signup", url.Values{"csrf": {m[1]}, "email": {"dev@example.com"}, "name": {"Dev"},
		"password": {"correct horse battery"}, "altcha": {people.SolveSignupChallenge(c)}})
	if r.status != 200 || !strings.Contains(r.body, "we sent a link") {
		t.Fatalf("sign up on devtools: %d %.300s", r.status, r.body)
	}
	var body string
	e.DB.R.QueryRow(`SELECT body FROM outbox WHERE to_addr = 'dev@example.com' ORDER BY id DESC LIMIT 1`).Scan(&body)
	body = strings.NewReplacer("=\r\n", "", "=\n", "", "=3D", "=").Replace(body)
	if !strings.Contains(body, dev+"/verify/") || !strings.Contains(body, "DevTools Hunt") || strings.Contains(body, e.URL) {
		t.Errorf("verification email from devtools:\n%s", body)
	}
	link := regexp.MustCompile(regexp.QuoteMeta(dev) + `/verify/[A-Za-z0-9_\-]+`).FindString(body)
	if v := b.get(link); v.status != 200 || !strings.Contains(v.body, "verified") {
		t.Fatalf("verify on devtools: %d", v.status)
	}
	b.signIn(e.URL, "dev@example.com")
	if !b.signedInOn(e.URL + "/") {
		t.Error("the account made on devtools does not sign in on main")
	}
}
