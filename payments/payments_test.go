package payments_test

import (
	"context"
	"net/http"
	"net/http/cookiejar"
	"net/url"
	"regexp"
	"strings"
	"sync"
	"testing"
	"time"

	"launchdir/apitest"
	"launchdir/payments"
)

const (
	week1 = "2026-11-23"
	week2 = "2026-11-30"
)

func env(t *testing.T, cfg payments.Config) *apitest.Env {
	t.Helper()
	e := apitest.New(t, apitest.Options{Fixture: true})
	apitest.LoadSQL(t, e.DB, "orders_fixture.sql")
	if _, err := payments.Setup(e.App, e.Routes, cfg); err != nil {
		t.Fatal(err)
	}
	return e
}

// it and order build order bodies (shared with the other order tests).
var (
	it    = apitest.OrderItem
	order = apitest.Order
)

func scalar(t *testing.T, e *apitest.Env, q string, args ...any) string {
	t.Helper()
	var s string
	if err := e.DB.W.QueryRow(q, args...).Scan(&s); err != nil {
		t.Fatalf("%s: %v", q, err)
	}
	return s
}

// checkout creates an order through the API and returns number and URL.
func checkout(t *testing.T, e *apitest.Env, key string, body map[string]any) (string, string) {
	t.Helper()
	r := e.Do("POST", "/api/v1/orders/checkout", body, apitest.Bearer(key)...)
	if r.Status != 201 {
		t.Fatalf("checkout %d: %s", r.Status, r.Body)
	}
	m := r.JSON()
	u, _ := m["checkout_url"].(string)
	return m["number"].(string), u
}

// browser is a person on the checkout page (cookies kept, no redirects followed).
type browser struct {
	t *testing.T
	c *http.Client
}

func newBrowser(t *testing.T) *browser {
	jar, _ := cookiejar.New(nil)
	return &browser{t: t, c: &http.Client{Jar: jar, CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}}
}

func (b *browser) get(u string) (int, string) {
	b.t.Helper()
	resp, err := b.c.Get(u)
	if err != nil {
		b.t.Fatal(err)
	}
	defer resp.Body.Close()
	var sb strings.Builder
	buf := make([]byte, 4096)
	for {
		n, err := resp.Body.Read(buf)
		sb.Write(buf[:n])
		if err != nil {
			break
		}
	}
	return resp.StatusCode, sb.String()
}

func (b *browser) post(u string, form url.Values) (int, string, string) {
	b.t.Helper()
	resp, err := b.c.PostForm(u, form)
	if err != nil {
		b.t.Fatal(err)
	}
	defer resp.Body.Close()
	var sb strings.Builder
	buf := make([]byte, 4096)
	for {
		n, err := resp.Body.Read(buf)
		sb.Write(buf[:n])
		if err != nil {
			break
		}
	}
	return resp.StatusCode, resp.Header.Get("Location"), sb.String()
}

var csrfRe = regexp.MustCompile(`name="csrf" value="([0-9a-f]+)"`)

// open loads the page and returns its CSRF field.
func (b *browser) open(u string) string {
	b.t.Helper()
	st, page := b.get(u)
	if st != 200 {
		b.t.Fatalf("page %d: %s", st, page)
	}
	m := csrfRe.FindStringSubmatch(page)
	if m == nil {
		b.t.Fatalf("no csrf field: %s", page)
	}
	return m[1]
}

func TestCheckoutPageSucceedAppliesEffects(t *testing.T) {
	e := env(t, payments.Config{})
	key := e.APIKey("owner@example.com")
	body := order(
		// Before the launch that makes listing 6 paid: applied after it.
		it("extra_categories", "listing_id", 6, "categories", []string{"seo", "developer-tools"}),
		it("launch", "listing_id", 6),
		it("billboard_min", "listing_id", 3, "amount_cents", 1234),
		it("trophy_cabinet", "listing_id", 3),
		it("ai_review", "listing_id", 6),
		it("done_for_you", "listing_id", 6),
		it("featured", "listing_id", 1, "week", week1, "options", map[string]any{"placement": "category"}),
		it("relaunch", "listing_id", 1, "week", week2),
	)
	body["billing_country"] = "DE"
	number, u := checkout(t, e, key, body)

	b := newBrowser(t)
	st, page := b.get(u)
	for _, want := range []string{"TEST MODE", number, "SecretDraft", "Billboard contribution", "19%", "card", "wallet", "paypal", "crypto",
		"simulate success", "Simulate failed payment", "Abandon checkout", "billing_name", "week of " + week1} {
		if !strings.Contains(page, want) {
			t.Errorf("page lacks %q", want)
		}
	}
	if st != 200 {
		t.Fatalf("page status %d", st)
	}
	csrf := csrfRe.FindStringSubmatch(page)[1]

	// CSRF: missing, wrong, or without the cookie → 403 and nothing happens.
	if st, _, _ := b.post(u, url.Values{"action": {"succeed"}, "method": {"card"}}); st != 403 {
		t.Errorf("no csrf: %d", st)
	}
	if st, _, _ := b.post(u, url.Values{"action": {"succeed"}, "method": {"card"}, "csrf": {strings.Repeat("0", 64)}}); st != 403 {
		t.Errorf("bad csrf: %d", st)
	}
	if st, _, _ := newBrowser(t).post(u, url.Values{"action": {"succeed"}, "method": {"card"}, "csrf": {csrf}}); st != 403 {
		t.Errorf("csrf without cookie: %d", st)
	}
	if s := scalar(t, e, `SELECT status FROM orders WHERE number = ?`, number); s != "pending" {
		t.Fatalf("status after refused posts: %s", s)
	}

	// The page never claims a payment the order does not have.
	if _, page := b.get(u + "?result=paid"); strings.Contains(page, "Payment received") {
		t.Error("?result=paid on an unpaid order shows a receipt")
	}
	if st, _, _ := b.post(u, url.Values{"action": {"succeed"}, "method": {"card"}, "csrf": {csrf}, "billing_email": {"not-an-email"}}); st != 400 {
		t.Errorf("bad billing email: %d", st)
	}
	if st, _, _ := b.post(u, url.Values{"action": {"succeed"}, "method": {"card"}, "csrf": {csrf}, "billing_country": {"ZZ"}}); st != 400 {
		t.Errorf("bad billing country: %d", st)
	}
	st, loc, _ := b.post(u, url.Values{"action": {"succeed"}, "method": {"paypal"}, "csrf": {csrf}, "billing_name": {"Olivia"}})
	if st != 303 || !strings.HasSuffix(loc, "?result=paid") {
		t.Fatalf("succeed: %d %s", st, loc)
	}
	if _, page := b.get(u); !strings.Contains(page, `<strong id="status">paid</strong>`) || !strings.Contains(page, "Your purchase is active") {
		t.Errorf("page after payment: %s", page)
	}
	// A reload of the POST changes nothing more.
	if st, _, _ := b.post(u, url.Values{"action": {"succeed"}, "method": {"paypal"}, "csrf": {csrf}}); st != 303 {
		t.Errorf("second succeed: %d", st)
	}
	// A paid order cannot be failed or abandoned afterwards.
	for _, action := range []string{"fail", "abandon"} {
		if st, _, page := b.post(u, url.Values{"action": {action}, "method": {"card"}, "csrf": {csrf}}); st != 409 || !strings.Contains(page, "already paid") {
			t.Errorf("%s after paid: %d", action, st)
		}
	}
	if s := scalar(t, e, `SELECT status FROM orders WHERE number = ?`, number); s != "paid" {
		t.Fatalf("paid order changed to %s", s)
	}
	r := e.Do("GET", "/api/v1/orders/"+number, nil, apitest.Bearer(key)...)
	if r.Status != 200 || !strings.Contains(string(r.Body), `"status":"paid"`) || strings.Contains(string(r.Body), "checkout_url") {
		t.Errorf("get_order after payment: %s", r.Body)
	}

	checks := []struct{ name, q, want string }{
		{"launch live now", `SELECT status||'/'||plan||'/'||launch_week||'/'||launched_at||'/'||unlock_story||unlock_milestones||unlock_media FROM listings WHERE id = 6`,
			"live/paid/2026-11-16/2026-11-18T12:00:00Z/111"},
		{"billboard row", `SELECT count(*)||'/'||sum(amount_cents) FROM billboard_contributions WHERE listing_id = 3 AND order_id IS NOT NULL`, "1/1234"},
		{"billboard total", `SELECT billboard_cents FROM listings WHERE id = 3`, "6234"},
		{"extra categories", `SELECT group_concat(c.slug, ',') FROM (SELECT c.slug FROM listing_categories lc JOIN categories c ON c.id = lc.category_id WHERE lc.listing_id = 6 AND lc.is_primary = 0 ORDER BY c.slug) c`, "developer-tools,seo"},
		{"recounted", `SELECT live_count FROM categories WHERE slug = 'seo'`, "2"},
		{"trophy cabinet", `SELECT unlock_story||unlock_milestones||unlock_media FROM listings WHERE id = 3`, "111"},
		{"team tasks", `SELECT group_concat(kind, ',') FROM (SELECT kind FROM team_tasks WHERE listing_id = 6 ORDER BY kind)`, "ai_review,done_for_you"},
		{"featured slot", `SELECT count(*) FROM featured_slots WHERE listing_id = 1 AND week = '` + week1 + `' AND order_id IS NOT NULL`, "1"},
		// A relaunch keeps the listing live in its first week and adds one.
		{"relaunch", `SELECT status||'/'||launch_week||'/'||(SELECT group_concat(week||':'||relaunch, ',') FROM
			(SELECT week, relaunch FROM launches WHERE listing_id = 1 ORDER BY week)) FROM listings WHERE id = 1`,
			"live/2026-11-16/2026-11-16:0," + week2 + ":1"},
	}
	for _, c := range checks {
		if got := scalar(t, e, c.q); got != c.want {
			t.Errorf("%s: %q, want %q", c.name, got, c.want)
		}
	}
}

// Moving a listing's launch is its owner's decision: a co-founder on the
// listing (role cofounder, from an invite) is refused with 403 and nothing
// is built; the owner's same order is quoted.
func TestRelaunchOnlyByTheOwner(t *testing.T) {
	e := env(t, payments.Config{})
	if _, err := e.DB.W.Exec(`INSERT INTO listing_owners(listing_id, user_id, role, created_at) VALUES (1, 2, 'cofounder', '2026-11-01T00:00:00Z')`); err != nil {
		t.Fatal(err)
	}
	body := order(it("relaunch", "listing_id", 1, "week", week2))
	for _, path := range []string{"/api/v1/orders/quote", "/api/v1/orders/checkout"} {
		r := e.Do("POST", path, body, apitest.Bearer(e.APIKey("other@example.com"))...)
		if r.Status != 403 || !strings.Contains(string(r.Body), "only the listing's owner can book a relaunch") {
			t.Errorf("co-founder %s: %d %s", path, r.Status, r.Body)
		}
	}
	if n := scalar(t, e, `SELECT count(*) FROM orders`); n != "0" {
		t.Errorf("%s orders built for a refused relaunch", n)
	}
	if r := e.Do("POST", "/api/v1/orders/quote", body, apitest.Bearer(e.APIKey("owner@example.com"))...); r.Status != 200 {
		t.Errorf("owner quote: %d %s", r.Status, r.Body)
	}
	// Another product on the same listing stays open to the co-founder.
	if r := e.Do("POST", "/api/v1/orders/quote", order(it("ai_review", "listing_id", 1)), apitest.Bearer(e.APIKey("other@example.com"))...); r.Status != 200 {
		t.Errorf("co-founder ai_review quote: %d %s", r.Status, r.Body)
	}
}

func TestCheckoutPageFailAndAbandon(t *testing.T) {
	e := env(t, payments.Config{})
	key := e.APIKey("owner@example.com")
	b := newBrowser(t)

	failNo, failURL := checkout(t, e, key, order(it("billboard_min", "listing_id", 3, "amount_cents", 700)))
	csrf := b.open(failURL)
	if st, loc, _ := b.post(failURL, url.Values{"action": {"fail"}, "method": {"card"}, "csrf": {csrf}}); st != 303 || !strings.HasSuffix(loc, "result=failed") {
		t.Fatalf("fail: %d %s", st, loc)
	}
	if s := scalar(t, e, `SELECT status FROM orders WHERE number = ?`, failNo); s != "failed" {
		t.Errorf("status %s", s)
	}
	st, _, page := b.post(failURL, url.Values{"action": {"succeed"}, "method": {"card"}, "csrf": {csrf}})
	if st != 409 || !strings.Contains(page, "can no longer be paid") {
		t.Errorf("succeed after fail: %d %s", st, page)
	}
	if n := scalar(t, e, `SELECT count(*) FROM billboard_contributions WHERE order_id IS NOT NULL`); n != "0" {
		t.Errorf("effects applied for a failed order: %s", n)
	}

	abNo, abURL := checkout(t, e, key, order(it("ai_review", "listing_id", 1)))
	csrf = b.open(abURL)
	if st, loc, _ := b.post(abURL, url.Values{"action": {"abandon"}, "csrf": {csrf}}); st != 303 || !strings.HasSuffix(loc, "result=canceled") {
		t.Fatalf("abandon: %d %s", st, loc)
	}
	if s := scalar(t, e, `SELECT status FROM orders WHERE number = ?`, abNo); s != "canceled" {
		t.Errorf("status %s", s)
	}
	if _, page := b.get(abURL); !strings.Contains(page, "canceled and cannot be paid") || strings.Contains(page, `name="csrf"`) {
		t.Errorf("page of a canceled order: %s", page)
	}
	if st, _ := b.get(e.URL + "/checkout/unknown-token"); st != 404 {
		t.Errorf("unknown token: %d", st)
	}
	if n := scalar(t, e, `SELECT count(*) FROM team_tasks`); n != "0" {
		t.Errorf("tasks for a canceled order: %s", n)
	}
}

func TestLaunchEffects(t *testing.T) {
	e := env(t, payments.Config{})
	key := e.APIKey("owner@example.com")
	// 8: free listing queued for 2026-12-14 → live now; 3: live free → paid
	// in place; 7: draft → bundle in week1 (launch + featured + ai_review).
	number, _ := checkout(t, e, key, order(it("launch", "listing_id", 8), it("launch", "listing_id", 3),
		it("launch_bundle", "listing_id", 7, "week", week1)))
	applied, err := e.App.Commerce.ConfirmPayment(context.Background(), number, "test", "ref")
	if err != nil || !applied {
		t.Fatalf("confirm: %v %v", applied, err)
	}
	checks := []struct{ name, q, want string }{
		{"queued free → live now", `SELECT status||'/'||plan||'/'||launch_week||'/'||launched_at FROM listings WHERE id = 8`, "live/paid/2026-11-16/2026-11-18T12:00:00Z"},
		{"live free upgraded in place", `SELECT status||'/'||plan||'/'||launch_week||'/'||launched_at||'/'||unlock_media FROM listings WHERE id = 3`, "live/paid/2026-11-16/2026-11-18T08:00:00Z/1"},
		{"bundle scheduled", `SELECT status||'/'||plan||'/'||launch_week||'/'||coalesce(launched_at,'-') FROM listings WHERE id = 7`, "scheduled/paid/" + week1 + "/-"},
		{"bundle featured", `SELECT count(*) FROM featured_slots WHERE listing_id = 7 AND week = '` + week1 + `'`, "1"},
		{"bundle review task", `SELECT count(*) FROM team_tasks WHERE listing_id = 7 AND kind = 'ai_review'`, "1"},
		{"recount (queuedapp live in seo)", `SELECT live_count FROM categories WHERE slug = 'seo'`, "2"},
	}
	for _, c := range checks {
		if got := scalar(t, e, c.q); got != c.want {
			t.Errorf("%s: %q, want %q", c.name, got, c.want)
		}
	}
	// The scheduler takes the bundle live when its week starts.
	e.App.Now = func() time.Time { return time.Date(2026, 11, 23, 9, 0, 0, 0, time.UTC) }
	if err := e.App.Catalog.GoLiveDue(context.Background()); err != nil {
		t.Fatal(err)
	}
	if s := scalar(t, e, `SELECT status FROM listings WHERE id = 7`); s != "live" {
		t.Errorf("bundle listing after its week began: %s", s)
	}
}

func TestConcurrentConfirmationsApplyOnce(t *testing.T) {
	e := env(t, payments.Config{})
	key := e.APIKey("owner@example.com")
	body := order(it("billboard_min", "listing_id", 3, "amount_cents", 1000), it("ai_review", "listing_id", 3))

	// 10 goroutines confirming through the app.
	number, _ := checkout(t, e, key, body)
	var wg sync.WaitGroup
	var mu sync.Mutex
	appliedN := 0
	for i := 0; i < 10; i++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			ok, err := e.App.Commerce.ConfirmPayment(context.Background(), number, "test", "ref")
			if err != nil {
				t.Error(err)
			}
			if ok {
				mu.Lock()
				appliedN++
				mu.Unlock()
			}
		}()
	}
	wg.Wait()
	if appliedN != 1 {
		t.Errorf("applied %d times", appliedN)
	}
	// 10 concurrent POSTs of the page.
	number2, u := checkout(t, e, key, body)
	b := newBrowser(t)
	csrf := b.open(u)
	for i := 0; i < 10; i++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			resp, err := b.c.PostForm(u, url.Values{"action": {"succeed"}, "method": {"card"}, "csrf": {csrf}})
			if err != nil {
				t.Error(err)
				return
			}
			resp.Body.Close()
			if resp.StatusCode != 303 {
				t.Errorf("concurrent post: %d", resp.StatusCode)
			}
		}()
	}
	wg.Wait()
	for _, n := range []string{number, number2} {
		if s := scalar(t, e, `SELECT status FROM orders WHERE number = ?`, n); s != "paid" {
			t.Errorf("%s: %s", n, s)
		}
	}
	if got := scalar(t, e, `SELECT count(*)||'/'||sum(amount_cents) FROM billboard_contributions WHERE order_id IS NOT NULL`); got != "2/2000" {
		t.Errorf("contributions %s, want 2/2000 (one per order)", got)
	}
	if got := scalar(t, e, `SELECT billboard_cents FROM listings WHERE id = 3`); got != "7000" {
		t.Errorf("billboard_cents %s, want 5000+2×1000", got)
	}
	if got := scalar(t, e, `SELECT count(*) FROM team_tasks`); got != "2" {
		t.Errorf("tasks %s", got)
	}
}

func TestPromoCheckedAgainAtPayment(t *testing.T) {
	e := env(t, payments.Config{})
	key := e.APIKey("owner@example.com")
	body := order(it("ai_review", "listing_id", 1))
	body["promo_code"] = "ONCE" // 50 %, max 1 redemption
	a, aURL := checkout(t, e, key, body)
	bNo, bURL := checkout(t, e, key, body)
	if got := scalar(t, e, `SELECT redemptions FROM promo_codes WHERE code = 'ONCE'`); got != "0" {
		t.Fatalf("redeemed at checkout: %s", got)
	}
	br := newBrowser(t)
	csrf := br.open(aURL)
	if st, _, _ := br.post(aURL, url.Values{"action": {"succeed"}, "method": {"card"}, "csrf": {csrf}}); st != 303 {
		t.Fatalf("pay A: %d", st)
	}
	if got := scalar(t, e, `SELECT redemptions FROM promo_codes WHERE code = 'ONCE'`); got != "1" {
		t.Errorf("redemptions after A: %s", got)
	}
	csrf = br.open(bURL)
	st, _, page := br.post(bURL, url.Values{"action": {"succeed"}, "method": {"card"}, "csrf": {csrf}})
	if st != 400 || !strings.Contains(page, "used up") {
		t.Errorf("pay B: %d %s", st, page)
	}
	if got := scalar(t, e, `SELECT status||'/'||status_note FROM orders WHERE number = ?`, bNo); !strings.HasPrefix(got, "failed/promo code ONCE") {
		t.Errorf("order B: %s", got)
	}
	if got := scalar(t, e, `SELECT redemptions FROM promo_codes WHERE code = 'ONCE'`); got != "1" {
		t.Errorf("redemptions after B: %s", got)
	}
	if got := scalar(t, e, `SELECT count(*) FROM team_tasks`); got != "1" {
		t.Errorf("tasks %s (only A)", got)
	}
	_ = a

	// A 100 % promo: nothing to pay, paid at once.
	free := order(it("ai_review", "listing_id", 1))
	free["promo_code"] = "FREE"
	r := e.Do("POST", "/api/v1/orders/checkout", free, apitest.Bearer(key)...)
	if r.Status != 201 || !strings.Contains(string(r.Body), `"status":"paid"`) || !strings.Contains(string(r.Body), `"total_cents":0`) {
		t.Errorf("free order: %d %s", r.Status, r.Body)
	}
}

func TestOrderExpiry(t *testing.T) {
	e := env(t, payments.Config{})
	key := e.APIKey("owner@example.com")
	number, u := checkout(t, e, key, order(it("ai_review", "listing_id", 1)))
	b := newBrowser(t)
	csrf := b.open(u)
	e.App.Now = func() time.Time { return apitest.Now.Add(25 * time.Hour) }
	// Paying after the TTL (before the job ran) is refused and expires it.
	st, _, page := b.post(u, url.Values{"action": {"succeed"}, "method": {"card"}, "csrf": {csrf}})
	if st != 409 || !strings.Contains(page, "expired") {
		t.Errorf("late payment: %d %s", st, page)
	}
	if s := scalar(t, e, `SELECT status FROM orders WHERE number = ?`, number); s != "expired" {
		t.Errorf("status %s", s)
	}
	// The job expires the others.
	e.App.Now = func() time.Time { return apitest.Now }
	n2, _ := checkout(t, e, key, order(it("ai_review", "listing_id", 1)))
	e.App.Now = func() time.Time { return apitest.Now.Add(24 * time.Hour) }
	if n, err := e.App.Commerce.ExpireOrders(context.Background()); err != nil || n != 1 {
		t.Errorf("ExpireOrders: %d %v", n, err)
	}
	if s := scalar(t, e, `SELECT status FROM orders WHERE number = ?`, n2); s != "expired" {
		t.Errorf("status %s", s)
	}
}

// A discount is not a contribution: the billboard credits what was paid.
func TestBillboardCreditsMoneyPaid(t *testing.T) {
	e := env(t, payments.Config{})
	key := e.APIKey("owner@example.com")
	body := order(it("billboard_min", "listing_id", 1, "amount_cents", 10000))
	body["promo_code"] = "ONCE" // 50 %
	number, _ := checkout(t, e, key, body)
	if _, err := e.App.Commerce.ConfirmPayment(context.Background(), number, "test", "ref"); err != nil {
		t.Fatal(err)
	}
	if got := scalar(t, e, `SELECT amount_cents FROM billboard_contributions ORDER BY id DESC LIMIT 1`); got != "5000" {
		t.Fatalf("credited %s cents for a 10000 order at 50 %% off", got)
	}
}

// A second unpaid order for the same launch or featured slot is refused,
// so nobody pays twice and capacity is not held twice.
func TestNoDoubleBookingWhileUnpaid(t *testing.T) {
	e := env(t, payments.Config{})
	key := apitest.Bearer(e.APIKey("owner@example.com"))
	first := e.Do("POST", "/api/v1/orders/checkout", order(it("launch", "listing_id", 6)), key...)
	if first.Status != 201 {
		t.Fatalf("first: %d %s", first.Status, first.Body)
	}
	second := e.Do("POST", "/api/v1/orders/checkout", order(it("launch", "listing_id", 6)), key...)
	if second.Status != 400 || !strings.Contains(string(second.Body), "unpaid order") {
		t.Fatalf("second launch order: %d %s", second.Status, second.Body)
	}
}
