package db

import (
	"context"
	"fmt"
	"testing"
)

// Review of issue 24: the views a non-main site's reads run over.

// siteFixture: n live listings, the odd ids on the site "dev".
func siteFixture(t *testing.T, n int, desc string) (*DB, context.Context) {
	t.Helper()
	d, ctx := tempDB(t)
	if _, err := d.W.Exec(`INSERT INTO sites(key, origin, created_at, updated_at) VALUES('dev', 'http://dev.test', '2026-01-01T00:00:00Z', '2026-01-01T00:00:00Z')`); err != nil {
		t.Fatal(err)
	}
	for i := 1; i <= n; i++ {
		if _, err := d.W.Exec(`INSERT INTO listings(id, slug, name, url, domain, description, status, launched_at, created_at, updated_at)
			VALUES (?,?,?,?,?,?,'live',?,?,?)`, i, fmt.Sprintf("item-%d", i), fmt.Sprintf("Item %d", i), "https://x.example/", "x.example",
			desc, "2026-01-01T00:00:00Z", "2026-01-01T00:00:00Z", "2026-01-01T00:00:00Z"); err != nil {
			t.Fatal(err)
		}
		if i%2 == 1 {
			if _, err := d.W.Exec(`INSERT INTO listing_sites(site_key, listing_id, added_at) VALUES('dev', ?, '2026-01-01T00:00:00Z')`, i); err != nil {
				t.Fatal(err)
			}
		}
	}
	return d, WithSite(ctx, "dev")
}

// Every way a read reaches the read pool sees the site's listings only:
// plain, lowercase and WITH / WITH RECURSIVE statements, a read
// transaction, prepared-statement paths, a string literal naming a table,
// an alias equal to a shadowed name, an INDEXED BY.
func TestAttackSiteViewsEveryReadPath(t *testing.T) {
	d, ctx := siteFixture(t, 10, "alpha")
	queries := []string{
		`SELECT count(*) FROM listings`,
		"\n\t  select count(*) from listings",
		`SELECT count(*) FROM listings AS votes`,
		`SELECT count(*) FROM listings l INDEXED BY listings_live_ids WHERE l.status = 'live'`,
		`SELECT count(*) FROM listings WHERE name != 'FROM main.listings x'`,
		`WITH x AS (SELECT id FROM listings) SELECT count(*) FROM x`,
		`with x as (select id from listings) select count(*) from x`,
		`WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i+1 FROM n WHERE i < 3) SELECT count(*) FROM listings WHERE id IN (SELECT id FROM listings)`,
		`SELECT count(*) FROM (SELECT id FROM listings UNION SELECT id FROM listings)`,
		`SELECT count(*) FROM listings_fts f JOIN listings l ON l.id = f.rowid WHERE listings_fts MATCH 'alpha'`,
	}
	for _, q := range queries {
		var n int
		if err := d.R.QueryRowContext(ctx, q).Scan(&n); err != nil || n != 5 {
			t.Errorf("%q on dev: %d %v, want 5", q, n, err)
		}
		if err := d.ReadTx(ctx, func(rq Queries) error { return rq.QueryRowContext(ctx, q).Scan(&n) }); err != nil || n != 5 {
			t.Errorf("%q on dev in a read transaction: %d %v, want 5", q, n, err)
		}
		if err := d.Prepared(d.R).QueryRowContext(ctx, q).Scan(&n); err != nil || n != 5 {
			t.Errorf("%q on dev, prepared path: %d %v, want 5", q, n, err)
		}
		// Main, asked first and after, still sees all ten (a statement
		// prepared for one site is never reused for the other).
		for range 2 {
			if err := d.Prepared(d.R).QueryRowContext(context.Background(), q).Scan(&n); err != nil || n != 10 {
				t.Errorf("%q on main: %d %v, want 10", q, n, err)
			}
		}
	}
	// A read for a site key that is not a key (never from a request: keys
	// are checked) is main's text unchanged, not an injection.
	var n int
	bad := WithSite(context.Background(), "x' OR 1=1 --")
	if err := d.R.QueryRowContext(bad, `SELECT count(*) FROM listings`).Scan(&n); err != nil || n != 10 {
		t.Errorf("bad key: %d %v", n, err)
	}
}

// A site's search totals count its own matches, also past the cap where
// they are estimates.
func TestAttackSiteSearchTotals(t *testing.T) {
	d, ctx := siteFixture(t, 9, "alpha")
	defer func(c int) { countCap = c }(countCap)
	countCap = 10
	if _, tot, err := d.SearchListingsTotal(ctx, SearchFilter{Q: "alpha", Limit: 5}); err != nil || tot != (Total{N: 5}) {
		t.Fatalf("dev search total under the cap: %+v %v, want 5", tot, err)
	}
	if _, tot, err := d.SearchListingsTotal(context.Background(), SearchFilter{Q: "alpha", Limit: 5}); err != nil || tot != (Total{N: 9}) {
		t.Fatalf("main search total: %+v %v, want 9", tot, err)
	}
}

// Finding (issue 24 review), fixed: past countCap a one-word search's
// total on a non-main site was the vocabulary estimate, which counts the
// documents of the whole network (listings_vocab is not a site's view): a site showing
// 11 of 22 "alpha" listings said about 22.
func TestAttackSiteSearchEstimate(t *testing.T) {
	d, ctx := siteFixture(t, 22, "alpha")
	defer func(c int) { countCap = c }(countCap)
	countCap = 10
	_, tot, err := d.SearchListingsTotal(ctx, SearchFilter{Q: "alpha", Limit: 5})
	if err != nil || !tot.Estimate || tot.N > 11 {
		t.Fatalf("dev search total past the cap: %+v %v, want an estimate of at most 11 (the site's matches)", tot, err)
	}
	if _, tot, err := d.SearchListingsTotal(context.Background(), SearchFilter{Q: "alpha", Limit: 5}); err != nil || tot.N != 22 {
		t.Fatalf("main: %+v %v", tot, err)
	}
}

// Finding (issue 24 review), fixed: the read pool's statement cache is
// main's (a site's reads are never prepared), but the statements a main
// read transaction asked for are prepared after it by whichever read
// transaction ends next — on a site's context that prepared main's text
// over the site's views, and main's next read on that connection saw the
// site's listings. Here a main read transaction's wanted statement is
// prepared at the end of a dev read transaction, then main reads it.
func TestAttackStatementCacheAcrossSites(t *testing.T) {
	d, ctx := siteFixture(t, 10, "alpha")
	d.R.SetMaxOpenConns(1) // one connection: main's read runs where the statement was prepared
	const q = `SELECT count(*) FROM listings WHERE status = 'live'`
	d.rstmts.want(q) // a main read transaction ran q unprepared and is finishing
	var n int
	if err := d.ReadTx(ctx, func(rq Queries) error { return rq.QueryRowContext(ctx, `SELECT 1`).Scan(&n) }); err != nil {
		t.Fatal(err)
	}
	for range 3 {
		if err := d.Prepared(d.R).QueryRowContext(context.Background(), q).Scan(&n); err != nil || n != 10 {
			t.Fatalf("main after a dev read transaction prepared its statement: %d %v, want 10", n, err)
		}
	}
	if err := d.R.QueryRowContext(ctx, q).Scan(&n); err != nil || n != 5 {
		t.Fatalf("dev: %d %v, want 5", n, err)
	}
}
