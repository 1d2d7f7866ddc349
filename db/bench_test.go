package db_test

import (
	"context"
	"os"
	"path/filepath"
	"sync"
	"testing"
	"time"

	"launchdir/db"
	"launchdir/demo"
)

// Benchmarks of the hot public queries on a seeded database (benchN
// listings, seeded once per test binary run): uncached and through the
// read cache. go test ./db -bench . -run XXX
const benchN = 5000

var (
	benchOnce sync.Once
	benchDB   *db.DB
	benchErr  error
	benchDir  string
)

func seeded(b *testing.B) *db.DB {
	b.Helper()
	benchOnce.Do(func() {
		ctx := context.Background()
		if benchDir, benchErr = os.MkdirTemp("", "launchdir-bench-"); benchErr != nil {
			return
		}
		if benchDB, benchErr = db.Open(ctx, filepath.Join(benchDir, "bench.db")); benchErr != nil {
			return
		}
		if benchErr = demo.Seed(ctx, benchDB, benchN, 1, time.Date(2025, 3, 12, 15, 4, 5, 0, time.UTC)); benchErr == nil {
			benchErr = benchDB.Analyze(ctx)
		}
	})
	if benchErr != nil {
		b.Fatal(benchErr)
	}
	return benchDB
}

func BenchmarkSearchCommonWord(b *testing.B) {
	d, ctx := seeded(b), context.Background()
	for b.Loop() {
		if _, _, err := d.SearchListingsTotal(ctx, db.SearchFilter{Q: "teams", Limit: 20}); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkSearchCommonWordCached(b *testing.B) {
	d, ctx := seeded(b), context.Background()
	for b.Loop() {
		if _, _, err := d.CachedSearch(ctx, db.SearchFilter{Q: "teams", Limit: 20}); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkNewestWithTotal(b *testing.B) {
	d, ctx := seeded(b), context.Background()
	for b.Loop() {
		if _, _, err := d.SearchListingsTotal(ctx, db.SearchFilter{Sort: "newest", Limit: 20}); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkGetListing(b *testing.B) {
	d, ctx := seeded(b), context.Background()
	slugs, err := db.Column[string](ctx, d.R, `SELECT slug FROM listings WHERE status = 'live' LIMIT 100`)
	if err != nil {
		b.Fatal(err)
	}
	i := 0
	for b.Loop() {
		if _, err := d.GetListingBy(ctx, d.R, "l.slug = ? AND l.status = 'live'", slugs[i%len(slugs)]); err != nil {
			b.Fatal(err)
		}
		i++
	}
}

func BenchmarkGetListingCached(b *testing.B) {
	d, ctx := seeded(b), context.Background()
	slugs, err := db.Column[string](ctx, d.R, `SELECT slug FROM listings WHERE status = 'live' LIMIT 100`)
	if err != nil {
		b.Fatal(err)
	}
	i := 0
	for b.Loop() {
		if _, err := d.LiveListing(ctx, slugs[i%len(slugs)]); err != nil {
			b.Fatal(err)
		}
		i++
	}
}

// TestMain removes the benchmark database after the run.
func TestMain(m *testing.M) {
	code := m.Run()
	if benchDB != nil {
		benchDB.Close()
	}
	if benchDir != "" {
		os.RemoveAll(benchDir)
	}
	os.Exit(code)
}
