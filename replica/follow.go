package replica

import (
	"bufio"
	"context"
	"database/sql"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"os"
	"path/filepath"
	"sync"
	"time"

	"github.com/benbjohnson/litestream"
	"github.com/superfly/ltx"
)

// A read replica keeps a local copy of the primary's database current by
// applying the LTX files the primary's Litestream ships to the replica URL.
//
// Litestream's own follow mode (Replica.Restore with Follow) is not used
// because it cannot run inside the process that serves reads from the copy:
// it excludes readers with POSIX fcntl locks, which never conflict within
// one process (and its unlock drops the locks SQLite holds for the same
// file), so in-process readers could see half-applied transactions; it also
// stops silently at a gap it cannot bridge (litestream issue #1515). The
// Follower below uses the library for everything but the page writes: the
// replica client lists and reads LTX files, the ltx decoder verifies them,
// and Replica.Restore builds the first copy. Readers are excluded through
// SQLite itself: the follower holds BEGIN EXCLUSIVE on a connection of its
// own while it writes, so every reader connection in the process waits
// (busy_timeout) and never sees a torn page.
//
// The copy is kept in rollback-journal mode (header bytes 18-19 = 1), where
// SQLite checks the file change counter at the start of each read
// transaction; the follower bumps that counter after every batch, so
// readers drop their page caches and see the new state.

// FollowOptions configure a Follower.
type FollowOptions struct {
	URL      string        // the primary's replica: file:///dir or s3://…
	Interval time.Duration // how often to poll for new transactions (default 1s)
	// DeepCheckEvery is how often an idle follower also looks at the
	// compacted levels, to notice it fell behind what level 0 still holds
	// (default 30s).
	DeepCheckEvery time.Duration
	Log            *slog.Logger
}

// Follower keeps a read-only copy of the primary's database current.
type Follower struct {
	opts   FollowOptions
	path   string
	client litestream.ReplicaClient
	file   *os.File // held open for the follower's life: closing any descriptor of the file would drop this process's fcntl locks on it
	lock   *sql.Conn
	lockDB *sql.DB
	log    *slog.Logger
	stop   context.CancelFunc
	done   chan struct{}

	mu        sync.Mutex
	txid      ltx.TXID
	remote    ltx.TXID
	caughtUp  time.Time
	appliedAt time.Time
	lastDeep  time.Time
	held      bool // the exclusive lock is kept after a half-written batch (see exclusive)
	err       string
	onApply   []func()
}

// FollowStatus is what a replica's /healthz reports.
type FollowStatus struct {
	Role          string  `json:"role"` // "replica"
	Primary       string  `json:"primary,omitempty"`
	Replica       string  `json:"replica"`
	AppliedTXID   uint64  `json:"applied_txid"`
	ReplicaTXID   uint64  `json:"replica_txid"`
	InSync        bool    `json:"in_sync"`
	LagSeconds    float64 `json:"lag_seconds"`
	LastAppliedAt string  `json:"last_applied_at,omitempty"`
	Error         string  `json:"error,omitempty"`
	PollInterval  string  `json:"poll_interval"`
}

// maxBatch bounds how many LTX files one exclusive lock applies, so readers
// never wait long behind a follower catching up.
const maxBatch = 32

// Follow makes path a copy of the replica's latest state (restoring it if it
// does not exist yet, resuming if it is a copy this follower made before)
// and keeps it current until Close. It returns once the copy is readable.
func Follow(ctx context.Context, path string, o FollowOptions) (*Follower, error) {
	if o.Interval <= 0 {
		o.Interval = time.Second
	}
	if o.DeepCheckEvery <= 0 {
		o.DeepCheckEvery = 30 * time.Second
	}
	if o.Log == nil {
		o.Log = slog.Default()
	}
	client, err := litestream.NewReplicaClientFromURL(o.URL)
	if err != nil {
		return nil, fmt.Errorf("replica %s: %w", Redact(o.URL), err)
	}
	client.SetLogger(o.Log.With("component", "litestream"))
	if err := client.Init(ctx); err != nil {
		return nil, fmt.Errorf("replica %s: %w", Redact(o.URL), err)
	}
	f := &Follower{opts: o, path: path, client: client, log: o.Log, done: make(chan struct{}), caughtUp: time.Now()}
	if err := f.prepare(ctx); err != nil {
		return nil, err
	}
	if err := f.openFile(ctx); err != nil {
		return nil, err
	}
	if err := f.catchUp(ctx); err != nil {
		f.closeFile()
		return nil, err
	}
	bg, stop := context.WithCancel(context.Background())
	f.stop = stop
	go f.loop(bg)
	f.log.Info("following the primary", "replica", Redact(o.URL), "txid", uint64(f.txid), "interval", o.Interval)
	return f, nil
}

// prepare makes sure path holds a copy and knows its position.
func (f *Follower) prepare(ctx context.Context) error {
	if _, err := os.Stat(f.path); err == nil {
		txid, err := litestream.ReadTXIDFile(f.path)
		if err != nil {
			return err
		}
		if txid == 0 {
			return fmt.Errorf("%s exists but is not a replica's copy (no %s): move it away or pick another -db", f.path, filepath.Base(litestream.TXIDPath(f.path)))
		}
		f.txid = txid
		f.removeLeftovers()
		// Before any SQLite connection opens it: a crash after a batch
		// wrote the primary's page 1 (WAL mode in bytes 18-19) and before
		// the stamp would make SQLite switch the copy to WAL, behind which
		// the follower's page writes are invisible.
		return stampFile(f.path)
	}
	f.removeLeftovers()
	tmp := f.path + ".follow-init"
	os.Remove(tmp)
	defer os.Remove(tmp)
	txid, err := f.restoreLatest(ctx, tmp)
	if err != nil {
		return err
	}
	// The sidecar first: a crash before the rename leaves no copy, and the
	// next start restores again; after it, the copy is whole and known.
	if err := litestream.WriteTXIDFile(f.path, txid); err != nil {
		return err
	}
	if err := os.Rename(tmp, f.path); err != nil {
		return err
	}
	f.txid = txid
	return nil
}

// removeLeftovers deletes what another life left beside the copy: a WAL
// and its index (a copy is never in WAL mode), a rollback journal, and
// half-downloaded LTX files.
func (f *Follower) removeLeftovers() {
	for _, ext := range []string{"-wal", "-shm", "-journal"} {
		os.Remove(f.path + ext)
	}
	tmps, _ := filepath.Glob(f.path + ".ltx-*")
	for _, t := range tmps {
		os.Remove(t)
	}
}

// stampFile stamps the copy at path (see stampHeader).
func stampFile(path string) error {
	w, err := os.OpenFile(path, os.O_RDWR, 0)
	if err != nil {
		return err
	}
	defer w.Close()
	c, err := fileCounter(w)
	if err != nil {
		return err
	}
	if err := stampHeader(w, c+1); err != nil {
		return err
	}
	return w.Sync()
}

// restoreLatest writes the replica's latest state to out (which must not
// exist), in rollback-journal mode, and returns its TXID.
func (f *Follower) restoreLatest(ctx context.Context, out string) (ltx.TXID, error) {
	infos, err := litestream.CalcRestorePlan(ctx, f.client, 0, time.Time{}, f.log)
	if err != nil {
		if IsNoBackup(err) {
			return 0, fmt.Errorf("replica %s holds no database yet: start the primary with -replicate first", Redact(f.opts.URL))
		}
		return 0, fmt.Errorf("replica %s: %w", Redact(f.opts.URL), err)
	}
	txid := infos[len(infos)-1].MaxTXID
	r := litestream.NewReplicaWithClient(nil, f.client)
	opt := litestream.NewRestoreOptions()
	opt.OutputPath = out
	opt.TXID = txid
	if err := r.Restore(ctx, opt); err != nil {
		return 0, fmt.Errorf("restore from %s: %w", Redact(f.opts.URL), err)
	}
	w, err := os.OpenFile(out, os.O_RDWR, 0)
	if err != nil {
		return 0, err
	}
	defer w.Close()
	c, err := fileCounter(w)
	if err != nil {
		return 0, err
	}
	if err := stampHeader(w, c+1); err != nil {
		return 0, err
	}
	return txid, w.Sync()
}

// openFile opens the copy for page writes and the SQLite connection whose
// exclusive lock keeps readers out while pages change.
func (f *Follower) openFile(ctx context.Context) error {
	file, err := os.OpenFile(f.path, os.O_RDWR, 0)
	if err != nil {
		return err
	}
	lockDB, err := sql.Open("sqlite", "file:"+f.path+"?_pragma=busy_timeout(30000)")
	if err != nil {
		file.Close()
		return err
	}
	lockDB.SetMaxOpenConns(1)
	conn, err := lockDB.Conn(ctx)
	if err != nil {
		lockDB.Close()
		file.Close()
		return err
	}
	f.file, f.lockDB, f.lock = file, lockDB, conn
	return nil
}

// OnApply registers fn to run after each applied batch (e.g. to retire
// cached reads).
func (f *Follower) OnApply(fn func()) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.onApply = append(f.onApply, fn)
}

func (f *Follower) loop(ctx context.Context) {
	defer close(f.done)
	t := time.NewTicker(f.opts.Interval)
	defer t.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case <-t.C:
		}
		for { // a full batch means more may be waiting: no need to wait a tick
			n, err := f.Step(ctx)
			if ctx.Err() != nil {
				return
			}
			f.noteErr(err)
			if err != nil || n < maxBatch {
				break
			}
		}
	}
}

// catchUp applies what the replica holds before the copy is served. A copy
// left half-written by a crash (the marker file names the batch) must be
// repaired first: if the replica cannot be reached, starting fails rather
// than serving it.
func (f *Follower) catchUp(ctx context.Context) error {
	marker, err := litestream.ReadTXIDFile(f.markerPath())
	if err != nil {
		return err
	}
	for {
		n, err := f.Step(ctx)
		if err != nil && marker > f.txid {
			return fmt.Errorf("%s was left half-written by a crash (applying up to %s) and cannot be repaired now: %v", f.path, marker, err)
		}
		if err != nil {
			f.noteErr(err) // serve the last whole state; the loop retries
			return nil
		}
		if n < maxBatch && f.txid >= marker {
			os.Remove(litestream.TXIDPath(f.markerPath()))
			return nil
		}
	}
}

// markerPath names the marker that says a batch is being written (its
// sidecar, <db>-applying-txid, holds the batch's last TXID): while it
// exists the copy may hold part of that batch.
func (f *Follower) markerPath() string { return f.path + "-applying" }

func (f *Follower) noteErr(err error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	msg := ""
	if err != nil {
		msg = err.Error()
	}
	if msg != f.err {
		if msg != "" {
			f.log.Error("following the primary failed; still serving the last applied state", "replica", Redact(f.opts.URL), "err", msg)
		} else {
			f.log.Info("following the primary again", "replica", Redact(f.opts.URL))
		}
		f.err = msg
	}
}

// Step applies whatever the replica holds beyond the copy's position:
// level-0 files in order, or where level 0 has a gap (its files are deleted
// once compacted) the compacted file or snapshot that covers the position.
// It returns how many files it applied.
func (f *Follower) Step(ctx context.Context) (int, error) {
	if f.held { // a batch failed half-written: redo it before anything else
		f.lastDeep = time.Time{}
	}
	files, gap, err := f.pending(ctx)
	if err != nil {
		return 0, err
	}
	if len(files) == 0 && (gap || time.Since(f.lastDeep) >= f.opts.DeepCheckEvery) {
		f.lastDeep = time.Now()
		var behind bool
		files, behind, err = f.bridge(ctx)
		if err != nil {
			return 0, err
		}
		if len(files) == 0 && behind {
			// Not seen with a consistent replica: a snapshot (which starts
			// at transaction 1) covers any position it is newer than.
			return 0, fmt.Errorf("the replica holds transactions after %s but no file continues from it; delete %s and %s and restart to copy the latest state",
				f.txid, f.path, litestream.TXIDPath(f.path))
		}
	}
	if len(files) == 0 {
		if f.held {
			return 0, errors.New("the copy was left half-written and the replica no longer holds the batch to redo")
		}
		f.mu.Lock()
		f.caughtUp = time.Now()
		f.mu.Unlock()
		return 0, nil
	}
	return len(files), f.applyBatch(ctx, files)
}

// pending lists the level-0 files that follow the copy's position without
// a gap; gap reports that level 0 continues only after a missing range.
func (f *Follower) pending(ctx context.Context) (files []*ltx.FileInfo, gap bool, err error) {
	itr, err := f.client.LTXFiles(ctx, 0, f.txid+1, false)
	if err != nil {
		return nil, false, fmt.Errorf("list level 0: %w", err)
	}
	defer itr.Close()
	next := f.txid + 1
	for itr.Next() && len(files) < maxBatch {
		info := itr.Item()
		f.seen(info.MaxTXID)
		if info.MaxTXID < next {
			continue
		}
		if info.MinTXID > next {
			return files, len(files) == 0, itr.Err()
		}
		files = append(files, info)
		next = info.MaxTXID + 1
	}
	return files, false, itr.Err()
}

// bridge looks through every level for the file that covers the copy's
// next transaction with the most progress (level 0 is listed again from
// its start to learn the replica's newest transaction). behind reports that the
// replica holds transactions beyond the copy's position.
func (f *Follower) bridge(ctx context.Context) (files []*ltx.FileInfo, behind bool, err error) {
	next := f.txid + 1
	var best *ltx.FileInfo
	var newest ltx.TXID
	for level := 0; level <= litestream.SnapshotLevel; level++ {
		itr, err := f.client.LTXFiles(ctx, level, 0, false)
		if err != nil {
			return nil, false, fmt.Errorf("list level %d: %w", level, err)
		}
		for itr.Next() {
			info := itr.Item()
			f.seen(info.MaxTXID)
			newest = max(newest, info.MaxTXID)
			if info.MaxTXID >= next {
				behind = true
			}
			// A compacted file holds the final image of every page changed
			// in its range, so it applies over any position inside it.
			// A snapshot (MinTXID 1) holds every page and so applies too.
			if info.MinTXID <= next && info.MaxTXID >= next && (best == nil || info.MaxTXID > best.MaxTXID) {
				best = info
			}
		}
		err = itr.Err()
		itr.Close()
		if err != nil {
			return nil, false, fmt.Errorf("list level %d: %w", level, err)
		}
	}
	if best != nil {
		return []*ltx.FileInfo{best}, true, nil
	}
	if newest == 0 && f.txid > 0 {
		return nil, false, fmt.Errorf("the replica %s holds no files at all (emptied, or the wrong location?); this copy is at %s", Redact(f.opts.URL), f.txid)
	}
	if newest > 0 && newest < f.txid {
		return nil, false, fmt.Errorf("the replica ends at transaction %s, before this copy's %s (was the primary restored or its replica reset?); delete %s and %s and restart to copy it again",
			newest, f.txid, f.path, litestream.TXIDPath(f.path))
	}
	return nil, behind, nil
}

func (f *Follower) seen(txid ltx.TXID) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.remote = max(f.remote, txid)
}

// fetched is one LTX file downloaded and verified, ready to apply.
type fetched struct {
	info *ltx.FileInfo
	tmp  *os.File
}

// applyBatch downloads and verifies every file first (no lock held, a bad
// file changes nothing), then writes them under one exclusive lock.
func (f *Follower) applyBatch(ctx context.Context, files []*ltx.FileInfo) error {
	var ready []fetched
	defer func() {
		for _, r := range ready {
			r.tmp.Close()
			os.Remove(r.tmp.Name())
		}
	}()
	for _, info := range files {
		tmp, err := f.fetch(ctx, info)
		if err != nil {
			return err
		}
		ready = append(ready, fetched{info, tmp})
	}
	last := ready[len(ready)-1].info.MaxTXID
	err := f.exclusive(ctx, func() error {
		// The counter readers last saw, before page 1 may be overwritten
		// with the primary's (which in WAL mode barely moves and could
		// bring back a value a reader has cached).
		counter, err := fileCounter(f.file)
		if err != nil {
			return intact(err)
		}
		// What the batch overwrites is saved first: a batch that fails
		// half-way (a full disk) is rolled back and the copy keeps serving
		// its last whole state. Failing to save touches nothing.
		undo, err := f.saveUndo(ready)
		if err != nil {
			return intact(fmt.Errorf("save the pages the batch replaces: %w", err))
		}
		defer func() { undo.Close(); os.Remove(undo.Name()) }()
		if err := litestream.WriteTXIDFile(f.markerPath(), last); err != nil {
			return intact(err)
		}
		apply := func() error {
			for _, r := range ready {
				if err := f.writeLTX(r.tmp); err != nil {
					return fmt.Errorf("apply %s-%s: %w", r.info.MinTXID, r.info.MaxTXID, err)
				}
			}
			if err := stampHeader(f.file, counter+1); err != nil {
				return err
			}
			return f.file.Sync()
		}
		if err := apply(); err != nil {
			if rerr := f.rollback(undo); rerr != nil {
				return fmt.Errorf("%w; rolling the batch back failed too: %v", err, rerr)
			}
			os.Remove(litestream.TXIDPath(f.markerPath()))
			return intact(fmt.Errorf("%w (rolled back: still serving the last whole state)", err))
		}
		return nil
	})
	if err != nil {
		return err
	}
	if err := f.advance(last); err != nil {
		return err
	}
	return os.Remove(litestream.TXIDPath(f.markerPath()))
}

// fetch downloads one LTX file beside the copy and verifies its checksums.
func (f *Follower) fetch(ctx context.Context, info *ltx.FileInfo) (*os.File, error) {
	rc, err := f.client.OpenLTXFile(ctx, info.Level, info.MinTXID, info.MaxTXID, 0, 0)
	if err != nil {
		return nil, fmt.Errorf("open %s-%s: %w", info.MinTXID, info.MaxTXID, err)
	}
	defer rc.Close()
	tmp, err := os.CreateTemp(filepath.Dir(f.path), filepath.Base(f.path)+".ltx-*")
	if err != nil {
		return nil, err
	}
	fail := func(err error) (*os.File, error) {
		tmp.Close()
		os.Remove(tmp.Name())
		return nil, err
	}
	if _, err := io.Copy(tmp, rc); err != nil {
		return fail(fmt.Errorf("download %s-%s: %w", info.MinTXID, info.MaxTXID, err))
	}
	if _, err := tmp.Seek(0, io.SeekStart); err != nil {
		return fail(err)
	}
	if err := ltx.NewDecoder(tmp).Verify(); err != nil {
		return fail(fmt.Errorf("verify %s-%s: %w", info.MinTXID, info.MaxTXID, err))
	}
	if _, err := tmp.Seek(0, io.SeekStart); err != nil {
		return fail(err)
	}
	return tmp, nil
}

// exclusive runs fn while this follower holds SQLite's exclusive lock on
// the copy: no reader connection is inside a read transaction meanwhile.
// If fn fails, pages may be half-written, so the lock is kept (readers
// wait, then fail, rather than read a torn copy) until a later Step redoes
// the batch.
func (f *Follower) exclusive(ctx context.Context, fn func() error) error {
	if !f.held {
		if _, err := f.lock.ExecContext(ctx, "BEGIN EXCLUSIVE"); err != nil {
			return fmt.Errorf("lock the copy: %w", err)
		}
	}
	if err := fn(); err != nil {
		var ok *intactErr
		if !errors.As(err, &ok) {
			f.held = true
			return fmt.Errorf("%w (the copy stays locked, reads wait, until the batch is redone)", err)
		}
		f.held = false // the copy is whole: readers go on
		if _, uerr := f.lock.ExecContext(context.WithoutCancel(ctx), "ROLLBACK"); uerr != nil {
			return fmt.Errorf("%w; unlock the copy: %v", ok.err, uerr)
		}
		return ok.err
	}
	f.held = false
	// Nothing was written through SQLite: ROLLBACK only releases the lock.
	if _, err := f.lock.ExecContext(context.WithoutCancel(ctx), "ROLLBACK"); err != nil {
		return fmt.Errorf("unlock the copy: %w", err)
	}
	return nil
}

// intactErr is a failed batch that left the copy whole (nothing written,
// or rolled back): the lock is released and readers go on.
type intactErr struct{ err error }

func (e *intactErr) Error() string { return e.err.Error() }
func (e *intactErr) Unwrap() error { return e.err }

func intact(err error) error { return &intactErr{err} }

// saveUndo writes, beside the copy, the copy's size and the current
// content of every existing page the batch will overwrite or cut off, and
// syncs it.
// Format: page size (4 bytes), file size (8), then page number (4) and
// page for each.
func (f *Follower) saveUndo(ready []fetched) (*os.File, error) {
	pages := map[uint32]bool{}
	var pageSize, minCommit uint32
	for _, r := range ready {
		dec := ltx.NewDecoder(r.tmp)
		if err := dec.DecodeHeader(); err != nil {
			return nil, err
		}
		pageSize = dec.Header().PageSize
		if c := dec.Header().Commit; c > 0 && (minCommit == 0 || c < minCommit) {
			minCommit = c
		}
		data := make([]byte, pageSize)
		for {
			var ph ltx.PageHeader
			if err := dec.DecodePage(&ph, data); err == io.EOF {
				break
			} else if err != nil {
				return nil, err
			}
			pages[ph.Pgno] = true
		}
		if _, err := r.tmp.Seek(0, io.SeekStart); err != nil {
			return nil, err
		}
	}
	st, err := f.file.Stat()
	if err != nil {
		return nil, err
	}
	// Pages a batch cuts off (the database shrank) are replaced too.
	if minCommit > 0 {
		for pgno := minCommit + 1; int64(pgno)*int64(pageSize) <= st.Size(); pgno++ {
			pages[pgno] = true
		}
	}
	u, err := os.CreateTemp(filepath.Dir(f.path), filepath.Base(f.path)+".undo-*")
	if err != nil {
		return nil, err
	}
	fail := func(err error) (*os.File, error) {
		u.Close()
		os.Remove(u.Name())
		return nil, err
	}
	w := bufio.NewWriterSize(u, 1<<20)
	var hdr [12]byte
	binary.BigEndian.PutUint32(hdr[:4], pageSize)
	binary.BigEndian.PutUint64(hdr[4:], uint64(st.Size()))
	w.Write(hdr[:])
	buf := make([]byte, 4+pageSize)
	for pgno := range pages {
		off := int64(pgno-1) * int64(pageSize)
		if off+int64(pageSize) > st.Size() {
			continue // a new page: the size cut restores it
		}
		binary.BigEndian.PutUint32(buf[:4], pgno)
		if _, err := f.file.ReadAt(buf[4:], off); err != nil {
			return fail(err)
		}
		if _, err := w.Write(buf); err != nil {
			return fail(err)
		}
	}
	if err := w.Flush(); err != nil {
		return fail(err)
	}
	if err := u.Sync(); err != nil {
		return fail(err)
	}
	return u, nil
}

// rollback puts back what saveUndo saved: the pages, then the size.
func (f *Follower) rollback(u *os.File) error {
	if _, err := u.Seek(0, io.SeekStart); err != nil {
		return err
	}
	r := bufio.NewReaderSize(u, 1<<20)
	var hdr [12]byte
	if _, err := io.ReadFull(r, hdr[:]); err != nil {
		return err
	}
	pageSize := binary.BigEndian.Uint32(hdr[:4])
	size := int64(binary.BigEndian.Uint64(hdr[4:]))
	// The size first: pages cut off by the batch come back within it.
	if err := f.file.Truncate(size); err != nil {
		return err
	}
	buf := make([]byte, 4+pageSize)
	for {
		if _, err := io.ReadFull(r, buf); err == io.EOF {
			break
		} else if err != nil {
			return err
		}
		pgno := binary.BigEndian.Uint32(buf[:4])
		if _, err := f.file.WriteAt(buf[4:], int64(pgno-1)*int64(pageSize)); err != nil {
			return err
		}
	}
	return f.file.Sync()
}

// writeLTX writes one verified LTX file's pages into the copy and cuts the
// file to the database size after it.
func (f *Follower) writeLTX(r io.Reader) error {
	dec := ltx.NewDecoder(r)
	if err := dec.DecodeHeader(); err != nil {
		return err
	}
	hdr := dec.Header()
	data := make([]byte, hdr.PageSize)
	for {
		var ph ltx.PageHeader
		if err := dec.DecodePage(&ph, data); err == io.EOF {
			break
		} else if err != nil {
			return err
		}
		if _, err := f.file.WriteAt(data, int64(ph.Pgno-1)*int64(hdr.PageSize)); err != nil {
			return err
		}
	}
	if hdr.Commit > 0 {
		if err := f.file.Truncate(int64(hdr.Commit) * int64(hdr.PageSize)); err != nil {
			return err
		}
	}
	return dec.Close()
}

// fileCounter reads the copy's change counter (header bytes 24-27).
func fileCounter(r io.ReaderAt) (uint32, error) {
	var b [4]byte
	if _, err := r.ReadAt(b[:], 24); err != nil {
		return 0, fmt.Errorf("read header: %w", err)
	}
	return binary.BigEndian.Uint32(b[:]), nil
}

// stampHeader puts a SQLite file in rollback-journal mode (bytes 18-19)
// and sets its change counter (24-27), which is what a rollback-mode
// reader compares to decide its page cache is stale: the caller passes
// one more than the value readers last saw. The in-header page count
// (28-31) is set from the file size and marked valid by copying the
// counter to 92-95 (the primary, in WAL mode, may not have rewritten page 1
// in the transactions just applied).
func stampHeader(w *os.File, counter uint32) error {
	var h [100]byte
	if _, err := w.ReadAt(h[:], 0); err != nil {
		return fmt.Errorf("read header: %w", err)
	}
	if string(h[:16]) != "SQLite format 3\x00" {
		return errors.New("not a SQLite database")
	}
	pageSize := int64(binary.BigEndian.Uint16(h[16:]))
	if pageSize == 1 {
		pageSize = 65536
	}
	st, err := w.Stat()
	if err != nil {
		return err
	}
	h[18], h[19] = 1, 1
	binary.BigEndian.PutUint32(h[24:], counter)
	binary.BigEndian.PutUint32(h[28:], uint32(st.Size()/pageSize))
	binary.BigEndian.PutUint32(h[92:], counter)
	_, err = w.WriteAt(h[:], 0)
	return err
}

// advance records the new position (the sidecar makes a restart resume)
// and tells the listeners.
func (f *Follower) advance(txid ltx.TXID) error {
	if err := litestream.WriteTXIDFile(f.path, txid); err != nil {
		return err
	}
	f.mu.Lock()
	f.txid = txid
	f.remote = max(f.remote, txid)
	f.appliedAt = time.Now()
	fns := f.onApply
	f.mu.Unlock()
	for _, fn := range fns {
		fn()
	}
	return nil
}

// Status reports the copy's position against the replica's.
func (f *Follower) Status() FollowStatus {
	f.mu.Lock()
	defer f.mu.Unlock()
	st := FollowStatus{Role: "replica", Replica: Redact(f.opts.URL), AppliedTXID: uint64(f.txid),
		ReplicaTXID: uint64(max(f.remote, f.txid)), Error: f.err, PollInterval: f.opts.Interval.String()}
	st.InSync = f.remote <= f.txid && f.err == ""
	if !st.InSync {
		st.LagSeconds = time.Since(f.caughtUp).Seconds()
	}
	if !f.appliedAt.IsZero() {
		st.LastAppliedAt = f.appliedAt.UTC().Format(time.RFC3339Nano)
	}
	return st
}

// Close stops following. Call it after the readers' pool is closed: closing
// the copy's descriptor drops every fcntl lock this process holds on it.
func (f *Follower) Close() error {
	f.stop()
	<-f.done
	return f.closeFile()
}

func (f *Follower) closeFile() error {
	return errors.Join(f.lock.Close(), f.lockDB.Close(), f.file.Close())
}
