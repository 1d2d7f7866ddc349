package db

import (
	"context"
	"database/sql"
	"strconv"

	"launchdir/ops"
)

// syncFTSSQL clears the notes of the listings whose text or liveness
// changed in the transaction (migration 0011), once syncFTSIndexSQL has
// re-indexed them. FTS5 keeps all of a transaction's index changes in
// memory and writes them out once, at the commit.
const syncFTSSQL = `DELETE FROM listings_fts_stale`

// syncFTSIndexSQL writes the notes' index changes, in rowid order, as one
// statement (migration 0032): each note's text out where it is indexed,
// the listing's current text in where its status says (nothing if it is
// gone), the delete first at one rowid. FTS5 writes its pending rows out as
// a segment whenever a rowid is lower than the one before, and since 0031 a
// note's two writes can sit on both sides of 2^40: applied note by note in
// id order, a commit editing live listings and drafts wrote a segment per
// switch (10 for 20 interleaved edits), where one commit should write one.
// CROSS JOIN keeps the notes as the outer loop: with the notes table
// empty in the statistics, the planner otherwise scanned every listing and
// probed the notes (an owner PATCH 5,200 -> 55 req/s).
var syncFTSIndexSQL = `INSERT INTO listings_fts(listings_fts, rowid, name, tagline, description, features, keywords)
  SELECT cmd, r, name, tagline, description, features, keywords FROM (
    SELECT 'delete' AS cmd, fts_rowid AS r, name, tagline, description, features, keywords, 0 AS k FROM listings_fts_stale
    UNION ALL
    SELECT NULL, ` + ftsRowidOf("l") + `, l.name, l.tagline, l.description, l.features, l.keywords, 1
      FROM listings_fts_stale s CROSS JOIN listings l ON l.id = s.id)
  ORDER BY r, k`

// syncFTS brings the full-text index up to date inside tx. Every Tx runs
// it before committing, a group commit when a search waits (see deferred
// notes below); Open runs it too, for notes left in the file.
func (d *DB) syncFTS(ctx context.Context, tx *sql.Tx) error {
	if !d.ftsNotes { // migrating: the notes table may not exist yet
		return nil
	}
	// Most write transactions (votes, sessions, follows) note nothing, and
	// an INSERT into the full-text table writes a page of its own at the
	// commit even when it inserts no row (one more WAL frame per commit).
	q := d.Prepared(tx)
	var noted bool
	if err := q.QueryRowContext(ctx, ftsNotedSQL).Scan(&noted); err != nil || !noted {
		return err
	}
	if _, err := q.ExecContext(ctx, syncFTSIndexSQL); err != nil {
		return err
	}
	_, err := q.ExecContext(ctx, syncFTSSQL)
	return err
}

// Deferred notes (issue 26, twelfth round). Applying the notes costs a
// commit more than its statements: FTS5 writes the transaction's index
// changes out as a new segment, with the index's structure record, its
// averages and a page of the segment index, about half the WAL frames of
// an owner edit's commit. Beside a c=1 owner PATCH writer, uncached gets
// made 8-17% more requests with no index work in the commits at all. So a
// group commit (owner edits, votes) leaves its notes in the table, and
// they are applied:
//   - by the next Tx (every Tx still syncs before it commits), at the
//     latest the rebuilder's, profileDelay after the edit (profiles.go):
//     a stream of edits to a few listings then costs one index change per
//     listing per delay instead of one per edit;
//   - by the next group commit a search joins (SyncFTS): a search that
//     finds notes in the snapshot it would read has them applied first
//     (searchable), so a search never misses an edit committed before it
//     began, as when every commit synced.
// Notes are rows of the file: a crash leaves them for Open to apply.

// ftsNotedSQL says whether any notes wait.
const ftsNotedSQL = `SELECT EXISTS (SELECT 1 FROM listings_fts_stale)`

// SyncFTS applies every note committed before it is called, in the next
// group commit (shared with the edits in it and other searches waiting).
func (d *DB) SyncFTS(ctx context.Context) error {
	// Not the request's effect: an idempotent request that searched must
	// not have its key marked by this commit (markIdemEffect).
	ctx = ops.WithoutIdemClaim(ctx)
	return d.groupTx(ctx, true, func(context.Context, *sql.Tx) error { return nil })
}

// searchable is ctx made ready for a search of the full-text index: when
// the snapshot the search would read (the page's pinned one, if any) has
// notes, they are applied (SyncFTS) and the search reads after that
// commit, outside the pin. A read-only replica applies nothing: its copy
// shows the primary's index as of its last sync.
func (d *DB) searchable(ctx context.Context) (context.Context, error) {
	if !d.ftsNotes || d.replica {
		return ctx, nil
	}
	noted, err := d.ftsNoted(ctx)
	if err != nil || !noted {
		return ctx, err
	}
	if pinOf(ctx) != nil {
		// A pinned snapshot keeps showing the notes after they are
		// applied: ask the newest state, so a page's later searches read
		// outside the pin instead of committing an empty sync each.
		ctx = Unpinned(ctx)
		if noted, err = d.ftsNoted(ctx); err != nil || !noted {
			return ctx, err
		}
	}
	if err := d.SyncFTS(ctx); err != nil {
		return ctx, err
	}
	return Unpinned(ctx), nil
}

// ftsNoted says whether notes wait in the snapshot ctx reads.
func (d *DB) ftsNoted(ctx context.Context) (bool, error) {
	var noted bool
	err := d.Prepared(d.R).QueryRowContext(ctx, ftsNotedSQL).Scan(&noted)
	return noted, err
}

// syncFTSAtOpen applies notes left in the file (see syncFTS).
func (d *DB) syncFTSAtOpen(ctx context.Context) error {
	if err := d.applyNotes(ctx); err != nil {
		return err
	}
	d.ftsNotes = true
	d.profiles = true
	return nil
}

// applyNotes applies every note in the file in a transaction of its own:
// at open (a crash's leftovers), and at close, so a stopped server leaves
// its index current for a copy or a replica of the file.
func (d *DB) applyNotes(ctx context.Context) error {
	tx, err := d.W.BeginTx(ctx, nil)
	if err != nil {
		return err
	}
	for _, q := range []string{syncFTSIndexSQL, syncFTSSQL} {
		if _, err := tx.ExecContext(ctx, q); err != nil {
			tx.Rollback()
			return err
		}
	}
	return tx.Commit()
}

// hiddenRowid is added to the full-text rowid of a listing that is not
// live (migration 0031): live listings are indexed at their id, every other
// at id + hiddenRowid, so a search of live listings is a rowid range of the
// index itself. Counting a frequent word's live matches then walks its list
// of documents alone, instead of looking every match up in the index of
// live ids (two thirds of such a search at 1M listings).
const hiddenRowid int64 = 1 << 40

// ftsRange is the part of the full-text index a search reads, written into
// its SQL: the rowid range of its listings (rng, a condition on the
// full-text table's rowid) and the listing id of a rowid (id).
type ftsRange struct{ rng, id string }

// ftsRowidOf is, in SQL, the full-text rowid of the listing row t (an
// alias of listings). The migrations' triggers write the same rule with the
// number spelled out.
func ftsRowidOf(t string) string {
	return t + ".id + CASE WHEN " + t + ".status = 'live' THEN 0 ELSE " + hiddenRowidSQL + " END"
}

var (
	hiddenRowidSQL = strconv.FormatInt(hiddenRowid, 10)
	// liveFTS is the live listings' range: ids are rowids.
	liveFTS = ftsRange{rng: "listings_fts.rowid < " + hiddenRowidSQL, id: "listings_fts.rowid"}
	// hiddenFTS is every other listing's (a search of scheduled listings).
	hiddenFTS = ftsRange{rng: "listings_fts.rowid >= " + hiddenRowidSQL, id: "(listings_fts.rowid - " + hiddenRowidSQL + ")"}
)

// SearchIndexDiff checks the full-text index against the listings: FTS5's
// own check of its structure, then every (word, listing, column, position)
// the index holds against a fresh index of every listing's current text at
// the rowid its status gives (hiddenRowid). It returns how many entries
// differ, either way (0: the index is exact). FTS5's 'integrity-check' with
// rank 1 cannot do the second part since migration 0031: it reads the
// content back by rowid, and a listing that is not live is not at its id.
func (d *DB) SearchIndexDiff(ctx context.Context) (int, error) {
	conn, err := d.W.Conn(ctx)
	if err != nil {
		return 0, err
	}
	defer conn.Close()
	for _, q := range []string{
		`INSERT INTO listings_fts(listings_fts) VALUES('integrity-check')`,
		`DROP TABLE IF EXISTS temp.fts_want`,
		`CREATE VIRTUAL TABLE temp.fts_want USING fts5(name, tagline, description, features, keywords, tokenize='unicode61 remove_diacritics 2')`,
		`INSERT INTO temp.fts_want(rowid, name, tagline, description, features, keywords)
		  SELECT ` + ftsRowidOf("l") + `, name, tagline, description, features, keywords FROM listings l`,
		`CREATE VIRTUAL TABLE IF NOT EXISTS temp.fts_have_entries USING fts5vocab(main, listings_fts, instance)`,
		`CREATE VIRTUAL TABLE IF NOT EXISTS temp.fts_want_entries USING fts5vocab(temp, fts_want, instance)`,
	} {
		if _, err := conn.ExecContext(ctx, q); err != nil {
			return 0, err
		}
	}
	var n int
	err = conn.QueryRowContext(ctx, `SELECT
		(SELECT count(*) FROM (SELECT * FROM temp.fts_have_entries EXCEPT SELECT * FROM temp.fts_want_entries)) +
		(SELECT count(*) FROM (SELECT * FROM temp.fts_want_entries EXCEPT SELECT * FROM temp.fts_have_entries))`).Scan(&n)
	if err == nil {
		_, err = conn.ExecContext(ctx, `DROP TABLE temp.fts_want`)
	}
	return n, err
}
