package routes_test

import (
	"bytes"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"launchdir/apitest"
)

var update = flag.Bool("update", false, "rewrite testdata/openapi.golden.json")

// TestOpenAPIGolden snapshots the served document, so every shape change
// shows in review. Regenerate with: go test ./routes -run TestOpenAPIGolden -update
func TestOpenAPIGolden(t *testing.T) {
	e := apitest.New(t, apitest.Options{})
	got := bytes.ReplaceAll(e.Routes.OpenAPIDocument(), []byte(e.URL), []byte("https://launchdir.example"))
	got = append(got, '\n')
	file := filepath.Join("testdata", "openapi.golden.json")
	if *update {
		if err := os.MkdirAll("testdata", 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(file, got, 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(file)
	if err != nil {
		t.Fatalf("%v (create it with: go test ./routes -run TestOpenAPIGolden -update)", err)
	}
	if !bytes.Equal(got, want) {
		t.Fatalf("the OpenAPI document differs from %s (if intended, run: go test ./routes -run TestOpenAPIGolden -update)\n%s", file, firstDiff(string(want), string(got)))
	}
}

// firstDiff shows the first differing lines with a little context.
func firstDiff(a, b string) string {
	al, bl := strings.Split(a, "\n"), strings.Split(b, "\n")
	for i := 0; i < len(al) || i < len(bl); i++ {
		if i < len(al) && i < len(bl) && al[i] == bl[i] {
			continue
		}
		var out strings.Builder
		for j := max(0, i-3); j < i+5; j++ {
			if j < len(al) && (j >= len(bl) || al[j] != bl[j]) {
				fmt.Fprintf(&out, "-%d: %s\n", j+1, al[j])
			}
			if j < len(bl) && (j >= len(al) || al[j] != bl[j]) {
				fmt.Fprintf(&out, "+%d: %s\n", j+1, bl[j])
			} else if j < len(al) && j < len(bl) {
				fmt.Fprintf(&out, " %d: %s\n", j+1, al[j])
			}
		}
		return out.String()
	}
	return ""
}
