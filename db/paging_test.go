package db_test

import (
	"context"
	"fmt"
	"path/filepath"
	"testing"
	"time"

	"launchdir/db"
	"launchdir/demo"
)

// The week and alternatives lists are read in parts (see pageSegments);
// every page of them, laid end to end, must be exactly what the one
// sorting query they replace returns, for every week and listing of the
// demo directory.
func TestSegmentedListsMatchTheSortingQuery(t *testing.T) {
	ctx := context.Background()
	d, err := db.Open(ctx, filepath.Join(t.TempDir(), "paging.db"))
	if err != nil {
		t.Fatal(err)
	}
	defer d.Close()
	if err := demo.Generate(ctx, d, demo.Options{Seed: 3, Now: time.Date(2026, 11, 18, 12, 0, 0, 0, time.UTC)}); err != nil {
		t.Fatal(err)
	}
	// Edge cases: a zero weekly count, a voted listing of another week.
	if _, err := d.W.Exec(`INSERT OR REPLACE INTO weekly_votes(week, listing_id, votes)
		SELECT launch_week, id, 0 FROM listings WHERE status = 'live' AND launch_week IS NOT NULL ORDER BY id LIMIT 5`); err != nil {
		t.Fatal(err)
	}
	ids := func(q string, args ...any) []string {
		rows, err := d.R.Query(q, args...)
		if err != nil {
			t.Fatal(err)
		}
		defer rows.Close()
		var out []string
		for rows.Next() {
			var id int64
			var extra string
			if err := rows.Scan(&id, &extra); err != nil {
				t.Fatal(err)
			}
			out = append(out, fmt.Sprintf("%d:%s", id, extra))
		}
		return out
	}
	weeks, err := db.Column[string](ctx, d.R, `SELECT DISTINCT launch_week FROM listings WHERE launch_week IS NOT NULL`)
	if err != nil || len(weeks) < 5 {
		t.Fatalf("weeks: %v %v", weeks, err)
	}
	checked := 0
	for _, week := range weeks {
		want := ids(`SELECT l.id, '' FROM listings l LEFT JOIN weekly_votes w ON w.week = ?1 AND w.listing_id = l.id
			WHERE l.launch_week = ?1 AND l.status IN ('live','scheduled')
			ORDER BY l.status = 'scheduled', coalesce(w.votes,0) DESC, l.votes DESC, l.id`, week)
		var got []string
		for off := 0; ; off += 7 {
			items, total, err := d.WeekLaunches(ctx, week, off, 7)
			if err != nil {
				t.Fatal(err)
			}
			if total != len(want) {
				t.Fatalf("week %s: total %d, want %d", week, total, len(want))
			}
			if len(items) == 0 {
				break
			}
			for _, it := range items {
				got = append(got, fmt.Sprintf("%d:", it.ID))
			}
		}
		if fmt.Sprint(got) != fmt.Sprint(want) {
			t.Fatalf("week %s:\n got %v\nwant %v", week, got, want)
		}
		checked += len(want)
	}
	listings, err := db.Column[int64](ctx, d.R, `SELECT id FROM listings WHERE status = 'live' ORDER BY id LIMIT 80`)
	if err != nil {
		t.Fatal(err)
	}
	approvedSeen := 0
	for _, id := range listings {
		want := ids(`SELECT l.id, EXISTS(SELECT 1 FROM alternatives a WHERE a.listing_id = ?1 AND a.alternative_id = l.id AND a.approved = 1) AS approved
			FROM listings l WHERE l.status = 'live' AND l.id != ?1 AND (l.id IN (SELECT alternative_id FROM alternatives WHERE listing_id = ?1 AND approved = 1)
			OR l.primary_category_id = (SELECT primary_category_id FROM listings WHERE id = ?1)) ORDER BY approved DESC, l.votes DESC, l.id`, id)
		var got []string
		for off := 0; ; off += 4 {
			items, total, err := d.Alternatives(ctx, id, off, 4)
			if err != nil {
				t.Fatal(err)
			}
			if total != len(want) {
				t.Fatalf("alternatives of %d: total %d, want %d", id, total, len(want))
			}
			if len(items) == 0 {
				break
			}
			for _, it := range items {
				a := 0
				if it.Approved {
					a, approvedSeen = 1, approvedSeen+1
				}
				got = append(got, fmt.Sprintf("%d:%d", it.ID, a))
			}
		}
		if fmt.Sprint(got) != fmt.Sprint(want) {
			t.Fatalf("alternatives of %d:\n got %v\nwant %v", id, got, want)
		}
		checked += len(want)
	}
	if approvedSeen == 0 {
		t.Fatal("no approved alternative in the sample: the test covers one part only")
	}
	t.Logf("%d rows compared over %d weeks and %d listings (%d approved alternatives)", checked, len(weeks), len(listings), approvedSeen)
}
