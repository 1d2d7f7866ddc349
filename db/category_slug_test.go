package db

import (
	"database/sql"
	"errors"
	"reflect"
	"testing"
)

// CategoryBySlug reads one category's rows, and must give exactly the
// value its place in the whole tree (Categories) has: attributes,
// subcategories in their order, a subcategory's parent, and no answer for
// a category deeper than the tree shows.
func TestCategoryBySlugIsItsPlaceInTheTree(t *testing.T) {
	d, ctx := tempDB(t)
	if _, err := d.W.ExecContext(ctx, `INSERT INTO categories(id, slug, name, parent_id, position, attributes, description, live_count) VALUES
		(901, 'top-a', 'Top A', NULL, 2, '["price","seats"]', 'About A', 5), (902, 'top-b', 'Top B', NULL, 1, '[]', '', 0),
		(903, 'sub-a1', 'Sub A1', 901, 1, '["api"]', 'About A1', 3), (904, 'sub-a0', 'Sub A0', 901, 0, '[]', '', 2),
		(905, 'sub-a3', 'Same place', 901, 1, '[]', '', 0), (906, 'deep', 'Deep', 903, 0, '[]', '', 0)`); err != nil {
		t.Fatal(err)
	}
	tree, err := d.Categories(ctx)
	if err != nil {
		t.Fatal(err)
	}
	var checked int
	var check func(cs []Category)
	check = func(cs []Category) {
		for _, want := range cs {
			got, err := d.CategoryBySlug(ctx, want.Slug)
			if err != nil || !reflect.DeepEqual(*got, want) {
				t.Errorf("%s: got %+v (%v), want %+v", want.Slug, got, err, want)
			}
			checked++
			check(want.Subcategories)
		}
	}
	check(tree)
	if checked != 5 { // two top categories, three subcategories; not "deep"
		t.Fatalf("%d categories in the tree, want 5", checked)
	}
	if top, _ := d.CategoryBySlug(ctx, "top-a"); len(top.Subcategories) != 3 || top.Subcategories[0].Slug != "sub-a0" {
		t.Errorf("top-a's subcategories: %+v", top.Subcategories)
	}
	for _, slug := range []string{"deep", "no-such-category"} {
		if _, err := d.CategoryBySlug(ctx, slug); !errors.Is(err, sql.ErrNoRows) {
			t.Errorf("%s: %v, want no rows", slug, err)
		}
	}
}
