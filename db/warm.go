package db

import (
	"context"
	"database/sql"
	"errors"
	"sync"
	"time"
)

// Warming the read connections at start.
//
// A fresh process pays for memory the first time it touches it: each read
// connection's page cache is empty and grows one page at a time, each new
// page a fresh allocation whose memory the kernel maps on first touch.
// Measured over the first 3,000 uncached gets after a start (8 starts, c=8,
// 100k): 57 µs of server CPU per get against 46 µs from the fourth
// thousand on, with 12,000 page faults in the first round and none after
// the second. So once the file is open, each read connection is opened in
// the background and fills its page cache the way gets will use it:
// lookups of ready-made profiles spread over the whole table, which read
// its interior pages (every later get walks them) and a leaf per probe,
// until the cache is full.

// warmProbes is the lookups per connection: about its page cache's size
// in pages (4 MB of 4 KB pages), so at 100k listings the probes read
// nearly every interior page (about 330) and fill the rest with leaves.
const warmProbes = 1024

// The warm-up must hold its connections all at once (a released one is
// the next one handed out), but a reader may hold a connection while it
// waits for another, and the warm-up holding the rest would stall it. So
// the warm-up takes a connection only while the pool has one idle or room
// to open one, and gives up on a wait longer than warmWait (another reader
// took the last one first). A busy pool is warming itself anyway.
const warmWait = 200 * time.Millisecond

// warmUp is the running warm-up, if any.
type warmUp struct {
	cancel context.CancelFunc
	done   chan struct{} // nil: none started
}

// startWarmUp starts warming the read connections when the file has
// ready-made profiles: decided at open, before anything else writes, so
// a seeder that fills an empty file never has the warm-up beside it.
func (d *DB) startWarmUp(ctx context.Context, readConns int) {
	if !d.profiles {
		return
	}
	var found int
	// On the writer, which is open anyway: a reader opened here would stay
	// open beside the seeder.
	if err := d.W.QueryRowContext(ctx, `SELECT count(*) FROM (SELECT 1 FROM listing_profiles LIMIT 1)`).Scan(&found); err != nil || found == 0 {
		return // nothing to warm
	}
	ctx, cancel := context.WithCancel(ctx)
	d.warm = warmUp{cancel: cancel, done: make(chan struct{})}
	d.bg.Go(func() {
		defer close(d.warm.done)
		d.warmReaders(ctx, readConns)
	})
}

// stopWarmUp ends the warm-up and waits for it to let go of the read
// connections (the seeder's leaveWAL needs them closed).
func (d *DB) stopWarmUp() {
	if d.warm.done != nil {
		d.warm.cancel()
		<-d.warm.done
	}
}

// warmReaders opens up to n read connections at once and warms each. A
// request that arrives meanwhile waits for a connection at most one
// warm-up (a few milliseconds; longer only on a cold disk).
func (d *DB) warmReaders(ctx context.Context, n int) error {
	conns := make([]*sql.Conn, 0, n)
	defer func() {
		for _, c := range conns {
			c.Close()
		}
	}()
	for range n {
		if st := d.R.DB.Stats(); st.Idle == 0 && st.OpenConnections >= st.MaxOpenConnections {
			break // every connection is in use: warm the ones it has
		}
		wctx, cancel := context.WithTimeout(ctx, warmWait)
		c, err := d.R.DB.Conn(wctx)
		cancel()
		if err != nil {
			break // taken first, or closing
		}
		conns = append(conns, c)
	}
	errs := make([]error, len(conns))
	var wg sync.WaitGroup
	for i, c := range conns {
		wg.Go(func() { errs[i] = warmConn(ctx, c) })
	}
	wg.Wait()
	return errors.Join(errs...)
}

// warmConn runs the probes on one connection, in one read transaction so
// the snapshot and its locks are taken once. The probes go by listing id,
// which is dense, rather than by key: slugs that differ in their last
// characters have keys close together, so keys cluster and even slices of
// the key space would miss most of the tree.
func warmConn(ctx context.Context, c *sql.Conn) error {
	tx, err := c.BeginTx(ctx, &sql.TxOptions{ReadOnly: true})
	if err != nil {
		return err
	}
	defer tx.Rollback()
	var last sql.NullInt64
	if err := tx.QueryRowContext(ctx, `SELECT max(listing_id) FROM listing_profiles`).Scan(&last); err != nil || !last.Valid {
		return err
	}
	// live_votes sits before the json in the row, so a probe reads the
	// row's leaf page but not the json's overflow pages.
	st, err := tx.PrepareContext(ctx, `SELECT live_votes FROM listing_profiles WHERE listing_id = `+IntArg)
	if err != nil {
		return err
	}
	defer st.Close()
	var votes int64
	start := time.Now()
	for i := range int64(warmProbes) {
		err := st.QueryRowContext(ctx, 1+i*last.Int64/warmProbes).Scan(&votes)
		if err != nil && !IsNoRows(err) { // a listing with no profile is a probe like any other
			return err
		}
		if i == warmSample-1 && time.Since(start) > warmSample*coldProbe {
			return nil // the file is not in the OS cache: see coldProbe
		}
	}
	return nil
}

// The warm-up is for memory, not the disk. When the file is not in the OS
// cache (the first start after a boot), each probe is a disk read: from a
// dropped cache at 1M listings the warm-up then made the start 70–190 ms
// slower and competed with the first requests for the disk. So a
// connection stops after warmSample probes that took longer than
// coldProbe each on average; from the OS cache a probe takes 5–20 µs.
// On a machine too busy to run them that fast a connection stops early
// too, and warms with its first requests, as without the warm-up.
const warmSample = 64

var coldProbe = 100 * time.Microsecond // a var for the test
