package site_test

import (
	"encoding/json"
	"net/http"
	"net/url"
	"strings"
	"sync"
	"testing"
	"time"

	"launchdir/apitest"
	"launchdir/testsite"
)

func TestFounderInterviewAnswers(t *testing.T) {
	e := newAreaEnv(t)
	if _, err := e.DB.W.Exec(`INSERT INTO interview_questions(id, position, question, hint) VALUES
		(7, 1, 'Why did you start?', 'The moment it clicked'), (8, 2, 'What is next?', ''), (9, 3, 'Retired question', '')`); err != nil {
		t.Fatal(err)
	}
	e.DB.W.Exec(`UPDATE interview_questions SET active = 0 WHERE id = 9`)
	owner := e.as(1)
	pg := owner.get("/me/listings/1")
	if !strings.Contains(pg.body, `name="q-7"`) || !strings.Contains(pg.body, "Why did you start?") || !strings.Contains(pg.body, "The moment it clicked") ||
		!strings.Contains(pg.body, `name="q-8"`) || strings.Contains(pg.body, "Retired question") {
		t.Fatalf("questions: %s", pg.body)
	}
	// The bound is the API's: 4000 characters, one more is refused naming the question.
	long := strings.Repeat("a", 4001)
	pg = owner.post("/me/listings/1/interview", "/me/listings/1", url.Values{"q-7": {"ok"}, "q-8": {long}})
	if pg.status != 400 || !strings.Contains(pg.body, "(What is next?): must be at most 4000 characters") || !strings.Contains(pg.body, long) {
		t.Fatalf("4001: %d %s", pg.status, pg.body)
	}
	if n := count(t, e.Env, `SELECT count(*) FROM interview_answers`); n != 0 {
		t.Fatalf("a refused request wrote %d answers", n)
	}
	ok := strings.Repeat("b", 4000)
	pg = owner.post("/me/listings/1/interview", "/me/listings/1", url.Values{"q-7": {"In a garage."}, "q-8": {ok}})
	if pg.status != 303 || pg.loc != "/me/listings/1?done=interview" {
		t.Fatalf("4000: %d %s", pg.status, pg.body)
	}
	if pg := owner.get("/me/listings/1"); !strings.Contains(pg.body, "In a garage.") || !strings.Contains(pg.body, ok) {
		t.Fatal("answers not shown")
	}
	if n := count(t, e.Env, `SELECT count(*) FROM revisions WHERE operation = 'answer_interview'`); n != 2 {
		t.Fatalf("revisions: %d", n)
	}
	// Unchanged answers are not sent again; another founder's listing is a 404.
	if pg := owner.post("/me/listings/1/interview", "/me/listings/1", url.Values{"q-7": {"In a garage."}}); pg.status != 303 {
		t.Fatalf("unchanged: %d", pg.status)
	}
	if n := count(t, e.Env, `SELECT count(*) FROM revisions WHERE operation = 'answer_interview'`); n != 2 {
		t.Fatalf("unchanged answer revised: %d", n)
	}
	if pg := e.as(2).post("/me/listings/1/interview", "/me/keys", url.Values{"q-7": {"x"}}); pg.status != 404 {
		t.Fatalf("another founder: %d", pg.status)
	}
}

func TestFounderEditsSocialLinks(t *testing.T) {
	e := newAreaEnvWith(t, apitest.Options{Fixture: true, Background: true})
	owner := e.as(1)
	// The listing: company links through update_my_listing (replaces all, versioned).
	pg := owner.get("/me/listings/1")
	if !strings.Contains(pg.body, `name="s-linkedin"`) || !strings.Contains(pg.body, `name="s-custom"`) {
		t.Fatalf("listing socials form: %s", pg.body)
	}
	bad := "javascript:alert(1)"
	pg = owner.post("/me/listings/1/socials", "/me/listings/1", url.Values{"s-x": {bad}})
	if pg.status != 400 || !strings.Contains(pg.body, "socials.x") || !strings.Contains(pg.body, `value="`+bad+`"`) {
		t.Fatalf("bad link: %d %s", pg.status, pg.body)
	}
	long := "https://github.com/" + strings.Repeat("g", 500-19)
	if pg := owner.post("/me/listings/1/socials", "/me/listings/1", url.Values{"s-github": {long + "g"}}); pg.status != 400 {
		t.Fatalf("link 501: %d", pg.status)
	}
	pg = owner.post("/me/listings/1/socials", "/me/listings/1", url.Values{"s-github": {long}, "s-x": {"https://x.com/quickbase"}, "s-linkedin": {""}})
	if pg.status != 303 {
		t.Fatalf("links 500: %d %s", pg.status, pg.body)
	}
	socials := e.Do("GET", "/api/v1/listings/quickbase", nil).JSON()["socials"].(map[string]any)
	if len(socials) != 2 || socials["github"] != long || socials["x"] != "https://x.com/quickbase" {
		t.Fatalf("API socials: %v", socials)
	}
	if pg := owner.get("/me/listings/1"); !strings.Contains(pg.body, `value="https://x.com/quickbase"`) {
		t.Fatal("links not shown")
	}
	if pg := e.as(2).post("/me/listings/1/socials", "/me/keys", url.Values{"s-x": {"https://x.com/h"}}); pg.status != 404 {
		t.Fatalf("another founder: %d", pg.status)
	}
	// The draft: company and primary founder links through update_draft.
	site := testsite.Serve(t, "acme-analytics", nil)
	pg = owner.post("/me/drafts", "/me/drafts", url.Values{"url": {site.URL + "/"}})
	id := strings.TrimPrefix(pg.loc, "/me/drafts/")
	waitDraft(t, owner, id)
	if pg := owner.get("/me/drafts/" + id); !strings.Contains(pg.body, `name="c-github"`) || !strings.Contains(pg.body, `name="p-linkedin"`) {
		t.Fatalf("draft socials form: %s", pg.body)
	}
	more := func(f url.Values) page {
		f.Set("section", "socials")
		return owner.post("/me/drafts/"+id+"/more", "/me/drafts/"+id, f)
	}
	if pg := more(url.Values{"p-linkedin": {"ftp://nope"}, "c-x": {"https://x.com/acme"}}); pg.status != 400 ||
		!strings.Contains(pg.body, "founder_socials.linkedin") || !strings.Contains(pg.body, `value="ftp://nope"`) {
		t.Fatalf("bad founder link: %d %s", pg.status, pg.body)
	}
	if pg := more(url.Values{"p-linkedin": {"https://linkedin.com/in/ana"}, "c-x": {"https://x.com/acme"}}); pg.status != 303 {
		t.Fatalf("draft socials: %d %s", pg.status, pg.body)
	}
	d := e.Do("GET", "/api/v1/drafts/"+id, nil, "Authorization", "Bearer "+e.APIKey("owner@example.com")).JSON()
	cs, _ := d["company_socials"].(map[string]any)
	fs, _ := d["founder_socials"].(map[string]any)
	if len(cs) != 1 || cs["x"] != "https://x.com/acme" || fs["linkedin"] != "https://linkedin.com/in/ana" {
		t.Fatalf("draft after socials: %v", d)
	}
}

func TestFounderBuysExtraCategoriesAndBillboard(t *testing.T) {
	e := newAreaEnv(t)
	owner := e.as(1)
	pg := owner.get("/me/listings/1")
	if !strings.Contains(pg.body, `<option value="seo">— SEO</option>`) || !strings.Contains(pg.body, `name="amount"`) {
		t.Fatalf("buy form: %s", pg.body)
	}
	buy := func(f url.Values) page {
		f.Set("billing_country", "DE")
		return owner.post("/me/listings/1/buy", "/me/listings/1", f)
	}
	// Extra categories: priced per category; the API's rules (already in, at most 3 extras).
	pg = buy(url.Values{"product": {"extra_categories"}, "categories": {"seo", "empty-cat"}, "action": {"quote"}})
	if pg.status != 200 || !strings.Contains(pg.body, "Extra categories — categories: seo, empty-cat × 2</td><td>38.00</td>") ||
		!strings.Contains(pg.body, `id="quote-total">45.22 USD`) || !strings.Contains(pg.body, `<option value="seo" selected>`) {
		t.Fatalf("categories quote: %d %s", pg.status, pg.body)
	}
	if pg := buy(url.Values{"product": {"extra_categories"}, "categories": {"marketing"}, "action": {"quote"}}); pg.status != 400 || !strings.Contains(pg.body, `already in`) {
		t.Errorf("category it is in: %d", pg.status)
	}
	if pg := buy(url.Values{"product": {"extra_categories"}, "categories": {"seo", "empty-cat", "developer-tools"}, "action": {"quote"}}); pg.status != 400 || !strings.Contains(pg.body, "at most 3 extra categories") {
		t.Errorf("4 extras: %d", pg.status)
	}
	if pg := buy(url.Values{"product": {"extra_categories"}, "action": {"quote"}}); pg.status != 400 || !strings.Contains(pg.body, "categories") {
		t.Errorf("no category: %d", pg.status)
	}
	// Billboard: the minimum is the price (5.00); one cent less is refused.
	if pg := buy(url.Values{"product": {"billboard_min"}, "amount": {"4.99"}, "action": {"quote"}}); pg.status != 400 || !strings.Contains(pg.body, "must be at least 500") {
		t.Errorf("4.99: %d %s", pg.status, pg.body)
	}
	if pg := buy(url.Values{"product": {"billboard_min"}, "amount": {"5,00"}, "action": {"quote"}}); pg.status != 400 || !strings.Contains(pg.body, "amount: must be an amount") {
		t.Errorf("5,00: %d", pg.status)
	}
	if pg := buy(url.Values{"product": {"billboard_min"}, "amount": {"5"}, "action": {"quote"}}); pg.status != 200 || !strings.Contains(pg.body, "contribution 5.00") {
		t.Errorf("5: %d", pg.status)
	}
	pg = buy(url.Values{"product": {"billboard_min"}, "amount": {"25.5"}, "action": {"quote"}})
	if pg.status != 200 || !strings.Contains(pg.body, "contribution 25.50</td><td>25.50</td>") || !strings.Contains(pg.body, `id="quote-total">30.35 USD`) {
		t.Fatalf("25.50 quote: %d %s", pg.status, pg.body)
	}
	// Checkout builds the orders with the same lines.
	for _, f := range []url.Values{
		{"product": {"billboard_min"}, "amount": {"25.50"}, "action": {"checkout"}},
		{"product": {"extra_categories"}, "categories": {"seo", "empty-cat"}, "action": {"checkout"}},
	} {
		if pg := buy(f); pg.status != 303 || !strings.HasPrefix(pg.loc, e.URL+"/checkout/") {
			t.Fatalf("checkout %v: %d %s", f, pg.status, pg.body)
		}
	}
	if n := count(t, e.Env, `SELECT count(*) FROM order_lines WHERE product = 'billboard_min' AND net_cents = 2550 AND json_extract(details, '$.details.amount_cents') = 2550`); n != 1 {
		t.Errorf("billboard line: %d", n)
	}
	if n := count(t, e.Env, `SELECT count(*) FROM order_lines WHERE product = 'extra_categories' AND net_cents = 3800 AND json_extract(details, '$.quantity') = 2 AND details LIKE '%"categories":["seo","empty-cat"]%'`); n != 1 {
		t.Errorf("categories line: %d", n)
	}
	if n := count(t, e.Env, `SELECT count(*) FROM orders WHERE status = 'pending'`); n != 2 {
		t.Errorf("pending orders: %d", n)
	}
}

func TestFounderDraftProgressShowsCurrentPageAndRobots(t *testing.T) {
	e := newAreaEnvWith(t, apitest.Options{Fixture: true, Background: true})
	site := testsite.Serve(t, "acme-analytics", nil) // robots.txt disallows /blog/, which the homepage links
	release := make(chan struct{})
	var once sync.Once
	free := func() { once.Do(func() { close(release) }) }
	t.Cleanup(free)
	site.Overrides["/pricing"] = func(w http.ResponseWriter, r *http.Request) {
		<-release // hold the crawl on this page while the test looks
		w.Header().Set("Content-Type", "text/html")
		w.Write([]byte("<html><head><title>Pricing</title></head><body><h1>Pricing</h1><p>Free for ever.</p></body></html>"))
	}
	owner := e.as(1)
	pg := owner.post("/me/drafts", "/me/drafts", url.Values{"url": {site.URL + "/"}})
	id := strings.TrimPrefix(pg.loc, "/me/drafts/")
	deadline := time.Now().Add(time.Minute)
	for {
		pg := owner.get("/me/drafts/" + id + "/progress")
		var m map[string]any
		if err := json.Unmarshal([]byte(pg.body), &m); err != nil {
			t.Fatalf("progress: %d %s", pg.status, pg.body)
		}
		if m["current_page"] == site.URL+"/pricing" {
			if m["status"] != "crawling" || m["pages_read"].(float64) < 1 {
				t.Fatalf("while reading /pricing: %v", m)
			}
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("never reported /pricing as current: %v", m)
		}
		time.Sleep(20 * time.Millisecond)
	}
	// A reload shows the same: the page being read now.
	if pg := owner.get("/me/drafts/" + id); !strings.Contains(pg.body, `<span data-current>`+site.URL+`/pricing</span>`) {
		t.Fatalf("draft page while reading: %s", pg.body)
	}
	free()
	m := waitDraft(t, owner, id)
	dis, _ := m["robots_disallowed"].([]any)
	if m["status"] != "ready" || len(dis) != 1 || dis[0] != site.URL+"/blog/" || m["current_page"] != "" {
		t.Fatalf("after the crawl: %v", m)
	}
	if site.Count("/blog/") != 0 {
		t.Fatal("read a disallowed page")
	}
	// Kept with the draft: the page shows the robots decision after the crawl.
	pg = owner.get("/me/drafts/" + id)
	if !strings.Contains(pg.body, "Skipped because your robots.txt does not allow us to read it: "+site.URL+"/blog/") || strings.Contains(pg.body, "data-current") {
		t.Fatalf("draft page after: %s", pg.body)
	}
	if pg := e.as(2).get("/me/drafts/" + id + "/progress"); pg.status != 404 {
		t.Fatalf("another's progress: %d", pg.status)
	}
}
