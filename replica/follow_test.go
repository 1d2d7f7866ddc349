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

	"github.com/benbjohnson/litestream"
	"github.com/superfly/ltx"
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
	// The data is there; files that changed nothing visible may still be
	// on their way: wait for the position too.
	st := f.Status()
	for deadline := time.Now().Add(10 * time.Second); !st.InSync && time.Now().Before(deadline); st = f.Status() {
		time.Sleep(20 * time.Millisecond)
	}
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
	// The loop waits an hour: Follow's catch-up was the only step.
	if st := f2.Status(); !strings.Contains(st.Error, "before this copy's") || st.InSync {
		t.Fatalf("status over a reset replica: %+v", st)
	}
}

// TestFollowerInvalidatesReaderCaches: in WAL mode the primary's change
// counter barely moves, so a batch that carries page 1 could bring back a
// counter value an idle pooled reader still has cached; the follower's own
// counter must move on every batch regardless.
func TestFollowerInvalidatesReaderCaches(t *testing.T) {
	dir := t.TempDir()
	ctx := context.Background()
	log := slog.New(slog.NewTextHandler(os.Stderr, &slog.HandlerOptions{Level: slog.LevelError}))
	p := openPrimary(t, filepath.Join(dir, "p.db"))
	url := fileURL(filepath.Join(dir, "replica"))
	rep, err := Start(ctx, filepath.Join(dir, "p.db"), Options{URL: url, SyncInterval: time.Hour, Log: log})
	if err != nil {
		t.Fatal(err)
	}
	defer rep.Close(ctx)
	exec := func(q string) {
		t.Helper()
		if _, err := p.Exec(q); err != nil {
			t.Fatal(err)
		}
		if err := rep.Sync(ctx); err != nil {
			t.Fatal(err)
		}
	}
	exec(`CREATE TABLE kv(k INTEGER PRIMARY KEY, v TEXT); INSERT INTO kv VALUES (1, 'v1'); PRAGMA user_version = 1`)
	f, err := Follow(ctx, filepath.Join(dir, "copy.db"), FollowOptions{URL: url, Interval: time.Hour, Log: log})
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	r := openCopy(t, filepath.Join(dir, "copy.db"))
	r.SetMaxOpenConns(1) // one pooled reader, its page cache kept between reads
	read := func() string {
		t.Helper()
		var v string
		if err := r.QueryRow(`SELECT v FROM kv WHERE k = 1`).Scan(&v); err != nil {
			t.Fatal(err)
		}
		return v
	}
	for i, q := range []string{
		`UPDATE kv SET v = 'v2'`,
		`UPDATE kv SET v = 'v3'; PRAGMA user_version = 3`, // rewrites page 1
		`UPDATE kv SET v = 'v4'`,
		`UPDATE kv SET v = 'v5'`,
		`UPDATE kv SET v = 'v6'; PRAGMA user_version = 6`,
		`UPDATE kv SET v = 'v7'`,
	} {
		exec(q)
		if _, err := f.Step(ctx); err != nil {
			t.Fatal(err)
		}
		if got, want := read(), fmt.Sprintf("v%d", i+2); got != want {
			t.Fatalf("after %q the pooled reader reads %q, want %q", q, got, want)
		}
	}
}

// TestFollowRepairsAHalfWrittenCopy: a crash in the middle of a batch
// leaves part of its pages in the copy and the marker naming the batch; the
// next start redoes it before serving, and refuses to serve when it cannot.
func TestFollowRepairsAHalfWrittenCopy(t *testing.T) {
	dir := t.TempDir()
	ctx := context.Background()
	log := slog.New(slog.NewTextHandler(os.Stderr, &slog.HandlerOptions{Level: slog.LevelError}))
	p := openPrimary(t, filepath.Join(dir, "p.db"))
	repDir := filepath.Join(dir, "replica")
	url := fileURL(repDir)
	rep, err := Start(ctx, filepath.Join(dir, "p.db"), Options{URL: url, SyncInterval: time.Hour, Log: log})
	if err != nil {
		t.Fatal(err)
	}
	defer rep.Close(ctx)
	writeBatch(t, p, 20)
	if err := rep.Sync(ctx); err != nil {
		t.Fatal(err)
	}
	copyPath := filepath.Join(dir, "copy.db")
	f, err := Follow(ctx, copyPath, FollowOptions{URL: url, Interval: time.Hour, Log: log})
	if err != nil {
		t.Fatal(err)
	}
	at := f.Status().AppliedTXID
	f.Close()
	writeBatch(t, p, 60) // one transaction of ~60 pages
	if err := rep.Sync(ctx); err != nil {
		t.Fatal(err)
	}
	// The crash: half of the next file's pages written, the marker set.
	files, _ := filepath.Glob(filepath.Join(repDir, "ltx", "0", "*.ltx"))
	var next string
	for _, fn := range files {
		var lo, hi uint64
		fmt.Sscanf(filepath.Base(fn), "%016x-%016x.ltx", &lo, &hi)
		if lo == at+1 {
			next = fn
			if err := litestream.WriteTXIDFile(copyPath+"-applying", ltx.TXID(hi)); err != nil {
				t.Fatal(err)
			}
		}
	}
	if next == "" {
		t.Fatalf("no level-0 file after %d in %v", at, files)
	}
	src, err := os.Open(next)
	if err != nil {
		t.Fatal(err)
	}
	dec := ltx.NewDecoder(src)
	if err := dec.DecodeHeader(); err != nil {
		t.Fatal(err)
	}
	dst, err := os.OpenFile(copyPath, os.O_RDWR, 0)
	if err != nil {
		t.Fatal(err)
	}
	data := make([]byte, dec.Header().PageSize)
	for i := 0; ; i++ {
		var ph ltx.PageHeader
		if err := dec.DecodePage(&ph, data); err != nil {
			break
		}
		if i%2 == 0 {
			dst.WriteAt(data, int64(ph.Pgno-1)*int64(len(data)))
		}
	}
	dst.Close()
	src.Close()

	// With the replica out of reach the copy is not served.
	if _, err := Follow(ctx, copyPath, FollowOptions{URL: fileURL(filepath.Join(dir, "elsewhere")), Interval: time.Hour, Log: log}); err == nil ||
		!strings.Contains(err.Error(), "half-written") {
		t.Fatalf("a half-written copy with no replica: %v", err)
	}
	// With the replica, the batch is redone before Follow returns.
	f2, err := Follow(ctx, copyPath, FollowOptions{URL: url, Interval: time.Hour, Log: log})
	if err != nil {
		t.Fatal(err)
	}
	defer f2.Close()
	r := openCopy(t, copyPath)
	var want int
	p.QueryRow(`SELECT n FROM meta`).Scan(&want)
	if n, err := readConsistent(ctx, r); err != nil || n != want {
		t.Fatalf("after the repair: %d rows, %v; want %d", n, err, want)
	}
	var check string
	if err := r.QueryRow(`PRAGMA integrity_check`).Scan(&check); err != nil || check != "ok" {
		t.Fatalf("integrity_check: %q %v", check, err)
	}
	if _, err := os.Stat(copyPath + "-applying-txid"); !os.IsNotExist(err) {
		t.Fatalf("marker left: %v", err)
	}
}
