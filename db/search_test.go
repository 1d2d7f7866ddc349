package db

import (
	"cmp"
	"context"
	"database/sql"
	"fmt"
	"slices"
	"sync"
	"sync/atomic"
	"testing"
	"time"
)

// Paging through a relevance search must visit every match exactly once,
// also past the bm25-ranked candidate window.
func TestRelevancePagingIsStable(t *testing.T) {
	d, ctx := tempDB(t)
	n := ftsCandidates + 137
	tx, err := d.W.Begin()
	if err != nil {
		t.Fatal(err)
	}
	for i := 1; i <= n; i++ {
		status := "live"
		if i%50 == 0 {
			status = "draft" // filtered out of public search
		}
		name := fmt.Sprintf("Item %d", i)
		if i%7 == 0 {
			name = fmt.Sprintf("Widget %d", i) // name matches rank higher
		}
		if _, err := tx.Exec(`INSERT INTO listings(id, slug, name, url, domain, description, status, launched_at, created_at, updated_at)
			VALUES (?,?,?,?,?,?,?,?,?,?)`, i, fmt.Sprintf("item-%d", i), name, "https://x.example/", "x.example",
			"A widget for teams", status, "2026-01-01T00:00:00Z", "2026-01-01T00:00:00Z", "2026-01-01T00:00:00Z"); err != nil {
			t.Fatal(err)
		}
	}
	if err := tx.Commit(); err != nil {
		t.Fatal(err)
	}
	seen := map[string]bool{}
	var total int
	for off := 0; ; off += 100 {
		items, tot, err := d.SearchListings(ctx, SearchFilter{Q: "widget", Sort: "relevance", Offset: off, Limit: 100})
		if err != nil {
			t.Fatal(err)
		}
		total = tot
		if off == 0 && (len(items) == 0 || items[0].Name[:6] != "Widget") {
			t.Fatalf("name matches should rank first, got %+v", items[:1])
		}
		for _, it := range items {
			if seen[it.Slug] {
				t.Fatalf("%s appears on two pages", it.Slug)
			}
			seen[it.Slug] = true
		}
		if len(items) < 100 {
			break
		}
	}
	want := n - n/50
	if total != want || len(seen) != want {
		t.Fatalf("total %d, visited %d, want %d", total, len(seen), want)
	}
}

func TestFTSQueryQuotesOperators(t *testing.T) {
	for in, want := range map[string]string{
		`foo OR bar`:  `"foo" "or" "bar"`,
		`"quoted" (x`: `"quoted" "x"`,
		`   `:         ``,
		`c++ node.js`: `"c++" "node.js"`,
	} {
		if got := FTSQuery(in, false); got != want {
			t.Errorf("FTSQuery(%q) = %q, want %q", in, got, want)
		}
	}
	if got := FTSQuery("quick", true); got != `"quick"*` {
		t.Errorf("prefix: %q", got)
	}
}

// A search total is exact up to countCap matches; one past, it is an
// estimate (for one word, from the span of its newest matches scaled to
// live listings; otherwise countCap), and the status-only and category-only totals stay exact.
func TestSearchTotalBound(t *testing.T) {
	d, ctx := tempDB(t)
	defer func(c int) { countCap = c }(countCap)
	countCap = 10
	insert := func(from, to int, desc string) {
		for i := from; i <= to; i++ {
			if _, err := d.W.Exec(`INSERT INTO listings(id, slug, name, url, domain, description, status, launched_at, created_at, updated_at)
			VALUES (?,?,?,?,?,?,'live',?,?,?)`, i, fmt.Sprintf("item-%d", i), fmt.Sprintf("Item %d", i), "https://x.example/", "x.example",
				desc, "2026-01-01T00:00:00Z", "2026-01-01T00:00:00Z", "2026-01-01T00:00:00Z"); err != nil {
				t.Fatal(err)
			}
		}
	}
	insert(1, 10, "alpha beta")
	for _, q := range []string{"alpha", "alpha beta"} {
		if _, tot, err := d.SearchListingsTotal(ctx, SearchFilter{Q: q, Limit: 5}); err != nil || tot != (Total{N: 10}) {
			t.Fatalf("%q at the cap: %+v %v, want exactly 10", q, tot, err)
		}
	}
	insert(11, 11, "alpha beta")
	if _, tot, err := d.SearchListingsTotal(ctx, SearchFilter{Q: "alpha", Limit: 5}); err != nil || tot != (Total{N: 11, Estimate: true}) {
		t.Fatalf("one past the cap, one word: %+v %v, want the vocabulary estimate 11", tot, err)
	}
	if _, tot, err := d.SearchListingsTotal(ctx, SearchFilter{Q: "alpha beta", Limit: 5}); err != nil || tot != (Total{N: 10, Estimate: true}) {
		t.Fatalf("one past the cap, two words: %+v %v, want 10 as an estimate", tot, err)
	}
	if _, tot, err := d.SearchListingsTotal(ctx, SearchFilter{Country: "US", Limit: 5}); err != nil || tot != (Total{}) {
		t.Fatalf("filtered: %+v %v", tot, err)
	}
	insert(12, 12, "gamma")
	if _, tot, err := d.SearchListingsTotal(ctx, SearchFilter{Limit: 5}); err != nil || tot != (Total{N: 12}) {
		t.Fatalf("unfiltered live total from the counter: %+v %v, want exactly 12", tot, err)
	}
	if _, err := d.W.Exec(`UPDATE listings SET status = 'scheduled' WHERE id = 12`); err != nil {
		t.Fatal(err)
	}
	if _, err := d.W.Exec(`DELETE FROM listings WHERE id = 11`); err != nil {
		t.Fatal(err)
	}
	// The cached search follows every write.
	for want := 10; want <= 11; want++ {
		if _, tot, err := d.CachedSearch(ctx, SearchFilter{Limit: 5}); err != nil || tot != (Total{N: want}) {
			t.Fatalf("cached search: %+v %v, want %d", tot, err, want)
		}
		insert(100+want, 100+want, "delta")
	}
	for st, want := range map[string]int{"live": 12, "scheduled": 1} {
		if n, err := d.StatusCount(ctx, st); err != nil || n != want {
			t.Fatalf("status %s: %d %v, want %d", st, n, err, want)
		}
	}
}

// Concurrent requests for an uncached count run the query once.
func TestCountSingleFlight(t *testing.T) {
	ctx := context.Background()
	d := &DB{}
	var runs atomic.Int32
	release := make(chan struct{})
	var wg sync.WaitGroup
	for range 8 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			tot, err := d.cached(ctx, "k", func(context.Context) (Total, error) {
				runs.Add(1)
				<-release
				return Total{N: 5000}, nil
			})
			if err != nil || tot.N != 5000 {
				t.Errorf("%+v %v", tot, err)
			}
		}()
	}
	time.Sleep(50 * time.Millisecond)
	close(release)
	wg.Wait()
	if n := runs.Load(); n != 1 {
		t.Fatalf("count ran %d times, want 1", n)
	}
	// An expired entry is served at once while one refresh runs.
	d.counts.put("k", countEntry{n: 5000, at: time.Now().Add(-countCacheTTL - time.Second)})
	tot, err := d.cached(ctx, "k", func(context.Context) (Total, error) { return Total{N: 6000}, nil })
	if err != nil || tot.N != 5000 {
		t.Fatalf("stale entry: %+v %v, want 5000 served while refreshing", tot, err)
	}
}

// The founders list counts at most countCap public founders (a founder is
// public through a live listing): exact at the cap, an estimate one past.
func TestFoundersTotalBound(t *testing.T) {
	d, ctx := tempDB(t)
	defer func(c int) { countCap = c }(countCap)
	countCap = 10
	for i, st := range []string{"live", "draft"} {
		if _, err := d.W.Exec(`INSERT INTO listings(id, slug, name, url, domain, description, status, launched_at, created_at, updated_at)
			VALUES (?,?,?,?,?,?,?,?,?,?)`, i+1, fmt.Sprintf("item-%d", i+1), "Item", "https://x.example/", "x.example",
			"words", st, "2026-01-01T00:00:00Z", "2026-01-01T00:00:00Z", "2026-01-01T00:00:00Z"); err != nil {
			t.Fatal(err)
		}
	}
	founder := func(id, listing int) {
		t.Helper()
		if _, err := d.W.Exec(`INSERT INTO founders(id, slug, name, country, created_at) VALUES (?,?,?,?,?)`,
			id, fmt.Sprintf("f-%d", id), fmt.Sprintf("Founder %02d", id), "US", "2026-01-01T00:00:00Z"); err != nil {
			t.Fatal(err)
		}
		if _, err := d.W.Exec(`INSERT INTO listing_founders(listing_id, founder_id) VALUES (?,?)`, listing, id); err != nil {
			t.Fatal(err)
		}
	}
	for id := 1; id <= 10; id++ {
		founder(id, 1)
	}
	founder(50, 2) // only a draft: not public, not counted
	for _, country := range []string{"", "US"} {
		items, tot, err := d.Founders(ctx, "", country, 0, 3)
		if err != nil || tot != (Total{N: 10}) || len(items) != 3 || items[0].Name != "Founder 01" {
			t.Fatalf("at the cap (country %q): %+v %v %v, want exactly 10", country, tot, err, items)
		}
	}
	founder(11, 1)
	if _, tot, err := d.Founders(ctx, "", "", 0, 3); err != nil || tot != (Total{N: 10, Estimate: true}) {
		t.Fatalf("one past the cap: %+v %v, want 10 as an estimate", tot, err)
	}
	if _, tot, err := d.Founders(ctx, "Founder 1", "", 0, 3); err != nil || tot != (Total{N: 2}) {
		t.Fatalf("a name filter under the cap: %+v %v, want exactly 2 (10 and 11)", tot, err)
	}
}

// BoundedCount (leaderboard totals): exact at countCap rows, countCap as an
// estimate one past.
func TestBoundedCountEdge(t *testing.T) {
	d, ctx := tempDB(t)
	defer func(c int) { countCap = c }(countCap)
	countCap = 10
	const q = `SELECT 1 FROM listings WHERE status = 'live' AND votes > 0`
	for i := 1; i <= 11; i++ {
		if _, err := d.W.Exec(`INSERT INTO listings(id, slug, name, url, domain, description, status, votes, launched_at, created_at, updated_at)
			VALUES (?,?,?,?,?,?,'live',?,?,?,?)`, i, fmt.Sprintf("item-%d", i), "Item", "https://x.example/", "x.example",
			"words", 1, "2026-01-01T00:00:00Z", "2026-01-01T00:00:00Z", "2026-01-01T00:00:00Z"); err != nil {
			t.Fatal(err)
		}
		want := Total{N: i}
		if i > countCap {
			want = Total{N: countCap, Estimate: true}
		}
		if tot, err := d.BoundedCount(ctx, q); err != nil || tot != want {
			t.Fatalf("%d rows: %+v %v, want %+v", i, tot, err, want)
		}
	}
}

// Past countCap, a one-word search's total is estimated from its newest
// ftsCandidates matches: the share of listing ids they span, applied to the
// live listings. Here every other listing of 1,200 has the word: about 600.
func TestSearchEstimateFromNewestMatches(t *testing.T) {
	d, ctx := tempDB(t)
	defer func(c int) { countCap = c }(countCap)
	countCap = 100
	if _, err := d.W.Exec(`WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < 1200)
		INSERT INTO listings(id, slug, name, url, domain, description, status, launched_at, created_at, updated_at)
		SELECT i, 'item-' || i, 'Item ' || i, 'https://x.example/', 'x.example', CASE i % 2 WHEN 0 THEN 'alpha' ELSE 'omega' END,
			'live', '2026-01-01T00:00:00Z', '2026-01-01T00:00:00Z', '2026-01-01T00:00:00Z' FROM n`); err != nil {
		t.Fatal(err)
	}
	_, tot, err := d.SearchListingsTotal(ctx, SearchFilter{Q: "alpha", Limit: 5})
	if err != nil || !tot.Estimate || tot.N < 570 || tot.N > 630 {
		t.Fatalf("600 of 1,200 match: %+v %v, want an estimate near 600", tot, err)
	}
	// The estimate never exceeds the live listings.
	if err := d.Tx(ctx, func(tx *sql.Tx) error {
		_, err := tx.Exec(`UPDATE listings SET description = 'alpha'`)
		return err
	}); err != nil {
		t.Fatal(err)
	}
	if _, tot, err := d.SearchListingsTotal(ctx, SearchFilter{Q: "alpha", Limit: 5}); err != nil || tot != (Total{N: 1200, Estimate: true}) {
		t.Fatalf("every listing matches: %+v %v, want 1,200 as an estimate", tot, err)
	}
}

// A word whose newest ftsCandidates matches all fail the filters (here
// drafts) is still found in its older matches, with an exact total.
func TestSearchNewestMatchesAllFiltered(t *testing.T) {
	d, ctx := tempDB(t)
	if err := d.Tx(ctx, func(tx *sql.Tx) error {
		_, err := tx.Exec(`WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < 600)
			INSERT INTO listings(id, slug, name, url, domain, description, status, launched_at, created_at, updated_at)
			SELECT i, 'item-' || i, 'Item ' || i, 'https://x.example/', 'x.example', 'alpha',
				CASE WHEN i <= 100 THEN 'live' ELSE 'draft' END, '2026-01-01T00:00:00Z', '2026-01-01T00:00:00Z', '2026-01-01T00:00:00Z' FROM n`)
		return err
	}); err != nil {
		t.Fatal(err)
	}
	items, tot, err := d.SearchListingsTotal(ctx, SearchFilter{Q: "alpha", Limit: 5})
	if err != nil || tot != (Total{N: 100}) || len(items) != 5 || items[0].ID != 100 {
		t.Fatalf("100 live matches older than 500 drafts: %+v, %d items (first %v), %v", tot, len(items), items, err)
	}
}

// A search whose words are estimated in more than frequentMatches live
// listings ranks its newest ftsCandidates matches by votes, then newest,
// without bm25 (which would count every listing with the word); at the
// bound they are ranked by bm25. Here 1,000 live listings, "alpha" in
// every even one (the newest 500 live matches span ids 2..1000: an
// estimate of 500), and two drafts after them, 1002 with "alpha" (and
// "zeta"): the matches of one name first under bm25, the most voted first
// past it, and never the draft.
func TestFrequentWordsRankedByVotes(t *testing.T) {
	d, ctx := tempDB(t)
	defer func(c int) { frequentMatches = c }(frequentMatches)
	if err := d.Tx(ctx, func(tx *sql.Tx) error {
		_, err := tx.Exec(`WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < 1002)
			INSERT INTO listings(id, slug, name, url, domain, description, status, votes, country, launched_at, created_at, updated_at)
			SELECT i, 'item-' || i, CASE WHEN i % 100 = 2 THEN 'Alpha ' ELSE 'Item ' END || i, 'https://x.example/', 'x.example',
				CASE WHEN i % 50 = 2 THEN 'alpha and more zeta' WHEN i % 2 = 0 THEN 'alpha and more words' ELSE 'omega' END,
				CASE WHEN i > 1000 THEN 'draft' ELSE 'live' END, (i * 37) % 101, CASE WHEN i % 4 = 0 THEN 'US' ELSE 'DE' END,
				'2026-01-01T00:00:00Z', '2026-01-01T00:00:00Z', '2026-01-01T00:00:00Z' FROM n`)
		return err
	}); err != nil {
		t.Fatal(err)
	}
	// byVotes is the order past the bound: live matches (even ids up to
	// 1000, not the draft 1002) passing keep, most voted first, then newest.
	byVotes := func(keep func(id int) bool) []int64 {
		var ids []int64
		for i := 1000; i >= 2; i -= 2 {
			if keep(i) {
				ids = append(ids, int64(i))
			}
		}
		slices.SortStableFunc(ids, func(a, b int64) int { return cmp.Compare((b*37)%101, (a*37)%101) })
		return ids
	}
	all := func(f SearchFilter) ([]int64, Total) {
		t.Helper()
		var ids []int64
		var tot Total
		for f.Offset = 0; ; f.Offset += 40 {
			f.Limit = 40
			items, tt, err := d.SearchListingsTotal(ctx, f)
			if err != nil {
				t.Fatal(err)
			}
			tot = tt
			for _, it := range items {
				ids = append(ids, it.ID)
			}
			if len(items) < f.Limit {
				return ids, tot
			}
		}
	}
	frequentMatches = 500 // the estimate: not past the bound, ranked by bm25
	got, tot := all(SearchFilter{Q: "alpha"})
	if tot != (Total{N: 500}) || len(got) != 500 || got[0]%100 != 2 || slices.Contains(got, 1002) || slices.Equal(got, byVotes(func(int) bool { return true })) {
		t.Fatalf("at the bound: total %+v, %d ids, first %d: want 500 ranked by bm25 (a name match first), not the draft", tot, len(got), got[0])
	}
	frequentMatches = 499 // one past: by votes, then newest
	for _, c := range []struct {
		f    SearchFilter
		keep func(int) bool
	}{
		{SearchFilter{Q: "alpha"}, func(int) bool { return true }},
		{SearchFilter{Q: "and alpha"}, func(int) bool { return true }},
		{SearchFilter{Q: "alpha", Country: "US"}, func(i int) bool { return i%4 == 0 }},
	} {
		want := byVotes(c.keep)
		got, tot := all(c.f)
		if !slices.Equal(got, want) || tot != (Total{N: len(want)}) {
			t.Fatalf("%+v past the bound: total %+v, ids %v, want %d by votes: %v", c.f, tot, got, len(want), want)
		}
	}
	// With another word that weighs (zeta, in 20 listings, all with
	// alpha), bm25 ranks by it alone: the zeta matches tie (the same
	// description, names of two words), so the most voted come first, not
	// the names with "alpha" that bm25 over both words would put first.
	want := byVotes(func(i int) bool { return i%50 == 2 })
	for _, q := range []string{"zeta", "alpha zeta", "and alpha zeta"} {
		if got, tot := all(SearchFilter{Q: q}); !slices.Equal(got, want) || tot != (Total{N: len(want)}) {
			t.Fatalf("%q: total %+v, ids %v, want %v", q, tot, got, want)
		}
	}
}

// A search reads its status's range of the full-text index (migration
// 0031: a listing not live is indexed at its id + 2^40): live listings for
// the directory, scheduled ones for upcoming, never a draft, by relevance
// and by any other order, and a listing follows its status when it changes.
func TestSearchReadsItsStatusRange(t *testing.T) {
	d, ctx := tempDB(t)
	if err := d.Tx(ctx, func(tx *sql.Tx) error {
		for i, st := range []string{"live", "scheduled", "live", "draft", "scheduled", "live", "archived", "scheduled"} {
			word := "alpha"
			if i == 7 {
				word = "beta"
			}
			if _, err := tx.Exec(`INSERT INTO listings(id, slug, name, url, domain, description, status, launched_at, created_at, updated_at)
				VALUES (?, ?, ?, 'https://x.example/', 'x.example', ?, ?, '2026-01-01T00:00:00Z', 'x', 'x')`,
				i+1, fmt.Sprintf("item-%d", i+1), fmt.Sprintf("Item %d", i+1), word+" words", st); err != nil {
				return err
			}
		}
		return nil
	}); err != nil {
		t.Fatal(err)
	}
	check := func(q string, upcoming bool, want ...int64) {
		t.Helper()
		for _, sort := range []string{"", "newest"} {
			items, total, err := d.SearchListingsTotal(ctx, SearchFilter{Q: q, Upcoming: upcoming, Sort: sort, Limit: 20})
			if err != nil {
				t.Fatal(err)
			}
			var got []int64
			for _, it := range items {
				got = append(got, it.ID)
			}
			slices.Sort(got)
			if !slices.Equal(got, want) || total != (Total{N: len(want)}) {
				t.Errorf("%q upcoming=%v sort=%q: %v (total %+v), want %v", q, upcoming, sort, got, total, want)
			}
		}
	}
	check("alpha", false, 1, 3, 6)
	check("alpha", true, 2, 5)
	check("beta", false)
	check("beta", true, 8)
	if err := d.Tx(ctx, func(tx *sql.Tx) error {
		_, err := tx.Exec(`UPDATE listings SET status = CASE id WHEN 2 THEN 'live' WHEN 3 THEN 'archived' WHEN 4 THEN 'scheduled' END WHERE id IN (2, 3, 4)`)
		return err
	}); err != nil {
		t.Fatal(err)
	}
	check("alpha", false, 1, 2, 6)
	check("alpha", true, 4, 5)
	checkFTS(t, d)
}
