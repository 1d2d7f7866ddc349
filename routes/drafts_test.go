package routes_test

import (
	"encoding/json"
	"fmt"
	"strings"
	"testing"
	"time"

	"launchdir/apitest"
	"launchdir/testsite"
)

type draftEnv struct {
	*apitest.Env
	owner []string
	other []string
}

func newDraftEnv(t *testing.T) *draftEnv {
	e := apitest.New(t, apitest.Options{Fixture: true, Background: true})
	return &draftEnv{Env: e, owner: apitest.Bearer(e.APIKey("owner@example.com")), other: apitest.Bearer(e.APIKey("other@example.com"))}
}

// draftJSON is the part of a draft response the tests read.
type draftJSON struct {
	ID      string `json:"id"`
	Status  string `json:"status"`
	Failure struct {
		Kind, Reason string
	} `json:"failure"`
	Fields map[string]struct {
		Value    any    `json:"value"`
		State    string `json:"state"`
		Evidence []struct {
			Quote, URL string
		} `json:"evidence"`
	} `json:"fields"`
	FAQs         []map[string]any `json:"faqs"`
	Founders     []map[string]any `json:"founders"`
	Completeness int              `json:"completeness"`
	Missing      []string         `json:"missing"`
	ListingID    *int64           `json:"listing_id"`
	PagesRead    []string         `json:"pages_read"`
	NotFound     []string         `json:"not_found_on_website"`
}

func (e *draftEnv) submit(t *testing.T, url string) draftJSON {
	t.Helper()
	r := e.Do("POST", "/api/v1/drafts", map[string]any{"url": url}, e.owner...)
	if r.Status != 201 {
		t.Fatalf("submit: %d %s", r.Status, r.Body)
	}
	var d draftJSON
	json.Unmarshal(r.Body, &d)
	if d.Status != "crawling" {
		t.Fatalf("new draft status %q", d.Status)
	}
	return d
}

// wait polls get_draft, as clients do, until the draft settles.
func (e *draftEnv) wait(t *testing.T, id string) draftJSON {
	t.Helper()
	deadline := time.Now().Add(20 * time.Second)
	for {
		r := e.Do("GET", "/api/v1/drafts/"+id, nil, e.owner...)
		var d draftJSON
		json.Unmarshal(r.Body, &d)
		if d.Status == "ready" || d.Status == "failed" {
			return d
		}
		if time.Now().After(deadline) {
			t.Fatalf("draft stuck in %s: %s", d.Status, r.Body)
		}
		time.Sleep(50 * time.Millisecond)
	}
}

func TestDraftPipelineAcme(t *testing.T) {
	e := newDraftEnv(t)
	site := testsite.Serve(t, "acme-analytics", nil)
	d := e.wait(t, e.submit(t, site.URL+"/").ID)
	if d.Status != "ready" {
		t.Fatalf("status %s: %+v", d.Status, d.Failure)
	}
	name := d.Fields["name"]
	if name.Value != "Acme Analytics" || name.State != "ai" || len(name.Evidence) == 0 || !strings.HasPrefix(name.Evidence[0].URL, site.URL) {
		t.Fatalf("name field: %+v", name)
	}
	if fy := d.Fields["founded_year"]; fy.Value != float64(2019) || fy.State != "ai" {
		t.Errorf("founded_year: %+v", fy)
	}
	for field, f := range d.Fields {
		if f.State == "ai" && len(f.Evidence) == 0 {
			t.Errorf("%s has an AI value without evidence", field)
		}
		if f.State == "not_found" && f.Value != nil {
			t.Errorf("%s not_found but has a value", field)
		}
	}
	if len(d.PagesRead) < 3 || d.Completeness <= 0 || d.Completeness > 100 {
		t.Errorf("pages %v completeness %d", d.PagesRead, d.Completeness)
	}
}

func TestDraftFailsWithReason(t *testing.T) {
	e := newDraftEnv(t)
	closed := testsite.Serve(t, "closedbot", nil)
	d := e.wait(t, e.submit(t, closed.URL+"/").ID)
	if d.Status != "failed" || d.Failure.Kind != "robots_disallowed" || d.Failure.Reason == "" {
		t.Fatalf("closedbot: %+v", d)
	}
	if n := closed.Requests(); n != 1 {
		t.Errorf("requests beyond robots.txt: %d", n)
	}
	// No dead end: the founder fills the profile in by hand and submits.
	if r := e.Do("POST", "/api/v1/drafts/"+d.ID+"/submit", nil, e.owner...); r.Status != 400 || !strings.Contains(string(r.Body), "needs a name") {
		t.Fatalf("submit a failed draft without a name: %d %s", r.Status, r.Body)
	}
	r := e.Do("PATCH", "/api/v1/drafts/"+d.ID, map[string]any{"fields": map[string]any{"name": "Closed Bot", "tagline": "Typed by hand"}}, e.owner...)
	var hand draftJSON
	json.Unmarshal(r.Body, &hand)
	if r.Status != 200 || hand.Fields["name"].State != "manual" || len(hand.Fields["name"].Evidence) != 0 || hand.Fields["tagline"].State != "manual" {
		t.Fatalf("fill in a failed draft: %d %s", r.Status, r.Body)
	}
	r = e.Do("POST", "/api/v1/drafts/"+d.ID+"/submit", nil, e.owner...)
	if r.Status != 200 || r.JSON()["listing_id"] == nil {
		t.Fatalf("submit a draft filled in by hand: %d %s", r.Status, r.Body)
	}
	if got := e.wait(t, d.ID); got.Status != "ready" || got.ListingID == nil {
		t.Fatalf("after submit: %s %v", got.Status, got.ListingID)
	}
	d = e.wait(t, e.submit(t, "http://127.0.0.1:1/").ID)
	if d.Status != "failed" || d.Failure.Kind != "connect" {
		t.Fatalf("unreachable: %+v", d)
	}
}

func TestSubmitListingURLBounds(t *testing.T) {
	e := newDraftEnv(t)
	long := "http://127.0.0.1:1/" + strings.Repeat("a", 2048-19)
	runScenarios(t, e.Env, []scenario{
		{name: "2048 chars", method: "POST", path: "/api/v1/drafts", body: map[string]any{"url": long}, status: 201},
		{name: "2049 chars", method: "POST", path: "/api/v1/drafts", body: map[string]any{"url": long + "a"}, status: 400, contains: []string{`"field":"url"`}},
		{name: "ftp", method: "POST", path: "/api/v1/drafts", body: map[string]any{"url": "ftp://example.com/"}, status: 400, contains: []string{`"field":"url"`}},
		{name: "credentials", method: "POST", path: "/api/v1/drafts", body: map[string]any{"url": "https://user:pw@example.com/"}, status: 400, contains: []string{`"field":"url"`}},
		{name: "missing", method: "POST", path: "/api/v1/drafts", body: map[string]any{}, status: 400, contains: []string{`"field":"url"`}},
		{name: "unknown property", method: "POST", path: "/api/v1/drafts", body: map[string]any{"url": "https://example.com", "x": 1}, status: 400, contains: []string{`"field":"x"`}},
		{name: "bad id", path: "/api/v1/drafts/not-a-uuid", status: 400, contains: []string{`"field":"id"`}},
		{name: "unknown id", path: "/api/v1/drafts/6f1c2a3b-1111-4222-8333-444455556666", status: 404},
	}, e.owner...)
}

func TestUpdateDraftStatesAndBounds(t *testing.T) {
	e := newDraftEnv(t)
	site := testsite.Serve(t, "acme-analytics", nil)
	id := e.wait(t, e.submit(t, site.URL+"/").ID).ID
	p := "/api/v1/drafts/" + id
	patch := func(body any) (int, draftJSON, string) {
		r := e.Do("PATCH", p, body, e.owner...)
		var d draftJSON
		json.Unmarshal(r.Body, &d)
		return r.Status, d, string(r.Body)
	}
	st, d, body := patch(map[string]any{"fields": map[string]any{"name": "Acme Pro", "city": nil, "stage": "growth"}})
	if st != 200 || d.Fields["name"].State != "edited" || d.Fields["city"].State != "deleted" || d.Fields["city"].Value != nil {
		t.Fatalf("edit: %d %s", st, body)
	}
	if d.Fields["stage"].State != "manual" && d.Fields["stage"].State != "edited" {
		t.Fatalf("stage state %s", d.Fields["stage"].State)
	}
	_, d, _ = patch(map[string]any{"restore": []string{"name"}})
	if d.Fields["name"].Value != "Acme Analytics" || d.Fields["name"].State != "ai" {
		t.Fatalf("restore: %+v", d.Fields["name"])
	}
	_, d, _ = patch(map[string]any{"fields": map[string]any{"tagline": "Locked tagline"}, "lock_fields": []string{"tagline"}})
	if d.Fields["tagline"].State != "override" {
		t.Fatalf("lock: %+v", d.Fields["tagline"])
	}
	// Move name away from its AI value so only a real regenerate brings it back.
	st, d, body = patch(map[string]any{"fields": map[string]any{"name": "Renamed Before Regenerate"}})
	if st != 200 || d.Fields["name"].Value != "Renamed Before Regenerate" || d.Fields["name"].State != "edited" {
		t.Fatalf("edit before regenerate: %d %s", st, body)
	}
	st, d, body = patch(map[string]any{"regenerate": []string{"name", "tagline"}})
	if st != 200 {
		t.Fatalf("regenerate: %d %s", st, body)
	}
	if d.Status != "drafting" {
		t.Fatalf("regenerate response status %q, want drafting: %s", d.Status, body)
	}
	d = e.wait(t, id)
	if d.Status != "ready" {
		t.Fatalf("after regenerate: %s %+v", d.Status, d.Failure)
	}
	if n := d.Fields["name"]; n.Value != "Acme Analytics" || n.State != "ai" || len(n.Evidence) == 0 {
		t.Fatalf("regenerate did not redraft name: %+v", n)
	}
	if tl := d.Fields["tagline"]; tl.Value != "Locked tagline" || tl.State != "override" {
		t.Fatalf("regenerate touched a locked field: %+v", tl)
	}
	// A regenerate naming only locked fields has nothing to do: it is
	// accepted and the draft stays ready.
	st, d, body = patch(map[string]any{"regenerate": []string{"tagline"}})
	if st != 200 || d.Status != "ready" {
		t.Fatalf("regenerate of a locked field only: %d %s", st, body)
	}
	s := strings.Repeat
	items := func(n, each int) []string {
		out := make([]string, n)
		for i := range out {
			out[i] = s("x", each)
		}
		return out
	}
	objs := func(n int, o map[string]any) []any {
		out := make([]any, n)
		for i := range out {
			out[i] = o
		}
		return out
	}
	faq := map[string]any{"question": "Q?", "answer": "A."}
	founder := map[string]any{"name": "Ana", "title": "CEO", "bio": "Bio", "socials": map[string]any{"x": "https://x.com/ana"}}
	ms := map[string]any{"date": "2025-01-01", "title": "Launch"}
	runScenarios(t, e.Env, []scenario{
		{name: "string 500", method: "PATCH", path: p, body: map[string]any{"fields": map[string]any{"tagline": s("t", 500)}}, status: 200},
		{name: "string 501", method: "PATCH", path: p, body: map[string]any{"fields": map[string]any{"tagline": s("t", 501)}}, status: 400, contains: []string{`"field":"fields.tagline"`}},
		{name: "description 20000", method: "PATCH", path: p, body: map[string]any{"fields": map[string]any{"description": s("d", 20000)}}, status: 200},
		{name: "description 20001", method: "PATCH", path: p, body: map[string]any{"fields": map[string]any{"description": s("d", 20001)}}, status: 400},
		{name: "list 20x200", method: "PATCH", path: p, body: map[string]any{"fields": map[string]any{"features": items(20, 200)}}, status: 200},
		{name: "list 21", method: "PATCH", path: p, body: map[string]any{"fields": map[string]any{"features": items(21, 1)}}, status: 400},
		{name: "list item 201", method: "PATCH", path: p, body: map[string]any{"fields": map[string]any{"tags": items(1, 201)}}, status: 400, contains: []string{`"field":"fields.tags[0]"`}},
		{name: "logo javascript", method: "PATCH", path: p, body: map[string]any{"fields": map[string]any{"logo_url": "javascript:alert(1)"}}, status: 400, contains: []string{`"field":"fields.logo_url"`}},
		{name: "video not link", method: "PATCH", path: p, body: map[string]any{"fields": map[string]any{"demo_video_url": "ftp://v"}}, status: 400},
		{name: "email bad", method: "PATCH", path: p, body: map[string]any{"fields": map[string]any{"contact_email": "not an email"}}, status: 400, contains: []string{`"field":"fields.contact_email"`}},
		{name: "country bad", method: "PATCH", path: p, body: map[string]any{"fields": map[string]any{"country": "Narnia"}}, status: 400},
		{name: "year bad", method: "PATCH", path: p, body: map[string]any{"fields": map[string]any{"founded_year": "abc"}}, status: 400},
		{name: "year 1799", method: "PATCH", path: p, body: map[string]any{"fields": map[string]any{"founded_year": 1799}}, status: 400},
		{name: "year as text", method: "PATCH", path: p, body: map[string]any{"fields": map[string]any{"founded_year": "2019"}}, status: 400},
		{name: "year 2100", method: "PATCH", path: p, body: map[string]any{"fields": map[string]any{"founded_year": 2100, "country": "pt", "logo_url": "https://a.example/l.png"}}, status: 200},
		{name: "unknown field", method: "PATCH", path: p, body: map[string]any{"fields": map[string]any{"votes": "9"}}, status: 400, contains: []string{`"field":"fields.votes"`}},
		{name: "category unknown", method: "PATCH", path: p, body: map[string]any{"fields": map[string]any{"categories": []string{"Databases", "Astrology"}}}, status: 400, contains: []string{`"field":"fields.categories[1]"`}},
		{name: "category ok", method: "PATCH", path: p, body: map[string]any{"fields": map[string]any{"categories": []string{"Databases", "SEO"}}}, status: 200},
		{name: "category slugs become names", method: "PATCH", path: p, body: map[string]any{"fields": map[string]any{"categories": []string{"databases", "seo"}}}, status: 200, contains: []string{`"categories":{"value":["Databases","SEO"]`}},
		{name: "lock 20", method: "PATCH", path: p, body: map[string]any{"lock_fields": []string{"name", "tagline", "city", "country", "stage", "tags", "usps", "keywords", "features", "categories", "logo_url", "description", "short_description", "pricing_model", "pricing_summary", "founded_year", "contact_email", "demo_video_url", "name", "city"}}, status: 200},
		{name: "lock 21", method: "PATCH", path: p, body: map[string]any{"lock_fields": items(21, 1)}, status: 400, contains: []string{`"field":"lock_fields"`}},
		{name: "lock unknown name", method: "PATCH", path: p, body: map[string]any{"lock_fields": []string{"price"}}, status: 400, contains: []string{`"field":"lock_fields[0]"`}},
		{name: "restore 21", method: "PATCH", path: p, body: map[string]any{"restore": items(21, 1)}, status: 400},
		{name: "regenerate 6", method: "PATCH", path: p, body: map[string]any{"regenerate": []string{"name", "tagline", "city", "country", "stage", "tags"}}, status: 400, contains: []string{`"field":"regenerate"`}},
		{name: "faqs 5", method: "PATCH", path: p, body: map[string]any{"faqs": objs(5, faq)}, status: 200},
		{name: "faqs 6", method: "PATCH", path: p, body: map[string]any{"faqs": objs(6, faq)}, status: 400, contains: []string{`"field":"faqs"`}},
		{name: "founders 6", method: "PATCH", path: p, body: map[string]any{"founders": objs(6, founder)}, status: 200},
		{name: "founders 7", method: "PATCH", path: p, body: map[string]any{"founders": objs(7, founder)}, status: 400},
		{name: "founder name 161", method: "PATCH", path: p, body: map[string]any{"founders": []any{map[string]any{"name": s("n", 161)}}}, status: 400, contains: []string{`"field":"founders[0].name"`}},
		{name: "founder bio 3001", method: "PATCH", path: p, body: map[string]any{"founders": []any{map[string]any{"name": "n", "bio": s("b", 3001)}}}, status: 400},
		{name: "milestones 50", method: "PATCH", path: p, body: map[string]any{"milestones": objs(50, ms)}, status: 200},
		{name: "milestones 51", method: "PATCH", path: p, body: map[string]any{"milestones": objs(51, ms)}, status: 400},
		{name: "story title 8000", method: "PATCH", path: p, body: map[string]any{"story": map[string]any{"title": s("t", 8000)}}, status: 200},
		{name: "story title 8001", method: "PATCH", path: p, body: map[string]any{"story": map[string]any{"title": s("t", 8001)}}, status: 400, contains: []string{`"field":"story.title"`}},
		{name: "seo 70/170", method: "PATCH", path: p, body: map[string]any{"seo": map[string]any{"title": s("t", 70), "meta": s("m", 170)}}, status: 200},
		{name: "seo title 71", method: "PATCH", path: p, body: map[string]any{"seo": map[string]any{"title": s("t", 71)}}, status: 400, contains: []string{`"field":"seo.title"`}},
		{name: "seo meta 171", method: "PATCH", path: p, body: map[string]any{"seo": map[string]any{"meta": s("m", 171)}}, status: 400, contains: []string{`"field":"seo.meta"`}},
		{name: "competitor 2048", method: "PATCH", path: p, body: map[string]any{"competitor_url": "https://c.example/" + s("a", 2030)}, status: 200},
		{name: "competitor 2049", method: "PATCH", path: p, body: map[string]any{"competitor_url": "https://c.example/" + s("a", 2031)}, status: 400},
		{name: "competitor clear", method: "PATCH", path: p, body: map[string]any{"competitor_url": ""}, status: 200, contains: []string{`"competitor_url":""`}},
		{name: "socials unknown key", method: "PATCH", path: p, body: map[string]any{"company_socials": map[string]any{"myspace": "https://myspace.com/a"}}, status: 400, contains: []string{`"field":"company_socials.myspace"`}},
		{name: "founder socials", method: "PATCH", path: p, body: map[string]any{"founder_socials": map[string]any{"github": "https://github.com/ana"}}, status: 200, contains: []string{`"founder_socials":{"github":"https://github.com/ana"}`}},
	}, e.owner...)

	// Bounds at the edge and one past it.
	str := func(field string, n int) map[string]any {
		return map[string]any{"fields": map[string]any{field: s("v", n)}}
	}
	faqWith := func(q, a string) map[string]any {
		return map[string]any{"faqs": []any{map[string]any{"question": q, "answer": a}}}
	}
	founderWith := func(f map[string]any) map[string]any { return map[string]any{"founders": []any{f}} }
	msWith := func(m map[string]any) map[string]any {
		full := map[string]any{"date": "2025-01-01", "title": "Launch"}
		for k, v := range m {
			full[k] = v
		}
		return map[string]any{"milestones": []any{full}}
	}
	cats := make([]string, 21)
	for i := range cats {
		cats[i] = "Databases"
	}
	sc := []scenario{
		{name: "faq question 300", method: "PATCH", path: p, body: faqWith(s("q", 300), "A."), status: 200},
		{name: "faq question 301", method: "PATCH", path: p, body: faqWith(s("q", 301), "A."), status: 400, contains: []string{`"field":"faqs[0].question"`}},
		{name: "faq answer 1500", method: "PATCH", path: p, body: faqWith("Q?", s("a", 1500)), status: 200},
		{name: "faq answer 1501", method: "PATCH", path: p, body: faqWith("Q?", s("a", 1501)), status: 400, contains: []string{`"field":"faqs[0].answer"`}},
		{name: "founder name 160", method: "PATCH", path: p, body: founderWith(map[string]any{"name": s("n", 160)}), status: 200},
		{name: "founder title 160", method: "PATCH", path: p, body: founderWith(map[string]any{"name": "Ana", "title": s("t", 160)}), status: 200},
		{name: "founder title 161", method: "PATCH", path: p, body: founderWith(map[string]any{"name": "Ana", "title": s("t", 161)}), status: 400, contains: []string{`"field":"founders[0].title"`}},
		{name: "founder bio 3000", method: "PATCH", path: p, body: founderWith(map[string]any{"name": "Ana", "bio": s("b", 3000)}), status: 200},
		{name: "milestone title 200", method: "PATCH", path: p, body: msWith(map[string]any{"title": s("t", 200)}), status: 200},
		{name: "milestone title 201", method: "PATCH", path: p, body: msWith(map[string]any{"title": s("t", 201)}), status: 400, contains: []string{`"field":"milestones[0].title"`}},
		{name: "milestone description 2000", method: "PATCH", path: p, body: msWith(map[string]any{"description": s("d", 2000)}), status: 200},
		{name: "milestone description 2001", method: "PATCH", path: p, body: msWith(map[string]any{"description": s("d", 2001)}), status: 400, contains: []string{`"field":"milestones[0].description"`}},
		{name: "milestone url 500 https", method: "PATCH", path: p, body: msWith(map[string]any{"url": "https://m.example/" + s("u", 482)}), status: 200},
		{name: "milestone url 501", method: "PATCH", path: p, body: msWith(map[string]any{"url": "https://m.example/" + s("u", 483)}), status: 400, contains: []string{`"field":"milestones[0].url"`}},
		{name: "milestone url http", method: "PATCH", path: p, body: msWith(map[string]any{"url": "http://m.example/launch"}), status: 400, contains: []string{`"field":"milestones[0].url"`}},
		{name: "milestone bad date", method: "PATCH", path: p, body: msWith(map[string]any{"date": "2025-13-45"}), status: 400, contains: []string{`"field":"milestones[0].date"`}},
		{name: "company social 500", method: "PATCH", path: p, body: map[string]any{"company_socials": map[string]any{"x": "https://x.com/" + s("a", 486)}}, status: 200},
		{name: "company social 501", method: "PATCH", path: p, body: map[string]any{"company_socials": map[string]any{"x": "https://x.com/" + s("a", 487)}}, status: 400, contains: []string{`"field":"company_socials.x"`}},
		{name: "company social not a link", method: "PATCH", path: p, body: map[string]any{"company_socials": map[string]any{"linkedin": "not a link"}}, status: 400, contains: []string{`"field":"company_socials.linkedin"`}},
		{name: "founder social 500", method: "PATCH", path: p, body: map[string]any{"founder_socials": map[string]any{"github": "https://github.com/" + s("a", 481)}}, status: 200},
		{name: "founder social 501", method: "PATCH", path: p, body: map[string]any{"founder_socials": map[string]any{"github": "https://github.com/" + s("a", 482)}}, status: 400, contains: []string{`"field":"founder_socials.github"`}},
		{name: "founder social not a link", method: "PATCH", path: p, body: map[string]any{"founder_socials": map[string]any{"github": "javascript:alert(1)"}}, status: 400, contains: []string{`"field":"founder_socials.github"`}},
		{name: "story journey 8000", method: "PATCH", path: p, body: map[string]any{"story": map[string]any{"journey": s("j", 8000)}}, status: 200},
		{name: "story journey 8001", method: "PATCH", path: p, body: map[string]any{"story": map[string]any{"journey": s("j", 8001)}}, status: 400, contains: []string{`"field":"story.journey"`}},
		{name: "restore 20", method: "PATCH", path: p, body: map[string]any{"restore": []string{"name", "tagline", "short_description", "description", "stage", "pricing_model", "pricing_summary", "country", "city", "founded_year", "contact_email", "demo_video_url", "logo_url", "categories", "tags", "features", "usps", "keywords", "name", "city"}}, status: 200},
		{name: "categories 21", method: "PATCH", path: p, body: map[string]any{"fields": map[string]any{"categories": cats}}, status: 400, contains: []string{`"field":"fields.categories"`}},
		{name: "usps 21", method: "PATCH", path: p, body: map[string]any{"fields": map[string]any{"usps": items(21, 1)}}, status: 400, contains: []string{`"field":"fields.usps"`}},
		{name: "keywords 21", method: "PATCH", path: p, body: map[string]any{"fields": map[string]any{"keywords": items(21, 1)}}, status: 400, contains: []string{`"field":"fields.keywords"`}},
	}
	for _, f := range []string{"name", "short_description", "stage", "pricing_model", "pricing_summary", "city"} {
		sc = append(sc,
			scenario{name: f + " 500", method: "PATCH", path: p, body: str(f, 500), status: 200},
			scenario{name: f + " 501", method: "PATCH", path: p, body: str(f, 501), status: 400, contains: []string{`"field":"fields.` + f + `"`}})
	}
	// Last, as it starts a redraft ("restore 20" above cleared the locks).
	sc = append(sc, scenario{name: "regenerate 5", method: "PATCH", path: p,
		body: map[string]any{"regenerate": []string{"name", "tagline", "city", "country", "stage"}}, status: 200, contains: []string{`"status":"drafting"`}})
	runScenarios(t, e.Env, sc, e.owner...)
	if d := e.wait(t, id); d.Status != "ready" || d.Fields["name"].Value != "Acme Analytics" || d.Fields["name"].State != "ai" {
		t.Fatalf("after regenerate 5: %s name %+v", d.Status, d.Fields["name"])
	}
}

func TestSubmitDraftAndSync(t *testing.T) {
	e := newDraftEnv(t)
	site := testsite.Serve(t, "acme-analytics", nil)
	id := e.wait(t, e.submit(t, site.URL+"/").ID).ID
	r := e.Do("POST", "/api/v1/drafts/"+id+"/submit", nil, e.owner...)
	if r.Status != 200 {
		t.Fatalf("submit: %d %s", r.Status, r.Body)
	}
	lid := int64(r.JSON()["listing_id"].(float64))
	mine := e.Do("GET", fmt.Sprintf("/api/v1/me/listings/%d", lid), nil, e.owner...)
	if mine.Status != 200 || !strings.Contains(string(mine.Body), `"name":"Acme Analytics"`) || !strings.Contains(string(mine.Body), `"status":"draft"`) {
		t.Fatalf("listing: %d %s", mine.Status, mine.Body)
	}
	if !strings.Contains(string(mine.Body), `"not_found_on_website":[`) {
		t.Error("no not_found_on_website")
	}
	// An edit after submission updates the listing without submitting again.
	e.Do("PATCH", "/api/v1/drafts/"+id, map[string]any{"fields": map[string]any{"tagline": "Edited after submit"}}, e.owner...)
	mine = e.Do("GET", fmt.Sprintf("/api/v1/me/listings/%d", lid), nil, e.owner...)
	if !strings.Contains(string(mine.Body), "Edited after submit") {
		t.Fatalf("listing not synced: %s", mine.Body)
	}
	// Owner edits made on the listing survive later draft edits of other parts.
	lp := fmt.Sprintf("/api/v1/me/listings/%d", lid)
	e.Do("PATCH", lp, map[string]any{"fields": map[string]any{"tagline": "Owner tagline", "seo_title": "Owner SEO"},
		"faqs": []any{map[string]any{"question": "Owner Q?", "answer": "Owner A."}}}, e.owner...)
	e.Do("POST", lp+"/milestones", map[string]any{"date": "2026-01-01", "title": "Owner milestone"}, e.owner...)
	e.Do("PATCH", "/api/v1/drafts/"+id, map[string]any{"lock_fields": []string{"city"}}, e.owner...)
	e.Do("PATCH", "/api/v1/drafts/"+id, map[string]any{"fields": map[string]any{"city": "Porto"}}, e.owner...)
	mine = e.Do("GET", lp, nil, e.owner...)
	for _, want := range []string{"Owner tagline", "Owner SEO", "Owner Q?", "Owner milestone", `"city":"Porto"`} {
		if !strings.Contains(string(mine.Body), want) {
			t.Errorf("after draft edits the listing lost %q", want)
		}
	}
	again := e.Do("POST", "/api/v1/drafts/"+id+"/submit", nil, e.owner...)
	if int64(again.JSON()["listing_id"].(float64)) != lid {
		t.Fatalf("re-submit made another listing: %s", again.Body)
	}
	if r := e.Do("GET", "/api/v1/listings/acme-analytics", nil); r.Status != 404 {
		t.Fatalf("submitted listing is public before launch: %d", r.Status)
	}
	if r := e.Do("POST", "/api/v1/drafts/"+id+"/submit", nil, e.other...); r.Status != 404 {
		t.Fatalf("another user's draft: %d", r.Status)
	}
}

func TestSubmitDraftNotReady(t *testing.T) {
	e := newDraftEnv(t)
	closed := testsite.Serve(t, "closedbot", nil)
	id := e.wait(t, e.submit(t, closed.URL+"/").ID).ID
	// A draft still being read cannot be submitted (a failed one can,
	// once filled in by hand: TestDraftFailsWithReason).
	e.DB.W.Exec(`UPDATE drafts SET status = 'crawling' WHERE id = ?`, id)
	if r := e.Do("POST", "/api/v1/drafts/"+id+"/submit", nil, e.owner...); r.Status != 400 || !strings.Contains(string(r.Body), "the draft is crawling") {
		t.Fatalf("submit a draft being read: %d %s", r.Status, r.Body)
	}
}

func TestInviteCofounder(t *testing.T) {
	e := newDraftEnv(t)
	site := testsite.Serve(t, "pixelnote", nil)
	id := e.wait(t, e.submit(t, site.URL+"/").ID).ID
	inv := "/api/v1/drafts/" + id + "/invites"
	if r := e.Do("GET", "/api/v1/drafts/"+id, nil, e.other...); r.Status != 404 {
		t.Fatalf("uninvited access: %d", r.Status)
	}
	// Another user can neither edit the draft nor invite people to it.
	if r := e.Do("PATCH", "/api/v1/drafts/"+id, map[string]any{"fields": map[string]any{"name": "Hijacked"}}, e.other...); r.Status != 404 {
		t.Fatalf("another user's update_draft: %d %s", r.Status, r.Body)
	}
	if r := e.Do("POST", inv, map[string]any{"email": "friend@example.com"}, e.other...); r.Status != 404 {
		t.Fatalf("another user's invite_cofounder: %d %s", r.Status, r.Body)
	}
	if r := e.Do("GET", "/api/v1/drafts/"+id, nil, e.owner...); strings.Contains(string(r.Body), "Hijacked") || strings.Contains(string(r.Body), "friend@example.com") {
		t.Fatalf("a refused request changed the draft: %s", r.Body)
	}
	if r := e.Do("POST", inv, map[string]any{"email": "other@example.com"}, e.owner...); r.Status != 201 {
		t.Fatalf("invite: %d %s", r.Status, r.Body)
	}
	if r := e.Do("POST", inv, map[string]any{"email": "other@example.com"}, e.owner...); r.Status != 409 ||
		!strings.Contains(string(r.Body), "other@example.com is already invited") || strings.Contains(string(r.Body), "draft_invites") {
		t.Fatalf("duplicate invite: %d %s", r.Status, r.Body)
	}
	if r := e.Do("GET", "/api/v1/drafts/"+id, nil, e.other...); r.Status != 200 {
		t.Fatalf("invitee access: %d", r.Status)
	}
	if r := e.Do("GET", "/api/v1/drafts", nil, e.other...); !strings.Contains(string(r.Body), id) {
		t.Fatalf("invitee's draft list: %s", r.Body)
	}
	for i := 2; i <= 9; i++ {
		if r := e.Do("POST", inv, map[string]any{"email": fmt.Sprintf("p%d@example.com", i)}, e.owner...); r.Status != 201 {
			t.Fatalf("invite %d: %d %s", i, r.Status, r.Body)
		}
	}
	// The tenth invite uses an address of exactly 254 characters, the limit.
	if long := email254("example.com"); len(long) != 254 {
		t.Fatalf("test bug: %d chars", len(long))
	} else if r := e.Do("POST", inv, map[string]any{"email": long}, e.owner...); r.Status != 201 {
		t.Fatalf("invite of a 254-character address: %d %s", r.Status, r.Body)
	}
	if r := e.Do("POST", inv, map[string]any{"email": "p11@example.com"}, e.owner...); r.Status != 400 {
		t.Fatalf("11th invite: %d", r.Status)
	}
	runScenarios(t, e.Env, []scenario{
		{name: "bad email", method: "POST", path: inv, body: map[string]any{"email": "nope"}, status: 400, contains: []string{`"field":"email"`}},
		{name: "email 255", method: "POST", path: inv, body: map[string]any{"email": "b" + email254("example.com")}, status: 400},
		{name: "65 before the @", method: "POST", path: inv, body: map[string]any{"email": strings.Repeat("a", 65) + "@example.com"}, status: 400, contains: []string{"64 characters before the @"}},
		{name: "self", method: "POST", path: inv, body: map[string]any{"email": "owner@example.com"}, status: 400},
	}, e.owner...)
	var n int
	e.DB.R.QueryRow(`SELECT count(*) FROM outbox WHERE kind = 'cofounder_invite'`).Scan(&n)
	if n != 10 {
		t.Errorf("invite emails queued: %d", n)
	}
}

func TestDraftsResumeAfterRestart(t *testing.T) {
	site := testsite.Serve(t, "pixelnote", nil)
	e := newDraftEnv(t)
	// A job left in crawling by a stopped process is picked up by the sweep.
	id := "0b8f2f9e-5d7c-4c1a-9e2b-7a1d3c5e9f00"
	if _, err := e.DB.W.Exec(`INSERT INTO drafts(id, user_id, url, status, data, created_at, updated_at)
		SELECT ?, id, ?, 'crawling', '{}', '2026-11-18T00:00:00Z', '2026-11-18T00:00:00Z' FROM users WHERE email = 'owner@example.com'`, id, site.URL+"/"); err != nil {
		t.Fatal(err)
	}
	if err := e.App.Drafting.ResumeDrafts(t.Context()); err != nil {
		t.Fatal(err)
	}
	if d := e.wait(t, id); d.Status != "ready" {
		t.Fatalf("resumed draft: %+v", d)
	}
}

func TestDraftIDCaseInsensitive(t *testing.T) {
	e := newDraftEnv(t)
	d := e.submit(t, "http://127.0.0.1:1/")
	if r := e.Do("GET", "/api/v1/drafts/"+strings.ToUpper(d.ID), nil, e.owner...); r.Status != 200 {
		t.Fatalf("upper-case id: %d", r.Status)
	}
}

// The category rule (one primary; paid listings up to 3 more) is applied
// in one place and says what it did not keep: a draft with 5 categories
// submitted for an unpaid listing keeps the primary and names the four it
// left out; once the listing is paid, a draft edit adds 3 of them and names
// the fourth; nothing is ever silently dropped.
func TestDraftCategoriesRuleWarns(t *testing.T) {
	e := newDraftEnv(t)
	site := testsite.Serve(t, "acme-analytics", nil)
	id := e.wait(t, e.submit(t, site.URL+"/").ID).ID
	five := []string{"Developer Tools", "Databases", "Marketing", "SEO", "Empty Category"}
	if r := e.Do("PATCH", "/api/v1/drafts/"+id, map[string]any{"fields": map[string]any{"categories": five}}, e.owner...); r.Status != 200 || strings.Contains(string(r.Body), `"warnings"`) {
		t.Fatalf("patch before submit: %d %s", r.Status, r.Body)
	}
	r := e.Do("POST", "/api/v1/drafts/"+id+"/submit", nil, e.owner...)
	var sub struct {
		ListingID int64 `json:"listing_id"`
		Draft     struct {
			Warnings []string `json:"warnings"`
		} `json:"draft"`
	}
	json.Unmarshal(r.Body, &sub)
	want := "Kept Developer Tools as the primary category. Not added from the draft: Databases, Marketing, SEO, Empty Category. A listing has one primary category; only paid listings may have up to 3 more"
	if r.Status != 200 || len(sub.Draft.Warnings) != 1 || !strings.HasPrefix(sub.Draft.Warnings[0], want) {
		t.Fatalf("submit: %d %s", r.Status, r.Body)
	}
	cats := func() string {
		var s string
		e.DB.W.QueryRow(`SELECT group_concat(c.slug || ':' || lc.is_primary, ',') FROM (SELECT * FROM listing_categories WHERE listing_id = ? ORDER BY is_primary DESC, category_id) lc
			JOIN categories c ON c.id = lc.category_id`, sub.ListingID).Scan(&s)
		return s
	}
	if got := cats(); got != "developer-tools:1" {
		t.Fatalf("categories of the unpaid listing: %s", got)
	}
	e.DB.W.Exec(`UPDATE listings SET plan = 'paid' WHERE id = ?`, sub.ListingID)
	r = e.Do("PATCH", "/api/v1/drafts/"+id, map[string]any{"fields": map[string]any{"categories": five}}, e.owner...)
	if !strings.Contains(string(r.Body), "Not added from the draft: Empty Category. A paid listing may have at most 3 categories besides its primary") {
		t.Fatalf("paid listing patch: %d %s", r.Status, r.Body)
	}
	if got := cats(); got != "developer-tools:1,databases:0,marketing:0,seo:0" {
		t.Fatalf("categories of the paid listing: %s", got)
	}
	// A patch of another field does not touch categories or warn.
	if r := e.Do("PATCH", "/api/v1/drafts/"+id, map[string]any{"fields": map[string]any{"city": "Porto"}}, e.owner...); strings.Contains(string(r.Body), `"warnings"`) {
		t.Fatalf("unrelated patch warns: %s", r.Body)
	}
}

// Slugs transliterate Latin letters, and founders are one profile per
// person: the same person spelt "Inês" on one listing and "Ines" on another,
// with the same LinkedIn page, keeps one founder page (no -2 copy); a
// different person of the same name without a shared link gets their own.
func TestSlugsAndFoundersByIdentity(t *testing.T) {
	e := newDraftEnv(t)
	listing := func(name string, founder map[string]any) (int64, string) {
		t.Helper()
		site := testsite.Serve(t, "acme-analytics", nil)
		id := e.wait(t, e.submit(t, site.URL+"/").ID).ID
		if r := e.Do("PATCH", "/api/v1/drafts/"+id, map[string]any{"fields": map[string]any{"name": name},
			"founders": []any{founder}}, e.owner...); r.Status != 200 {
			t.Fatalf("patch: %d %s", r.Status, r.Body)
		}
		r := e.Do("POST", "/api/v1/drafts/"+id+"/submit", nil, e.owner...)
		lid := int64(r.JSON()["listing_id"].(float64))
		var slug string
		e.DB.W.QueryRow(`SELECT slug FROM listings WHERE id = ?`, lid).Scan(&slug)
		return lid, slug
	}
	founders := func(lid int64) string {
		var s string
		e.DB.W.QueryRow(`SELECT group_concat(f.slug, ',') FROM founders f JOIN listing_founders lf ON lf.founder_id = f.id WHERE lf.listing_id = ?`, lid).Scan(&s)
		return s
	}
	a, slug := listing("Ünïcødé — App!!", map[string]any{"name": "Inês Carvalho", "socials": map[string]any{"linkedin": "https://www.linkedin.com/in/ines-c/"}})
	if slug != "unicode-app" || founders(a) != "ines-carvalho" {
		t.Fatalf("first listing: slug %q, founders %q", slug, founders(a))
	}
	b, slug := listing("Straße Ølberg", map[string]any{"name": "Ines Carvalho", "title": "CTO", "socials": map[string]any{"linkedin": "http://linkedin.com/in/ines-c"}})
	if slug != "strasse-olberg" || founders(b) != "ines-carvalho" {
		t.Fatalf("same person on a second listing: slug %q, founders %q", slug, founders(b))
	}
	var title, name string
	e.DB.W.QueryRow(`SELECT title, name FROM founders WHERE slug = 'ines-carvalho'`).Scan(&title, &name)
	if title != "CTO" || name != "Inês Carvalho" {
		t.Errorf("shared profile: title %q name %q (completed, name kept)", title, name)
	}
	c, _ := listing("日本語アプリ", map[string]any{"name": "Inês Carvalho", "socials": map[string]any{"linkedin": "https://www.linkedin.com/in/someone-else"}})
	if got := founders(c); got != "ines-carvalho-2" {
		t.Errorf("another person of the same name: %q", got)
	}
	var domain, cslug string
	e.DB.W.QueryRow(`SELECT domain, slug FROM listings WHERE id = ?`, c).Scan(&domain, &cslug)
	if want := strings.NewReplacer(".", "-", ":", "-").Replace(domain); !strings.HasPrefix(cslug, strings.Split(want, "-")[0]) || cslug == "listing" {
		t.Errorf("a name without Latin letters: slug %q for domain %q", cslug, domain)
	}
}

// delete_draft: only its creator deletes it (an invitee gets 403, another
// user 404); a submitted draft's listing stays and says so.
func TestDeleteDraft(t *testing.T) {
	e := newDraftEnv(t)
	site := testsite.Serve(t, "acme-analytics", nil)
	id := e.wait(t, e.submit(t, site.URL+"/").ID).ID
	if r := e.Do("DELETE", "/api/v1/drafts/"+id, nil, e.other...); r.Status != 404 {
		t.Fatalf("another user's delete: %d", r.Status)
	}
	e.Do("POST", "/api/v1/drafts/"+id+"/invites", map[string]any{"email": "other@example.com"}, e.owner...)
	if r := e.Do("DELETE", "/api/v1/drafts/"+id, nil, e.other...); r.Status != 403 || !strings.Contains(string(r.Body), "only the person who started the draft") {
		t.Fatalf("invitee's delete: %d %s", r.Status, r.Body)
	}
	lid := int64(e.Do("POST", "/api/v1/drafts/"+id+"/submit", nil, e.owner...).JSON()["listing_id"].(float64))
	r := e.Do("DELETE", "/api/v1/drafts/"+id, nil, e.owner...)
	if r.Status != 200 || !strings.Contains(string(r.Body), fmt.Sprintf(`"listing_id":%d`, lid)) || !strings.Contains(string(r.Body), "stays yours") {
		t.Fatalf("delete: %d %s", r.Status, r.Body)
	}
	if r := e.Do("GET", "/api/v1/drafts/"+id, nil, e.owner...); r.Status != 404 {
		t.Fatalf("deleted draft: %d", r.Status)
	}
	if r := e.Do("DELETE", "/api/v1/drafts/"+id, nil, e.owner...); r.Status != 404 {
		t.Fatalf("delete again: %d", r.Status)
	}
	if r := e.Do("GET", fmt.Sprintf("/api/v1/me/listings/%d", lid), nil, e.owner...); r.Status != 200 {
		t.Fatalf("the listing after its draft was deleted: %d", r.Status)
	}
	if r := e.Do("DELETE", "/api/v1/drafts/not-a-uuid", nil, e.owner...); r.Status != 400 && r.Status != 404 {
		t.Fatalf("bad id: %d", r.Status)
	}
}
