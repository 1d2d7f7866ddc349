package catalog

import (
	"context"
	"fmt"
	"strings"
	"time"

	"launchdir/app/kernel"
	"launchdir/db"
	"launchdir/ops"
)

func (a *Service) getSiteInfo(ctx context.Context, in *ops.Input) (any, error) {
	live, err := a.DB.StatusCount(ctx, "live")
	if err != nil {
		return nil, err
	}
	upcoming, err := a.DB.StatusCount(ctx, "scheduled")
	if err != nil {
		return nil, err
	}
	cats, err := a.DB.Count(ctx, `SELECT count(*) FROM categories`)
	if err != nil {
		return nil, err
	}
	return SiteInfo{
		Name:        a.Setting(ctx, "site_name", a.SiteName(ctx)),
		Description: a.Setting(ctx, "site_description", "A directory of startup products, launched weekly."),
		SiteKey:     a.SiteKey(ctx),
		Version:     kernel.Version,
		URLs:        SiteURLs{Base: a.Origin(ctx), API: a.APIURL(ctx), OpenAPI: a.APIURL(ctx) + "/openapi.json", MCP: a.MCPURL(ctx)},
		Counts:      SiteCounts{LiveListings: live, UpcomingListings: upcoming, Categories: cats},
		CurrentWeek: kernel.WeekOf(a.Now()), WeekStartsOn: "monday", FreeQueueWeeks: a.FreeQueueWeeks(ctx),
		LaunchSections: launchSections, Leaderboards: boardNames, ListingStatuses: kernel.ListingStatuses, Scopes: ops.AllScopes,
		VotesViaAPI:       false,
		VotingExplanation: "Votes come only from people on the site; the API has no voting.",
	}, nil
}

func (a *Service) searchListings(ctx context.Context, in *ops.Input) (any, error) {
	off, lim := kernel.Offset(in)
	f := db.SearchFilter{
		Q: strings.TrimSpace(in.Str("q")), Category: in.Str("category"), Stage: in.Str("stage"),
		Country: strings.ToUpper(in.Str("country")), PricingModel: in.Str("pricing_model"),
		Domain: normalizeDomain(in.Str("domain")), Upcoming: in.Str("status") == "upcoming",
		Sort: in.Str("sort"), Offset: off, Limit: lim,
	}
	// The page is kept encoded in the read cache (key: the filter, which
	// holds the page's offset and size, so it decides the whole page). A
	// page built by this call also carries its value, for the website.
	var built *kernel.Page[db.Summary]
	b, err := db.Cached(ctx, a.DB, fmt.Sprintf("search json %+v", f), func(ctx context.Context) (ops.Encoded, error) {
		items, total, err := a.DB.SearchListingsTotal(ctx, f)
		if err != nil {
			return ops.Encoded{}, err
		}
		p := kernel.NewPage(in, items, total.N)
		p.TotalIsEstimate = total.Estimate
		built = &p
		return ops.Encode(p)
	})
	if err != nil {
		return nil, err
	}
	if built != nil { // memo ran the function in this goroutine
		b.Value = *built
	}
	return b, nil
}

// normalizeDomain lets people paste a URL or a www. host as the domain filter.
func normalizeDomain(s string) string {
	s = strings.ToLower(strings.TrimSpace(s))
	s = strings.TrimPrefix(strings.TrimPrefix(s, "https://"), "http://")
	if i := strings.IndexAny(s, "/?#"); i >= 0 {
		s = s[:i]
	}
	return strings.TrimPrefix(s, "www.")
}

func (a *Service) liveListing(ctx context.Context, slug string) (*db.Listing, error) {
	l, err := a.DB.GetListingBy(ctx, a.DB.R, "l.slug = ? AND l.status = 'live'", slug)
	return l, kernel.NotFound(err, "listing "+slug)
}

// getListing answers from the read cache already encoded: at c=64 on two
// cores encoding the profile was a third of the CPU of a cached read.
func (a *Service) getListing(ctx context.Context, in *ops.Input) (any, error) {
	slug := in.Str("slug")
	b, err := a.DB.LiveListingJSON(ctx, slug)
	if err != nil {
		return nil, kernel.NotFound(err, "listing "+slug)
	}
	return b, nil
}

func (a *Service) getAlternatives(ctx context.Context, in *ops.Input) (any, error) {
	id, err := a.DB.ListingIDBySlug(ctx, in.Str("slug"))
	if err != nil {
		return nil, kernel.NotFound(err, "listing "+in.Str("slug"))
	}
	off, lim := kernel.Offset(in)
	items, total, err := a.DB.Alternatives(ctx, id, off, lim)
	if err != nil {
		return nil, err
	}
	return kernel.NewPage(in, items, total), nil
}

func (a *Service) compareListings(ctx context.Context, in *ops.Input) (any, error) {
	la, err := a.liveListing(ctx, in.Str("a"))
	if err != nil {
		return nil, kernel.WithField(err, "a")
	}
	lb, err := a.liveListing(ctx, in.Str("b"))
	if err != nil {
		return nil, kernel.WithField(err, "b")
	}
	attrs, err := a.compareAttributes(ctx, la, lb)
	if err != nil {
		return nil, err
	}
	rows := []CompareRow{}
	for _, name := range attrs {
		rows = append(rows, CompareRow{Attribute: name, A: la.Attributes[name], B: lb.Attributes[name]})
	}
	return Comparison{A: la.Summary, B: lb.Summary, Rows: rows, Note: "An empty cell means neither listing states that fact."}, nil
}

// compareAttributes is the union of both primary categories' attributes
// plus the facts every listing has, in a stable order.
func (a *Service) compareAttributes(ctx context.Context, la, lb *db.Listing) ([]string, error) {
	seen := map[string]bool{}
	var out []string
	add := func(names ...string) {
		for _, n := range names {
			if !seen[n] {
				seen[n] = true
				out = append(out, n)
			}
		}
	}
	add("Pricing model", "Pricing", "Stage", "Founded", "Country")
	for _, l := range []*db.Listing{la, lb} {
		if l.Category == nil {
			continue
		}
		at, err := a.DB.CategoryAttributes(ctx, l.Category.Slug)
		if err != nil {
			return nil, err
		}
		add(at...)
	}
	for _, l := range []*db.Listing{la, lb} {
		base := map[string]string{"Pricing model": l.Pricing["model"], "Pricing": l.Pricing["summary"], "Stage": l.Stage, "Country": l.Country}
		if l.FoundedYear != nil {
			base["Founded"] = fmt.Sprint(*l.FoundedYear)
		}
		for k, v := range base {
			if _, ok := l.Attributes[k]; !ok && v != "" {
				l.Attributes[k] = v
			}
		}
	}
	return out, nil
}

func (a *Service) listCategories(ctx context.Context, in *ops.Input) (any, error) {
	tree, err := a.DB.Categories(ctx)
	if err != nil {
		return nil, err
	}
	if in.Has("include_empty") && !in.Bool("include_empty") {
		tree = dropEmpty(tree)
	}
	// Paginated like every list: the top-level categories (14 in the demo)
	// fit one default page.
	off, lim := kernel.Offset(in)
	total := len(tree)
	tree = tree[min(off, total):min(off+lim, total)]
	return kernel.NewPage(in, tree, total), nil
}

func dropEmpty(cs []db.Category) []db.Category {
	out := []db.Category{}
	for _, c := range cs {
		if c.LiveCount == 0 {
			continue
		}
		c.Subcategories = dropEmpty(c.Subcategories)
		out = append(out, c)
	}
	return out
}

func (a *Service) getCategory(ctx context.Context, in *ops.Input) (any, error) {
	c, err := a.DB.CategoryBySlug(ctx, in.Str("slug"))
	if err != nil {
		return nil, kernel.NotFound(err, "category "+in.Str("slug"))
	}
	off, lim := kernel.Offset(in)
	items, total, err := a.DB.SearchListings(ctx, db.SearchFilter{Category: c.Slug, Sort: "votes", Offset: off, Limit: lim})
	if err != nil {
		return nil, err
	}
	return CategoryListings{Category: *c, Page: kernel.NewPage(in, items, total)}, nil
}

// maxWeeksAhead bounds future weeks; earlier than the first launch week is 404 too.
const maxWeeksAhead = 52

func (a *Service) knownWeek(ctx context.Context, week string) error {
	t, _ := time.Parse(kernel.DateLayout, week)
	if t.After(kernel.Monday(a.Now()).AddDate(0, 0, 7*maxWeeksAhead)) {
		return ops.NotFound(fmt.Sprintf("week %s (more than %d weeks ahead)", week, maxWeeksAhead))
	}
	if first := a.Setting(ctx, "first_week", ""); first != "" && week < first {
		return ops.NotFound(fmt.Sprintf("week %s (the directory's first launch week is %s)", week, first))
	}
	return nil
}

func (a *Service) getLaunchWeek(ctx context.Context, in *ops.Input) (any, error) {
	week, err := kernel.ResolveWeek(a.Now(), in.Str("week"))
	if err != nil {
		return nil, err
	}
	if err := a.knownWeek(ctx, week); err != nil {
		return nil, err
	}
	off, lim := kernel.Offset(in)
	items, total, err := a.DB.WeekLaunches(ctx, week, off, lim)
	if err != nil {
		return nil, err
	}
	start, _ := time.Parse(kernel.DateLayout, week)
	return LaunchWeek{Week: week, Starts: week, Ends: start.AddDate(0, 0, 6).Format(kernel.DateLayout), IsFuture: week > kernel.WeekOf(a.Now()),
		Page: kernel.NewPage(in, items, total)}, nil
}

var launchSections = []string{"today", "this-week", "trending", "most-voted", "recent", "most-viewed", "most-followed", "upcoming"}

func (a *Service) listLaunches(ctx context.Context, in *ops.Input) (any, error) {
	section := in.Str("section")
	off, lim := kernel.Offset(in)
	var (
		items []db.Summary
		total int
		err   error
	)
	switch section {
	case "today":
		items, total, err = a.launchedBetween(ctx, a.Today(), off, lim)
	case "this-week":
		items, total, err = a.DB.WeekLaunches(ctx, kernel.WeekOf(a.Now()), off, lim)
	case "upcoming":
		items, total, err = a.DB.SearchListings(ctx, db.SearchFilter{Upcoming: true, Offset: off, Limit: lim})
	default:
		sortBy := map[string]string{"trending": "trending", "most-voted": "votes", "recent": "newest",
			"most-viewed": "most_viewed", "most-followed": "most_followed"}[section]
		items, total, err = a.DB.SearchListings(ctx, db.SearchFilter{Sort: sortBy, Offset: off, Limit: lim})
	}
	if err != nil {
		return nil, err
	}
	return LaunchSection{Section: section, Page: kernel.NewPage(in, items, total)}, nil
}

// launchedBetween lists live listings launched on day (UTC).
func (a *Service) launchedBetween(ctx context.Context, day string, off, lim int) ([]db.Summary, int, error) {
	const cond = ` WHERE l.status = 'live' AND l.launched_at >= ?1 AND l.launched_at < ?2`
	next := mustDate(day).AddDate(0, 0, 1).Format(kernel.DateLayout)
	total, err := a.DB.PublicCount(ctx, `SELECT count(*) FROM listings l`+cond, day, next)
	if err != nil {
		return nil, 0, err
	}
	items, err := a.DB.LaunchedBetween(ctx, day, next, off, lim)
	return items, total, err
}

func mustDate(s string) time.Time {
	t, _ := time.Parse(kernel.DateLayout, s)
	return t
}

func (a *Service) listFounders(ctx context.Context, in *ops.Input) (any, error) {
	off, lim := kernel.Offset(in)
	items, total, err := a.DB.Founders(ctx, strings.TrimSpace(in.Str("q")), strings.ToUpper(in.Str("country")), off, lim)
	if err != nil {
		return nil, err
	}
	p := kernel.NewPage(in, items, total.N)
	p.TotalIsEstimate = total.Estimate
	return p, nil
}

func (a *Service) getFounder(ctx context.Context, in *ops.Input) (any, error) {
	f, err := a.DB.FounderBySlug(ctx, in.Str("slug"))
	return f, kernel.NotFound(err, "founder "+in.Str("slug"))
}

func (a *Service) listBlogPosts(ctx context.Context, in *ops.Input) (any, error) {
	off, lim := kernel.Offset(in)
	items, total, err := a.DB.BlogPosts(ctx, strings.TrimSpace(in.Str("q")), off, lim)
	if err != nil {
		return nil, err
	}
	return kernel.NewPage(in, items, total), nil
}

func (a *Service) getBlogPost(ctx context.Context, in *ops.Input) (any, error) {
	p, err := a.DB.BlogPostBySlug(ctx, in.Str("slug"))
	return p, kernel.NotFound(err, "blog post "+in.Str("slug"))
}

func (a *Service) listAwards(ctx context.Context, in *ops.Input) (any, error) {
	off, lim := kernel.Offset(in)
	items, total, err := a.DB.Awards(ctx, in.Str("listing"), off, lim)
	if err != nil {
		return nil, err
	}
	return AwardPage{Page: kernel.NewPage(in, items, total),
		Basis: "Launch of the Week #1-#3 from community votes only; paid placements never affect awards."}, nil
}

func (a *Service) listInterviewQuestions(ctx context.Context, in *ops.Input) (any, error) {
	qs, err := a.DB.InterviewQuestions(ctx)
	if err != nil {
		return nil, err
	}
	return InterviewQuestions{Items: qs, Total: len(qs), MaxAnswers: kernel.MaxInterviewAnswers, MaxAnswerLength: 4000}, nil
}
