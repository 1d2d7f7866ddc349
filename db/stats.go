package db

import "sync/atomic"

// Counters for the metrics endpoint; the db package keeps plain atomics so
// it needs no metrics library of its own.
type dbStats struct {
	cacheHits, cacheMisses atomic.Uint64
	onBatch                atomic.Pointer[func(n int)]
	walRestarts            atomic.Uint64 // restartWAL's RESTART checkpoints
	walRestartFails        atomic.Uint64 // tries a reader of old frames prevented
}

// WALRestarts is how many times the writer restarted a long WAL since
// open (checkpoint.go).
func (d *DB) WALRestarts() uint64 { return d.stats.walRestarts.Load() }

// WALRestartFails is how many of those tries a reader of old frames (a
// replication's read lock, a backup) prevented.
func (d *DB) WALRestartFails() uint64 { return d.stats.walRestartFails.Load() }

// ReadCacheStats is the read cache's hits and misses since open.
func (d *DB) ReadCacheStats() (hits, misses uint64) {
	return d.stats.cacheHits.Load(), d.stats.cacheMisses.Load()
}

// OnWriteBatch sets a function told the size of every group commit
// (edits committed together by one transaction, see group.go).
func (d *DB) OnWriteBatch(f func(n int)) { d.stats.onBatch.Store(&f) }

func (d *DB) observeBatch(n int) {
	if f := d.stats.onBatch.Load(); f != nil {
		(*f)(n)
	}
}
