package site_test

import (
	"encoding/json"
	"fmt"
	"html"
	"net/url"
	"regexp"
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
	for _, want := range []string{"Acme Analytics", "(from your site)", `<q>`, "Found on <a href=\"" + site.URL, "Save as my listing", "Next step."} {
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
	if pg := owner.get("/me/drafts/" + id); !strings.Contains(pg.body, `Tagline</label> <span class="state">(changed by you)</span>`) {
		t.Errorf("state after edit")
	}
	if pg := field("lock", ""); pg.status != 303 {
		t.Fatalf("lock: %d", pg.status)
	}
	if pg := owner.get("/me/drafts/" + id); !strings.Contains(pg.body, `Tagline</label> <span class="state">(locked: drafting again leaves it as it is)</span>`) {
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

// The draft page is one form with one save: what changed is sent in one
// update_draft (PATCH), so two fields edited and saved once are both kept,
// the fields not touched keep their state and evidence, a refused save
// shows what was typed, and the categories picker goes through the one
// category rule (its note shown on the page).
func TestDraftPageOneFormOneSave(t *testing.T) {
	e := newAreaEnvWith(t, apitest.Options{Fixture: true, Background: true})
	site := testsite.Serve(t, "acme-analytics", nil)
	owner := e.as(1)
	pg := owner.post("/me/drafts", "/me/drafts", url.Values{"url": {site.URL + "/"}})
	id := strings.TrimPrefix(pg.loc, "/me/drafts/")
	waitDraft(t, owner, id)
	dp := "/me/drafts/" + id
	key := e.APIKey("owner@example.com")
	draft := func() map[string]any { return e.Do("GET", "/api/v1/drafts/"+id, nil, apitest.Bearer(key)...).JSON() }
	field := func(d map[string]any, name string) map[string]any {
		return d["fields"].(map[string]any)[name].(map[string]any)
	}
	before := draft()
	// The form as the page shows it, with two fields and the story title changed.
	form := formOf(t, owner.get(dp).body, `action="`+dp+`/save"`)
	form.Set("v-tagline", "Analytics without cookies")
	form.Set("v-pricing_summary", "Free up to 10k views")
	form.Set("st-title", "Why we built it")
	form.Set("cat-primary", "Developer Tools")
	form["cat-more"] = []string{"Marketing", "SEO"}
	if pg := owner.post(dp+"/save", dp, form); pg.status != 303 || !strings.Contains(pg.loc, "done=draft") {
		t.Fatalf("save: %d %s %s", pg.status, pg.loc, pg.body)
	}
	after := draft()
	if field(after, "tagline")["value"] != "Analytics without cookies" || field(after, "pricing_summary")["value"] != "Free up to 10k views" ||
		field(after, "tagline")["state"] != "edited" {
		t.Fatalf("after one save: %v %v", field(after, "tagline"), field(after, "pricing_summary"))
	}
	if fmt.Sprint(field(after, "categories")["value"]) != "[Developer Tools Marketing SEO]" {
		t.Errorf("categories: %v", field(after, "categories")["value"])
	}
	if field(after, "name")["state"] != field(before, "name")["state"] || len(field(after, "name")["evidence"].([]any)) != len(field(before, "name")["evidence"].([]any)) {
		t.Errorf("an untouched field changed: %v -> %v", field(before, "name"), field(after, "name"))
	}
	if st := after["story"].(map[string]any); st["title"] != "Why we built it" || len(st) != len(before["story"].(map[string]any))+1 && len(st) != len(before["story"].(map[string]any)) {
		t.Errorf("story: %v", st)
	}
	// Nothing changed: nothing is sent.
	if pg := owner.post(dp+"/save", dp, formOf(t, owner.get(dp).body, `action="`+dp+`/save"`)); !strings.Contains(pg.loc, "done=unchanged") {
		t.Errorf("unchanged save: %d %s", pg.status, pg.loc)
	}
	// A refused save changes nothing and shows what was typed.
	form = formOf(t, owner.get(dp).body, `action="`+dp+`/save"`)
	form.Set("v-tagline", strings.Repeat("x", 501))
	form.Set("v-city", "Porto typed")
	pg = owner.post(dp+"/save", dp, form)
	if pg.status != 400 || !strings.Contains(pg.body, strings.Repeat("x", 501)) || !strings.Contains(pg.body, `value="Porto typed"`) {
		t.Fatalf("refused save: %d", pg.status)
	}
	if field(draft(), "city")["value"] == "Porto typed" {
		t.Error("a refused save stored a value")
	}
	// Submitted on the free plan: the extra categories are not kept, and
	// the page says so.
	if pg := owner.post(dp+"/submit", dp, url.Values{}); pg.status != 303 {
		t.Fatalf("submit: %d", pg.status)
	}
	form = formOf(t, owner.get(dp).body, `action="`+dp+`/save"`)
	form.Set("v-tagline", "Analytics, no cookies")
	form["cat-more"] = []string{"SEO"}
	pg = owner.post(dp+"/save", dp, form)
	if pg = owner.get(pg.loc); !strings.Contains(pg.body, "Saved, with a note") || !strings.Contains(pg.body, "Not added from the draft: SEO") {
		t.Fatalf("category note on the page: %s", pg.body)
	}
}

var (
	formStart = regexp.MustCompile(`(?s)<form [^>]*>.*?</form>`)
	inputTag  = regexp.MustCompile(`<input [^>]*>`)
	attr      = regexp.MustCompile(`(\w[\w-]*)="([^"]*)"`)
	textareaT = regexp.MustCompile(`(?s)<textarea [^>]*name="([^"]+)"[^>]*>(.*?)</textarea>`)
	selectT   = regexp.MustCompile(`(?s)<select [^>]*name="([^"]+)"[^>]*>(.*?)</select>`)
	selected  = regexp.MustCompile(`<option value="([^"]*)" selected>`)
)

// formOf reads the form whose opening tag contains marker the way a
// browser would submit it untouched (text inputs, checked boxes, textareas,
// selected options).
func formOf(t *testing.T, body, marker string) url.Values {
	t.Helper()
	for _, f := range formStart.FindAllString(body, -1) {
		if !strings.Contains(f[:strings.Index(f, ">")+1], marker) {
			continue
		}
		out := url.Values{}
		for _, in := range inputTag.FindAllString(f, -1) {
			a := map[string]string{}
			for _, m := range attr.FindAllStringSubmatch(in, -1) {
				a[m[1]] = html.UnescapeString(m[2])
			}
			if a["name"] == "" || a["name"] == "csrf" || (a["type"] == "checkbox" && !strings.Contains(in, " checked")) {
				continue
			}
			out.Add(a["name"], a["value"])
		}
		for _, m := range textareaT.FindAllStringSubmatch(f, -1) {
			out.Add(m[1], strings.TrimPrefix(html.UnescapeString(m[2]), "\n"))
		}
		for _, m := range selectT.FindAllStringSubmatch(f, -1) {
			v := ""
			if s := selected.FindStringSubmatch(m[2]); s != nil {
				v = html.UnescapeString(s[1])
			}
			out.Set(m[1], v)
		}
		return out
	}
	t.Fatalf("no form %s", marker)
	return nil
}

// The draft page links to a read-only preview of the listing page the
// draft would make; another founder gets the 404 page.
func TestDraftPagePreview(t *testing.T) {
	e := newAreaEnvWith(t, apitest.Options{Fixture: true, Background: true})
	site := testsite.Serve(t, "acme-analytics", nil)
	owner := e.as(1)
	pg := owner.post("/me/drafts", "/me/drafts", url.Values{"url": {site.URL + "/"}})
	id := strings.TrimPrefix(pg.loc, "/me/drafts/")
	waitDraft(t, owner, id)
	if pg := owner.get("/me/drafts/" + id); !strings.Contains(pg.body, `href="/me/drafts/`+id+`/preview"`) {
		t.Fatal("no preview link")
	}
	pg = owner.get("/me/drafts/" + id + "/preview")
	if pg.status != 200 || !strings.Contains(pg.body, "<h1>Acme Analytics</h1>") || !strings.Contains(pg.body, "nothing is published") {
		t.Fatalf("preview: %d %s", pg.status, pg.body)
	}
	if pg := e.as(2).get("/me/drafts/" + id + "/preview"); pg.status != 404 {
		t.Fatalf("another founder's preview: %d", pg.status)
	}
}

// The drafter's category suggestions (issue 28) are on the draft page with
// the quote that decided each, and a suggestion's button makes it the main
// category in the same save as the rest of the form (a field typed at the
// same time is kept).
func TestDraftPageCategorySuggestions(t *testing.T) {
	e := newAreaEnvWith(t, apitest.Options{Fixture: true, Background: true})
	site := testsite.Serve(t, "forgeci", nil) // a CI service: Developer Tools in the fixture tree
	owner := e.as(1)
	pg := owner.post("/me/drafts", "/me/drafts", url.Values{"url": {site.URL + "/"}})
	id := strings.TrimPrefix(pg.loc, "/me/drafts/")
	waitDraft(t, owner, id)
	dp := "/me/drafts/" + id
	key := e.APIKey("owner@example.com")
	draft := func() map[string]any { return e.Do("GET", "/api/v1/drafts/"+id, nil, apitest.Bearer(key)...).JSON() }
	sugg, _ := draft()["category_suggestions"].([]any)
	if len(sugg) == 0 || len(sugg) > 3 {
		t.Fatalf("category_suggestions: %v", draft()["category_suggestions"])
	}
	first := sugg[0].(map[string]any)
	name := first["name"].(string)
	ev := first["evidence"].([]any)
	if len(ev) == 0 || ev[0].(map[string]any)["quote"] == "" {
		t.Fatalf("suggestion without evidence: %v", first)
	}
	body := owner.get(dp).body
	if !strings.Contains(body, "What your site says it is") || !strings.Contains(body, html.EscapeString(name)) {
		t.Fatalf("the page does not offer %q", name)
	}
	// Another main category chosen by hand, then the suggestion's button.
	form := formOf(t, body, `action="`+dp+`/save"`)
	other := "Developer Tools"
	if name == other {
		other = "Marketing"
	}
	form.Set("cat-primary", other)
	if pg := owner.post(dp+"/save", dp, form); pg.status != 303 {
		t.Fatalf("save: %d", pg.status)
	}
	body = owner.get(dp).body
	if !strings.Contains(body, `value="primary:`+html.EscapeString(name)+`"`) {
		t.Fatalf("no button for %q once another category is main", name)
	}
	form = formOf(t, body, `action="`+dp+`/save"`)
	form.Set("v-city", "Lisbon")
	form.Set("act", "primary:"+name)
	if pg := owner.post(dp+"/save", dp, form); pg.status != 303 {
		t.Fatalf("use suggestion: %d %s", pg.status, pg.body)
	}
	fields := draft()["fields"].(map[string]any)
	cats, _ := fields["categories"].(map[string]any)["value"].([]any)
	if len(cats) == 0 || cats[0] != name {
		t.Errorf("main category after the button: %v, want %q", cats, name)
	}
	if fields["city"].(map[string]any)["value"] != "Lisbon" {
		t.Errorf("the city typed with the button was lost: %v", fields["city"])
	}
}
