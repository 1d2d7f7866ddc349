package db

import (
	"database/sql"
	"fmt"
	"testing"
)

// A week's count (kept by triggers since migration 0033) equals a fresh
// count after each write that changes which launches the week counts, and
// after writes that do not (a tagline, a vote). TestWeekLaunchCountsFollowEveryWrite
// walks such writes at random; these are the named cases.
func TestWeekCountFollowsWrites(t *testing.T) {
	d, ctx := tempDB(t)
	seedAlphas(t, d, 8, "weeks")
	exec := func(q string, args ...any) {
		t.Helper()
		if _, err := d.W.ExecContext(ctx, q, args...); err != nil {
			t.Fatalf("%s: %v", q, err)
		}
	}
	const week = "2026-11-23"
	exec(`DELETE FROM launches`)
	exec(`INSERT INTO launches(week, listing_id) VALUES (?1, 1), (?1, 2), (?1, 3), ('2026-11-30', 4)`, week)
	check := func(step string) {
		t.Helper()
		var fresh int
		if err := d.R.QueryRowContext(ctx, `SELECT count(*)`+WeekRankFrom, week).Scan(&fresh); err != nil {
			t.Fatal(err)
		}
		_, got, err := d.weekLaunches(ctx, week, 0, 20)
		if err != nil {
			t.Fatal(err)
		}
		if got != fresh {
			t.Fatalf("%s: week count %d, fresh count %d", step, got, fresh)
		}
	}
	check("launched")
	exec(`UPDATE listings SET tagline = 'new words', votes = votes + 3 WHERE id = 1`)
	exec(`UPDATE launches SET votes = votes + 3 WHERE listing_id = 1`)
	check("tagline and vote")
	// What the counter's test asserted before 0033 (a tagline or a vote
	// leaves the week's count alone), now of the triggers: none that keeps
	// the count fires on an update of anything but a launch's week or
	// listing and a listing's status.
	var wide int
	if err := d.R.QueryRowContext(ctx, `SELECT count(*) FROM sqlite_master WHERE type = 'trigger'
		AND sql LIKE '%week_launch_counts%' AND sql LIKE '% UPDATE %ON %'
		AND sql NOT LIKE '%AFTER UPDATE OF week, listing_id ON launches%' AND sql NOT LIKE '%AFTER UPDATE OF status ON listings%'`).Scan(&wide); err != nil {
		t.Fatal(err)
	}
	if wide != 0 {
		t.Fatalf("%d week-count triggers fire on other updates (a tagline, a vote)", wide)
	}
	exec(`INSERT INTO launches(week, listing_id) VALUES (?, 5)`, week)
	check("a launch added")
	exec(`UPDATE listings SET status = 'archived' WHERE id = 2`)
	check("archived")
	exec(`UPDATE listings SET status = 'scheduled' WHERE id = 2`)
	check("scheduled again")
	exec(`UPDATE launches SET week = ? WHERE listing_id = 4`, week)
	check("moved into the week")
	exec(`DELETE FROM launches WHERE listing_id = 3`)
	check("a launch removed")
	exec(`DELETE FROM listings WHERE id = 5`)
	check("a listing deleted")
}

// Kept counts are bounded (their keys come from request input): at 1,024
// keys the map starts over, and every count stays right on either side.
func TestAtVersionBounded(t *testing.T) {
	d, ctx := tempDB(t)
	for i := 0; i < 1100; i++ {
		n, err := atVersion(ctx, d, "launch_days", fmt.Sprint(i), func(q Queries) (int, error) { return i, nil })
		if err != nil || n != i {
			t.Fatalf("key %d: %d, %v", i, n, err)
		}
		d.vcounts.mu.Lock()
		size := len(d.vcounts.m)
		d.vcounts.mu.Unlock()
		if size > 1024 {
			t.Fatalf("%d kept counts after %d keys", size, i+1)
		}
	}
}

// A day's ranking (the home page's "today") is kept until change counter
// launch_days moves (migration 0030). After each write that changes it (a
// vote, a status, a launch time, a listing added or removed) the kept page
// must equal a fresh ranking; an owner's edit must leave the counter alone.
func TestDayRankingFollowsItsCounter(t *testing.T) {
	d, ctx := tempDB(t)
	seedAlphas(t, d, 8, "days") // launched 2026-01-01
	exec := func(q string, args ...any) {
		t.Helper()
		if _, err := d.W.ExecContext(ctx, q, args...); err != nil {
			t.Fatalf("%s: %v", q, err)
		}
	}
	const from, to = "2026-01-01", "2026-01-02"
	exec(`UPDATE listings SET votes = id`)
	counter := func() (n int64) {
		d.R.QueryRowContext(ctx, `SELECT n FROM change_counters WHERE name = 'launch_days'`).Scan(&n)
		return n
	}
	check := func(step string) {
		t.Helper()
		fresh, err := Column[int64](ctx, d.R, `SELECT id FROM listings WHERE status = 'live'
			AND launched_at >= ? AND launched_at < ? ORDER BY votes DESC, id LIMIT 5`, from, to)
		if err != nil {
			t.Fatal(err)
		}
		page, err := d.LaunchedBetween(ctx, from, to, 0, 5)
		if err != nil {
			t.Fatal(err)
		}
		got := make([]int64, len(page))
		for i, s := range page {
			got[i] = s.ID
		}
		if fmt.Sprint(got) != fmt.Sprint(fresh) {
			t.Fatalf("%s: day page %v, fresh ranking %v", step, got, fresh)
		}
	}
	check("ranked")
	before := counter()
	exec(`UPDATE listings SET tagline = 'new words', votes = votes WHERE id = 1`)
	if counter() != before {
		t.Fatal("an owner's edit moved the day's counter")
	}
	check("an owner's edit")
	exec(`UPDATE listings SET votes = votes + 10 WHERE id = 1`)
	check("a vote")
	exec(`UPDATE listings SET status = 'archived' WHERE id = 8`)
	check("archived")
	exec(`UPDATE listings SET launched_at = '2025-12-31T10:00:00Z' WHERE id = 7`)
	check("launched another day")
	if err := d.Tx(ctx, func(tx *sql.Tx) error { return insertListing(tx, 9, "Alpha9", "days") }); err != nil {
		t.Fatal(err)
	}
	exec(`UPDATE listings SET votes = 100 WHERE id = 9`)
	check("a listing added")
	exec(`DELETE FROM listings WHERE id = 9`)
	check("a listing removed")
}
