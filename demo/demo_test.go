package demo

import (
	"context"
	"crypto/sha256"
	"database/sql"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"launchdir/db"
)

// testNow is a Wednesday afternoon, so the current week has past days.
var testNow = time.Date(2025, 3, 12, 15, 4, 5, 0, time.UTC)

func openDB(t testing.TB) *db.DB {
	t.Helper()
	d, err := db.Open(context.Background(), filepath.Join(t.TempDir(), "demo.db"))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { d.Close() })
	return d
}

func generated(t *testing.T, seed int64) *db.DB {
	t.Helper()
	d := openDB(t)
	if err := Generate(context.Background(), d, Options{Seed: seed, Now: testNow}); err != nil {
		t.Fatal(err)
	}
	return d
}

func count(t *testing.T, d *db.DB, query string, args ...any) int {
	t.Helper()
	var n int
	if err := d.R.QueryRow(query, args...).Scan(&n); err != nil {
		t.Fatalf("%s: %v", query, err)
	}
	return n
}

func strs(t *testing.T, d *db.DB, query string, args ...any) []string {
	t.Helper()
	rows, err := d.R.Query(query, args...)
	if err != nil {
		t.Fatalf("%s: %v", query, err)
	}
	defer rows.Close()
	var out []string
	for rows.Next() {
		var s string
		if err := rows.Scan(&s); err != nil {
			t.Fatal(err)
		}
		out = append(out, s)
	}
	return out
}

// dump hashes the rows of the tables whose content must be reproducible.
func dump(t *testing.T, d *db.DB) map[string]string {
	t.Helper()
	out := map[string]string{}
	for _, q := range []string{
		"SELECT * FROM listings ORDER BY id",
		"SELECT * FROM categories ORDER BY id",
		"SELECT * FROM founders ORDER BY id",
		"SELECT * FROM listing_founders ORDER BY listing_id, founder_id",
		"SELECT * FROM listing_categories ORDER BY listing_id, category_id",
		"SELECT * FROM votes ORDER BY listing_id, voter",
		"SELECT * FROM weekly_votes ORDER BY week, listing_id",
		"SELECT * FROM awards ORDER BY week, rank",
		"SELECT * FROM reviews ORDER BY id",
		"SELECT * FROM daily_views ORDER BY listing_id, day",
		"SELECT * FROM faqs ORDER BY id",
		"SELECT * FROM alternatives ORDER BY listing_id, alternative_id",
		"SELECT * FROM blog_posts ORDER BY id",
		"SELECT * FROM settings ORDER BY key",
	} {
		rows, err := d.R.Query(q)
		if err != nil {
			t.Fatal(err)
		}
		cols, _ := rows.Columns()
		h := sha256.New()
		vals := make([]any, len(cols))
		ptrs := make([]any, len(cols))
		for i := range vals {
			ptrs[i] = &vals[i]
		}
		n := 0
		for rows.Next() {
			if err := rows.Scan(ptrs...); err != nil {
				t.Fatal(err)
			}
			fmt.Fprintf(h, "%v\n", vals)
			n++
		}
		rows.Close()
		out[q] = fmt.Sprintf("%d rows %s", n, hex.EncodeToString(h.Sum(nil)))
	}
	return out
}

func TestGenerateIsDeterministic(t *testing.T) {
	a, b, c := dump(t, generated(t, 42)), dump(t, generated(t, 42)), dump(t, generated(t, 43))
	for q, h := range a {
		if b[q] != h {
			t.Errorf("same seed, different rows: %s", q)
		}
	}
	if a["SELECT * FROM listings ORDER BY id"] == c["SELECT * FROM listings ORDER BY id"] {
		t.Error("different seeds produced identical listings")
	}
}

func TestGenerateRefusesNonEmptyDatabase(t *testing.T) {
	d := generated(t, 1)
	if err := Generate(context.Background(), d, Options{Seed: 1, Now: testNow}); err == nil {
		t.Fatal("second Generate into the same database succeeded")
	}
	if err := Generate(context.Background(), openDB(t), Options{Seed: 1}); err == nil {
		t.Fatal("Generate without Now succeeded")
	}
}

func TestGenerateSmallDirectory(t *testing.T) {
	d := openDB(t)
	if err := Generate(context.Background(), d, Options{Seed: 3, Listings: 40, Now: testNow}); err != nil {
		t.Fatal(err)
	}
	if n := count(t, d, "SELECT count(*) FROM listings"); n != 40 {
		t.Errorf("listings = %d", n)
	}
	checkCounters(t, d)
}

func TestGenerateContents(t *testing.T) {
	d := generated(t, 7)
	week0 := "2025-03-10"

	if n := count(t, d, "SELECT count(*) FROM listings"); n != DefaultListings {
		t.Errorf("listings = %d, want %d", n, DefaultListings)
	}
	if n := count(t, d, "SELECT count(*) FROM listings WHERE status = 'live'"); n < 250 {
		t.Errorf("live listings = %d, want >= 250", n)
	}
	for _, st := range []string{"draft", "awaiting_badge", "rejected", "archived"} {
		if count(t, d, "SELECT count(*) FROM listings WHERE status = ?", st) == 0 {
			t.Errorf("no %s listings", st)
		}
	}
	checkScheduled(t, d, week0)
	checkLive(t, d, week0)
	checkCategories(t, d)
	checkListingFields(t, d)
	checkPeople(t, d)
	checkSiteContent(t, d)
	checkCounters(t, d)
	checkAwards(t, d, week0)
	if n := count(t, d, "SELECT count(*) FROM listings_fts WHERE listings_fts MATCH 'invoices OR builds OR notes'"); n == 0 {
		t.Error("full-text search finds nothing")
	}
}

func checkScheduled(t *testing.T, d *db.DB, week0 string) {
	n := count(t, d, "SELECT count(*) FROM listings WHERE status = 'scheduled'")
	if n < 15 || n > 25 {
		t.Errorf("scheduled = %d, want about 20", n)
	}
	bad := count(t, d, `SELECT count(*) FROM listings WHERE status = 'scheduled' AND (launched_at IS NOT NULL
		OR launch_week <= ? OR launch_week > date(?, '+56 days') OR strftime('%w', launch_week) != '1')`, week0, week0)
	if bad > 0 {
		t.Errorf("%d scheduled listings outside the next 8 weeks", bad)
	}
}

func checkLive(t *testing.T, d *db.DB, week0 string) {
	now := stamp(testNow)
	bad := count(t, d, `SELECT count(*) FROM listings WHERE status = 'live' AND (plan NOT IN ('free','paid')
		OR strftime('%w', launch_week) != '1' OR launched_at < launch_week OR launched_at >= date(launch_week, '+7 days')
		OR launched_at > ? OR launched_at NOT LIKE '____-__-__T__:__:__Z' OR primary_category_id IS NULL)`, now)
	if bad > 0 {
		t.Errorf("%d live listings with a bad plan, week or launch time", bad)
	}
	if n := count(t, d, "SELECT count(*) FROM listings WHERE status = 'live' AND substr(launched_at, 1, 10) = ?", date(testNow)); n < 3 {
		t.Errorf("launched today = %d, want >= 3", n)
	}
	if n := count(t, d, "SELECT count(*) FROM listings WHERE status = 'live' AND launch_week = ?", week0); n < 8 {
		t.Errorf("launched this week = %d, want >= 8", n)
	}
	if n := count(t, d, "SELECT count(*) FROM listings WHERE status = 'live' AND launch_week >= date(?, '-112 days')", week0); n < 200 {
		t.Errorf("live in the last 16 weeks = %d", n)
	}
	over := count(t, d, `SELECT count(*) FROM (SELECT launch_week FROM listings WHERE status IN ('live','scheduled') AND plan = 'free'
		GROUP BY launch_week HAVING count(*) > 10)`)
	if over > 0 {
		t.Errorf("%d weeks exceed the free capacity", over)
	}
	extra := count(t, d, `SELECT count(*) FROM listing_categories lc JOIN listings l ON l.id = lc.listing_id
		WHERE lc.is_primary = 0 AND l.plan != 'paid'`)
	if extra > 0 {
		t.Errorf("%d extra categories on unpaid listings", extra)
	}
	if count(t, d, "SELECT count(*) FROM listing_categories WHERE is_primary = 1") != DefaultListings {
		t.Error("not every listing has one primary category row")
	}
	for _, tbl := range []string{"stories", "milestones", "media"} {
		if count(t, d, "SELECT count(*) FROM "+tbl) == 0 {
			t.Errorf("no %s", tbl)
		}
	}
	if n := count(t, d, `SELECT count(*) FROM listings l WHERE unlock_story = 1 AND status = 'live'
		AND NOT EXISTS (SELECT 1 FROM stories s WHERE s.listing_id = l.id)`); n > 0 {
		t.Errorf("%d unlocked stories missing", n)
	}
}

var slugRE = regexp.MustCompile(`^[a-z0-9][a-z0-9-]{0,219}$`)

func checkCategories(t *testing.T, d *db.DB) {
	if n := count(t, d, "SELECT count(*) FROM categories WHERE parent_id IS NULL"); n < 12 {
		t.Errorf("top-level categories = %d", n)
	}
	if n := count(t, d, `SELECT count(*) FROM categories p WHERE parent_id IS NULL
		AND (SELECT count(*) FROM categories c WHERE c.parent_id = p.id) NOT BETWEEN 2 AND 5`); n > 0 {
		t.Errorf("%d top-level categories without 2-5 subcategories", n)
	}
	for _, s := range strs(t, d, "SELECT slug FROM categories UNION ALL SELECT slug FROM listings") {
		if !slugRE.MatchString(s) {
			t.Errorf("bad slug %q", s)
		}
	}
	for _, a := range strs(t, d, "SELECT attributes FROM categories") {
		var names []string
		if json.Unmarshal([]byte(a), &names) != nil || len(names) < 3 {
			t.Errorf("bad category attributes %s", a)
		}
	}
	if count(t, d, "SELECT count(*) FROM categories WHERE live_count > 0") < 20 {
		t.Error("category live counts were not refreshed")
	}
}

func checkListingFields(t *testing.T, d *db.DB) {
	allowed := map[string]bool{}
	for _, k := range socialKeys {
		allowed[k] = true
	}
	rows, err := d.R.Query(`SELECT domain, url, socials, not_found, founded_year IS NULL, city = '', attributes, features,
		description, stage, pricing_model FROM listings`)
	if err != nil {
		t.Fatal(err)
	}
	defer rows.Close()
	emptyAttr := 0
	for rows.Next() {
		var domain, url, socials, notFound, attrs, features, desc, stage, pricing string
		var noYear, noCity bool
		if err := rows.Scan(&domain, &url, &socials, &notFound, &noYear, &noCity, &attrs, &features, &desc, &stage, &pricing); err != nil {
			t.Fatal(err)
		}
		if url != "https://"+domain+"/" && url != "https://www."+domain+"/" || strings.HasPrefix(domain, "www.") {
			t.Errorf("url %s does not match domain %s", url, domain)
		}
		var so map[string]string
		_ = json.Unmarshal([]byte(socials), &so)
		for k, v := range so {
			if !allowed[k] || !strings.HasPrefix(v, "https://") {
				t.Errorf("bad social %s=%s", k, v)
			}
		}
		var nf []string
		_ = json.Unmarshal([]byte(notFound), &nf)
		if strings.Contains(notFound, `"founded_year"`) != noYear || strings.Contains(notFound, `"city"`) != noCity {
			t.Errorf("not_found %s disagrees with the fields", notFound)
		}
		var fs []string
		_ = json.Unmarshal([]byte(features), &fs)
		if len(fs) < 3 || len(fs) > 8 {
			t.Errorf("%d features", len(fs))
		}
		if p := strings.Count(desc, "\n\n") + 1; p < 2 || p > 4 {
			t.Errorf("description has %d paragraphs", p)
		}
		if !strings.Contains("idea pre-launch beta launched growth profitable", stage) || stage == "" {
			t.Errorf("bad stage %q", stage)
		}
		if !strings.Contains("free freemium subscription one-time usage-based open-source", pricing) || pricing == "" {
			t.Errorf("bad pricing model %q", pricing)
		}
		if attrs == "{}" {
			emptyAttr++
		}
	}
	if n := count(t, d, "SELECT count(DISTINCT country) FROM listings"); n < 10 {
		t.Errorf("only %d countries", n)
	}
	if n := count(t, d, "SELECT count(*) FROM listings WHERE founded_year NOT BETWEEN 2008 AND 2025"); n > 0 {
		t.Errorf("%d founded years out of range", n)
	}
	if count(t, d, "SELECT count(DISTINCT domain) FROM listings") != DefaultListings {
		t.Error("domains are not unique")
	}
}

func checkPeople(t *testing.T, d *db.DB) {
	if n := count(t, d, `SELECT count(*) FROM listing_owners o JOIN users u ON u.id = o.user_id
		WHERE u.email = 'demo@launchdir.local' AND u.name = 'Demo Founder'`); n < 3 {
		t.Errorf("demo user owns %d listings", n)
	}
	if n := count(t, d, "SELECT count(*) FROM listings l WHERE NOT EXISTS (SELECT 1 FROM listing_founders f WHERE f.listing_id = l.id AND f.position = 0)"); n > 0 {
		t.Errorf("%d listings without a primary founder", n)
	}
	if n := count(t, d, "SELECT count(*) FROM (SELECT founder_id FROM listing_founders GROUP BY founder_id HAVING count(*) > 1)"); n == 0 {
		t.Error("no founder has several companies")
	}
	if n := count(t, d, "SELECT count(*) FROM users WHERE email LIKE 'user%@example.com'"); n != visitors {
		t.Errorf("visitor users = %d", n)
	}
}

func checkSiteContent(t *testing.T, d *db.DB) {
	bodies := strs(t, d, "SELECT body_md FROM blog_posts")
	if len(bodies) < 8 {
		t.Errorf("blog posts = %d", len(bodies))
	}
	for i, b := range bodies {
		if w := len(strings.Fields(b)); w < 300 || !strings.Contains(b, "\n## ") || !strings.Contains(b, "\n- ") || !strings.Contains(b, "](") {
			t.Errorf("blog post %d: %d words or missing markdown", i+1, w)
		}
	}
	if count(t, d, "SELECT count(DISTINCT published_at) FROM blog_posts") != len(bodies) {
		t.Error("blog posts share publication times")
	}
	if n := count(t, d, "SELECT count(*) FROM interview_questions"); n < 12 || count(t, d, "SELECT max(position) FROM interview_questions") != n {
		t.Errorf("interview questions = %d", n)
	}
	if count(t, d, "SELECT count(*) FROM products") != 10 || count(t, d, "SELECT price_cents FROM products WHERE code = 'billboard_min'") != 500 {
		t.Error("products are wrong")
	}
	settings := strs(t, d, "SELECT key || '=' || value FROM settings ORDER BY key")
	first := strs(t, d, "SELECT min(launch_week) FROM listings")[0]
	want := []string{"first_week=" + first, "free_queue_weeks=4", "free_weekly_capacity=10"}
	joined := strings.Join(settings, "\n")
	for _, w := range want {
		if !strings.Contains(joined, w) {
			t.Errorf("settings lack %s:\n%s", w, joined)
		}
	}
}

// checkCounters recomputes every maintained counter from its rows.
func checkCounters(t *testing.T, d *db.DB) {
	t.Helper()
	votes := count(t, d, "SELECT count(*) FROM votes")
	if votes == 0 {
		t.Fatal("no votes")
	}
	if s := count(t, d, "SELECT coalesce(sum(votes),0) FROM listings"); s != votes {
		t.Errorf("sum(listings.votes) = %d, votes = %d", s, votes)
	}
	if s := count(t, d, "SELECT coalesce(sum(votes),0) FROM weekly_votes"); s != votes {
		t.Errorf("sum(weekly_votes) = %d, votes = %d", s, votes)
	}
	for name, q := range map[string]string{
		"votes":        "SELECT count(*) FROM listings l WHERE votes != (SELECT count(*) FROM votes v WHERE v.listing_id = l.id)",
		"weekly":       "SELECT count(*) FROM weekly_votes w WHERE votes != (SELECT count(*) FROM votes v WHERE v.listing_id = w.listing_id AND v.week = w.week)",
		"launch week":  "SELECT count(*) FROM listings l WHERE launch_week IS NOT NULL AND coalesce((SELECT votes FROM launches n WHERE n.week = l.launch_week AND n.listing_id = l.id), -1) != coalesce((SELECT votes FROM weekly_votes w WHERE w.week = l.launch_week AND w.listing_id = l.id), 0)",
		"launches":     "SELECT count(*) FROM launches n WHERE NOT EXISTS (SELECT 1 FROM listings l WHERE l.id = n.listing_id AND l.launch_week = n.week)",
		"vote weeks":   "SELECT count(*) FROM votes WHERE week != date(created_at, '-' || ((cast(strftime('%w', created_at) AS int) + 6) % 7) || ' days')",
		"rating":       "SELECT count(*) FROM listings l WHERE rating_count != (SELECT count(*) FROM reviews r WHERE r.listing_id = l.id AND genuine = 1) OR rating_sum != (SELECT coalesce(sum(rating),0) FROM reviews r WHERE r.listing_id = l.id AND genuine = 1)",
		"views":        "SELECT count(*) FROM listings l WHERE views != (SELECT coalesce(sum(views),0) FROM daily_views v WHERE v.listing_id = l.id)",
		"follows":      "SELECT count(*) FROM listings l WHERE follows != (SELECT count(*) FROM follows f WHERE f.listing_id = l.id)",
		"billboard":    "SELECT count(*) FROM listings l WHERE billboard_cents != (SELECT coalesce(sum(amount_cents),0) FROM billboard_contributions b WHERE b.listing_id = l.id)",
		"dr":           "SELECT count(*) FROM listings l WHERE domain_rating IS NOT (SELECT rating FROM domain_ratings r WHERE r.listing_id = l.id ORDER BY measured_on DESC LIMIT 1)",
		"future votes": "SELECT count(*) FROM votes v JOIN listings l ON l.id = v.listing_id WHERE v.created_at < l.launched_at OR v.created_at > '" + stamp(testNow) + "'",
		"unlive votes": "SELECT count(*) FROM votes v JOIN listings l ON l.id = v.listing_id WHERE l.status != 'live'",
		// The kept week counts (migration 0033), both ways.
		"week counts": `SELECT count(*) FROM (SELECT n.week, count(*) AS c FROM launches n JOIN listings l ON l.id = n.listing_id
			WHERE l.status IN ('live','scheduled') GROUP BY n.week) f FULL JOIN (SELECT week, n AS c FROM week_launch_counts WHERE n != 0) k
			ON k.week = f.week WHERE f.c IS NOT k.c`,
	} {
		if n := count(t, d, q); n > 0 {
			t.Errorf("%s: %d rows disagree", name, n)
		}
	}
	if count(t, d, "SELECT count(*) FROM launches WHERE votes > 0") == 0 {
		t.Error("no listing has votes in its launch week")
	}
	if count(t, d, "SELECT count(*) FROM reviews WHERE genuine = 0") == 0 {
		t.Error("no non-genuine reviews to exclude")
	}
	if count(t, d, "SELECT count(*) FROM listings WHERE trending > 0") == 0 {
		t.Error("nothing is trending")
	}
	// This week's featured slots, full and held by live paid launches of
	// this week (the home page shows them).
	thisWeek := monday(testNow).Format("2006-01-02")
	if n := count(t, d, "SELECT count(*) FROM featured_slots WHERE week = '"+thisWeek+"'"); n != featuredSlots {
		t.Errorf("%d featured slots this week, want %d", n, featuredSlots)
	}
	if n := count(t, d, `SELECT count(*) FROM featured_slots f JOIN listings l ON l.id = f.listing_id
		WHERE l.status != 'live' OR l.plan != 'paid' OR l.launch_week != f.week`); n > 0 {
		t.Errorf("%d featured slots held by listings that are not live paid launches of their week", n)
	}
	live := count(t, d, "SELECT count(*) FROM listings WHERE status = 'live'")
	if r := count(t, d, "SELECT count(*) FROM revenue"); r*100 < live*25 || r*100 > live*55 {
		t.Errorf("revenue rows = %d for %d live listings", r, live)
	}
	if count(t, d, "SELECT count(*) FROM billboard_contributions WHERE amount_cents < 500") > 0 {
		t.Error("billboard contribution below the minimum")
	}
}

// checkAwards recomputes the awards of every completed week from the votes
// table: the listings launched that week, by the votes cast on them in that
// week, ties to the lower id. Nobody wins in a week they did not launch in,
// so (without relaunches in the demo) nobody wins twice.
func checkAwards(t *testing.T, d *db.DB, week0 string) {
	want := strs(t, d, `SELECT week || ' ' || rank || ' ' || listing_id || ' ' || votes FROM (
		SELECT l.launch_week AS week, row_number() OVER (PARTITION BY l.launch_week ORDER BY count(*) DESC, l.id) AS rank,
			l.id AS listing_id, count(*) AS votes
		FROM listings l JOIN votes v ON v.listing_id = l.id AND v.week = l.launch_week
		WHERE l.status = 'live' AND l.launch_week < ? GROUP BY l.id)
		WHERE rank <= 3 ORDER BY week, rank`, week0)
	if n := count(t, d, `SELECT count(*) FROM (SELECT listing_id FROM awards GROUP BY listing_id HAVING count(*) > 1)`); n > 0 {
		t.Errorf("%d listings won in several weeks", n)
	}
	got := strs(t, d, "SELECT week || ' ' || rank || ' ' || listing_id || ' ' || votes FROM awards ORDER BY week, rank")
	if len(got) < 30 {
		t.Errorf("only %d awards", len(got))
	}
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("awards differ from the weekly votes:\ngot  %v\nwant %v", got, want)
	}
}

func TestSeed(t *testing.T) {
	d := openDB(t)
	start := time.Now()
	if err := Seed(context.Background(), d, 2000, 5, testNow); err != nil {
		t.Fatal(err)
	}
	t.Logf("Seed(2000) took %v", time.Since(start))
	if n := count(t, d, "SELECT count(*) FROM listings"); n != 2000 {
		t.Errorf("listings = %d", n)
	}
	checkCounters(t, d)
	checkAwards(t, d, "2025-03-10")
	if n := count(t, d, "SELECT count(*) FROM listings WHERE status = 'live'"); n < 1700 {
		t.Errorf("live = %d", n)
	}
	// The seeder fills the full-text index per batch: it must match the
	// listings exactly, and the per-row trigger must be back.
	if n, err := d.SearchIndexDiff(context.Background()); err != nil || n != 0 {
		t.Errorf("full-text index after seeding: %d entries differ (%v)", n, err)
	}
	if n := count(t, d, "SELECT count(*) FROM sqlite_master WHERE type = 'trigger' AND name = 'listings_fts_ai'"); n != 1 {
		t.Errorf("full-text insert trigger present %d times", n)
	}
	// The seed writes the launch week's count itself (checkCounters checks
	// it) with the weekly_votes triggers dropped: they must be back.
	if n := count(t, d, "SELECT count(*) FROM sqlite_master WHERE type = 'trigger' AND tbl_name = 'weekly_votes'"); n != 4 {
		t.Errorf("weekly_votes triggers present: %d, want 4", n)
	}
	if n := count(t, d, "SELECT n FROM listing_status_counts WHERE status = 'live'"); n != count(t, d, "SELECT count(*) FROM listings WHERE status = 'live'") {
		t.Errorf("live counter %d differs from the listings", n)
	}
	// Foreign keys are not checked during the bulk load: check them all.
	if n := count(t, d, "SELECT count(*) FROM pragma_foreign_key_check"); n != 0 {
		t.Errorf("%d rows break a foreign key", n)
	}
	// The category counts the generator tallied are what a recount gives.
	tallied := strs(t, d, "SELECT id || ' ' || live_count FROM categories ORDER BY id")
	if err := d.Tx(context.Background(), func(tx *sql.Tx) error { return db.RecountCategories(context.Background(), tx) }); err != nil {
		t.Fatal(err)
	}
	if recounted := strs(t, d, "SELECT id || ' ' || live_count FROM categories ORDER BY id"); strings.Join(tallied, ",") != strings.Join(recounted, ",") {
		t.Errorf("category counts: seeded %v, recounted %v", tallied, recounted)
	}
	// The same seed and size give the same rows (the generator runs in its
	// own goroutine, one chunk ahead of the writer).
	again := openDB(t)
	if err := Seed(context.Background(), again, 2000, 5, testNow); err != nil {
		t.Fatal(err)
	}
	a, b := dump(t, d), dump(t, again)
	for q, h := range a {
		if b[q] != h {
			t.Errorf("same seed, different rows: %s", q)
		}
	}
}

// The seed leaves the full-text index as one merged segment placed where
// the directory's first edits do not merge it again: no merge is left for
// them to finish. A small in-memory hash makes the 2,000 listings' index
// flush in many segments over several levels, as 100k do by default.
func TestSeedMergesTheFullTextIndex(t *testing.T) {
	d := openDB(t)
	// A small build hash makes the build flush dozens of segments (and
	// crisis-merge them); a small flush size gives the merged segment a
	// level above 0 at 2,000 listings.
	defer func(h int, p uint64) { ftsBuildHash, ftsFlushPages = h, p }(ftsBuildHash, ftsFlushPages)
	ftsBuildHash, ftsFlushPages = 16384, 4
	if _, err := d.W.Exec(`INSERT INTO listings_fts(listings_fts, rank) VALUES('hashsize', 65536)`); err != nil {
		t.Fatal(err)
	}
	if err := Seed(context.Background(), d, 2000, 5, testNow); err != nil {
		t.Fatal(err)
	}
	if n := count(t, d, "SELECT count(DISTINCT segid) FROM listings_fts_idx"); n != 1 {
		t.Errorf("full-text segments after the seed: %d, want 1", n)
	}
	for k, want := range map[string]string{"hashsize": "65536", "automerge": "0", "crisismerge": "16"} {
		if got := strs(t, d, `SELECT v FROM listings_fts_config WHERE k = ?`, k); len(got) != 1 || got[0] != want {
			t.Errorf("full-text setting %s after the seed: %v, want %s", k, got, want)
		}
	}
	seg, level := seedSegment(t, d)
	if want := seedSegmentLevel(seg.last - seg.first + 1); level != want || level < 3 {
		t.Errorf("seed's segment (%d pages) on level %d, want %d (and above 2)", seg.last-seg.first+1, level, want)
	}
	// Forty edits, a commit (and a new small segment) each, on the
	// connection that seeded: it must not write back the levels it read
	// before the seed moved the segment.
	for i := range 40 {
		err := d.Tx(context.Background(), func(tx *sql.Tx) error {
			_, err := tx.Exec(`UPDATE listings SET tagline = ? WHERE id = 1`, fmt.Sprintf("edited tagline %d", i))
			return err
		})
		if err != nil {
			t.Fatal(err)
		}
	}
	if now, nowLevel := seedSegment(t, d); now != seg || nowLevel != level {
		t.Errorf("after 40 edits the seed's segment is %+v on level %d, was %+v on level %d", now, nowLevel, seg, level)
	}
	if n, err := d.SearchIndexDiff(context.Background()); err != nil || n != 0 {
		t.Errorf("full-text index after the edits: %d entries differ (%v)", n, err)
	}
}

// seedSegment is the biggest segment of the full-text structure record
// and its level.
func seedSegment(t *testing.T, d *db.DB) (ftsSegment, int) {
	t.Helper()
	var block []byte
	if err := d.W.QueryRow(`SELECT block FROM listings_fts_data WHERE id = 10`).Scan(&block); err != nil {
		t.Fatal(err)
	}
	s, err := decodeFTSStructure(block)
	if err != nil {
		t.Fatal(err)
	}
	var best ftsSegment
	level := -1
	for i, l := range s.levels {
		for _, g := range l.segments {
			if g.last-g.first > best.last-best.first || level < 0 {
				best, level = g, i
			}
		}
	}
	return best, level
}

func TestSeedSegmentLevel(t *testing.T) {
	// The levels FTS5's own merges gave the seeds of 100k and 1M listings
	// (9,449 and 94,036 pages), and the edges of the rule.
	for _, c := range []struct {
		pages uint64
		want  int
	}{{0, 0}, {220, 0}, {221, 2}, {440, 2}, {880, 2}, {881, 3}, {3520, 3}, {3521, 4}, {9449, 4}, {14080, 4}, {14081, 5}, {94036, 6}} {
		if got := seedSegmentLevel(c.pages); got != c.want {
			t.Errorf("seedSegmentLevel(%d) = %d, want %d", c.pages, got, c.want)
		}
	}
}

func TestFTSStructureRoundTrip(t *testing.T) {
	s := ftsStructure{cookie: [4]byte{0, 0, 0, 7}, writes: 1 << 60, levels: []ftsLevel{
		{}, {merging: 2, segments: []ftsSegment{{1, 137438953473, 137438953600}, {2, 5, 5}}}, {segments: []ftsSegment{{3, 127, 128}}},
	}}
	got, err := decodeFTSStructure(s.encode())
	if err != nil || fmt.Sprint(got) != fmt.Sprint(s) {
		t.Fatalf("round trip: %+v (%v), want %+v", got, err, s)
	}
	for _, b := range [][]byte{nil, {0, 0, 0}, {0, 0, 0, 0, 1}, {0, 0, 0, 0, 0xff, 0, 0, 1, 0}, {0, 0, 0, 0, 1, 2, 0, 0, 1, 1, 1, 1}} {
		if _, err := decodeFTSStructure(b); err == nil {
			t.Errorf("decode(%x): no error", b)
		}
	}
}

func BenchmarkSeed10k(b *testing.B) {
	for b.Loop() {
		b.StopTimer()
		d := openDB(b)
		b.StartTimer()
		if err := Seed(context.Background(), d, 10000, 1, testNow); err != nil {
			b.Fatal(err)
		}
	}
}

// schema lists every table, index and trigger with its SQL.
func schema(t *testing.T, d *db.DB) []string {
	t.Helper()
	return strs(t, d, `SELECT type || ' ' || name || ' ' || coalesce(sql, '') FROM sqlite_master ORDER BY type, name`)
}

// A seed is one transaction: cancelled half-way (indexes and the
// full-text trigger dropped, thousands of rows written), it leaves the
// database empty with its schema whole and the writer back in WAL mode
// with foreign keys on; a second seed then succeeds.
func TestSeedCancelledLeavesEmptyWholeDatabase(t *testing.T) {
	d := openDB(t)
	before := schema(t, d)
	writerCache := func() (n int) {
		if err := d.W.QueryRow("PRAGMA cache_size").Scan(&n); err != nil {
			t.Fatal(err)
		}
		return n
	}
	cacheBefore := writerCache()
	ctx, cancel := context.WithTimeout(context.Background(), 300*time.Millisecond)
	defer cancel()
	if err := Seed(ctx, d, 100000, 1, testNow); !errors.Is(err, context.DeadlineExceeded) {
		t.Fatalf("cancelled seed returned %v", err)
	}
	if n := count(t, d, "SELECT count(*) FROM listings"); n != 0 {
		t.Errorf("%d listings after a cancelled seed", n)
	}
	if after := schema(t, d); strings.Join(after, "\n") != strings.Join(before, "\n") {
		t.Errorf("schema changed by a cancelled seed:\nbefore %v\nafter  %v", before, after)
	}
	var mode string
	var fk int
	if err := d.W.QueryRow(`SELECT (SELECT journal_mode FROM pragma_journal_mode), (SELECT foreign_keys FROM pragma_foreign_keys)`).Scan(&mode, &fk); err != nil || mode != "wal" || fk != 1 {
		t.Errorf("after a cancelled seed: journal_mode %q, foreign_keys %d, %v", mode, fk, err)
	}
	if c := writerCache(); c != cacheBefore {
		t.Errorf("writer page cache %d after a cancelled seed, %d before", c, cacheBefore)
	}
	if err := Seed(context.Background(), d, 1500, 2, testNow); err != nil {
		t.Fatal(err)
	}
	if after := schema(t, d); strings.Join(after, "\n") != strings.Join(before, "\n") {
		t.Errorf("schema changed by a seed:\nbefore %v\nafter  %v", before, after)
	}
	if n := count(t, d, "SELECT count(*) FROM listings"); n != 1500 {
		t.Errorf("%d listings after the second seed", n)
	}
}
