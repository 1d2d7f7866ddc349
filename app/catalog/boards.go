package catalog

import (
	"context"

	"launchdir/app/kernel"
	"launchdir/db"
	"launchdir/ops"
)

var boardNames = []string{"community-weekly", "community-all-time", "billboard", "domain-rating", "revenue"}

// boardInfo describes each leaderboard: they are separate systems and the
// response says what each one ranks by and who provides the figures.
var boardInfo = map[string]Leaderboard{
	"community-weekly": {Title: "Community votes this week", Metric: "votes_in_week",
		Source: "The week's launches ranked by the votes cast by people on the site during their launch week (Monday to Sunday, UTC); ties go to the older listing."},
	"community-all-time": {Title: "Community votes, all time", Metric: "votes",
		Source: "All votes cast by people on the site."},
	"billboard": {Title: "Billboard", Metric: "contributed_cents", Paid: true,
		Disclosure: "PAID RANKING: positions on the billboard are bought. It ranks listings by money contributed and says nothing about quality or popularity.",
		Source:     "Billboard contributions paid through orders."},
	"domain-rating": {Title: "Domain Rating", Metric: "domain_rating", ThirdParty: true,
		Source: "Third-party data: " + "Ahrefs Domain Rating (0-100), not computed by this directory."},
	"revenue": {Title: "Revenue", Metric: "mrr_cents",
		Source: "Monthly recurring revenue reported by founders; 'verified' marks figures checked against a payment provider."},
}

func (a *Service) getLeaderboard(ctx context.Context, in *ops.Input) (any, error) {
	board := in.Str("board")
	info, ok := boardInfo[board]
	if !ok {
		return nil, ops.NotFound("leaderboard " + board + " (boards: community-weekly, community-all-time, billboard, domain-rating, revenue)")
	}
	if in.Has("week") && board != "community-weekly" {
		return nil, ops.Invalid("week", "only applies to the community-weekly board")
	}
	off, lim := kernel.Offset(in)
	out := info
	out.Board = board
	var (
		q, count, value, from string
		args                  []any
	)
	switch board {
	case "community-weekly":
		week, err := kernel.ResolveWeek(a.Now(), in.Str("week"))
		if err != nil {
			return nil, err
		}
		if err := a.knownWeek(ctx, week); err != nil {
			return nil, err
		}
		out.Week = week
		// The week's ranking (db.WeekRankFrom), its launches with votes:
		// the same places as the week list and the badge.
		value, from = "n.votes", ` FROM launches n JOIN listings l ON l.id = n.listing_id LEFT JOIN categories c ON c.id = l.primary_category_id `
		q = ` WHERE n.week = ?1 AND l.status IN ('live','scheduled') AND n.votes > 0` + db.WeekRankOrder + ` LIMIT ?2 OFFSET ?3`
		count = `SELECT 1` + db.WeekRankFrom + ` AND n.votes > 0`
		args = []any{week}
	case "community-all-time":
		value = "l.votes"
		q = ` WHERE l.status = 'live' AND l.votes > 0 ORDER BY l.votes DESC, l.id LIMIT ?1 OFFSET ?2`
		count = `SELECT 1 FROM listings WHERE status = 'live' AND votes > 0`
	case "billboard":
		value = "l.billboard_cents"
		q = ` WHERE l.status = 'live' AND l.billboard_cents > 0 ORDER BY l.billboard_cents DESC, l.id LIMIT ?1 OFFSET ?2`
		count = `SELECT 1 FROM listings WHERE status = 'live' AND billboard_cents > 0`
	case "domain-rating":
		value = "l.domain_rating"
		q = ` WHERE l.status = 'live' AND l.domain_rating IS NOT NULL ORDER BY l.domain_rating DESC, l.id LIMIT ?1 OFFSET ?2`
		count = `SELECT 1 FROM listings WHERE status = 'live' AND domain_rating IS NOT NULL`
	case "revenue":
		value, from = "m.mrr_cents", db.RevenueFrom
		q = ` WHERE l.status = 'live' ORDER BY m.mrr_cents DESC, l.id LIMIT ?1 OFFSET ?2`
		// The revenue rows in order, each checked in the small index of
		// status by id (the planner walked the live listings and looked
		// each up in revenue: 46 against 15 ms for the bound at 1M).
		count = `SELECT 1 FROM revenue r CROSS JOIN listings l INDEXED BY listings_status_by_id ON l.id = r.listing_id WHERE l.status = 'live'`
	}
	// A board's total is bounded like a search's: counting a big board
	// (every voted or paying listing) is the one part of a page that grows
	// with the directory (0.3 to 0.5 s at 1M listings).
	total, err := a.DB.BoundedCount(ctx, count, args...)
	if err != nil {
		return nil, err
	}
	items, err := a.DB.Board(ctx, info.Metric, value, from, off, q, append(args, lim, off)...)
	if err != nil {
		return nil, err
	}
	if board == "revenue" {
		if err := a.markVerifiedRevenue(ctx, items); err != nil {
			return nil, err
		}
	}
	if board == "domain-rating" {
		if err := a.markRatingSource(ctx, items); err != nil {
			return nil, err
		}
	}
	out.Page = kernel.NewPage(in, items, total.N)
	out.Page.TotalIsEstimate = total.Estimate
	return out, nil
}

func (a *Service) markVerifiedRevenue(ctx context.Context, items []db.BoardItem) error {
	for i := range items {
		var verified bool
		var currency, source, asOf string
		err := a.DB.R.QueryRowContext(ctx, `SELECT verified, currency, source, updated_at FROM revenue WHERE listing_id = ?`,
			items[i].Listing.ID).Scan(&verified, &currency, &source, &asOf)
		if err != nil {
			return err
		}
		m := &items[i].Metric
		m.Verified, m.Currency, m.Source, m.AsOf = &verified, currency, source, asOf
	}
	return nil
}

// markRatingSource adds the date and source of each listing's newest Domain
// Rating measurement (set by the site team's CSV imports).
func (a *Service) markRatingSource(ctx context.Context, items []db.BoardItem) error {
	for i := range items {
		var on, source string
		err := a.DB.R.QueryRowContext(ctx, `SELECT measured_on, source FROM domain_ratings WHERE listing_id = ?
			ORDER BY measured_on DESC LIMIT 1`, items[i].Listing.ID).Scan(&on, &source)
		if db.IsNoRows(err) {
			continue
		}
		if err != nil {
			return err
		}
		items[i].Metric.AsOf = on
		if source != "" {
			items[i].Metric.Source = source
		}
	}
	return nil
}
