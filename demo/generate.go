// Package demo fills a database with a realistic, reproducible launch
// directory: categories, listings in every status, founders, votes,
// reviews, awards, blog posts and the site's products and settings.
package demo

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"time"

	"launchdir/db"
)

// Options configures Generate.
type Options struct {
	Seed     int64
	Listings int       // default 300: at least 250 live plus scheduled and other statuses
	Now      time.Time // required; every timestamp is derived from it
	// BaseURL is the server's origin, for the images' URLs (default
	// http://localhost:8080).
	BaseURL string
}

// DefaultListings is the size of the demo directory.
const DefaultListings = 300

// Generate fills an empty database with the demo directory in one
// transaction. The same Seed and Now always produce identical rows.
func Generate(ctx context.Context, d *db.DB, o Options) error {
	if o.Now.IsZero() {
		return errors.New("demo: Options.Now is required")
	}
	n := o.Listings
	if n <= 0 {
		n = DefaultListings
	}
	if err := ensureEmpty(ctx, d); err != nil {
		return err
	}
	g := newGen(o.Seed, o.Now, n)
	ls := g.demoListings(n)
	alts := g.alternatives(ls, 25)
	base := o.BaseURL
	if base == "" {
		base = "http://localhost:8080"
	}
	imgs := drawImages(ls, g.pendingFounders)
	imgs.attach(base, ls, g.pendingFounders)
	return d.Tx(ctx, func(tx *sql.Tx) error {
		if err := moveAccountsAside(ctx, tx); err != nil {
			return err
		}
		if err := tagDemoEmails(ctx, tx, demoEmails()); err != nil {
			return err
		}
		w := newWriter(ctx, tx)
		imgs.write(w, o.Now)
		g.writeBase(w)
		g.writePendingFounders(w)
		for _, l := range ls {
			writeListing(&w.rowSet, l)
		}
		writeAlternatives(&w.rowSet, alts)
		if err := g.finish(w); err != nil {
			return err
		}
		if err := mergeTagged(ctx, tx); err != nil {
			return err
		}
		return db.RecountCategories(ctx, tx)
	})
}

// ensureEmpty refuses to mix demo rows into a directory that has data.
// Accounts alone are fine (Generate moves them aside).
func ensureEmpty(ctx context.Context, d *db.DB) error {
	var n int
	err := d.W.QueryRowContext(ctx, `SELECT (SELECT count(*) FROM listings) + (SELECT count(*) FROM categories)`).Scan(&n)
	if err != nil {
		return err
	}
	if n > 0 {
		return fmt.Errorf("demo: database is not empty (%d listings and categories)", n)
	}
	return nil
}

// statusMix returns the statuses of n listings: about 20 scheduled and a
// few of each non-live status per 300, the rest live.
func statusMix(n int) []string {
	var out []string
	for _, s := range []struct {
		status string
		count  int
	}{
		{"scheduled", n * 20 / 300}, {"draft", n / 75}, {"awaiting_badge", n / 100},
		{"rejected", n / 100}, {"archived", n / 75},
	} {
		for range s.count {
			out = append(out, s.status)
		}
	}
	for len(out) < n {
		out = append(out, "live")
	}
	return out
}

// demoListings builds every listing with its activity, in id order.
func (g *gen) demoListings(n int) []*listing {
	statuses := statusMix(n)
	g.r.Shuffle(len(statuses), func(i, j int) { statuses[i], statuses[j] = statuses[j], statuses[i] })
	load := newWeekLoad()
	seen := map[string]int{}
	userFounders := map[int64]*founder{}
	ls := make([]*listing, 0, n)
	for i, st := range statuses {
		k := seen[st]
		seen[st]++
		l := g.newListing(int64(i+1), st, g.primaryCategory(), true)
		switch st {
		case "live":
			// The first live listings launch this week, three of them today,
			// so the current board and "launched today" are never empty.
			g.launchLive(l, load, liveOpts{thisWeek: k < 8, today: k < 3, paid: k == 0})
			if k == 0 {
				l.UnlockStory, l.UnlockMiles, l.UnlockMedia = true, true, true
			}
		case "scheduled":
			g.schedule(l, load)
		default:
			g.unlaunched(l, st)
		}
		var lead *founder
		if o, ok := demoOwner(st, k); ok {
			l.Owners = []owner{o}
			lead = g.userFounder(userFounders, o.UserID, l)
		}
		g.attachFounders(l, lead)
		g.activity(l, demoLevel)
		ls = append(ls, l)
	}
	g.pickBillboard(ls, 15)
	return ls
}

// demoOwner says which user owns the k-th listing of a status: the demo
// user gets a spread of statuses to try every owner screen, the other
// named users a couple of live listings each.
func demoOwner(status string, k int) (owner, bool) {
	switch {
	case status == "live" && (k == 0 || k == 1 || k == 8):
		return owner{UserID: demoUserID, Role: "owner"}, true
	case k == 0 && (status == "scheduled" || status == "draft" || status == "awaiting_badge"):
		return owner{UserID: demoUserID, Role: "owner"}, true
	case status == "live" && k >= 20 && k < 20+2*5:
		role := "owner"
		if k%2 == 1 {
			role = "claimed"
		}
		return owner{UserID: int64(3 + (k-20)/2), Role: role}, true
	}
	return owner{}, false
}

// userFounder returns the founder profile of a named user, creating it
// with their first listing.
func (g *gen) userFounder(byUser map[int64]*founder, userID int64, l *listing) *founder {
	if f := byUser[userID]; f != nil {
		return f
	}
	name := namedUsers[userID-1].Name
	f := g.newFounder(name, l.Country, l.Name, userID, l.CreatedAt)
	byUser[userID] = f
	return f
}

// primaryCategory is usually a subcategory, sometimes a whole top-level one.
func (g *gen) primaryCategory() *category {
	if g.chance(10) {
		return pick(g, g.tops)
	}
	return pick(g, g.leaves)
}

// pickBillboard gives n live listings billboard contributions.
func (g *gen) pickBillboard(ls []*listing, n int) {
	var live []*listing
	for _, l := range ls {
		if l.Status == "live" {
			live = append(live, l)
		}
	}
	for _, l := range sample(g, live, n) {
		g.billboard(l)
	}
}
