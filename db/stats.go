package db

import "sync/atomic"

// Counters for the metrics endpoint; the db package keeps plain atomics so
// it needs no metrics library of its own.
type dbStats struct {
	cacheHits, cacheMisses atomic.Uint64
	onBatch                atomic.Pointer[func(n int)]
}

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
