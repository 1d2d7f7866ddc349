package ops

import (
	"encoding/json"
	"reflect"
	"strings"
	"testing"
)

type testInner struct {
	Name string `json:"name"`
}

type testPage[T any] struct {
	Items []T `json:"items"`
}

type testOut struct {
	testInner
	Status string     `json:"status" enum:"a,b" doc:"The status."`
	When   *string    `json:"when" format:"date"`
	Maybe  *testInner `json:"maybe,omitempty"`
	Ref    *testInner `json:"ref"`
	Tags   []string   `json:"tags" enum:"x,y"`
	Hidden string     `json:"-"`
	Page   testPage[testInner]
}

func js(v any) string { b, _ := json.Marshal(v); return string(b) }

func TestReflector(t *testing.T) {
	r := NewReflector("#/components/schemas/")
	root := r.Schema(reflect.TypeFor[testOut]())
	if js(root) != `{"$ref":"#/components/schemas/testOut"}` {
		t.Fatalf("root %s", js(root))
	}
	o := r.Defs["testOut"]
	props := o["properties"].(map[string]any)
	for name, want := range map[string]string{
		"name":   `{"type":"string"}`, // embedded struct flattened
		"status": `{"description":"The status.","enum":["a","b"],"type":"string"}`,
		"when":   `{"anyOf":[{"format":"date","type":"string"},{"type":"null"}]}`, // nullable without a type array
		"maybe":  `{"$ref":"#/components/schemas/testInner"}`,                     // omitempty pointer: optional, never null
		"ref":    `{"anyOf":[{"$ref":"#/components/schemas/testInner","type":"object"},{"type":"null"}]}`,
		"tags":   `{"items":{"enum":["x","y"],"type":"string"},"type":"array"}`,
		"Page":   `{"$ref":"#/components/schemas/TestInnertestPage"}`,
	} {
		if got := js(props[name]); got != want {
			t.Errorf("%s = %s, want %s", name, got, want)
		}
	}
	if _, ok := props["Hidden"]; ok {
		t.Error("json:\"-\" field documented")
	}
	if got := js(o["required"]); got != `["Page","name","ref","status","tags","when"]` {
		t.Errorf("required %s", got)
	}
	if o["additionalProperties"] != false {
		t.Error("objects must be closed")
	}
	s := js(Standalone(reflect.TypeFor[testOut]()))
	if !strings.HasPrefix(s, `{"$defs":{`) || !strings.Contains(s, `"$ref":"#/$defs/testInner"`) || strings.Contains(s, "components") {
		t.Errorf("standalone %s", s)
	}
}

func TestFillPath(t *testing.T) {
	got := FillPath("/orders/{number}/x/{id}", []byte(`{"number":"LD-2026-000001","id":42}`))
	if got != "/orders/LD-2026-000001/x/42" {
		t.Errorf("FillPath = %s", got)
	}
}
