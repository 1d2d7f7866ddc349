package cli

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"syscall"
	"testing"
	"time"

	"launchdir/db"
)

// sqliteSchema lists every table, index and trigger of the file at path.
func sqliteSchema(t *testing.T, path string) []string {
	t.Helper()
	d, err := db.Open(context.Background(), path)
	if err != nil {
		t.Fatal(err)
	}
	defer d.Close()
	out, err := db.Column[string](context.Background(), d.R, `SELECT type || ' ' || name || ' ' || coalesce(sql, '') FROM sqlite_master WHERE name NOT LIKE 'sqlite_stat%' ORDER BY type, name`)
	if err != nil {
		t.Fatal(err)
	}
	return out
}

// A seed killed with SIGKILL half-way (indexes dropped, rows written, the
// rollback journal in use) leaves a database the server opens and serves:
// empty, with every index and trigger, and a new seed fills it.
func TestSeedKilledLeavesServableDatabase(t *testing.T) {
	path := filepath.Join(t.TempDir(), "seed.db")
	fresh := filepath.Join(t.TempDir(), "fresh.db")
	want := sqliteSchema(t, fresh)

	a, _ := json.Marshal([]string{"seed", "-listings", "200000", "-db", path})
	cmd := exec.Command(os.Args[0], "-test.run=^$")
	cmd.Env = append(os.Environ(), "LAUNCHDIR_TEST_CHILD="+string(a))
	var log bytes.Buffer
	cmd.Stdout, cmd.Stderr = &log, &log
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	// Kill once the seed has written a few MB of listings (into the copy
	// it renames over path when done). The bound only stops a seed that
	// never writes; on a loaded 2-core machine the first 8 MB took 47 s.
	deadline := time.Now().Add(180 * time.Second)
	for {
		st, err := os.Stat(path + ".seeding")
		if err == nil && st.Size() > 8<<20 {
			break
		}
		if time.Now().After(deadline) {
			cmd.Process.Kill()
			cmd.Wait()
			t.Fatalf("the seed did not grow the file: %s", log.String())
		}
		time.Sleep(10 * time.Millisecond)
	}
	cmd.Process.Signal(syscall.SIGKILL)
	cmd.Wait()
	if strings.Contains(log.String(), "seeded") {
		t.Fatalf("the seed finished before the kill: %s", log.String())
	}

	c := startChild(t, "-db", path, "-demo=false")
	resp, err := http.Get(c.base + "/api/v1/listings?sort=newest")
	if err != nil {
		t.Fatal(err)
	}
	body, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	var page struct {
		Total int `json:"total"`
	}
	if resp.StatusCode != 200 || json.Unmarshal(body, &page) != nil || page.Total != 0 {
		t.Fatalf("listings after a killed seed: %d %s", resp.StatusCode, body)
	}
	c.kill()
	got := sqliteSchema(t, path)
	for i := 0; i < max(len(got), len(want)); i++ {
		if i >= len(got) || i >= len(want) || got[i] != want[i] {
			t.Fatalf("schema after a killed seed differs from a fresh database at entry %d:\ngot  %q\nwant %q", i, got[min(i, len(got)-1)], want[min(i, len(want)-1)])
		}
	}
	out, err := runCmd(t, "seed", "-listings", "500", "-db", path)
	if err != nil || !strings.Contains(out, "seeded 500") {
		t.Fatalf("seed after the kill: %q %v", out, err)
	}
	// Where the time went, phase by phase, in the order they ran.
	if !regexp.MustCompile(`\(schema [0-9.]+s, rows [0-9.]+s, search index [0-9.]+s, indexes [0-9.]+s, commit [0-9.]+s, profiles [0-9.]+s, statistics [0-9.]+s, close [0-9.]+s\)`).MatchString(out) {
		t.Errorf("seed's phases missing from %q", out)
	}
	for _, f := range []string{path + ".seeding", path + ".seeding-journal"} {
		if _, err := os.Stat(f); !os.IsNotExist(err) {
			t.Errorf("%s left behind: %v", f, err)
		}
	}
	d, err := db.Open(context.Background(), path)
	if err != nil {
		t.Fatal(err)
	}
	defer d.Close()
	var n int
	if err := d.R.QueryRow(`SELECT count(*) FROM listings`).Scan(&n); err != nil || n != 500 {
		t.Errorf("%d listings after the re-seed, %v", n, err)
	}
}

// Accounts made before a seed (apikey create) survive it: the seed is
// built in a copy that takes every row of the original first.
func TestSeedKeepsEarlierAccounts(t *testing.T) {
	path := filepath.Join(t.TempDir(), "keys.db")
	key, err := runCmd(t, "apikey", "create", "-email", "early@example.com", "-scopes", "account:read", "-db", path)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := runCmd(t, "seed", "-listings", "300", "-db", path); err != nil {
		t.Fatal(err)
	}
	c := startChild(t, "-db", path, "-demo=false")
	req, _ := http.NewRequest("GET", c.base+"/api/v1/me", nil)
	req.Header.Set("Authorization", "Bearer "+strings.TrimSpace(key))
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	body, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	if resp.StatusCode != 200 || !strings.Contains(string(body), "early@example.com") {
		t.Fatalf("the key made before the seed: %d %s", resp.StatusCode, body)
	}
	if _, err := runCmd(t, "seed", "-listings", "300", "-db", path); err == nil || !strings.Contains(err.Error(), "not empty") {
		t.Errorf("seeding a seeded file: %v", err)
	}
}
