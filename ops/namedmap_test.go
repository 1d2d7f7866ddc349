package ops

import (
	"reflect"
	"testing"
)

type testLinks map[string]string

type testHolder struct {
	A testLinks         `json:"a"`
	B testLinks         `json:"b"`
	C map[string]string `json:"c"`
}

// A named map type is one definition referenced from every use (code
// generators name inline schemas after their parents, which can clash);
// an unnamed map stays inline.
func TestNamedMapIsOneDefinition(t *testing.T) {
	r := NewReflector("#/components/schemas/")
	r.Schema(reflect.TypeFor[testHolder]())
	props := r.Defs["testHolder"]["properties"].(map[string]any)
	for _, k := range []string{"a", "b"} {
		if ref := props[k].(map[string]any)["$ref"]; ref != "#/components/schemas/testLinks" {
			t.Fatalf("%s: %v", k, props[k])
		}
	}
	if _, inline := props["c"].(map[string]any)["additionalProperties"]; !inline {
		t.Fatalf("c: %v", props["c"])
	}
	if d := r.Defs["testLinks"]; d["type"] != "object" || d["additionalProperties"].(map[string]any)["type"] != "string" {
		t.Fatalf("definition %v", d)
	}
}
