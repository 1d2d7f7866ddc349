package db

import (
	"context"
	"database/sql"
	"strconv"
	"sync"
	"time"
)

// Checkpoints off the commit path. SQLite's automatic checkpoint runs in
// the commit that takes the WAL past 1,000 pages: that commit copies the
// pages into the database file and waits for two fsyncs, and every write
// queued behind it waits too. Measured with owner PATCHes at c=8 on 100k
// listings: 2.0–2.4k req/s with p99 19–33 ms, against 2.8–3.8k req/s with
// p99 7–11 ms when no commit checkpoints. So the writer never checkpoints
// (wal_autocheckpoint=0 in its DSN) and a goroutine of its own, on a
// connection of its own, runs the same PASSIVE checkpoint every
// checkpointEvery while commits happen: it never blocks the writer or a
// reader, and the WAL stays as short as before.

const checkpointEvery = 100 * time.Millisecond

type checkpointer struct {
	conn   *sql.DB
	cancel context.CancelFunc
	done   chan struct{}
}

// startCheckpointer opens the checkpoint connection and starts its loop.
func (d *DB) startCheckpointer(path string) error {
	c, err := sql.Open("sqlite", "file:"+path+"?_pragma=busy_timeout(5000)&_pragma=cache_size(-256)")
	if err != nil {
		return err
	}
	// Kept open between rounds: a connection opened for each round read
	// the whole schema again before its first statement (2.4% of the CPU
	// of a launch day's 200 votes a second, with rounds ten times a
	// second). The seeder, which needs the file to itself to leave WAL
	// mode, stops the loop and closes this connection first
	// (WithoutCheckpoints), and Close does too.
	c.SetMaxOpenConns(1)
	c.SetMaxIdleConns(1)
	ctx, cancel := context.WithCancel(context.Background())
	d.ckpt = &checkpointer{conn: c, cancel: cancel, done: make(chan struct{})}
	go d.runCheckpointer(ctx, d.ckpt)
	return nil
}

func (d *DB) runCheckpointer(ctx context.Context, c *checkpointer) {
	defer close(c.done)
	t := time.NewTicker(checkpointEvery)
	defer t.Stop()
	seen := int64(-1) // the commits before the loop started count too
	for {
		select {
		case <-ctx.Done():
			return
		case <-t.C:
		}
		if n := d.parts.wcommits.Load() + d.fts.commits.Load(); n != seen {
			seen = n
			// An error (busy: a TRUNCATE at close) leaves the frames for
			// the next round; the WAL is whole either way.
			var busy, frames, copied int64
			err := c.conn.QueryRowContext(ctx, `PRAGMA wal_checkpoint(PASSIVE)`).Scan(&busy, &frames, &copied)
			if err == nil && frames >= walRestartFrames {
				d.walLong.Store(true)
			}
		}
	}
}

// walRestartFrames bounds the WAL. A checkpoint copies frames into the
// database file, but only a write transaction that starts once every frame
// is copied writes the WAL from its start again; under a stream of group
// commits there is always a newer frame, so the WAL never restarted and
// grew by 60 MB a second under owner PATCHes at c=8 (743 MB after 12 s):
// disk a small VM may not have, and every reader looks a page up in each
// 4,096 frames of the WAL's index. Past this many frames (64 MB of 4 KB
// pages), the writer restarts the WAL at its next idle moment
// (restartWAL), so the file stops growing there (70–72 MB measured).
var walRestartFrames int64 = 16384

// walRestartWait bounds how long restartWAL waits for readers still
// reading frames of the old WAL (page reads take a few milliseconds); if
// they take longer, the next idle moment tries again.
const walRestartWait = 20 // ms

// restartWAL runs, when the checkpoint loop found the WAL long, a RESTART
// checkpoint on the writer between two transactions: it copies the frames
// left (most are copied already), waits up to walRestartWait for readers
// of old frames, and makes the next commit write from the WAL's start.
// Writes wait meanwhile, on the writer, a few milliseconds once per 64 MB
// of WAL instead of every reader paying for a WAL that never ends. A reader
// that holds the old frames for long (a replication's own read lock, a
// backup) makes it fail: it then waits walRestartBackoff, doubling to
// walRestartMaxBackoff, before the writer pays for another try.
func (d *DB) restartWAL() {
	if !d.walLong.CompareAndSwap(true, false) {
		return
	}
	r := &d.walRestart
	r.mu.Lock()
	defer r.mu.Unlock()
	if time.Now().Before(r.notBefore) {
		return
	}
	if d.tryRestartWAL() {
		r.backoff = 0
		d.stats.walRestarts.Add(1)
		return
	}
	d.stats.walRestartFails.Add(1)
	r.backoff = min(max(2*r.backoff, walRestartBackoff), walRestartMaxBackoff)
	r.notBefore = time.Now().Add(r.backoff)
}

const (
	walRestartBackoff    = time.Second
	walRestartMaxBackoff = 30 * time.Second
)

// walRestarter is restartWAL's state after a failed try.
type walRestarter struct {
	mu        sync.Mutex
	backoff   time.Duration
	notBefore time.Time
}

// tryRestartWAL runs the RESTART checkpoint on the writer's connection
// (idle now: the caller just committed) with a short busy timeout.
func (d *DB) tryRestartWAL() bool {
	ctx := context.Background()
	conn, err := d.W.Conn(ctx)
	if err != nil {
		return false
	}
	defer conn.Close()
	if _, err := conn.ExecContext(ctx, `PRAGMA busy_timeout = `+strconv.Itoa(walRestartWait)); err != nil {
		return false
	}
	defer conn.ExecContext(ctx, `PRAGMA busy_timeout = `+strconv.Itoa(writerBusyTimeout))
	var busy, frames, copied int64
	err = conn.QueryRowContext(ctx, `PRAGMA wal_checkpoint(RESTART)`).Scan(&busy, &frames, &copied)
	return err == nil && busy == 0
}

// stopCheckpointer ends the loop and closes its connection (Close, before
// the final checkpoint).
func (d *DB) stopCheckpointer() {
	if d.ckpt == nil {
		return
	}
	d.ckpt.cancel()
	<-d.ckpt.done
	d.ckpt.conn.Close()
	d.ckpt = nil
}

// WithoutCheckpoints runs fn with the checkpoint loop (and the full-text
// merger) stopped: a bulk load
// that takes the file for itself (demo.Seed leaves WAL mode) must not meet
// a checkpoint's connection. Writes in fn are checkpointed afterwards.
func (d *DB) WithoutCheckpoints(fn func() error) error {
	d.stopFTSMerger() // nor a full-text merge (ftsmerge.go)
	defer d.startFTSMerger()
	d.stopCheckpointer()
	err := fn()
	if serr := d.startCheckpointer(d.Path); err == nil {
		err = serr
	}
	return err
}
