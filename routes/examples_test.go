package routes_test

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"testing"

	"launchdir/apitest"
	"launchdir/app"
	"launchdir/demo"
)

// TestOpenAPIExamples regenerates routes/examples.json, the response
// examples of the public operations, from the demo directory (the same
// directory `go run .` serves): go test ./routes -run TestOpenAPIExamples -update.
// Without -update it checks the file is current. The examples are shortened
// (lists to 2 items, long texts cut) and validated against their schemas
// like every response (apitest), and by the Redocly lint in CI.
func TestOpenAPIExamples(t *testing.T) {
	if testing.Short() {
		t.Skip("builds the demo directory")
	}
	e := apitest.New(t, apitest.Options{Setup: func(a *app.App) {
		if err := demo.Generate(context.Background(), a.DB, demo.Options{Seed: 1, Now: apitest.Now, BaseURL: a.Cfg.BaseURL}); err != nil {
			t.Fatal(err)
		}
	}})
	get := func(path string) map[string]any {
		t.Helper()
		r := e.Do("GET", "/api/v1"+path, nil)
		if r.Status != 200 {
			t.Fatalf("GET %s: %d %s", path, r.Status, r.Body)
		}
		var m map[string]any
		if err := json.Unmarshal(bytes.ReplaceAll(r.Body, []byte(e.URL), []byte("https://launchdir.example")), &m); err != nil {
			t.Fatal(err)
		}
		return m
	}
	first := func(m map[string]any, key string) string {
		items, _ := m["items"].([]any)
		if len(items) == 0 {
			t.Fatalf("no items for %s", key)
		}
		return items[0].(map[string]any)[key].(string)
	}
	search := get("/listings?per_page=2")
	slug := first(search, "slug")
	second := search["items"].([]any)[1].(map[string]any)["slug"].(string)
	cats := get("/categories?per_page=2")
	founders := get("/founders?per_page=2")
	posts := get("/blog?per_page=2")
	ex := map[string]any{
		"get_site_info":            get("/site"),
		"search_listings":          search,
		"get_listing":              get("/listings/" + slug),
		"get_alternatives":         get("/listings/" + slug + "/alternatives?per_page=2"),
		"compare_listings":         get("/compare?a=" + slug + "&b=" + second),
		"list_categories":          cats,
		"get_category":             get("/categories/" + first(cats, "slug") + "?per_page=2"),
		"get_launch_week":          get("/launches/weeks/last?per_page=2"),
		"list_launches":            get("/launches?section=most-voted&per_page=2"),
		"get_leaderboard":          get("/leaderboards/community-weekly?week=last&per_page=2"),
		"list_founders":            founders,
		"get_founder":              get("/founders/" + first(founders, "slug")),
		"list_blog_posts":          posts,
		"get_blog_post":            get("/blog/" + first(posts, "slug")),
		"list_awards":              get("/awards?per_page=2"),
		"get_badges":               get("/listings/" + slug + "/badges"),
		"list_interview_questions": get("/interview-questions"),
		"list_products":            get("/products"),
	}
	for k, v := range ex {
		ex[k] = shorten(v)
	}
	got, err := json.MarshalIndent(ex, "", "  ")
	if err != nil {
		t.Fatal(err)
	}
	got = append(got, '\n')
	const file = "examples.json"
	if *update {
		if err := os.WriteFile(file, got, 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(got, want) {
		t.Fatalf("%s is not what the demo directory gives (if intended, run: go test ./routes -run TestOpenAPIExamples -update)\n%s", file, firstDiff(string(want), string(got)))
	}
}

// shorten keeps examples readable: lists of at most 2, texts of at most 240
// characters (URLs and dates are far shorter and stay intact).
func shorten(v any) any {
	switch x := v.(type) {
	case map[string]any:
		for k, e := range x {
			x[k] = shorten(e)
		}
	case []any:
		if len(x) > 2 {
			x = x[:2]
		}
		for i, e := range x {
			x[i] = shorten(e)
		}
		return x
	case string:
		if r := []rune(x); len(r) > 240 {
			return string(r[:239]) + "…"
		}
	}
	return v
}
