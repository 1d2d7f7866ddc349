package db

import (
	"context"
	"fmt"
	"os"
	"runtime/pprof"
	"strconv"
	"testing"
	"time"
)

func TestZZRare(t *testing.T) {
	src := os.Getenv("ZZ_DB")
	if src == "" {
		t.Skip()
	}
	lo, _ := strconv.Atoi(os.Getenv("ZZ_LO"))
	hi, _ := strconv.Atoi(os.Getenv("ZZ_HI"))
	ctx := context.Background()
	d, err := Open(ctx, src)
	if err != nil {
		t.Fatal(err)
	}
	defer d.Close()
	terms, err := Column[string](ctx, d.R, `SELECT term FROM listings_vocab WHERE doc >= ? AND doc < ? AND length(term) > 3 AND term GLOB '[a-z]*' ORDER BY random() LIMIT 3000`, lo, hi)
	if err != nil {
		t.Fatal(err)
	}
	if p := os.Getenv("ZZ_PROF"); p != "" {
		f, _ := os.Create(p)
		pprof.StartCPUProfile(f)
		defer pprof.StopCPUProfile()
	}
	start := time.Now()
	for _, w := range terms {
		d.counts.mu.Lock()
		d.counts.m = nil
		d.counts.mu.Unlock()
		if _, _, err := d.SearchListingsTotal(ctx, SearchFilter{Q: w, Limit: 20}); err != nil {
			t.Fatal(err)
		}
	}
	fmt.Printf("%d words: %.0f µs/search\n", len(terms), float64(time.Since(start).Microseconds())/float64(len(terms)))
}
