package site_test

import (
	"context"
	"fmt"
	"html"
	"io"
	"net/http"
	"net/url"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"launchdir/apitest"
	"launchdir/app"
	"launchdir/app/people"
	"launchdir/routes"
)

var nextField = regexp.MustCompile(`name="next" value="([^"]*)"`)

// TestSignInRedirectStaysLocal: whatever next= holds, the browser lands on
// this site. Each attack goes both ways a browser can carry it: in the
// sign-in page's address (kept in the form) and posted directly.
func TestSignInRedirectStaysLocal(t *testing.T) {
	e := peopleEnv(t)
	p := signUp(t, e, "nina@example.com")
	signIn := func(next string, viaPage bool) string {
		t.Helper()
		if viaPage {
			pg := p.get("/signin?next=" + url.QueryEscape(next))
			m := nextField.FindStringSubmatch(pg.body)
			if m == nil {
				t.Fatalf("sign-in page without next field")
			}
			next = html.UnescapeString(m[1])
		} else {
			p.get("/signin")
		}
		r := p.post("/signin", url.Values{"email": {"nina@example.com"}, "password": {"correct horse battery"}, "next": {next}})
		if r.status != 303 {
			t.Fatalf("sign in with next %q: %d", next, r.status)
		}
		return r.header.Get("Location")
	}
	attacks := []string{
		"/\t/evil.example", "/\t\t/evil.example", "/\t\\/evil.example", "/\n/evil.example", "/\r/evil.example",
		"/ /evil.example", "/\u00a0/evil.example", "/\u200b/evil.example", "/\x00/evil.example", "/\x7f/evil.example",
		"//evil.example", "/\\evil.example", "\\\\evil.example", "/\\/evil.example", "///evil.example",
		"https://evil.example/", "http:evil.example", "javascript:alert(1)", "data:text/html,x", "evil.example",
		"/%2F/evil.example", "/%2f%2fevil.example", "/%5Cevil.example", "/%09/evil.example", "//user@evil.example",
		"", "\t/following", " /following", "/following\t", "/\xff", "/" + string(make([]byte, 2001)),
	}
	for _, a := range attacks {
		for _, viaPage := range []bool{true, false} {
			if got := signIn(a, viaPage); got != "/" {
				t.Errorf("next %q (via page %v): Location %q, want /", a, viaPage, got)
			}
		}
	}
	// Paths on this site survive, query and fragment included.
	for _, ok := range []string{"/following", "/listings/x?tab=reviews#votes", "/a/b%20c", "/founder/listings"} {
		if got := signIn(ok, true); got != ok {
			t.Errorf("next %q: Location %q", ok, got)
		}
	}
}

// member is a verified account signed in on the site, made without the
// sign-up form (these tests are about what comes after it).
type member struct {
	c    *http.Client
	csrf string
}

func newMember(t *testing.T, e *apitest.Env, email string) *member {
	t.Helper()
	ctx := context.Background()
	u, err := e.App.People.CreateUser(ctx, email, "Member", "correct horse battery")
	if err != nil {
		t.Fatal(err)
	}
	if _, err := e.DB.W.Exec(`UPDATE users SET verified_at = created_at WHERE id = ?`, u.ID); err != nil {
		t.Fatal(err)
	}
	session, err := e.App.People.StartSession(ctx, u.ID)
	if err != nil {
		t.Fatal(err)
	}
	v := newVisitor(t, e)
	base, _ := url.Parse(e.URL)
	v.c.Jar.SetCookies(base, []*http.Cookie{{Name: "ld_session", Value: session}})
	v.get("/following")
	if v.csrf == "" {
		t.Fatal("no form token for a signed-in member")
	}
	return &member{c: v.c, csrf: v.csrf}
}

// postStatus posts a form with c and returns the status (safe to call
// from many goroutines).
func postStatus(t *testing.T, c *http.Client, target string, form url.Values) int {
	req, _ := http.NewRequest("POST", target, strings.NewReader(form.Encode()))
	req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	resp, err := c.Do(req)
	if err != nil {
		t.Error(err)
		return 0
	}
	io.Copy(io.Discard, resp.Body)
	resp.Body.Close()
	return resp.StatusCode
}

// parallel runs n posts at once and counts the statuses.
func parallel(n int, post func(i int) int) map[int]int {
	var mu sync.Mutex
	var wg sync.WaitGroup
	got := map[int]int{}
	for i := range n {
		wg.Add(1)
		go func() {
			defer wg.Done()
			s := post(i)
			mu.Lock()
			got[s]++
			mu.Unlock()
		}()
	}
	wg.Wait()
	return got
}

// signInForm is an anonymous visitor's sign-in form token.
func signInForm(t *testing.T, e *apitest.Env) (*http.Client, string) {
	v := newVisitor(t, e)
	v.get("/signin")
	return v.c, v.csrf
}

// The failed sign-in limit is reserved before the password is checked:
// 31 parallel wrong passwords for one email from one address get exactly
// 5 answers "not correct" and 26 "too many" (before: 19 were checked), and
// then the right password is refused too until the window ends.
func TestSignInLimitParallel(t *testing.T) {
	e := peopleEnv(t)
	newMember(t, e, "target@example.com")
	c, csrf := signInForm(t, e)
	got := parallel(31, func(int) int {
		return postStatus(t, c, e.URL+"/signin", url.Values{"csrf": {csrf}, "email": {"target@example.com"}, "password": {"wrong password!!"}})
	})
	if got[http.StatusTooManyRequests] != 26 || got[http.StatusBadRequest] != 5 {
		t.Errorf("31 parallel wrong passwords: %v, want 5 checked (400) and 26 refused (429)", got)
	}
	if s := postStatus(t, c, e.URL+"/signin", url.Values{"csrf": {csrf}, "email": {"target@example.com"}, "password": {"correct horse battery"}}); s != 429 {
		t.Errorf("right password after the limit: %d, want 429", s)
	}
	// The address limit (30, any email) at its edge, in parallel: 31
	// different emails, 25 more failures allowed for this address.
	got = parallel(31, func(i int) int {
		return postStatus(t, c, e.URL+"/signin", url.Values{"csrf": {csrf}, "email": {"x" + strconv.Itoa(i) + "@example.com"}, "password": {"wrong password!!"}})
	})
	if got[http.StatusTooManyRequests] != 6 || got[http.StatusBadRequest] != 25 {
		t.Errorf("31 parallel wrong passwords for other emails: %v, want 25 checked and 6 refused", got)
	}
	// After the window (15 minutes) the right password signs in.
	e.App.Now = func() time.Time { return apitest.Now.Add(16 * time.Minute) }
	if s := postStatus(t, c, e.URL+"/signin", url.Values{"csrf": {csrf}, "email": {"target@example.com"}, "password": {"correct horse battery"}}); s != 303 {
		t.Errorf("right password after the window: %d", s)
	}
}

// One limiter for every door that checks passwords: 5 failures on the
// site's sign-in page and the OAuth sign-in page refuses the 6th (and the
// other way round).
func TestSignInLimitSharedWithOAuth(t *testing.T) {
	e := peopleEnv(t)
	newMember(t, e, "shared@example.com")
	newMember(t, e, "other@example.com")
	c, csrf := signInForm(t, e)
	oauthSignIn := func(email string) int {
		t.Helper()
		b := newVisitor(t, e)
		client := registerOAuthClient(t, e)
		pg := b.get("/oauth/authorize?" + url.Values{"response_type": {"code"}, "client_id": {client}, "redirect_uri": {"http://127.0.0.1:9999/callback"},
			"code_challenge": {"E9Melhoa2OwvFrEMTJguCHaoeK1t8URWbuGJSstw-cM"}, "code_challenge_method": {"S256"}}.Encode())
		m := regexp.MustCompile(`name="request" value="([^"]+)"`).FindStringSubmatch(pg.body)
		if m == nil || b.csrf == "" {
			t.Fatalf("OAuth sign-in page without form: %d %.500s", pg.status, pg.body)
		}
		return b.post("/oauth/signin", url.Values{"request": {html.UnescapeString(m[1])}, "email": {email}, "password": {"wrong password!!"}}).status
	}
	for i := range 5 {
		if s := postStatus(t, c, e.URL+"/signin", url.Values{"csrf": {csrf}, "email": {"shared@example.com"}, "password": {"wrong password!!"}}); s != 400 {
			t.Fatalf("site failure %d: %d", i, s)
		}
	}
	if s := oauthSignIn("shared@example.com"); s != 429 {
		t.Errorf("OAuth sign-in after 5 failures on the site: %d, want 429", s)
	}
	for i := range 5 {
		if s := oauthSignIn("other@example.com"); s != 401 {
			t.Fatalf("OAuth failure %d: %d", i, s)
		}
	}
	if s := postStatus(t, c, e.URL+"/signin", url.Values{"csrf": {csrf}, "email": {"other@example.com"}, "password": {"correct horse battery"}}); s != 429 {
		t.Errorf("site sign-in after 5 failures on the OAuth page: %d, want 429", s)
	}
}

// Vote limits are reserved before the toggle: 45 parallel toggles from
// one account, exactly 30 accepted (before: all 45); 68 from one address
// by three accounts, exactly 60. Counters match a recount after.
func TestVoteLimitsParallel(t *testing.T) {
	e := peopleEnv(t)
	slug := firstSlug(t, e, "/api/v1/launches?section=this-week")
	one := newMember(t, e, "busy@example.com")
	got := parallel(45, func(int) int {
		return postStatus(t, one.c, e.URL+"/listings/"+slug+"/vote", url.Values{"csrf": {one.csrf}})
	})
	if got[http.StatusSeeOther] != 30 || got[http.StatusTooManyRequests] != 15 {
		t.Errorf("45 parallel toggles from one account: %v, want 30 accepted and 15 refused", got)
	}
	// A new window for the address test.
	e.App.Now = func() time.Time { return apitest.Now.Add(11 * time.Minute) }
	ms := []*member{newMember(t, e, "m1@example.com"), newMember(t, e, "m2@example.com"), newMember(t, e, "m3@example.com")}
	got = parallel(68, func(i int) int {
		m := ms[i%3]
		return postStatus(t, m.c, e.URL+"/listings/"+slug+"/vote", url.Values{"csrf": {m.csrf}})
	})
	if got[http.StatusSeeOther] != 60 || got[http.StatusTooManyRequests] != 8 {
		t.Errorf("68 parallel toggles from one address: %v, want 60 accepted and 8 refused", got)
	}
	var kept, recount int
	e.DB.R.QueryRow(`SELECT votes FROM listings WHERE slug = ?`, slug).Scan(&kept)
	e.DB.R.QueryRow(`SELECT count(*) FROM votes v JOIN listings l ON l.id = v.listing_id WHERE l.slug = ? AND v.counted`, slug).Scan(&recount)
	if kept != recount {
		t.Errorf("listing votes %d, recount %d", kept, recount)
	}
}

// registerOAuthClient registers a public OAuth client (dynamic
// registration) redirecting to a loopback callback.
func registerOAuthClient(t *testing.T, e *apitest.Env) string {
	t.Helper()
	r := e.Do("POST", "/oauth/register", map[string]any{"client_name": "Test Agent", "redirect_uris": []string{"http://127.0.0.1:9999/callback"}})
	id, _ := r.JSON()["client_id"].(string)
	if r.Status != 201 || id == "" {
		t.Fatalf("register: %d %s", r.Status, r.Body)
	}
	return id
}

// The sign-up form at the limits: without the puzzle's solution the page
// names the check and keeps what was typed; five accounts from one
// address in a day are made and the sixth is refused with a wait (429,
// Retry-After) on the form.
func TestSignupFormLimits(t *testing.T) {
	e := newEnvWith(t, func(a *app.App) { a.Cfg.VoteMinAccountAge = -1 })
	v := newVisitor(t, e)
	v.get("/signup")
	r := v.post("/signup", url.Values{"email": {"nopuzzle@example.com"}, "name": {"No Puzzle"}, "password": {"correct horse battery"}, "altcha": {""}})
	if r.status != 400 || !strings.Contains(r.body, `id="altcha-err"`) || !strings.Contains(r.body, "nopuzzle@example.com") {
		t.Fatalf("without the puzzle: %d %s", r.status, r.body)
	}
	for i := range 6 {
		v.get("/signup")
		r := v.post("/signup", url.Values{"email": {fmt.Sprintf("s%d@example.com", i)}, "name": {"S"}, "password": {"correct horse battery"}})
		if i < 5 && (r.status != 200 || !strings.Contains(r.body, "we sent a link")) {
			t.Fatalf("sign-up %d: %d", i, r.status)
		}
		if i == 5 && (r.status != 429 || r.header.Get("Retry-After") == "" || !strings.Contains(r.body, "too many new accounts")) {
			t.Fatalf("6th sign-up from one address: %d %s", r.status, r.body)
		}
	}
}

// The site team's view of suspected rings: three new accounts from one
// network vote for a listing (the third's vote page says it waits for
// review), the ring is listed on /admin/rings, and one button discounts it.
func TestRingModerationPage(t *testing.T) {
	e := newEnvWith(t, func(a *app.App) { a.Cfg.VoteMinAccountAge = -1 })
	slug := firstSlug(t, e, "/api/v1/launches?section=this-week")
	ctx := context.Background()
	var last people.VoteState
	for i := range 3 {
		u, err := e.App.People.CreateUser(ctx, fmt.Sprintf("sock%d@sockpuppets.test", i), "Sock", "correct horse battery")
		if err != nil {
			t.Fatal(err)
		}
		e.DB.W.Exec(`UPDATE users SET verified_at = created_at, signup_net = '203.0.113.0/24' WHERE id = ?`, u.ID)
		if last, err = e.App.People.ToggleVote(ctx, u.ID, slug, "203.0.113.9"); err != nil {
			t.Fatal(err)
		}
	}
	if !last.Held {
		t.Fatalf("third vote: %+v", last)
	}
	if pg := newVisitor(t, e).get("/listings/" + slug + "?done=voted-held"); !strings.Contains(pg.body, "waits for a review") {
		t.Errorf("listing page does not explain the held vote")
	}
	u, _ := e.App.People.CreateUser(ctx, "team@launchdir.test", "Team", "")
	e.App.Admin.SetAdmin(ctx, "team@launchdir.test", true)
	session, _ := e.App.People.StartSession(ctx, u.ID)
	admin := newVisitor(t, e)
	base, _ := url.Parse(e.URL)
	admin.c.Jar.SetCookies(base, []*http.Cookie{{Name: "ld_session", Value: session}})
	pg := admin.get("/admin/rings")
	m := regexp.MustCompile(`action="(/admin/rings/\d+/review)"`).FindStringSubmatch(pg.body)
	if pg.status != 200 || m == nil || !strings.Contains(pg.body, "sockpuppets.test") {
		t.Fatalf("rings page: %d %s", pg.status, pg.body)
	}
	r := admin.post(m[1], url.Values{"action": {"discount"}})
	if r.status != 303 || !strings.Contains(r.header.Get("Location"), "ring-discounted") {
		t.Fatalf("discount: %d %s", r.status, r.header.Get("Location"))
	}
	if pg := admin.get("/admin/rings"); !strings.Contains(pg.body, "discounted") || strings.Contains(pg.body, m[1]) {
		t.Errorf("after discounting: %s", pg.body)
	}
	if pg := newVisitor(t, e).get("/admin/rings"); pg.status != 303 && pg.status != 404 && pg.status != 403 {
		t.Errorf("anonymous /admin/rings: %d", pg.status)
	}
}

// The OAuth sign-in page sends the browser back only to its own
// authorization endpoint, whatever the posted request holds.
func TestOAuthSignInRedirectStaysLocal(t *testing.T) {
	e := peopleEnv(t)
	newMember(t, e, "oauthnext@example.com")
	client := registerOAuthClient(t, e)
	b := newVisitor(t, e)
	b.get("/oauth/authorize?" + url.Values{"response_type": {"code"}, "client_id": {client}, "redirect_uri": {"http://127.0.0.1:9999/callback"},
		"code_challenge": {"E9Melhoa2OwvFrEMTJguCHaoeK1t8URWbuGJSstw-cM"}, "code_challenge_method": {"S256"}}.Encode())
	request := url.Values{"client_id": {client}, "next": {"//evil.example"}, "redirect_uri": {"http://127.0.0.1:9999/callback"}}.Encode() + "&x=%0d%0aLocation:%20//evil.example"
	r := b.post("/oauth/signin", url.Values{"request": {request}, "email": {"oauthnext@example.com"}, "password": {"correct horse battery"}})
	loc := r.header.Get("Location")
	if r.status != 303 || !strings.HasPrefix(loc, "/oauth/authorize?") || routes.LocalPath(loc) != loc {
		t.Fatalf("OAuth sign-in: %d Location %q", r.status, loc)
	}
}
