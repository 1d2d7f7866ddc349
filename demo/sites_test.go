package demo_test

import (
	"context"
	"io"
	"log/slog"
	"path/filepath"
	"slices"
	"testing"
	"time"

	"launchdir/app"
	"launchdir/app/kernel"
	"launchdir/db"
	"launchdir/demo"
)

// serve -demo-site devtools: a second directory over the demo's listings
// of the developer categories, with its own votes and so its own ranks;
// made once (a second start leaves it as it is).
func TestSecondDemoSite(t *testing.T) {
	ctx := context.Background()
	d, err := db.Open(ctx, filepath.Join(t.TempDir(), "demo.db"))
	if err != nil {
		t.Fatal(err)
	}
	defer d.Close()
	now := time.Date(2025, 3, 12, 15, 4, 5, 0, time.UTC)
	if err := demo.Generate(ctx, d, demo.Options{Seed: 1, Now: now}); err != nil {
		t.Fatal(err)
	}
	a, err := app.New(d, kernel.Config{BaseURL: "http://127.0.0.1:8080", SiteName: "Demo"}, slog.New(slog.NewTextHandler(io.Discard, nil)))
	if err != nil {
		t.Fatal(err)
	}
	a.Now = func() time.Time { return now }
	created, err := demo.SecondSite(ctx, a.Network, d, "devtools", "http://devtools.localhost:8080")
	if err != nil || !created {
		t.Fatalf("created %v: %v", created, err)
	}
	site, ok := a.SiteForHost(ctx, "devtools.localhost:8080")
	if !ok || site.Key != "devtools" {
		t.Fatalf("devtools.localhost:8080 is not routed to the site: %+v", site)
	}
	sctx := kernel.WithSite(ctx, site)
	if name := a.SiteName(sctx); name != "DevTools Launch" {
		t.Errorf("name %q", name)
	}
	all, _ := d.Count(ctx, `SELECT count(*) FROM listings WHERE status = 'live'`)
	on, _ := d.Count(sctx, `SELECT count(*) FROM listings WHERE status = 'live'`)
	if on == 0 || on >= all {
		t.Fatalf("devtools shows %d of %d live listings", on, all)
	}
	outside, _ := d.Count(ctx, `SELECT count(*) FROM listing_sites s WHERE s.site_key = 'devtools' AND NOT EXISTS (
		SELECT 1 FROM listing_categories lc JOIN categories k ON k.id = lc.category_id LEFT JOIN categories p ON p.id = k.parent_id
		WHERE lc.listing_id = s.listing_id AND (k.slug IN ('developer-tools','ai','security-privacy') OR p.slug IN ('developer-tools','ai','security-privacy')))`)
	if outside != 0 {
		t.Errorf("%d listings outside the site's categories", outside)
	}
	// Its ranks differ from main's in some week (its own votes).
	week := kernel.WeekOf(now.AddDate(0, 0, -7))
	mainRank, _, _ := d.WeekLaunches(ctx, week, 0, 5)
	devRank, _, _ := d.WeekLaunches(sctx, week, 0, 5)
	if len(devRank) == 0 {
		t.Fatalf("devtools has no launches in %s", week)
	}
	var m, v []string
	for _, s := range mainRank {
		m = append(m, s.Slug)
	}
	for _, s := range devRank {
		v = append(v, s.Slug)
	}
	if slices.Equal(m, v) {
		t.Errorf("devtools' ranking is main's: %v", v)
	}
	var votes int
	d.R.QueryRow(`SELECT count(*) FROM site_votes WHERE site_key = 'devtools'`).Scan(&votes)
	if votes == 0 {
		t.Error("no devtools votes")
	}
	// A second start leaves it as it is.
	if again, err := demo.SecondSite(ctx, a.Network, d, "devtools", "http://devtools.localhost:8080"); err != nil || again {
		t.Fatalf("second start: %v %v", again, err)
	}
}
