package demo

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"time"

	"launchdir/db"
)

// seedBatch listings are written per transaction: large enough to amortise
// commits, small enough to keep memory flat in N.
const seedBatch = 5000

// Bulk-load settings of the writer connection while seeding: no fsync (a
// seed interrupted by a crash is thrown away anyway; each batch is still
// atomic) and a page cache big enough for the listing indexes' hot pages.
// Restored afterwards.
const (
	seedPragmas    = `PRAGMA synchronous=OFF; PRAGMA cache_size=-131072`
	restorePragmas = `PRAGMA synchronous=NORMAL; PRAGMA cache_size=-16000`
)

// Seed fills an empty database with n listings for benchmarks. It follows
// the demo's rules (consistent counters, awards, categories) with lighter
// prose and activity, spreads launches over two years, and writes in
// batches of seedBatch listings per transaction.
func Seed(ctx context.Context, d *db.DB, n int, seed int64, now time.Time) error {
	if now.IsZero() {
		return errors.New("demo: now is required")
	}
	if n < 0 {
		return errors.New("demo: n must not be negative")
	}
	if err := ensureEmpty(ctx, d); err != nil {
		return err
	}
	if _, err := d.W.ExecContext(ctx, seedPragmas); err != nil {
		return err
	}
	defer d.W.ExecContext(context.WithoutCancel(ctx), restorePragmas)
	var ftsTrigger string
	if err := d.W.QueryRowContext(ctx, `SELECT sql FROM sqlite_master WHERE type = 'trigger' AND name = 'listings_fts_ai'`).Scan(&ftsTrigger); err != nil {
		return fmt.Errorf("demo: the full-text insert trigger: %w", err)
	}
	g := newGen(seed, now)
	if err := d.Tx(ctx, func(tx *sql.Tx) error {
		if err := moveAccountsAside(ctx, tx); err != nil {
			return err
		}
		w := newWriter(ctx, tx)
		g.writeBase(w)
		return w.err
	}); err != nil {
		return err
	}
	for start := 0; start < n; start += seedBatch {
		batch := make([]*listing, 0, seedBatch)
		for id := start + 1; id <= min(start+seedBatch, n); id++ {
			batch = append(batch, g.seedListing(int64(id)))
		}
		alts := g.alternatives(batch, 5)
		if err := d.Tx(ctx, func(tx *sql.Tx) error {
			// The full-text index is filled once per batch instead of by
			// the per-row trigger: FTS5 flushes its pending terms at every
			// statement, so row-by-row indexing writes thousands of tiny
			// segments. The trigger is dropped and re-created inside the
			// batch's transaction, so an interrupted seed leaves it in place.
			if _, err := tx.ExecContext(ctx, `DROP TRIGGER listings_fts_ai`); err != nil {
				return err
			}
			w := newWriter(ctx, tx)
			g.writePendingFounders(w)
			for _, l := range batch {
				writeListing(w, l)
			}
			writeAlternatives(w, alts)
			if w.err != nil {
				return w.err
			}
			if _, err := tx.ExecContext(ctx, `INSERT INTO listings_fts(rowid, name, tagline, description, features, keywords)
				SELECT id, name, tagline, description, features, keywords FROM listings WHERE id BETWEEN ? AND ?`,
				batch[0].ID, batch[len(batch)-1].ID); err != nil {
				return err
			}
			_, err := tx.ExecContext(ctx, ftsTrigger)
			return err
		}); err != nil {
			return err
		}
	}
	return d.Tx(ctx, func(tx *sql.Tx) error { return g.finish(newWriter(ctx, tx)) })
}

// seedStatuses weights: mostly live, a few of everything else.
var seedStatuses = []string{"live", "scheduled", "draft", "awaiting_badge", "rejected", "archived"}
var seedStatusWeights = []int{90, 5, 2, 1, 1, 1}

func (g *gen) seedListing(id int64) *listing {
	st := seedStatuses[g.weighted(seedStatusWeights)]
	if id <= 3 {
		st = "live" // something always launched today
	}
	l := g.newListing(id, st, g.primaryCategory(), false)
	switch st {
	case "live":
		g.launchLive(l, nil, liveOpts{thisWeek: id <= 3, today: id <= 3, maxWeeksBack: 104})
	case "scheduled":
		g.schedule(l, nil)
	default:
		g.unlaunched(l, st)
	}
	if id <= 3 {
		l.Owners = []owner{{UserID: demoUserID, Role: "owner"}}
	}
	g.attachFounders(l, nil)
	g.activity(l, seedLevel)
	if st == "live" && g.chance(1) {
		g.billboard(l)
	}
	return l
}
