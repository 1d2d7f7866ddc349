package demo

import (
	"bytes"
	"context"
	"database/sql"
	"encoding/json"
	"testing"

	"launchdir/db"
)

// The cached public profile of every live listing in the demo directory is
// byte for byte what a fresh assembly gives, and a write (through Tx or a
// bare statement on the writer) retires it at once.
func TestCachedListingIsFreshAssembly(t *testing.T) {
	ctx := context.Background()
	d := openDB(t)
	if err := Generate(ctx, d, Options{Seed: 1, Now: testNow}); err != nil {
		t.Fatal(err)
	}
	slugs, err := db.Column[string](ctx, d.R, `SELECT slug FROM listings WHERE status = 'live' ORDER BY id`)
	if err != nil || len(slugs) < 100 {
		t.Fatalf("%d live listings, %v", len(slugs), err)
	}
	same := func(slug string) []byte {
		t.Helper()
		fresh, err := d.GetListingBy(ctx, d.R, "l.slug = ? AND l.status = 'live'", slug)
		if err != nil {
			t.Fatal(err)
		}
		want, _ := json.Marshal(fresh)
		for range 2 { // a miss, then a hit
			cached, err := d.LiveListing(ctx, slug)
			if err != nil {
				t.Fatal(err)
			}
			got, _ := json.Marshal(cached)
			if !bytes.Equal(got, want) {
				t.Fatalf("%s: cached profile differs from a fresh assembly:\n%s\n%s", slug, got, want)
			}
			enc, err := d.LiveListingJSON(ctx, slug) // what get_listing serves
			if err != nil || !bytes.Equal(enc.JSON, want) {
				t.Fatalf("%s: cached encoded profile differs from a fresh assembly (%v):\n%s\n%s", slug, err, enc.JSON, want)
			}
		}
		return want
	}
	for _, s := range slugs {
		same(s)
	}
	before := same(slugs[0])
	if err := d.Tx(ctx, func(tx *sql.Tx) error {
		_, err := tx.Exec(`UPDATE listings SET tagline = 'changed in a transaction' WHERE slug = ?`, slugs[0])
		return err
	}); err != nil {
		t.Fatal(err)
	}
	after := same(slugs[0])
	if bytes.Equal(before, after) || !bytes.Contains(after, []byte("changed in a transaction")) {
		t.Fatal("a write through Tx did not retire the cached profile")
	}
	if _, err := d.W.Exec(`INSERT INTO faqs(listing_id, position, question, answer) SELECT id, 99, 'Cached?', 'No.' FROM listings WHERE slug = ?`, slugs[0]); err != nil {
		t.Fatal(err)
	}
	if !bytes.Contains(same(slugs[0]), []byte("Cached?")) {
		t.Fatal("a bare statement on the writer did not retire the cached profile")
	}
	if _, err := d.W.Exec(`UPDATE listings SET status = 'archived' WHERE slug = ?`, slugs[0]); err != nil {
		t.Fatal(err)
	}
	if _, err := d.LiveListing(ctx, slugs[0]); !db.IsNoRows(err) {
		t.Fatalf("archived listing still served: %v", err)
	}
	if _, err := d.LiveListingJSON(ctx, slugs[0]); !db.IsNoRows(err) {
		t.Fatalf("archived listing still served encoded: %v", err)
	}
}
