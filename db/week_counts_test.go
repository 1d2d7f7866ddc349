package db

import (
	"context"
	"database/sql"
	"fmt"
	"math/rand"
	"strings"
	"testing"
)

// The week launch counts (migration 0033) against a fresh count after
// every step of a random walk over the writes that change them: launches
// added (plain, relaunch upserts, ignored duplicates), removed and moved to
// another week or listing; listings changing status, launch week, or
// deleted (their launches cascade); listings added with a launch week (the
// insert trigger's launch). Each step is one transaction of a few writes.
func TestWeekLaunchCountsFollowEveryWrite(t *testing.T) {
	d, ctx := tempDB(t)
	weeks := []string{"2026-11-02", "2026-11-09", "2026-11-16", "2026-11-23", "2026-11-30"}
	statuses := []string{"live", "scheduled", "draft", "archived", "rejected", "awaiting_badge"}
	rng := rand.New(rand.NewSource(26))
	nextID := 1
	err := d.Tx(ctx, func(tx *sql.Tx) error {
		for ; nextID <= 60; nextID++ {
			if err := insertListing(tx, nextID, fmt.Sprintf("Week%d", nextID), "counted"); err != nil {
				return err
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	id := func() int { return 1 + rng.Intn(nextID+5) } // now and then one that does not exist
	week := func() string { return weeks[rng.Intn(len(weeks))] }
	steps := []struct {
		name string
		run  func(tx *sql.Tx) error
	}{
		{"launch", func(tx *sql.Tx) error {
			_, err := tx.Exec(`INSERT OR IGNORE INTO launches(week, listing_id) SELECT ?, id FROM listings WHERE id = ?`, week(), id())
			return err
		}},
		{"relaunch upsert", func(tx *sql.Tx) error {
			_, err := tx.Exec(`INSERT INTO launches(week, listing_id, relaunch) SELECT ?, id, 1 FROM listings WHERE id = ? ORDER BY 1
				ON CONFLICT(week, listing_id) DO UPDATE SET relaunch = 1`, week(), id())
			return err
		}},
		{"unlaunch", func(tx *sql.Tx) error {
			_, err := tx.Exec(`DELETE FROM launches WHERE listing_id = ? AND week = ?`, id(), week())
			return err
		}},
		{"move a launch's week", func(tx *sql.Tx) error {
			_, err := tx.Exec(`UPDATE OR IGNORE launches SET week = ? WHERE listing_id = ?`, week(), id())
			return err
		}},
		{"move a launch to another listing", func(tx *sql.Tx) error {
			_, err := tx.Exec(`UPDATE OR IGNORE launches SET listing_id = ?1 WHERE listing_id = ?2 AND EXISTS (SELECT 1 FROM listings WHERE id = ?1)`, id(), id())
			return err
		}},
		{"status", func(tx *sql.Tx) error {
			_, err := tx.Exec(`UPDATE listings SET status = ? WHERE id = ?`, statuses[rng.Intn(len(statuses))], id())
			return err
		}},
		{"launch week", func(tx *sql.Tx) error {
			_, err := tx.Exec(`UPDATE listings SET launch_week = ? WHERE id = ?`, week(), id())
			return err
		}},
		{"votes", func(tx *sql.Tx) error {
			_, err := tx.Exec(`UPDATE launches SET votes = votes + 1 WHERE listing_id = ?`, id())
			return err
		}},
		{"delete a listing", func(tx *sql.Tx) error {
			_, err := tx.Exec(`DELETE FROM listings WHERE id = ?`, id())
			return err
		}},
		{"new listing with a launch week", func(tx *sql.Tx) error {
			if err := insertListing(tx, nextID, fmt.Sprintf("Week%d", nextID), "counted"); err != nil {
				return err
			}
			_, err := tx.Exec(`UPDATE listings SET launch_week = ?, status = ? WHERE id = ?`, week(), statuses[rng.Intn(2)], nextID)
			nextID++
			return err
		}},
	}
	for round := range 120 {
		var did []string
		err := d.Tx(ctx, func(tx *sql.Tx) error {
			for range 1 + rng.Intn(4) {
				s := steps[rng.Intn(len(steps))]
				did = append(did, s.name)
				if err := s.run(tx); err != nil {
					return fmt.Errorf("%s: %w", s.name, err)
				}
			}
			return nil
		})
		if err != nil {
			t.Fatalf("round %d: %v", round, err)
		}
		for _, w := range weeks {
			checkWeekCount(t, ctx, d, w, fmt.Sprintf("round %d (%s)", round, strings.Join(did, ", ")))
		}
	}
	var launched int
	d.R.QueryRow(`SELECT count(*) FROM launches`).Scan(&launched)
	if launched < 20 {
		t.Errorf("the walk left %d launches: too few to have tested much", launched)
	}
}

func checkWeekCount(t *testing.T, ctx context.Context, d *DB, week, after string) {
	t.Helper()
	var fresh int
	if err := d.R.QueryRowContext(ctx, `SELECT count(*)`+WeekRankFrom, week).Scan(&fresh); err != nil {
		t.Fatal(err)
	}
	kept, err := d.weekLaunchCount(ctx, week)
	if err != nil {
		t.Fatal(err)
	}
	if kept != fresh {
		t.Fatalf("after %s: week %s counts %d launches, a fresh count %d", after, week, kept, fresh)
	}
}
