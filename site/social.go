package site

import (
	"context"
	"fmt"
	"net/http"
	"strings"

	"launchdir/app/kernel"
	"launchdir/app/media"
	"launchdir/db"
	"launchdir/ops"

	"github.com/julienschmidt/httprouter"
)

// Social cards: every listing, launch week, category and the home page has
// an og:image drawn in Go from what the page shows. The page links
// /og/<kind>/<name>.png?v=<key>, where key hashes the card's content, so a
// changed card has a new URL and shared-link caches fetch it again; the
// card itself is drawn once per key (media.Service.SocialCard).

// ogURL is the absolute og:image URL of a card.
func (s *Site) ogURL(ctx context.Context, kind, name string, c media.Card) string {
	return s.App.Origin(ctx) + "/og/" + kind + "/" + name + ".png?v=" + c.Key()
}

func (s *Site) listingCard(ctx context.Context, l *db.Listing) media.Card {
	footer := fmt.Sprintf("▲ %d votes", l.Votes)
	if l.Category != nil {
		footer = l.Category.Name + " · " + footer
	}
	return media.Card{Kicker: s.App.Catalog.Earned(ctx, l.Slug), Title: l.Name, Subtitle: l.Tagline,
		LogoURL: l.LogoURL, Seed: l.Slug, Site: s.App.SiteName(ctx), Footer: footer}
}

func (s *Site) weekCard(ctx context.Context, d *weekData) media.Card {
	var names []string
	for i, it := range d.Items {
		if i == 3 {
			break
		}
		names = append(names, it.Name)
	}
	sub := "No launches yet."
	if len(names) > 0 {
		sub = "Leading: " + strings.Join(names, ", ")
	}
	return media.Card{Kicker: "Launches of the week", Title: "Week of " + kernel.HumanDate(d.Starts), Subtitle: sub,
		Seed: d.Week, Site: s.App.SiteName(ctx), Footer: fmt.Sprintf("%d launches", d.Total)}
}

func (s *Site) categoryCard(ctx context.Context, c *db.Category) media.Card {
	return media.Card{Kicker: "Category", Title: c.Name, Subtitle: firstNonEmpty(c.Description, "Live "+c.Name+" products, most voted first."),
		Seed: c.Slug, Site: s.App.SiteName(ctx), Footer: fmt.Sprintf("%d products", c.LiveCount)}
}

func (s *Site) homeCard(ctx context.Context, desc string) media.Card {
	name := s.App.SiteName(ctx)
	return media.Card{Kicker: "Startup launches ranked by the community", Title: name, Subtitle: desc, Seed: name, Site: s.App.Origin(ctx)}
}

// socialCard serves /og/<kind>/<name>.png from the page's current data.
func (s *Site) socialCard(w http.ResponseWriter, r *http.Request, ps httprouter.Params) {
	ctx := r.Context()
	name, ok := strings.CutSuffix(ps.ByName("file"), ".png")
	var c media.Card
	var err error
	switch kind := ps.ByName("kind"); {
	case !ok:
		err = ops.NotFound("card")
	case kind == "listing":
		l := &db.Listing{}
		if err = s.call(ctx, "get_listing", map[string]string{"slug": name}, l); err == nil {
			c = s.listingCard(ctx, l)
		}
	case kind == "week":
		var d weekData
		if err = s.call(ctx, "get_launch_week", map[string]string{"week": name, "per_page": "3"}, &d); err == nil {
			c = s.weekCard(ctx, &d)
		}
	case kind == "category":
		var d categoryData
		if err = s.call(ctx, "get_category", map[string]string{"slug": name, "per_page": "1"}, &d); err == nil {
			c = s.categoryCard(ctx, &d.Category)
		}
	case kind == "home" && name == "home":
		c = s.homeCard(ctx, s.siteDescription(r))
	default:
		err = ops.NotFound("card")
	}
	if err != nil {
		s.errorPage(w, r, err)
		return
	}
	b, err := s.App.Media.SocialCard(ctx, c)
	if err != nil {
		s.errorPage(w, r, err)
		return
	}
	setImageHeaders(w.Header(), "image/png")
	writeBody(w, r, b, "public, max-age=86400")
}
