package catalog

import (
	"context"
	"database/sql"
	"fmt"
	"html"
	"net/url"
	"slices"
	"strings"
	"time"

	"launchdir/app/kernel"
	"launchdir/db"
	"launchdir/ops"
)

var (
	badgeShapes = []string{"standard", "outline", "pill", "banner", "square"}
	badgeModes  = []string{"light", "dark", "auto"}
	badgeSizes  = []string{"s", "m", "l"}
)

// BadgeURL is the SVG image address of a badge variant.
func (a *Service) BadgeURL(ctx context.Context, slug, shape, mode, size string) string {
	q := url.Values{"shape": {shape}, "mode": {mode}, "size": {size}}
	return a.Origin(ctx) + "/badges/" + slug + ".svg?" + q.Encode()
}

// badgeStatuses can show a badge: an owner places it before the free launch
// (which checks for it), so unpublished listings need one too.
const badgeStatuses = "('live','scheduled','draft','awaiting_badge')"

// badgeListing finds a listing for its badge. Live and scheduled listings
// are public; an unpublished one only for its owner (the REST door), or
// as the image itself, which the owner embeds on their own site.
// Only the summary is read: a badge shows nothing else, and assembling the
// whole profile was most of the database work of a listing page (which
// asks for the badge) once the profile itself was ready-made (issue 26).
func (a *Service) badgeListing(ctx context.Context, slug string, userID int64, image bool) (*db.Listing, error) {
	items, err := a.DB.Summaries(ctx, "WHERE l.slug = ? AND l.status IN "+badgeStatuses, slug)
	if err == nil && len(items) == 0 {
		err = sql.ErrNoRows
	}
	if err != nil {
		return nil, kernel.NotFound(err, "listing "+slug)
	}
	l := &db.Listing{Summary: items[0]}
	if image || l.Status == "live" || l.Status == "scheduled" {
		return l, nil
	}
	if userID == 0 || a.OwnListing(ctx, a.DB.R, userID, l.ID) != nil {
		return nil, ops.NotFound("listing " + slug)
	}
	return l, nil
}

func (a *Service) getBadges(ctx context.Context, in *ops.Input) (any, error) {
	slug := in.Str("slug")
	l, err := a.badgeListing(ctx, slug, in.UserID(), false)
	if err != nil {
		return nil, err
	}
	shape, mode, size := in.Str("shape"), in.Str("mode"), in.Str("size")
	img := a.BadgeURL(ctx, slug, shape, mode, size)
	alt := html.EscapeString(fmt.Sprintf("%s on %s", l.Name, a.SiteName(ctx)))
	embed := fmt.Sprintf(`<a href="%s" target="_blank" rel="noopener"><img src="%s" alt="%s" width="%d" height="%d" /></a>`,
		html.EscapeString(a.ListingURL(ctx, slug)), html.EscapeString(img), alt, badgeDims(shape, size).w, badgeDims(shape, size).h)
	variants := map[string]string{}
	for _, m := range badgeModes {
		variants[m] = a.BadgeURL(ctx, slug, shape, m, size)
	}
	return Badges{
		Listing: l.Summary, Shape: shape, Mode: mode, Size: size,
		HTML: embed, ImageURL: img, ImageURLs: variants, Link: a.ListingURL(ctx, slug),
		Shapes: badgeShapes, Modes: badgeModes, Sizes: badgeSizes,
		Note: "Keep the link to the listing page: the free launch checks the homepage for this badge or a link back.",
	}, nil
}

type dims struct{ w, h int }

func badgeDims(shape, size string) dims {
	scale := map[string]float64{"s": 0.75, "m": 1, "l": 1.5}[size]
	if scale == 0 {
		scale = 1
	}
	base := map[string]dims{"standard": {250, 54}, "outline": {250, 54}, "pill": {220, 40}, "banner": {468, 60}, "square": {120, 120}}[shape]
	if base.w == 0 {
		base = dims{250, 54}
	}
	return dims{int(float64(base.w) * scale), int(float64(base.h) * scale)}
}

// BadgeSVG renders a badge showing the listing's live weekly rank when it is
// launching this week, else its vote count. mode auto follows the viewer's
// prefers-color-scheme inside the SVG.
func (a *Service) BadgeSVG(ctx context.Context, slug, shape, mode, size string) (string, error) {
	for _, p := range []struct {
		name, value string
		allowed     []string
	}{{"shape", shape, badgeShapes}, {"mode", mode, badgeModes}, {"size", size, badgeSizes}} {
		if !slices.Contains(p.allowed, p.value) {
			return "", ops.Invalid(p.name, "must be one of %s", strings.Join(p.allowed, ", "))
		}
	}
	l, err := a.badgeListing(ctx, slug, 0, true)
	if err != nil {
		return "", err
	}
	d := badgeDims(shape, size)
	top, bottom := a.earned(ctx, a.SiteName(ctx), l)
	return renderBadge(shape, mode, d, top, bottom, l.Name), nil
}

// Earned is what a listing's social card says it earned: its place among
// the week's launches, if any, and when it launched ("#1 of the week ·
// Launched on 16 Nov 2026"); "" for a slug that is not a listing.
func (a *Service) Earned(ctx context.Context, slug string) string {
	var id int64
	var status, week string
	if err := a.DB.R.QueryRowContext(ctx, `SELECT id, status, coalesce(launch_week, '') FROM listings WHERE slug = ?`, slug).
		Scan(&id, &status, &week); err != nil {
		return ""
	}
	if status != "live" {
		return "Launching soon"
	}
	parts := []string{}
	if rank := a.place(ctx, id); rank != "" {
		parts = append(parts, rank)
	}
	if _, err := time.Parse(kernel.DateLayout, week); err == nil {
		parts = append(parts, "Launched on "+kernel.HumanDate(week))
	}
	return strings.Join(parts, " · ")
}

// earned is a badge's two lines: where (the site's name, never
// "featured": that is a paid product, not something a listing earns) and
// what: its place among the week's launches ("#2 this week" while the week
// runs, "#1 of the week" for an award), else its votes.
func (a *Service) earned(ctx context.Context, site string, l *db.Listing) (top, bottom string) {
	if l.Status != "live" {
		return "Coming to " + site, "Launching soon"
	}
	if rank := a.place(ctx, l.ID); rank != "" {
		return "Launched on " + site, rank
	}
	return "Launched on " + site, fmt.Sprintf("▲ %d votes", l.Votes)
}

// place is the listing's live rank among this week's launches (its launch
// or relaunch week), or its best award.
func (a *Service) place(ctx context.Context, id int64) string {
	if rank, ok := a.weeklyRank(ctx, id); ok {
		return fmt.Sprintf("#%d this week", rank)
	}
	var rank int
	if err := a.DB.R.QueryRowContext(ctx, `SELECT rank FROM awards WHERE listing_id = ? ORDER BY rank, week DESC LIMIT 1`, id).Scan(&rank); err == nil {
		return fmt.Sprintf("#%d of the week", rank)
	}
	return ""
}

// weeklyRank is the listing's place in this week's ranking (the week list's
// order: db.WeekRankFrom), when it launches or relaunches this week.
func (a *Service) weeklyRank(ctx context.Context, id int64) (int, bool) {
	rank, _, ok, err := a.DB.WeekRank(ctx, id, kernel.WeekOf(a.Now()))
	return rank, ok && err == nil
}

func renderBadge(shape, mode string, d dims, site, metric, name string) string {
	bg, fg, border := "#ffffff", "#111827", "#d1d5db"
	if mode == "dark" {
		bg, fg, border = "#111827", "#f9fafb", "#374151"
	}
	radius := 8
	switch shape {
	case "pill":
		radius = d.h / 2
	case "square":
		radius = 12
	}
	fill := bg
	if shape == "outline" {
		fill = "none"
	}
	style := ""
	if mode == "auto" {
		style = `<style>.bg{fill:#ffffff;stroke:#d1d5db}.fg{fill:#111827}@media (prefers-color-scheme: dark){.bg{fill:#111827;stroke:#374151}.fg{fill:#f9fafb}}</style>`
	}
	esc := html.EscapeString
	fs := float64(d.h) * 0.28
	if shape == "square" {
		fs = float64(d.w) * 0.11
	}
	return fmt.Sprintf(`<svg xmlns="http://www.w3.org/2000/svg" width="%d" height="%d" viewBox="0 0 %d %d" role="img" aria-label="%s: %s">%s`+
		`<title>%s · %s: %s</title>`+
		`<rect class="bg" x="1" y="1" width="%d" height="%d" rx="%d" fill="%s" stroke="%s" stroke-width="2"/>`+
		`<text class="fg" x="50%%" y="38%%" text-anchor="middle" font-family="system-ui,sans-serif" font-size="%.1f" fill="%s" opacity="0.7">%s</text>`+
		`<text class="fg" x="50%%" y="74%%" text-anchor="middle" font-family="system-ui,sans-serif" font-weight="700" font-size="%.1f" fill="%s">%s</text></svg>`,
		d.w, d.h, d.w, d.h, esc(name), esc(metric), style,
		esc(name), esc(site), esc(metric),
		d.w-2, d.h-2, radius, fill, border,
		fs*0.8, fg, esc(site),
		fs*1.1, fg, esc(metric))
}
