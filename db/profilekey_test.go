package db

import (
	"bytes"
	"context"
	"database/sql"
	"path/filepath"
	"testing"
	"time"

	"launchdir/ops"
)

// The key is stored in the file: these values must never change.
func TestSlugKeyIsStable(t *testing.T) {
	d, ctx := tempDB(t)
	for slug, want := range map[string]int64{"acme": 514768821131075087, "item-1": 7420334679983162240, "ünïcode-slug": 3711638324894854109} {
		var got int64
		if err := d.R.QueryRowContext(ctx, `SELECT `+ProfileKeySQL+`(?)`, slug).Scan(&got); err != nil || got != want || slugKey(slug) != want {
			t.Fatalf("%s: SQL key %d, Go key %d, want %d (%v)", slug, got, slugKey(slug), want, err)
		}
	}
	if _, err := d.R.QueryContext(ctx, `SELECT `+ProfileKeySQL+`(7)`); err == nil {
		t.Fatal("a number was given a slug key")
	}
}

// withSharedKeys makes every slug's key the same for the test.
func withSharedKeys(t *testing.T) {
	old := slugKey
	slugKey = func(string) int64 { return 42 }
	t.Cleanup(func() { slugKey = old })
}

// Slugs sharing a key: at most one has a ready-made row, and every one is
// served byte for byte as a fresh assembly, through writes and renames.
func TestSharedSlugKeysServeFresh(t *testing.T) {
	withSharedKeys(t)
	d, ctx := tempDB(t)
	seedAlphas(t, d, 3, "clash")
	if err := d.RebuildStaleProfiles(ctx); err != nil {
		t.Fatal(err)
	}
	check := func(step string) {
		t.Helper()
		slugs, err := Column[string](ctx, d.R, `SELECT slug FROM listings WHERE status = 'live' ORDER BY id`)
		if err != nil {
			t.Fatal(err)
		}
		stored := 0
		for _, s := range slugs {
			l, err := d.GetListingBy(ctx, d.R, "l.slug = ? AND l.status = 'live'", s)
			if err != nil {
				t.Fatal(err)
			}
			want, _ := ops.Encode(l)
			if enc, ok, err := d.StoredProfile(ctx, s); err != nil {
				t.Fatal(err)
			} else if ok {
				stored++
				if !bytes.Equal(enc.JSON, want.JSON) {
					t.Fatalf("%s: %s: stored row is not the listing's own:\n%s\n%s", step, s, enc.JSON, want.JSON)
				}
			}
			got, err := d.liveListingEncoded(ctx, s)
			if err != nil || !bytes.Equal(got.JSON, want.JSON) || got.ETag != want.ETag {
				t.Fatalf("%s: %s: served %s (%v), want %s", step, s, got.JSON, err, want.JSON)
			}
		}
		if stored != 1 {
			t.Fatalf("%s: %d ready-made rows under one key, want 1", step, stored)
		}
	}
	check("built")
	steps := []struct{ what, sql string }{
		{"edit of listing 1", `UPDATE listings SET tagline = 'edited' WHERE id = 1`},
		{"vote on listing 2", `UPDATE listings SET votes = votes + 3 WHERE id = 2`},
		{"rename of listing 3", `UPDATE listings SET slug = 'renamed-3' WHERE id = 3`},
		{"edit of listing 2", `UPDATE listings SET name = 'Second' WHERE id = 2`},
	}
	for _, s := range steps {
		if err := d.Tx(ctx, func(tx *sql.Tx) error { _, err := tx.Exec(s.sql); return err }); err != nil {
			t.Fatal(err)
		}
		check(s.what)
	}
}

// A rename moves the row to the new slug's key; the old slug is gone. A
// status change is noted, so the row is not served before the rebuild.
func TestProfileRenameAndStatus(t *testing.T) {
	d, ctx := tempDB(t)
	seedAlphas(t, d, 2, "rename")
	if err := d.RebuildStaleProfiles(ctx); err != nil {
		t.Fatal(err)
	}
	if _, err := d.W.ExecContext(ctx, `UPDATE listings SET slug = 'new-name' WHERE id = 1`); err != nil {
		t.Fatal(err)
	}
	if err := d.RebuildStaleProfiles(ctx); err != nil {
		t.Fatal(err)
	}
	if _, ok, _ := d.StoredProfile(ctx, "item-1"); ok {
		t.Fatal("the old slug still has a ready-made row")
	}
	if _, err := d.liveListingEncoded(ctx, "item-1"); !IsNoRows(err) {
		t.Fatalf("old slug served: %v", err)
	}
	if enc, ok, err := d.StoredProfile(ctx, "new-name"); !ok || err != nil || !bytes.Contains(enc.JSON, []byte(`"slug":"new-name"`)) {
		t.Fatalf("new slug: %v %v %s", ok, err, enc.JSON)
	}
	var rows int
	d.R.QueryRowContext(ctx, `SELECT count(*) FROM listing_profiles`).Scan(&rows)
	if rows != 2 {
		t.Fatalf("%d rows for 2 listings", rows)
	}
	if _, err := d.W.ExecContext(ctx, `UPDATE listings SET status = 'archived' WHERE id = 2`); err != nil {
		t.Fatal(err)
	}
	if _, ok, _ := d.StoredProfile(ctx, "item-2"); ok {
		t.Fatal("an archived listing's row is served before its rebuild")
	}
}

// A vote updates the row's live count by trigger, and nothing else.
func TestProfileLiveVotes(t *testing.T) {
	d, ctx := tempDB(t)
	seedAlphas(t, d, 1, "votes")
	if err := d.RebuildStaleProfiles(ctx); err != nil {
		t.Fatal(err)
	}
	for _, v := range []int{1, 127, 128, 32768, 0} {
		if _, err := d.W.ExecContext(ctx, `UPDATE listings SET votes = ? WHERE id = 1`, v); err != nil {
			t.Fatal(err)
		}
		var live, built int
		d.R.QueryRowContext(ctx, `SELECT live_votes, votes FROM listing_profiles WHERE listing_id = 1`).Scan(&live, &built)
		enc, ok, err := d.StoredProfile(ctx, "item-1")
		l, _ := d.GetListingBy(ctx, d.R, "l.id = 1", nil)
		want, _ := ops.Encode(l)
		if live != v || built != 0 || !ok || err != nil || !bytes.Equal(enc.JSON, want.JSON) || enc.ETag != want.ETag {
			t.Fatalf("votes %d: row live %d built %d, served %v %v:\n%s\n%s", v, live, built, ok, err, enc.JSON, want.JSON)
		}
	}
}

// Migration 0034 moves a file's ready-made profiles under their keys,
// with their listings' current vote counts; a second slug with a taken
// key is left without a row.
func TestMigrationKeysProfiles(t *testing.T) {
	ctx := context.Background()
	path := filepath.Join(t.TempDir(), "m33.db")
	raw, err := sql.Open("sqlite", "file:"+path+"?_pragma=journal_mode(WAL)&_pragma=foreign_keys(ON)")
	if err != nil {
		t.Fatal(err)
	}
	raw.SetMaxOpenConns(1)
	exec := func(q string, args ...any) {
		t.Helper()
		if _, err := raw.ExecContext(ctx, q, args...); err != nil {
			t.Fatalf("%.60s: %v", q, err)
		}
	}
	exec(`CREATE TABLE schema_migrations(version INTEGER PRIMARY KEY, name TEXT NOT NULL, applied_at TEXT NOT NULL)`)
	for _, m := range mustMigrations(t) {
		if m.Version >= 34 {
			break
		}
		exec(m.SQL)
		exec(`INSERT INTO schema_migrations VALUES (?, ?, ?)`, m.Version, m.Name, time.Now().UTC().Format(time.RFC3339))
	}
	for i, slug := range []string{"one", "two", "three"} {
		exec(`INSERT INTO listings(id, slug, name, url, domain, status, votes, created_at, updated_at)
			VALUES (?, ?, ?, 'https://x.example/', 'x.example', 'live', ?, '2026-01-01', '2026-01-01')`, i+1, slug, slug, 10*(i+1))
	}
	exec(`DELETE FROM listing_profiles_stale`)
	for i, slug := range []string{"one", "two", "three"} {
		exec(`INSERT INTO listing_profiles(listing_id, slug, json, etag, votes, votes_at) VALUES (?, ?, ?, 'e', 5, 9)`,
			i+1, slug, `{"votes":5,"slug":"`+slug+`"}`)
	}
	raw.Close()

	old := slugKey
	slugKey = func(s string) int64 { // "three" takes "one"'s key
		if s == "three" {
			return old("one")
		}
		return old(s)
	}
	d, err := Open(ctx, path)
	slugKey = old
	if err != nil {
		t.Fatal(err)
	}
	defer d.Close()
	rows, err := d.R.QueryContext(ctx, `SELECT key, listing_id, live_votes, slug, votes, votes_at FROM listing_profiles ORDER BY listing_id`)
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for rows.Next() {
		var key, id, live, votes, at int64
		var slug string
		rows.Scan(&key, &id, &live, &slug, &votes, &at)
		if key != slugKey(slug) || live != 10*id || votes != 5 || at != 9 {
			t.Fatalf("row of %s: key %d (want %d), live %d, votes %d at %d", slug, key, slugKey(slug), live, votes, at)
		}
		got = append(got, slug)
	}
	if len(got) != 2 || got[0] != "one" || got[1] != "two" {
		t.Fatalf("rows after the migration: %v, want one and two", got)
	}
	if _, err := d.W.ExecContext(ctx, `UPDATE listings SET votes = 77 WHERE id = 2; DELETE FROM listings WHERE id = 1`); err != nil {
		t.Fatal(err)
	}
	var live, n int
	d.R.QueryRowContext(ctx, `SELECT live_votes FROM listing_profiles WHERE listing_id = 2`).Scan(&live)
	d.R.QueryRowContext(ctx, `SELECT count(*) FROM listing_profiles`).Scan(&n)
	if live != 77 || n != 1 {
		t.Fatalf("after a vote and a delete: live votes %d (want 77), %d rows (want 1)", live, n)
	}
}

// The seeder's build into an empty table stores every live listing's
// profile in key order without the listing index, then builds it: after
// it the index is there, every row is under its key, and no note is left.
func TestBuildProfilesOfflineIntoEmptyTable(t *testing.T) {
	d, ctx := tempDB(t)
	seedAlphas(t, d, 40, "offline")
	if _, err := d.W.ExecContext(ctx, `DELETE FROM listing_profiles; UPDATE listings SET status = 'archived' WHERE id = 7;
		INSERT OR IGNORE INTO listing_profiles_stale(listing_id) SELECT id FROM listings`); err != nil {
		t.Fatal(err)
	}
	if err := d.BuildProfilesOffline(ctx); err != nil {
		t.Fatal(err)
	}
	var index, rows, keyed, notes int
	d.R.QueryRowContext(ctx, `SELECT count(*) FROM sqlite_master WHERE type = 'index' AND name = 'listing_profiles_by_listing'`).Scan(&index)
	d.R.QueryRowContext(ctx, `SELECT count(*), sum(key = `+ProfileKeySQL+`(slug)) FROM listing_profiles`).Scan(&rows, &keyed)
	d.R.QueryRowContext(ctx, `SELECT count(*) FROM listing_profiles_stale`).Scan(&notes)
	if index != 1 || rows != 39 || keyed != 39 || notes != 0 {
		t.Fatalf("index %d, rows %d (keyed %d), notes %d; want 1, 39, 39, 0", index, rows, keyed, notes)
	}
	if _, err := d.W.ExecContext(ctx, `INSERT INTO listing_profiles(key, listing_id, live_votes, slug, json, etag, votes, votes_at)
		VALUES (1, 1, 0, 'x', '{}', 'e', 0, 0)`); err == nil {
		t.Fatal("a second row for listing 1 was accepted: the listing index is not unique")
	}
	for _, s := range []string{"item-1", "item-40"} {
		if _, ok, err := d.StoredProfile(ctx, s); !ok || err != nil {
			t.Fatalf("%s: no stored profile (%v)", s, err)
		}
	}
}
