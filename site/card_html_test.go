package site_test

import (
	"context"
	"testing"

	"launchdir/apitest"
	"launchdir/app"
	"launchdir/app/media"
	"launchdir/db"
	"launchdir/demo"
	"launchdir/site"
)

// Cards are written in Go (card_html.go) instead of by a template. Every
// card of the demo's live and upcoming listings, with and without a card
// view, and cards with hostile values must come out byte for byte as the
// template wrote them (the template is kept as the reference in
// export_test.go).
func TestCardHTMLMatchesTemplate(t *testing.T) {
	e, s := demoSite(t)
	ctx := context.Background()
	var cards []db.Summary
	for _, f := range []db.SearchFilter{{Limit: 100}, {Limit: 100, Upcoming: true}} {
		list, _, err := e.App.DB.SearchListingsTotal(ctx, f)
		if err != nil {
			t.Fatal(err)
		}
		cards = append(cards, list...)
	}
	if len(cards) < 20 {
		t.Fatalf("only %d demo cards", len(cards))
	}
	week := int64(1)
	own := e.App.Cfg.BaseURL + "/media/" + "0123456789abcdef0123456789abcdef/logo.png"
	for _, h := range []db.Summary{
		{Slug: "odd-slug", Name: `<script>alert("x")</script> & 'co'`, Tagline: "Tabs\tand \x00 nul", URL: "javascript:alert(1)",
			Status: "scheduled", LaunchWeek: "2026-12-07", Category: &db.CategoryRef{Slug: "a b", Name: "A & B"}},
		{Slug: "spaces", Name: "Ünïcode ✓", URL: "https://example.com/a path/(x)?q=1&r=ü#frag", Status: "scheduled"},
		{Slug: "data", Name: "Data", URL: "data:text/html,hi", Status: "scheduled", LogoURL: own},
		{Slug: "mail", Name: "Mail", URL: "MAILTO:a@b.example", Status: "scheduled"},
		{Slug: "plus", Name: "C++ & F# tools", Tagline: "1+1=2", Status: "live", Votes: 3},
		{Slug: "rel", Name: "Relative", URL: "/path:with:colons", Status: "scheduled"},
		{Slug: "weekly", Name: "Weekly", Status: "live", Votes: 1204, Follows: 1, WeekVotes: &week, LogoURL: "https://elsewhere.example/logo.png"},
		{Slug: "archived", Name: "Old", Status: "archived", Votes: -1},
	} {
		cards = append(cards, h)
	}
	thumb := &media.Thumb{Src: "/media/0123456789abcdef0123456789abcdef/480.webp", SrcSet: "/media/0123456789abcdef0123456789abcdef/480.webp 1x, /media/0123456789abcdef0123456789abcdef/960.webp 2x", Width: 480, Height: 300}
	n := 0
	for i := range cards {
		for view := range 3 {
			c := cards[i]
			switch view {
			case 1:
				site.CardView(&c, "tok\"en", "/search?q=a&b=<c>", i%2 == 0, i < 4, c.Votes, nil)
			case 2:
				site.CardView(&c, "", "/", true, false, 12, thumb)
			}
			want, err := site.TemplateCardHTML(s, &c)
			if err != nil {
				t.Fatal(err)
			}
			if got := site.CardHTML(s, &c); got != want {
				t.Fatalf("card %q (view %d):\n got %s\nwant %s", c.Slug, view, got, want)
			}
			n++
		}
	}
	t.Logf("%d cards identical", n)
}

// demoSite is the demo directory with only the website mounted, and the
// site itself for the package's hooks (export_test.go).
func demoSite(t *testing.T) (*apitest.Env, *site.Site) {
	t.Helper()
	e := apitest.New(t, apitest.Options{Setup: func(a *app.App) {
		if err := demo.Generate(context.Background(), a.DB, demo.Options{Seed: 1, Now: apitest.Now, BaseURL: a.Cfg.BaseURL}); err != nil {
			t.Fatal(err)
		}
	}})
	s, err := site.Mount(e.Routes, e.App, e.App.People)
	if err != nil {
		t.Fatal(err)
	}
	return e, s
}
