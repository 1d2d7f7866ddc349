package db

import (
	"database/sql"
	"fmt"
	"slices"
	"strings"
	"testing"
)

// One commit editing listings whose statuses alternate (live, draft, ...)
// writes one segment (migration 0032): the re-index goes in rowid order.
func TestFTSOneSegmentPerCommit(t *testing.T) {
	d, ctx := tempDB(t)
	d.stopFTSMerger()
	if err := d.Tx(ctx, func(tx *sql.Tx) error {
		for i := 1; i <= 20; i++ {
			st := "live"
			if i%2 == 0 {
				st = "draft"
			}
			if _, err := tx.Exec(`INSERT INTO listings(id, slug, name, url, domain, status, created_at, updated_at) VALUES (?,?,?,'u','d',?,'x','x')`,
				i, fmt.Sprintf("item-%d", i), fmt.Sprintf("Item %d", i), st); err != nil {
				return err
			}
		}
		return nil
	}); err != nil {
		t.Fatal(err)
	}
	before := segments(ftsStructure(t, d))
	if err := d.Tx(ctx, func(tx *sql.Tx) error {
		_, err := tx.Exec(`UPDATE listings SET tagline = 'edited ' || id`)
		return err
	}); err != nil {
		t.Fatal(err)
	}
	after := segments(ftsStructure(t, d))
	t.Logf("segments written by one commit of 20 edits (10 live, 10 drafts, ids interleaved): %d", after-before)
	if after-before > 1 {
		t.Errorf("one commit wrote %d segments, want 1 (migration 0011's point)", after-before)
	}
	checkFTS(t, d)
}

// The re-index statement of every write commit reads the notes and looks
// each listing up by id, whatever the statistics say: with the notes table
// empty in sqlite_stat1 the planner scanned every listing and probed the
// notes instead (an owner PATCH at 100k went from 5,200 to 55 req/s).
func TestFTSSyncLooksListingsUpByID(t *testing.T) {
	d, ctx := tempDB(t)
	seedAlphas(t, d, 50, "original")
	if _, err := d.W.ExecContext(ctx, `ANALYZE`); err != nil {
		t.Fatal(err)
	}
	rows, err := d.W.QueryContext(ctx, `EXPLAIN QUERY PLAN `+syncFTSIndexSQL)
	if err != nil {
		t.Fatal(err)
	}
	defer rows.Close()
	var plan []string
	for rows.Next() {
		var id, parent, unused int
		var detail string
		if err := rows.Scan(&id, &parent, &unused, &detail); err != nil {
			t.Fatal(err)
		}
		plan = append(plan, detail)
	}
	joined := strings.Join(plan, "\n")
	scansListings := slices.ContainsFunc(plan, func(line string) bool { return line == "SCAN l" || strings.HasPrefix(line, "SCAN l ") })
	if !strings.Contains(joined, "SEARCH l USING INTEGER PRIMARY KEY") || scansListings {
		t.Fatalf("the re-index does not look listings up by id:\n%s", joined)
	}
}

// A commit that noted no listing leaves the full-text index alone: an
// INSERT into it that inserts no row still wrote a page at the commit, one
// more WAL frame on every vote, session and follow. So a write transaction
// without notes writes less than one WAL frame (a 4 KB page and its
// header) per commit more than the same statement run bare (Tx itself
// writes a few now and then: 5 frames over 20 commits here; the index's
// page was 20 more).
func TestFTSUntouchedByCommitsWithoutNotes(t *testing.T) {
	d, ctx := tempDB(t)
	seedAlphas(t, d, 10, "original")
	const commits = 20
	grows := func(write func(i int) error) int64 {
		t.Helper()
		if _, err := d.W.ExecContext(ctx, `PRAGMA wal_checkpoint(TRUNCATE)`); err != nil {
			t.Fatal(err)
		}
		was := walSize(t, d)
		for i := range commits {
			if err := write(i); err != nil {
				t.Fatal(err)
			}
		}
		return walSize(t, d) - was
	}
	var bare, inTx int64
	err := d.WithoutCheckpoints(func() error {
		if _, err := d.W.ExecContext(ctx, `PRAGMA wal_autocheckpoint = 0`); err != nil {
			return err
		}
		const upsert = `INSERT OR REPLACE INTO settings(key, value) VALUES ('probe', ?)`
		bare = grows(func(i int) error { _, err := d.W.ExecContext(ctx, upsert, i); return err })
		inTx = grows(func(i int) error {
			return d.Tx(ctx, func(tx *sql.Tx) error { _, err := tx.Exec(upsert, i); return err })
		})
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if frame := int64(4096 + 24); bare <= 0 || inTx-bare >= commits*frame {
		t.Fatalf("%d commits grew the WAL by %d bytes in Tx, %d bare: a frame or more per commit", commits, inTx, bare)
	}
}
