package db

import (
	"context"
	"database/sql"
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
		if n := d.parts.wcommits.Load(); n != seen {
			seen = n
			// An error (busy: a TRUNCATE at close) leaves the frames for
			// the next round; the WAL is whole either way.
			c.conn.ExecContext(ctx, `PRAGMA wal_checkpoint(PASSIVE)`)
		}
	}
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

// WithoutCheckpoints runs fn with the checkpoint loop stopped: a bulk load
// that takes the file for itself (demo.Seed leaves WAL mode) must not meet
// a checkpoint's connection. Writes in fn are checkpointed afterwards.
func (d *DB) WithoutCheckpoints(fn func() error) error {
	d.stopCheckpointer()
	err := fn()
	if serr := d.startCheckpointer(d.Path); err == nil {
		err = serr
	}
	return err
}
