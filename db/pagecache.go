package db

import (
	_ "unsafe" // go:linkname, below

	"modernc.org/libc"
	sqlite3 "modernc.org/sqlite/lib"
)

// One page cache per connection, as SQLite builds them by default.
//
// modernc.org/sqlite is compiled with SQLITE_ENABLE_MEMORY_MANAGEMENT,
// which makes SQLite's page cache (pcache1) put every connection's pages
// in one process-wide pool behind one mutex. A connection at its own
// limit recycles the pool's oldest page, usually another connection's,
// and once the pool is over its total every page a connection releases
// is freed on the spot: that connection then reads each page from the OS
// again, every time. Measured at 1M listings with nine 4 MB readers: the
// founders count took 13 ms on a fresh connection and 64-70 ms on every
// run once the other readers had filled their caches, repeated runs
// included (52,000-67,000 reads of about 1,000 distinct pages).
//
// Without the flag pcache1 gives each connection a pool of its own. The
// flag's only other effect is on sqlite3_release_memory and the soft heap
// limit, neither of which launchdir uses. So after SQLite initializes
// (pcache1Init sets separateCache from the flag) and before any connection
// exists, separateCache is set back to 1: the same founders count then
// takes 8-10 ms on every connection.
//
// The driver's own route to a different page cache, sqlite.RegisterPageCache
// with modernc.org/sqlite/pcache, keeps caches apart too, but its Go
// callbacks cost 2.4x the CPU per cached page (19.1 against 7.9 ms for the
// same hot query). TestPageCachesArePerConnection fails if a driver update
// renames or reshapes the flag (the build fails first if the symbol goes).
//
//go:linkname pcache1Global modernc.org/sqlite/lib._pcache1_g
var pcache1Global sqlite3.TPCacheGlobal

func init() {
	tls := libc.NewTLS()
	defer tls.Close()
	if sqlite3.Xsqlite3_initialize(tls) != sqlite3.SQLITE_OK || pcache1Global.FisInit != 1 {
		return // SQLite's own default stays: shared, slower, correct
	}
	pcache1Global.FseparateCache = 1
}
