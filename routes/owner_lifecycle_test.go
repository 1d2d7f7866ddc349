package routes_test

import (
	"fmt"
	"strings"
	"testing"

	"launchdir/apitest"
	"launchdir/site"
)

func (e *ownerEnv) scalar(t *testing.T, q string, args ...any) string {
	t.Helper()
	var s string
	if err := e.DB.W.QueryRow(q, args...).Scan(&s); err != nil {
		t.Fatalf("%s: %v", q, err)
	}
	return s
}

func TestArchiveAndWithdraw(t *testing.T) {
	e := newOwnerEnv(t)
	apitest.LoadSQL(t, e.DB, "orders_fixture.sql")
	e.DB.W.Exec(`INSERT INTO listing_owners(listing_id, user_id, role, created_at) VALUES (3, 2, 'cofounder', '2026-11-01T00:00:00Z')`)
	runScenarios(t, e.Env, []scenario{
		{name: "co-founder archives", method: "POST", path: "/api/v1/me/listings/3/archive", status: 403, contains: []string{"only the listing's owner"}},
		{name: "not an owner", method: "POST", path: "/api/v1/me/listings/1/archive", status: 404},
	}, e.other...)
	runScenarios(t, e.Env, []scenario{
		{name: "another user's listing", method: "POST", path: "/api/v1/me/listings/2/archive", status: 404},
		{name: "id 0", method: "POST", path: "/api/v1/me/listings/0/archive", status: 400},
		{name: "a draft", method: "POST", path: "/api/v1/me/listings/6/archive", status: 400, contains: []string{"the listing is draft"}},
		{name: "live", method: "POST", path: "/api/v1/me/listings/3/archive", status: 200, contains: []string{`"before":"live"`, `"status":"archived"`}},
		{name: "again", method: "POST", path: "/api/v1/me/listings/3/archive", status: 400, contains: []string{"the listing is archived"}},
		{name: "free queue", method: "POST", path: "/api/v1/me/listings/8/archive", status: 200, contains: []string{`"before":"scheduled"`, `"status":"draft"`, "Withdrawn"}},
	}, e.owner...)
	if r := e.Do("GET", "/api/v1/listings/tablely", nil); r.Status != 404 {
		t.Errorf("archived listing's public page: %d", r.Status)
	}
	if got := e.scalar(t, `SELECT status || '/' || coalesce(launch_week, '-') || '/' || (SELECT count(*) FROM launches WHERE listing_id = 8) FROM listings WHERE id = 8`); got != "draft/-/0" {
		t.Errorf("withdrawn listing: %s", got)
	}
	if n := e.scalar(t, `SELECT count(*) FROM revisions WHERE operation = 'archive_my_listing'`); n != "2" {
		t.Errorf("revisions: %s", n)
	}
	// A paid booked launch is not withdrawn here.
	e.DB.W.Exec(`UPDATE listings SET status = 'scheduled', plan = 'paid', launch_week = '2026-12-14' WHERE id = 7`)
	if r := e.Do("POST", "/api/v1/me/listings/7/archive", nil, e.owner...); r.Status != 400 || !strings.Contains(string(r.Body), "paid launch booked for 2026-12-14") {
		t.Errorf("paid scheduled: %d %s", r.Status, r.Body)
	}
}

func TestEditAndDeleteUpdates(t *testing.T) {
	e := newOwnerEnv(t)
	r := e.Do("POST", "/api/v1/me/listings/1/updates", map[string]any{"title": "v2 is out", "body": "Line one\r\nLine two"}, e.owner...)
	if r.Status != 201 {
		t.Fatalf("post: %d %s", r.Status, r.Body)
	}
	id := int64(r.JSON()["update"].(map[string]any)["id"].(float64))
	p := fmt.Sprintf("/api/v1/me/listings/1/updates/%d", id)
	runScenarios(t, e.Env, []scenario{
		{name: "title only", method: "PATCH", path: p, body: map[string]any{"title": "v2.0 is out"}, status: 200, contains: []string{`"title":"v2.0 is out"`, `"body":"Line one\nLine two"`}},
		{name: "body with CRLF", method: "PATCH", path: p, body: map[string]any{"body": "A\r\nB\rC"}, status: 200, contains: []string{`"body":"A\nB\nC"`, `"title":"v2.0 is out"`}},
		{name: "title 200", method: "PATCH", path: p, body: map[string]any{"title": strings.Repeat("t", 200)}, status: 200},
		{name: "title 201", method: "PATCH", path: p, body: map[string]any{"title": strings.Repeat("t", 201)}, status: 400, contains: []string{`"field":"title"`}},
		{name: "title empty", method: "PATCH", path: p, body: map[string]any{"title": ""}, status: 400, contains: []string{`"field":"title"`}},
		{name: "body 5001", method: "PATCH", path: p, body: map[string]any{"body": strings.Repeat("b", 5001)}, status: 400, contains: []string{`"field":"body"`}},
		{name: "wrong listing", method: "PATCH", path: fmt.Sprintf("/api/v1/me/listings/3/updates/%d", id), body: map[string]any{"title": "x"}, status: 404, contains: []string{"update_id"}},
		{name: "delete", method: "DELETE", path: p, status: 200, contains: []string{`"title":"` + strings.Repeat("t", 200)}},
		{name: "delete again", method: "DELETE", path: p, status: 404},
	}, e.owner...)
	runScenarios(t, e.Env, []scenario{
		{name: "other user", method: "DELETE", path: "/api/v1/me/listings/1/updates/1", status: 404},
	}, e.other...)
	if n := e.scalar(t, `SELECT count(*) FROM revisions WHERE entity = 'listing_update' AND entity_id = ?`, id); n != "5" {
		t.Errorf("revisions of the update: %s (post, 3 edits, delete)", n)
	}
}

func TestCoOwnersAndTransfer(t *testing.T) {
	e := newOwnerEnv(t)
	e.DB.W.Exec(`INSERT INTO listing_owners(listing_id, user_id, role, created_at) VALUES (1, 2, 'cofounder', '2026-11-01T00:00:00Z')`)
	if r := e.Do("GET", "/api/v1/me/listings/1", nil, e.owner...); !strings.Contains(string(r.Body), `"owners":[{"user_id":1,"name":"Olivia Owner","role":"owner"},{"user_id":2,"name":"Oscar Other","role":"cofounder"}]`) {
		t.Fatalf("owners: %s", r.Body)
	}
	runScenarios(t, e.Env, []scenario{
		{name: "co-founder removes the owner", method: "DELETE", path: "/api/v1/me/listings/1/owners/1", status: 400, contains: []string{"cannot be removed"}},
		{name: "co-founder transfers", method: "POST", path: "/api/v1/me/listings/1/transfer", body: map[string]any{"user_id": 2}, status: 403},
	}, e.other...)
	runScenarios(t, e.Env, []scenario{
		{name: "to a stranger", method: "POST", path: "/api/v1/me/listings/1/transfer", body: map[string]any{"user_id": 3}, status: 400, contains: []string{"not a co-owner"}},
		{name: "to yourself", method: "POST", path: "/api/v1/me/listings/1/transfer", body: map[string]any{"user_id": 1}, status: 400},
		{name: "user_id 0", method: "POST", path: "/api/v1/me/listings/1/transfer", body: map[string]any{"user_id": 0}, status: 400, contains: []string{`"field":"user_id"`}},
		{name: "remove a non-owner", method: "DELETE", path: "/api/v1/me/listings/1/owners/3", status: 404, contains: []string{"user_id"}},
		{name: "transfer", method: "POST", path: "/api/v1/me/listings/1/transfer", body: map[string]any{"user_id": 2}, status: 200,
			contains: []string{`"owners":[{"user_id":2,"name":"Oscar Other","role":"owner"},{"user_id":1,"name":"Olivia Owner","role":"cofounder"}]`}},
		{name: "former owner removes the new one", method: "DELETE", path: "/api/v1/me/listings/1/owners/2", status: 400},
		{name: "former owner leaves", method: "DELETE", path: "/api/v1/me/listings/1/owners/1", status: 200, contains: []string{`"you_left":true`}},
		{name: "gone", path: "/api/v1/me/listings/1", status: 404},
	}, e.owner...)
	if n := e.scalar(t, `SELECT count(*) FROM revisions WHERE entity = 'owners'`); n != "2" {
		t.Errorf("owner revisions: %s", n)
	}
}

func TestCancelUnpaidOrder(t *testing.T) {
	e := newOwnerEnv(t)
	r := e.Do("POST", "/api/v1/orders/checkout", apitest.Order(apitest.OrderItem("ai_review", "listing_id", 1)), e.owner...)
	number, _ := r.JSON()["number"].(string)
	if r.Status != 201 || number == "" {
		t.Fatalf("checkout: %d %s", r.Status, r.Body)
	}
	runScenarios(t, e.Env, []scenario{
		{name: "another user's order", method: "POST", path: "/api/v1/me/orders/" + number + "/cancel", status: 404},
	}, e.other...)
	runScenarios(t, e.Env, []scenario{
		{name: "cancel", method: "POST", path: "/api/v1/me/orders/" + number + "/cancel", status: 200, contains: []string{`"status":"canceled"`}},
		{name: "again", method: "POST", path: "/api/v1/me/orders/" + number + "/cancel", status: 400, contains: []string{"is canceled; only an unpaid (pending) order"}},
		{name: "unknown", method: "POST", path: "/api/v1/me/orders/LD-2026-999999/cancel", status: 404},
	}, e.owner...)
	readOnly := apitest.Bearer(e.APIKey("owner@example.com", "account:read"))
	if r := e.Do("POST", "/api/v1/me/orders/"+number+"/cancel", nil, readOnly...); r.Status != 403 {
		t.Errorf("read-only key: %d", r.Status)
	}
}

func TestApproveAlternativesAndAttributes(t *testing.T) {
	e := newOwnerEnv(t)
	list := func(n int) []string {
		out := make([]string, n)
		for i := range out {
			out[i] = "tablely"
		}
		return out
	}
	runScenarios(t, e.Env, []scenario{
		{name: "own slug", method: "PUT", path: "/api/v1/me/listings/1/alternatives", body: map[string]any{"approved": []string{"quickbase"}}, status: 400, contains: []string{"approved[0]", "its own alternative"}},
		{name: "not live", method: "PUT", path: "/api/v1/me/listings/1/alternatives", body: map[string]any{"approved": []string{"secretdraft"}}, status: 400, contains: []string{"approved[0]", "no live listing"}},
		{name: "twice", method: "PUT", path: "/api/v1/me/listings/1/alternatives", body: map[string]any{"approved": []string{"tablely", "tablely"}}, status: 400, contains: []string{"approved[1]"}},
		{name: "11", method: "PUT", path: "/api/v1/me/listings/1/alternatives", body: map[string]any{"approved": list(11)}, status: 400, contains: []string{`"field":"approved"`}},
		{name: "approve", method: "PUT", path: "/api/v1/me/listings/1/alternatives", body: map[string]any{"approved": []string{"rankrocket", "tablely"}}, status: 200, contains: []string{`"slug":"rankrocket"`, `"slug":"tablely"`}},
	}, e.owner...)
	r := e.Do("GET", "/api/v1/listings/quickbase/alternatives", nil)
	if !strings.Contains(string(r.Body), `"slug":"rankrocket"`) || !strings.Contains(string(r.Body), `"approved":true`) {
		t.Fatalf("alternatives after approval: %s", r.Body)
	}
	if r := e.Do("PUT", "/api/v1/me/listings/1/alternatives", map[string]any{"approved": []string{}}, e.owner...); r.Status != 200 {
		t.Fatalf("approve none: %d", r.Status)
	}
	if r := e.Do("GET", "/api/v1/listings/quickbase/alternatives", nil); strings.Contains(string(r.Body), `"approved":true`) {
		t.Fatalf("alternatives after clearing: %s", r.Body)
	}

	// Attributes of the primary category (Databases) and its parent.
	many := map[string]any{}
	for i := range 31 {
		many[fmt.Sprintf("a%02d", i)] = "x"
	}
	runScenarios(t, e.Env, []scenario{
		{name: "unknown name", method: "PATCH", path: "/api/v1/me/listings/1/attributes", body: map[string]any{"attributes": map[string]any{"SSO": "Yes"}}, status: 400,
			contains: []string{"attributes.SSO", "allowed: Open source, Self-hosted, API, Query language"}},
		{name: "31 names", method: "PATCH", path: "/api/v1/me/listings/1/attributes", body: map[string]any{"attributes": many}, status: 400},
		{name: "value 201", method: "PATCH", path: "/api/v1/me/listings/1/attributes", body: map[string]any{"attributes": map[string]any{"API": strings.Repeat("v", 201)}}, status: 400},
		{name: "set", method: "PATCH", path: "/api/v1/me/listings/1/attributes", body: map[string]any{"attributes": map[string]any{"Open source": "Yes", "API": "REST"}}, status: 200, contains: []string{`"Open source":"Yes"`}},
		{name: "remove one", method: "PATCH", path: "/api/v1/me/listings/1/attributes", body: map[string]any{"attributes": map[string]any{"API": ""}}, status: 200, contains: []string{`"attributes":{"Open source":"Yes","Query language":"SQL"}`}},
	}, e.owner...)
	if r := e.Do("GET", "/api/v1/compare?a=quickbase&b=tablely", nil); !strings.Contains(string(r.Body), `{"attribute":"Open source","a":"Yes"`) {
		t.Fatalf("compare: %s", r.Body)
	}
}

// Interview answers are published: on the listing of their owner (API and
// page) and on the owner's founder profile; empty answers are not shown,
// and a co-founder's answers do not speak for the listing.
func TestInterviewAnswersPublished(t *testing.T) {
	e := newOwnerEnv(t)
	if _, err := site.Mount(e.Routes, e.App, e.App.People); err != nil {
		t.Fatal(err)
	}
	page := func(path string) string {
		t.Helper()
		r := e.Do("GET", path, nil)
		if r.Status != 200 {
			t.Fatalf("%s: %d", path, r.Status)
		}
		return string(r.Body)
	}
	e.DB.W.Exec(`UPDATE founders SET user_id = 1 WHERE slug = 'ada-lovelace'`)
	var q1, q2 int64
	e.DB.W.QueryRow(`SELECT id FROM interview_questions ORDER BY position LIMIT 1`).Scan(&q1)
	e.DB.W.QueryRow(`SELECT id FROM interview_questions ORDER BY position LIMIT 1 OFFSET 1`).Scan(&q2)
	if q1 == 0 || q2 == 0 {
		t.Skip("the fixture has fewer than 2 interview questions")
	}
	r := e.Do("PUT", "/api/v1/me/interview", map[string]any{"answers": []any{
		map[string]any{"question_id": q1, "answer": "Because spreadsheets hurt."}, map[string]any{"question_id": q2, "answer": "   "}}}, e.owner...)
	if r.Status != 200 {
		t.Fatalf("answer: %d %s", r.Status, r.Body)
	}
	l := e.Do("GET", "/api/v1/listings/quickbase", nil)
	// One answer (the first question's; the blank one is not published).
	if !strings.Contains(string(l.Body), `"interview":[{"question":`) || !strings.Contains(string(l.Body), `"answer":"Because spreadsheets hurt."}],"community_rating"`) {
		t.Fatalf("listing: %s", l.Body)
	}
	if r := e.Do("GET", "/api/v1/listings/rankrocket", nil); !strings.Contains(string(r.Body), `"interview":[]`) {
		t.Fatalf("another owner's listing: %s", r.Body)
	}
	if f := e.Do("GET", "/api/v1/founders/ada-lovelace", nil); !strings.Contains(string(f.Body), "Because spreadsheets hurt.") {
		t.Fatalf("founder profile: %s", f.Body)
	}
	if pg := page("/listings/quickbase"); !strings.Contains(pg, `<h2 id="interview">Founder interview</h2>`) || !strings.Contains(pg, "<p>Because spreadsheets hurt.</p>") {
		t.Fatalf("listing page lacks the interview")
	}
	if pg := page("/founders/ada-lovelace"); !strings.Contains(pg, "<p>Because spreadsheets hurt.</p>") {
		t.Fatalf("founder page lacks the interview")
	}
}

// Line endings are normalised on input: the same text saved from a form
// (CRLF) and through the API (LF) is one value, and saving it again records
// no change for the site team.
func TestCRLFIsNotAChange(t *testing.T) {
	e := newOwnerEnv(t)
	revs := func() string { return e.scalar(t, `SELECT count(*) FROM revisions WHERE listing_id = 1`) }
	e.Do("PATCH", "/api/v1/me/listings/1", map[string]any{"fields": map[string]any{"description": "First line.\nSecond line."}}, e.owner...)
	n := revs()
	r := e.Do("PATCH", "/api/v1/me/listings/1", map[string]any{"fields": map[string]any{"description": "First line.\r\nSecond line."}}, e.owner...)
	if r.Status != 200 || revs() != n {
		t.Fatalf("CRLF save: %d, revisions %s → %s", r.Status, n, revs())
	}
	if d := e.scalar(t, `SELECT description FROM listings WHERE id = 1`); d != "First line.\nSecond line." {
		t.Fatalf("stored: %q", d)
	}
	e.Do("PUT", "/api/v1/me/listings/1/story", map[string]any{"title": "T", "story": "a\r\nb\rc"}, e.owner...)
	if s := e.scalar(t, `SELECT story FROM stories WHERE listing_id = 1`); s != "a\nb\nc" {
		t.Fatalf("story: %q", s)
	}
}
