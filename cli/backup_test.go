package cli

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"launchdir/db"
)

// TestBackupWhileServing copies the database while a real server process
// keeps writing, then restores the copy.
func TestBackupWhileServing(t *testing.T) {
	if testing.Short() {
		t.Skip("server process")
	}
	path, bearer := crashDB(t)
	c := startChild(t, "-db", path, "-demo=false", "-rate", "0")
	var acked atomic.Int64
	ctx, stop := context.WithCancel(context.Background())
	var wg sync.WaitGroup
	for w := 0; w < 3; w++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := 0; ctx.Err() == nil; i++ {
				if postUpdate(t, c, bearer, fmt.Sprintf("w%d-%d", w, i)) {
					acked.Add(1)
				}
			}
		}()
	}
	time.Sleep(300 * time.Millisecond)
	before := acked.Load()
	dir := t.TempDir()
	out := filepath.Join(dir, "copy.db")
	msg, err := runCmd(t, "backup", "-db", path, "-to", out)
	stop()
	wg.Wait()
	if err != nil || !strings.Contains(msg, "integrity_check ok") {
		t.Fatalf("backup: %v %s", err, msg)
	}
	if _, err := runCmd(t, "backup", "-db", path, "-to", out); err == nil {
		t.Error("backup overwrote an existing file")
	}
	if _, err := runCmd(t, "backup", "-db", filepath.Join(dir, "none.db"), "-to", filepath.Join(dir, "x.db")); err == nil {
		t.Error("backup of a missing database")
	}
	// The server's database exists and is live: restore refuses it.
	if _, err := runCmd(t, "restore", "-db", path, "-from", out); err == nil || !strings.Contains(err.Error(), "exists") {
		t.Fatalf("restore over a live database: %v", err)
	}
	c.kill()
	// Not a database, or not a launchdir one: refused before anything is replaced.
	junk := filepath.Join(dir, "junk.db")
	os.WriteFile(junk, []byte("not sqlite"), 0o600)
	if _, err := runCmd(t, "restore", "-db", path, "-from", junk, "-force"); err == nil {
		t.Error("restored junk")
	}
	if msg, err := runCmd(t, "restore", "-db", path, "-from", out, "-force"); err != nil || !strings.Contains(msg, "integrity_check ok") {
		t.Fatalf("restore -force: %v %s", err, msg)
	}
	if _, err := os.Stat(path + "-wal"); err == nil {
		t.Error("stale WAL kept beside the restored database")
	}
	d, err := db.Open(context.Background(), path)
	if err != nil {
		t.Fatal(err)
	}
	defer d.Close()
	var n int64
	if err := d.R.QueryRow(`SELECT count(*) FROM listing_updates WHERE title LIKE 'w%'`).Scan(&n); err != nil {
		t.Fatal(err)
	}
	if n < before {
		t.Errorf("backup holds %d updates, %d were acknowledged before it started", n, before)
	}
	t.Logf("backup during load: %d updates acknowledged before it, %d in the copy, %d by the end", before, n, acked.Load())
}
