package demo

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"strconv"
	"strings"
	"time"

	"launchdir/db"
)

// seedChunk listings are generated, then written, at a time: the
// generator runs one chunk ahead of the writer in its own goroutine, and
// the memory in flight is a few chunks whatever the total.
const seedChunk = 1000

// Seed fills an empty database with n listings for benchmarks. It follows
// the demo's rules (consistent counters, awards, categories) with lighter
// prose and activity and spreads launches over two years.
//
// The whole seed is ONE transaction, so it is atomic: a seed that is
// cancelled, fails or is killed leaves the database as it was (empty),
// with its schema whole, and a rerun starts from scratch. Inside it the
// load is a bulk load: the secondary indexes of the filled tables and the
// full-text insert trigger are dropped first and re-created at the end
// (one sort per index instead of a B-tree insert per row and index), the
// full-text index is built once (one insert of every listing), foreign keys are not checked
// (the generator writes parents first) and, when the seeder has the file
// to itself, the rollback journal replaces the WAL: pages the seed appends
// are not journaled, so the journal stays small, and a killed seed is
// rolled back at the next open by truncating the file (no WAL of the
// size of the database to replay). The WAL is switched back on at the end.
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
	return d.WithoutCheckpoints(func() error { return seedAlone(ctx, d, n, seed, now) })
}

// seedAlone is Seed once the file is its own (no checkpoint connection).
func seedAlone(ctx context.Context, d *db.DB, n int, seed int64, now time.Time) error {
	conn, err := d.W.Conn(ctx) // the writer, held for the whole seed
	if err != nil {
		return err
	}
	defer conn.Close()
	restore, err := bulkLoadMode(ctx, conn)
	if err != nil {
		return err
	}
	defer restore()
	// Not bound to ctx: database/sql would roll a cancelled transaction
	// back in another goroutine, racing the restore of the connection's
	// settings. Statements take ctx, so a cancel stops the running one, and
	// the deferred Rollback runs before the restore.
	tx, err := conn.BeginTx(context.WithoutCancel(ctx), nil)
	if err != nil {
		return err
	}
	defer tx.Rollback() // no-op after Commit
	if err := seedTx(ctx, tx, n, seed, now); err != nil {
		if ctx.Err() != nil {
			return fmt.Errorf("demo: seed stopped: %w", context.Cause(ctx))
		}
		return err
	}
	err = tx.Commit()
	PhasesOf(ctx).Done("commit")
	return err
}

// Connection settings of the writer during a seed: no fsync (a killed
// seed is rolled back from the journal either way), a 64 MB page cache for
// the load (the UNIQUE slug indexes take rows at random pages), 8 MB for
// the index builds, index sorts spilling to temporary files rather than
// memory (so the seeder's memory does not grow with N) and a helper thread
// for those sorts. The connection's own values come back afterwards.
var seedPragmas = []string{"foreign_keys=OFF", "synchronous=OFF", "cache_size=-65536", "temp_store=FILE", "threads=2", "busy_timeout=5000"}

const indexPragmas = `PRAGMA cache_size=-8192`

// bulkLoadMode applies seedPragmas to conn and leaves WAL mode when no
// other connection has the file open; it returns what undoes both.
func bulkLoadMode(ctx context.Context, conn *sql.Conn) (func(), error) {
	var restore []string
	for _, p := range seedPragmas {
		name, _, _ := strings.Cut(p, "=")
		var v string
		if err := conn.QueryRowContext(ctx, `PRAGMA `+name).Scan(&v); err != nil {
			return nil, err
		}
		restore = append(restore, `PRAGMA `+name+`=`+v)
	}
	undo := func() {
		// WAL first: the other pragmas are per connection, the journal
		// mode is the file's.
		bg := context.WithoutCancel(ctx)
		conn.ExecContext(bg, `PRAGMA journal_mode=WAL`)
		conn.ExecContext(bg, strings.Join(restore, "; "))
	}
	// Leaving WAL needs the file to itself: do not wait for readers (a
	// server in the same process), stay in WAL if there are any.
	if _, err := conn.ExecContext(ctx, `PRAGMA busy_timeout=0`); err != nil {
		undo()
		return nil, err
	}
	var mode string
	if err := conn.QueryRowContext(ctx, `PRAGMA journal_mode=TRUNCATE`).Scan(&mode); err != nil && !strings.Contains(err.Error(), "locked") {
		undo()
		return nil, err
	}
	if _, err := conn.ExecContext(ctx, `PRAGMA `+strings.Join(seedPragmas, "; PRAGMA ")); err != nil {
		undo()
		return nil, err
	}
	return undo, nil
}

// seedTx writes the whole seed in tx.
func seedTx(ctx context.Context, tx *sql.Tx, n int, seed int64, now time.Time) error {
	if err := moveAccountsAside(ctx, tx); err != nil {
		return err
	}
	g := newGen(seed, now, n)
	g.liveCats = map[int64]int{}
	w := newWriter(ctx, tx)
	g.writeBase(w)
	if err := w.flush(); err != nil {
		return err
	}
	rebuild, err := dropDerived(ctx, tx)
	if err != nil {
		return err
	}
	if err := g.writeListings(ctx, w, n); err != nil {
		return err
	}
	if err := g.finish(w); err != nil {
		return err
	}
	if err := g.writeCategoryCounts(ctx, tx); err != nil {
		return err
	}
	PhasesOf(ctx).Done("rows")
	// The full-text index in one pass over the listings, then the indexes,
	// with a small page cache: these read tables sequentially and sort,
	// and the cache size is also each sort's in-memory run. Measured on a
	// 1M file (four of the indexes): 64 MB took 20 s and 320 MB of RSS,
	// 8 MB 8.7 s and 59 MB (shorter runs sort in CPU cache and the helper
	// thread merges them); the full-text rebuild is as fast either way.
	if _, err := tx.ExecContext(ctx, indexPragmas); err != nil {
		return err
	}
	if err := noteProfiles(ctx, tx); err != nil {
		return err
	}
	if err := buildFTS(ctx, tx); err != nil {
		return err
	}
	PhasesOf(ctx).Done("search index")
	for _, q := range rebuild {
		if _, err := tx.ExecContext(ctx, q); err != nil {
			return fmt.Errorf("demo: re-creating %q: %w", q, err)
		}
	}
	PhasesOf(ctx).Done("indexes")
	return nil
}

// ftsBuild builds the full-text index of every listing as one merged
// segment (buildFTS). A plain 'rebuild' stops with merges half done, and
// FTS5 finishes them a few pages at a time in each later write: the first
// 40,000 owner PATCHes after a seed ran at 3,800–5,000 req/s (p99 13–14
// ms) against 5,600–6,000 (p99 5 ms) after. So the text goes in with
// merges off (automerge 0 since migration 0029; crisis merges only past
// 64 segments, where FTS5's limit is 2,000) and a 32 MB pending-data hash
// (ftsBuildHash: 13 segments at 1M listings instead of about 430 of 1 MB),
// and 'optimize' merges them all at once: 18 s at 1M where merging level
// by level as they came took 30 s. raiseSeedSegment then gives the segment
// the level such a build would have reached (ftslevel.go). The settings
// changed come back afterwards.
var ftsBuild = []string{
	`INSERT INTO listings_fts(listings_fts, rank) VALUES('automerge', 0)`,
	`INSERT INTO listings_fts(listings_fts, rank) VALUES('crisismerge', 64)`,
	`INSERT INTO listings_fts(listings_fts, rank) VALUES('hashsize', ?)`,
	// 'rebuild' would index each listing at its id; one not live belongs at
	// its id + 2^40 (migration 0031, db.hiddenRowid). Live listings first,
	// then the others: FTS5 writes its pending rows out as a segment
	// whenever a rowid is lower than the one before, so one pass in id
	// order (rowids jumping up and down) wrote 10,000 small segments at
	// 100k and merged them (+2.5 s).
	`INSERT INTO listings_fts(listings_fts) VALUES('delete-all')`,
	`INSERT INTO listings_fts(rowid, name, tagline, description, features, keywords)
	  SELECT id, name, tagline, description, features, keywords FROM listings WHERE status = 'live' ORDER BY id`,
	`INSERT INTO listings_fts(rowid, name, tagline, description, features, keywords)
	  SELECT id + 1099511627776, name, tagline, description, features, keywords FROM listings WHERE status != 'live' ORDER BY id`,
	`INSERT INTO listings_fts(listings_fts) VALUES('optimize')`,
}

// ftsBuildHash is FTS5's pending-data hash while the seed builds the
// index (bytes); a test lowers it to make the build flush many segments.
var ftsBuildHash = 32 << 20

// ftsDefaults are FTS5's own values of the settings the build changes, for
// a table that had none stored.
var ftsDefaults = map[string]string{"crisismerge": "16", "hashsize": "1048576", "automerge": "4"}

func buildFTS(ctx context.Context, tx *sql.Tx) error {
	restore, err := ftsSettings(ctx, tx)
	if err != nil {
		return err
	}
	for _, q := range ftsBuild {
		var args []any
		if strings.Contains(q, "?") {
			args = append(args, ftsBuildHash)
		}
		if _, err := tx.ExecContext(ctx, q, args...); err != nil {
			return fmt.Errorf("demo: full-text index (%s): %w", q, err)
		}
	}
	for _, q := range restore {
		if _, err := tx.ExecContext(ctx, q); err != nil {
			return fmt.Errorf("demo: full-text index (%s): %w", q, err)
		}
	}
	return raiseSeedSegment(ctx, tx)
}

// ftsSettings returns the statements that put back the full-text settings
// ftsBuild changes: the stored value, or FTS5's default.
func ftsSettings(ctx context.Context, tx *sql.Tx) ([]string, error) {
	var out []string
	for _, k := range []string{"automerge", "crisismerge", "hashsize"} {
		v := ftsDefaults[k]
		err := tx.QueryRowContext(ctx, `SELECT v FROM listings_fts_config WHERE k = ?`, k).Scan(&v)
		if err != nil && !errors.Is(err, sql.ErrNoRows) {
			return nil, err
		}
		n, err := strconv.Atoi(v)
		if err != nil {
			return nil, fmt.Errorf("demo: full-text setting %s=%q", k, v)
		}
		out = append(out, fmt.Sprintf(`INSERT INTO listings_fts(listings_fts, rank) VALUES('%s', %d)`, k, n))
	}
	return out, nil
}

// seedTables are the tables the seed fills in bulk (their secondary
// indexes are dropped during the load).
var seedTables = func() []string {
	var out []string
	for t := range columns {
		out = append(out, t)
	}
	return out
}()

// dropDerived drops, inside tx, the secondary indexes of the seeded tables,
// the full-text insert trigger, the listings insert trigger that adds the
// first launch, the weekly_votes triggers (the seed writes each launch
// row with its week's count itself, rather than rewriting the row once per
// weekly count), the membership rank trigger (the seed writes each
// listing_categories row with its listing's live flag and votes) and the
// triggers that retire ready-made profiles (some
// look rows up by an index dropped here, a scan per row; the seed notes
// every live listing for its profile once, noteProfiles), and returns the statements
// that re-create them. Uniqueness the generator relies on (primary keys, UNIQUE
// columns) stays enforced: those indexes belong to their tables.
func dropDerived(ctx context.Context, tx *sql.Tx) ([]string, error) {
	marks := strings.TrimSuffix(strings.Repeat("?,", len(seedTables)), ",")
	args := make([]any, len(seedTables))
	for i, t := range seedTables {
		args[i] = t
	}
	rows, err := tx.QueryContext(ctx, `SELECT type, name, sql FROM sqlite_master
		WHERE (type = 'index' AND sql IS NOT NULL AND tbl_name IN (`+marks+`))
		   OR (type = 'trigger' AND name IN ('listings_fts_ai', 'listings_launch_ai', 'listing_categories_rank_ai', 'listings_days_ai'))
		   OR (type = 'trigger' AND tbl_name = 'weekly_votes')
		   OR (type = 'trigger' AND name LIKE '%\_profile\_a_' ESCAPE '\')
		ORDER BY type, name`, args...)
	if err != nil {
		return nil, err
	}
	var kinds, names, rebuild []string
	for rows.Next() {
		var kind, name, q string
		if err := rows.Scan(&kind, &name, &q); err != nil {
			rows.Close()
			return nil, err
		}
		kinds, names, rebuild = append(kinds, kind), append(names, name), append(rebuild, q)
	}
	rows.Close()
	if err := rows.Err(); err != nil {
		return nil, err
	}
	for i, name := range names {
		if _, err := tx.ExecContext(ctx, `DROP `+strings.ToUpper(kinds[i])+` "`+name+`"`); err != nil {
			return nil, err
		}
	}
	return rebuild, nil
}

// writeListings generates n listings in a goroutine, chunk by chunk, and
// turns each chunk into rows (founders first, since listings link to
// them), while this one writes them. The generator alone touches g until
// it is done.
func (g *gen) writeListings(ctx context.Context, w *writer, n int) error {
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	chunks := make(chan *rowSet, 1)
	go func() {
		defer close(chunks)
		for start := 0; start < n; start += seedChunk {
			listings := make([]*listing, 0, seedChunk)
			for id := start + 1; id <= min(start+seedChunk, n); id++ {
				l := g.seedListing(int64(id))
				g.tallyLive(l)
				listings = append(listings, l)
			}
			rs := &rowSet{}
			for _, f := range g.pendingFounders {
				writeFounder(rs, f)
			}
			g.pendingFounders = nil
			for _, l := range listings {
				writeListing(rs, l)
			}
			writeAlternatives(rs, g.alternatives(listings, 5))
			select {
			case chunks <- rs:
			case <-ctx.Done():
				return
			}
		}
	}()
	var err error
	for rs := range chunks {
		if err != nil {
			continue // drain, so the generator can finish
		}
		if err = w.write(rs); err != nil {
			cancel()
		}
	}
	if err != nil {
		return err
	}
	return ctx.Err()
}

// tallyLive counts a live listing in its categories and their parents,
// once each: what db.RecountCategories computes, without a query over
// every listing at the end.
func (g *gen) tallyLive(l *listing) {
	if l.Status != "live" {
		return
	}
	var seen []int64
	count := func(id int64) {
		for _, s := range seen {
			if s == id {
				return
			}
		}
		seen = append(seen, id)
		g.liveCats[id]++
	}
	for _, c := range append([]*category{l.Category}, l.Extra...) {
		count(c.ID)
		if c.ParentID != 0 {
			count(c.ParentID)
		}
	}
}

func (g *gen) writeCategoryCounts(ctx context.Context, tx *sql.Tx) error {
	st, err := tx.PrepareContext(ctx, `UPDATE categories SET live_count = ? WHERE id = ?`)
	if err != nil {
		return err
	}
	defer st.Close()
	for _, c := range g.cats {
		if _, err := st.ExecContext(ctx, g.liveCats[c.ID], c.ID); err != nil {
			return err
		}
	}
	return nil
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
	l.words = nil // the prose is written; its replacer is the bulk of a listing's memory
	return l
}

// noteProfiles notes every live listing for its ready-made profile (db:
// RebuildStaleProfiles builds them), in one statement: the triggers that
// note them one by one are dropped during the load.
func noteProfiles(ctx context.Context, tx *sql.Tx) error {
	_, err := tx.ExecContext(ctx, `INSERT OR IGNORE INTO listing_profiles_stale(listing_id) SELECT id FROM listings WHERE status = 'live'`)
	return err
}
