package db

import (
	"context"
	"database/sql"
	"strconv"
)

// syncFTSSQL re-indexes the listings whose text changed in the transaction
// (migration 0011): deleting each note takes the text the index holds out
// and puts the listing's current text in. One statement, so FTS5 keeps all
// of a transaction's index changes in memory and writes them out once, at
// the commit.
const syncFTSSQL = `DELETE FROM listings_fts_stale`

// syncFTS brings the full-text index up to date inside tx. Every write
// transaction runs it before committing (Tx, GroupTx); Open runs it too,
// for notes left by a write that committed some other way.
func (d *DB) syncFTS(ctx context.Context, tx *sql.Tx) error {
	if !d.ftsNotes { // migrating: the notes table may not exist yet
		return nil
	}
	_, err := d.Prepared(tx).ExecContext(ctx, syncFTSSQL)
	return err
}

// syncFTSAtOpen applies notes left in the file (see syncFTS).
func (d *DB) syncFTSAtOpen(ctx context.Context) error {
	if _, err := d.W.ExecContext(ctx, syncFTSSQL); err != nil {
		return err
	}
	d.ftsNotes = true
	d.profiles = true
	return nil
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
		  SELECT id + CASE WHEN status = 'live' THEN 0 ELSE ` + hiddenRowidSQL + ` END, name, tagline, description, features, keywords FROM listings`,
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
