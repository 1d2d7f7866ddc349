package db

import (
	"context"
	"database/sql"
	"fmt"
	"log/slog"
	"runtime/debug"
	"sync"
	"time"
)

// Group commit. A commit has a fixed cost that dwarfs a small edit's own
// statements: every page the transaction touched goes to the WAL, and the
// full-text index, when its notes are applied, writes a new segment
// (measured on an owner PATCH at 100k listings, when every group commit
// applied them: 165 µs of CPU in the commit against 30 µs of statements). So
// concurrent edits that arrive while the writer is busy run together: one
// transaction and one commit for all (an edit that fails sends the others
// back to a transaction each). Each caller returns only after the commit
// that holds its edit, so nothing is acknowledged before it is durable, and
// a failed commit fails every edit of the batch.

// maxGroup bounds one batch, so an edit waits for at most this many others.
const maxGroup = 32

type groupReq struct {
	ctx context.Context
	fn  func(ctx context.Context, tx *sql.Tx) error
	// index asks the batch to bring the full-text index up to date before
	// it commits (SyncFTS); batches without one leave their notes to the
	// deferred sync (fts.go).
	index bool
	err   error
	done  chan struct{}
}

type groupQueue struct {
	mu      sync.Mutex
	queue   []*groupReq
	running bool
	last    int // size of the last batch
	// wake, while a batch lingers, is closed once the queue holds want
	// edits, so the batch starts as soon as the edits it waits for are in.
	wake chan struct{}
	want int
}

// lingerFor is how long a batch waits for more edits when the last one
// held several (a lone writer, last batch of one, never waits). Owner
// PATCHes at c=8 on 100k listings, server CPU per PATCH and req/s, two
// interleaved rounds each: 200 µs 386/356 µs, 1,992/2,115 req/s; 400 µs
// 349/352 µs; 600 µs 322/373 µs; 1 ms 309/332 µs, 2,735/2,400 req/s. A
// fuller batch shares the commit (the WAL frames and the full-text flush,
// which cost the same for one edit or eight of the same listings), and
// the CPU waiting is spent decoding the edits that join it.
const lingerFor = time.Millisecond

// GroupTx runs fn in a write transaction like Tx, possibly together with
// other GroupTx callers' functions (see above). fn may run twice (the
// second time alone, after its batch was rolled back): it must not keep
// state across calls other than what it returns.
//
// fn's statements use the ctx it is given: the caller's values without its
// cancellation. An edit that has begun runs to its end (statements of
// microseconds), so one caller going away never fails the others' edits
// in the batch; and database/sql starts a goroutine per statement to watch
// a context that can be cancelled, which beside a busy read pool cost the
// writer its place on the CPU at each statement's end (a runtime trace of
// owner PATCHes beside uncached gets, c=1 writer: 115 µs of scheduler wait
// per PATCH at those points). A caller cancelled before its edit starts
// is still left out of the batch.
func (d *DB) GroupTx(ctx context.Context, fn func(ctx context.Context, tx *sql.Tx) error) error {
	return d.groupTx(ctx, false, fn)
}

func (d *DB) groupTx(ctx context.Context, index bool, fn func(ctx context.Context, tx *sql.Tx) error) error {
	r := &groupReq{ctx: ctx, fn: fn, index: index, done: make(chan struct{})}
	g := &d.group
	g.mu.Lock()
	g.queue = append(g.queue, r)
	if g.wake != nil && len(g.queue) >= g.want {
		close(g.wake)
		g.wake = nil
	}
	lead := !g.running
	g.running = true
	g.mu.Unlock()
	if lead {
		d.runGroup()
	}
	<-r.done
	return r.err
}

// runGroup commits one batch of the queue, then hands on: another
// goroutine takes the next batch, so this caller returns without waiting
// for edits that arrived after its own.
func (d *DB) runGroup() {
	g := &d.group
	g.mu.Lock()
	if g.last > 1 && len(g.queue) < g.last {
		// Edits are arriving concurrently: give the ones being decoded a
		// moment to join, as the commit costs the same for one or many,
		// but no longer than it takes as many as last time to be in.
		wake := make(chan struct{})
		g.wake, g.want = wake, g.last
		g.mu.Unlock()
		t := time.NewTimer(lingerFor)
		select {
		case <-wake:
		case <-t.C:
		}
		t.Stop()
		g.mu.Lock()
		g.wake = nil
	}
	n := min(len(g.queue), maxGroup)
	g.last = n
	batch := g.queue[:n:n]
	g.queue = g.queue[n:]
	g.mu.Unlock()

	d.observeBatch(n)
	d.commitGroup(batch)
	for _, r := range batch {
		close(r.done)
	}
	// Between batches, the writer idle: the next batch waits for this
	// (checkpoint.go), the callers of this one do not.
	d.restartWAL()
	d.kickFTSMerge() // merges wait for an idle moment (ftsmerge.go)

	g.mu.Lock()
	more := len(g.queue) > 0
	g.running = more
	g.mu.Unlock()
	if more {
		go d.runGroup()
	}
}

func (d *DB) commitGroup(batch []*groupReq) {
	bg := context.Background()
	tx, err := d.W.BeginTx(bg, nil)
	if err != nil {
		for _, r := range batch {
			r.err = mapErr(err)
		}
		return
	}
	// No savepoint per edit: once part of the transaction, the full-text
	// index writes its pending changes out at every savepoint, which is the
	// per-commit cost this is meant to share (edits only note what to
	// re-index; syncFTS does it once for the batch, migration 0011). So if any edit fails, the batch is rolled back and
	// its edits run again one transaction each (edits rarely fail here:
	// input is validated before; what fails is mostly another user's id).
	failed, index := false, false
	for _, r := range batch {
		if err := r.ctx.Err(); err != nil {
			r.err = err
			continue
		}
		index = index || r.index
		ctx := context.WithoutCancel(r.ctx) // see GroupTx
		if err := callFn(ctx, r.fn, tx); err != nil {
			failed = true
			break
		}
		if err := markIdemEffect(ctx, tx); err != nil {
			failed = true
			break
		}
	}
	// The full-text notes are applied only when a search waits for them
	// (index); otherwise the deferred sync applies them (fts.go).
	if !failed && index && d.syncFTS(bg, tx) != nil {
		failed = true // each edit alone finds out whose text it was
	}
	if failed {
		tx.Rollback()
		d.partsDropped()
		for _, r := range batch {
			if r.err == nil {
				r.err = d.Tx(r.ctx, func(tx *sql.Tx) error { return callFn(context.WithoutCancel(r.ctx), r.fn, tx) })
				d.partsDropped()
			}
		}
		return
	}
	err = tx.Commit()
	d.rc.gen.Add(1) // the commit is visible now (see readcache.go)
	if err == nil {
		d.partsCommitted()
		d.kickProfiles() // the edited listings' ready-made profiles and full-text notes (profiles.go, fts.go)
	} else {
		d.partsDropped()
	}
	d.wstmts.prepareWanted(bg, d.W)
	for _, r := range batch {
		if r.err == nil {
			r.err = mapErr(err)
		}
	}
}

// callFn runs one edit; a panic fails that edit only (the batch and the
// callers waiting on it go on).
func callFn(ctx context.Context, fn func(ctx context.Context, tx *sql.Tx) error, tx *sql.Tx) (err error) {
	defer func() {
		if p := recover(); p != nil {
			slog.Error("panic in a grouped write", "panic", p, "stack", string(debug.Stack()))
			err = fmt.Errorf("panic in a grouped write: %v", p)
		}
	}()
	return fn(ctx, tx)
}
