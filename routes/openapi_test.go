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
		if op.Scope != "" && (len(d.Security) == 0 || d.Security[0]["bearer"][0] != op.Scope) {
			t.Errorf("%s security %v, want scope %s", op.ID, d.Security, op.Scope)
		}
		if _, ok := d.Responses["400"]; !ok {
			t.Errorf("%s lacks the 400 problem response", op.ID)
		}
	}
	if seen != len(e.App.Table.Ops) || seen != 41 {
		t.Errorf("documented %d of %d operations (spec has 41)", seen, len(e.App.Table.Ops))
	}
	// Spot-check bounds from the spec made it into the document.
	for _, want := range []string{`"maximum":1000`, `"maximum":100`, `"maxLength":200`, `"maxLength":2048`, `"maxItems":20`,
		`"maximum":100000000`, `"maxItems":30`, `"maxLength":4000`} {
		if !strings.Contains(string(r.Body), strings.ReplaceAll(want, ":", ": ")) {
			t.Errorf("document lacks %s", want)
		}
	}
}

func schemaEqual(a, b any) bool {
	ja, _ := json.Marshal(a)
	jb, _ := json.Marshal(b)
	return string(ja) == string(jb)
}
