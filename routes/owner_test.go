package routes_test

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	"launchdir/apitest"
	"launchdir/app"
	"launchdir/app/kernel"
	"launchdir/crawl"
	"launchdir/ops"
)

// fakeWeb serves pages by URL for badge and claim checks.
type fakeWeb struct {
	mu    sync.Mutex
	pages map[string]string
}

func (f *fakeWeb) FetchHTML(ctx context.Context, url string) (string, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	if p, ok := f.pages[url]; ok {
		return p, nil
	}
	return "", errors.New("404 Not Found")
}

func (f *fakeWeb) set(url, html string) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.pages[url] = html
}

type fakeDNS map[string][]string

func (d fakeDNS) LookupTXT(ctx context.Context, name string) ([]string, error) {
	if v, ok := d[name]; ok {
		return v, nil
	}
	return nil, errors.New("no such host")
}

type ownerEnv struct {
	*apitest.Env
	web   *fakeWeb
	dns   fakeDNS
	owner []string // auth header of owner@example.com (all scopes)
	other []string // auth header of other@example.com (all scopes)
}

func newOwnerEnv(t *testing.T) *ownerEnv {
	web := &fakeWeb{pages: map[string]string{}}
	dns := fakeDNS{}
	e := apitest.New(t, apitest.Options{Fixture: true, Setup: func(a *app.App) {
		a.SetExternals(kernel.Externals{Fetcher: web, Resolver: dns})
	}})
	return &ownerEnv{Env: e, web: web, dns: dns,
		owner: apitest.Bearer(e.APIKey("owner@example.com")), other: apitest.Bearer(e.APIKey("other@example.com"))}
}

// signedInArgs gives each signed-in operation a path and a body that are
// valid apart from the credential, for the 401/403/404 matrix.
var signedInPaths = map[string]struct {
	path string
	body any
}{
	"get_account":             {"/me", nil},
	"list_my_listings":        {"/me/listings", nil},
	"get_my_listing":          {"/me/listings/1", nil},
	"update_my_listing":       {"/me/listings/1", map[string]any{"fields": map[string]any{"tagline": "x"}}},
	"post_listing_update":     {"/me/listings/1/updates", map[string]any{"title": "t", "body": "b"}},
	"add_milestone":           {"/me/listings/1/milestones", map[string]any{"date": "2026-01-01", "title": "t"}},
	"delete_milestone":        {"/me/listings/1/milestones/1", nil},
	"set_founder_story":       {"/me/listings/1/story", map[string]any{"title": "t"}},
	"answer_interview":        {"/me/interview", map[string]any{"answers": []any{}}},
	"choose_free_listing":     {"/me/listings/1/free", nil},
	"claim_listing":           {"/claims", map[string]any{"slug": "rankrocket", "method": "dns"}},
	"verify_claim":            {"/claims/1/verify", nil},
	"list_my_claims":          {"/claims", nil},
	"submit_listing":          {"/drafts", map[string]any{"url": "http://127.0.0.1:1/"}},
	"list_my_drafts":          {"/drafts", nil},
	"get_draft":               {"/drafts/0b8f2f9e-5d7c-4c1a-9e2b-7a1d3c5e9f00", nil},
	"update_draft":            {"/drafts/0b8f2f9e-5d7c-4c1a-9e2b-7a1d3c5e9f00", map[string]any{}},
	"invite_cofounder":        {"/drafts/0b8f2f9e-5d7c-4c1a-9e2b-7a1d3c5e9f00/invites", map[string]any{"email": "x@example.com"}},
	"submit_draft":            {"/drafts/0b8f2f9e-5d7c-4c1a-9e2b-7a1d3c5e9f00/submit", nil},
	"quote_order":             {"/orders/quote", map[string]any{"items": []any{map[string]any{"product": "ai_review", "listing_id": 1}}}},
	"create_checkout":         {"/orders/checkout", map[string]any{"items": []any{map[string]any{"product": "ai_review", "listing_id": 1}}, "billing_country": "US"}},
	"list_my_orders":          {"/orders", nil},
	"get_order":               {"/orders/LD-2026-000001", nil},
	"delete_draft":            {"/drafts/0b8f2f9e-5d7c-4c1a-9e2b-7a1d3c5e9f00", nil},
	"archive_my_listing":      {"/me/listings/1/archive", nil},
	"update_listing_update":   {"/me/listings/1/updates/1", map[string]any{"title": "t"}},
	"delete_listing_update":   {"/me/listings/1/updates/1", nil},
	"remove_co_owner":         {"/me/listings/1/owners/2", nil},
	"transfer_ownership":      {"/me/listings/1/transfer", map[string]any{"user_id": 2}},
	"set_alternatives":        {"/me/listings/1/alternatives", map[string]any{"approved": []string{}}},
	"set_category_attributes": {"/me/listings/1/attributes", map[string]any{"attributes": map[string]any{}}},
	"cancel_order":            {"/me/orders/LD-2026-000001/cancel", nil},
	"set_listing_logo":        {"/me/listings/1/logo", map[string]any{"image_url": "http://127.0.0.1:1/logo.png"}},
	"delete_listing_logo":     {"/me/listings/1/logo", nil},
	"add_screenshot":          {"/me/listings/1/screenshots", map[string]any{"image_url": "http://127.0.0.1:1/s.png"}},
	"delete_screenshot":       {"/me/listings/1/screenshots/1", nil},
	"reorder_screenshots":     {"/me/listings/1/screenshots", map[string]any{"ids": []any{1}}},
	"set_founder_avatar":      {"/me/listings/1/founders/ada/avatar", map[string]any{"image_url": "http://127.0.0.1:1/a.png"}},
	"list_sites":              {"/sites", nil},
	"get_site":                {"/sites/main", nil},
	"create_site":             {"/sites", map[string]any{"key": "devtools", "origin": "http://devtools.test"}},
	"update_site":             {"/sites/main", map[string]any{"name": "x"}},
	"delete_site":             {"/sites/devtools", nil},
	"set_site_image":          {"/sites/main/images/logo", map[string]any{"image_base64": "x"}},
	"delete_site_image":       {"/sites/main/images/logo", nil},
	"change_site_listings":    {"/sites/devtools/listings", map[string]any{"add": []any{1}}},
	"get_my_listing_sites":    {"/me/listings/1/sites", nil},
	"set_my_listing_sites":    {"/me/listings/1/sites", map[string]any{"sites": []any{}}},
}

func TestSignedInAuthMatrix(t *testing.T) {
	e := newOwnerEnv(t)
	revoked := e.APIKey("owner@example.com")
	keys, _ := e.App.People.ListAPIKeys(context.Background(), "owner@example.com")
	if err := e.App.People.RevokeAPIKey(context.Background(), keys[len(keys)-1].ID); err != nil {
		t.Fatal(err)
	}
	for _, op := range e.App.Table.Ops {
		if op.Scope == "" {
			continue
		}
		tc, ok := signedInPaths[op.ID]
		if !ok {
			t.Errorf("%s has no case in the auth matrix", op.ID)
			continue
		}
		t.Run(op.ID, func(t *testing.T) {
			url := "/api/v1" + tc.path
			r := e.Do(op.Method, url, tc.body)
			if r.Status != 401 || !strings.HasPrefix(r.Header.Get("WWW-Authenticate"), "Bearer") {
				t.Fatalf("no credentials: %d %v", r.Status, r.Header)
			}
			checkProblem(t, r)
			for _, bad := range []string{"ldk_not_a_key", "lda_not_a_token", revoked} {
				r = e.Do(op.Method, url, tc.body, "Authorization", "Bearer "+bad)
				if r.Status != 401 || !strings.Contains(r.Header.Get("WWW-Authenticate"), "invalid_token") {
					t.Fatalf("bad credential %.8s: %d %v", bad, r.Status, r.Header)
				}
			}
			var lacking []string
			for _, s := range ops.AllScopes {
				if s != op.Scope {
					lacking = append(lacking, s)
				}
			}
			key := e.APIKey("owner@example.com", lacking...)
			r = e.Do(op.Method, url, tc.body, apitest.Bearer(key)...)
			if r.Status != 403 || !strings.Contains(r.Header.Get("WWW-Authenticate"), `insufficient_scope`) {
				t.Fatalf("lacking scope: %d %s", r.Status, r.Body)
			}
			checkProblem(t, r)
		})
	}
}

func TestAnotherUsersListingIs404(t *testing.T) {
	e := newOwnerEnv(t)
	// Listing 2 belongs to other@example.com; listing 999 does not exist.
	for _, id := range []string{"2", "999"} {
		for _, c := range []struct {
			method, path string
			body         any
		}{
			{"GET", "/me/listings/" + id, nil},
			{"PATCH", "/me/listings/" + id, map[string]any{"fields": map[string]any{"tagline": "hijack"}}},
			{"POST", "/me/listings/" + id + "/updates", map[string]any{"title": "t", "body": "b"}},
			{"POST", "/me/listings/" + id + "/milestones", map[string]any{"date": "2026-01-01", "title": "t"}},
			{"DELETE", "/me/listings/" + id + "/milestones/1", nil},
			{"PUT", "/me/listings/" + id + "/story", map[string]any{"title": "t"}},
			{"POST", "/me/listings/" + id + "/free", nil},
		} {
			r := e.Do(c.method, "/api/v1"+c.path, c.body, e.owner...)
			if r.Status != 404 {
				t.Errorf("%s %s: %d %s", c.method, c.path, r.Status, r.Body)
			}
		}
	}
	if r := e.Do("GET", "/api/v1/listings/rankrocket", nil); strings.Contains(string(r.Body), "hijack") {
		t.Fatal("another user's listing was changed")
	}
}

func TestGetAccountAndMyListings(t *testing.T) {
	e := newOwnerEnv(t)
	runScenarios(t, e.Env, []scenario{
		{name: "me", path: "/api/v1/me", status: 200, contains: []string{`"email":"owner@example.com"`, `"listings":3`, `"scopes":["account:read","listings:write","orders:write"]`, `"credential":"api_key"`}},
		{name: "my listings any status", path: "/api/v1/me/listings", status: 200, contains: []string{`"total":3`, "secretdraft", "quickbase", `"listing_id":`}, absent: []string{"rankrocket"}},
		{name: "my listing owner view", path: "/api/v1/me/listings/6", status: 200, contains: []string{`"status":"draft"`, `"plan":"none"`, `"listing_id":6`, `"role":"owner"`, `"unlocked_sections":[]`}},
		{name: "listing_id 0", path: "/api/v1/me/listings/0", status: 400, contains: []string{`"field":"listing_id"`}},
		{name: "listing_id not int", path: "/api/v1/me/listings/abc", status: 400, contains: []string{`"field":"listing_id"`}},
		{name: "claims empty", path: "/api/v1/claims", status: 200, contains: []string{`"total":0`}},
	}, e.owner...)
}

func TestUpdateMyListingBounds(t *testing.T) {
	e := newOwnerEnv(t)
	s := strings.Repeat
	field := func(name string, v any) map[string]any { return map[string]any{"fields": map[string]any{name: v}} }
	list := func(n, each int) []string {
		out := make([]string, n)
		for i := range out {
			out[i] = s("f", each)
		}
		return out
	}
	var scs []scenario
	for name, max := range map[string]int{"tagline": 200, "short_description": 300, "description": 20000, "pricing_model": 40,
		"pricing_summary": 300, "city": 120, "headline": 200, "summary": 20000, "seo_title": 200, "seo_description": 320} {
		scs = append(scs,
			scenario{name: name + " at max", method: "PATCH", path: "/api/v1/me/listings/1", body: field(name, s("a", max)), status: 200},
			scenario{name: name + " over max", method: "PATCH", path: "/api/v1/me/listings/1", body: field(name, s("a", max+1)), status: 400,
				contains: []string{`"field":"fields.` + name + `"`}})
	}
	for _, name := range []string{"features", "usps", "keywords"} {
		scs = append(scs,
			scenario{name: name + " 20x200", method: "PATCH", path: "/api/v1/me/listings/1", body: field(name, list(20, 200)), status: 200},
			scenario{name: name + " 21 items", method: "PATCH", path: "/api/v1/me/listings/1", body: field(name, list(21, 1)), status: 400, contains: []string{`"field":"fields.` + name + `"`}},
			scenario{name: name + " item 201", method: "PATCH", path: "/api/v1/me/listings/1", body: field(name, list(1, 201)), status: 400, contains: []string{`"field":"fields.` + name + `[0]"`}})
	}
	email := email254("example.com")
	faqs := func(n int) []any {
		out := make([]any, n)
		for i := range out {
			out[i] = map[string]any{"question": "Q?", "answer": "A."}
		}
		return out
	}
	socials := map[string]any{}
	for _, k := range kernel.SocialPlatforms {
		socials[k] = "https://example.com/" + k
	}
	scs = append(scs,
		scenario{name: "founded 1800", method: "PATCH", path: "/api/v1/me/listings/1", body: field("founded_year", 1800), status: 200},
		scenario{name: "founded 1799", method: "PATCH", path: "/api/v1/me/listings/1", body: field("founded_year", 1799), status: 400, contains: []string{`"field":"fields.founded_year"`}},
		scenario{name: "founded 2100", method: "PATCH", path: "/api/v1/me/listings/1", body: field("founded_year", 2100), status: 200},
		scenario{name: "founded 2101", method: "PATCH", path: "/api/v1/me/listings/1", body: field("founded_year", 2101), status: 400},
		scenario{name: "founded null", method: "PATCH", path: "/api/v1/me/listings/1", body: field("founded_year", nil), status: 200, contains: []string{`"founded_year":null`}},
		scenario{name: "founded string", method: "PATCH", path: "/api/v1/me/listings/1", body: field("founded_year", "2019"), status: 400},
		scenario{name: "founded fraction", method: "PATCH", path: "/api/v1/me/listings/1", body: field("founded_year", 2019.5), status: 400},
		scenario{name: "country ok", method: "PATCH", path: "/api/v1/me/listings/1", body: field("country", "fr"), status: 200, contains: []string{`"country":"FR"`}},
		scenario{name: "country 3", method: "PATCH", path: "/api/v1/me/listings/1", body: field("country", "FRA"), status: 400},
		scenario{name: "country unknown", method: "PATCH", path: "/api/v1/me/listings/1", body: field("country", "QQ"), status: 400},
		scenario{name: "email 254", method: "PATCH", path: "/api/v1/me/listings/1", body: field("contact_email", email), status: 200},
		scenario{name: "email 255", method: "PATCH", path: "/api/v1/me/listings/1", body: field("contact_email", "a"+email), status: 400},
		scenario{name: "email bad", method: "PATCH", path: "/api/v1/me/listings/1", body: field("contact_email", "not-an-email"), status: 400},
		scenario{name: "video 500", method: "PATCH", path: "/api/v1/me/listings/1", body: field("demo_video_url", "https://v.example/"+s("a", 482)), status: 200},
		scenario{name: "video 501", method: "PATCH", path: "/api/v1/me/listings/1", body: field("demo_video_url", "https://v.example/"+s("a", 483)), status: 400},
		scenario{name: "video not link", method: "PATCH", path: "/api/v1/me/listings/1", body: field("demo_video_url", "javascript:alert(1)"), status: 400},
		scenario{name: "unknown field", method: "PATCH", path: "/api/v1/me/listings/1", body: field("votes", 1000), status: 400, contains: []string{`"field":"fields.votes"`}},
		scenario{name: "unknown top-level", method: "PATCH", path: "/api/v1/me/listings/1", body: map[string]any{"status": "live"}, status: 400, contains: []string{`"field":"status"`}},
		scenario{name: "faqs 10", method: "PATCH", path: "/api/v1/me/listings/1", body: map[string]any{"faqs": faqs(10)}, status: 200},
		scenario{name: "faqs 11", method: "PATCH", path: "/api/v1/me/listings/1", body: map[string]any{"faqs": faqs(11)}, status: 400, contains: []string{`"field":"faqs"`}},
		scenario{name: "faq question 300", method: "PATCH", path: "/api/v1/me/listings/1", body: map[string]any{"faqs": []any{map[string]any{"question": s("q", 300), "answer": "a"}}}, status: 200},
		scenario{name: "faq question 301", method: "PATCH", path: "/api/v1/me/listings/1", body: map[string]any{"faqs": []any{map[string]any{"question": s("q", 301), "answer": "a"}}}, status: 400, contains: []string{`"field":"faqs[0].question"`}},
		scenario{name: "faq answer 1501", method: "PATCH", path: "/api/v1/me/listings/1", body: map[string]any{"faqs": []any{map[string]any{"question": "q", "answer": s("a", 1501)}}}, status: 400},
		scenario{name: "faq answer missing", method: "PATCH", path: "/api/v1/me/listings/1", body: map[string]any{"faqs": []any{map[string]any{"question": "q"}}}, status: 400, contains: []string{`"field":"faqs[0].answer"`}},
		scenario{name: "socials all 14", method: "PATCH", path: "/api/v1/me/listings/1", body: map[string]any{"socials": socials}, status: 200, contains: []string{`"producthunt":"https://example.com/producthunt"`}},
		scenario{name: "socials unknown platform", method: "PATCH", path: "/api/v1/me/listings/1", body: map[string]any{"socials": map[string]any{"myspace": "https://myspace.com/x"}}, status: 400, contains: []string{`"field":"socials.myspace"`}},
		scenario{name: "socials not link", method: "PATCH", path: "/api/v1/me/listings/1", body: map[string]any{"socials": map[string]any{"x": "@handle"}}, status: 400, contains: []string{`"field":"socials.x"`}},
		scenario{name: "socials 501", method: "PATCH", path: "/api/v1/me/listings/1", body: map[string]any{"socials": map[string]any{"x": "https://x.com/" + s("a", 487)}}, status: 400},
		scenario{name: "apply_to all", method: "PATCH", path: "/api/v1/me/listings/1", body: map[string]any{"fields": map[string]any{"headline": "H"}, "apply_to": []string{"all"}}, status: 200, contains: []string{`"site_copies":[{"site":"main","headline":"H"`}},
		scenario{name: "apply_to unknown", method: "PATCH", path: "/api/v1/me/listings/1", body: map[string]any{"apply_to": []string{"nowhere"}}, status: 400, contains: []string{`"field":"apply_to[0]"`}},
		scenario{name: "apply_to 61", method: "PATCH", path: "/api/v1/me/listings/1", body: map[string]any{"apply_to": list(61, 3)}, status: 400, contains: []string{`"field":"apply_to"`}},
		scenario{name: "apply_to entry 41", method: "PATCH", path: "/api/v1/me/listings/1", body: map[string]any{"apply_to": list(1, 41)}, status: 400, contains: []string{`"field":"apply_to[0]"`}},
		scenario{name: "not json", method: "PATCH", path: "/api/v1/me/listings/1", body: "{", status: 400, contains: []string{`"field":"body"`}},
		scenario{name: "array body", method: "PATCH", path: "/api/v1/me/listings/1", body: "[]", status: 400},
	)
	runScenarios(t, e.Env, scs, e.owner...)
}

func TestUpdatePublishesAndIsVersioned(t *testing.T) {
	e := newOwnerEnv(t)
	r := e.Do("PATCH", "/api/v1/me/listings/1", map[string]any{
		"fields":  map[string]any{"tagline": "The new tagline", "features": []string{"One", "Two"}},
		"socials": map[string]any{"github": "https://github.com/qb"},
		"faqs":    []any{map[string]any{"question": "New?", "answer": "Yes."}},
	}, e.owner...)
	if r.Status != 200 {
		t.Fatalf("%d %s", r.Status, r.Body)
	}
	pub := string(e.Do("GET", "/api/v1/listings/quickbase", nil).Body)
	for _, want := range []string{"The new tagline", `"features":["One","Two"]`, `"socials":{"github":"https://github.com/qb"}`, `"faqs":[{"question":"New?"`} {
		if !strings.Contains(pub, want) {
			t.Errorf("public profile lacks %s", want)
		}
	}
	if r := e.Do("GET", "/api/v1/listings?q=tagline", nil); !strings.Contains(string(r.Body), "quickbase") {
		t.Errorf("search index not updated: %s", r.Body)
	}
	var before, after string
	if err := e.DB.R.QueryRow(`SELECT before, after FROM revisions WHERE listing_id = 1 AND operation = 'update_my_listing'`).Scan(&before, &after); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(before, "The fastest embedded database") || !strings.Contains(after, "The new tagline") || !strings.Contains(before, "Is it free?") {
		t.Errorf("revision before=%s after=%s", before, after)
	}
}

// TestEditRevisionHoldsChangesAndReindexesOnlyText: a revision stores the
// fields that changed (before and after), nothing for a re-sent value, and
// the full-text index is rewritten only when indexed text changed.
func TestEditRevisionHoldsChangesAndReindexesOnlyText(t *testing.T) {
	e := newOwnerEnv(t)
	patch := func(fields map[string]any) {
		t.Helper()
		if r := e.Do("PATCH", "/api/v1/me/listings/1", map[string]any{"fields": fields}, e.owner...); r.Status != 200 {
			t.Fatalf("%d %s", r.Status, r.Body)
		}
	}
	revs := func() []string {
		rows, err := e.DB.R.Query(`SELECT before || ' -> ' || after FROM revisions WHERE listing_id = 1 AND operation = 'update_my_listing' ORDER BY id`)
		if err != nil {
			t.Fatal(err)
		}
		defer rows.Close()
		var out []string
		for rows.Next() {
			var s string
			rows.Scan(&s)
			out = append(out, s)
		}
		return out
	}
	ftsPages := func() int { return count(t, e.Env, `SELECT count(*) FROM listings_fts_data`) }
	// An owner edit's index change may wait in a note (db/fts.go, deferred
	// notes) until a search or the rebuilder applies it.
	notes := func() int { return count(t, e.Env, `SELECT count(*) FROM listings_fts_stale`) }
	current := e.Do("GET", "/api/v1/me/listings/1", nil, e.owner...).JSON()

	patch(map[string]any{"tagline": "Zebracorn tagline", "city": current["city"]})
	if got := revs(); len(got) != 1 || got[0] != `{"tagline":"The fastest embedded database"} -> {"tagline":"Zebracorn tagline"}` {
		t.Fatalf("revision of a tagline edit (city re-sent): %q", got)
	}
	if r := e.Do("GET", "/api/v1/listings?q=zebracorn", nil); !strings.Contains(string(r.Body), "quickbase") {
		t.Fatalf("new tagline not searchable: %s", r.Body)
	}
	pages := ftsPages()
	patch(map[string]any{"city": "Lyon", "pricing_model": "paid"})
	patch(map[string]any{"tagline": "Zebracorn tagline"}) // same text again
	if n, waiting := ftsPages(), notes(); n != pages || waiting != 0 {
		t.Errorf("edits without new text rewrote the full-text index (%d rows, were %d) or noted it (%d notes)", n, pages, waiting)
	}
	if got := revs(); len(got) != 2 || !strings.Contains(got[1], `"city":"Lyon"`) || strings.Contains(got[1], "tagline") {
		t.Fatalf("revisions: %q", got)
	}
	if r := e.Do("GET", "/api/v1/listings?q=zebracorn", nil); !strings.Contains(string(r.Body), "quickbase") {
		t.Fatalf("tagline no longer searchable after a city edit: %s", r.Body)
	}
	patch(map[string]any{"tagline": "Quaggafish tagline"})
	if ftsPages() == pages && notes() == 0 {
		t.Errorf("a new tagline neither reached the full-text index nor was noted for it")
	}
	if r := e.Do("GET", "/api/v1/listings?q=zebracorn", nil); strings.Contains(string(r.Body), "quickbase") {
		t.Fatalf("old tagline still found: %s", r.Body)
	}
}

// TestEditAnswerSeesOtherWrites: an owner edit's answer keeps the listing's
// other rows between edits (db/parts.go); any other write, in this process
// (an operation, a bare statement) or another one, shows in the next answer,
// and so do the edit's own FAQs.
func TestEditAnswerSeesOtherWrites(t *testing.T) {
	e := newOwnerEnv(t)
	edit := func(body map[string]any) map[string]any {
		t.Helper()
		r := e.Do("PATCH", "/api/v1/me/listings/1", body, e.owner...)
		if r.Status != 200 {
			t.Fatalf("%d %s", r.Status, r.Body)
		}
		// The answer is what a fresh read says.
		if got, want := string(r.Body), string(e.Do("GET", "/api/v1/me/listings/1", nil, e.owner...).Body); got != want {
			t.Fatalf("edit answer differs from a read:\n%s\n%s", got, want)
		}
		return r.JSON()
	}
	tag := func(i int) map[string]any {
		return map[string]any{"fields": map[string]any{"tagline": fmt.Sprintf("Tagline %d", i)}}
	}
	edit(tag(1))
	edit(tag(2)) // from the kept rows
	if r := e.Do("POST", "/api/v1/me/listings/1/milestones", map[string]any{"date": "2026-02-01", "title": "Through the API"}, e.owner...); r.Status != 201 {
		t.Fatalf("milestone: %d %s", r.Status, r.Body)
	}
	if !strings.Contains(fmt.Sprint(edit(tag(3))["milestones"]), "Through the API") {
		t.Fatal("a milestone added by an operation is missing from the next edit's answer")
	}
	if _, err := e.DB.W.Exec(`UPDATE founders SET name = 'Renamed in SQL' WHERE id = 1`); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(fmt.Sprint(edit(tag(4))["founders"]), "Renamed in SQL") {
		t.Fatal("a founder renamed by a bare statement is missing from the next edit's answer")
	}
	other, err := sql.Open("sqlite", "file:"+e.DB.Path)
	if err != nil {
		t.Fatal(err)
	}
	defer other.Close()
	if _, err := other.Exec(`INSERT INTO milestones(listing_id, date, title, created_at) VALUES (1, '2026-03-01', 'From another process', '2026-03-01T00:00:00Z')`); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(fmt.Sprint(edit(tag(5))["milestones"]), "From another process") {
		t.Fatal("a milestone written by another connection is missing from the next edit's answer")
	}
	got := edit(map[string]any{"fields": map[string]any{"tagline": "Tagline 6"}, "faqs": []any{map[string]any{"question": "Kept?", "answer": "No."}}})
	if !strings.Contains(fmt.Sprint(got["faqs"]), "Kept?") {
		t.Fatalf("the edit's own FAQs are missing from its answer: %v", got["faqs"])
	}
	edit(tag(7))
	// The owner columns of the answer come from the edit's own reads.
	got = edit(map[string]any{"fields": map[string]any{"headline": "New headline", "seo_title": "New SEO title", "city": "Oslo"}})
	if got["headline"] != "New headline" || got["seo_title"] != "New SEO title" || got["role"] == "" {
		t.Fatalf("owner columns in the answer: %v %v %v", got["headline"], got["seo_title"], got["role"])
	}
}

func TestOwnerContent(t *testing.T) {
	e := newOwnerEnv(t)
	s := strings.Repeat
	if _, err := e.DB.W.Exec(`INSERT INTO follows(listing_id, user_id, created_at) VALUES (1, 3, '2026-01-01T00:00:00Z')`); err != nil {
		t.Fatal(err)
	}
	answers := func(n int) []any {
		out := make([]any, n)
		for i := range out {
			out[i] = map[string]any{"question_id": 1, "answer": "a"}
		}
		return out
	}
	runScenarios(t, e.Env, []scenario{
		{name: "update", method: "POST", path: "/api/v1/me/listings/1/updates", body: map[string]any{"title": s("t", 200), "body": s("b", 5000)}, status: 201, contains: []string{`"followers_notified":1`}},
		{name: "update title 201", method: "POST", path: "/api/v1/me/listings/1/updates", body: map[string]any{"title": s("t", 201), "body": "b"}, status: 400, contains: []string{`"field":"title"`}},
		{name: "update body 5001", method: "POST", path: "/api/v1/me/listings/1/updates", body: map[string]any{"title": "t", "body": s("b", 5001)}, status: 400, contains: []string{`"field":"body"`}},
		{name: "update missing body", method: "POST", path: "/api/v1/me/listings/1/updates", body: map[string]any{"title": "t"}, status: 400, contains: []string{`"field":"body"`}},
		{name: "milestone", method: "POST", path: "/api/v1/me/listings/1/milestones", body: map[string]any{"date": "2026-03-01", "title": "Series A", "url": "https://qb.example/a", "description": s("d", 2000)}, status: 201, contains: []string{`"title":"Series A"`, `"visible":true`}},
		{name: "milestone bad date", method: "POST", path: "/api/v1/me/listings/1/milestones", body: map[string]any{"date": "2026-13-01", "title": "x"}, status: 400, contains: []string{`"field":"date"`}},
		{name: "milestone http url", method: "POST", path: "/api/v1/me/listings/1/milestones", body: map[string]any{"date": "2026-03-01", "title": "x", "url": "http://qb.example"}, status: 400, contains: []string{`"field":"url"`}},
		{name: "milestone title 201", method: "POST", path: "/api/v1/me/listings/1/milestones", body: map[string]any{"date": "2026-03-01", "title": s("t", 201)}, status: 400},
		{name: "milestone desc 2001", method: "POST", path: "/api/v1/me/listings/1/milestones", body: map[string]any{"date": "2026-03-01", "title": "t", "description": s("d", 2001)}, status: 400},
		{name: "delete milestone of other listing", method: "DELETE", path: "/api/v1/me/listings/3/milestones/1", status: 404, contains: []string{`"field":"milestone_id"`}},
		{name: "delete milestone", method: "DELETE", path: "/api/v1/me/listings/1/milestones/1", status: 200, contains: []string{`"deleted":true`}},
		{name: "delete milestone again", method: "DELETE", path: "/api/v1/me/listings/1/milestones/1", status: 404},
		{name: "story", method: "PUT", path: "/api/v1/me/listings/3/story", body: map[string]any{"title": s("t", 200), "story": s("s", 8000)}, status: 200, contains: []string{`"visible":false`}},
		{name: "story title 201", method: "PUT", path: "/api/v1/me/listings/3/story", body: map[string]any{"title": s("t", 201)}, status: 400, contains: []string{`"field":"title"`}},
		{name: "story section 8001", method: "PUT", path: "/api/v1/me/listings/3/story", body: map[string]any{"lessons": s("l", 8001)}, status: 400, contains: []string{`"field":"lessons"`}},
		{name: "interview", method: "PUT", path: "/api/v1/me/interview", body: map[string]any{"answers": []any{map[string]any{"question_id": 2, "answer": s("a", 4000)}}}, status: 200, contains: []string{`"answered":1`}},
		{name: "interview answer 4001", method: "PUT", path: "/api/v1/me/interview", body: map[string]any{"answers": []any{map[string]any{"question_id": 2, "answer": s("a", 4001)}}}, status: 400, contains: []string{`"field":"answers[0].answer"`}},
		{name: "interview unknown question", method: "PUT", path: "/api/v1/me/interview", body: map[string]any{"answers": []any{map[string]any{"question_id": 99, "answer": "a"}}}, status: 400, contains: []string{`"field":"answers[0].question_id"`}},
		{name: "interview 30 answers", method: "PUT", path: "/api/v1/me/interview", body: map[string]any{"answers": answers(30)}, status: 400, contains: []string{"answered twice"}},
		{name: "interview 31 answers", method: "PUT", path: "/api/v1/me/interview", body: map[string]any{"answers": answers(31)}, status: 400, contains: []string{`"field":"answers"`, "at most 30"}},
		{name: "interview missing answers", method: "PUT", path: "/api/v1/me/interview", body: map[string]any{}, status: 400, contains: []string{`"field":"answers"`}},
	}, e.owner...)
	// The story of listing 3 is private until unlocked; the owner still sees it.
	if r := e.Do("GET", "/api/v1/listings/tablely", nil); strings.Contains(string(r.Body), `"story"`) {
		t.Error("locked story is public")
	}
	if r := e.Do("GET", "/api/v1/me/listings/3", nil, e.owner...); !strings.Contains(string(r.Body), `"story":{"title":"ttt`) {
		t.Errorf("owner cannot see their story: %s", r.Body)
	}
	var n int
	e.DB.R.QueryRow(`SELECT count(*) FROM outbox WHERE kind = 'follower_update' AND to_addr = 'fan@example.com'`).Scan(&n)
	if n != 1 {
		t.Errorf("follower emails queued: %d", n)
	}
	e.DB.R.QueryRow(`SELECT count(*) FROM revisions WHERE operation IN ('post_listing_update','add_milestone','delete_milestone','set_founder_story','answer_interview')`).Scan(&n)
	if n != 5 {
		t.Errorf("revisions written: %d, want 5", n)
	}
}

func TestIdempotency(t *testing.T) {
	e := newOwnerEnv(t)
	body := map[string]any{"title": "Launch day", "body": "We are live."}
	h := append(append([]string{}, e.owner...), "Idempotency-Key", "key-1")
	first := e.Do("POST", "/api/v1/me/listings/1/updates", body, h...)
	second := e.Do("POST", "/api/v1/me/listings/1/updates", body, h...)
	if first.Status != 201 || second.Status != 201 || string(first.Body) != string(second.Body) {
		t.Fatalf("replay differs: %d %s / %d %s", first.Status, first.Body, second.Status, second.Body)
	}
	if second.Header.Get("Idempotent-Replayed") != "true" {
		t.Error("replay not marked")
	}
	other := e.Do("POST", "/api/v1/me/listings/1/updates", map[string]any{"title": "Other", "body": "x"}, h...)
	if other.Status != 422 {
		t.Fatalf("same key, other body: %d %s", other.Status, other.Body)
	}
	checkProblem(t, other)
	// A different user may use the same key independently.
	h2 := append(append([]string{}, e.other...), "Idempotency-Key", "key-1")
	if r := e.Do("POST", "/api/v1/me/listings/2/updates", body, h2...); r.Status != 201 {
		t.Fatalf("other user same key: %d", r.Status)
	}
	// A failed request is replayed as the same failure.
	bad := append(append([]string{}, e.owner...), "Idempotency-Key", "key-404")
	r1 := e.Do("POST", "/api/v1/me/listings/2/updates", body, bad...)
	r2 := e.Do("POST", "/api/v1/me/listings/2/updates", body, bad...)
	if r1.Status != 404 || r2.Status != 404 || r2.Header.Get("Content-Type") != "application/problem+json" {
		t.Fatalf("failure replay: %d %d %s", r1.Status, r2.Status, r2.Header.Get("Content-Type"))
	}
	var n int
	e.DB.R.QueryRow(`SELECT count(*) FROM listing_updates WHERE title = 'Launch day'`).Scan(&n)
	if n != 2 {
		t.Fatalf("updates created: %d, want 2 (one per user)", n)
	}
}

func TestIdempotencyConcurrent(t *testing.T) {
	e := newOwnerEnv(t)
	body := map[string]any{"date": "2026-05-01", "title": "Concurrent"}
	h := append(append([]string{}, e.owner...), "Idempotency-Key", "race")
	var wg sync.WaitGroup
	statuses := make([]int, 12)
	for i := range statuses {
		wg.Add(1)
		go func(i int) {
			defer wg.Done()
			statuses[i] = e.Do("POST", "/api/v1/me/listings/1/milestones", body, h...).Status
		}(i)
	}
	wg.Wait()
	for _, s := range statuses {
		if s != 201 && s != 409 {
			t.Fatalf("unexpected status %d in %v", s, statuses)
		}
	}
	var n int
	e.DB.R.QueryRow(`SELECT count(*) FROM milestones WHERE title = 'Concurrent'`).Scan(&n)
	if n != 1 {
		t.Fatalf("%d milestones created by concurrent duplicates", n)
	}
}

func TestIdempotencyStillRunningIs409(t *testing.T) {
	e := newOwnerEnv(t)
	h := append(append([]string{}, e.owner...), "Idempotency-Key", "busy")
	body := map[string]any{"title": "t", "body": "b"}
	if r := e.Do("POST", "/api/v1/me/listings/1/updates", body, h...); r.Status != 201 {
		t.Fatalf("first: %d", r.Status)
	}
	// Put the key back in the state of a request still being served.
	if _, err := e.DB.W.Exec(`UPDATE idempotency_keys SET state = 'running', created_at = '2026-11-18T11:59:00Z' WHERE key = 'busy'`); err != nil {
		t.Fatal(err)
	}
	r := e.Do("POST", "/api/v1/me/listings/1/updates", body, h...)
	if r.Status != 409 {
		t.Fatalf("retry while running: %d %s", r.Status, r.Body)
	}
	checkProblem(t, r)
}

func TestIdempotentReplaySurvivesRestart(t *testing.T) {
	e := newOwnerEnv(t)
	h := append(append([]string{}, e.owner...), "Idempotency-Key", "restart")
	body := map[string]any{"date": "2026-02-02", "title": "Before restart"}
	first := e.Do("POST", "/api/v1/me/listings/1/milestones", body, h...)
	// A second app on the same database file stands for a restarted process.
	a2, err := app.New(e.DB, e.App.Cfg, e.App.Log)
	if err != nil {
		t.Fatal(err)
	}
	a2.Now = e.App.Now
	p, err := a2.People.Authenticate(context.Background(), e.owner[1])
	if err != nil {
		t.Fatal(err)
	}
	args := map[string]any{"listing_id": int64(1), "date": "2026-02-02", "title": "Before restart"}
	res, err := a2.Exec.Call(context.Background(), a2.Table.Get("add_milestone"), p, args, "restart", nil)
	if err != nil || !res.Replayed || string(res.Body) != string(first.Body) {
		t.Fatalf("replay after restart: %v %+v", err, res)
	}
	var n int
	e.DB.R.QueryRow(`SELECT count(*) FROM milestones WHERE title = 'Before restart'`).Scan(&n)
	if n != 1 {
		t.Fatalf("%d milestones", n)
	}
}

func TestIdempotencyAbandonedKey(t *testing.T) {
	e := newOwnerEnv(t)
	// A key left running by a process that died ten minutes ago is abandoned.
	if _, err := e.DB.W.Exec(`INSERT INTO idempotency_keys(user_id, key, request_hash, state, created_at, expires_at)
		SELECT id, 'crashed', 'x', 'running', '2026-11-18T11:50:00Z', '2026-11-19T11:50:00Z' FROM users WHERE email = 'owner@example.com'`); err != nil {
		t.Fatal(err)
	}
	h := append(append([]string{}, e.owner...), "Idempotency-Key", "crashed")
	if r := e.Do("POST", "/api/v1/me/listings/1/updates", map[string]any{"title": "t", "body": "b"}, h...); r.Status != 201 {
		t.Fatalf("abandoned key still blocks: %d %s", r.Status, r.Body)
	}
}

func TestIdempotencyExpires(t *testing.T) {
	e := newOwnerEnv(t)
	body := map[string]any{"title": "Hello", "body": "x"}
	h := append(append([]string{}, e.owner...), "Idempotency-Key", "old")
	if r := e.Do("POST", "/api/v1/me/listings/1/updates", body, h...); r.Status != 201 {
		t.Fatalf("first: %d", r.Status)
	}
	e.App.Now = func() time.Time { return apitest.Now.Add(25 * time.Hour) }
	if r := e.Do("POST", "/api/v1/me/listings/1/updates", map[string]any{"title": "Other", "body": "x"}, h...); r.Status != 201 {
		t.Fatalf("expired key should run again: %d %s", r.Status, r.Body)
	}
}

func TestChooseFreeListing(t *testing.T) {
	e := newOwnerEnv(t)
	// Listing 6 (secretdraft): founder ghost-founder has no socials; no badge.
	r := e.Do("POST", "/api/v1/me/listings/6/free", nil, e.owner...)
	if r.Status != 400 {
		t.Fatalf("%d %s", r.Status, r.Body)
	}
	for _, want := range []string{`"field":"founder.socials"`, `"field":"badge"`} {
		if !strings.Contains(string(r.Body), want) {
			t.Errorf("missing %s in %s", want, r.Body)
		}
	}
	if got := listingStatus(t, e.Env, 6); got != "draft" {
		t.Fatalf("status changed to %s", got)
	}
	e.DB.W.Exec(`UPDATE founders SET socials = '{"x":"https://x.com/ghost"}' WHERE id = 3`)
	e.web.set("https://secretdraft.example/", `<html><body><a href="`+e.URL+`/listings/secretdraft"><img src="`+e.URL+`/badges/secretdraft.svg"></a></body></html>`)
	r = e.Do("POST", "/api/v1/me/listings/6/free", nil, e.owner...)
	// Now Wednesday 2026-11-18; 4 weeks ahead of Monday 2026-11-16 is 2026-12-14.
	if r.Status != 200 || !strings.Contains(string(r.Body), `"launch_week":"2026-12-14"`) {
		t.Fatalf("%d %s", r.Status, r.Body)
	}
	if r := e.Do("POST", "/api/v1/me/listings/6/free", nil, e.owner...); r.Status != 400 || !strings.Contains(string(r.Body), "already scheduled") {
		t.Fatalf("second free: %d %s", r.Status, r.Body)
	}
}

func TestFreeQueueCapacityAndScheduler(t *testing.T) {
	e := newOwnerEnv(t)
	// Capacity 2 per week; soonapp already holds one free slot in 2026-12-14.
	e.DB.W.Exec(`INSERT INTO listings(id, slug, name, url, domain, status, plan, launch_week, primary_category_id, created_at, updated_at)
		VALUES (7,'filler','Filler','https://filler.example/','filler.example','scheduled','free','2026-12-14',2,'2026-01-01T00:00:00Z','2026-01-01T00:00:00Z')`)
	e.DB.W.Exec(`UPDATE founders SET socials = '{"x":"https://x.com/ghost"}' WHERE id = 3`)
	e.web.set("https://secretdraft.example/", `<a href="`+e.URL+`/listings/secretdraft">we are on it</a>`)
	r := e.Do("POST", "/api/v1/me/listings/6/free", nil, e.owner...)
	if r.Status != 200 || !strings.Contains(string(r.Body), `"launch_week":"2026-12-21"`) {
		t.Fatalf("full week not skipped: %d %s", r.Status, r.Body)
	}
	// The scheduler makes it live once its week starts, and catches up after downtime.
	e.App.Now = func() time.Time { return time.Date(2026, 12, 20, 23, 0, 0, 0, time.UTC) }
	if err := e.App.Catalog.GoLiveDue(context.Background()); err != nil {
		t.Fatal(err)
	}
	if got := listingStatus(t, e.Env, 6); got != "scheduled" {
		t.Fatalf("went live early: %s", got)
	}
	e.App.Now = func() time.Time { return time.Date(2027, 1, 5, 0, 0, 0, 0, time.UTC) }
	for i := 0; i < 2; i++ { // idempotent
		if err := e.App.Catalog.GoLiveDue(context.Background()); err != nil {
			t.Fatal(err)
		}
	}
	if got := listingStatus(t, e.Env, 6); got != "live" {
		t.Fatalf("not live after its week: %s", got)
	}
	if r := e.Do("GET", "/api/v1/listings/secretdraft", nil); r.Status != 200 || !strings.Contains(string(r.Body), `"launched_at":"2026-12-21T00:00:00Z"`) {
		t.Fatalf("public after launch: %d %s", r.Status, r.Body)
	}
}

func listingStatus(t *testing.T, e *apitest.Env, id int) string {
	var s string
	if err := e.DB.R.QueryRow(`SELECT status FROM listings WHERE id = ?`, id).Scan(&s); err != nil {
		t.Fatal(err)
	}
	return s
}

func TestClaimsDNSMetaFileEmail(t *testing.T) {
	e := newOwnerEnv(t)
	fan := apitest.Bearer(e.APIKey("fan@example.com"))
	runScenarios(t, e.Env, []scenario{
		{name: "unknown listing", method: "POST", path: "/api/v1/claims", body: map[string]any{"slug": "nope", "method": "dns"}, status: 404},
		{name: "bad method", method: "POST", path: "/api/v1/claims", body: map[string]any{"slug": "quickbase", "method": "fax"}, status: 400, contains: []string{`"field":"method"`}},
		{name: "email needs address", method: "POST", path: "/api/v1/claims", body: map[string]any{"slug": "quickbase", "method": "email"}, status: 400, contains: []string{`"field":"email"`}},
		{name: "email other domain", method: "POST", path: "/api/v1/claims", body: map[string]any{"slug": "quickbase", "method": "email", "email": "me@gmail.com"}, status: 400, contains: []string{"quickbase.example"}},
		{name: "slug 221", method: "POST", path: "/api/v1/claims", body: map[string]any{"slug": strings.Repeat("a", 221), "method": "dns"}, status: 400},
	}, fan...)
	if r := e.Do("POST", "/api/v1/claims", map[string]any{"slug": "quickbase", "method": "dns"}, e.owner...); r.Status != 400 || !strings.Contains(string(r.Body), "already own") {
		t.Fatalf("owner claiming own listing: %d %s", r.Status, r.Body)
	}
	claim := e.Do("POST", "/api/v1/claims", map[string]any{"slug": "quickbase", "method": "dns"}, fan...)
	if claim.Status != 201 {
		t.Fatalf("%d %s", claim.Status, claim.Body)
	}
	m := claim.JSON()
	id := int(m["id"].(float64))
	inst := m["instructions"].(map[string]any)
	if dup := e.Do("POST", "/api/v1/claims", map[string]any{"slug": "quickbase", "method": "meta"}, fan...); dup.Status != 409 {
		t.Fatalf("second pending claim: %d", dup.Status)
	}
	verify := fmt.Sprintf("/api/v1/claims/%d/verify", id)
	if r := e.Do("POST", verify, nil, e.other...); r.Status != 404 {
		t.Fatalf("other user's claim: %d", r.Status)
	}
	r := e.Do("POST", verify, nil, fan...)
	if r.Status != 200 || !strings.Contains(string(r.Body), `"status":"pending"`) || !strings.Contains(string(r.Body), "no such host") {
		t.Fatalf("unverified: %d %s", r.Status, r.Body)
	}
	e.dns[inst["name"].(string)] = []string{"unrelated", inst["value"].(string)}
	r = e.Do("POST", verify, nil, fan...)
	if r.Status != 200 || !strings.Contains(string(r.Body), `"status":"verified"`) {
		t.Fatalf("dns verify: %d %s", r.Status, r.Body)
	}
	if r := e.Do("GET", "/api/v1/me/listings/1", nil, fan...); r.Status != 200 || !strings.Contains(string(r.Body), `"role":"claimed"`) {
		t.Fatalf("claimant is not an owner: %d", r.Status)
	}

	// meta and file against a real local homepage through the guarded crawler.
	var page, file string
	site := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path == "/.well-known/launchdir-verification.txt" {
			w.Header().Set("Content-Type", "text/plain")
			fmt.Fprint(w, file)
			return
		}
		w.Header().Set("Content-Type", "text/html")
		fmt.Fprint(w, page)
	}))
	defer site.Close()
	e.App.SetExternals(kernel.Externals{Fetcher: crawl.New(crawl.Options{AllowPrivate: true}), Resolver: e.dns})
	e.DB.W.Exec(`UPDATE listings SET url = ? WHERE slug IN ('rankrocket','tablely')`, site.URL+"/")
	meta := e.Do("POST", "/api/v1/claims", map[string]any{"slug": "rankrocket", "method": "meta"}, fan...).JSON()
	page = `<html><head><meta content="wrong" name="launchdir-verification"></head></html>`
	mv := fmt.Sprintf("/api/v1/claims/%d/verify", int(meta["id"].(float64)))
	if r := e.Do("POST", mv, nil, fan...); !strings.Contains(string(r.Body), `"status":"pending"`) {
		t.Fatalf("wrong meta accepted: %s", r.Body)
	}
	tag := meta["instructions"].(map[string]any)["tag"].(string)
	page = "<html><head>" + tag + "</head></html>"
	if r := e.Do("POST", mv, nil, fan...); !strings.Contains(string(r.Body), `"status":"verified"`) {
		t.Fatalf("meta verify: %s", r.Body)
	}
	// Verified is not paid: the plan and paid sections are unchanged.
	if r := e.Do("GET", "/api/v1/me/listings/2", nil, fan...); !strings.Contains(string(r.Body), `"plan":"free"`) || !strings.Contains(string(r.Body), `"unlocked_sections":[]`) {
		t.Fatalf("verification changed the plan: %s", r.Body)
	}
	fc := e.Do("POST", "/api/v1/claims", map[string]any{"slug": "tablely", "method": "file"}, e.other...).JSON()
	file = fc["instructions"].(map[string]any)["content"].(string) + "\n"
	if r := e.Do("POST", fmt.Sprintf("/api/v1/claims/%d/verify", int(fc["id"].(float64))), nil, e.other...); !strings.Contains(string(r.Body), `"status":"verified"`) {
		t.Fatalf("file verify: %s", r.Body)
	}

	// email: the link in the outbox verifies the claim when opened.
	ec := e.Do("POST", "/api/v1/claims", map[string]any{"slug": "oldpost", "method": "email", "email": "ceo@oldpost.example"}, fan...)
	if ec.Status != 201 {
		t.Fatalf("email claim: %d %s", ec.Status, ec.Body)
	}
	var body string
	e.DB.R.QueryRow(`SELECT body FROM outbox WHERE kind = 'claim_link' AND to_addr = 'ceo@oldpost.example'`).Scan(&body)
	link := body[strings.Index(body, e.URL):]
	link = link[:strings.Index(link, "\n")]
	// Opening the link (as mail scanners do) only shows a form.
	if r := e.Do("GET", link, nil); r.Status != 200 || !strings.Contains(string(r.Body), "Confirm your claim") {
		t.Fatalf("email link: %d %s", r.Status, r.Body)
	}
	if r := e.Do("GET", "/api/v1/me/listings/4", nil, fan...); r.Status != 404 {
		t.Fatalf("GET of the link granted ownership: %d", r.Status)
	}
	if r := e.Do("POST", link, nil); r.Status != 200 || !strings.Contains(string(r.Body), "Claim verified") {
		t.Fatalf("email confirm: %d %s", r.Status, r.Body)
	}
	if r := e.Do("POST", link, nil); r.Status != 404 {
		t.Fatalf("email link reuse: %d", r.Status)
	}
	var stored string
	e.DB.R.QueryRow(`SELECT token FROM claims WHERE method = 'email'`).Scan(&stored)
	if strings.Contains(link, stored) {
		t.Fatal("email claim token stored in plain text")
	}
	if r := e.Do("GET", "/api/v1/claims", nil, fan...); !strings.Contains(string(r.Body), `"total":3`) {
		t.Fatalf("list claims: %s", r.Body)
	}
}

func TestOutboxDelivery(t *testing.T) {
	sent := &recordMailer{fail: 2}
	e := apitest.New(t, apitest.Options{Fixture: true, Setup: func(a *app.App) { a.SetExternals(kernel.Externals{Mailer: sent}) }})
	e.DB.W.Exec(`INSERT INTO outbox(kind, to_addr, subject, body, next_attempt_at, created_at) VALUES ('t','a@example.com','s','b','2026-01-01T00:00:00Z','2026-01-01T00:00:00Z')`)
	ctx := context.Background()
	for i := 0; i < 3; i++ {
		if err := e.App.DeliverOutbox(ctx); err != nil {
			t.Fatal(err)
		}
		e.App.Now = func() time.Time { return apitest.Now.Add(time.Duration(i+1) * time.Hour) }
	}
	var status string
	var attempts int
	e.DB.R.QueryRow(`SELECT status, attempts FROM outbox`).Scan(&status, &attempts)
	if status != "sent" || attempts != 3 || sent.sent != 1 {
		t.Fatalf("status %s attempts %d sent %d", status, attempts, sent.sent)
	}
}

type recordMailer struct {
	mu         sync.Mutex
	fail, sent int
}

func (m *recordMailer) Send(ctx context.Context, to, subject, body string) error {
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.fail > 0 {
		m.fail--
		return errors.New("smtp down")
	}
	m.sent++
	return nil
}

func TestOwnerBoundsMore(t *testing.T) {
	e := newOwnerEnv(t)
	s := strings.Repeat
	for i := 4; i <= 31; i++ {
		e.DB.W.Exec(`INSERT INTO interview_questions(id, position, question) VALUES (?, ?, ?)`, i, i, fmt.Sprintf("Question %d?", i))
	}
	answers := make([]any, 30)
	for i := range answers {
		answers[i] = map[string]any{"question_id": i + 1, "answer": "a"}
	}
	url500 := "https://m.example/" + s("a", 482)
	email254 := email254("quickbase.example")
	runScenarios(t, e.Env, []scenario{
		{name: "30 answers", method: "PUT", path: "/api/v1/me/interview", body: map[string]any{"answers": answers}, status: 200, contains: []string{`"answered":30`}},
		{name: "question_id 0", method: "PUT", path: "/api/v1/me/interview", body: map[string]any{"answers": []any{map[string]any{"question_id": 0, "answer": "a"}}}, status: 400, contains: []string{`"field":"answers[0].question_id"`}},
		{name: "milestone url 500", method: "POST", path: "/api/v1/me/listings/2/milestones", body: map[string]any{"date": "2026-01-01", "title": s("t", 200), "url": url500}, status: 201},
		{name: "milestone url 501", method: "POST", path: "/api/v1/me/listings/2/milestones", body: map[string]any{"date": "2026-01-01", "title": "t", "url": url500 + "a"}, status: 400, contains: []string{`"field":"url"`}},
		{name: "milestone title missing", method: "POST", path: "/api/v1/me/listings/2/milestones", body: map[string]any{"date": "2026-01-01"}, status: 400, contains: []string{`"field":"title"`}},
		{name: "update title missing", method: "POST", path: "/api/v1/me/listings/2/updates", body: map[string]any{"body": "b"}, status: 400, contains: []string{`"field":"title"`}},
		{name: "faq answer 1500", method: "PATCH", path: "/api/v1/me/listings/2", body: map[string]any{"faqs": []any{map[string]any{"question": "q", "answer": s("a", 1500)}}}, status: 200},
		{name: "social 500", method: "PATCH", path: "/api/v1/me/listings/2", body: map[string]any{"socials": map[string]any{"x": "https://x.com/" + s("a", 486)}}, status: 200},
		{name: "milestone_id 0", method: "DELETE", path: "/api/v1/me/listings/2/milestones/0", status: 400, contains: []string{`"field":"milestone_id"`}},
		{name: "milestone_id text", method: "DELETE", path: "/api/v1/me/listings/2/milestones/x", status: 400, contains: []string{`"field":"milestone_id"`}},
		{name: "claim_id 0", method: "POST", path: "/api/v1/claims/0/verify", status: 400, contains: []string{`"field":"claim_id"`}},
		{name: "claim email 254", method: "POST", path: "/api/v1/claims", body: map[string]any{"slug": "quickbase", "method": "email", "email": email254}, status: 201},
		{name: "claim email 255", method: "POST", path: "/api/v1/claims", body: map[string]any{"slug": "tablely", "method": "email", "email": "a" + email254}, status: 400, contains: []string{`"field":"email"`}},
	}, e.other...)
}

// apply_to copies only the fields sent to the other sites; this site's
// copy is always what this site shows (the listing itself), including
// after later edits sent without apply_to.
func TestApplyToCopiesOnlyFieldsSent(t *testing.T) {
	e := newOwnerEnv(t)
	if _, err := e.DB.W.Exec(`INSERT INTO sites(key, origin, created_at, updated_at) VALUES('eu', 'http://eu.example', '2026-01-01T00:00:00Z', '2026-01-01T00:00:00Z')`); err != nil {
		t.Fatal(err)
	}
	e.App.ReloadSites()
	e.Do("PATCH", "/api/v1/me/listings/1", map[string]any{"fields": map[string]any{"seo_title": "Listing SEO"}}, e.owner...)
	r := e.Do("PATCH", "/api/v1/me/listings/1", map[string]any{"fields": map[string]any{"headline": "H", "tagline": "T"}, "apply_to": []string{"all"}}, e.owner...)
	if r.Status != 200 || !strings.Contains(string(r.Body), `"site_copies":[{"site":"main","headline":"H","summary":"","seo_title":"Listing SEO","seo_description":""},{"site":"eu","headline":"H","summary":"","seo_title":"","seo_description":""}]`) {
		t.Fatalf("apply_to copied more than the fields sent: %d %s", r.Status, r.Body)
	}
	r = e.Do("PATCH", "/api/v1/me/listings/1", map[string]any{"fields": map[string]any{"headline": "Newer"}}, e.owner...)
	if !strings.Contains(string(r.Body), `{"site":"main","headline":"Newer"`) || !strings.Contains(string(r.Body), `{"site":"eu","headline":"H"`) {
		t.Fatalf("this site's copy after an edit without apply_to: %s", r.Body)
	}
	var n int
	e.DB.W.QueryRow(`SELECT count(*) FROM listing_site_copy WHERE site_key = 'main'`).Scan(&n)
	if n != 0 {
		t.Errorf("%d stored copies for this site", n)
	}
}
