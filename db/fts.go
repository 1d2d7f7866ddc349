package db

import (
	"context"
	"database/sql"
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
