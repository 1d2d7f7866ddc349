package ops

import (
	"encoding/json"
	"strings"
	"testing"
)

func decode(t *testing.T, s string) any {
	t.Helper()
	dec := json.NewDecoder(strings.NewReader(s))
	dec.UseNumber()
	var v any
	if err := dec.Decode(&v); err != nil {
		t.Fatal(err)
	}
	return v
}

func TestValidateBounds(t *testing.T) {
	s := Obj(
		R("name", Str(3).Min1()),
		P("n", Int(1, 10)),
		P("tags", Arr(Str(2), 2)),
		P("year", Int(1800, 2100).OrNull()),
		P("links", Map(Str(10), "x", "github")),
		P("kind", Enum("a", "b")),
		P("when", Str(10).Fmt("date")),
		P("mail", Str(254).Fmt("email")),
	)
	cases := map[string]string{ // body -> first bad field ("" = valid)
		`{"name":"abc","n":1,"tags":["ab","cd"],"year":null}`: "",
		`{"name":"abc","n":10,"year":2100,"kind":"b"}`:        "",
		`{"name":"abcd"}`:                          "name",
		`{"name":""}`:                              "name",
		`{}`:                                       "name",
		`{"name":"a","n":0}`:                       "n",
		`{"name":"a","n":11}`:                      "n",
		`{"name":"a","n":1.5}`:                     "n",
		`{"name":"a","n":"1"}`:                     "n",
		`{"name":"a","tags":["a","b","c"]}`:        "tags",
		`{"name":"a","tags":["abc"]}`:              "tags[0]",
		`{"name":"a","year":1799}`:                 "year",
		`{"name":"a","links":{"myspace":"u"}}`:     "links.myspace",
		`{"name":"a","links":{"x":"01234567890"}}`: "links.x",
		`{"name":"a","kind":"c"}`:                  "kind",
		`{"name":"a","when":"2026-02-30"}`:         "when",
		`{"name":"a","mail":"nope"}`:               "mail",
		`{"name":"a","mail":"` + strings.Repeat("a", 64) + `@x.example"}`: "",
		`{"name":"a","mail":"` + strings.Repeat("a", 65) + `@x.example"}`: "mail",
		`{"name":"a","mail":"a@` + strings.Repeat("b", 64) + `.example"}`: "mail",
		`{"name":"a","extra":1}`: "extra",
		`{"name":null}`:          "name",
	}
	for body, want := range cases {
		_, errs := Validate(s, decode(t, body), "")
		got := ""
		if len(errs) > 0 {
			got = errs[0].Field
		}
		if got != want {
			t.Errorf("%s: first error %q (%v), want %q", body, got, errs, want)
		}
	}
}

func TestValidateNormalisesIntegers(t *testing.T) {
	out, errs := Validate(Obj(P("n", Int(1, 5))), decode(t, `{"n":3.0}`), "")
	if len(errs) > 0 || out.(map[string]any)["n"] != int64(3) {
		t.Fatalf("out %v errs %v", out, errs)
	}
}

func TestCodeStatusTable(t *testing.T) {
	for code, status := range map[Code]int{CodeInvalid: 400, CodeUnauthorized: 401, CodeForbidden: 403, CodeNotFound: 404,
		CodeConflict: 409, CodeIdemMismatch: 422, CodeRateLimited: 429, CodeInternal: 500, Code("unknown"): 500} {
		if code.Status() != status {
			t.Errorf("%s -> %d, want %d", code, code.Status(), status)
		}
	}
}
