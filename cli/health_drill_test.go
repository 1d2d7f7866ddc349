package cli

import (
	"context"
	"database/sql"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"launchdir/replica"

	_ "modernc.org/sqlite"
)

// TestHealthzHonestAfterFilesRemoved removes the database files under a
// running, replicating primary (issue 25: /healthz said in_sync true next
// to "ensure wal exists: disk I/O error"). From then on /healthz never
// reports in_sync together with a replication error, and it does report
// the error.
func TestHealthzHonestAfterFilesRemoved(t *testing.T) {
	if testing.Short() {
		t.Skip("replica drill")
	}
	path, bearer := crashDB(t)
	c := startChild(t, "-db", path, "-demo=false", "-rate", "0", "-replicate", "file://"+filepath.Join(t.TempDir(), "replica"),
		"-replicate-sync-interval", "100ms")
	postUpdate(t, c, bearer, "before the loss")
	waitInSync(t, c, time.Now())
	loseDatabase(t, path)
	sawError := false
	for deadline := time.Now().Add(15 * time.Second); time.Now().Before(deadline) && !sawError; time.Sleep(100 * time.Millisecond) {
		postUpdate(t, c, bearer, "after the loss "+time.Now().Format(time.RFC3339Nano))
		_, body := get(t, c.base, "/healthz", "")
		var h struct{ Replication replica.Status }
		json.Unmarshal([]byte(body), &h)
		if h.Replication.Error != "" {
			sawError = true
			if h.Replication.InSync {
				t.Fatalf("in_sync next to an error: %s", body)
			}
		}
	}
	if !sawError {
		t.Fatal("no replication error reported after the database files were removed")
	}
}

// TestReplicaStopsOnPrimarySchemaChange: the primary's schema moves past
// this binary's (as when the primary runs a newer launchdir and migrates):
// the replica stops serving with the reason on every answer and on
// /readyz (503), /healthz stays up and reports it.
func TestReplicaStopsOnPrimarySchemaChange(t *testing.T) {
	if testing.Short() {
		t.Skip("replica drill")
	}
	path, _ := crashDB(t)
	repURL := "file://" + filepath.Join(t.TempDir(), "replica")
	primary := startChild(t, "-db", path, "-demo=false", "-rate", "0", "-replicate", repURL, "-replicate-sync-interval", "50ms")
	waitInSync(t, primary, time.Now())
	rep := startChild(t, "-db", filepath.Join(t.TempDir(), "copy.db"), "-rate", "0", "-replica-of", repURL,
		"-primary-url", primary.base, "-replica-poll-interval", "50ms")
	if code, body := get(t, rep.base, "/readyz", ""); code != 200 {
		t.Fatalf("/readyz before: %d %s", code, body)
	}
	// A newer binary's migration, written to the primary's file.
	d, err := sql.Open("sqlite", path)
	if err != nil {
		t.Fatal(err)
	}
	defer d.Close()
	if _, err := d.Exec(`PRAGMA busy_timeout = 5000; INSERT INTO schema_migrations(version, name, applied_at) VALUES(9999, 'from_the_future', '2026-11-26T00:00:00Z')`); err != nil {
		t.Fatal(err)
	}
	deadline := time.Now().Add(20 * time.Second)
	for {
		code, body := get(t, rep.base, "/readyz", "")
		if code == 503 && strings.Contains(body, "schema version is 9999") {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("replica still ready after the primary's schema changed: %d %s", code, body)
		}
		time.Sleep(100 * time.Millisecond)
	}
	if code, body := get(t, rep.base, "/api/v1/categories", ""); code != 503 || !strings.Contains(body, "stopped serving") {
		t.Errorf("a read on the stopped replica: %d %s", code, body)
	}
	code, body := get(t, rep.base, "/healthz", "")
	var h struct{ Replication replica.FollowStatus }
	json.Unmarshal([]byte(body), &h)
	if code != 200 || h.Replication.InSync || !strings.Contains(h.Replication.Error, "9999") {
		t.Errorf("/healthz of the stopped replica: %d %s", code, body)
	}
}

// TestReplicaFullDiskRollsBack: the replica's copy cannot grow (a file-size
// limit on the replica process: its disk is full) while the primary
// writes half a megabyte. The batch that fails half-way is rolled back:
// the replica keeps answering reads at once from its last whole state and
// reports the error; restarted with room, it catches up.
func TestReplicaFullDiskRollsBack(t *testing.T) {
	if testing.Short() {
		t.Skip("replica drill")
	}
	path, bearer := crashDB(t)
	repURL := "file://" + filepath.Join(t.TempDir(), "replica")
	primary := startChild(t, "-db", path, "-demo=false", "-rate", "0", "-replicate", repURL, "-replicate-sync-interval", "50ms")
	waitInSync(t, primary, time.Now())
	d, err := sql.Open("sqlite", path)
	if err != nil {
		t.Fatal(err)
	}
	defer d.Close()
	var pages, pageSize int64
	d.QueryRow(`PRAGMA page_count`).Scan(&pages)
	d.QueryRow(`PRAGMA page_size`).Scan(&pageSize)
	copyPath := filepath.Join(t.TempDir(), "copy.db")
	args := []string{"-db", copyPath, "-rate", "0", "-replica-of", repURL, "-primary-url", primary.base, "-replica-poll-interval", "50ms"}
	limit := pages*pageSize + 128<<10
	rep := startChildEnv(t, []string{"LAUNCHDIR_TEST_FSIZE=" + strconv.FormatInt(limit, 10)}, args...)

	for i := range 120 {
		if !postUpdate(t, primary, bearer, fmt.Sprintf("filler %03d %s", i, strings.Repeat("x", 150))) {
			t.Fatalf("update %d refused on the primary", i)
		}
	}
	// The updates are 4,800 characters each (title and body).
	for i := range 120 {
		ic := idemCall{fmt.Sprintf("big-%d", i), "POST", "/api/v1/me/listings/1/updates", map[string]any{"title": fmt.Sprintf("big %d", i), "body": strings.Repeat("y", 4800)}}
		if st, body, err := ic.do(context.Background(), primary.base, bearer); err != nil || st != 201 {
			t.Fatalf("big update %d: %d %s %v", i, st, body, err)
		}
	}
	deadline := time.Now().Add(20 * time.Second)
	for {
		_, body := get(t, rep.base, "/healthz", "")
		var h replicaHealth
		json.Unmarshal([]byte(body), &h)
		if h.Replication != nil && strings.Contains(h.Replication.Error, "rolled back") {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("no rolled-back batch reported: %s\n%s", body, rep.log)
		}
		time.Sleep(100 * time.Millisecond)
	}
	// Reads answer at once from the last whole state, repeatedly, while the
	// follower keeps failing (and rolling back) in the background.
	_, last := get(t, rep.base, "/api/v1/me/listings/1", bearer)
	for i := range 20 {
		start := time.Now()
		code, got := get(t, rep.base, "/api/v1/me/listings/1", bearer)
		if code != 200 || got != last || time.Since(start) > 2*time.Second {
			t.Fatalf("read %d on the full replica: %d after %v", i, code, time.Since(start))
		}
		time.Sleep(50 * time.Millisecond)
	}
	if st, err := os.Stat(copyPath); err != nil || st.Size() > limit {
		t.Errorf("copy size %v (limit %d): %v", st, limit, err)
	}
	// Room again: the restarted replica applies what it could not.
	rep.kill()
	rep = startChild(t, args...)
	// (the same listing, but each server names itself in public_url)
	_, want := get(t, primary.base, "/api/v1/me/listings/1", bearer)
	for deadline := time.Now().Add(20 * time.Second); ; time.Sleep(100 * time.Millisecond) {
		if _, got := get(t, rep.base, "/api/v1/me/listings/1", bearer); strings.ReplaceAll(got, rep.base, primary.base) == want {
			break
		}
		if time.Now().After(deadline) {
			_, h := get(t, rep.base, "/healthz", "")
			t.Fatalf("the restarted replica did not catch up: %s", h)
		}
	}
}

// The vote-integrity flags at their edges: a ring of 1 and negative limits
// are refused; 0 (off) and 2 are fine.
func TestVoteIntegrityFlags(t *testing.T) {
	for _, c := range []struct {
		args []string
		ok   bool
	}{
		{[]string{"-vote-ring-size", "1"}, false}, {[]string{"-vote-ring-size", "2"}, true}, {[]string{"-vote-ring-size", "0"}, true},
		{[]string{"-signups-per-address", "-1"}, false}, {[]string{"-signups-per-network", "-1"}, false}, {[]string{"-signups-per-address", "0"}, true},
	} {
		_, err := runCmd(t, append(c.args, "-addr", "127.0.0.1:0", "-db", "/nonexistent-dir/x.db")...)
		refused := err != nil && strings.Contains(err.Error(), "-vote-ring-size")
		if refused == c.ok {
			t.Errorf("%v: %v", c.args, err)
		}
	}
}
