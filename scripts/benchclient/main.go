// Command benchclient measures launchdir over real HTTP: p50/p99 latency per
// operation, for scripts/bench. It reads the database only to pick inputs
// (slugs and the most common search word).
package main

import (
	"context"
	"database/sql"
	"flag"
	"fmt"
	"io"
	"math/rand/v2"
	"net/http"
	"net/url"
	"os"
	"sort"
	"time"

	"launchdir/db"
)

func main() {
	base := flag.String("base", "http://127.0.0.1:8080", "server origin")
	path := flag.String("db", "", "database file (read to pick inputs)")
	n := flag.Int("n", 2000, "requests per operation")
	levels := flag.String("c", "", "concurrency levels of the sweep, e.g. 1,8,32,64 (empty: no sweep)")
	dur := flag.Duration("d", 4*time.Second, "duration of each sweep cell")
	key := flag.String("key", "", "API key of demo@launchdir.local for the owner-write workload")
	label := flag.String("label", "", "N label of the sweep's markdown table")
	pid := flag.Int("pid", 0, "server process id: report its peak RSS after each concurrency level")
	only := flag.String("ops", "", "comma-separated operation names of the sweep to run (empty: all)")
	launch := flag.Duration("launchday", 0, "run the launch-day workload for this long instead (votes through the site's form beside public reads; the server needs -trust-proxy)")
	voteRate := flag.Int("vote-rate", 200, "launch day: votes per second")
	flag.Parse()
	if *launch > 0 {
		if err := launchDay(launchDayOpts{base: *base, path: *path, d: *launch, rate: *voteRate, readers: 8}); err != nil {
			fmt.Fprintln(os.Stderr, "launch day:", err)
			os.Exit(1)
		}
		return
	}
	d, err := db.Open(context.Background(), *path)
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	slugs := pick(d.W, `SELECT slug FROM listings WHERE status = 'live' ORDER BY random() LIMIT 500`)
	coldSlugs := pick(d.W, `SELECT slug FROM listings WHERE status = 'live' ORDER BY random() LIMIT 50000`)
	common := pick(d.W, `SELECT term FROM (SELECT term, doc FROM temp.vocab ORDER BY doc DESC LIMIT 1)`)
	rare := pick(d.W, `SELECT term FROM temp.vocab WHERE doc BETWEEN 2 AND 20 AND length(term) > 4 LIMIT 50`)
	coldWords := pick(d.W, `SELECT term FROM temp.vocab WHERE doc BETWEEN 2 AND 200 AND length(term) > 3 ORDER BY random() LIMIT 20000`)
	allWords := pick(d.W, `SELECT term FROM temp.vocab WHERE doc >= 2 AND length(term) > 3 AND term GLOB '[a-z]*' ORDER BY random() LIMIT 20000`)
	founders := pick(d.W, `SELECT DISTINCT f.slug FROM founders f JOIN listing_founders lf ON lf.founder_id = f.id
		JOIN listings l ON l.id = lf.listing_id WHERE l.status = 'live' LIMIT 200`)
	var pin pageInputs
	if *levels != "" {
		if pin, err = readPageInputs(d); err != nil {
			fmt.Fprintln(os.Stderr, err)
			os.Exit(1)
		}
	}
	d.Close()
	api := *base + "/api/v1"
	r := rand.New(rand.NewPCG(1, 2))
	ops := []struct {
		name string
		url  func() string
	}{
		{"get_listing", func() string { return api + "/listings/" + slugs[r.IntN(len(slugs))] }},
		{"search_listings common word " + fmt.Sprintf("%q", common[0]), func() string { return api + "/listings?q=" + url.QueryEscape(common[0]) }},
		{"search_listings rare word", func() string { return api + "/listings?q=" + url.QueryEscape(rare[r.IntN(len(rare))]) }},
		{"search_listings filter+sort", func() string { return api + "/listings?country=US&sort=votes" }},
		{"search_listings category", func() string { return api + "/listings?category=developer-tools&sort=newest" }},
		{"list_categories", func() string { return api + "/categories" }},
		{"list_launches trending", func() string { return api + "/launches?section=trending" }},
		{"get_launch_week", func() string { return api + "/launches/weeks/last" }},
		{"get_leaderboard weekly", func() string { return api + "/leaderboards/community-weekly?week=last" }},
		{"get_leaderboard revenue", func() string { return api + "/leaderboards/revenue" }},
		{"list_founders", func() string { return api + "/founders?page=3" }},
		{"list_blog_posts", func() string { return api + "/blog" }},
		{"list_awards", func() string { return api + "/awards" }},
	}
	if *levels != "" { // the concurrency sweep prints a markdown table instead
		bare := bareHandler(api + "/listings/" + slugs[0])
		all := sweepOps(api, slugs, coldSlugs, url.QueryEscape(common[0]), rare, coldWords, allWords, *key, bare)
		all = append(all, sitePageOps(*base, pin, coldSlugs, allWords, patchOf(all))...)
		markdown(*label, sweep(selectOps(all, *only), parseLevels(*levels), *dur, *pid))
		return
	}
	ops = append(ops, sitePages(*base, slugs, founders, common[0], r)...)
	fmt.Printf("%-44s %8s %8s %8s\n", "operation", "p50 ms", "p99 ms", "max ms")
	for _, op := range ops {
		lat := measure(op.url, *n)
		fmt.Printf("%-44s %8.2f %8.2f %8.2f\n", op.name, ms(lat, 0.50), ms(lat, 0.99), ms(lat, 1))
	}
}

func pick(q *sql.DB, query string) []string {
	// fts5vocab lists terms with their document counts.
	q.Exec(`CREATE VIRTUAL TABLE IF NOT EXISTS temp.vocab USING fts5vocab(main, 'listings_fts', 'row')`)
	rows, err := q.Query(query)
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	defer rows.Close()
	var out []string
	for rows.Next() {
		var s string
		rows.Scan(&s)
		out = append(out, s)
	}
	if len(out) == 0 {
		out = []string{"app"}
	}
	return out
}

var client = &http.Client{Transport: &http.Transport{MaxIdleConnsPerHost: 4}}

func measure(next func() string, n int) []time.Duration {
	out := make([]time.Duration, 0, n)
	for i := 0; i < n; i++ {
		u := next()
		start := time.Now()
		resp, err := client.Get(u)
		if err != nil {
			fmt.Fprintln(os.Stderr, err)
			os.Exit(1)
		}
		io.Copy(io.Discard, resp.Body)
		resp.Body.Close()
		if resp.StatusCode != 200 {
			fmt.Fprintln(os.Stderr, u, resp.Status)
			os.Exit(1)
		}
		out = append(out, time.Since(start))
	}
	sort.Slice(out, func(i, j int) bool { return out[i] < out[j] })
	return out
}

func ms(lat []time.Duration, q float64) float64 {
	i := int(float64(len(lat)-1) * q)
	return float64(lat[i].Microseconds()) / 1000
}
