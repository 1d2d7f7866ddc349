package routes_test

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"testing"

	"launchdir/apitest"
	"launchdir/app"
	"launchdir/demo"
)

// TestDemoDirectoryMatchesDocument reads the whole demo directory through
// every public operation; apitest validates each response against the
// OpenAPI document, so the demo's real variety (empty fields, missing logos,
// listings without founders, every board and section) is checked too.
func TestDemoDirectoryMatchesDocument(t *testing.T) {
	if testing.Short() {
		t.Skip("builds the demo directory")
	}
	e := apitest.New(t, apitest.Options{Setup: func(a *app.App) {
		if err := demo.Generate(context.Background(), a.DB, demo.Options{Seed: 1, Now: apitest.Now, BaseURL: a.Cfg.BaseURL}); err != nil {
			t.Fatal(err)
		}
	}})
	list := func(path, key string) []string {
		t.Helper()
		var out []string
		for page := 1; ; page++ {
			sep := "?"
			if strings.Contains(path, "?") {
				sep = "&"
			}
			r := e.Do("GET", fmt.Sprintf("/api/v1%s%sper_page=100&page=%d", path, sep, page), nil)
			var p struct {
				Items []map[string]any `json:"items"`
				Total int              `json:"total"`
			}
			if r.Status != 200 || json.Unmarshal(r.Body, &p) != nil {
				t.Fatalf("%s: %d %s", path, r.Status, r.Body)
			}
			for _, it := range p.Items {
				out = append(out, it[key].(string))
			}
			if len(out) >= p.Total || len(p.Items) == 0 {
				return out
			}
		}
	}
	get := func(path string) {
		t.Helper()
		if r := e.Do("GET", "/api/v1"+path, nil); r.Status != 200 {
			t.Errorf("%s: %d %s", path, r.Status, r.Body)
		}
	}
	slugs := list("/listings", "slug")
	if len(slugs) < 200 {
		t.Fatalf("demo has %d live listings", len(slugs))
	}
	for i, s := range slugs {
		get("/listings/" + s)
		if i%10 == 0 {
			get("/listings/" + s + "/alternatives")
			get("/listings/" + s + "/badges?shape=pill&mode=dark&size=l")
			get("/compare?a=" + s + "&b=" + slugs[(i+1)%len(slugs)])
		}
	}
	list("/listings?status=upcoming", "slug")
	for _, s := range list("/founders", "slug") {
		get("/founders/" + s)
	}
	for _, s := range list("/blog", "slug") {
		get("/blog/" + s)
	}
	for _, s := range list("/categories", "slug") {
		get("/categories/" + s)
	}
	for _, b := range []string{"community-weekly", "community-all-time", "billboard", "domain-rating", "revenue"} {
		get("/leaderboards/" + b)
	}
	for _, s := range []string{"today", "this-week", "trending", "most-voted", "recent", "most-viewed", "most-followed", "upcoming"} {
		get("/launches?section=" + s)
	}
	for _, w := range []string{"this", "last", "next", "2026-09-01", "2026-10-15"} {
		get("/launches/weeks/" + w)
	}
	for _, p := range []string{"/site", "/awards?per_page=100", "/interview-questions", "/products"} {
		get(p)
	}
}
