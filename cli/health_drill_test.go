package cli

import (
	"encoding/json"
	"path/filepath"
	"testing"
	"time"

	"launchdir/replica"
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
