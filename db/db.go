// Package db owns the one SQLite file: connection pools, migrations and the
// queries of every domain. Public store methods open a transaction and call
// small helpers that take *sql.Tx.
package db

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"net/url"
	"os"
	"path/filepath"
	"runtime"
	"strconv"
	"sync"
	"sync/atomic"

	"launchdir/ops"

	"modernc.org/sqlite"
	sqlite3 "modernc.org/sqlite/lib"
)

// DB is one writer connection beside a small read-only pool. SQLite allows
// one writer at a time; funnelling writes through one connection turns lock
// contention (SQLITE_BUSY) into ordinary queueing in database/sql.
type DB struct {
	W    *sql.DB   // the single writer
	R    *ReadPool // readers (pin.go)
	Path string

	counts  countCache
	vcounts versionCounts // counts under change counters (counts.go)
	rc      readCache
	rstmts  stmtCache          // prepared on the read pool (stmts.go)
	wstmts  stmtCache          // prepared on the writer
	group   groupQueue         // edits waiting for a group commit (group.go)
	parts   partsCache         // owner profiles' other rows between group edits (parts.go)
	bg      sync.WaitGroup     // start-up work left running (Analyze, warmReaders)
	bgStop  context.CancelFunc // ends it at Close
	warm    warmUp             // warmReaders, once started (warm.go)

	shape   *siteShape // what the views of another site need (sites.go)
	stats   dbStats    // for /metrics (stats.go)
	replica bool       // a read replica's copy: read-only, see replica.go
	// ftsNotes: the schema has listings_fts_stale (set at open, after the
	// migrations; see fts.go).
	ftsNotes bool
	// profiles: the schema has listing_profiles (set at open, after the
	// migrations, and on a replica's copy; see profiles.go).
	profiles bool

	rebuilder  profileRebuilder          // ready-made profiles after owner edits (profiles.go)
	ckpt       *checkpointer             // WAL checkpoints off the commit path (checkpoint.go)
	walLong    atomic.Bool               // the WAL has outgrown walRestartFrames (checkpoint.go)
	walRestart walRestarter              // restartWAL's back-off
	pins       pins                      // pinned page reads (pin.go)
	fmerge     atomic.Pointer[ftsMerger] // full-text merges off the commit path (ftsmerge.go)
	fts        ftsMergeStats
	fforce     ftsForcer // forced merge steps under writes without idle moments
}

// writerBusyTimeout is how long (ms) a connection waits for a lock another
// holds: another process's writer, or a checkpoint.
const writerBusyTimeout = 5000

func dsn(path string, readOnly bool, cacheKB int) string {
	q := url.Values{}
	// busy_timeout first: the journal_mode switch itself may need to wait.
	q.Add("_pragma", "busy_timeout("+strconv.Itoa(writerBusyTimeout)+")")
	q.Add("_pragma", "journal_mode(WAL)")
	q.Add("_pragma", "synchronous(NORMAL)")
	q.Add("_pragma", "foreign_keys(ON)")
	// Page cache per connection (negative: KiB); the file's pages beyond it
	// come from the OS page cache, which all connections share.
	q.Add("_pragma", "cache_size(-"+strconv.Itoa(cacheKB)+")")
	q.Add("_pragma", "temp_store(MEMORY)")
	if readOnly {
		q.Add("_pragma", "query_only(ON)")
	} else {
		q.Set("_txlock", "immediate")
		// Checkpoints run beside the writer, not in its commits (checkpoint.go).
		q.Add("_pragma", "wal_autocheckpoint(0)")
	}
	return "file:" + path + "?" + q.Encode()
}

// Options tunes the connection pools.
type Options struct {
	// ReadConns is the read pool's size (0: DefaultReadConns).
	ReadConns int
	// ReadCacheKB and WriteCacheKB are each read connection's and the
	// writer's page cache (0: DefaultReadCacheKB, DefaultWriteCacheKB).
	ReadCacheKB, WriteCacheKB int
}

// Page cache defaults, measured (README, performance): SQLite keeps pages
// in its own cache per connection, outside the Go heap and never given
// back, so every reader's cache fills to its size and counts in RSS. The
// hot reads are answered from the read cache; a miss reads a few hundred
// pages, which the OS page cache serves quickly.
const (
	DefaultReadCacheKB  = 4000
	DefaultWriteCacheKB = 8000
)

// DefaultReadConns is the read pool's default size: measured, not guessed
// (README, performance: the pool-size sweep). Reads that miss the read
// cache are short (well under a millisecond to a few milliseconds), so a
// connection per core plus one per core waiting on I/O keeps both cores
// busy; more connections only add page caches (RSS) and contention.
func DefaultReadConns() int { return max(4, 2*runtime.GOMAXPROCS(0)) }

// Open opens (creating if needed) and migrates the database at path.
func Open(ctx context.Context, path string) (*DB, error) {
	return OpenWith(ctx, path, Options{})
}

// OpenWith is Open with pool options.
func OpenWith(ctx context.Context, path string, o Options) (*DB, error) {
	if path == "" {
		return nil, errors.New("database path is empty")
	}
	if dir := filepath.Dir(path); dir != "" {
		if st, err := os.Stat(dir); err != nil || !st.IsDir() {
			return nil, fmt.Errorf("database directory %s does not exist", dir)
		}
	}
	if err := refuseReplicaCopy(path); err != nil {
		return nil, err
	}
	if o.ReadCacheKB <= 0 {
		o.ReadCacheKB = DefaultReadCacheKB
	}
	if o.WriteCacheKB <= 0 {
		o.WriteCacheKB = DefaultWriteCacheKB
	}
	w, err := openPool(dsn(path, false, o.WriteCacheKB), nil)
	if err != nil {
		return nil, err
	}
	w.SetMaxOpenConns(1)
	w.SetMaxIdleConns(1)
	w.SetConnMaxLifetime(0)
	if err := w.PingContext(ctx); err != nil {
		w.Close()
		return nil, fmt.Errorf("open %s: %w", path, err)
	}
	d := &DB{W: w, Path: path}
	if err := d.watchWrites(ctx); err != nil {
		w.Close()
		return nil, err
	}
	if err := d.migrate(ctx); err != nil {
		w.Close()
		return nil, err
	}
	if err := d.syncFTSAtOpen(ctx); err != nil {
		w.Close()
		return nil, fmt.Errorf("open %s: full-text index: %w", path, err)
	}
	if err := d.loadSiteShape(ctx, d.W); err != nil {
		w.Close()
		return nil, fmt.Errorf("open %s: %w", path, err)
	}
	r, err := d.openReadPool(dsn(path, true, o.ReadCacheKB))
	if err != nil {
		w.Close()
		return nil, err
	}
	n := o.ReadConns
	if n <= 0 {
		n = DefaultReadConns()
	}
	r.SetMaxOpenConns(n) // and the pins (pin.go)
	r.SetMaxIdleConns(n)
	d.R = r
	if err := d.startCheckpointer(path); err != nil {
		r.Close()
		w.Close()
		return nil, err
	}
	d.startFTSMerger()
	d.startBackground(ctx, n)
	return d, nil
}

// startBackground starts the start-up work that need not delay it; Close
// ends it.
func (d *DB) startBackground(ctx context.Context, readConns int) {
	ctx, d.bgStop = context.WithCancel(context.WithoutCancel(ctx))
	// Statistics missing from a big file (an interrupted seed, an import)
	// take seconds to gather at 1M listings: gather them in the background
	// so start-up stays O(1); queries only plan worse until they exist.
	if d.statisticsMissing(ctx) { // decided now, before anything else writes
		d.bg.Go(func() { d.Analyze(ctx) })
	}
	d.startWarmUp(ctx, readConns)
}

// Planner statistics: without them SQLite may scan every listing for a
// query that touches a dozen rows; with statistics taken while tables were
// tiny it makes the same mistake as they grow. So statistics are taken once
// a database holds real data (Analyze, after seeding and at open when
// missing) and refreshed by PRAGMA optimize (hourly and at close), which
// re-analyzes tables whose size changed a lot. analysis_limit keeps each
// run fast on big files.

// Analyze takes planner statistics of every table.
func (d *DB) Analyze(ctx context.Context) error {
	_, err := d.W.ExecContext(ctx, `PRAGMA analysis_limit=1000; ANALYZE;`)
	return err
}

// Optimize refreshes statistics that went stale.
func (d *DB) Optimize(ctx context.Context) error {
	_, err := d.W.ExecContext(ctx, `PRAGMA analysis_limit=1000; PRAGMA optimize;`)
	return err
}

// statisticsMissing is true for a database with real data but no
// statistics.
func (d *DB) statisticsMissing(ctx context.Context) bool {
	var stats, rows int
	if err := d.W.QueryRowContext(ctx, `SELECT count(*) FROM sqlite_master WHERE name = 'sqlite_stat1'`).Scan(&stats); err != nil || stats > 0 {
		return false
	}
	err := d.W.QueryRowContext(ctx, `SELECT count(*) FROM (SELECT 1 FROM listings LIMIT 1000)`).Scan(&rows)
	return err == nil && rows >= 1000
}

// Close closes both pools; the writer last so the WAL is checkpointed.
func (d *DB) Close() error {
	d.stopFTSMerger()
	d.stopRebuilder()
	d.stopCheckpointer()
	if d.bgStop != nil {
		d.bgStop()
	}
	d.bg.Wait()
	var errs []error
	d.rstmts.close()
	d.wstmts.close()
	if d.R != nil {
		errs = append(errs, d.R.Close())
	}
	if d.replica { // nothing to optimize or checkpoint in a read-only copy
		return errors.Join(append(errs, d.W.Close())...)
	}
	if d.ftsNotes { // the notes group commits left (fts.go, deferred notes)
		if err := d.applyNotes(context.Background()); err != nil {
			errs = append(errs, err)
		}
	}
	if _, err := d.W.Exec("PRAGMA analysis_limit=1000; PRAGMA optimize; PRAGMA wal_checkpoint(TRUNCATE)"); err != nil {
		errs = append(errs, err)
	}
	errs = append(errs, d.W.Close())
	return errors.Join(errs...)
}

// Tx runs fn in one write transaction (BEGIN IMMEDIATE via _txlock).
func (d *DB) Tx(ctx context.Context, fn func(tx *sql.Tx) error) error {
	tx, err := d.W.BeginTx(ctx, nil)
	if err != nil {
		return mapErr(err)
	}
	if err := fn(tx); err != nil {
		tx.Rollback()
		return mapErr(err)
	}
	if _, err := d.rebuildProfiles(ctx, tx, inlineProfiles); err != nil {
		tx.Rollback()
		return mapErr(err)
	}
	if err := d.syncFTS(ctx, tx); err != nil {
		tx.Rollback()
		return mapErr(err)
	}
	if err := markIdemEffect(ctx, tx); err != nil {
		tx.Rollback()
		return mapErr(err)
	}
	err = tx.Commit()
	d.rc.gen.Add(1) // the commit is visible now (see readcache.go)
	d.wstmts.prepareWanted(ctx, d.W)
	d.restartWAL()
	d.kickFTSMerge()
	return mapErr(err)
}

// markIdemEffect records, in the request's own write transaction, that an
// idempotent request's effect is committing (see ops.IdemClaim and
// migration 0005): the effect and this mark commit or vanish together.
func markIdemEffect(ctx context.Context, tx *sql.Tx) error {
	c, ok := ops.IdemClaimFrom(ctx)
	if !ok {
		return nil
	}
	_, err := tx.ExecContext(ctx, `UPDATE idempotency_keys SET effect_at = strftime('%Y-%m-%dT%H:%M:%fZ','now')
		WHERE user_id = ? AND key = ? AND state = 'running' AND effect_at IS NULL`, c.UserID, c.Key)
	return err
}

// Execer writes inside a transaction (a *sql.Tx or Queries).
type Execer interface {
	ExecContext(ctx context.Context, query string, args ...any) (sql.Result, error)
}

// StoreIdemResponse stores body as the response of ctx's idempotent
// request inside the effect's own transaction q, so the effect and the
// response commit together (or neither does). Without a claim in ctx it
// does nothing.
func StoreIdemResponse(ctx context.Context, q Execer, body []byte) error {
	c, ok := ops.IdemClaimFrom(ctx)
	if !ok {
		return nil
	}
	_, err := q.ExecContext(ctx, `UPDATE idempotency_keys SET state = 'done', response_status = ?, response_body = ?,
		effect_at = coalesce(effect_at, strftime('%Y-%m-%dT%H:%M:%fZ','now')) WHERE user_id = ? AND key = ?`, c.Status, body, c.UserID, c.Key)
	if err == nil {
		c.MarkStored()
	}
	return err
}

// SetIdemRecovery records, inside an effect's transaction, where a retry
// of ctx's idempotent request resumes if the process dies before the
// response is stored (an order number, say; see createCheckout).
func SetIdemRecovery(ctx context.Context, q Execer, point string) error {
	c, ok := ops.IdemClaimFrom(ctx)
	if !ok {
		return nil
	}
	_, err := q.ExecContext(ctx, `UPDATE idempotency_keys SET recovery = ? WHERE user_id = ? AND key = ?`, point, c.UserID, c.Key)
	return err
}

// mapErr turns SQLite constraint failures into domain errors.
func mapErr(err error) error {
	if err == nil {
		return nil
	}
	var oe *ops.Error
	if errors.As(err, &oe) {
		return err
	}
	var se *sqlite.Error
	if errors.As(err, &se) {
		switch se.Code() {
		case sqlite3.SQLITE_CONSTRAINT_UNIQUE, sqlite3.SQLITE_CONSTRAINT_PRIMARYKEY:
			return &ops.Error{Code: ops.CodeConflict, Detail: "this already exists"}
		case sqlite3.SQLITE_CONSTRAINT_FOREIGNKEY:
			return &ops.Error{Code: ops.CodeInvalid, Detail: "refers to something that does not exist"}
		case sqlite3.SQLITE_CONSTRAINT_CHECK, sqlite3.SQLITE_CONSTRAINT_NOTNULL:
			return &ops.Error{Code: ops.CodeInvalid, Detail: "a value breaks a data rule (out of range or missing)"}
		case sqlite3.SQLITE_BUSY, sqlite3.SQLITE_LOCKED:
			return &ops.Error{Code: ops.CodeUnavailable, Detail: "the database is busy, retry shortly"}
		}
	}
	return err
}

// IsUnique reports a UNIQUE or PRIMARY KEY violation (raw from a *sql.Tx or
// already mapped by Tx).
func IsUnique(err error) bool {
	var se *sqlite.Error
	if errors.As(err, &se) {
		return se.Code() == sqlite3.SQLITE_CONSTRAINT_UNIQUE || se.Code() == sqlite3.SQLITE_CONSTRAINT_PRIMARYKEY
	}
	var oe *ops.Error
	return errors.As(err, &oe) && oe.Code == ops.CodeConflict
}

// IsNoRows reports sql.ErrNoRows.
func IsNoRows(err error) bool { return errors.Is(err, sql.ErrNoRows) }
