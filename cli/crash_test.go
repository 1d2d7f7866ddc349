package cli

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"launchdir/apitest"
	"launchdir/db"
)

// The crash tests run the real server in a child process (this test binary
// re-executed with LAUNCHDIR_TEST_CHILD set), so kill -9 hits a real
// process holding the SQLite file, not a goroutine.
func init() {
	if args := os.Getenv("LAUNCHDIR_TEST_CHILD"); args != "" {
		var a []string
		if err := json.Unmarshal([]byte(args), &a); err != nil {
			fmt.Fprintln(os.Stderr, "child args:", err)
			os.Exit(2)
		}
		// A file-size limit makes a "full disk" for this process alone:
		// writes past it fail with EFBIG (Go ignores SIGXFSZ).
		if v := os.Getenv("LAUNCHDIR_TEST_FSIZE"); v != "" {
			n, _ := strconv.ParseUint(v, 10, 64)
			if err := syscall.Setrlimit(syscall.RLIMIT_FSIZE, &syscall.Rlimit{Cur: n, Max: n}); err != nil {
				fmt.Fprintln(os.Stderr, "rlimit:", err)
				os.Exit(2)
			}
		}
		if err := Run(a, os.Stdout, os.Stderr); err != nil {
			fmt.Fprintln(os.Stderr, "launchdir:", err)
			os.Exit(1)
		}
		os.Exit(0)
	}
}

// child is a server process started by a test.
type child struct {
	cmd  *exec.Cmd
	base string
	log  *bytes.Buffer
	done chan struct{} // closed when the process has exited and been reaped
}

func freeAddr(t *testing.T) string {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	return ln.Addr().String()
}

// startChild serves args (plus -addr) in a child process and waits for /healthz.
func startChild(t *testing.T, args ...string) *child {
	t.Helper()
	return startChildEnv(t, nil, args...)
}

// startChildEnv is startChild with extra environment variables.
func startChildEnv(t *testing.T, env []string, args ...string) *child {
	t.Helper()
	addr := freeAddr(t)
	a, _ := json.Marshal(append([]string{"-addr", addr}, args...))
	cmd := exec.Command(os.Args[0], "-test.run=^$")
	cmd.Env = append(append(os.Environ(), env...), "LAUNCHDIR_TEST_CHILD="+string(a))
	c := &child{cmd: cmd, base: "http://" + addr, log: &bytes.Buffer{}, done: make(chan struct{})}
	cmd.Stdout, cmd.Stderr = c.log, c.log
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	go func() { cmd.Wait(); close(c.done) }()
	t.Cleanup(func() { c.kill() })
	deadline := time.Now().Add(20 * time.Second)
	for {
		select {
		case <-c.done:
			t.Fatalf("child exited: %s", c.log)
		default:
		}
		resp, err := http.Get(c.base + "/healthz")
		if err == nil {
			resp.Body.Close()
			return c
		}
		if time.Now().After(deadline) {
			c.kill()
			t.Fatalf("child did not come up: %s", c.log)
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// kill sends SIGKILL (no cleanup of any kind) and reaps the process.
func (c *child) kill() {
	select {
	case <-c.done:
		return
	default:
	}
	c.cmd.Process.Signal(syscall.SIGKILL)
	<-c.done
}

// idemCall is one idempotent request the crash drill sends and retries.
type idemCall struct {
	key, method, path string
	body              map[string]any
}

func (ic idemCall) do(ctx context.Context, base, bearer string) (int, []byte, error) {
	st, body, _, err := ic.doH(ctx, base, bearer)
	return st, body, err
}

func (ic idemCall) doH(ctx context.Context, base, bearer string) (int, []byte, http.Header, error) {
	b, _ := json.Marshal(ic.body)
	req, err := http.NewRequestWithContext(ctx, ic.method, base+ic.path, bytes.NewReader(b))
	if err != nil {
		return 0, nil, nil, err
	}
	req.Header.Set("Authorization", "Bearer "+bearer)
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Idempotency-Key", ic.key)
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		return 0, nil, nil, err
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(resp.Body)
	return resp.StatusCode, body, resp.Header, err
}

// crashDB makes a database with the order and owner fixtures and an API key.
func crashDB(t *testing.T) (path, key string) {
	t.Helper()
	path = filepath.Join(t.TempDir(), "crash.db")
	d, err := db.Open(context.Background(), path)
	if err != nil {
		t.Fatal(err)
	}
	apitest.LoadSQL(t, d, "public_fixture.sql")
	apitest.LoadSQL(t, d, "orders_fixture.sql")
	d.Close()
	out, err := runCmd(t, "apikey", "create", "-email", "owner@example.com", "-scopes", "account:read,listings:write,orders:write", "-db", path)
	if err != nil {
		t.Fatal(err)
	}
	return path, strings.TrimSpace(out)
}

// TestKill9NeverDuplicatesIdempotentEffects is the crash drill of issue 12:
// concurrent idempotent writes (create_checkout, post_listing_update,
// PATCH /me/listings) while the server is killed with SIGKILL, several
// times; then, after the release window, every key is retried: each key has
// exactly one effect, never two, and every key whose effect committed
// replays its original response (0 lost responses, issue 25).
func TestKill9NeverDuplicatesIdempotentEffects(t *testing.T) {
	if testing.Short() {
		t.Skip("crash drill")
	}
	path, bearer := crashDB(t)
	serveArgs := []string{"-db", path, "-demo=false", "-rate", "0", "-idempotency-stale", "1s", "-crawl-workers", "1"}
	const kills, workers = 4, 6
	var (
		mu    sync.Mutex
		calls []idemCall
		acked = map[string]int{} // key -> status acknowledged before the kill
	)
	n := 0
	next := func() idemCall {
		mu.Lock()
		defer mu.Unlock()
		n++
		key := fmt.Sprintf("crash-%04d", n)
		var ic idemCall
		switch n % 3 {
		case 0:
			ic = idemCall{key, "POST", "/api/v1/orders/checkout", apitest.Order(apitest.OrderItem("ai_review", "listing_id", 6))}
		case 1:
			ic = idemCall{key, "POST", "/api/v1/me/listings/1/updates", map[string]any{"title": "update " + key, "body": "body of " + key}}
		default:
			ic = idemCall{key, "PATCH", "/api/v1/me/listings/1", map[string]any{"fields": map[string]any{"tagline": "tagline " + key}}}
		}
		calls = append(calls, ic)
		return ic
	}
	for round := 0; round < kills; round++ {
		c := startChild(t, serveArgs...)
		ctx, cancel := context.WithCancel(context.Background())
		var wg sync.WaitGroup
		for w := 0; w < workers; w++ {
			wg.Add(1)
			go func() {
				defer wg.Done()
				for ctx.Err() == nil {
					ic := next()
					st, _, err := ic.do(ctx, c.base, bearer)
					if err == nil {
						mu.Lock()
						acked[ic.key] = st
						mu.Unlock()
					}
				}
			}()
		}
		time.Sleep(time.Duration(200+150*round) * time.Millisecond)
		c.kill() // SIGKILL while requests are in flight
		cancel()
		wg.Wait()
	}
	for k, st := range acked {
		if st >= 500 {
			t.Errorf("key %s acknowledged with %d", k, st)
		}
	}

	// Restart on the same file, wait out the release window, retry every key.
	c := startChild(t, serveArgs...)
	time.Sleep(1100 * time.Millisecond)
	effects := map[string]int{} // op path -> keys that must have exactly one effect
	lost, replayed := 0, 0
	lostBy := map[string]int{} // op path -> responses lost
	for _, ic := range calls {
		st, body, h, err := ic.doH(context.Background(), c.base, bearer)
		if err != nil {
			t.Fatal(err)
		}
		// An acknowledged write survived the kill: its retry is a replay.
		if ack, ok := acked[ic.key]; ok && ack < 300 && (st != ack || h.Get("Idempotent-Replayed") != "true") {
			t.Errorf("acknowledged %s (%d) lost: retry %d %s", ic.key, ack, st, body)
		}
		switch {
		case st == 201 || st == 200:
			effects[ic.path]++
		case st == 409 && strings.Contains(string(body), `"effect_committed":true`):
			effects[ic.path]++
			lost++
			lostBy[ic.method+" "+ic.path]++
		default:
			t.Errorf("retry %s %s: %d %s", ic.key, ic.path, st, body)
		}
		// A second retry replays the first retry byte for byte.
		st2, body2, err := ic.do(context.Background(), c.base, bearer)
		if err != nil || st2 != st || !bytes.Equal(body, body2) {
			t.Errorf("second retry of %s: %d %s (first %d %s)", ic.key, st2, body2, st, body)
		}
		replayed++
	}
	d, err := db.Open(context.Background(), path)
	if err != nil {
		t.Fatal(err)
	}
	defer d.Close()
	count := func(q string, args ...any) int {
		var n int
		if err := d.R.QueryRow(q, args...).Scan(&n); err != nil {
			t.Fatal(err)
		}
		return n
	}
	orders := count(`SELECT count(*) FROM orders`)
	updates := count(`SELECT count(*) FROM listing_updates WHERE title LIKE 'update crash-%'`)
	dupUpdates := count(`SELECT count(*) FROM (SELECT title FROM listing_updates GROUP BY title HAVING count(*) > 1)`)
	revs := count(`SELECT count(*) FROM revisions WHERE operation = 'update_my_listing' AND after LIKE '%tagline crash-%'`)
	dupRevs := count(`SELECT count(*) FROM (SELECT after FROM revisions WHERE operation = 'update_my_listing' GROUP BY after HAVING count(*) > 1)`)
	t.Logf("%d kills, %d keys (%d acknowledged before a kill), %d orders, %d updates, %d revisions, %d lost responses, %d double retries",
		kills, len(calls), len(acked), orders, updates, revs, lost, replayed)
	// Each of these operations stores its response in the transaction of
	// its effect: a retry after the kill replays the original answer, so
	// no client is left with "effect committed, response lost".
	if lost != 0 {
		t.Errorf("%d responses lost to the kills, want 0: %v", lost, lostBy)
	}
	if orders != effects["/api/v1/orders/checkout"] {
		t.Errorf("orders %d, keys with an effect %d", orders, effects["/api/v1/orders/checkout"])
	}
	if updates != effects["/api/v1/me/listings/1/updates"] || dupUpdates != 0 {
		t.Errorf("updates %d (duplicated titles %d), keys with an effect %d", updates, dupUpdates, effects["/api/v1/me/listings/1/updates"])
	}
	if revs != effects["/api/v1/me/listings/1"] || dupRevs != 0 {
		t.Errorf("revisions %d (duplicated %d), keys with an effect %d", revs, dupRevs, effects["/api/v1/me/listings/1"])
	}
}
