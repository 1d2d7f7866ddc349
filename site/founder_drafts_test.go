package site_test

import (
	"encoding/json"
	"net/url"
	"strings"
	"testing"
	"time"

	"launchdir/apitest"
	"launchdir/testsite"
)

// waitDraft polls the progress address until the draft is no longer being read.
func waitDraft(t *testing.T, p *person, id string) map[string]any {
	t.Helper()
	deadline := time.Now().Add(2 * time.Minute)
	for {
		pg := p.get("/me/drafts/" + id + "/progress")
		var m map[string]any
		if err := json.Unmarshal([]byte(pg.body), &m); err != nil || pg.status != 200 {
			t.Fatalf("progress: %d %s", pg.status, pg.body)
		}
		if m["status"] != "crawling" && m["status"] != "drafting" {
			return m
		}
		if time.Now().After(deadline) {
			t.Fatalf("draft still %v", m["status"])
		}
		time.Sleep(50 * time.Millisecond)
	}
}

func TestFounderSubmitsAURLReviewsAndSubmits(t *testing.T) {
	e := newAreaEnvWith(t, apitest.Options{Fixture: true, Background: true})
	site := testsite.Serve(t, "acme-analytics", nil)
	owner := e.as(1)
	if pg := owner.post("/me/drafts", "/me/drafts", url.Values{"url": {"ftp://x"}}); pg.status != 400 || !strings.Contains(pg.body, "ftp://x") {
		t.Fatalf("bad URL: %d", pg.status)
	}
	pg := owner.post("/me/drafts", "/me/drafts", url.Values{"url": {site.URL + "/"}})
	if pg.status != 303 || !strings.HasPrefix(pg.loc, "/me/drafts/") {
		t.Fatalf("submit: %d %s", pg.status, pg.body)
	}
	id := strings.TrimPrefix(pg.loc, "/me/drafts/")
	// The page survives a reload at any moment: it shows the stored state.
	if pg := owner.get(pg.loc); pg.status != 200 || !strings.Contains(pg.body, `id="draft-status"`) {
		t.Fatalf("draft page: %d", pg.status)
	}
	if m := waitDraft(t, owner, id); m["status"] != "ready" || m["pages_read"].(float64) < 1 {
		t.Fatalf("progress: %v", m)
	}
	if pg := e.as(2).get("/me/drafts/" + id); pg.status != 404 {
		t.Fatalf("another's draft: %d", pg.status)
	}
	if pg := e.as(2).get("/me/drafts/" + id + "/progress"); pg.status != 404 {
		t.Fatalf("another's progress: %d", pg.status)
	}
	pg = owner.get("/me/drafts/" + id)
	for _, want := range []string{"Acme Analytics", "(ai)", `<q>`, `href="` + site.URL, "Save as my listing"} {
		if !strings.Contains(pg.body, want) {
			t.Errorf("review page lacks %q", want)
		}
	}
	// Edit a field, then lock it; the states follow.
	field := func(do, value string) page {
		return owner.post("/me/drafts/"+id+"/field", "/me/drafts/"+id, url.Values{"field": {"tagline"}, "do": {do}, "value": {value}})
	}
	if pg := field("save", strings.Repeat("x", 501)); pg.status != 400 {
		t.Errorf("tagline 501: %d", pg.status)
	}
	if pg := field("save", "Analytics without cookies"); pg.status != 303 {
		t.Fatalf("save: %d %s", pg.status, pg.body)
	}
	if pg := owner.get("/me/drafts/" + id); !strings.Contains(pg.body, `tagline <small class="muted">(edited)</small>`) {
		t.Errorf("state after edit")
	}
	if pg := field("lock", ""); pg.status != 303 {
		t.Fatalf("lock: %d", pg.status)
	}
	if pg := owner.get("/me/drafts/" + id); !strings.Contains(pg.body, `tagline <small class="muted">(override)</small>`) {
		t.Errorf("state after lock")
	}
	if pg := owner.post("/me/drafts/"+id+"/field", "/me/drafts/"+id, url.Values{"field": {"tagline"}, "do": {"explode"}}); pg.status != 400 {
		t.Errorf("unknown action: %d", pg.status)
	}
	// Submit: the listing page follows.
	pg = owner.post("/me/drafts/"+id+"/submit", "/me/drafts/"+id, url.Values{})
	if pg.status != 303 || !strings.HasPrefix(pg.loc, "/me/listings/") {
		t.Fatalf("submit draft: %d %s", pg.status, pg.body)
	}
	if pg := owner.get(pg.loc); pg.status != 200 || !strings.Contains(pg.body, "Analytics without cookies") || !strings.Contains(pg.body, "Submitted") {
		t.Fatalf("listing after submit: %d", pg.status)
	}
	if pg := owner.get("/me/drafts"); !strings.Contains(pg.body, site.URL) {
		t.Errorf("drafts list")
	}
}

func TestFounderEditsDraftFAQsFoundersStorySEO(t *testing.T) {
	e := newAreaEnvWith(t, apitest.Options{Fixture: true, Background: true})
	site := testsite.Serve(t, "acme-analytics", nil)
	owner := e.as(1)
	pg := owner.post("/me/drafts", "/me/drafts", url.Values{"url": {site.URL + "/"}})
	id := strings.TrimPrefix(pg.loc, "/me/drafts/")
	waitDraft(t, owner, id)
	more := func(f url.Values) page { return owner.post("/me/drafts/"+id+"/more", "/me/drafts/"+id, f) }
	steps := []struct {
		form   url.Values
		status int
	}{
		{url.Values{"section": {"faqs"}, "question": {"Is it free?", ""}, "answer": {"Yes.", ""}}, 303},
		{url.Values{"section": {"founders"}, "name": {"Ana Lima", ""}, "title": {"CEO", ""}, "bio": {"Built it.", ""}}, 303},
		{url.Values{"section": {"founders"}, "name": {strings.Repeat("n", 161)}}, 400},
		{url.Values{"section": {"story"}, "title": {"Why"}, "story": {"Because."}}, 303},
		{url.Values{"section": {"seo"}, "seo_title": {strings.Repeat("s", 71)}}, 400},
		{url.Values{"section": {"seo"}, "seo_title": {strings.Repeat("s", 70)}, "competitor_url": {"https://rival.example/"}}, 303},
		{url.Values{"section": {"seo"}, "competitor_url": {"javascript:alert(1)"}}, 400},
		{url.Values{"section": {"nope"}}, 400},
	}
	for _, s := range steps {
		if pg := more(s.form); pg.status != s.status {
			t.Errorf("%v: %d, want %d (%s)", s.form, pg.status, s.status, pg.body)
		}
	}
	r := e.Do("GET", "/api/v1/drafts/"+id, nil, "Authorization", "Bearer "+e.APIKey("owner@example.com"))
	d := r.JSON()
	faqs, _ := d["faqs"].([]any)
	founders, _ := d["founders"].([]any)
	if len(faqs) != 1 || len(founders) != 1 || founders[0].(map[string]any)["name"] != "Ana Lima" ||
		d["story"].(map[string]any)["story"] != "Because." || d["competitor_url"] != "https://rival.example/" {
		t.Fatalf("draft after edits: %s", r.Body)
	}
	if pg := e.as(2).post("/me/drafts/"+id+"/more", "/me/keys", url.Values{"section": {"faqs"}}); pg.status != 404 {
		t.Errorf("another's draft: %d", pg.status)
	}
}
