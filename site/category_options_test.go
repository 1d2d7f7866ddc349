package site_test

import (
	"testing"

	"launchdir/db"
	"launchdir/site"
)

// The search form's category menu, written in Go, is byte for byte what
// its template wrote: every selection, and names and slugs a template
// escapes (markup, quotes, ampersands, a plus, a NUL, non-ASCII).
func TestCategoryOptionsMatchTemplate(t *testing.T) {
	hostile := []string{`<script>alert(1)</script>`, `Tom & "Jerry's"`, "C++ tools", "zero\x00byte", "Café — déjà vu", `a=b` + "`x`"}
	var cats []db.Category
	for i, name := range hostile {
		c := db.Category{Slug: "top-" + string(rune('a'+i)), Name: name, LiveCount: int64(i * 1000)}
		c.Subcategories = []db.Category{{Slug: "sub-" + string(rune('a'+i)), Name: hostile[(i+1)%len(hostile)], LiveCount: 7}}
		if i == 2 {
			c.Slug = `"><b>slug`
		}
		cats = append(cats, c)
	}
	cats = append(cats, db.Category{Slug: "empty", Name: "No subcategories", Subcategories: []db.Category{}})
	for _, sel := range []string{"", "top-a", "sub-c", `"><b>slug`, "empty", "none"} {
		got, want, err := site.CategoryOptions(cats, sel)
		if err != nil {
			t.Fatal(err)
		}
		if got != want {
			t.Errorf("selected %q:\n got %s\nwant %s", sel, got, want)
		}
	}
}
