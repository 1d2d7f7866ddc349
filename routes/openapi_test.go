package routes_test

import (
	"encoding/json"
	"regexp"
	"strings"
	"testing"

	"launchdir/apitest"
	"launchdir/ops"
)

// The OpenAPI document is generated from the operations table; this checks
// the two agree operation by operation, bounds included.
func TestOpenAPIMatchesOperationsTable(t *testing.T) {
	e := apitest.New(t, apitest.Options{})
	r := e.Do("GET", "/api/v1/openapi.json", nil)
	if r.Status != 200 || r.Header.Get("ETag") == "" {
		t.Fatalf("openapi: %d", r.Status)
	}
	var doc struct {
		OpenAPI string `json:"openapi"`
		Info    struct{ Version string }
		Paths   map[string]map[string]struct {
			OperationID string           `json:"operationId"`
			Parameters  []map[string]any `json:"parameters"`
			RequestBody *struct {
				Content map[string]struct{ Schema map[string]any } `json:"content"`
			} `json:"requestBody"`
			Security  []map[string][]string `json:"security"`
			Responses map[string]any        `json:"responses"`
		}
	}
	if err := json.Unmarshal(r.Body, &doc); err != nil {
		t.Fatal(err)
	}
	if doc.OpenAPI != "3.1.0" || doc.Info.Version != "1.0.0" {
		t.Fatalf("openapi %s version %s", doc.OpenAPI, doc.Info.Version)
	}
	param := regexp.MustCompile(`:([a-z_]+)`)
	seen := 0
	for _, op := range e.App.Table.Ops {
		p := param.ReplaceAllString(op.Path, "{$1}")
		d, ok := doc.Paths[p][strings.ToLower(op.Method)]
		if !ok || d.OperationID != op.ID {
			t.Errorf("%s: %s %s missing or named %q", op.ID, op.Method, p, d.OperationID)
			continue
		}
		seen++
		for _, want := range op.AllParams() {
			found := false
			for _, got := range d.Parameters {
				if got["name"] == want.Name {
					found = true
					if !schemaEqual(got["schema"], ops.JSONSchema(want.Schema)) {
						t.Errorf("%s param %s schema differs", op.ID, want.Name)
					}
				}
			}
			if !found {
				t.Errorf("%s lacks parameter %s", op.ID, want.Name)
			}
		}
		if op.Body != nil {
			if d.RequestBody == nil || !schemaEqual(d.RequestBody.Content["application/json"].Schema, ops.JSONSchema(op.Body)) {
				t.Errorf("%s body schema differs", op.ID)
			}
		}
		if op.Scope != "" && (len(d.Security) != 2 || len(d.Security[1]["oauth2"]) != 1 || d.Security[1]["oauth2"][0] != op.Scope) {
			t.Errorf("%s security %v, want scope %s", op.ID, d.Security, op.Scope)
		}
		if _, ok := d.Responses["400"]; !ok {
			t.Errorf("%s lacks the 400 problem response", op.ID)
		}
	}
	// The contract's 41 operations, the owner operations it lacked (issue
	// 23: delete_draft, archive_my_listing, update_listing_update,
	// delete_listing_update, remove_co_owner, transfer_ownership,
	// set_alternatives, set_category_attributes, cancel_order), issue 22's
	// 17 (comments, notification settings, invoice, webhooks) and issue
	// 21's 6 image operations.
	// Issue 24's 8 (sites and a listing's sites).
	if seen != len(e.App.Table.Ops) || seen != 41+9+17+6+10 {
		t.Errorf("documented %d of %d operations (want 41+9+17+6+10)", seen, len(e.App.Table.Ops))
	}
}

// The table's bounds against the numbers written in the spec (sections 2,
// 4 and 8); the document is generated from the table (checked above).
func TestTableBoundsMatchSpec(t *testing.T) {
	e := apitest.New(t, apitest.Options{})
	for _, c := range []struct {
		op, field, bound string
		want             int64
	}{
		{"search_listings", "q", "maxLength", 200}, {"search_listings", "page", "maximum", 1000}, {"search_listings", "page", "minimum", 1},
		{"search_listings", "per_page", "maximum", 100}, {"search_listings", "per_page", "minimum", 1},
		{"search_listings", "domain", "maxLength", 253}, {"search_listings", "pricing_model", "maxLength", 40},
		{"search_listings", "country", "maxLength", 2}, {"list_founders", "q", "maxLength", 120}, {"list_blog_posts", "q", "maxLength", 200},
		{"get_launch_week", "week", "maxLength", 10}, {"get_leaderboard", "week", "maxLength", 10}, {"get_listing", "slug", "maxLength", 220},
		{"submit_listing", "url", "maxLength", 2048}, {"update_draft", "fields.name", "maxLength", 500},
		{"update_draft", "fields.description", "maxLength", 20000}, {"update_draft", "fields.features", "maxItems", 20},
		{"update_draft", "fields.tags[]", "maxLength", 200}, {"update_draft", "lock_fields", "maxItems", 20},
		{"update_draft", "regenerate", "maxItems", 5}, {"update_draft", "restore", "maxItems", 20}, {"update_draft", "faqs", "maxItems", 5},
		{"update_draft", "faqs[].question", "maxLength", 300}, {"update_draft", "faqs[].answer", "maxLength", 1500},
		{"update_draft", "founders", "maxItems", 6}, {"update_draft", "founders[].name", "maxLength", 160},
		{"update_draft", "founders[].bio", "maxLength", 3000}, {"update_draft", "milestones", "maxItems", 50},
		{"update_draft", "milestones[].description", "maxLength", 2000}, {"update_draft", "competitor_url", "maxLength", 2048},
		{"update_draft", "seo.title", "maxLength", 70}, {"update_draft", "seo.meta", "maxLength", 170},
		{"update_draft", "story.title", "maxLength", 8000}, {"invite_cofounder", "email", "maxLength", 254},
		{"update_my_listing", "fields.tagline", "maxLength", 200}, {"update_my_listing", "fields.short_description", "maxLength", 300},
		{"update_my_listing", "fields.seo_description", "maxLength", 320}, {"update_my_listing", "fields.founded_year", "minimum", 1800},
		{"update_my_listing", "fields.founded_year", "maximum", 2100}, {"update_my_listing", "fields.contact_email", "maxLength", 254},
		{"update_my_listing", "apply_to", "maxItems", 60}, {"update_my_listing", "apply_to[]", "maxLength", 40},
		{"update_my_listing", "faqs", "maxItems", 10}, {"update_my_listing", "fields.city", "maxLength", 120},
		{"post_listing_update", "title", "maxLength", 200}, {"post_listing_update", "body", "maxLength", 5000},
		{"add_milestone", "title", "maxLength", 200}, {"add_milestone", "url", "maxLength", 500},
		{"set_founder_story", "title", "maxLength", 200}, {"set_founder_story", "lessons", "maxLength", 8000},
		{"answer_interview", "answers", "maxItems", 30}, {"answer_interview", "answers[].answer", "maxLength", 4000},
		{"claim_listing", "slug", "maxLength", 220}, {"claim_listing", "email", "maxLength", 254},
		{"quote_order", "items", "maxItems", 20}, {"quote_order", "items", "minItems", 1}, {"quote_order", "items[].product", "maxLength", 60},
		{"quote_order", "items[].amount_cents", "maximum", 100000000}, {"quote_order", "items[].amount_cents", "minimum", 1},
		{"quote_order", "items[].categories", "maxItems", 10}, {"quote_order", "items[].options", "maxProperties", 20},
		{"quote_order", "items[].week", "maxLength", 10}, {"quote_order", "vat_number", "maxLength", 32},
		{"quote_order", "promo_code", "maxLength", 40}, {"create_checkout", "items", "maxItems", 20},
	} {
		op := e.App.Table.Get(c.op)
		if op == nil {
			t.Errorf("no operation %s", c.op)
			continue
		}
		s := find(op.InputSchema(), c.field)
		if s == nil {
			t.Errorf("%s has no input %s", c.op, c.field)
			continue
		}
		js := ops.JSONSchema(s)
		if alts, ok := js["anyOf"].([]any); ok { // nullable: the non-null branch
			js = alts[0].(map[string]any)
		}
		got, _ := js[c.bound].(int64)
		if n, ok := js[c.bound].(int); ok {
			got = int64(n)
		}
		if got != c.want {
			t.Errorf("%s %s %s = %d, spec says %d", c.op, c.field, c.bound, got, c.want)
		}
	}
}

// find walks a dotted path through object properties; "x[]" is the item
// schema of array x.
func find(s *ops.Schema, path string) *ops.Schema {
	for _, part := range strings.Split(path, ".") {
		name, item := strings.CutSuffix(part, "[]")
		p := s.Prop(name)
		if p == nil {
			return nil
		}
		s = p.Schema
		if item {
			s = s.Items
		}
		if s == nil {
			return nil
		}
	}
	return s
}

func schemaEqual(a, b any) bool {
	ja, _ := json.Marshal(a)
	jb, _ := json.Marshal(b)
	return string(ja) == string(jb)
}

// Every operation's tag is one of the document's declared tags (Spectral's
// operation-tag-defined), so a domain that adds a tag declares it here.
func TestOpenAPITagsDeclared(t *testing.T) {
	e := apitest.New(t, apitest.Options{})
	var doc struct {
		Tags  []struct{ Name string } `json:"tags"`
		Paths map[string]map[string]struct {
			OperationID string   `json:"operationId"`
			Tags        []string `json:"tags"`
		} `json:"paths"`
	}
	if err := json.Unmarshal(e.Do("GET", "/api/v1/openapi.json", nil).Body, &doc); err != nil {
		t.Fatal(err)
	}
	declared := map[string]bool{}
	for _, tg := range doc.Tags {
		declared[tg.Name] = true
	}
	for p, methods := range doc.Paths {
		for m, op := range methods {
			for _, tg := range op.Tags {
				if !declared[tg] {
					t.Errorf("%s %s (%s) has tag %q, not declared in the document's tags", m, p, op.OperationID, tg)
				}
			}
		}
	}
}
