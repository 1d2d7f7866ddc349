package db

import (
	"container/list"
	"context"
	"database/sql"
	"database/sql/driver"
	"fmt"
	"reflect"
	"strings"
)

// Every connection keeps its statements prepared. The driver parses the SQL
// of every unprepared call again, and most reads are not on the hot paths
// that Querier's cached *sql.Stmt covers: a listing page runs some forty
// statements (alternatives, awards, badges, reviews, comments, settings,
// thumbnails), and parsing them was 40% of its CPU (profile at c=8, 100k).
// So each pooled connection (read pool and writer) keeps the last
// connMaxStmts statements it ran, by SQL text, and runs a text it has seen
// as that prepared statement: bound, stepped and reset instead of parsed
// and finalized. database/sql never uses one connection from two goroutines
// at once, so a connection's cache needs no lock.
//
// A statement whose rows are still open (a query run inside the iteration
// of another with the same text, in one transaction) is busy: the second
// use gets a statement of its own, finalized when its rows close. Schema
// changes need nothing: SQLite prepares a statement again when the schema
// it was prepared against has changed.

// connMaxStmts bounds each connection's statements (least recently used
// go first). Each holds its compiled program in SQLite's heap, a few KB;
// 6 connections × 160 stays within a few MB.
const connMaxStmts = 160

// stmtConn is a pooled connection that keeps its statements prepared; with
// d set (the read pool) it also runs each query for the context's site.
type stmtConn struct {
	rawConn
	d     *DB // nil: no site views (the writer)
	stmts map[string]*list.Element
	lru   list.List // of *connStmt, most recent first
}

type connStmt struct {
	query string
	s     driverStmt
	busy  bool // its rows are open
}

// driverStmt is what the driver's prepared statement offers.
type driverStmt interface {
	driver.Stmt
	driver.StmtQueryContext
	driver.StmtExecContext
}

func newStmtConn(rc rawConn, d *DB) *stmtConn {
	return &stmtConn{rawConn: rc, d: d, stmts: map[string]*list.Element{}}
}

// unwrap is the driver's own connection (for its hooks).
func (c *stmtConn) unwrap() driver.Conn { return c.rawConn }

func (c *stmtConn) siteSQL(ctx context.Context, query string) string {
	if c.d == nil {
		return query
	}
	return c.d.SiteSQL(SiteOf(ctx), query)
}

// cacheable: one plain statement that runs again with other values. Scripts
// (several statements), DDL and pragmas run once in a while and are left to
// the driver.
func cacheable(query string) bool {
	t := strings.TrimSpace(query)
	if i := strings.IndexByte(t, ';'); i >= 0 && i < len(t)-1 {
		return false
	}
	head := strings.ToUpper(t[:min(len(t), 7)])
	for _, p := range []string{"SELECT", "WITH", "INSERT", "UPDATE", "DELETE", "REPLACE"} {
		if strings.HasPrefix(head, p) {
			return true
		}
	}
	return false
}

// take returns the idle cached statement for query, preparing and caching
// it if the connection has none; nil when query is not to be cached or the
// cached one is busy (the caller then runs it the driver's way).
func (c *stmtConn) take(ctx context.Context, query string) (*connStmt, error) {
	if e, ok := c.stmts[query]; ok {
		cs := e.Value.(*connStmt)
		if cs.busy {
			return nil, nil
		}
		c.lru.MoveToFront(e)
		return cs, nil
	}
	if !cacheable(query) {
		return nil, nil
	}
	s, err := c.rawConn.PrepareContext(ctx, query)
	if err != nil {
		return nil, err
	}
	ds, ok := s.(driverStmt)
	if !ok {
		s.Close()
		return nil, fmt.Errorf("sqlite driver statement %T lacks context methods", s)
	}
	cs := &connStmt{query: query, s: ds}
	c.stmts[query] = c.lru.PushFront(cs)
	c.evict()
	return cs, nil
}

// evict finalizes the least recently used idle statements over the bound.
func (c *stmtConn) evict() {
	for e := c.lru.Back(); e != nil && len(c.stmts) > connMaxStmts; {
		prev := e.Prev()
		if cs := e.Value.(*connStmt); !cs.busy {
			c.lru.Remove(e)
			delete(c.stmts, cs.query)
			cs.s.Close()
		}
		e = prev
	}
}

func (c *stmtConn) QueryContext(ctx context.Context, query string, args []driver.NamedValue) (driver.Rows, error) {
	query = c.siteSQL(ctx, query)
	cs, err := c.take(ctx, query)
	if err != nil {
		return nil, err
	}
	if cs == nil {
		return c.rawConn.QueryContext(ctx, query, args)
	}
	rows, err := cs.s.QueryContext(ctx, args)
	if err != nil {
		return nil, err
	}
	cs.busy = true
	return &stmtRows{Rows: rows, cs: cs}, nil
}

func (c *stmtConn) ExecContext(ctx context.Context, query string, args []driver.NamedValue) (driver.Result, error) {
	cs, err := c.take(ctx, query)
	if err != nil {
		return nil, err
	}
	if cs == nil {
		return c.rawConn.ExecContext(ctx, query, args)
	}
	return cs.s.ExecContext(ctx, args) // reset before it returns
}

func (c *stmtConn) PrepareContext(ctx context.Context, query string) (driver.Stmt, error) {
	return c.rawConn.PrepareContext(ctx, c.siteSQL(ctx, query))
}

// Close finalizes the connection's statements before closing it.
func (c *stmtConn) Close() error {
	for e := c.lru.Front(); e != nil; e = e.Next() {
		e.Value.(*connStmt).s.Close()
	}
	c.stmts = nil
	c.lru.Init()
	return c.rawConn.Close()
}

// stmtRows frees its statement for the next use when closed (the driver
// resets it rather than finalizing it).
type stmtRows struct {
	driver.Rows
	cs *connStmt
}

func (r *stmtRows) Close() error {
	err := r.Rows.Close()
	r.cs.busy = false
	return err
}

// The column type methods pass through (Rows.ColumnTypes).

func (r *stmtRows) ColumnTypeDatabaseTypeName(i int) string {
	if t, ok := r.Rows.(driver.RowsColumnTypeDatabaseTypeName); ok {
		return t.ColumnTypeDatabaseTypeName(i)
	}
	return ""
}

func (r *stmtRows) ColumnTypeScanType(i int) reflect.Type {
	if t, ok := r.Rows.(driver.RowsColumnTypeScanType); ok {
		return t.ColumnTypeScanType(i)
	}
	return reflect.TypeFor[any]()
}

func (r *stmtRows) ColumnTypeNullable(i int) (nullable, ok bool) {
	if t, ok := r.Rows.(driver.RowsColumnTypeNullable); ok {
		return t.ColumnTypeNullable(i)
	}
	return false, false
}

// stmtConnector opens stmtConns.
type stmtConnector struct {
	dsn string
	drv driver.Driver
	d   *DB // nil: no site views
}

func (c *stmtConnector) Connect(context.Context) (driver.Conn, error) {
	dc, err := c.drv.Open(c.dsn)
	if err != nil {
		return nil, err
	}
	rc, ok := dc.(rawConn)
	if !ok {
		dc.Close()
		return nil, fmt.Errorf("sqlite driver connection %T lacks context methods", dc)
	}
	return newStmtConn(rc, c.d), nil
}

func (c *stmtConnector) Driver() driver.Driver { return c.drv }

// openPool opens a pool of stmtConns on dsn; with sites set (the read
// pool) they run each read for the context's site.
func openPool(dsn string, sites *DB) (*sql.DB, error) {
	probe, err := sql.Open("sqlite", dsn)
	if err != nil {
		return nil, err
	}
	drv := probe.Driver()
	probe.Close()
	return sql.OpenDB(&stmtConnector{dsn: dsn, drv: drv, d: sites}), nil
}
