package routes_test

import (
	"database/sql"
	"fmt"
	"strings"
	"testing"
)

// TestEditAnswerKeepsOwnersAndCopiesCurrent: an owner edit's answer keeps
// the owners and the other sites' copies with the listing's other rows
// between group edits (owning.readOwnerRows, db.GetOwnerListingInEditWith).
// Whatever changes them shows in the next edit's answer, which stays
// byte for byte what GET /me/listings/{id} says: an edit's own apply_to,
// an owner renamed by a bare statement, a copy and a co-owner written by
// another connection.
func TestEditAnswerKeepsOwnersAndCopiesCurrent(t *testing.T) {
	e, key := sitesEnv(t)
	n := 0
	edit := func(extra map[string]any) string {
		t.Helper()
		n++
		body := map[string]any{"fields": map[string]any{"tagline": fmt.Sprintf("Tagline %d", n)}}
		for k, v := range extra {
			body[k] = v
		}
		r := e.Do("PATCH", "/api/v1/me/listings/1", body, key...)
		if r.Status != 200 {
			t.Fatalf("%d %s", r.Status, r.Body)
		}
		if got, want := string(r.Body), string(e.Do("GET", "/api/v1/me/listings/1", nil, key...).Body); got != want {
			t.Fatalf("edit answer differs from a read:\n%s\n%s", got, want)
		}
		return string(r.Body)
	}
	edit(nil)
	edit(nil) // from the kept rows
	got := edit(map[string]any{"fields": map[string]any{"headline": "Devtools headline"}, "apply_to": []string{"devtools"}})
	if !strings.Contains(got, `"site":"devtools","headline":"Devtools headline"`) {
		t.Fatalf("the edit's own copy for devtools is missing from its answer: %s", got)
	}
	if !strings.Contains(edit(nil), `"site":"devtools","headline":"Devtools headline"`) {
		t.Fatal("the devtools copy is missing from the next edit's answer")
	}
	if _, err := e.DB.W.Exec(`UPDATE users SET name = 'Owner Renamed In SQL' WHERE email = 'owner@example.com'`); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(edit(nil), "Owner Renamed In SQL") {
		t.Fatal("an owner renamed by a bare statement is missing from the next edit's answer")
	}
	other, err := sql.Open("sqlite", "file:"+e.DB.Path+"?_pragma=busy_timeout(5000)")
	if err != nil {
		t.Fatal(err)
	}
	defer other.Close()
	if _, err := other.Exec(`UPDATE listing_site_copy SET headline = 'Copy from another process' WHERE listing_id = 1 AND site_key = 'devtools'`); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(edit(nil), "Copy from another process") {
		t.Fatal("a copy written by another connection is missing from the next edit's answer")
	}
	if _, err := other.Exec(`INSERT INTO listing_owners(listing_id, user_id, role, created_at)
		SELECT 1, id, 'cofounder', '2026-11-18T12:00:00Z' FROM users WHERE email = 'other@example.com'`); err != nil {
		t.Fatal(err)
	}
	if got := edit(nil); strings.Count(got, `"role":"cofounder"`) != 1 {
		t.Fatalf("a co-owner added by another connection is missing from the next edit's answer: %s", got)
	}
}
