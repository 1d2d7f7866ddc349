package db

import (
	"context"
	"database/sql"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"sync"
	"testing"

	"launchdir/ops"
)

// Uncached benchmarks (issue 26): every iteration reads another listing or
// another word, and the count cache is emptied before each search, so no
// cache answers. They run on a copy of LAUNCHDIR_BENCH_DB when set (e.g. a
// file from `launchdir seed -listings 100000`) and skip without it:
//
//	LAUNCHDIR_BENCH_DB=/tmp/ld100k.db go test ./db -run XXX -bench Uncached -cpuprofile cpu.out

var (
	bigOnce sync.Once
	bigDB   *DB
	bigErr  error
)

func benchFile(b *testing.B) *DB {
	b.Helper()
	src := os.Getenv("LAUNCHDIR_BENCH_DB")
	if src == "" {
		b.Skip("LAUNCHDIR_BENCH_DB is not set")
	}
	bigOnce.Do(func() {
		dst := filepath.Join(os.TempDir(), "launchdir-bench-uncached.db")
		for _, f := range []string{dst, dst + "-wal", dst + "-shm"} {
			os.Remove(f)
		}
		if bigErr = copyFile(src, dst); bigErr != nil {
			return
		}
		if bigDB, bigErr = Open(context.Background(), dst); bigErr != nil {
			return
		}
		bigErr = bigDB.RebuildStaleProfiles(context.Background())
	})
	if bigErr != nil {
		b.Fatal(bigErr)
	}
	return bigDB
}

func copyFile(src, dst string) error {
	in, err := os.Open(src)
	if err != nil {
		return err
	}
	defer in.Close()
	out, err := os.Create(dst)
	if err != nil {
		return err
	}
	if _, err := io.Copy(out, in); err != nil {
		out.Close()
		return err
	}
	return out.Close()
}

func liveIDs(b *testing.B, d *DB, n int) []int64 {
	b.Helper()
	ids, err := Column[int64](context.Background(), d.R, `SELECT id FROM listings WHERE status = 'live' ORDER BY random() LIMIT ?`, n)
	if err != nil || len(ids) == 0 {
		b.Fatal(len(ids), err)
	}
	return ids
}

func liveSlugs(b *testing.B, d *DB, n int) []string {
	b.Helper()
	slugs, err := Column[string](context.Background(), d.R, `SELECT slug FROM listings WHERE status = 'live' ORDER BY random() LIMIT ?`, n)
	if err != nil || len(slugs) == 0 {
		b.Fatal(len(slugs), err)
	}
	return slugs
}

// BenchmarkUncachedProfileStored reads ready-made profiles (get_listing).
func BenchmarkUncachedProfileStored(b *testing.B) {
	d, ctx := benchFile(b), context.Background()
	slugs := liveSlugs(b, d, 20000)
	i := 0
	for b.Loop() {
		if _, err := d.liveListingEncoded(ctx, slugs[i%len(slugs)]); err != nil {
			b.Fatal(err)
		}
		i++
	}
}

// BenchmarkUncachedProfileAssembled assembles and encodes profiles, as a
// read without a ready-made row does.
func BenchmarkUncachedProfileAssembled(b *testing.B) {
	d, ctx := benchFile(b), context.Background()
	slugs := liveSlugs(b, d, 20000)
	i := 0
	for b.Loop() {
		l, err := d.GetListingBy(ctx, d.R, "l.slug = ? AND l.status = 'live'", slugs[i%len(slugs)])
		if err != nil {
			b.Fatal(err)
		}
		if _, err := ops.Encode(l); err != nil {
			b.Fatal(err)
		}
		i++
	}
}

// BenchmarkUncachedSearchFrequent searches the most frequent words with
// their totals, the count cache emptied each time.
func BenchmarkUncachedSearchFrequent(b *testing.B) {
	benchSearch(b, `SELECT term FROM listings_vocab WHERE length(term) > 3 ORDER BY doc DESC LIMIT 50`)
}

// BenchmarkUncachedSearchTopWords searches the ten most frequent words of
// any length ("and": a word in every listing), alone and in pairs: words
// too common to weigh in bm25 (FrequentWordListings).
func BenchmarkUncachedSearchTopWords(b *testing.B) {
	benchSearch(b, `WITH t AS (SELECT term FROM listings_vocab ORDER BY doc DESC LIMIT 10)
		SELECT term FROM t UNION ALL SELECT a.term || ' ' || b.term FROM t a, t b WHERE a.term < b.term`)
}

// BenchmarkUncachedSearchWords searches random vocabulary words (what the
// peer benchmark's words row asks).
func BenchmarkUncachedSearchWords(b *testing.B) {
	benchSearch(b, `SELECT term FROM listings_vocab WHERE doc >= 2 AND length(term) > 3 AND term GLOB '[a-z]*' ORDER BY random() LIMIT 3000`)
}

func benchSearch(b *testing.B, words string) {
	d, ctx := benchFile(b), context.Background()
	terms, err := Column[string](ctx, d.R, words)
	if err != nil || len(terms) == 0 {
		b.Fatal(len(terms), err)
	}
	i := 0
	for b.Loop() {
		d.counts.mu.Lock()
		d.counts.m = nil
		d.counts.mu.Unlock()
		if _, _, err := d.SearchListingsTotal(ctx, SearchFilter{Q: terms[i%len(terms)], Limit: 20}); err != nil {
			b.Fatal(err)
		}
		i++
	}
}

// BenchmarkVoteCount is the write of a vote's count (with the rebuild of
// the listing's ready-made profile it triggers).
func BenchmarkVoteCount(b *testing.B) {
	d, ctx := benchFile(b), context.Background()
	ids := liveIDs(b, d, 1000)
	i := 0
	for b.Loop() {
		if err := d.Tx(ctx, func(tx *sql.Tx) error {
			_, err := tx.ExecContext(ctx, `UPDATE listings SET votes = votes + 1 WHERE id = ?`, ids[i%len(ids)])
			return err
		}); err != nil {
			b.Fatal(err)
		}
		i++
	}
}

// BenchmarkUncachedSearchMidWords searches words of 500 to 20,000 matches
// at 100k listings: the tail of the words row (more matches than are
// ranked, so their totals are counted).
func BenchmarkUncachedSearchMidWords(b *testing.B) {
	benchSearch(b, `SELECT term FROM listings_vocab WHERE doc BETWEEN 500 AND 20000 AND length(term) > 3 AND term GLOB '[a-z]*' ORDER BY random() LIMIT 1000`)
}

// BenchmarkUncachedCategoryPages lists every category's pages 1 to 10 by
// votes (the category page), a write between iterations retiring the read
// cache as a writer beside the reads would.
func BenchmarkUncachedCategoryPages(b *testing.B) {
	d := benchFile(b)
	ctx := context.Background()
	cats, err := Column[string](ctx, d.R, `SELECT slug FROM categories ORDER BY id`)
	if err != nil || len(cats) == 0 {
		b.Fatal(len(cats), err)
	}
	b.ResetTimer()
	for i := 0; b.Loop(); i++ {
		d.rc.gen.Add(1)
		f := SearchFilter{Category: cats[i%len(cats)], Limit: 24, Offset: 24 * ((i / len(cats)) % 10)}
		if _, _, err := d.SearchListingsTotal(ctx, f); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkTaglineEdit is an owner-style tagline edit in a group commit,
// alone and followed by a search for its new word. A group commit leaves
// its full-text notes (fts.go, deferred notes): "edit" does no index work
// in its commit (the rebuilder applies the notes later, on another
// goroutine, outside ns/op); "edit then search" includes the group commit
// the search joins to apply them first.
func BenchmarkTaglineEdit(b *testing.B) {
	d, ctx := benchFile(b), context.Background()
	ids := liveIDs(b, d, 1000)
	n := 0
	edit := func() string {
		n++
		word := fmt.Sprintf("benchword%dx", n)
		if err := d.GroupTx(ctx, func(ctx context.Context, tx *sql.Tx) error {
			_, err := tx.ExecContext(ctx, `UPDATE listings SET tagline = ? WHERE id = ?`, "tagline "+word, ids[n%len(ids)])
			return err
		}); err != nil {
			b.Fatal(err)
		}
		return word
	}
	b.Run("edit", func(b *testing.B) {
		for b.Loop() {
			edit()
		}
	})
	b.Run("edit then search", func(b *testing.B) {
		for b.Loop() {
			word := edit()
			items, _, err := d.SearchListings(ctx, SearchFilter{Q: word, Limit: 20})
			if err != nil || len(items) != 1 {
				b.Fatalf("search for %s: %d items, %v", word, len(items), err)
			}
		}
	})
}
