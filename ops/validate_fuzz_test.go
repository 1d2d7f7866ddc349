package ops

import (
	"bytes"
	"encoding/json"
	"strings"
	"testing"
)

// fuzzSchema exercises every schema feature: nesting, maps with key enums,
// nullables, formats, patterns, enums, bounds and a custom check.
func fuzzSchema() *Schema {
	item := Obj(
		R("week", Int(1, 53)),
		P("note", Str(20).OrNull()),
		P("id", Str(36).Fmt("uuid")),
	)
	return Obj(
		R("name", Str(3).Min1()),
		P("n", Int(1, 10)),
		P("big", IntMin(-5)),
		P("ratio", &Schema{Type: "number"}),
		P("ok", Bool()),
		P("tags", Arr(Str(2), 2)),
		P("year", Int(1800, 2100).OrNull()),
		P("links", Map(Str(10), "x", "github")),
		P("attrs", &Schema{Type: "object", Values: Str(50), MaxProps: 3}),
		P("kind", Enum("a", "b")),
		P("when", Str(10).Fmt("date")),
		P("mail", Str(254).Fmt("email")),
		P("slug", Pattern(`^[a-z0-9][a-z0-9-]{0,19}$`, 20)),
		P("items", Arr(item, 5).Min1()),
		P("matrix", Arr(Arr(Int(0, 9), 3), 3)),
		P("any", &Schema{Type: "whatever"}),
		P("checked", Str(30).Checked(func(v any) string {
			if s, _ := v.(string); strings.HasPrefix(s, "bad") {
				return "must not start with bad"
			}
			return ""
		})),
	)
}

// FuzzValidate feeds arbitrary JSON to Validate; it must never panic and
// must report errors for the field paths it cannot accept.
func FuzzValidate(f *testing.F) {
	for _, s := range []string{
		`{"name":"abc","n":1,"tags":["ab","cd"],"year":null}`,
		`{"name":"abc","n":10,"year":2100,"kind":"b"}`,
		`{"name":"a","n":1.5}`, `{"name":"a","n":3.0}`, `{"name":"a","n":1e400}`, `{"name":"a","n":-9223372036854775809}`,
		`{"name":"a","big":9007199254740993.0}`, `{"name":"a","ratio":1e999}`, `{"name":"a","ratio":-0}`,
		`{"name":"a","links":{"myspace":"u"}}`, `{"name":"a","attrs":{"a":"1","b":"2","c":"3","d":"4"}}`,
		`{"name":"a","when":"2026-02-30"}`, `{"name":"a","when":"0000-01-01"}`, `{"name":"a","mail":"a@b.c"}`,
		`{"name":"a","mail":"\"x y\"@b.c"}`, `{"name":"a","mail":"<a@b.c>"}`, `{"name":"a","slug":"ok-1"}`,
		`{"name":"a","items":[{"week":1,"note":null,"id":"123e4567-e89b-12d3-a456-426614174000"},{"week":"x"},null,[]]}`,
		`{"name":"a","matrix":[[1,2],[3,[4]],{}]}`, `{"name":"\u0000"}`, `{"name":"\ud800"}`, `{"name":"\u0085"}`,
		`{"name":"a","checked":"bad"}`, `{"name":"a","any":{"x":[1,2,{"y":null}]}}`, `null`, `[]`, `"x"`, `1`, `true`,
		`{"name":"a","extra":1,"":2}`, `{"name":"a","n":"1"}`, `{"name":"\xff"}`,
	} {
		f.Add([]byte(s))
	}
	schema := fuzzSchema()
	f.Fuzz(func(t *testing.T, body []byte) {
		dec := json.NewDecoder(bytes.NewReader(body))
		dec.UseNumber()
		var v any
		if err := dec.Decode(&v); err != nil {
			return
		}
		out, errs := Validate(schema, v, "")
		for _, e := range errs {
			if e.Field == "" || e.Message == "" {
				t.Fatalf("empty field error %+v", e)
			}
		}
		if len(errs) == 0 {
			if _, ok := out.(map[string]any); !ok {
				t.Fatalf("valid body gave %T", out)
			}
		}
		// Each property schema alone, with a field path, on the same value.
		for _, p := range schema.Props {
			_, _ = Validate(p.Schema, v, p.Name)
		}
	})
}
