package main

import (
	"fmt"
	"io"
	"net/http"
	"os"
	"sort"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"
)

// loadOp is one request kind of the concurrency sweep; body is empty for GETs.
type loadOp struct {
	name   string
	method string
	url    func(i int) string
	body   func(i int) string
	header http.Header
}

// loadResult is one (operation, concurrency) cell of the sweep.
type loadResult struct {
	op       string
	c        int
	rps      float64
	p50, p99 float64 // ms
	errors   int64
}

// sweep runs every op at every concurrency level for d (closed loop: c
// workers, each sending its next request when the last one answered).
func sweep(ops []loadOp, levels []int, d time.Duration) []loadResult {
	var out []loadResult
	for _, op := range ops {
		for _, c := range levels {
			r := runLoad(op, c, d)
			fmt.Fprintf(os.Stderr, "%-32s c=%-3d %9.1f req/s  p50 %7.2f ms  p99 %7.2f ms  errors %d\n", r.op, r.c, r.rps, r.p50, r.p99, r.errors)
			out = append(out, r)
		}
	}
	return out
}

var loadClient = &http.Client{Transport: &http.Transport{MaxIdleConnsPerHost: 128, MaxConnsPerHost: 128}, Timeout: 30 * time.Second}

func runLoad(op loadOp, c int, d time.Duration) loadResult {
	var (
		seq  atomic.Int64
		errs atomic.Int64
		mu   sync.Mutex
		lat  []time.Duration
		wg   sync.WaitGroup
	)
	deadline := time.Now().Add(d)
	start := time.Now()
	for range c {
		wg.Add(1)
		go func() {
			defer wg.Done()
			var mine []time.Duration
			for time.Now().Before(deadline) {
				i := int(seq.Add(1))
				var body io.Reader
				if op.body != nil {
					body = strings.NewReader(op.body(i))
				}
				req, _ := http.NewRequest(op.method, op.url(i), body)
				for k, v := range op.header {
					req.Header[k] = v
				}
				t := time.Now()
				resp, err := loadClient.Do(req)
				if err != nil {
					errs.Add(1)
					continue
				}
				io.Copy(io.Discard, resp.Body)
				resp.Body.Close()
				if resp.StatusCode >= 300 {
					errs.Add(1)
				}
				mine = append(mine, time.Since(t))
			}
			mu.Lock()
			lat = append(lat, mine...)
			mu.Unlock()
		}()
	}
	wg.Wait()
	el := time.Since(start)
	sort.Slice(lat, func(i, j int) bool { return lat[i] < lat[j] })
	r := loadResult{op: op.name, c: c, errors: errs.Load(), rps: float64(len(lat)) / el.Seconds()}
	if len(lat) > 0 {
		r.p50, r.p99 = ms(lat, 0.50), ms(lat, 0.99)
	}
	return r
}

// markdown prints the sweep as a README table row per operation and level.
func markdown(label string, rs []loadResult) {
	fmt.Printf("| N | operation | c | req/s | p50 ms | p99 ms | errors |\n|---|---|---|---|---|---|---|\n")
	for _, r := range rs {
		fmt.Printf("| %s | %s | %d | %.0f | %.2f | %.2f | %d |\n", label, r.op, r.c, r.rps, r.p50, r.p99, r.errors)
	}
}

func parseLevels(s string) []int {
	var out []int
	for _, f := range strings.Split(s, ",") {
		if n, err := strconv.Atoi(strings.TrimSpace(f)); err == nil && n > 0 {
			out = append(out, n)
		}
	}
	return out
}

// sweepOps are the operations measured at every concurrency level: the
// public reads the goals name and the owner write (when a key is given).
func sweepOps(api string, slugs []string, common string, rare []string, key string) []loadOp {
	get := func(u func(i int) string, name string) loadOp { return loadOp{name: name, method: "GET", url: u} }
	ops := []loadOp{
		get(func(i int) string { return api + "/listings/" + slugs[i%len(slugs)] }, "get_listing"),
		get(func(int) string { return api + "/listings?q=" + common }, "search common word"),
		get(func(i int) string { return api + "/listings?q=" + rare[i%len(rare)] }, "search rare word"),
		get(func(int) string { return api + "/listings?sort=newest&per_page=20" }, "newest 20 with total"),
		get(func(int) string { return api + "/listings?category=developer-tools&sort=newest" }, "category newest"),
	}
	if key != "" {
		ops = append(ops, loadOp{name: "owner PATCH", method: "PATCH",
			url:    func(i int) string { return api + "/me/listings/" + strconv.Itoa(1+i%3) },
			body:   func(i int) string { return `{"fields":{"tagline":"bench tagline ` + strconv.Itoa(i) + `"}}` },
			header: http.Header{"Authorization": {"Bearer " + key}, "Content-Type": {"application/json"}}})
	}
	return ops
}
