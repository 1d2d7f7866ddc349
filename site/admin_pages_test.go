package site_test

import (
	"bytes"
	"context"
	"io"
	"mime/multipart"
	"net/http"
	"net/url"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"launchdir/apitest"
	admindomain "launchdir/app/admin"
	"launchdir/app/commerce"
	"launchdir/payments"
	"launchdir/site"
)

// The signed-in areas read the person from the website's session: these
// tests start real sessions (app.StartSession) and send their cookie.
type areaEnv struct {
	*apitest.Env
	admin int64
}

func newAreaEnv(t *testing.T) *areaEnv {
	t.Helper()
	return newAreaEnvWith(t, apitest.Options{Fixture: true})
}

func newAreaEnvWith(t *testing.T, o apitest.Options) *areaEnv {
	t.Helper()
	e := apitest.New(t, o)
	if _, err := payments.Setup(e.App, e.Routes, payments.Config{Provider: "test"}); err != nil {
		t.Fatal(err)
	}
	if _, err := site.Mount(e.Routes, e.App, e.App.People); err != nil { // as server.go mounts it
		t.Fatal(err)
	}
	ae := &areaEnv{Env: e}
	u, _ := e.App.People.CreateUser(context.Background(), "admin@example.com", "Ada Admin", "")
	e.App.Admin.SetAdmin(context.Background(), "admin@example.com", true)
	ae.admin = u.ID
	return ae
}

// person is a browser signed in as userID (0: anonymous).
type person struct {
	e      *areaEnv
	cookie string
	c      *http.Client
}

func (e *areaEnv) as(userID int64) *person {
	p := &person{e: e, c: &http.Client{CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}}
	if userID != 0 {
		// Unknown user ids get a cookie that matches no session.
		p.cookie = "lds_no_such_session"
		if sess, err := e.App.People.StartSession(context.Background(), userID); err == nil {
			p.cookie = sess
		}
	}
	return p
}

type page struct {
	status int
	loc    string
	body   string
	header http.Header
}

func (p *person) do(method, path, ctype string, body io.Reader, hdr ...string) page {
	p.e.T.Helper()
	req, _ := http.NewRequest(method, p.e.URL+path, body)
	if ctype != "" {
		req.Header.Set("Content-Type", ctype)
	}
	if p.cookie != "" {
		req.AddCookie(&http.Cookie{Name: "ld_session", Value: p.cookie})
	}
	for i := 0; i+1 < len(hdr); i += 2 {
		req.Header.Set(hdr[i], hdr[i+1])
	}
	resp, err := p.c.Do(req)
	if err != nil {
		p.e.T.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	return page{status: resp.StatusCode, loc: resp.Header.Get("Location"), body: string(b), header: resp.Header}
}

func (p *person) get(path string) page { return p.do("GET", path, "", nil) }

var areaCSRF = regexp.MustCompile(`name="csrf" value="([0-9a-f]+)"`)

// csrf reads the form token from a page of the area.
func (p *person) csrf(path string) string {
	p.e.T.Helper()
	pg := p.get(path)
	m := areaCSRF.FindStringSubmatch(pg.body)
	if m == nil {
		p.e.T.Fatalf("%s: no csrf field (%d) %s", path, pg.status, pg.body)
	}
	return m[1]
}

// post sends a form with the person's CSRF token (taken from tokenPage).
func (p *person) post(path, tokenPage string, form url.Values) page {
	p.e.T.Helper()
	form.Set("csrf", p.csrf(tokenPage))
	return p.do("POST", path, "application/x-www-form-urlencoded", strings.NewReader(form.Encode()))
}

var adminGETs = []string{"/admin", "/admin/revisions", "/admin/revisions?listing=1", "/admin/moderation", "/admin/weeks",
	"/admin/commerce", "/admin/data", "/admin/outbox", "/admin/outbox?status=pending", "/admin/settings", "/admin/audit"}

var adminPOSTs = []string{"/admin/revisions/1/revert", "/admin/listings/moderate", "/admin/reviews/1/hide", "/admin/accounts/3/ban", "/admin/reports/1/dismiss",
	"/admin/weeks/capacity", "/admin/weeks/move", "/admin/products/launch", "/admin/promos", "/admin/promos/X/pause",
	"/admin/orders/LD-2026-000001/refund", "/admin/data/preview", "/admin/data/apply", "/admin/outbox/1/retry", "/admin/settings",
	"/admin/comments/1/hide", "/admin/comments/1/restore"}

func TestAdminPagesAreNotFoundForEveryoneElse(t *testing.T) {
	e := newAreaEnv(t)
	key := e.APIKey("admin@example.com") // an admin's API key never opens the admin
	for _, who := range []*person{e.as(0), e.as(1), e.as(2), e.as(9999)} {
		for _, path := range adminGETs {
			if pg := who.get(path); pg.status != 404 || !strings.Contains(pg.body, "Page not found") {
				t.Errorf("GET %s as %q: %d", path, who.cookie, pg.status)
			}
		}
		for _, path := range adminPOSTs {
			if pg := who.do("POST", path, "application/x-www-form-urlencoded", strings.NewReader("csrf=x&reason=r&status=rejected&listing_id=1")); pg.status != 404 {
				t.Errorf("POST %s: %d", path, pg.status)
			}
		}
	}
	for _, path := range adminGETs {
		if pg := e.as(0).do("GET", path, "", nil, "Authorization", "Bearer "+key); pg.status != 404 {
			t.Errorf("GET %s with the admin's API key: %d", path, pg.status)
		}
	}
	admin := e.as(e.admin)
	for _, path := range adminGETs {
		pg := admin.get(path)
		if pg.status != 200 || !strings.Contains(pg.body, `<nav aria-label="Admin">`) || pg.header.Get("Cache-Control") != "no-store" ||
			!strings.Contains(pg.body, `name="robots" content="noindex`) || !strings.Contains(pg.body, `action="/signout"`) ||
			!strings.Contains(pg.body, `<a href="/me/listings">Your listings</a> <a href="/admin">Admin</a>`) {
			t.Errorf("admin GET %s: %d %s", path, pg.status, pg.header.Get("Cache-Control"))
		}
	}
	if n := count(t, e.Env, `SELECT count(*) FROM admin_audit`); n != 0 {
		t.Fatalf("refused requests wrote %d audit rows", n)
	}
}

func count(t *testing.T, e *apitest.Env, q string, args ...any) int {
	t.Helper()
	var n int
	if err := e.DB.R.QueryRow(q, args...).Scan(&n); err != nil {
		t.Fatal(err)
	}
	return n
}

func TestAdminFormsNeedCSRFAndSameOrigin(t *testing.T) {
	e := newAreaEnv(t)
	admin := e.as(e.admin)
	form := url.Values{"status": {"rejected"}, "reason": {"spam"}, "listing_id": {"2"}}
	if pg := admin.do("POST", "/admin/listings/moderate", "application/x-www-form-urlencoded", strings.NewReader(form.Encode())); pg.status != 403 {
		t.Fatalf("no token: %d", pg.status)
	}
	// Another person's token does not fit.
	other := e.as(1).csrf("/me/keys")
	form.Set("csrf", other)
	if pg := admin.do("POST", "/admin/listings/moderate", "application/x-www-form-urlencoded", strings.NewReader(form.Encode())); pg.status != 403 {
		t.Fatalf("another person's token: %d", pg.status)
	}
	form.Set("csrf", admin.csrf("/admin/moderation"))
	pg := admin.do("POST", "/admin/listings/moderate", "application/x-www-form-urlencoded", strings.NewReader(form.Encode()),
		"Sec-Fetch-Site", "cross-site", "Origin", "https://evil.example")
	if pg.status != 403 {
		t.Fatalf("cross-site: %d", pg.status)
	}
	if n := count(t, e.Env, `SELECT count(*) FROM listings WHERE id = 2 AND status = 'live'`); n != 1 {
		t.Fatal("a refused form changed the listing")
	}
	if pg := admin.do("POST", "/admin/listings/moderate", "application/x-www-form-urlencoded", strings.NewReader(form.Encode())); pg.status != 303 ||
		pg.loc != "/admin/moderation?done=moderated" {
		t.Fatalf("valid form: %d %s", pg.status, pg.loc)
	}
}

func TestAdminRevertsAnOwnerEditOnThePage(t *testing.T) {
	e := newAreaEnv(t)
	owner := apitest.Bearer(e.APIKey("owner@example.com"))
	before := e.Do("GET", "/api/v1/listings/quickbase", nil).JSON()["tagline"].(string)
	if r := e.Do("PATCH", "/api/v1/me/listings/1", map[string]any{"fields": map[string]any{"tagline": "Owner <b>edit</b>"}}, owner...); r.Status != 200 {
		t.Fatalf("patch: %d", r.Status)
	}
	admin := e.as(e.admin)
	pg := admin.get("/admin/revisions?listing=1")
	// Readable text, not JSON: no quotes around the values.
	for _, want := range []string{"update_my_listing", "owner@example.com", `<span class="sr">removed: </span>` + before + "</del>",
		`<span class="sr">added: </span>Owner &lt;b&gt;edit&lt;/b&gt;</ins>`, "Revert to before"} {
		if !strings.Contains(pg.body, want) {
			t.Errorf("revisions page lacks %q", want)
		}
	}
	if pg := admin.get("/admin/revisions?page=1001"); pg.status != 400 {
		t.Errorf("page 1001: %d", pg.status)
	}
	revs, _ := e.App.Admin.ListRevisions(context.Background(), e.admin, 1, admindomain.AdminPage{})
	id := strconv.FormatInt(revs.Items[0].ID, 10)
	if pg := admin.post("/admin/revisions/"+id+"/revert", "/admin/revisions", url.Values{}); pg.status != 400 || !strings.Contains(pg.body, "tick the box to confirm") {
		t.Fatalf("revert without confirming: %d", pg.status)
	}
	pg = admin.post("/admin/revisions/"+id+"/revert", "/admin/revisions", url.Values{"confirm": {"yes"}})
	if pg.status != 303 || pg.loc != "/admin/revisions?done=reverted&listing=1" {
		t.Fatalf("revert: %d %s", pg.status, pg.loc)
	}
	if got := e.Do("GET", "/api/v1/listings/quickbase", nil).JSON()["tagline"]; got != before {
		t.Fatalf("API after revert: %v", got)
	}
	if pg := admin.get(pg.loc); !strings.Contains(pg.body, "The revision was reverted") || !strings.Contains(pg.body, "admin_revert:"+id) {
		t.Errorf("after revert: %s", pg.body)
	}
	if pg := admin.post("/admin/revisions/999999/revert", "/admin/revisions", url.Values{"confirm": {"yes"}}); pg.status != 404 {
		t.Errorf("unknown revision: %d", pg.status)
	}
	if pg := admin.get("/admin/audit"); !strings.Contains(pg.body, "revert_revision") || !strings.Contains(pg.body, "admin@example.com") {
		t.Errorf("audit page: %s", pg.body)
	}
}

// multipartForm builds an upload form.
func multipartForm(t *testing.T, fields map[string]string, file string) (string, io.Reader) {
	var b bytes.Buffer
	w := multipart.NewWriter(&b)
	for k, v := range fields {
		w.WriteField(k, v)
	}
	if file != "" {
		f, _ := w.CreateFormFile("file", "dr.csv")
		f.Write([]byte(file))
	}
	w.Close()
	return w.FormDataContentType(), &b
}

func TestAdminImportsDomainRatingCSVOnThePage(t *testing.T) {
	e := newAreaEnv(t)
	admin := e.as(e.admin)
	csrf := admin.csrf("/admin/data")
	fields := map[string]string{"csrf": csrf, "kind": "domain_rating", "source": "Ahrefs export", "as_of": "2026-11-15"}
	ct, body := multipartForm(t, fields, "slug,domain_rating\ntablely,101\nnope,3\n")
	pg := admin.do("POST", "/admin/data/preview", ct, body)
	if pg.status != 400 || !strings.Contains(pg.body, "line 2, column domain_rating") || !strings.Contains(pg.body, "line 3, column slug") {
		t.Fatalf("bad CSV preview: %d %s", pg.status, pg.body)
	}
	ct, body = multipartForm(t, fields, "slug,domain_rating\ntablely,91\n")
	pg = admin.do("POST", "/admin/data/preview", ct, body)
	if pg.status != 200 || !strings.Contains(pg.body, "Preview: 1 figures") || !strings.Contains(pg.body, "Apply these 1 figures") {
		t.Fatalf("preview: %d %s", pg.status, pg.body)
	}
	if n := count(t, e.Env, `SELECT count(*) FROM domain_ratings WHERE source = 'Ahrefs export'`); n != 0 {
		t.Fatal("preview wrote")
	}
	// Apply posts the previewed CSV back (hidden field).
	pg = admin.post("/admin/data/apply", "/admin/data", url.Values{"kind": {"domain_rating"}, "source": {"Ahrefs export"},
		"as_of": {"2026-11-15"}, "csv": {"slug,domain_rating\ntablely,91\n"}})
	if pg.status != 200 || !strings.Contains(pg.body, "Imported 1 figures from Ahrefs export") {
		t.Fatalf("apply: %d %s", pg.status, pg.body)
	}
	board := e.Do("GET", "/leaderboards/domain-rating", nil)
	if !strings.Contains(string(board.Body), "Ahrefs export, as of 15 Nov 2026") {
		t.Fatalf("board: %s", board.Body)
	}
	api := e.Do("GET", "/api/v1/leaderboards/domain-rating", nil)
	if !strings.Contains(string(api.Body), `"source":"Ahrefs export","as_of":"2026-11-15"`) {
		t.Fatalf("API board: %s", api.Body)
	}
	// Missing source: the form is shown again with the reason.
	pg = admin.post("/admin/data/preview", "/admin/data", url.Values{"kind": {"domain_rating"}, "as_of": {"2026-11-15"}, "csv": {"slug,domain_rating\ntablely,1\n"}})
	if pg.status != 400 || !strings.Contains(pg.body, "source") {
		t.Fatalf("no source: %d", pg.status)
	}
}

func TestAdminModerationWeeksCommerceOutboxSettingsPages(t *testing.T) {
	e := newAreaEnv(t)
	admin := e.as(e.admin)
	ctx := context.Background()
	e.DB.W.Exec(`INSERT INTO reviews(id, listing_id, author_name, rating, body, genuine, created_at) VALUES (70, 1, 'Spammy', 1, 'bad', 1, '2026-11-17T00:00:00Z')`)
	e.DB.W.Exec(`INSERT INTO outbox(id, kind, to_addr, subject, body, status, attempts, last_error, next_attempt_at, created_at)
		VALUES (9, 'k', 'x@example.com', 'Hello', 'b', 'failed', 8, 'smtp down', '2026-11-18T00:00:00Z', '2026-11-17T00:00:00Z')`)
	steps := []struct {
		path, tokenPage string
		form            url.Values
		status          int
		loc             string
	}{
		{"/admin/listings/moderate", "/admin/moderation", url.Values{"listing_id": {"2"}, "status": {"archived"}, "reason": {""}}, 400, ""},
		{"/admin/listings/moderate", "/admin/moderation", url.Values{"listing_id": {"2"}, "status": {"archived"}, "reason": {"duplicate"}}, 303, "/admin/moderation?done=moderated"},
		{"/admin/reviews/70/hide", "/admin/moderation", url.Values{"reason": {"spam"}}, 303, "/admin/moderation?done=hidden"},
		{"/admin/reviews/70/hide", "/admin/moderation", url.Values{"reason": {"spam"}}, 400, ""},
		{"/admin/accounts/3/ban", "/admin/moderation", url.Values{"reason": {"vote ring"}}, 303, "/admin/moderation?done=banned"},
		{"/admin/weeks/capacity", "/admin/weeks", url.Values{"week": {"2026-12-14"}, "capacity": {"7"}}, 303, "/admin/weeks?done=capacity"},
		{"/admin/weeks/capacity", "/admin/weeks", url.Values{"week": {"2026-12-15"}, "capacity": {"7"}}, 400, ""},
		{"/admin/weeks/capacity", "/admin/weeks", url.Values{"week": {"2026-12-14"}, "capacity": {"-3"}}, 400, ""},
		{"/admin/weeks/move", "/admin/weeks", url.Values{"listing_id": {"5"}, "week": {"2026-12-21"}}, 303, "/admin/weeks?done=moved"},
		{"/admin/weeks/move", "/admin/weeks", url.Values{"listing": {"SoonApp"}, "week": {"2026-12-28"}}, 303, "/admin/weeks?done=moved"},
		{"/admin/weeks/move", "/admin/weeks", url.Values{"listing": {"soonapp"}, "week": {"2027-01-04"}}, 303, "/admin/weeks?done=moved"},
		{"/admin/weeks/move", "/admin/weeks", url.Values{"listing": {"No Such App"}, "week": {"2027-01-04"}}, 400, ""},
		{"/admin/products/ai_review", "/admin/commerce", url.Values{"price": {"45.50"}, "capacity": {""}}, 303, "/admin/commerce?done=price"},
		{"/admin/products/ai_review", "/admin/commerce", url.Values{"price": {"45.505"}}, 400, ""},
		{"/admin/products/nope", "/admin/commerce", url.Values{"price": {"1"}}, 404, ""},
		{"/admin/promos", "/admin/commerce", url.Values{"code": {"SAVE5"}, "kind": {"percent"}, "value": {"5"}, "max": {"10"}}, 303, "/admin/commerce?done=promo"},
		{"/admin/promos", "/admin/commerce", url.Values{"code": {"BAD"}, "kind": {"percent"}, "value": {"500"}}, 400, ""},
		// The form's datetime-local fields (UTC) become RFC 3339; a bad one names the field.
		{"/admin/promos", "/admin/commerce", url.Values{"code": {"WINTER"}, "kind": {"fixed"}, "value": {"5.00"}, "from": {"2026-12-01T08:30"}, "until": {"2027-01-01T00:00"}}, 303, "/admin/commerce?done=promo"},
		{"/admin/promos", "/admin/commerce", url.Values{"code": {"LATER"}, "kind": {"fixed"}, "value": {"500"}, "from": {"1 December"}}, 400, ""},
		{"/admin/promos", "/admin/commerce", url.Values{"code": {"COMMA"}, "kind": {"fixed"}, "value": {"5,00"}}, 400, ""},
		{"/admin/promos/SAVE5/pause", "/admin/commerce", url.Values{"paused": {"true"}}, 303, "/admin/commerce?done=promo"},
		{"/admin/outbox/9/retry", "/admin/outbox", url.Values{}, 303, "/admin/outbox?done=retried&status=pending"},
		{"/admin/settings", "/admin/settings", url.Values{"site_name": {"Renamed"}, "site_description": {"d"}, "free_queue_weeks": {"53"}, "free_weekly_capacity": {"3"}}, 400, ""},
		{"/admin/settings", "/admin/settings", url.Values{"site_name": {"Renamed"}, "site_description": {"d"}, "free_queue_weeks": {"3"}, "free_weekly_capacity": {"3"}}, 303, "/admin/settings?done=settings"},
	}
	for _, s := range steps {
		pg := admin.post(s.path, s.tokenPage, s.form)
		if pg.status != s.status || pg.loc != s.loc {
			t.Errorf("POST %s %v: %d %s, want %d %s", s.path, s.form, pg.status, pg.loc, s.status, s.loc)
		}
	}
	if l := e.Do("GET", "/api/v1/me/listings/2", nil, apitest.Bearer(e.APIKey("other@example.com"))...).JSON(); l["moderation_reason"] != "duplicate" {
		t.Errorf("owner does not see the reason: %v", l["moderation_reason"])
	}
	if !e.App.Admin.IsBanned(ctx, 3) {
		t.Error("not banned")
	}
	var moved string
	e.DB.W.QueryRow(`SELECT launch_week FROM listings WHERE id = 5`).Scan(&moved)
	if moved != "2027-01-04" {
		t.Errorf("listing moved by name and slug: week %s", moved)
	}
	var winter int64
	e.DB.W.QueryRow(`SELECT value FROM promo_codes WHERE code = 'WINTER'`).Scan(&winter)
	if winter != 500 {
		t.Errorf("fixed promo typed as 5.00 stored as %d cents", winter)
	}
	if pg := admin.get("/admin/commerce"); !strings.Contains(pg.body, "5.00 off") {
		t.Errorf("promo list does not show the amount in money")
	}
	if promos, err := e.App.Commerce.ListPromos(ctx); err != nil || !promoValid(promos, "WINTER", "2026-12-01T08:30:00Z", "2027-01-01T00:00:00Z") {
		t.Errorf("promo from the datetime-local form: %+v %v", promos, err)
	}
	if s := e.App.Admin.Settings(ctx); s.SiteName != "Renamed" || s.FreeQueueWeeks != 3 {
		t.Errorf("settings: %+v", s)
	}
	for path, want := range map[string][]string{
		"/admin/moderation":            {"hidden (spam)", "banned: vote ring"},
		"/admin/weeks":                 {`value="7"`, "SoonApp"},
		"/admin/commerce":              {`value="45.50"`, "SAVE5", "paused", "Resume"},
		"/admin/outbox?status=pending": {"Hello", "Retry now"},
		"/admin/settings":              {`value="Renamed"`},
		"/admin/audit":                 {"moderate_listing", "hide_review", "ban_user", "set_week_capacity", "move_listing_week", "set_price", "create_promo", "pause_promo", "retry_email", "update_settings"},
	} {
		pg := admin.get(path)
		for _, w := range want {
			if !strings.Contains(pg.body, w) {
				t.Errorf("%s lacks %q", path, w)
			}
		}
	}
	// Refund from the page.
	key := apitest.Bearer(e.APIKey("owner@example.com"))
	r := e.Do("POST", "/api/v1/orders/checkout", apitest.Order(apitest.OrderItem("ai_review", "listing_id", 1)), key...)
	number := r.JSON()["number"].(string)
	e.App.Commerce.ConfirmPayment(ctx, number, "test", "t")
	if pg := admin.post("/admin/orders/"+number+"/refund", "/admin/commerce", url.Values{"note": {"refunded at Stripe"}}); pg.status != 303 {
		t.Fatalf("refund: %d %s", pg.status, pg.body)
	}
	if pg := admin.post("/admin/orders/"+number+"/refund", "/admin/commerce", url.Values{}); pg.status != 400 {
		t.Errorf("refund twice: %d", pg.status)
	}
}

func TestAdminReportsQueuePage(t *testing.T) {
	e := newAreaEnv(t)
	e.DB.W.Exec(`INSERT INTO reviews(id, listing_id, author_name, rating, body, genuine, created_at) VALUES (61, 1, 'X', 1, 'scam!!', 1, '2026-11-17T00:00:00Z')`)
	e.DB.W.Exec(`INSERT INTO reports(id, user_id, kind, listing_id, review_id, reason, created_at) VALUES
		(1, 3, 'listing', 2, NULL, 'spam listing', '2026-11-17T01:00:00Z'), (2, 3, 'review', 1, 61, 'fake review', '2026-11-17T02:00:00Z')`)
	admin := e.as(e.admin)
	pg := admin.get("/admin/moderation")
	for _, want := range []string{"2 open reports", "spam listing", "fake review", "<q>scam!!</q>", "Hide review", "/admin/reports/1/dismiss"} {
		if !strings.Contains(pg.body, want) {
			t.Errorf("moderation page lacks %q", want)
		}
	}
	if pg := admin.post("/admin/reviews/61/hide", "/admin/moderation", url.Values{"reason": {"fake review"}}); pg.status != 303 {
		t.Fatalf("hide: %d", pg.status)
	}
	if pg := admin.post("/admin/reports/1/dismiss", "/admin/moderation", url.Values{}); pg.status != 303 || pg.loc != "/admin/moderation?done=dismissed" {
		t.Fatalf("dismiss: %d %s", pg.status, pg.loc)
	}
	if pg := admin.get("/admin/moderation"); !strings.Contains(pg.body, "0 open reports") {
		t.Errorf("queue after acting: %s", pg.body)
	}
	if pg := e.as(1).post("/admin/reports/1/dismiss", "/me/keys", url.Values{}); pg.status != 404 {
		t.Errorf("non-admin dismiss: %d", pg.status)
	}
}

func promoValid(promos []commerce.PromoCode, code, from, until string) bool {
	for _, p := range promos {
		if p.Code == code {
			return p.ValidFrom == from && p.ValidUntil == until
		}
	}
	return false
}
