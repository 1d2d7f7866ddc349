package routes_test

import (
	"context"
	"fmt"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"sync"
	"sync/atomic"
	"testing"

	"launchdir/apitest"
	"launchdir/demo"
)

var (
	benchOnce sync.Once
	benchEnv  *apitest.Env
	benchDir  string
	benchSlug []string
)

// TestMain removes the benchmarks' shared environment (its database is
// hundreds of MB with BENCH_DB).
func TestMain(m *testing.M) {
	code := m.Run()
	if benchEnv != nil {
		benchEnv.Server.Close()
		benchEnv.DB.Close()
		os.RemoveAll(benchDir)
	}
	os.Exit(code)
}

// benchListings is the directory size of the Go benchmarks; scripts/bench
// runs the same operations at 100,000 listings against the real binary.
const benchListings = 20000

// keepTB shares one environment across benchmarks: its cleanups are
// dropped (the process ends after the benchmarks) and it has its own
// temporary directory.
type keepTB struct {
	testing.TB
	dir string
}

func (k keepTB) Cleanup(func())  {}
func (k keepTB) TempDir() string { return k.dir }

func benchSetup(b *testing.B) *apitest.Env {
	benchOnce.Do(func() {
		dir, err := os.MkdirTemp("", "launchdir-bench")
		if err != nil {
			b.Fatal(err)
		}
		benchDir = dir
		// BENCH_DB=file runs the benchmarks on a copy of a seeded file
		// (e.g. `launchdir seed -listings 100000`) instead of 20k listings.
		src := os.Getenv("BENCH_DB")
		if src != "" {
			if err := copyFile(src, filepath.Join(dir, "test.db")); err != nil {
				b.Fatal(err)
			}
		}
		e := apitest.New(keepTB{TB: b, dir: dir}, apitest.Options{})
		ctx := context.Background()
		if src == "" {
			if err := demo.Seed(ctx, e.DB, benchListings, 1, apitest.Now); err != nil {
				b.Fatal(err)
			}
			if err := e.DB.Analyze(ctx); err != nil {
				b.Fatal(err)
			}
		}
		rows, _ := e.DB.R.Query(`SELECT slug FROM listings WHERE status = 'live' ORDER BY id LIMIT 200`)
		for rows.Next() {
			var s string
			rows.Scan(&s)
			benchSlug = append(benchSlug, s)
		}
		rows.Close()
		benchEnv = e
	})
	return benchEnv
}

func benchGet(b *testing.B, url func(i int) string) {
	e := benchSetup(b)
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		resp, err := http.Get(e.URL + url(i))
		if err != nil {
			b.Fatal(err)
		}
		io.Copy(io.Discard, resp.Body)
		resp.Body.Close()
		if resp.StatusCode != 200 {
			b.Fatalf("%s: %d", url(i), resp.StatusCode)
		}
	}
}

func BenchmarkGetListing(b *testing.B) {
	benchGet(b, func(i int) string { return "/api/v1/listings/" + benchSlug[i%len(benchSlug)] })
}

func BenchmarkSearchCommonWord(b *testing.B) {
	benchGet(b, func(int) string { return "/api/v1/listings?q=and" })
}

func BenchmarkSearchRareWord(b *testing.B) {
	benchGet(b, func(i int) string { return "/api/v1/listings?q=" + benchSlug[i%len(benchSlug)] })
}

func BenchmarkSearchFiltered(b *testing.B) {
	benchGet(b, func(int) string { return "/api/v1/listings?country=US&sort=trending&per_page=50" })
}

func BenchmarkListLaunches(b *testing.B) {
	benchGet(b, func(i int) string { return fmt.Sprintf("/api/v1/launches?section=most-voted&page=%d", 1+i%50) })
}

// BenchmarkLaunchWeek pages a week's launches (get_launch_week), the
// first five pages of last week: an index-ordered read whatever the week's size.
func BenchmarkLaunchWeek(b *testing.B) {
	benchGet(b, func(i int) string { return fmt.Sprintf("/api/v1/launches/weeks/last?page=%d", 1+i%5) })
}

func BenchmarkLeaderboardWeekly(b *testing.B) {
	benchGet(b, func(int) string { return "/api/v1/leaderboards/community-weekly?week=last" })
}

// BenchmarkOwnerPatch is the owner write of the peer benchmark: PATCH
// /me/listings/{id} of one of demo@launchdir.local's three listings with a
// new tagline each time, through HTTP with an API key, 8 clients at once
// (on a 2-core machine RunParallel gives 2 × 4 = 8 goroutines).
func BenchmarkOwnerPatch(b *testing.B) {
	benchOwnerPatch(b, max(1, 8/runtime.GOMAXPROCS(0)))
}

// BenchmarkOwnerPatchSerial is the same PATCH from one client: the mixed
// peer rows' writer, where every edit is a commit of its own (no group to
// share it with) and what counts is one edit's latency and CPU.
func BenchmarkOwnerPatchSerial(b *testing.B) {
	benchOwnerPatch(b, 0)
}

// benchOwnerPatch runs the owner PATCH with parallelism p per
// GOMAXPROCS (RunParallel), or from one goroutine when p is 0.
func benchOwnerPatch(b *testing.B, p int) {
	e := benchSetup(b)
	key, _, err := e.App.People.CreateAPIKey(context.Background(), "demo@launchdir.local", "bench", []string{"account:read", "listings:write"})
	if err != nil {
		b.Fatal(err)
	}
	var seq atomic.Int64
	patch := func() bool {
		i := seq.Add(1)
		body := fmt.Sprintf(`{"fields":{"tagline":"bench tagline %d"}}`, i)
		req, _ := http.NewRequest(http.MethodPatch, fmt.Sprintf("%s/api/v1/me/listings/%d", e.URL, 1+i%3), strings.NewReader(body))
		req.Header.Set("Authorization", "Bearer "+key)
		req.Header.Set("Content-Type", "application/json")
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			b.Error(err)
			return false
		}
		io.Copy(io.Discard, resp.Body)
		resp.Body.Close()
		if resp.StatusCode != 200 {
			b.Errorf("PATCH: %d", resp.StatusCode)
			return false
		}
		return true
	}
	b.ReportAllocs()
	b.ResetTimer()
	if p == 0 {
		for i := 0; i < b.N; i++ {
			if !patch() {
				return
			}
		}
		return
	}
	b.SetParallelism(p)
	b.RunParallel(func(pb *testing.PB) {
		for pb.Next() {
			if !patch() {
				return
			}
		}
	})
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

// BenchmarkRefreshTrending is the hourly trending refresh over the whole
// benchmark file (BENCH_DB=1M file: ~400k listings rewritten).
func BenchmarkRefreshTrending(b *testing.B) {
	e := benchSetup(b)
	for b.Loop() {
		if err := e.App.Catalog.RefreshTrending(context.Background()); err != nil {
			b.Fatal(err)
		}
	}
}
