// Package replica ships the SQLite file's changes to a replica (a local
// directory or S3-compatible storage) with Litestream used as a library,
// and restores from one (latest state or a point in time). Litestream reads
// the WAL through modernc.org/sqlite, so the binary stays cgo-free.
package replica

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net/url"
	"os"
	"path/filepath"
	"sync"
	"time"

	"github.com/benbjohnson/litestream"
	_ "github.com/benbjohnson/litestream/file" // file:// replicas
	_ "github.com/benbjohnson/litestream/s3"   // s3:// replicas (credentials from AWS_* variables)
)

// Options configure continuous replication.
type Options struct {
	URL string // file:///dir or s3://bucket/prefix?endpoint=…&region=…
	// SyncInterval is how often new WAL frames are shipped: the most a lost
	// disk can cost. Default 1s.
	SyncInterval time.Duration
	// SnapshotInterval is how often a full snapshot is written (restores
	// replay changes since the last one); SnapshotRetention how long
	// snapshots, and so point-in-time restore, reach back. Default 24h each.
	SnapshotInterval, SnapshotRetention time.Duration
	// BehindAfter is the lag after which the log warns that replication
	// is behind. Default 30s.
	BehindAfter time.Duration
	Log         *slog.Logger
}

// Replicator replicates one database file while the server runs.
type Replicator struct {
	opts  Options
	store *litestream.Store
	db    *litestream.DB
	log   *slog.Logger
	stop  context.CancelFunc
	done  chan struct{}

	mu       sync.Mutex
	caughtUp time.Time // last time the replica held every local transaction
	behind   bool
	logged   string    // the error last logged by watch
	err      string    // the last sync error, kept until a later successful sync
	errAt    time.Time // when err was seen
}

// Status is what /healthz reports about replication.
type Status struct {
	Replica      string  `json:"replica"`
	LocalTXID    uint64  `json:"local_txid"`
	ReplicaTXID  uint64  `json:"replica_txid"`
	InSync       bool    `json:"in_sync"`
	LagSeconds   float64 `json:"lag_seconds"`
	LastSyncAt   string  `json:"last_sync_at,omitempty"`
	Behind       bool    `json:"behind"`
	Error        string  `json:"error,omitempty"`
	SyncInterval string  `json:"sync_interval"`
}

func (o *Options) defaults() {
	if o.SyncInterval <= 0 {
		o.SyncInterval = time.Second
	}
	if o.SnapshotInterval <= 0 {
		o.SnapshotInterval = litestream.DefaultSnapshotInterval
	}
	if o.SnapshotRetention <= 0 {
		o.SnapshotRetention = litestream.DefaultSnapshotRetention
	}
	if o.BehindAfter <= 0 {
		o.BehindAfter = 30 * time.Second
	}
	if o.Log == nil {
		o.Log = slog.Default()
	}
}

// CheckURL validates a replica URL without contacting it.
func CheckURL(raw string) error {
	u, err := url.Parse(raw)
	if err != nil {
		return err
	}
	switch u.Scheme {
	case "file":
		if u.Path == "" || u.Host != "" {
			return errors.New("want file:///absolute/dir")
		}
	case "s3":
		if u.Host == "" {
			return errors.New("want s3://bucket/prefix?endpoint=…&region=…")
		}
	default:
		return fmt.Errorf("unsupported scheme %q: file or s3", u.Scheme)
	}
	_, err = litestream.NewReplicaClientFromURL(raw)
	return err
}

// Redact drops credentials from a replica URL for logs and /healthz.
func Redact(raw string) string {
	u, err := url.Parse(raw)
	if err != nil {
		return "(unparsable)"
	}
	u.User = nil
	return u.String()
}

func newReplica(db *litestream.DB, raw string, interval time.Duration) (*litestream.Replica, error) {
	client, err := litestream.NewReplicaClientFromURL(raw)
	if err != nil {
		return nil, fmt.Errorf("replica %s: %w", Redact(raw), err)
	}
	r := litestream.NewReplicaWithClient(db, client)
	r.SyncInterval = interval
	return r, nil
}

// Start replicates the database at path (already created and in WAL mode)
// until Close.
func Start(ctx context.Context, path string, o Options) (*Replicator, error) {
	o.defaults()
	db := litestream.NewDB(path)
	db.MonitorInterval = o.SyncInterval
	db.Logger = o.Log.With("component", "litestream")
	r, err := newReplica(db, o.URL, o.SyncInterval)
	if err != nil {
		return nil, err
	}
	db.Replica = r
	store := litestream.NewStore([]*litestream.DB{db}, litestream.DefaultCompactionLevels)
	store.Logger = db.Logger
	store.SnapshotInterval = o.SnapshotInterval
	store.SnapshotRetention = o.SnapshotRetention
	store.SetShutdownSyncTimeout(10 * time.Second)
	if err := store.Open(ctx); err != nil {
		return nil, fmt.Errorf("start replication to %s: %w", Redact(o.URL), err)
	}
	bg, stop := context.WithCancel(context.Background())
	rep := &Replicator{opts: o, store: store, db: db, log: o.Log, stop: stop, done: make(chan struct{}), caughtUp: time.Now()}
	go rep.watch(bg)
	o.Log.Info("replicating", "replica", Redact(o.URL), "sync_interval", o.SyncInterval)
	return rep, nil
}

// watch tracks lag and logs when replication falls behind, fails, or
// recovers. Serving never stops because of replication.
func (r *Replicator) watch(ctx context.Context) {
	defer close(r.done)
	t := time.NewTicker(min(r.opts.SyncInterval, time.Second))
	defer t.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case <-t.C:
		}
		st := r.Status()
		r.mu.Lock()
		if st.Error != r.logged {
			if st.Error != "" {
				r.log.Error("replication failing; still serving", "replica", st.Replica, "err", st.Error)
			} else {
				r.log.Info("replication recovered", "replica", st.Replica)
			}
			r.logged = st.Error
		}
		lagging := time.Duration(st.LagSeconds*float64(time.Second)) > r.opts.BehindAfter
		if lagging != r.behind {
			if lagging {
				r.log.Warn("replication is behind", "replica", st.Replica, "lag_seconds", st.LagSeconds,
					"local_txid", st.LocalTXID, "replica_txid", st.ReplicaTXID)
			} else {
				r.log.Info("replication caught up", "replica", st.Replica)
			}
			r.behind = lagging
		}
		r.mu.Unlock()
	}
}

// Status reports the replicated position against the local one. Lag is how
// long the replica has been missing local transactions (0 when in sync).
func (r *Replicator) Status() Status {
	st := Status{Replica: Redact(r.opts.URL), SyncInterval: r.opts.SyncInterval.String()}
	if pos, err := r.db.Pos(); err == nil {
		st.LocalTXID = uint64(pos.TXID)
	}
	st.ReplicaTXID = uint64(r.db.Replica.Pos().TXID)
	// Until Litestream has read the WAL once (local 0) nothing is shipped.
	st.InSync = st.LocalTXID > 0 && st.ReplicaTXID >= st.LocalTXID
	lastSync := r.db.LastSuccessfulSyncAt()
	if !lastSync.IsZero() {
		st.LastSyncAt = lastSync.UTC().Format(time.RFC3339Nano)
	}
	now := time.Now()
	r.mu.Lock()
	defer r.mu.Unlock()
	// Litestream clears its error when the next attempt starts; keep it
	// until an attempt succeeds so /healthz and the log do not flicker.
	if e := r.db.SyncDiagnostic().Error; e != "" {
		r.err, r.errAt = e, now
	} else if r.err != "" && lastSync.After(r.errAt) {
		r.err = ""
	}
	st.Error = r.err
	// Equal positions are not "in sync" while replication reports an
	// error: the positions may be stale (the database files removed under
	// the process left both at their last values).
	st.InSync = st.InSync && st.Error == ""
	if st.InSync {
		r.caughtUp = now
	} else {
		st.LagSeconds = now.Sub(r.caughtUp).Seconds()
	}
	st.Behind = r.behind
	return st
}

// Sync ships everything written so far and waits for it.
func (r *Replicator) Sync(ctx context.Context) error { return r.db.SyncAndWait(ctx) }

// Snapshot writes a full snapshot to the replica now (tests; the store
// writes one every SnapshotInterval by itself).
func (r *Replicator) Snapshot(ctx context.Context) error {
	if err := r.db.SyncAndWait(ctx); err != nil {
		return err
	}
	_, err := r.db.Snapshot(ctx)
	return err
}

// Close makes a last sync and stops replicating.
func (r *Replicator) Close(ctx context.Context) error {
	r.stop()
	<-r.done
	return r.store.Close(ctx)
}

// Restore writes the replica's database as of at (zero: the latest state)
// to output, which must not exist, and checks its integrity.
func Restore(ctx context.Context, raw, output string, at time.Time) error {
	if _, err := os.Stat(output); err == nil {
		return fmt.Errorf("%s exists", output)
	}
	if dir := filepath.Dir(output); dir != "" {
		if st, err := os.Stat(dir); err != nil || !st.IsDir() {
			return fmt.Errorf("directory %s does not exist", dir)
		}
	}
	r, err := newReplica(nil, raw, time.Second)
	if err != nil {
		return err
	}
	opt := litestream.NewRestoreOptions()
	opt.OutputPath = output
	opt.Timestamp = at
	opt.IntegrityCheck = litestream.IntegrityCheckFull
	if err := r.Restore(ctx, opt); err != nil {
		if errors.Is(err, litestream.ErrTxNotAvailable) || errors.Is(err, litestream.ErrNoSnapshots) {
			return fmt.Errorf("replica %s holds no backup (for that time): %w", Redact(raw), err)
		}
		return fmt.Errorf("restore from %s: %w", Redact(raw), err)
	}
	return nil
}

// ErrNoBackup reports an empty replica (nothing to restore).
func IsNoBackup(err error) bool {
	return errors.Is(err, litestream.ErrTxNotAvailable) || errors.Is(err, litestream.ErrNoSnapshots)
}
