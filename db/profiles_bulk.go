package db

import (
	"context"
	"database/sql"
	"slices"
)

// Bulk assembly of public profiles (the seeder's BuildProfilesOffline): the
// live listings of an id range are read with one query per table, ordered
// by listing, instead of the dozen point queries per listing of
// getListing (at 1M listings that was 11 million queries). Each query
// orders a listing's rows exactly as its point query does (every order
// ends in a unique column), and the per-listing limits (five updates,
// twelve Domain Rating points, the first screenshot) are applied here, so
// a profile comes out byte for byte as a fresh assembly
// (demo/profiles_test.go compares them).

// rangeRows runs query (bound to lo and hi) and calls scan for each row.
func rangeRows(ctx context.Context, q querier, query string, lo, hi int64, scan func(rows *sql.Rows) error) error {
	rows, err := q.QueryContext(ctx, query, lo, hi)
	if err != nil {
		return err
	}
	defer rows.Close()
	for rows.Next() {
		if err := scan(rows); err != nil {
			return err
		}
	}
	return rows.Err()
}

// assembleRange assembles the public profiles of the live listings with
// lo <= id <= hi, in id order, as getListing would one by one.
func assembleRange(ctx context.Context, q querier, lo, hi int64) ([]*Listing, error) {
	var out []*Listing
	byID := map[int64]*Listing{}
	inputs := map[int64]partsInputs{}
	// +l.status: the rowid range, never the status index. A seed builds
	// its profiles before the planner has statistics, and without them the
	// planner read every live listing of the status index (and sorted them)
	// for each range: 150 of 430 CPU seconds of a 1M seed.
	rows, err := q.QueryContext(ctx, "SELECT "+listingCols+summaryFrom+
		" WHERE l.id BETWEEN "+IntArg+" AND "+IntArg+" AND +l.status = 'live' ORDER BY l.id", lo, hi)
	if err != nil {
		return nil, err
	}
	for rows.Next() {
		l, in, err := scanListing(rows, nil)
		if err != nil {
			rows.Close()
			return nil, err
		}
		out = append(out, l)
		byID[l.ID] = l
		inputs[l.ID] = in
		l.Categories, l.Founders, l.FAQs, l.LatestUpdates = []CategoryRef{}, []FounderRef{}, []FAQ{}, []Update{}
		l.DomainRating = DomainRating{Trend: "unknown", Source: DomainRatingSource, History: []DRPoint{}}
		l.UnlockedSections = unlockedSections(in.uStory, in.uMile, in.uMedia)
		l.Media = []Media{}
		if in.uStory {
			l.Story = &Story{}
		}
		if in.uMile {
			l.Milestones = []Milestone{}
		}
	}
	rows.Close()
	if err := rows.Err(); err != nil {
		return nil, err
	}
	if len(out) == 0 {
		return out, nil
	}
	if err := bulkParts(ctx, q, lo, hi, byID); err != nil {
		return nil, err
	}
	if err := bulkDomainRatings(ctx, q, lo, hi, byID, inputs); err != nil {
		return nil, err
	}
	if err := bulkInterviews(ctx, q, lo, hi, byID); err != nil {
		return nil, err
	}
	return out, nil
}

// bulkParts reads categories, founders, FAQs, updates, stories, milestones
// and media of the range.
func bulkParts(ctx context.Context, q querier, lo, hi int64, byID map[int64]*Listing) error {
	var id int64
	r := "BETWEEN " + IntArg + " AND " + IntArg
	// CROSS JOIN: the range of the listings' rows first (the planner
	// would seek the range once per category).
	err := rangeRows(ctx, q, `SELECT lc.listing_id, c.slug, c.name FROM listing_categories lc CROSS JOIN categories c ON c.id = lc.category_id
		WHERE lc.listing_id `+r+` ORDER BY lc.listing_id, lc.is_primary DESC, c.name, c.id`, lo, hi, func(rows *sql.Rows) error {
		var c CategoryRef
		if err := rows.Scan(&id, &c.Slug, &c.Name); err != nil {
			return err
		}
		if l := byID[id]; l != nil {
			l.Categories = append(l.Categories, c)
		}
		return nil
	})
	if err != nil {
		return err
	}
	err = rangeRows(ctx, q, `SELECT lf.listing_id, f.slug, f.name, f.title, f.bio, f.socials, f.avatar_url FROM listing_founders lf
		CROSS JOIN founders f ON f.id = lf.founder_id WHERE lf.listing_id `+r+` ORDER BY lf.listing_id, lf.position, lf.founder_id`, lo, hi, func(rows *sql.Rows) error {
		var f FounderRef
		var soc string
		if err := rows.Scan(&id, &f.Slug, &f.Name, &f.Title, &f.Bio, &soc, &f.AvatarURL); err != nil {
			return err
		}
		if l := byID[id]; l != nil {
			f.Socials = orEmptyMap(decodeJSON[map[string]string](soc))
			l.Founders = append(l.Founders, f)
		}
		return nil
	})
	if err != nil {
		return err
	}
	err = rangeRows(ctx, q, `SELECT listing_id, question, answer FROM faqs WHERE listing_id `+r+` ORDER BY listing_id, position, id`,
		lo, hi, func(rows *sql.Rows) error {
			var f FAQ
			if err := rows.Scan(&id, &f.Question, &f.Answer); err != nil {
				return err
			}
			if l := byID[id]; l != nil {
				l.FAQs = append(l.FAQs, f)
			}
			return nil
		})
	if err != nil {
		return err
	}
	err = rangeRows(ctx, q, `SELECT listing_id, id, title, body, created_at FROM listing_updates WHERE listing_id `+r+`
		ORDER BY listing_id, created_at DESC, id DESC`, lo, hi, func(rows *sql.Rows) error {
		var u Update
		if err := rows.Scan(&id, &u.ID, &u.Title, &u.Body, &u.CreatedAt); err != nil {
			return err
		}
		if l := byID[id]; l != nil && len(l.LatestUpdates) < 5 {
			l.LatestUpdates = append(l.LatestUpdates, u)
		}
		return nil
	})
	if err != nil {
		return err
	}
	err = rangeRows(ctx, q, `SELECT listing_id, title, story, why_started, problem, journey, challenges, achievements, lessons,
		whats_next, updated_at FROM stories WHERE listing_id `+r+` ORDER BY listing_id`, lo, hi, func(rows *sql.Rows) error {
		var s Story
		if err := rows.Scan(&id, &s.Title, &s.Story, &s.WhyStarted, &s.Problem, &s.Journey, &s.Challenges, &s.Achievements,
			&s.Lessons, &s.WhatsNext, &s.UpdatedAt); err != nil {
			return err
		}
		if l := byID[id]; l != nil && l.Story != nil { // unlocked
			l.Story = &s
		}
		return nil
	})
	if err != nil {
		return err
	}
	err = rangeRows(ctx, q, `SELECT listing_id, id, date, title, description, url FROM milestones WHERE listing_id `+r+`
		ORDER BY listing_id, date, id`, lo, hi, func(rows *sql.Rows) error {
		var m Milestone
		if err := rows.Scan(&id, &m.ID, &m.Date, &m.Title, &m.Description, &m.URL); err != nil {
			return err
		}
		if l := byID[id]; l != nil && l.Milestones != nil { // unlocked
			l.Milestones = append(l.Milestones, m)
		}
		return nil
	})
	if err != nil {
		return err
	}
	// The gallery is the paid media section; every listing shows its
	// first screenshot (loadMedia).
	return rangeRows(ctx, q, `SELECT listing_id, kind, url, caption FROM media WHERE listing_id `+r+` ORDER BY listing_id, position, id`,
		lo, hi, func(rows *sql.Rows) error {
			var m Media
			if err := rows.Scan(&id, &m.Kind, &m.URL, &m.Caption); err != nil {
				return err
			}
			l := byID[id]
			if l == nil {
				return nil
			}
			if slices.Contains(l.UnlockedSections, "media") || (m.Kind == "image" && len(l.Media) == 0) {
				l.Media = append(l.Media, m)
			}
			return nil
		})
}

// bulkDomainRatings reads the newest twelve Domain Rating points of each
// listing of the range (domainRating).
func bulkDomainRatings(ctx context.Context, q querier, lo, hi int64, byID map[int64]*Listing, inputs map[int64]partsInputs) error {
	var id int64
	sources := map[int64]string{}
	err := rangeRows(ctx, q, `SELECT listing_id, measured_on, rating, source FROM domain_ratings WHERE listing_id BETWEEN `+IntArg+` AND `+IntArg+`
		ORDER BY listing_id, measured_on DESC`, lo, hi, func(rows *sql.Rows) error {
		var p DRPoint
		var source string
		if err := rows.Scan(&id, &p.Date, &p.Rating, &source); err != nil {
			return err
		}
		if l := byID[id]; l != nil && len(l.DomainRating.History) < 12 {
			if len(l.DomainRating.History) == 0 {
				sources[id] = source // the newest point's
			}
			l.DomainRating.History = append(l.DomainRating.History, p)
		}
		return nil
	})
	if err != nil {
		return err
	}
	for id, l := range byID {
		slices.Reverse(l.DomainRating.History) // oldest first
		finishDomainRating(&l.DomainRating, sources[id], inputs[id].dr)
	}
	return nil
}

// bulkInterviews reads the owner of each listing of the range
// (listingInterview) and each owner's published answers once.
func bulkInterviews(ctx context.Context, q querier, lo, hi int64, byID map[int64]*Listing) error {
	var id int64
	owners := map[int64]int64{}
	err := rangeRows(ctx, q, `SELECT listing_id, user_id FROM listing_owners WHERE listing_id BETWEEN `+IntArg+` AND `+IntArg+`
		AND role IN ('owner','claimed') ORDER BY listing_id, role = 'claimed', created_at, user_id`, lo, hi, func(rows *sql.Rows) error {
		var uid int64
		if err := rows.Scan(&id, &uid); err != nil {
			return err
		}
		if _, seen := owners[id]; !seen {
			owners[id] = uid
		}
		return nil
	})
	if err != nil {
		return err
	}
	answers := map[int64][]InterviewAnswer{}
	for _, l := range byID {
		uid := owners[l.ID]
		a, ok := answers[uid]
		if !ok {
			if a, err = interviewOf(ctx, q, uid); err != nil {
				return err
			}
			answers[uid] = a
		}
		l.Interview = a
	}
	return nil
}
