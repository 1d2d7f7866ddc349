package demo

import "sort"

type award struct {
	Week      string
	Rank      int
	ListingID int64
	Votes     int
}

// computeAwards ranks every completed week (week < before) by the votes of
// the listings launched in it, counted in that week (weekly holds only
// launch-week counts: see castVotes): the top three win, ties going to the
// lower listing id, the service's ranking (db.WeekRankFrom). Only live
// listings receive votes, so every count belongs to a live listing.
func computeAwards(weekly []weekCount, before string) []award {
	ws := append([]weekCount(nil), weekly...)
	sortWeekly(ws)
	var out []award
	rank := 0
	for i, wc := range ws {
		if i == 0 || wc.Week != ws[i-1].Week {
			rank = 0
		}
		rank++
		if wc.Week < before && rank <= 3 && wc.Votes > 0 {
			out = append(out, award{Week: wc.Week, Rank: rank, ListingID: wc.ListingID, Votes: wc.Votes})
		}
	}
	return out
}

// sortWeekly orders weekly counts by week, then the award order.
func sortWeekly(ws []weekCount) {
	sort.Slice(ws, func(i, j int) bool {
		a, b := ws[i], ws[j]
		if a.Week != b.Week {
			return a.Week < b.Week
		}
		if a.Votes != b.Votes {
			return a.Votes > b.Votes
		}
		return a.ListingID < b.ListingID
	})
}

// pruneWeekly keeps only each week's first three in award order, which is
// all computeAwards can use, so the seeder's memory stays flat in N.
func (g *gen) pruneWeekly() {
	sortWeekly(g.weekly)
	kept := g.weekly[:0]
	rank := 0
	for i, wc := range g.weekly {
		if i == 0 || wc.Week != g.weekly[i-1].Week {
			rank = 0
		}
		if rank++; rank <= 3 {
			kept = append(kept, wc)
		}
	}
	g.weekly = append([]weekCount(nil), kept...)
	g.weeklyKept = len(g.weekly)
}

type alternative struct {
	ListingID, AlternativeID int64
	Approved                 bool
}

// alternatives suggests listings from the same primary category for about
// percent% of the live listings; the owner approved about half of them.
func (g *gen) alternatives(ls []*listing, percent int) []alternative {
	byCat := map[int64][]*listing{}
	for _, l := range ls {
		if l.Status == "live" {
			byCat[l.Category.ID] = append(byCat[l.Category.ID], l)
		}
	}
	seen := map[[2]int64]bool{}
	var out []alternative
	for _, l := range ls {
		if l.Status != "live" || !g.chance(percent) {
			continue
		}
		for _, p := range sample(g, byCat[l.Category.ID], 1+g.r.IntN(2)) {
			key := [2]int64{l.ID, p.ID}
			if p == l || seen[key] {
				continue
			}
			seen[key] = true
			out = append(out, alternative{ListingID: l.ID, AlternativeID: p.ID, Approved: g.chance(50)})
		}
	}
	return out
}

func writeAlternatives(w *rowSet, alts []alternative) {
	for _, a := range alts {
		w.insert("alternatives", a.ListingID, a.AlternativeID, flag(a.Approved))
	}
}
