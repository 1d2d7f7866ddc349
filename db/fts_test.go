package db

import (
	"context"
	"database/sql"
	"fmt"
	"path/filepath"
	"slices"
	"sync"
	"testing"
	"time"

	"launchdir/ops"
)

// The full-text index is written once per transaction from the notes the
// update trigger leaves (migration 0011). These tests check it against the
// listings table (SearchIndexDiff) after every mix of
// writes that can meet in one transaction.

// tempDB opens a migrated database in a temporary file, closed at the
// test's end.
func tempDB(t *testing.T) (*DB, context.Context) {
	t.Helper()
	ctx := context.Background()
	d, err := Open(ctx, filepath.Join(t.TempDir(), "t.db"))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { d.Close() })
	return d, ctx
}

func insertListing(tx *sql.Tx, id int, name, tagline string) error {
	_, err := tx.Exec(`INSERT INTO listings(id, slug, name, tagline, url, domain, description, status, launched_at, created_at, updated_at)
		VALUES (?,?,?,?,?,?,?,?,?,?,?)`, id, fmt.Sprintf("item-%d", id), name, tagline, "https://x.example/", "x.example",
		"plain words", "live", "2026-01-01T00:00:00Z", "2026-01-01T00:00:00Z", "2026-01-01T00:00:00Z")
	return err
}

// seedAlphas inserts listings 1..n named AlphaN with tagline in one Tx.
func seedAlphas(t *testing.T, d *DB, n int, tagline string) {
	t.Helper()
	err := d.Tx(context.Background(), func(tx *sql.Tx) error {
		for i := 1; i <= n; i++ {
			if err := insertListing(tx, i, fmt.Sprintf("Alpha%d", i), tagline); err != nil {
				return err
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
}

// matches lists the ids whose indexed text has word.
func matches(t *testing.T, d *DB, word string) []int64 {
	t.Helper()
	ids, err := Column[int64](context.Background(), d.R, `SELECT rowid FROM listings_fts WHERE listings_fts MATCH ? ORDER BY rowid`, word)
	if err != nil {
		t.Fatal(err)
	}
	return ids
}

// checkFTS checks the full-text index against the listings
// (SearchIndexDiff), and checks no note is left.
func checkFTS(t *testing.T, d *DB) {
	t.Helper()
	if n, err := d.SearchIndexDiff(context.Background()); err != nil || n != 0 {
		t.Fatalf("full-text index differs from the listings: %d entries (%v)", n, err)
	}
	var notes int
	if err := d.W.QueryRow(`SELECT count(*) FROM listings_fts_stale`).Scan(&notes); err != nil || notes != 0 {
		t.Fatalf("notes left after commit: %d (%v)", notes, err)
	}
}

func wantIDs(t *testing.T, d *DB, word string, want ...int64) {
	t.Helper()
	if got := matches(t, d, word); !slices.Equal(got, want) && !(len(got) == 0 && len(want) == 0) {
		t.Errorf("%q matches %v, want %v", word, got, want)
	}
}

func TestFTSFollowsEveryWriteInOneTransaction(t *testing.T) {
	d, ctx := tempDB(t)
	seedAlphas(t, d, 5, "original")
	checkFTS(t, d)
	wantIDs(t, d, "original", 1, 2, 3, 4, 5)

	err := d.Tx(ctx, func(tx *sql.Tx) error {
		for _, q := range []string{
			// 1: edited twice: the index must lose "original" and "interim".
			`UPDATE listings SET tagline = 'interim' WHERE id = 1`,
			`UPDATE listings SET tagline = 'final' WHERE id = 1`,
			// 2: edited, then deleted.
			`UPDATE listings SET tagline = 'doomed' WHERE id = 2`,
			`DELETE FROM listings WHERE id = 2`,
			// 3: deleted, then a new listing with the same id.
			`DELETE FROM listings WHERE id = 3`,
			// 4: a field the index does not hold.
			`UPDATE listings SET votes = votes + 1 WHERE id = 4`,
			// 5: the same text sent again (no note).
			`UPDATE listings SET tagline = 'original' WHERE id = 5`,
		} {
			if _, err := tx.Exec(q); err != nil {
				return fmt.Errorf("%s: %w", q, err)
			}
		}
		if err := insertListing(tx, 3, "Reborn", "second life"); err != nil {
			return err
		}
		// 6: new, then edited; 7: edited, deleted, inserted again.
		if err := insertListing(tx, 6, "Fresh", "newborn"); err != nil {
			return err
		}
		if _, err := tx.Exec(`UPDATE listings SET tagline = 'grownup' WHERE id = 6`); err != nil {
			return err
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	checkFTS(t, d)
	wantIDs(t, d, "original", 4, 5)
	wantIDs(t, d, "interim")
	wantIDs(t, d, "final", 1)
	wantIDs(t, d, "doomed")
	wantIDs(t, d, "alpha2")
	wantIDs(t, d, "alpha3")
	wantIDs(t, d, "reborn", 3)
	wantIDs(t, d, "newborn")
	wantIDs(t, d, "grownup", 6)

	err = d.Tx(ctx, func(tx *sql.Tx) error {
		for _, q := range []string{
			`UPDATE listings SET name = 'Phoenix' WHERE id = 4`,
			`DELETE FROM listings WHERE id = 4`,
		} {
			if _, err := tx.Exec(q); err != nil {
				return err
			}
		}
		return insertListing(tx, 4, "Again", "risen")
	})
	if err != nil {
		t.Fatal(err)
	}
	checkFTS(t, d)
	wantIDs(t, d, "phoenix")
	wantIDs(t, d, "alpha4")
	wantIDs(t, d, "risen", 4)

	// A rolled-back edit leaves neither a note nor an index change.
	err = d.Tx(ctx, func(tx *sql.Tx) error {
		if _, err := tx.Exec(`UPDATE listings SET tagline = 'never' WHERE id = 1`); err != nil {
			return err
		}
		return fmt.Errorf("changed my mind")
	})
	if err == nil {
		t.Fatal("the failing transaction committed")
	}
	checkFTS(t, d)
	wantIDs(t, d, "never")
	wantIDs(t, d, "final", 1)
}

// Concurrent edits share a group commit: each batch re-indexes once, and
// the index ends with every listing's last text.
func TestFTSGroupCommitEdits(t *testing.T) {
	d, ctx := tempDB(t)
	if err := d.Tx(ctx, func(tx *sql.Tx) error {
		for i := 1; i <= 3; i++ {
			if err := insertListing(tx, i, fmt.Sprintf("Item%d", i), "start"); err != nil {
				return err
			}
		}
		return nil
	}); err != nil {
		t.Fatal(err)
	}
	const edits = 60
	var wg sync.WaitGroup
	errs := make(chan error, edits)
	for i := range edits {
		wg.Add(1)
		go func() {
			defer wg.Done()
			errs <- d.GroupTx(ctx, func(ctx context.Context, tx *sql.Tx) error {
				if i%10 == 9 { // some edits fail: their batch is redone one by one
					tx.Exec(`UPDATE listings SET tagline = 'failedword' WHERE id = 1`)
					return fmt.Errorf("edit %d fails", i)
				}
				_, err := tx.Exec(`UPDATE listings SET tagline = ? WHERE id = ?`, fmt.Sprintf("word%d", i), 1+i%3)
				return err
			})
		}()
	}
	wg.Wait()
	close(errs)
	failed := 0
	for err := range errs {
		if err != nil {
			failed++
		}
	}
	if failed != edits/10 {
		t.Errorf("%d edits failed, want %d", failed, edits/10)
	}
	if err := d.SyncFTS(ctx); err != nil { // what a search does first
		t.Fatal(err)
	}
	checkFTS(t, d)
	wantIDs(t, d, "start")
	wantIDs(t, d, "failedword")
	for id := 1; id <= 3; id++ {
		var tagline string
		if err := d.R.QueryRow(`SELECT tagline FROM listings WHERE id = ?`, id).Scan(&tagline); err != nil {
			t.Fatal(err)
		}
		wantIDs(t, d, tagline, int64(id))
	}
}

// An edit committed outside Tx and GroupTx (a tool writing the file
// directly) leaves its note; the next open applies it.
func TestFTSNotesLeftAreAppliedAtOpen(t *testing.T) {
	ctx := context.Background()
	path := filepath.Join(t.TempDir(), "o.db")
	d, err := Open(ctx, path)
	if err != nil {
		t.Fatal(err)
	}
	if err := d.Tx(ctx, func(tx *sql.Tx) error { return insertListing(tx, 1, "Item", "before") }); err != nil {
		t.Fatal(err)
	}
	if _, err := d.W.Exec(`UPDATE listings SET tagline = 'after' WHERE id = 1`); err != nil {
		t.Fatal(err)
	}
	wantIDs(t, d, "before", 1) // not yet re-indexed
	if err := d.Close(); err != nil {
		t.Fatal(err)
	}
	d, err = Open(ctx, path)
	if err != nil {
		t.Fatal(err)
	}
	defer d.Close()
	checkFTS(t, d)
	wantIDs(t, d, "before")
	wantIDs(t, d, "after", 1)
}

// Statements whose conflict clause overrides the note trigger's, savepoints
// rolled back around notes, and rowid reuse all leave the index exact
// (found by review; migration 0012).
func TestFTSUnusualStatements(t *testing.T) {
	insertSQL := func(verb, name, tail string) string {
		return verb + ` INTO listings(id, slug, name, url, domain, status, created_at, updated_at)
			VALUES (1,'item-1','` + name + `','u','d','live','x','x')` + tail
	}
	for name, qs := range map[string][]string{
		"update or replace twice": {`UPDATE OR REPLACE listings SET tagline = 'interim' WHERE id = 1`,
			`UPDATE OR REPLACE listings SET tagline = 'final' WHERE id = 1`},
		"update or abort twice": {`UPDATE OR ABORT listings SET tagline = 'interim' WHERE id = 1`,
			`UPDATE OR ABORT listings SET tagline = 'final' WHERE id = 1`},
		"update or rollback twice": {`UPDATE OR ROLLBACK listings SET tagline = 'interim' WHERE id = 1`,
			`UPDATE OR ROLLBACK listings SET tagline = 'final' WHERE id = 1`},
		"update then upsert": {`UPDATE listings SET tagline = 'interim' WHERE id = 1`,
			insertSQL("INSERT", "Final", ` ON CONFLICT(id) DO UPDATE SET name = excluded.name`)},
		"upsert twice": {insertSQL("INSERT", "Interim", ` ON CONFLICT(id) DO UPDATE SET name = excluded.name`),
			insertSQL("INSERT", "Final", ` ON CONFLICT(id) DO UPDATE SET name = excluded.name`)},
		"rolled back to a savepoint after a note": {`UPDATE listings SET tagline = 'a' WHERE id = 1`,
			`SAVEPOINT s1`, `UPDATE listings SET tagline = 'b' WHERE id = 1`, `DELETE FROM listings WHERE id = 2`,
			`ROLLBACK TO s1`, `RELEASE s1`, `UPDATE listings SET tagline = 'c' WHERE id = 3`},
		"rolled back to a savepoint before a note": {`SAVEPOINT s1`, `UPDATE listings SET tagline = 'b' WHERE id = 1`,
			`ROLLBACK TO s1`, `UPDATE listings SET tagline = 'c' WHERE id = 1`, `RELEASE s1`},
		"rowid reused": {`UPDATE listings SET tagline = 'x' WHERE id = 3`, `DELETE FROM listings WHERE id = 3`,
			`INSERT INTO listings(slug, name, url, domain, status, created_at, updated_at) VALUES ('item-new','New','u','d','live','x','x')`},
		// A listing not live is indexed at its id + 2^40 (migration 0031).
		"out of live, edited, live again": {`UPDATE listings SET status = 'archived' WHERE id = 1`,
			`UPDATE listings SET tagline = 'hidden' WHERE id = 1`, `UPDATE listings SET status = 'live' WHERE id = 1`},
		"out of live in one transaction, another in the next": {`UPDATE listings SET status = 'archived' WHERE id = 1`,
			`UPDATE listings SET tagline = 'gone' WHERE id = 2`, `UPDATE listings SET status = 'rejected' WHERE id = 2`},
		"between statuses not live": {`UPDATE listings SET status = 'draft' WHERE id = 1`,
			`UPDATE listings SET status = 'scheduled', tagline = 'soon' WHERE id = 1`},
		"a draft inserted, then published": {`INSERT INTO listings(id, slug, name, url, domain, status, created_at, updated_at)
			VALUES (9,'item-9','Nine','u','d','draft','x','x')`, `UPDATE listings SET status = 'live' WHERE id = 9`},
		"a draft inserted, then deleted": {`INSERT INTO listings(id, slug, name, url, domain, status, created_at, updated_at)
			VALUES (9,'item-9','Nine','u','d','draft','x','x')`, `DELETE FROM listings WHERE id = 9`},
		"archived, then deleted": {`UPDATE listings SET status = 'archived' WHERE id = 1`, `DELETE FROM listings WHERE id = 1`},
		"upsert out of live":     {insertSQL("INSERT", "Final", ` ON CONFLICT(id) DO UPDATE SET name = excluded.name, status = 'archived'`)},
		"rowid reused by a draft": {`DELETE FROM listings WHERE id = 3`,
			`INSERT INTO listings(id, slug, name, url, domain, status, created_at, updated_at) VALUES (3,'item-new','New','u','d','draft','x','x')`},
	} {
		t.Run(name, func(t *testing.T) {
			d, ctx := tempDB(t)
			seedAlphas(t, d, 3, "original")
			err := d.Tx(ctx, func(tx *sql.Tx) error {
				for _, q := range qs {
					if _, err := tx.Exec(q); err != nil {
						return fmt.Errorf("%s: %w", q, err)
					}
				}
				return nil
			})
			if err != nil {
				t.Fatal(err)
			}
			checkFTS(t, d)
		})
	}
}

// A listing's id cannot change (the index's rowid would be left behind).
func TestListingIDsArePermanent(t *testing.T) {
	d, ctx := tempDB(t)
	var err error
	if err := d.Tx(ctx, func(tx *sql.Tx) error { return insertListing(tx, 1, "Item", "words") }); err != nil {
		t.Fatal(err)
	}
	err = d.Tx(ctx, func(tx *sql.Tx) error {
		_, err := tx.Exec(`UPDATE listings SET id = 7, tagline = 'moved' WHERE id = 1`)
		return err
	})
	if err == nil {
		t.Fatal("a listing's id changed")
	}
	checkFTS(t, d)
	wantIDs(t, d, "words", 1)
}

// Migration 0031 moves the listings that are not live to id + 2^40 in the
// full-text index of a file written before it, applying first a note an
// earlier binary left (a committed edit whose re-index did not run).
func TestMigrationMovesListingsNotLive(t *testing.T) {
	ctx := context.Background()
	path := filepath.Join(t.TempDir(), "old.db")
	raw, err := sql.Open("sqlite", "file:"+path)
	if err != nil {
		t.Fatal(err)
	}
	raw.SetMaxOpenConns(1)
	if _, err := raw.Exec(`CREATE TABLE schema_migrations(version INTEGER PRIMARY KEY, name TEXT NOT NULL, applied_at TEXT NOT NULL)`); err != nil {
		t.Fatal(err)
	}
	for _, m := range mustMigrations(t) {
		if m.Version >= 31 {
			break
		}
		if _, err := raw.Exec(m.SQL); err != nil {
			t.Fatalf("%s: %v", m.Name, err)
		}
		if _, err := raw.Exec(`INSERT INTO schema_migrations(version, name, applied_at) VALUES (?, ?, 'x')`, m.Version, m.Name); err != nil {
			t.Fatal(err)
		}
	}
	for i, st := range []string{"live", "draft", "scheduled", "live", "archived"} {
		if _, err := raw.Exec(`INSERT INTO listings(id, slug, name, url, domain, description, status, created_at, updated_at)
			VALUES (?, ?, ?, 'u', 'd', 'gamma words', ?, 'x', 'x')`, i+1, fmt.Sprintf("item-%d", i+1), fmt.Sprintf("Item %d", i+1), st); err != nil {
			t.Fatal(err)
		}
	}
	// An edit of a draft whose note is left unapplied, as a crash between
	// commit and re-index would.
	if _, err := raw.Exec(`UPDATE listings SET description = 'delta words' WHERE id = 2`); err != nil {
		t.Fatal(err)
	}
	raw.Close()

	d, err := Open(ctx, path)
	if err != nil {
		t.Fatal(err)
	}
	defer d.Close()
	checkFTS(t, d)
	wantIDs(t, d, "gamma", 1, 4, 3+hiddenRowid, 5+hiddenRowid)
	wantIDs(t, d, "delta", 2+hiddenRowid)
}

// setProfileDelay sets the rebuilder's delay for a test; call it before
// the database opens (the restore then runs after it closes).
func setProfileDelay(t *testing.T, delay time.Duration) {
	old := profileDelay
	profileDelay = delay
	t.Cleanup(func() { profileDelay = old })
}

// groupTagline sets listing id's tagline in a group commit (an owner edit).
func groupTagline(t *testing.T, d *DB, id int, tagline string) {
	t.Helper()
	if err := d.GroupTx(context.Background(), func(ctx context.Context, tx *sql.Tx) error {
		_, err := tx.ExecContext(ctx, `UPDATE listings SET tagline = ? WHERE id = ?`, tagline, id)
		return err
	}); err != nil {
		t.Fatal(err)
	}
}

func noteCount(t *testing.T, d *DB) int {
	t.Helper()
	var n int
	if err := d.W.QueryRow(`SELECT count(*) FROM listings_fts_stale`).Scan(&n); err != nil {
		t.Fatal(err)
	}
	return n
}

func searchSlugs(t *testing.T, ctx context.Context, d *DB, q string) []string {
	t.Helper()
	items, _, err := d.SearchListings(ctx, SearchFilter{Q: q, Limit: 10})
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	for _, it := range items {
		out = append(out, it.Slug)
	}
	slices.Sort(out)
	return out
}

// A group commit leaves its full-text notes (fts.go, deferred notes), and
// a search applies them before it reads: it finds the edit's new text and
// not its old text, also on a page whose pinned snapshot holds the edit
// but not the index change. Without the search's sync (searchable) the
// search finds nothing: the rebuilder, which would apply the notes, waits
// an hour here; reading in the pinned snapshot after the sync finds
// nothing too.
func TestFTSSearchAppliesDeferredNotes(t *testing.T) {
	setProfileDelay(t, time.Hour)
	d, ctx := tempDB(t)
	seedAlphas(t, d, 3, "start")
	groupTagline(t, d, 2, "zebracorn")
	if got := noteCount(t, d); got != 1 {
		t.Fatalf("notes after a group commit: %d, want 1 (left for later)", got)
	}
	wantIDs(t, d, "zebracorn") // the index itself has not got it yet
	// A page whose snapshot begins after the edit: the edit and its note
	// are in it, the index change is not.
	page, end := d.PinReads(ctx)
	defer end()
	var n int
	if err := d.R.QueryRowContext(page, `SELECT count(*) FROM listings`).Scan(&n); err != nil || !Pinned(page) {
		t.Fatalf("pinned snapshot: %v (pinned %v)", err, Pinned(page))
	}
	if got := searchSlugs(t, page, d, "zebracorn"); !slices.Equal(got, []string{"item-2"}) {
		t.Fatalf("search on the pinned page for the new text: %v, want [item-2]", got)
	}
	checkFTS(t, d)
	if got := searchSlugs(t, ctx, d, "start"); !slices.Equal(got, []string{"item-1", "item-3"}) {
		t.Fatalf("search for the old text: %v, want [item-1 item-3]", got)
	}
}

// With no search, the rebuilder's transaction applies a group commit's
// notes profileDelay later.
func TestFTSDeferredNotesAreAppliedLater(t *testing.T) {
	setProfileDelay(t, 5*time.Millisecond)
	d, _ := tempDB(t)
	seedAlphas(t, d, 3, "start")
	groupTagline(t, d, 3, "okapiword")
	waitFor(t, "the rebuilder to apply the notes", func() bool { return noteCount(t, d) == 0 })
	checkFTS(t, d)
	wantIDs(t, d, "okapiword", 3)
}

// A server that stops applies the notes its group commits left, so the
// file it leaves (for a copy, a replica) has its index current; and notes
// a crash leaves (a copy of the file taken while they wait) are applied
// when that file opens.
func TestFTSDeferredNotesAtCloseAndCrash(t *testing.T) {
	setProfileDelay(t, time.Hour)
	ctx := context.Background()
	dir := t.TempDir()
	path, crashed := filepath.Join(dir, "c.db"), filepath.Join(dir, "crashed.db")
	c, err := Open(ctx, path)
	if err != nil {
		t.Fatal(err)
	}
	seedAlphas(t, c, 3, "start")
	groupTagline(t, c, 3, "quokkaword")
	if got := noteCount(t, c); got != 1 {
		t.Fatalf("notes before close: %d, want 1", got)
	}
	if _, err := c.W.Exec(`PRAGMA wal_checkpoint(TRUNCATE)`); err != nil {
		t.Fatal(err)
	}
	if err := copyFile(path, crashed); err != nil { // the file as a crash would leave it
		t.Fatal(err)
	}
	if err := c.Close(); err != nil {
		t.Fatal(err)
	}
	raw, err := sql.Open("sqlite", "file:"+path+"?mode=ro")
	if err != nil {
		t.Fatal(err)
	}
	var notes int
	err = raw.QueryRow(`SELECT count(*) FROM listings_fts_stale`).Scan(&notes)
	raw.Close()
	if err != nil || notes != 0 {
		t.Fatalf("notes left in the closed file: %d (%v), want 0", notes, err)
	}
	for _, p := range []string{path, crashed} {
		c, err := Open(ctx, p)
		if err != nil {
			t.Fatal(err)
		}
		checkFTS(t, c)
		wantIDs(t, c, "quokkaword", 3)
		c.Close()
	}
}

// A search on a pinned page whose snapshot still holds notes another
// search already had applied reads outside the pin without committing
// again: an empty sync per search retired the read cache each time.
func TestFTSPinnedSearchesSyncOnce(t *testing.T) {
	setProfileDelay(t, time.Hour)
	d, ctx := tempDB(t)
	seedAlphas(t, d, 3, "start")
	groupTagline(t, d, 2, "zebracorn")
	page, end := d.PinReads(ctx)
	defer end()
	var n int
	if err := d.R.QueryRowContext(page, `SELECT count(*) FROM listings`).Scan(&n); err != nil || !Pinned(page) {
		t.Fatalf("pinned snapshot: %v (pinned %v)", err, Pinned(page))
	}
	gen := d.rc.gen.Load()
	for _, q := range []string{"zebracorn", "start", "alpha1", "nothing"} {
		searchSlugs(t, page, d, q)
	}
	if got := searchSlugs(t, page, d, "zebracorn"); !slices.Equal(got, []string{"item-2"}) {
		t.Fatalf("search on the pinned page: %v, want [item-2]", got)
	}
	if commits := d.rc.gen.Load() - gen; commits > 2 { // one sync; its commit hook and end each bump
		t.Fatalf("5 searches on one pinned page moved the write generation by %d: a sync each", commits)
	}
}

// A search's sync is not its request's effect: a request under an
// idempotency key whose search applies notes leaves the key unmarked
// (markIdemEffect marks the key in every write transaction of the request).
func TestFTSSyncMarksNoIdempotencyKey(t *testing.T) {
	setProfileDelay(t, time.Hour)
	d, ctx := tempDB(t)
	seedAlphas(t, d, 3, "start")
	if _, err := d.W.Exec(`INSERT INTO idempotency_keys(user_id, key, request_hash, state, created_at, expires_at)
		VALUES (7, 'k1', 'h', 'running', '2026-01-01T00:00:00Z', '2099-01-01T00:00:00Z')`); err != nil {
		t.Fatal(err)
	}
	groupTagline(t, d, 1, "ibisword")
	req := ops.WithIdemClaim(ctx, ops.IdemClaim{UserID: 7, Key: "k1"})
	if got := searchSlugs(t, req, d, "ibisword"); !slices.Equal(got, []string{"item-1"}) {
		t.Fatalf("search: %v, want [item-1]", got)
	}
	var effect sql.NullString
	if err := d.W.QueryRow(`SELECT effect_at FROM idempotency_keys WHERE user_id = 7 AND key = 'k1'`).Scan(&effect); err != nil {
		t.Fatal(err)
	}
	if effect.Valid {
		t.Fatalf("the search's sync marked the request's key as its effect (%s)", effect.String)
	}
}
