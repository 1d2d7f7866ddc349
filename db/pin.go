package db

import (
	"context"
	"database/sql"
	"sync"
	"sync/atomic"
)

// Pinned reads: one read transaction for a whole page.
//
// A site page runs a dozen or more reads (the listing, its alternatives,
// awards, badge, reviews, comments, the visitor's session). Each on its own
// is a read transaction of its own on whichever pooled connection is free,
// and SQLite empties a connection's page cache at the start of any read
// transaction that follows a commit: under launch day's 200 votes a second
// nearly every statement of a page began on a cold cache. A page whose
// context is pinned (PinReads) runs every read of the read pool in one read
// transaction on one connection, begun at its first read, so it pays for
// the commits since once, and sees one snapshot of the directory.
//
// The rule that keeps the pool from stalling (readpool tests): a request
// never waits for a second read connection while it holds one. A pinned
// page holds its connection from its first read to its end, and a read
// that bypasses the pin (a detached context, a background refresh) may
// still ask the pool for another. So at most half the pool is pinned at a
// time; a page that finds no pin free runs unpinned, statement by
// statement, as before: it never waits for a pin.

// ReadPool is the read-only pool. Its query methods run on the context's
// pinned read transaction when there is one.
type ReadPool struct {
	*sql.DB
	d *DB
}

// QueryContext runs a query returning rows.
func (p *ReadPool) QueryContext(ctx context.Context, query string, args ...any) (*sql.Rows, error) {
	if tx := p.d.pinnedTx(ctx); tx != nil {
		return tx.QueryContext(ctx, query, args...)
	}
	return p.DB.QueryContext(ctx, query, args...)
}

// QueryRowContext runs a query returning at most one row.
func (p *ReadPool) QueryRowContext(ctx context.Context, query string, args ...any) *sql.Row {
	if tx := p.d.pinnedTx(ctx); tx != nil {
		return tx.QueryRowContext(ctx, query, args...)
	}
	return p.DB.QueryRowContext(ctx, query, args...)
}

type pinKey struct{}

type readPin struct {
	d *DB
	// gen is the read cache's generation when the pin was made: the
	// snapshot, begun later, is at least that new, so results read in it
	// may be cached under gen but never under a newer one (readcache.go).
	gen uint64

	mu  sync.Mutex
	tx  *sql.Tx // begun at the first read
	err error   // BeginTx failed, or the pin ended: reads go to the pool

	release func() // ends the pin, once
}

// pins bounds the pinned pages (see above).
type pins struct {
	slots  atomic.Pointer[chan struct{}] // nil: no pins (a pool of one)
	active atomic.Int32                  // pins held: no context lookup per statement while 0
	made   atomic.Uint64
	full   atomic.Uint64 // pages that ran unpinned: every slot was taken
}

// init sizes the pins for a pool of readConns: half of it, and none for a
// pool of one (a pinned page would hold the only connection).
func (p *pins) init(readConns int) {
	var slots *chan struct{}
	if n := readConns / 2; n > 0 {
		c := make(chan struct{}, n)
		slots = &c
	}
	p.slots.Store(slots)
}

// SetMaxOpenConns sizes the pool, and the pins with it (at most half).
func (p *ReadPool) SetMaxOpenConns(n int) {
	p.DB.SetMaxOpenConns(n)
	p.d.pins.init(n)
}

// PinReads returns ctx pinned to one read transaction, begun at the first
// read, and the function that ends it (call it once the page has read all
// it needs). With every pin taken it returns ctx as it is.
//
// Never on a read replica's copy: it is in rollback-journal mode, and the
// follower takes an exclusive lock to apply each batch (replica/follow.go).
// Waiting for it, the lock blocks every new read transaction, so a page
// holding its snapshot while it waits for a read outside its pin (a count
// shared with other requests) waits for itself until both time out: the
// replica answered 500s and stopped applying (cli's TestReadReplica).
func (d *DB) PinReads(ctx context.Context) (context.Context, func()) {
	sp := d.pins.slots.Load()
	if sp == nil || d.replica || pinOf(ctx) != nil {
		return ctx, func() {}
	}
	slots := *sp // the pin goes back where it came from, if the pool is resized meanwhile
	select {
	case slots <- struct{}{}:
	default:
		d.pins.full.Add(1)
		return ctx, func() {}
	}
	d.pins.active.Add(1)
	d.pins.made.Add(1)
	p := &readPin{d: d, gen: d.rc.gen.Load()}
	p.release = sync.OnceFunc(func() {
		p.end()
		d.pins.active.Add(-1)
		<-slots
	})
	return context.WithValue(ctx, pinKey{}, p), p.release
}

// Unpin ends ctx's pin early, once the page has read what it shows: a
// template that reads more (a card's thumbnail) reads it from the pool,
// and the connection is not held while the page is written out.
func Unpin(ctx context.Context) {
	if p := pinOf(ctx); p != nil {
		p.release()
	}
}

// Pinned reports whether ctx's reads run in one read transaction. Its
// reads must then not overlap (one goroutine at a time): they share one
// connection, and one prepared statement run twice at once on a
// connection cuts the first run's rows short.
func Pinned(ctx context.Context) bool {
	p := pinOf(ctx)
	if p == nil {
		return false
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.err == nil // not ended, and its transaction could begin
}

// Unpinned is ctx without its pin, for work that may outlive the page.
func Unpinned(ctx context.Context) context.Context {
	if pinOf(ctx) == nil {
		return ctx
	}
	return context.WithValue(ctx, pinKey{}, (*readPin)(nil))
}

func pinOf(ctx context.Context) *readPin {
	p, _ := ctx.Value(pinKey{}).(*readPin)
	return p
}

// pin is ctx's pin on d, or nil.
func (d *DB) pin(ctx context.Context) *readPin {
	if d.pins.active.Load() == 0 {
		return nil
	}
	if p := pinOf(ctx); p != nil && p.d == d {
		return p
	}
	return nil
}

// pinnedTx is ctx's pinned read transaction on d, begun now if this is the
// page's first read, or nil.
func (d *DB) pinnedTx(ctx context.Context) *sql.Tx {
	p := d.pin(ctx)
	if p == nil {
		return nil
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.tx == nil && p.err == nil {
		// Not bound to the request: the transaction lives until end, and
		// a cancellable one costs a watcher goroutine.
		p.tx, p.err = d.R.DB.BeginTx(context.Background(), &sql.TxOptions{ReadOnly: true})
	}
	return p.tx
}

// end rolls the read transaction back (nothing to commit) and prepares the
// statements the page wanted (they could not be prepared on the pool while
// it held a connection, see Querier.stmt).
func (p *readPin) end() {
	p.mu.Lock()
	tx := p.tx
	p.tx, p.err = nil, sql.ErrTxDone
	p.mu.Unlock()
	if tx == nil {
		return
	}
	tx.Rollback()
	p.d.rstmts.prepareWanted(context.Background(), p.d.R.DB)
}

// PinStats are the counts of pinned pages and of pages that found every
// pin taken, for /metrics.
func (d *DB) PinStats() (made, full uint64) { return d.pins.made.Load(), d.pins.full.Load() }
