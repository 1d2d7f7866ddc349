package replica

import (
	"context"
	"database/sql"
	"fmt"
	"log/slog"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	_ "modernc.org/sqlite"
)

// A toy primary: every transaction inserts rows of ~2 KB (so one transaction
// touches many pages) and records the row count in meta. A reader that saw
// a half-applied transaction would find count(*) != meta.n, sum(a) off, or
// a malformed page.

func openPrimary(t *testing.T, path string) *sql.DB {
	t.Helper()
	p, err := sql.Open("sqlite", "file:"+path+"?_pragma=busy_timeout(5000)&_pragma=journal_mode(WAL)&_pragma=synchronous(NORMAL)")
	if err != nil {
		t.Fatal(err)
	}
	p.SetMaxOpenConns(1)
	if _, err := p.Exec(`CREATE TABLE t(id INTEGER PRIMARY KEY, a INTEGER NOT NULL, b BLOB NOT NULL);
		CREATE INDEX t_a ON t(a, id); CREATE TABLE meta(n INTEGER NOT NULL); INSERT INTO meta VALUES (0);`); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { p.Close() })
	return p
}

func writeBatch(t *testing.T, p *sql.DB, rows int) {
	t.Helper()
	tx, err := p.Begin()
	if err != nil {
		t.Fatal(err)
	}
	for range rows {
		if _, err := tx.Exec(`INSERT INTO t(a, b) VALUES (1, randomblob(2000))`); err != nil {
			t.Fatal(err)
		}
	}
	// Deletes too, so pages are freed and the file shrinks and grows.
	if _, err := tx.Exec(`DELETE FROM t WHERE id IN (SELECT id FROM t ORDER BY random() LIMIT ?)`, rows/3); err != nil {
		t.Fatal(err)
	}
	if _, err := tx.Exec(`UPDATE meta SET n = (SELECT count(*) FROM t)`); err != nil {
		t.Fatal(err)
	}
	if err := tx.Commit(); err != nil {
		t.Fatal(err)
	}
}

func openCopy(t *testing.T, path string) *sql.DB {
	t.Helper()
	r, err := sql.Open("sqlite", "file:"+path+"?mode=ro&_pragma=busy_timeout(10000)&_pragma=query_only(ON)")
	if err != nil {
		t.Fatal(err)
	}
	r.SetMaxOpenConns(4)
	t.Cleanup(func() { r.Close() })
	return r
}

// readConsistent reads the copy in one transaction and checks the invariant.
func readConsistent(ctx context.Context, r *sql.DB) (int, error) {
	tx, err := r.BeginTx(ctx, &sql.TxOptions{ReadOnly: true})
	if err != nil {
		return 0, err
	}
	defer tx.Rollback()
	var n, count, sum, blobs int
	if err := tx.QueryRow(`SELECT n FROM meta`).Scan(&n); err != nil {
		return 0, err
	}
	if err := tx.QueryRow(`SELECT count(*), coalesce(sum(a), 0), coalesce(sum(length(b) = 2000), 0) FROM t`).Scan(&count, &sum, &blobs); err != nil {
		return 0, err
	}
	var viaIndex int
	if err := tx.QueryRow(`SELECT count(*) FROM t INDEXED BY t_a WHERE a = 1`).Scan(&viaIndex); err != nil {
		return 0, err
	}
	if count != n || sum != n || blobs != n || viaIndex != n {
		return 0, fmt.Errorf("torn read: meta.n=%d count=%d sum=%d blobs=%d index=%d", n, count, sum, blobs, viaIndex)
	}
	return n, nil
}

func fileURL(dir string) string { return "file://" + filepath.ToSlash(dir) }

func waitApplied(t *testing.T, f *Follower, r *sql.DB, want int) {
	t.Helper()
	deadline := time.Now().Add(20 * time.Second)
	for time.Now().Before(deadline) {
		if n, err := readConsistent(context.Background(), r); err == nil && n == want {
			return
		}
		time.Sleep(20 * time.Millisecond)
	}
	n, err := readConsistent(context.Background(), r)
	t.Fatalf("copy holds %d rows (err %v), want %d; follower %+v", n, err, want, f.Status())
}

func TestFollowerReadersNeverSeeTornWrites(t *testing.T) {
	dir := t.TempDir()
	ctx := context.Background()
	log := slog.New(slog.NewTextHandler(os.Stderr, &slog.HandlerOptions{Level: slog.LevelWarn}))
	p := openPrimary(t, filepath.Join(dir, "primary.db"))
	writeBatch(t, p, 30)
	url := fileURL(filepath.Join(dir, "replica"))
	rep, err := Start(ctx, filepath.Join(dir, "primary.db"), Options{URL: url, SyncInterval: 50 * time.Millisecond, Log: log})
	if err != nil {
		t.Fatal(err)
	}
	defer rep.Close(ctx)
	if err := rep.Sync(ctx); err != nil {
		t.Fatal(err)
	}

	copyPath := filepath.Join(dir, "copy.db")
	f, err := Follow(ctx, copyPath, FollowOptions{URL: url, Interval: 20 * time.Millisecond, Log: log})
	if err != nil {
		t.Fatal(err)
	}
	var applied atomic.Int64
	f.OnApply(func() { applied.Add(1) })
	r := openCopy(t, copyPath)
	want := 0
	if err := p.QueryRow(`SELECT n FROM meta`).Scan(&want); err != nil {
		t.Fatal(err)
	}
	waitApplied(t, f, r, want)

	// Readers hammer the copy while the primary writes and the follower
	// applies: none may fail or see a half-applied transaction.
	stop := make(chan struct{})
	var reads atomic.Int64
	var wg sync.WaitGroup
	errs := make(chan error, 8)
	for range 4 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for {
				select {
				case <-stop:
					return
				default:
				}
				if _, err := readConsistent(ctx, r); err != nil {
					errs <- err
					return
				}
				reads.Add(1)
			}
		}()
	}
	for i := range 40 {
		writeBatch(t, p, 20+i%7*10)
		time.Sleep(15 * time.Millisecond)
	}
	if err := p.QueryRow(`SELECT n FROM meta`).Scan(&want); err != nil {
		t.Fatal(err)
	}
	if err := rep.Sync(ctx); err != nil {
		t.Fatal(err)
	}
	waitApplied(t, f, r, want)
	close(stop)
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Fatal(err)
	}
	st := f.Status()
	t.Logf("%d consistent reads during %d applied batches; status %+v", reads.Load(), applied.Load(), st)
	if applied.Load() < 3 || reads.Load() < 50 {
		t.Fatalf("too little overlap to mean anything: %d batches, %d reads", applied.Load(), reads.Load())
	}
	if !st.InSync || st.Error != "" || st.AppliedTXID == 0 {
		t.Fatalf("status after catching up: %+v", st)
	}
	var check string
	if err := r.QueryRow(`PRAGMA integrity_check`).Scan(&check); err != nil || check != "ok" {
		t.Fatalf("integrity_check: %q %v", check, err)
	}
	r.Close()
	if err := f.Close(); err != nil {
		t.Fatal(err)
	}

	// Stopped, the copy falls behind; level 0 loses the files it needs (as
	// after compaction and retention); on restart the follower resumes from
	// its sidecar and bridges the gap with the snapshot.
	for range 5 {
		writeBatch(t, p, 25)
	}
	if err := rep.Snapshot(ctx); err != nil {
		t.Fatal(err)
	}
	l0, _ := filepath.Glob(filepath.Join(dir, "replica", "ltx", "0", "*.ltx"))
	if len(l0) == 0 {
		t.Fatal("no level-0 files to remove: the replica layout changed")
	}
	for _, p := range l0 {
		os.Remove(p)
	}
	writeBatch(t, p, 25) // and one more after the gap, in level 0
	if err := rep.Sync(ctx); err != nil {
		t.Fatal(err)
	}
	if err := p.QueryRow(`SELECT n FROM meta`).Scan(&want); err != nil {
		t.Fatal(err)
	}
	f2, err := Follow(ctx, copyPath, FollowOptions{URL: url, Interval: 20 * time.Millisecond, Log: log})
	if err != nil {
		t.Fatal(err)
	}
	defer f2.Close()
	r2 := openCopy(t, copyPath)
	waitApplied(t, f2, r2, want)
	if err := r2.QueryRow(`PRAGMA integrity_check`).Scan(&check); err != nil || check != "ok" {
		t.Fatalf("integrity_check after the gap: %q %v", check, err)
	}
}

func TestFollowRefusesAFileItDidNotMake(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "launchdir.db")
	if err := os.WriteFile(path, []byte("x"), 0o600); err != nil {
		t.Fatal(err)
	}
	_, err := Follow(context.Background(), path, FollowOptions{URL: fileURL(filepath.Join(dir, "replica"))})
	if err == nil {
		t.Fatal("followed into a file that is not a replica's copy")
	}
	t.Log(err)
}

func TestFollowAnEmptyReplica(t *testing.T) {
	dir := t.TempDir()
	_, err := Follow(context.Background(), filepath.Join(dir, "copy.db"), FollowOptions{URL: fileURL(filepath.Join(dir, "replica"))})
	if err == nil {
		t.Fatal("followed an empty replica")
	}
	t.Log(err)
}

// TestFollowNoticesAReplicaBehindTheCopy: the primary's replica was reset
// (a new primary replicating to the same URL); the copy is ahead of
// everything the replica holds, and the follower says so instead of
// waiting silently.
func TestFollowNoticesAReplicaBehindTheCopy(t *testing.T) {
	dir := t.TempDir()
	ctx := context.Background()
	log := slog.New(slog.NewTextHandler(os.Stderr, &slog.HandlerOptions{Level: slog.LevelError}))
	url := fileURL(filepath.Join(dir, "replica"))
	p := openPrimary(t, filepath.Join(dir, "a.db"))
	rep, err := Start(ctx, filepath.Join(dir, "a.db"), Options{URL: url, SyncInterval: 20 * time.Millisecond, Log: log})
	if err != nil {
		t.Fatal(err)
	}
	for range 6 {
		writeBatch(t, p, 5)
		if err := rep.Sync(ctx); err != nil {
			t.Fatal(err)
		}
	}
	rep.Close(ctx)
	copyPath := filepath.Join(dir, "copy.db")
	f, err := Follow(ctx, copyPath, FollowOptions{URL: url, Interval: time.Hour, Log: log})
	if err != nil {
		t.Fatal(err)
	}
	f.Close()

	os.RemoveAll(filepath.Join(dir, "replica"))
	p2 := openPrimary(t, filepath.Join(dir, "b.db"))
	rep2, err := Start(ctx, filepath.Join(dir, "b.db"), Options{URL: url, SyncInterval: 20 * time.Millisecond, Log: log})
	if err != nil {
		t.Fatal(err)
	}
	defer rep2.Close(ctx)
	writeBatch(t, p2, 5)
	if err := rep2.Sync(ctx); err != nil {
		t.Fatal(err)
	}
	f2, err := Follow(ctx, copyPath, FollowOptions{URL: url, Interval: time.Hour, Log: log})
	if err != nil {
		t.Fatal(err)
	}
	defer f2.Close()
	err = f2.Step(ctx) // the loop waits an hour: this is the only step
	if err == nil || !strings.Contains(err.Error(), "before this copy's") {
		t.Fatalf("step over a reset replica: %v", err)
	}
}
