package demo

import (
	"bytes"
	"context"
	"database/sql"
	"encoding/json"
	"regexp"
	"strings"
	"testing"
	"time"

	"launchdir/db"
	"launchdir/ops"
)

// The ready-made profile (db/profiles.go, migration 0018) of every live
// listing is byte for byte a fresh assembly, and stays so after a write to
// each thing a profile shows: a write through Tx rebuilds it before its
// commit; a bare statement on the writer removes it (the read assembles
// fresh) until the rebuild job runs.
func TestReadyMadeProfileIsFreshAssembly(t *testing.T) {
	ctx := context.Background()
	d := openDB(t)
	if err := Generate(ctx, d, Options{Seed: 1, Now: testNow}); err != nil {
		t.Fatal(err)
	}
	if err := d.RebuildStaleProfiles(ctx); err != nil {
		t.Fatal(err)
	}
	slugs, err := db.Column[string](ctx, d.R, `SELECT slug FROM listings WHERE status = 'live' ORDER BY id`)
	if err != nil || len(slugs) < 100 {
		t.Fatalf("%d live listings, %v", len(slugs), err)
	}
	fresh := func(slug string) []byte {
		t.Helper()
		l, err := d.GetListingBy(ctx, d.R, "l.slug = ? AND l.status = 'live'", slug)
		if err != nil {
			t.Fatal(err)
		}
		b, _ := json.Marshal(l)
		return b
	}
	// check compares the stored row (which must exist when stored) and
	// what get_listing serves with a fresh assembly.
	check := func(slug string, stored bool) []byte {
		t.Helper()
		want := fresh(slug)
		enc, ok, err := d.StoredProfile(ctx, slug)
		if err != nil || ok != stored {
			t.Fatalf("%s: stored profile present %v, want %v (%v)", slug, ok, stored, err)
		}
		if ok && (!bytes.Equal(enc.JSON, want) || enc.ETag != ops.ETag(want)) {
			t.Fatalf("%s: ready-made profile differs from a fresh assembly:\n%s\n%s", slug, enc.JSON, want)
		}
		served, err := d.LiveListingJSON(ctx, slug)
		if err != nil || !bytes.Equal(served.JSON, want) || served.ETag != ops.ETag(want) {
			t.Fatalf("%s: served profile differs from a fresh assembly (%v):\n%s\n%s", slug, err, served.JSON, want)
		}
		return want
	}
	for _, s := range slugs {
		check(s, true)
	}
	// A listing with every part: a founder, a category, updates, media...
	var slug string
	var id, founder, category int64
	if err := d.R.QueryRow(`SELECT l.id, l.slug, lf.founder_id, l.primary_category_id FROM listings l
		JOIN listing_founders lf ON lf.listing_id = l.id WHERE l.status = 'live' AND l.primary_category_id IS NOT NULL
		ORDER BY l.id LIMIT 1`).Scan(&id, &slug, &founder, &category); err != nil {
		t.Fatal(err)
	}
	// A person who does not own the listing yet, to answer the interview.
	var person int64
	if err := d.R.QueryRow(`SELECT id FROM users WHERE id NOT IN (SELECT user_id FROM listing_owners WHERE listing_id = ?)
		AND id NOT IN (SELECT user_id FROM interview_answers) ORDER BY id LIMIT 1`, id).Scan(&person); err != nil {
		t.Fatal(err)
	}
	// shows is in the profile after the write; same: the write changes
	// nothing the profile shows (it must still be byte for byte fresh).
	writes := []struct {
		what, sql, shows string
		same             bool
	}{
		{"listing tagline", `UPDATE listings SET tagline = 'tagline changed' WHERE id = ?1`, "tagline changed", false},
		{"vote count", `UPDATE listings SET votes = 4242 WHERE id = ?1`, `"votes":4242`, false},
		{"founder bio", `UPDATE founders SET bio = 'bio changed' WHERE id = ?2`, "bio changed", false},
		{"category name", `UPDATE categories SET name = 'Renamed category' WHERE id = ?3`, "Renamed category", false},
		{"faq", `INSERT INTO faqs(listing_id, position, question, answer) VALUES (?1, 99, 'Ready-made?', 'Yes.')`, "Ready-made?", false},
		{"update post", `INSERT INTO listing_updates(listing_id, title, body, created_at) VALUES (?1, 'Update posted', 'b', '2030-01-01T00:00:00Z')`, "Update posted", false},
		{"domain rating", `INSERT INTO domain_ratings(listing_id, measured_on, rating, source) VALUES (?1, '2030-01-01', 77, 'x')`, `"rating":77`, false},
		{"media", `UPDATE listings SET unlock_media = 1 WHERE id = ?1; INSERT INTO media(listing_id, kind, url, caption, position) VALUES (?1, 'image', 'https://example.com/m.png', 'Media added', 99)`, "Media added", false},
		{"milestone", `UPDATE listings SET unlock_milestones = 1 WHERE id = ?1; INSERT INTO milestones(listing_id, date, title, description, url, created_at) VALUES (?1, '2030-01-01', 'Milestone added', '', '', '2030-01-01')`, "Milestone added", false},
		{"founder picture", `UPDATE founders SET avatar_url = 'https://example.com/i/avatar-new.webp' WHERE id = ?2`, "avatar-new.webp", false},
		{"logo", `UPDATE listings SET logo_url = 'https://example.com/i/logo-new.webp' WHERE id = ?1`, "logo-new.webp", false},
		{"first screenshot of a locked gallery", `UPDATE listings SET unlock_media = 0 WHERE id = ?1;
			INSERT INTO media(listing_id, kind, url, caption, position) VALUES (?1, 'image', 'https://example.com/i/first.webp', 'First screenshot', -1)`, "First screenshot", false},
		// Edges of the per-listing limits and orders the bulk assembly
		// applies itself: the newest five updates of six, the newest twelve
		// Domain Rating points of thirteen, a locked gallery's first image
		// after a video, FAQs and founders sharing a position.
		{"six updates", `INSERT INTO listing_updates(listing_id, title, body, created_at) SELECT ?1, 'Bulk update ' || value, 'b', '2031-01-0' || value || 'T00:00:00Z' FROM (WITH RECURSIVE n(value) AS (SELECT 1 UNION ALL SELECT value + 1 FROM n WHERE value < 6) SELECT value FROM n)`, "Bulk update 6", false},
		{"thirteen domain ratings", `INSERT INTO domain_ratings(listing_id, measured_on, rating, source) SELECT ?1, '2032-01-' || printf('%02d', value), 40 + value, 's' || value FROM (WITH RECURSIVE n(value) AS (SELECT 1 UNION ALL SELECT value + 1 FROM n WHERE value < 13) SELECT value FROM n)`, `"rating":53`, false},
		{"a video before the first screenshot of a locked gallery", `UPDATE listings SET unlock_media = 0 WHERE id = ?1;
			INSERT INTO media(listing_id, kind, url, caption, position) VALUES (?1, 'video', 'https://example.com/v.mp4', 'A video', -9)`, "", true},
		{"faqs sharing a position", `INSERT INTO faqs(listing_id, position, question, answer) VALUES (?1, 50, 'Tie one?', 'a'), (?1, 50, 'Tie two?', 'b')`, "Tie two?", false},
		{"interview question", `INSERT INTO interview_questions(id, position, question) VALUES (9001, 0, 'Why did you start?')`, "", true},
		{"interview answered by someone else", `INSERT INTO interview_answers(user_id, question_id, answer, updated_at) VALUES (?4, 9001, 'Interview answered', '2030-01-01')`, "", true},
		{"owner added", `INSERT INTO listing_owners(listing_id, user_id, role, created_at) VALUES (?1, ?4, 'owner', '2000-01-01T00:00:00Z')`, "Interview answered", false},
		{"interview answer edited", `UPDATE interview_answers SET answer = 'Answer edited' WHERE user_id = ?4`, "Answer edited", false},
		{"interview question reworded", `UPDATE interview_questions SET question = 'Reworded question?' WHERE id = 9001`, "Reworded question?", false},
		{"comment posted", `INSERT INTO comments(listing_id, user_id, body, created_at) VALUES (?1, ?4, 'A comment', '2030-01-01T00:00:00Z')`, "", true},
		{"launch vote", `INSERT INTO votes(listing_id, voter, week, created_at) VALUES (?1, 'u:tester', '2030-01-07', '2030-01-07T10:00:00Z');
			INSERT INTO weekly_votes(week, listing_id, votes) VALUES ('2030-01-07', ?1, 1);
			INSERT OR IGNORE INTO launches(week, listing_id, votes) VALUES ('2030-01-07', ?1, 1);
			UPDATE listings SET votes = votes + 1 WHERE id = ?1`, `"votes":4243`, false},
		{"interview answer deleted", `DELETE FROM interview_answers WHERE user_id = ?4`, `"interview":[]`, false},
		{"owner removed", `DELETE FROM listing_owners WHERE listing_id = ?1 AND user_id = ?4`, "", true},
		{"founder removed", `DELETE FROM listing_founders WHERE listing_id = ?1`, `"founders":[]`, false},
	}
	for _, w := range writes {
		before := check(slug, true)
		if err := d.Tx(ctx, func(tx *sql.Tx) error {
			_, err := tx.Exec(w.sql, id, founder, category, person)
			return err
		}); err != nil {
			t.Fatalf("%s: %v", w.what, err)
		}
		after := check(slug, true) // rebuilt by the transaction itself
		// The seeder's bulk assembly (BuildProfilesOffline, by id range)
		// gives the same bytes after the write, for it and its neighbours.
		if _, err := d.W.Exec(`INSERT OR IGNORE INTO listing_profiles_stale(listing_id) SELECT id FROM listings WHERE id BETWEEN ?1 - 2 AND ?1 + 2`, id); err != nil {
			t.Fatal(err)
		}
		if err := d.BuildProfilesOffline(ctx); err != nil {
			t.Fatalf("%s: bulk build: %v", w.what, err)
		}
		if bulk := check(slug, true); !bytes.Equal(bulk, after) {
			t.Fatalf("%s: bulk build differs:\n%s\n%s", w.what, bulk, after)
		}
		if w.same {
			if !bytes.Equal(before, after) {
				t.Fatalf("%s: the profile changed:\n%s\n%s", w.what, before, after)
			}
			continue
		}
		if bytes.Equal(before, after) || !bytes.Contains(after, []byte(w.shows)) {
			t.Fatalf("%s: the profile does not show the write:\n%s", w.what, after)
		}
	}
	// An owner edit (group commit) leaves the rebuild to the rebuilder:
	// served fresh at once, ready-made again shortly after.
	if err := d.GroupTx(ctx, func(ctx context.Context, tx *sql.Tx) error {
		_, err := tx.Exec(`UPDATE listings SET tagline = 'grouped edit' WHERE id = ?`, id)
		return err
	}); err != nil {
		t.Fatal(err)
	}
	if served, err := d.LiveListingJSON(ctx, slug); err != nil || !bytes.Equal(served.JSON, fresh(slug)) ||
		!bytes.Contains(served.JSON, []byte("grouped edit")) {
		t.Fatalf("after a grouped edit: %v\n%s", err, served.JSON)
	}
	for deadline := time.Now().Add(5 * time.Second); ; time.Sleep(10 * time.Millisecond) {
		if _, ok, _ := d.StoredProfile(ctx, slug); ok {
			break
		}
		if time.Now().After(deadline) {
			t.Fatal("no ready-made profile 5 s after a grouped edit")
		}
	}
	check(slug, true)
	// A vote count changed by a bare statement (no Tx, no rebuild) keeps the
	// row: reads put the current count in it, byte for byte a fresh one.
	for _, delta := range []int{7, -7000, 123456} {
		if _, err := d.W.Exec(`UPDATE listings SET votes = max(0, votes + ?) WHERE id = ?`, delta, id); err != nil {
			t.Fatal(err)
		}
		check(slug, true)
	}
	// A bare statement (no Tx, no rebuild) leaves no row: served fresh.
	if _, err := d.W.Exec(`UPDATE listings SET name = 'Bare statement' WHERE id = ?`, id); err != nil {
		t.Fatal(err)
	}
	if !bytes.Contains(check(slug, false), []byte("Bare statement")) {
		t.Fatal("a bare statement on the writer is not served")
	}
	if err := d.RebuildStaleProfiles(ctx); err != nil {
		t.Fatal(err)
	}
	check(slug, true)
	if _, err := d.W.Exec(`UPDATE listings SET status = 'archived' WHERE id = ?`, id); err != nil {
		t.Fatal(err)
	}
	if err := d.RebuildStaleProfiles(ctx); err != nil {
		t.Fatal(err)
	}
	if _, ok, _ := d.StoredProfile(ctx, slug); ok {
		t.Fatal("an archived listing keeps a ready-made profile")
	}
	if _, err := d.LiveListingJSON(ctx, slug); !db.IsNoRows(err) {
		t.Fatalf("archived listing served: %v", err)
	}
}

// Every listing column a profile shows is one the listings trigger of
// migration 0018 watches: a column added to the profile but not to the
// trigger would leave ready-made profiles stale.
func TestProfileTriggerColumns(t *testing.T) {
	d := openDB(t)
	var trig string
	if err := d.R.QueryRow(`SELECT sql FROM sqlite_master WHERE name = 'listings_profile_au'`).Scan(&trig); err != nil {
		t.Fatal(err)
	}
	watched := map[string]bool{}
	head := trig[strings.Index(trig, "UPDATE OF")+len("UPDATE OF") : strings.Index(trig, " ON listings")]
	for _, c := range strings.Split(head, ",") {
		watched[strings.TrimSpace(c)] = true
	}
	cols := regexp.MustCompile(`\bl\.([a-z_]+)`).FindAllStringSubmatch(db.ListingProfileColumns, -1)
	if len(cols) < 30 {
		t.Fatalf("only %d profile columns found", len(cols))
	}
	for _, c := range cols {
		if !watched[c[1]] && c[1] != db.SplicedProfileColumn {
			t.Errorf("profile column %s is not watched by listings_profile_au", c[1])
		}
	}
}

// The alternatives total (the category's live count less the listing and
// its approved alternatives there) is the count of the rows the list
// pages through, for every listing of the demo directory.
func TestAlternativesTotalIsExact(t *testing.T) {
	ctx := context.Background()
	d := openDB(t)
	if err := Generate(ctx, d, Options{Seed: 1, Now: testNow}); err != nil {
		t.Fatal(err)
	}
	if _, err := d.W.Exec(`INSERT OR IGNORE INTO alternatives(listing_id, alternative_id, approved)
		SELECT a.id, b.id, 1 FROM listings a JOIN listings b ON b.primary_category_id = a.primary_category_id AND b.id != a.id
		WHERE a.id % 7 = 0 AND b.status = 'live' LIMIT 200`); err != nil {
		t.Fatal(err)
	}
	ids, err := db.Column[int64](ctx, d.R, `SELECT id FROM listings ORDER BY id`)
	if err != nil {
		t.Fatal(err)
	}
	for _, id := range ids {
		var want int
		if err := d.R.QueryRow(`SELECT (SELECT count(*) FROM alternatives a JOIN listings l ON l.id = a.alternative_id
			WHERE a.listing_id = ?1 AND a.approved = 1 AND l.status = 'live' AND l.id != ?1)
			+ (SELECT count(*) FROM listings l WHERE l.primary_category_id = (SELECT primary_category_id FROM listings WHERE id = ?1)
			AND l.status = 'live' AND l.id != ?1
			AND l.id NOT IN (SELECT alternative_id FROM alternatives WHERE listing_id = ?1 AND approved = 1))`, id).Scan(&want); err != nil {
			t.Fatal(err)
		}
		if _, got, err := d.Alternatives(ctx, id, 0, 5); err != nil || got != want {
			t.Fatalf("listing %d: alternatives total %d, want %d (%v)", id, got, want, err)
		}
	}
}

// The seeder's parallel build (BuildProfilesOffline) stores for every live
// listing what a fresh assembly gives, byte for byte, none for the others,
// and leaves no note.
func TestProfilesBuiltOffline(t *testing.T) {
	ctx := context.Background()
	d := openDB(t)
	if err := Generate(ctx, d, Options{Seed: 1, Now: testNow}); err != nil {
		t.Fatal(err)
	}
	if _, err := d.W.Exec(`INSERT OR IGNORE INTO listing_profiles_stale(listing_id) SELECT id FROM listings`); err != nil {
		t.Fatal(err)
	}
	if err := d.BuildProfilesOffline(ctx); err != nil {
		t.Fatal(err)
	}
	var notes, rows, live int
	d.R.QueryRow(`SELECT (SELECT count(*) FROM listing_profiles_stale), (SELECT count(*) FROM listing_profiles),
		(SELECT count(*) FROM listings WHERE status = 'live')`).Scan(&notes, &rows, &live)
	if notes != 0 || rows != live || live < 100 {
		t.Fatalf("%d notes left, %d profiles for %d live listings", notes, rows, live)
	}
	slugs, err := db.Column[string](ctx, d.R, `SELECT slug FROM listings WHERE status = 'live'`)
	if err != nil {
		t.Fatal(err)
	}
	for _, slug := range slugs {
		l, err := d.GetListingBy(ctx, d.R, "l.slug = ? AND l.status = 'live'", slug)
		if err != nil {
			t.Fatal(err)
		}
		want, _ := json.Marshal(l)
		enc, ok, err := d.StoredProfile(ctx, slug)
		if err != nil || !ok || !bytes.Equal(enc.JSON, want) || enc.ETag != ops.ETag(want) {
			t.Fatalf("%s: stored %v (%v) differs from a fresh assembly:\n%s\n%s", slug, ok, err, enc.JSON, want)
		}
	}
}

// Another site's profile of a listing is its own: that site's votes (and
// nothing of a listing not on it). It is never read from main's ready-made
// profiles: it is assembled fresh over the site's views (db/sites.go),
// byte for byte what a fresh assembly for that site gives, and a vote there
// leaves main's ready-made profile as it was.
func TestSiteProfileIsItsOwn(t *testing.T) {
	ctx := context.Background()
	d := openDB(t)
	if err := Generate(ctx, d, Options{Seed: 1, Now: testNow}); err != nil {
		t.Fatal(err)
	}
	if err := d.RebuildStaleProfiles(ctx); err != nil {
		t.Fatal(err)
	}
	var id int64
	var slug, other string
	if err := d.R.QueryRow(`SELECT id, slug FROM listings WHERE status = 'live' ORDER BY id LIMIT 1`).Scan(&id, &slug); err != nil {
		t.Fatal(err)
	}
	if err := d.R.QueryRow(`SELECT slug FROM listings WHERE status = 'live' AND id != ? ORDER BY id LIMIT 1`, id).Scan(&other); err != nil {
		t.Fatal(err)
	}
	if err := d.Tx(ctx, func(tx *sql.Tx) error {
		_, err := tx.Exec(`INSERT INTO sites(key, origin, created_at, updated_at) VALUES ('devtools', 'http://devtools.localhost', '2026-01-01', '2026-01-01');
			INSERT INTO listing_sites(site_key, listing_id, added_at, votes) VALUES ('devtools', ?1, '2026-01-01', 7)`, id)
		return err
	}); err != nil {
		t.Fatal(err)
	}
	dctx := db.WithSite(ctx, "devtools")
	fresh := func(ctx context.Context) []byte {
		t.Helper()
		l, err := d.GetListingBy(ctx, d.R, "l.slug = ? AND l.status = 'live'", slug)
		if err != nil {
			t.Fatal(err)
		}
		b, _ := json.Marshal(l)
		return b
	}
	mainBefore, _, _ := d.StoredProfile(ctx, slug)
	if _, ok, err := d.StoredProfile(dctx, slug); ok || err != nil {
		t.Fatalf("devtools read main's ready-made profile (%v)", err)
	}
	served, err := d.LiveListingJSON(dctx, slug)
	if err != nil || !bytes.Equal(served.JSON, fresh(dctx)) || !bytes.Contains(served.JSON, []byte(`"votes":7,`)) {
		t.Fatalf("devtools profile: %v\n%s", err, served.JSON)
	}
	if bytes.Equal(served.JSON, fresh(ctx)) {
		t.Fatal("devtools serves main's profile")
	}
	if _, err := d.LiveListingJSON(dctx, other); !db.IsNoRows(err) {
		t.Fatalf("a listing not on devtools: %v", err)
	}
	// A vote on devtools: devtools' profile moves, main's stays ready-made and equal.
	if err := d.Tx(ctx, func(tx *sql.Tx) error {
		_, err := tx.Exec(`UPDATE listing_sites SET votes = 8 WHERE site_key = 'devtools' AND listing_id = ?`, id)
		return err
	}); err != nil {
		t.Fatal(err)
	}
	if served, err := d.LiveListingJSON(dctx, slug); err != nil || !bytes.Contains(served.JSON, []byte(`"votes":8,`)) {
		t.Fatalf("devtools after its vote: %v\n%s", err, served.JSON)
	}
	mainAfter, ok, err := d.StoredProfile(ctx, slug)
	if !ok || err != nil || !bytes.Equal(mainAfter.JSON, mainBefore.JSON) || !bytes.Equal(mainAfter.JSON, fresh(ctx)) {
		t.Fatalf("main's ready-made profile after a devtools vote: %v %v", ok, err)
	}
}
