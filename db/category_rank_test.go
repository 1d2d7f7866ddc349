package db

import (
	"database/sql"
	"fmt"
	"math/rand/v2"
	"slices"
	"testing"
)

// A category's page by votes comes from the membership rows' copies of
// their listing's live flag and votes (migration 0025). After every kind of
// write that moves a listing in a category's order, each category's pages
// must equal the order of the listings themselves.

func TestCategoryRankFollowsWrites(t *testing.T) {
	d, ctx := tempDB(t)
	exec := func(q string, args ...any) {
		t.Helper()
		if _, err := d.W.ExecContext(ctx, q, args...); err != nil {
			t.Fatalf("%s: %v", q, err)
		}
	}
	// Two top categories, one with two subcategories.
	exec(`INSERT INTO categories(id, slug, name, parent_id) VALUES (901, 'top-a', 'Top A', NULL), (902, 'top-b', 'Top B', NULL),
		(903, 'sub-a1', 'Sub A1', 901), (904, 'sub-a2', 'Sub A2', 901)`)
	seedAlphas(t, d, 60, "rank")
	r := rand.New(rand.NewPCG(7, 26))
	cats := []int{901, 902, 903, 904}
	err := d.Tx(ctx, func(tx *sql.Tx) error {
		for id := 1; id <= 60; id++ {
			for _, c := range cats {
				if r.IntN(3) == 0 || c == 901 && id%7 == 0 {
					if _, err := tx.Exec(`INSERT INTO listing_categories(listing_id, category_id, is_primary) VALUES (?,?,0)`, id, c); err != nil {
						return err
					}
				}
			}
			if _, err := tx.Exec(`UPDATE listings SET votes = ? WHERE id = ?`, r.IntN(8), id); err != nil {
				return err
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	check := func(step string) {
		t.Helper()
		for _, slug := range []string{"top-a", "top-b", "sub-a1", "sub-a2"} {
			var want []int64
			rows, err := d.R.QueryContext(ctx, `SELECT l.id FROM listings l WHERE l.status = 'live' AND l.id IN (
				SELECT listing_id FROM listing_categories WHERE category_id IN (
					SELECT id FROM categories WHERE slug = ?1 OR parent_id = (SELECT id FROM categories WHERE slug = ?1)))
				ORDER BY l.votes DESC, l.id`, slug)
			if err != nil {
				t.Fatal(err)
			}
			for rows.Next() {
				var id int64
				rows.Scan(&id)
				want = append(want, id)
			}
			rows.Close()
			for _, per := range []int{1, 3, 7, 100} {
				var got []int64
				for off := 0; off < len(want)+per; off += per {
					d.rc.gen.Add(1) // no read cache between pages
					page, _, err := d.SearchListingsTotal(ctx, SearchFilter{Category: slug, Limit: per, Offset: off})
					if err != nil {
						t.Fatal(err)
					}
					for _, s := range page {
						got = append(got, s.ID)
					}
				}
				if !slices.Equal(got, want) {
					t.Fatalf("%s: %s by %d a page:\n got %v\nwant %v", step, slug, per, got, want)
				}
			}
		}
	}
	check("seeded")
	exec(`UPDATE listings SET votes = votes + 5 WHERE id IN (3, 14, 29)`)
	check("votes")
	exec(`UPDATE listings SET status = 'archived' WHERE id IN (4, 21)`)
	exec(`UPDATE listings SET status = 'live', votes = 100 WHERE id = 4`)
	check("status")
	exec(`INSERT OR IGNORE INTO listing_categories(listing_id, category_id, is_primary) VALUES (50, 902, 0), (51, 903, 0)`)
	exec(`DELETE FROM listing_categories WHERE listing_id = 14 AND category_id = 901`)
	check("membership")
	exec(`INSERT INTO listing_categories(listing_id, category_id, is_primary) VALUES (52, 904, 1)
		ON CONFLICT(listing_id, category_id) DO UPDATE SET is_primary = 1`)
	exec(`DELETE FROM listing_categories WHERE listing_id = 53 AND category_id IN (902, 903)`)
	exec(`UPDATE listing_categories SET category_id = 903 WHERE listing_id = 53 AND category_id = 901`)
	exec(`UPDATE OR IGNORE listing_categories SET category_id = 902 WHERE listing_id = 52 AND category_id = 904`)
	check("moved")
	exec(`DELETE FROM listings WHERE id = 29`)
	check("deleted")
	for i := 0; i < 30; i++ { // a vote storm, with ties
		exec(`UPDATE listings SET votes = ? WHERE id = ?`, r.IntN(4), 1+r.IntN(60))
	}
	check("ties")
	// The maintained copies are what the listings say.
	var bad int
	if err := d.R.QueryRowContext(ctx, `SELECT count(*) FROM listing_categories lc JOIN listings l ON l.id = lc.listing_id
		WHERE lc.votes != l.votes OR lc.live != (l.status = 'live')`).Scan(&bad); err != nil || bad != 0 {
		t.Fatalf("%d membership rows disagree with their listing (%v)", bad, err)
	}
}

// A vote must not retire the ready-made profile through the membership
// rows it now updates.
func TestCategoryRankVoteKeepsProfile(t *testing.T) {
	d, ctx := tempDB(t)
	seedAlphas(t, d, 2, "keep")
	if _, err := d.W.ExecContext(ctx, `INSERT INTO categories(id, slug, name) VALUES (911, 'keep', 'Keep');
		INSERT INTO listing_categories(listing_id, category_id, is_primary) VALUES (1, 911, 1);
		DELETE FROM listing_profiles_stale`); err != nil {
		t.Fatal(err)
	}
	if _, err := d.W.ExecContext(ctx, `UPDATE listings SET votes = votes + 1 WHERE id = 1`); err != nil {
		t.Fatal(err)
	}
	var n int
	d.R.QueryRowContext(ctx, `SELECT count(*) FROM listing_profiles_stale`).Scan(&n)
	var lv int
	d.R.QueryRowContext(ctx, `SELECT votes FROM listing_categories WHERE listing_id = 1`).Scan(&lv)
	if lv != 1 || n != 0 {
		t.Fatalf("membership votes %d (want 1), profiles noted stale %d (want 0)", lv, n)
	}
}

// The home page's "today" ranks the day's launches from two narrow indexes
// (LaunchedBetween): the same order and pages as sorting the listings.
func TestLaunchedBetweenOrder(t *testing.T) {
	d, ctx := tempDB(t)
	seedAlphas(t, d, 40, "today")
	r := rand.New(rand.NewPCG(3, 26))
	for id := 1; id <= 40; id++ {
		day := []string{"2026-11-25", "2026-11-26", "2026-11-26", "2026-11-27"}[r.IntN(4)]
		status := []string{"live", "live", "live", "archived"}[r.IntN(4)]
		if _, err := d.W.ExecContext(ctx, `UPDATE listings SET launched_at = ?, votes = ?, status = ? WHERE id = ?`,
			day+"T"+fmt.Sprintf("%02d", r.IntN(24))+":00:00Z", r.IntN(5), status, id); err != nil {
			t.Fatal(err)
		}
	}
	want, err := Column[int64](ctx, d.R, `SELECT id FROM listings WHERE status = 'live' AND launched_at >= '2026-11-26'
		AND launched_at < '2026-11-27' ORDER BY votes DESC, id`)
	if err != nil || len(want) < 5 {
		t.Fatalf("%d launches that day (%v)", len(want), err)
	}
	for _, per := range []int{1, 4, 100} {
		var got []int64
		for off := 0; off < len(want)+per; off += per {
			page, err := d.LaunchedBetween(ctx, "2026-11-26", "2026-11-27", off, per)
			if err != nil {
				t.Fatal(err)
			}
			for _, s := range page {
				got = append(got, s.ID)
			}
		}
		if !slices.Equal(got, want) {
			t.Fatalf("by %d a page: got %v, want %v", per, got, want)
		}
	}
}
