package mcp_test

import (
	"encoding/json"
	"fmt"
	"strings"
	"testing"
	"time"

	"launchdir/apitest"
	"launchdir/mcp"
	"launchdir/testsite"
)

// TestDraftPatchSemanticsAfterSubmit: once a draft is submitted, an
// update_draft changes on the draft and on its listing exactly what it
// sends, through REST and MCP alike: the SEO title set later on the listing
// survives a draft patch of the meta description, a story patch of the
// title keeps the story text (and sections the owner wrote through
// set_founder_story), a founders list sent without socials keeps the
// founders' links ({} clears them), and a field patch leaves other fields.
func TestDraftPatchSemanticsAfterSubmit(t *testing.T) {
	e := apitest.New(t, apitest.Options{Fixture: true, Background: true})
	mcp.Mount(e.Routes, e.App)
	key := e.APIKey("owner@example.com")
	owner := apitest.Bearer(key)
	cs := connect(t, e, conn{hdr: bearer(key)})
	site := testsite.Serve(t, "acme-analytics", nil)

	// newListing drafts and submits the test site; it returns the draft id
	// and the listing id.
	newListing := func() (string, int64) {
		t.Helper()
		r := e.Do("POST", "/api/v1/drafts", map[string]any{"url": site.URL + "/"}, owner...)
		id, _ := r.JSON()["id"].(string)
		for deadline := time.Now().Add(20 * time.Second); ; time.Sleep(50 * time.Millisecond) {
			if st, _ := e.Do("GET", "/api/v1/drafts/"+id, nil, owner...).JSON()["status"].(string); st == "ready" {
				break
			} else if time.Now().After(deadline) || st == "failed" {
				t.Fatalf("draft %s: %s", id, st)
			}
		}
		r = e.Do("POST", "/api/v1/drafts/"+id+"/submit", nil, owner...)
		lid, _ := r.JSON()["listing_id"].(float64)
		if r.Status != 200 || lid == 0 {
			t.Fatalf("submit: %d %s", r.Status, r.Body)
		}
		return id, int64(lid)
	}
	doors := map[string]func(id string, body map[string]any){
		"rest": func(id string, body map[string]any) {
			t.Helper()
			if r := e.Do("PATCH", "/api/v1/drafts/"+id, body, owner...); r.Status != 200 {
				t.Fatalf("PATCH %v: %d %s", body, r.Status, r.Body)
			}
		},
		"mcp": func(id string, body map[string]any) {
			t.Helper()
			args := map[string]any{"id": id}
			for k, v := range body {
				args[k] = v
			}
			if res := call(t, cs, "update_draft", args); res.IsError {
				t.Fatalf("update_draft %v: %s", body, text(res))
			}
		},
	}
	scalar := func(q string, args ...any) string {
		t.Helper()
		var s string
		if err := e.DB.W.QueryRow(q, args...).Scan(&s); err != nil {
			t.Fatalf("%s: %v", q, err)
		}
		return s
	}
	draftFounders := func(id string) string {
		b, _ := json.Marshal(e.Do("GET", "/api/v1/drafts/"+id, nil, owner...).JSON()["founders"])
		return string(b)
	}
	cases := []struct {
		name  string
		steps func(id string, lid int64, patch func(map[string]any))
		query string // read from the listing (?1 = listing id)
		want  string
	}{
		{"seo meta keeps the listing's seo title", func(id string, lid int64, patch func(map[string]any)) {
			patch(map[string]any{"seo": map[string]any{"title": "Draft SEO", "meta": "Draft meta"}})
			if r := e.Do("PATCH", fmt.Sprintf("/api/v1/me/listings/%d", lid), map[string]any{"fields": map[string]any{"seo_title": "Owner SEO"}}, owner...); r.Status != 200 {
				t.Fatalf("update_my_listing: %d %s", r.Status, r.Body)
			}
			patch(map[string]any{"seo": map[string]any{"meta": "New meta"}})
		}, `SELECT seo_title || ' | ' || seo_description FROM listings WHERE id = ?1`, "Owner SEO | New meta"},

		{"story title keeps the story text and the owner's sections", func(id string, lid int64, patch func(map[string]any)) {
			patch(map[string]any{"story": map[string]any{"title": "First title", "story": "The whole story."}})
			if r := e.Do("PUT", fmt.Sprintf("/api/v1/me/listings/%d/story", lid), map[string]any{"title": "First title",
				"story": "The whole story.", "why_started": "Owner's why."}, owner...); r.Status != 200 {
				t.Fatalf("set_founder_story: %d %s", r.Status, r.Body)
			}
			patch(map[string]any{"story": map[string]any{"title": "Better title"}})
		}, `SELECT title || ' | ' || story || ' | ' || why_started FROM stories WHERE listing_id = ?1`, "Better title | The whole story. | Owner's why."},

		{"story section cleared by an empty string", func(id string, lid int64, patch func(map[string]any)) {
			patch(map[string]any{"story": map[string]any{"title": "T", "story": "Text", "lessons": "Some"}})
			patch(map[string]any{"story": map[string]any{"lessons": ""}})
		}, `SELECT title || ' | ' || story || ' | ' || lessons FROM stories WHERE listing_id = ?1`, "T | Text | "},

		{"founders without socials keep their links", func(id string, lid int64, patch func(map[string]any)) {
			patch(map[string]any{"founders": []any{map[string]any{"name": "Inês Carvalho", "title": "CEO",
				"socials": map[string]any{"linkedin": "https://www.linkedin.com/in/ines"}}}})
			patch(map[string]any{"founders": []any{map[string]any{"name": "Inês Carvalho", "title": "Founder & CEO"}}})
			if f := draftFounders(id); !strings.Contains(f, "linkedin.com/in/ines") || !strings.Contains(f, "Founder \\u0026 CEO") {
				t.Errorf("draft founders after the patch: %s", f)
			}
		}, `SELECT f.title || ' | ' || f.socials FROM founders f JOIN listing_founders lf ON lf.founder_id = f.id WHERE lf.listing_id = ?1`,
			`Founder & CEO | {"linkedin":"https://www.linkedin.com/in/ines"}`},

		{"founders with empty socials clear them", func(id string, lid int64, patch func(map[string]any)) {
			patch(map[string]any{"founders": []any{map[string]any{"name": "Bo", "socials": map[string]any{"github": "https://github.com/bo"}}}})
			patch(map[string]any{"founders": []any{map[string]any{"name": "Bo", "socials": map[string]any{}}}})
		}, `SELECT f.name || ' | ' || f.socials FROM founders f JOIN listing_founders lf ON lf.founder_id = f.id WHERE lf.listing_id = ?1`, `Bo | {}`},

		{"a field patch leaves other fields", func(id string, lid int64, patch func(map[string]any)) {
			patch(map[string]any{"fields": map[string]any{"city": "Porto", "tagline": "Kept tagline"}})
			patch(map[string]any{"fields": map[string]any{"city": "Lisbon"}})
		}, `SELECT city || ' | ' || tagline FROM listings WHERE id = ?1`, "Lisbon | Kept tagline"},
	}
	for _, door := range []string{"rest", "mcp"} {
		for _, c := range cases {
			t.Run(door+"/"+c.name, func(t *testing.T) {
				id, lid := newListing()
				c.steps(id, lid, func(body map[string]any) { doors[door](id, body) })
				if got := scalar(c.query, lid); got != c.want {
					t.Errorf("%s: %q, want %q", c.name, got, c.want)
				}
			})
		}
	}
}
