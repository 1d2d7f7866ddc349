package main

import (
	"fmt"
	"io"
	"net"
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
	// writer, when set, runs at c=1 for the whole cell beside the reads
	// (the mixed rows: every write retires the server's read cache).
	writer *loadOp
}

// loadResult is one (operation, concurrency) cell of the sweep.
type loadResult struct {
	op       string
	c        int
	rps      float64
	p50, p99 float64 // ms
	errors   int64
	n        int     // requests answered
	cpuUS    float64 // server CPU per request, µs (with -pid)
}

// sweep runs every op at every concurrency level for d (closed loop: c
// workers, each sending its next request when the last one answered).
// Levels are the outer loop so that, with pid set, the server's peak RSS
// after each level covers that level and the ones below it only.
func sweep(ops []loadOp, levels []int, d time.Duration, pid int) []loadResult {
	var out []loadResult
	for _, c := range levels {
		for _, op := range ops {
			cpu := cpuTime(pid)
			r := runLoad(op, c, d)
			if pid > 0 && r.n > 0 {
				r.cpuUS = float64((cpuTime(pid) - cpu).Microseconds()) / float64(r.n)
			}
			fmt.Fprintf(os.Stderr, "%-32s c=%-3d %9.1f req/s  p50 %7.2f ms  p99 %7.2f ms  errors %d  server CPU %.0f µs/req\n", r.op, r.c, r.rps, r.p50, r.p99, r.errors, r.cpuUS)
			out = append(out, r)
		}
		if pid > 0 {
			peakRSS[c] = vmHWM(pid)
			fmt.Fprintf(os.Stderr, "server peak RSS through c=%d: %d MB\n", c, peakRSS[c])
		}
	}
	// The table reads by operation, then level.
	order := map[string]int{}
	for i, op := range ops {
		order[op.name] = i
	}
	sort.SliceStable(out, func(i, j int) bool { return order[out[i].op] < order[out[j].op] })
	return out
}

// cpuTime is a process's user plus system CPU time so far (0 without pid).
func cpuTime(pid int) time.Duration {
	if pid <= 0 {
		return 0
	}
	b, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
	if err != nil {
		return 0
	}
	// Fields after the command name (which may hold spaces): utime and
	// stime are the 12th and 13th, in clock ticks (100 per second on Linux).
	f := strings.Fields(string(b[strings.LastIndexByte(string(b), ')')+1:]))
	if len(f) < 13 {
		return 0
	}
	ut, _ := strconv.ParseInt(f[11], 10, 64)
	st, _ := strconv.ParseInt(f[12], 10, 64)
	return time.Duration(ut+st) * 10 * time.Millisecond
}

// peakRSS is the server's peak RSS in MB after each level (with -pid).
var peakRSS = map[int]int{}

// vmHWM reads a process's peak resident set (MB) from /proc.
func vmHWM(pid int) int {
	b, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/status")
	if err != nil {
		return 0
	}
	for _, l := range strings.Split(string(b), "\n") {
		if f := strings.Fields(l); len(f) >= 2 && f[0] == "VmHWM:" {
			kb, _ := strconv.Atoi(f[1])
			return kb / 1024
		}
	}
	return 0
}

var loadClient = &http.Client{Transport: &http.Transport{MaxIdleConnsPerHost: 128, MaxConnsPerHost: 128}, Timeout: 30 * time.Second}

func runLoad(op loadOp, c int, d time.Duration) loadResult {
	if op.writer != nil {
		done := make(chan loadResult)
		go func() { done <- runLoad(*op.writer, 1, d) }()
		r := runLoad(loadOp{name: op.name, method: op.method, url: op.url, body: op.body, header: op.header}, c, d)
		w := <-done
		fmt.Fprintf(os.Stderr, "%-32s c=1   %9.1f req/s  p50 %7.2f ms  p99 %7.2f ms  errors %d (beside %s)\n", w.op, w.rps, w.p50, w.p99, w.errors, op.name)
		r.errors += w.errors
		return r
	}
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
	r := loadResult{op: op.name, c: c, errors: errs.Load(), rps: float64(len(lat)) / el.Seconds(), n: len(lat)}
	if len(lat) > 0 {
		r.p50, r.p99 = ms(lat, 0.50), ms(lat, 0.99)
	}
	return r
}

// markdown prints the sweep as a README table row per operation and level.
func markdown(label string, rs []loadResult) {
	fmt.Printf("| N | operation | c | req/s | p50 ms | p99 ms | server CPU µs/req | errors |\n|---|---|---|---|---|---|---|---|\n")
	for _, r := range rs {
		fmt.Printf("| %s | %s | %d | %.0f | %.2f | %.2f | %.0f | %d |\n", label, r.op, r.c, r.rps, r.p50, r.p99, r.cpuUS, r.errors)
	}
	if len(peakRSS) > 0 {
		fmt.Println()
		levels := make([]int, 0, len(peakRSS))
		for c := range peakRSS {
			levels = append(levels, c)
		}
		sort.Ints(levels)
		for _, c := range levels {
			fmt.Printf("- %s: server peak RSS through c=%d: %d MB\n", label, c, peakRSS[c])
		}
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
func sweepOps(api string, slugs, coldSlugs []string, common string, rare, coldWords, allWords []string, key, bare string) []loadOp {
	get := func(u func(i int) string, name string) loadOp { return loadOp{name: name, method: "GET", url: u} }
	ops := []loadOp{
		// The ceiling: a bare net/http handler (in this process) returning
		// a profile's bytes from memory, measured with the same client.
		get(func(int) string { return bare }, "bare handler (ceiling)"),
		get(func(i int) string { return api + "/listings/" + slugs[i%len(slugs)] }, "get_listing"),
		// More listings and pages than the read cache holds (2,000
		// entries), so most requests read SQLite: these load the read pool.
		get(func(i int) string { return api + "/listings/" + coldSlugs[i%len(coldSlugs)] }, "get_listing uncached"),
		get(func(i int) string { return api + "/listings?q=" + coldWords[i%len(coldWords)] }, "search uncached"),
		// Every vocabulary word, the most frequent included (no word twice
		// in a cell at these rates: the count cache rarely answers either).
		get(func(i int) string { return api + "/listings?q=" + allWords[i%len(allWords)] }, "search uncached any word"),
		get(func(int) string { return api + "/listings?q=" + common }, "search common word"),
		get(func(i int) string { return api + "/listings?q=" + rare[i%len(rare)] }, "search rare word"),
		get(func(int) string { return api + "/listings?sort=newest&per_page=20" }, "newest 20 with total"),
		get(func(int) string { return api + "/listings?category=developer-tools&sort=newest" }, "category newest"),
		// A week's launches, its first five pages: the ranking of a whole week.
		get(func(i int) string { return api + "/launches/weeks/last?page=" + strconv.Itoa(1+i%5) }, "get_launch_week"),
	}
	if key != "" {
		patch := loadOp{name: "owner PATCH", method: "PATCH",
			url:    func(i int) string { return api + "/me/listings/" + strconv.Itoa(1+i%3) },
			body:   func(i int) string { return `{"fields":{"tagline":"bench tagline ` + strconv.Itoa(i) + `"}}` },
			header: http.Header{"Authorization": {"Bearer " + key}, "Content-Type": {"application/json"}}}
		ops = append(ops, patch)
		// Mixed: the uncached reads while an owner PATCHes at c=1.
		for _, name := range []string{"get_listing uncached", "search uncached any word"} {
			for _, op := range ops {
				if op.name == name {
					w := patch
					op.name, op.writer = name+" + writer", &w
					ops = append(ops, op)
				}
			}
		}
	}
	return ops
}

// selectOps keeps the ops named in the comma-separated list (all when empty).
func selectOps(ops []loadOp, names string) []loadOp {
	if names == "" {
		return ops
	}
	var out []loadOp
	for _, op := range ops {
		for _, n := range strings.Split(names, ",") {
			if strings.TrimSpace(n) == op.name {
				out = append(out, op)
			}
		}
	}
	return out
}

// bareHandler serves the body of profile (fetched once) from memory with a
// plain net/http server in this process and returns its URL: the ceiling
// the load generator reaches on this machine for a body of that size.
func bareHandler(profile string) string {
	resp, err := http.Get(profile)
	if err != nil {
		fmt.Fprintln(os.Stderr, "bare handler:", err)
		os.Exit(1)
	}
	body, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		fmt.Fprintln(os.Stderr, "bare handler:", err)
		os.Exit(1)
	}
	go http.Serve(ln, http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		w.Write(body)
	}))
	return "http://" + ln.Addr().String() + "/"
}
