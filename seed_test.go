package main

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
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
	// Kill once the seed has written a few MB of listings.
	deadline := time.Now().Add(60 * time.Second)
	for {
		st, err := os.Stat(path)
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
	if out, err := runCmd(t, "seed", "-listings", "500", "-db", path); err != nil || !strings.Contains(out, "seeded 500") {
		t.Fatalf("seed after the kill: %q %v", out, err)
	}
}
