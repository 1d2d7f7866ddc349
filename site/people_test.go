package site_test

import (
	"context"
	"encoding/json"
	"fmt"
	"html"
	"io"
	"net/http"
	"net/http/cookiejar"
	"net/url"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"launchdir/apitest"
	"launchdir/app"
	"launchdir/app/kernel"
	"launchdir/app/people"

	"github.com/chromedp/chromedp"
)

// visitor is one browser: a cookie jar that does not follow redirects.
type visitor struct {
	t         *testing.T
	e         *apitest.Env
	c         *http.Client
	csrf      string // the token of the last page with a form
	challenge string // the sign-up challenge of the last sign-up page
}

type visit struct {
	status int
	header http.Header
	body   string
}

func newVisitor(t *testing.T, e *apitest.Env) *visitor {
	jar, _ := cookiejar.New(nil)
	return &visitor{t: t, e: e, c: &http.Client{Jar: jar, CheckRedirect: func(*http.Request, []*http.Request) error {
		return http.ErrUseLastResponse
	}}}
}

var (
	csrfField     = regexp.MustCompile(`name="csrf" value="([^"]+)"`)
	challengeAttr = regexp.MustCompile(`data-challenge="([^"]+)"`)
)

// proof solves the last sign-up page's challenge, as its script does.
func (p *visitor) proof() string {
	var c people.SignupChallenge
	if err := json.Unmarshal([]byte(p.challenge), &c); err != nil {
		p.t.Fatalf("sign-up page without a challenge: %v", err)
	}
	return people.SolveSignupChallenge(c)
}

func (p *visitor) do(req *http.Request) *visit {
	p.t.Helper()
	resp, err := p.c.Do(req)
	if err != nil {
		p.t.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	pg := &visit{status: resp.StatusCode, header: resp.Header, body: string(b)}
	if m := csrfField.FindStringSubmatch(pg.body); m != nil {
		p.csrf = m[1]
	}
	if m := challengeAttr.FindStringSubmatch(pg.body); m != nil {
		p.challenge = html.UnescapeString(m[1])
	}
	return pg
}

func (p *visitor) get(path string) *visit {
	p.t.Helper()
	req, _ := http.NewRequest("GET", p.e.URL+path, nil)
	return p.do(req)
}

// post sends a form with the last page's token unless form sets csrf
// (an empty value sends none).
func (p *visitor) post(path string, form url.Values, headers ...string) *visit {
	p.t.Helper()
	if _, set := form["csrf"]; !set {
		form.Set("csrf", p.csrf)
	} else if form.Get("csrf") == "" {
		form.Del("csrf")
	}
	if _, set := form["altcha"]; !set && path == "/signup" && p.challenge != "" {
		form.Set("altcha", p.proof()) // what the page's script sends
	}
	req, _ := http.NewRequest("POST", p.e.URL+path, strings.NewReader(form.Encode()))
	req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	for i := 0; i+1 < len(headers); i += 2 {
		req.Header.Set(headers[i], headers[i+1])
	}
	return p.do(req)
}

func (p *visitor) cookie(name string) *http.Cookie {
	u, _ := url.Parse(p.e.URL)
	for _, c := range p.c.Jar.Cookies(u) {
		if c.Name == name {
			return c
		}
	}
	return nil
}

// lastMail finds the newest email to addr in the outbox and the first link
// under path in it (quoted-printable soft breaks undone).
func lastMail(t *testing.T, e *apitest.Env, addr, path string) string {
	t.Helper()
	var body string
	if err := e.DB.R.QueryRow(`SELECT body FROM outbox WHERE to_addr = ? ORDER BY id DESC LIMIT 1`, addr).Scan(&body); err != nil {
		t.Fatalf("no email to %s: %v", addr, err)
	}
	body = strings.NewReplacer("=\r\n", "", "=\n", "", "=3D", "=").Replace(body)
	m := regexp.MustCompile(regexp.QuoteMeta(e.URL+path) + `[A-Za-z0-9_\-]+`).FindString(body)
	if m == "" {
		t.Fatalf("email to %s has no %s link:\n%s", addr, path, body)
	}
	return strings.TrimPrefix(m, e.URL)
}

// peopleEnv is the stack with accounts mounted; votes of new accounts count
// at once (the account-age rule has its own tests in app/), and the
// sign-up limits per address and the ring rule are off: every test account
// comes from one address (they have their own tests, limits_test.go and
// app/integrity_test.go).
func peopleEnv(t *testing.T) *apitest.Env {
	return newEnvWith(t, func(a *app.App) {
		a.Cfg.VoteMinAccountAge = -1
		a.Cfg.SignupsPerAddress, a.Cfg.SignupsPerNetwork, a.Cfg.VoteRingSize = -1, -1, -1
	})
}

// signUp makes a verified, signed-in visitor.
func signUp(t *testing.T, e *apitest.Env, email string) *visitor {
	t.Helper()
	p := newVisitor(t, e)
	p.get("/signup")
	if r := p.post("/signup", url.Values{"email": {email}, "name": {"Test Person"}, "password": {"correct horse battery"}}); r.status != 200 {
		t.Fatalf("sign up: %d %s", r.status, r.body)
	}
	if r := p.get(lastMail(t, e, email, "/verify/")); r.status != 200 || !strings.Contains(r.body, "verified") {
		t.Fatalf("verify: %d %s", r.status, r.body)
	}
	p.get("/signin")
	if r := p.post("/signin", url.Values{"email": {email}, "password": {"correct horse battery"}, "next": {"/"}}); r.status != 303 {
		t.Fatalf("sign in: %d %s", r.status, r.body)
	}
	return p
}

func TestAccountPages(t *testing.T) {
	e := peopleEnv(t)
	p := newVisitor(t, e)
	r := p.get("/signup")
	if r.status != 200 || p.csrf == "" || r.header.Get("Cache-Control") != "no-store" {
		t.Fatalf("sign-up page: %d csrf %q cache %q", r.status, p.csrf, r.header.Get("Cache-Control"))
	}
	form := func() url.Values {
		return url.Values{"email": {"ada@example.com"}, "name": {"Ada"}, "password": {"correct horse battery"}}
	}
	// CSRF: no token, a wrong token, a cross-site request: 403, nothing made.
	noToken := form()
	noToken.Set("csrf", "")
	if r := p.post("/signup", noToken); r.status != 403 {
		t.Errorf("no token: %d", r.status)
	}
	bad := form()
	bad.Set("csrf", strings.Repeat("0", 32))
	if r := p.post("/signup", bad); r.status != 403 {
		t.Errorf("wrong token: %d", r.status)
	}
	if r := p.post("/signup", form(), "Sec-Fetch-Site", "cross-site"); r.status != 403 {
		t.Errorf("cross-site: %d", r.status)
	}
	var n int
	e.DB.R.QueryRow(`SELECT count(*) FROM users WHERE email = 'ada@example.com'`).Scan(&n)
	if n != 0 {
		t.Fatalf("a refused form made an account")
	}
	// A bad field is named on the page.
	short := form()
	short.Set("password", "short")
	if r := p.post("/signup", short); r.status != 400 || !strings.Contains(r.body, `id="password-err"`) {
		t.Errorf("short password: %d %s", r.status, r.body)
	}
	if r := p.post("/signup", form()); r.status != 200 || !strings.Contains(r.body, "we sent a link") {
		t.Fatalf("sign up: %d %s", r.status, r.body)
	}
	link := lastMail(t, e, "ada@example.com", "/verify/")
	if r := p.get(link); r.status != 200 || !strings.Contains(r.body, "verified") {
		t.Errorf("verify: %d", r.status)
	}
	if r := p.get("/verify/not-a-token"); r.status < 400 {
		t.Errorf("bad verify link: %d", r.status)
	}
	// Wrong password: refused on the page; right one: a session cookie.
	p.get("/signin")
	if r := p.post("/signin", url.Values{"email": {"ada@example.com"}, "password": {"wrong password!!"}}); r.status < 400 || !strings.Contains(r.body, `class="error"`) || strings.Contains(r.body, "password: ") {
		t.Errorf("wrong password (a message for people, no field prefix): %d", r.status)
	}
	r = p.post("/signin", url.Values{"email": {"ada@example.com"}, "password": {"correct horse battery"}, "next": {"/following"}})
	if r.status != 303 || r.header.Get("Location") != "/following" {
		t.Fatalf("sign in: %d %s", r.status, r.header.Get("Location"))
	}
	set := r.header.Get("Set-Cookie")
	for _, w := range []string{"ld_session=", "HttpOnly", "SameSite=Lax", "Path=/"} {
		if !strings.Contains(set, w) {
			t.Errorf("session cookie lacks %s: %s", w, set)
		}
	}
	if strings.Contains(set, "Secure") {
		t.Errorf("Secure on an http base URL: %s", set)
	}
	first := p.cookie("ld_session").Value
	home := p.get("/")
	if !strings.Contains(home.body, "Test Person") && !strings.Contains(home.body, "Ada") || home.header.Get("Cache-Control") != "private, no-cache" {
		t.Errorf("signed-in home: cache %q", home.header.Get("Cache-Control"))
	}
	// An open redirect is not possible through next.
	p.get("/signin")
	r = p.post("/signin", url.Values{"email": {"ada@example.com"}, "password": {"correct horse battery"}, "next": {"//evil.example/"}})
	if r.header.Get("Location") != "/" {
		t.Errorf("next=//evil: Location %q", r.header.Get("Location"))
	}
	// Signing in again rotates the session: the old cookie is dead.
	second := p.cookie("ld_session").Value
	if second == first {
		t.Errorf("session not rotated at sign-in")
	}
	old := newVisitor(t, e)
	u, _ := url.Parse(e.URL)
	old.c.Jar.SetCookies(u, []*http.Cookie{{Name: "ld_session", Value: first}})
	if r := old.get("/following"); r.status != 303 {
		t.Errorf("old session still works: %d", r.status)
	}
	// Sign out revokes the session on the server.
	p.get("/")
	if r := p.post("/signout", url.Values{}); r.status != 303 {
		t.Fatalf("sign out: %d", r.status)
	}
	stolen := newVisitor(t, e)
	stolen.c.Jar.SetCookies(u, []*http.Cookie{{Name: "ld_session", Value: second}})
	if r := stolen.get("/following"); r.status != 303 {
		t.Errorf("signed-out session still works: %d", r.status)
	}
}

func TestPasswordReset(t *testing.T) {
	e := peopleEnv(t)
	signUp(t, e, "bob@example.com")
	p := newVisitor(t, e)
	p.get("/reset")
	if r := p.post("/reset", url.Values{"email": {"bob@example.com"}}); r.status != 200 || !strings.Contains(r.body, "If bob@example.com has an account") {
		t.Fatalf("reset request: %d", r.status)
	}
	// The same answer for an unknown address (no account probing).
	if r := p.post("/reset", url.Values{"email": {"nobody@example.com"}}); r.status != 200 || !strings.Contains(r.body, "If nobody@example.com has an account") {
		t.Errorf("unknown address: %d", r.status)
	}
	link := lastMail(t, e, "bob@example.com", "/reset/")
	p.get(link)
	if r := p.post(link, url.Values{"password": {"a brand new password"}}); r.status != 200 {
		t.Fatalf("reset: %d %s", r.status, r.body)
	}
	// Single use: the link says so before any form.
	if r := p.get(link); r.status != 400 || !strings.Contains(r.body, "was already used") || strings.Contains(r.body, `name="password"`) {
		t.Errorf("used reset link: %d %s", r.status, r.body)
	}
	if r := p.get("/reset/not-a-real-token"); r.status != 400 || !strings.Contains(r.body, "is not valid") {
		t.Errorf("unknown reset link: %d", r.status)
	}
	if r := p.post(link, url.Values{"password": {"another new password"}}); r.status < 400 {
		t.Errorf("reset link reused: %d", r.status)
	}
	p.get("/signin")
	if r := p.post("/signin", url.Values{"email": {"bob@example.com"}, "password": {"a brand new password"}}); r.status != 303 {
		t.Errorf("sign in with the new password: %d", r.status)
	}
}

func weeklyVotes(t *testing.T, e *apitest.Env, slug string) int {
	votes, _ := weeklyEntry(t, e, slug)
	return votes
}

// weeklyEntry is a listing's votes and rank on this week's API board.
func weeklyEntry(t *testing.T, e *apitest.Env, slug string) (votes, rank int) {
	for pg := 1; pg <= 5; pg++ {
		var b struct {
			Items []struct {
				Rank    int                   `json:"rank"`
				Listing struct{ Slug string } `json:"listing"`
				Metric  struct{ Value int }   `json:"metric"`
			} `json:"items"`
		}
		json.Unmarshal(e.Do("GET", "/api/v1/leaderboards/community-weekly?per_page=100&page="+strconv.Itoa(pg), nil).Body, &b)
		for _, it := range b.Items {
			if it.Listing.Slug == slug {
				return it.Metric.Value, it.Rank
			}
		}
	}
	return 0, 0
}

func TestVoteFollowReviewReport(t *testing.T) {
	e := peopleEnv(t)
	slug := firstSlug(t, e, "/api/v1/launches?section=this-week")
	before := weeklyVotes(t, e, slug)

	anon := newVisitor(t, e)
	anon.get("/listings/" + slug)
	if r := anon.post("/listings/"+slug+"/vote", url.Values{}); r.status != 303 || !strings.HasPrefix(r.header.Get("Location"), "/signin?next=") {
		t.Errorf("anonymous vote: %d %s", r.status, r.header.Get("Location"))
	}

	p := signUp(t, e, "cara@example.com")
	lp := p.get("/listings/" + slug)
	if lp.header.Get("Cache-Control") != "private, no-cache" {
		t.Errorf("signed-in listing page cache: %q", lp.header.Get("Cache-Control"))
	}
	if r := p.post("/listings/"+slug+"/vote", url.Values{"csrf": {""}}); r.status != 403 {
		t.Errorf("vote without token: %d", r.status)
	}
	if r := p.post("/listings/"+slug+"/vote", url.Values{}); r.status != 303 {
		t.Fatalf("vote: %d %s", r.status, r.body)
	}
	if got := weeklyVotes(t, e, slug); got != before+1 {
		t.Errorf("weekly board: %d votes, want %d", got, before+1)
	}
	if r := p.get("/listings/" + slug); !strings.Contains(r.body, `aria-pressed="true">▲ Voted`) {
		t.Errorf("listing does not show the vote")
	}
	// Toggle: a second vote withdraws it.
	p.post("/listings/"+slug+"/vote", url.Values{})
	if got := weeklyVotes(t, e, slug); got != before {
		t.Errorf("after withdrawing: %d votes, want %d", got, before)
	}
	if r := p.post("/listings/no-such-listing/vote", url.Values{}); r.status != 404 {
		t.Errorf("vote on unknown listing: %d", r.status)
	}
	var scheduled string
	e.DB.R.QueryRow(`SELECT slug FROM listings WHERE status = 'scheduled' LIMIT 1`).Scan(&scheduled)
	p.get("/listings/" + slug)
	if r := p.post("/listings/"+scheduled+"/vote", url.Values{}); r.status < 400 || r.status == 500 {
		t.Errorf("vote on a scheduled listing: %d", r.status)
	}

	// Follow, then the owner posts an update by API: the follower gets an
	// email with an unsubscribe link that works.
	p.get("/listings/" + slug)
	if r := p.post("/listings/"+slug+"/follow", url.Values{}); r.status != 303 {
		t.Fatalf("follow: %d", r.status)
	}
	if r := p.get("/following"); !strings.Contains(r.body, "/listings/"+slug) {
		t.Errorf("following page lacks %s", slug)
	}
	key := e.APIKey("owner@example.com")
	var lid, uid int64
	e.DB.R.QueryRow(`SELECT id FROM listings WHERE slug = ?`, slug).Scan(&lid)
	e.DB.R.QueryRow(`SELECT id FROM users WHERE email = 'owner@example.com'`).Scan(&uid)
	if _, err := e.DB.W.Exec(`INSERT INTO listing_owners(listing_id, user_id, created_at) VALUES(?, ?, '2026-11-01T00:00:00Z')`, lid, uid); err != nil {
		t.Fatal(err)
	}
	if r := e.Do("POST", "/api/v1/me/listings/"+itoa(lid)+"/updates", map[string]any{"title": "Big news", "body": "We shipped it."},
		apitest.Bearer(key)...); r.Status/100 != 2 {
		t.Fatalf("post update: %d %s", r.Status, r.Body)
	}
	unsub := lastMail(t, e, "cara@example.com", "/unsubscribe/")
	if r := p.get(unsub); r.status != 200 || !strings.Contains(r.body, "Unsubscribe") {
		t.Errorf("unsubscribe page: %d", r.status)
	}
	// One-click unsubscribe comes from the mail client: no token, cross-site.
	mailClient := newVisitor(t, e)
	if r := mailClient.post(unsub, url.Values{"List-Unsubscribe": {"One-Click"}, "csrf": {""}}, "Sec-Fetch-Site", "cross-site"); r.status != 200 {
		t.Errorf("one-click unsubscribe: %d %s", r.status, r.body)
	}

	// Review: the community rating moves; editing keeps one review.
	rating := func() (count int) {
		var l struct {
			Rating struct{ Count int } `json:"community_rating"`
		}
		json.Unmarshal(e.Do("GET", "/api/v1/listings/"+slug, nil).Body, &l)
		return l.Rating.Count
	}
	n0 := rating()
	p.get("/listings/" + slug)
	if r := p.post("/listings/"+slug+"/review", url.Values{"stars": {"5"}, "text": {"Lovely."}}); r.status != 303 {
		t.Fatalf("review: %d %s", r.status, r.body)
	}
	if rating() != n0+1 {
		t.Errorf("rating count %d, want %d", rating(), n0+1)
	}
	p.get("/listings/" + slug)
	p.post("/listings/"+slug+"/review", url.Values{"stars": {"4"}, "text": {"Still good."}})
	if rating() != n0+1 {
		t.Errorf("editing made a second review")
	}
	if r := p.get("/listings/" + slug); !strings.Contains(r.body, "Still good.") {
		t.Errorf("edited review not shown")
	}
	// A refused review is no dead end: the form again, with what was typed
	// and what to fix.
	if r := p.post("/listings/"+slug+"/review", url.Values{"stars": {"6"}, "text": {"Typed & kept"}}); r.status != 400 ||
		!strings.Contains(r.body, "is not saved yet") || !strings.Contains(r.body, ">Typed &amp; kept</textarea>") ||
		!strings.Contains(r.body, "Stars: ") || !strings.Contains(r.body, `action="/listings/`+slug+`/review"`) {
		t.Errorf("6 stars: %d %s", r.status, r.body)
	}
	p.get("/listings/" + slug)
	if r := p.post("/listings/"+slug+"/report", url.Values{"reason": {"Spam"}}); r.status != 303 {
		t.Errorf("report: %d %s", r.status, r.body)
	}
	_ = context.Background
}

// submit fills fields (CSS selector -> text), clicks the form's submit
// button and waits for the page that answers.
func submit(t *testing.T, ctx context.Context, form string, fields map[string]string) {
	t.Helper()
	for sel, v := range fields {
		if err := chromedp.Do(ctx, chromedp.SendKeys(chromedp.CSS(form+" "+sel), v)); err != nil {
			t.Fatalf("fill %s %s: %v", form, sel, err)
		}
	}
	if _, err := chromedp.RunResponse(ctx, chromedp.Click(chromedp.CSS(form+` button[type="submit"]`))); err != nil {
		t.Fatalf("submit %s: %v", form, err)
	}
}

// TestBrowserPeople is the whole path of a visitor in headless chromium:
// sign up, verify through the captured email, sign in, vote (the weekly
// board and the badge move), follow (the owner's update by API emails
// them), review (the rating changes).
func TestBrowserPeople(t *testing.T) {
	ctx := browserCtx(t)
	e := peopleEnv(t)
	// A listing launched this week with the fewest votes in it: the vote
	// puts it on the weekly board, and its badge shows its new place there.
	var slug string
	var lid int64
	e.DB.R.QueryRow(`SELECT l.slug, l.id FROM launches n JOIN listings l ON l.id = n.listing_id
		WHERE l.status = 'live' AND n.week = ? ORDER BY n.votes, l.id DESC LIMIT 1`,
		kernel.WeekOf(apitest.Now)).Scan(&slug, &lid)
	badge := func() string { return string(e.Do("GET", "/badges/"+slug+".svg", nil).Body) }
	badgeBefore := badge()

	nav := func(path string) {
		if err := chromedp.Do(ctx, chromedp.Navigate(e.URL+path)); err != nil {
			t.Fatal(err)
		}
	}
	nav("/signup")
	screenshot(t, ctx, "signup")
	submit(t, ctx, `form[action="/signup"]`, map[string]string{"#email": "dee@example.com", "#name": "Dee", "#password": "correct horse battery"})
	if !strings.Contains(mainText(t, ctx), "we sent a link") {
		t.Fatalf("after sign-up: %s", mainText(t, ctx))
	}
	nav(lastMail(t, e, "dee@example.com", "/verify/"))
	if !strings.Contains(mainText(t, ctx), "verified") {
		t.Fatalf("verify: %s", mainText(t, ctx))
	}
	nav("/signin")
	screenshot(t, ctx, "signin")
	checkAxe(t, ctx, "signin")
	submit(t, ctx, `form[action="/signin"]`, map[string]string{"#email": "dee@example.com", "#password": "correct horse battery"})

	nav("/listings/" + slug)
	submit(t, ctx, `form[action="/listings/`+slug+`/vote"]`, nil)
	if txt := mainText(t, ctx); !strings.Contains(txt, "Your vote is in.") || !strings.Contains(txt, "Voted") {
		t.Errorf("after voting: %.300s", txt)
	}
	screenshot(t, ctx, "listing-voted")
	checkAxe(t, ctx, "listing-signed-in")
	n, rank := weeklyEntry(t, e, slug)
	if n < 1 {
		t.Errorf("weekly board: %s has %d votes", slug, n)
	}
	nav("/leaderboards/community-weekly?page=" + strconv.Itoa((rank-1)/24+1))
	if html, _ := chromedp.Run(ctx, chromedp.OuterHTML(chromedp.CSS("main"))); !strings.Contains(html, `href="/listings/`+slug+`"`) {
		t.Errorf("weekly board page lacks %s", slug)
	}
	if after := badge(); after == badgeBefore || !strings.Contains(after, fmt.Sprintf("#%d this week", rank)) {
		t.Errorf("badge after the vote does not show place %d: %s", rank, after)
	}

	nav("/listings/" + slug)
	submit(t, ctx, `form[action="/listings/`+slug+`/follow"]`, nil)
	key := e.APIKey("founder@example.com")
	var uid int64
	e.DB.R.QueryRow(`SELECT id FROM users WHERE email = 'founder@example.com'`).Scan(&uid)
	e.DB.W.Exec(`INSERT INTO listing_owners(listing_id, user_id, created_at) VALUES(?, ?, '2026-11-01T00:00:00Z')`, lid, uid)
	if r := e.Do("POST", "/api/v1/me/listings/"+itoa(lid)+"/updates", map[string]any{"title": "Browser news", "body": "Shipped."},
		apitest.Bearer(key)...); r.Status/100 != 2 {
		t.Fatalf("post update: %d %s", r.Status, r.Body)
	}
	lastMail(t, e, "dee@example.com", "/unsubscribe/")
	nav("/following")
	if !strings.Contains(mainText(t, ctx), "Products you follow") {
		t.Errorf("following page: %.200s", mainText(t, ctx))
	}
	screenshot(t, ctx, "following")

	ratingText := func() string {
		s, _ := chromedp.Run(ctx, chromedp.Text(chromedp.CSS(`section[aria-labelledby="rating"] .big`)))
		return s
	}
	nav("/listings/" + slug)
	before := ratingText()
	if err := chromedp.Do(ctx, chromedp.Click(chromedp.CSS(`input[name="stars"][value="5"]`))); err != nil {
		t.Fatal(err)
	}
	submit(t, ctx, `form[action="/listings/`+slug+`/review"]`, map[string]string{"#review-text": "Works well for us."})
	if after := ratingText(); after == before {
		t.Errorf("rating did not change: %q", after)
	}
	screenshot(t, ctx, "listing-reviewed")
}

// TestUncountedVotes: votes of unverified accounts and of a listing's owner
// are recorded but move no board, and the page says so.
func TestUncountedVotes(t *testing.T) {
	e := peopleEnv(t)
	slug := firstSlug(t, e, "/api/v1/launches?section=this-week")
	before := weeklyVotes(t, e, slug)

	un := newVisitor(t, e)
	un.get("/signup")
	un.post("/signup", url.Values{"email": {"unverified@example.com"}, "password": {"correct horse battery"}})
	un.get("/signin")
	if r := un.post("/signin", url.Values{"email": {"unverified@example.com"}, "password": {"correct horse battery"}}); r.status != 303 {
		t.Fatalf("unverified sign in: %d", r.status)
	}
	un.get("/listings/" + slug)
	if r := un.post("/listings/"+slug+"/vote", url.Values{}); !strings.HasSuffix(r.header.Get("Location"), "done=voted-uncounted") {
		t.Errorf("unverified vote: %d %s", r.status, r.header.Get("Location"))
	}
	if got := weeklyVotes(t, e, slug); got != before {
		t.Errorf("unverified vote counted: %d, want %d", got, before)
	}
	if r := un.get("/listings/" + slug + "?done=voted-uncounted"); !strings.Contains(r.body, "does not count") {
		t.Errorf("the page does not say the vote is not counted")
	}

	owner := signUp(t, e, "own@example.com")
	e.DB.W.Exec(`INSERT INTO listing_owners(listing_id, user_id, created_at)
		SELECT l.id, u.id, '2026-11-01T00:00:00Z' FROM listings l, users u WHERE l.slug = ? AND u.email = 'own@example.com'`, slug)
	owner.get("/listings/" + slug)
	if r := owner.post("/listings/"+slug+"/vote", url.Values{}); !strings.HasSuffix(r.header.Get("Location"), "done=voted-uncounted") {
		t.Errorf("owner vote: %d %s", r.status, r.header.Get("Location"))
	}
	if got := weeklyVotes(t, e, slug); got != before {
		t.Errorf("owner vote counted: %d, want %d", got, before)
	}
}

// An anonymous vote is not lost: the visitor signs in and the vote is cast
// (once: signing in again through the same link does not withdraw it).
func TestAnonymousVoteCastAfterSignIn(t *testing.T) {
	e := peopleEnv(t)
	slug := firstSlug(t, e, "/api/v1/launches?section=this-week")
	signUp(t, e, "dana@example.com") // a verified account, signed in elsewhere
	before := weeklyVotes(t, e, slug)
	for round := range 2 {
		anon := newVisitor(t, e)
		anon.get("/listings/" + slug)
		r := anon.post("/listings/"+slug+"/vote", url.Values{})
		loc := r.header.Get("Location")
		if r.status != 303 || loc != "/signin?next="+url.QueryEscape("/listings/"+slug+"?cast=vote") {
			t.Fatalf("anonymous vote: %d %s", r.status, loc)
		}
		anon.get(loc)
		r = anon.post("/signin", url.Values{"email": {"dana@example.com"}, "password": {"correct horse battery"}, "next": {"/listings/" + slug + "?cast=vote"}})
		if r.status != 303 || !strings.HasPrefix(r.header.Get("Location"), "/listings/"+slug) {
			t.Fatalf("round %d: sign in: %d %s", round, r.status, r.header.Get("Location"))
		}
		if round == 0 && !strings.Contains(r.header.Get("Location"), "done=voted") {
			t.Errorf("the vote was not cast: %s", r.header.Get("Location"))
		}
		if pg := anon.get("/listings/" + slug); !strings.Contains(pg.body, `aria-pressed="true">▲ Voted`) {
			t.Fatalf("round %d: the listing does not show the vote", round)
		}
		if got := weeklyVotes(t, e, slug); got != before+1 {
			t.Fatalf("round %d: weekly votes %d, want %d", round, got, before+1)
		}
	}
	// Any other next stays a plain redirect.
	anon := newVisitor(t, e)
	anon.get("/signin")
	if r := anon.post("/signin", url.Values{"email": {"dana@example.com"}, "password": {"correct horse battery"}, "next": {"/listings/" + slug + "?cast=other"}}); r.header.Get("Location") != "/listings/"+slug+"?cast=other" {
		t.Errorf("other next: %s", r.header.Get("Location"))
	}
}
