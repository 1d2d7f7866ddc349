package cli

import (
	"database/sql"
	"encoding/json"
	"path/filepath"
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
