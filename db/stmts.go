package db

import (
	"context"
	"database/sql"
	"sync"
)

// Prepared statements. The driver parses the SQL of every unprepared call
// again; parsing was 37% of an owner PATCH's CPU (the profile's dozen
// queries). A *sql.Stmt is prepared lazily on each pooled connection it runs
// on and kept there, so a cached Stmt costs one parse per connection.
//
// Only the hot paths use this (the listing profile, the owner edit, API key
// lookup, full-text search and bounded counts, where parsing the ranking
// query was a tenth of an uncached search): their SQL texts are fixed or
// come from a small set of column lists and filters, and the cache stops
// growing at maxStmts texts per pool.

const maxStmts = 256

// IntArg is a bound integer the query planner does not look at. With
// STAT4 samples (ANALYZE) SQLite re-prepares a statement whenever a "?"
// compared with a sampled index column is bound to a new value, so a
// prepared profile query cost a full parse again on every other listing
// (measured: 29 µs against 6 µs). CAST(? AS INTEGER) is the same value
// without a plan per value; lookups by id need none.
const IntArg = "CAST(? AS INTEGER)"

// TextArg is IntArg for a text value.
const TextArg = "CAST(? AS TEXT)"

// stmtCache holds the prepared statements of one pool by SQL text.
type stmtCache struct {
	mu     sync.Mutex
	m      map[string]*sql.Stmt
	wanted map[string]bool // asked for inside a write transaction
}

func (c *stmtCache) get(query string) *sql.Stmt {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.m[query]
}

// prepare prepares query on pool unless cached or the cache is full.
func (c *stmtCache) prepare(ctx context.Context, pool *sql.DB, query string) *sql.Stmt {
	if s := c.get(query); s != nil {
		return s
	}
	c.mu.Lock()
	full := len(c.m) >= maxStmts
	c.mu.Unlock()
	if full {
		return nil
	}
	// The cache is main's text (Querier.stmt never asks for another
	// site's): prepare it as main's whatever site the caller reads for —
	// prepareWanted runs at the end of any read transaction, a site's too,
	// and a read connection would otherwise prepare the site's views.
	s, err := pool.PrepareContext(WithSite(ctx, MainSite), query)
	if err != nil {
		return nil // the caller runs it unprepared and sees the error there
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.m == nil {
		c.m = map[string]*sql.Stmt{}
	}
	if old := c.m[query]; old != nil { // prepared meanwhile by another caller
		s.Close()
		return old
	}
	c.m[query] = s
	return s
}

// want notes a statement a write transaction ran unprepared: the single
// writer connection is busy with that transaction, so it is prepared after
// the commit (prepareWanted).
func (c *stmtCache) want(query string) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if len(c.m)+len(c.wanted) >= maxStmts {
		return
	}
	if c.wanted == nil {
		c.wanted = map[string]bool{}
	}
	c.wanted[query] = true
}

func (c *stmtCache) prepareWanted(ctx context.Context, pool *sql.DB) {
	c.mu.Lock()
	if len(c.wanted) == 0 {
		c.mu.Unlock()
		return
	}
	qs := make([]string, 0, len(c.wanted))
	for q := range c.wanted {
		qs = append(qs, q)
	}
	c.wanted = nil
	c.mu.Unlock()
	for _, q := range qs {
		c.prepare(ctx, pool, q)
	}
}

func (c *stmtCache) close() {
	c.mu.Lock()
	defer c.mu.Unlock()
	for _, s := range c.m {
		s.Close()
	}
	c.m = nil
}

// Querier runs queries as cached prepared statements on the read pool or
// inside a write transaction (see Prepared), without watching the context
// for cancellation: they are bounded lookups of one listing, and a
// cancellable context costs two goroutines per statement (database/sql's
// and the driver's watchers), a dozen per profile.
type Querier struct {
	d    *DB
	tx   *sql.Tx // nil: the read pool
	read bool    // tx is a read transaction on the read pool (ReadTx)
}

// ReadTx runs fn's queries in one read transaction on the read pool. A
// profile is a dozen queries; each on its own would start a read
// transaction of its own (a WAL index lock each, and after any commit a
// page cache emptied each), and they could see different commits. Like all
// Querier statements they are not cancelled with ctx.
func (d *DB) ReadTx(ctx context.Context, fn func(q Queries) error) error {
	ctx = context.WithoutCancel(ctx)
	if tx := d.pinnedTx(ctx); tx != nil {
		return fn(Querier{d: d, tx: tx, read: true}) // the page's (pin.go)
	}
	tx, err := d.R.DB.BeginTx(ctx, &sql.TxOptions{ReadOnly: true})
	if err != nil {
		return err
	}
	err = fn(Querier{d: d, tx: tx, read: true})
	tx.Rollback() // nothing to commit
	d.rstmts.prepareWanted(ctx, d.R.DB)
	return err
}

// Prepared returns q (d.R or a transaction of d.W) running its queries as
// cached prepared statements; any other querier is returned unchanged.
func (d *DB) Prepared(q querier) Queries {
	switch v := q.(type) {
	case Querier:
		return v
	case *sql.Tx:
		return Querier{d: d, tx: v}
	case *ReadPool:
		if v == d.R {
			return Querier{d: d}
		}
		return v
	case *sql.DB:
		return v
	}
	return plain{q}
}

// Queries is what Prepared returns: queries, and statements in a write
// transaction.
type Queries interface {
	querier
	ExecContext(ctx context.Context, query string, args ...any) (sql.Result, error)
}

// plain adapts a read-only querier (ExecContext is never called on one).
type plain struct{ querier }

func (plain) ExecContext(context.Context, string, ...any) (sql.Result, error) {
	panic("db: ExecContext on a read-only querier")
}

// stmt is the cached statement for query bound to the transaction, or nil
// (run unprepared).
func (q Querier) stmt(ctx context.Context, query string) *sql.Stmt {
	if SiteOf(ctx) != MainSite {
		return nil // another site's text differs (sites.go); statements are cached for main's
	}
	if q.tx == nil {
		return q.d.rstmts.prepare(ctx, q.d.R.DB, query)
	}
	// In a transaction the pool's connections may all be taken (the writer
	// has one): a statement not cached yet runs unprepared and is prepared
	// after the transaction. A cached one is prepared on the transaction's
	// connection at its first use there.
	c := &q.d.wstmts
	if q.read {
		c = &q.d.rstmts
	}
	s := c.get(query)
	if s == nil {
		c.want(query)
		return nil
	}
	return q.tx.StmtContext(ctx, s)
}

// onPin is q on ctx's pinned read transaction (pin.go) when q is the
// read pool and there is one.
func (q Querier) onPin(ctx context.Context) Querier {
	if q.tx == nil {
		if tx := q.d.pinnedTx(ctx); tx != nil {
			return Querier{d: q.d, tx: tx, read: true}
		}
	}
	return q
}

// QueryContext runs a query returning rows.
func (q Querier) QueryContext(ctx context.Context, query string, args ...any) (*sql.Rows, error) {
	ctx = context.WithoutCancel(ctx)
	q = q.onPin(ctx)
	if s := q.stmt(ctx, query); s != nil {
		return s.QueryContext(ctx, args...)
	}
	if q.tx != nil {
		return q.tx.QueryContext(ctx, query, args...)
	}
	return q.d.R.QueryContext(ctx, query, args...)
}

// QueryRowContext runs a query returning at most one row.
func (q Querier) QueryRowContext(ctx context.Context, query string, args ...any) *sql.Row {
	ctx = context.WithoutCancel(ctx)
	q = q.onPin(ctx)
	if s := q.stmt(ctx, query); s != nil {
		return s.QueryRowContext(ctx, args...)
	}
	if q.tx != nil {
		return q.tx.QueryRowContext(ctx, query, args...)
	}
	return q.d.R.QueryRowContext(ctx, query, args...)
}

// ExecContext runs a statement in the write transaction.
func (q Querier) ExecContext(ctx context.Context, query string, args ...any) (sql.Result, error) {
	if q.tx == nil || q.read {
		panic("db: ExecContext on the read pool")
	}
	ctx = context.WithoutCancel(ctx)
	if s := q.stmt(ctx, query); s != nil {
		return s.ExecContext(ctx, args...)
	}
	return q.tx.ExecContext(ctx, query, args...)
}
