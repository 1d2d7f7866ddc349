package site_test

import (
	"context"
	"strings"
	"testing"

	"launchdir/apitest"
	"launchdir/app/admin"
	"launchdir/site"
)

// fixtureSite is the website over the small test fixture (fast to build).
func fixtureSite(t *testing.T) *apitest.Env {
	t.Helper()
	e := apitest.New(t, apitest.Options{Fixture: true})
	if _, err := site.Mount(e.Routes, e.App, nil); err != nil {
		t.Fatal(err)
	}
	return e
}

// A Domain Rating CSV imported by the site team shows on the board page
// with its source and date.
func TestImportedDomainRatingOnTheBoardPage(t *testing.T) {
	e := fixtureSite(t)
	ctx := context.Background()
	u, _ := e.App.People.CreateUser(ctx, "admin@example.com", "", "")
	e.App.Admin.SetAdmin(ctx, "admin@example.com", true)
	_, err := e.App.Admin.ApplyImport(ctx, u.ID, admin.ImportRequest{Kind: admin.ImportDomainRating, Source: "Ahrefs export", AsOf: "2026-11-15",
		CSV: []byte("slug,domain_rating\ntablely,91\n")})
	if err != nil {
		t.Fatal(err)
	}
	r := e.Do("GET", "/leaderboards/domain-rating", nil)
	body := string(r.Body)
	i := strings.Index(body, "Tablely")
	if r.Status != 200 || i < 0 || !strings.Contains(body[i:], "Ahrefs export, as of 15 Nov 2026") {
		t.Fatalf("board page: %d %s", r.Status, body)
	}
}
