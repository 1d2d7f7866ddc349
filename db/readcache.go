package db

import (
	"context"
	"fmt"
	"strconv"
	"sync"
	"sync/atomic"

	"launchdir/ops"

	"golang.org/x/sync/singleflight"
	"modernc.org/sqlite"
)

// The read cache keeps the results of the hottest public reads (a live
// listing's profile, a search page) until the next write. Every commit of
// the writer connection bumps a generation number; an entry is served only
// while the generation it was read under is still current, so a cached
// result is never older than the last write: no staleness, only less work.
//
// The generation is bumped twice per write: by SQLite's commit hook (which
// catches every write, including statements run outside Tx) and again after
// Tx's commit has returned. The hook runs just before the commit becomes
// visible, so a read starting in between could see the old data under the
// new generation; the second bump retires such an entry.
//
// Cached values are shared between requests: callers must not modify them.
const readCacheMax = 2000 // entries; a listing profile is ~10 KB in memory

type readCache struct {
	gen    atomic.Uint64
	mu     sync.Mutex
	m      map[string]readEntry
	newest uint64 // the generation of the newest entry in m
	flight singleflight.Group
}

type readEntry struct {
	gen uint64
	v   any
}

// Invalidate retires every cached read (after a write outside this process's
// writer, e.g. a restore).
func (d *DB) Invalidate() { d.rc.gen.Add(1) }

func (c *readCache) get(key string, gen uint64) (any, bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	e, ok := c.m[key]
	if !ok || e.gen != gen {
		return nil, false
	}
	return e.v, true
}

func (c *readCache) put(key string, gen uint64, v any) {
	c.mu.Lock()
	defer c.mu.Unlock()
	switch {
	case gen < c.newest:
		return // read before a write another entry was read after: never served
	case gen > c.newest || c.m == nil:
		// Entries of an older generation are never served again: let
		// them go at once. Kept until evicted, a stream of writes left up
		// to readCacheMax dead entries (about 20 MB) for the collector to
		// walk and the heap to double.
		clear(c.m)
		if c.m == nil {
			c.m = map[string]readEntry{}
		}
		c.newest = gen
	}
	if len(c.m) >= readCacheMax {
		// Drop an eighth of the entries (Go starts each map walk at a
		// random place): amortized O(1) per put. Walking the whole map for
		// stale entries on every put cost 18% of the CPU of uncached
		// profile reads, which miss on every request (issue 26).
		drop := readCacheMax / 8
		for k := range c.m {
			if drop == 0 {
				break
			}
			delete(c.m, k)
			drop--
		}
	}
	c.m[key] = readEntry{gen, v}
}

// memo returns the cached value of key or computes it with fn; concurrent
// misses of one key in one generation run fn once.
func memo[T any](ctx context.Context, d *DB, key string, fn func(ctx context.Context) (T, error)) (T, error) {
	key = siteKeyPrefix(ctx) + key
	gen := d.rc.gen.Load()
	if p := d.pin(ctx); p != nil {
		gen = p.gen // its snapshot may be older than the current generation
	}
	if v, ok := d.rc.get(key, gen); ok {
		d.stats.cacheHits.Add(1)
		return v.(T), nil
	}
	d.stats.cacheMisses.Add(1)
	v, err, _ := d.rc.flight.Do(strconv.FormatUint(gen, 10)+" "+key, func() (any, error) {
		v, err := fn(context.WithoutCancel(ctx))
		if err == nil {
			d.rc.put(key, gen, v)
		}
		return v, err
	})
	if err != nil {
		var zero T
		return zero, err
	}
	return v.(T), nil
}

// watchWrites registers the commit hook on the writer's connection.
func (d *DB) watchWrites(ctx context.Context) error {
	c, err := d.W.Conn(ctx)
	if err != nil {
		return err
	}
	defer c.Close()
	return c.Raw(func(dc any) error {
		if sc, ok := dc.(*stmtConn); ok {
			dc = sc.unwrap()
		}
		h, ok := dc.(sqlite.HookRegisterer)
		if !ok {
			return fmt.Errorf("sqlite driver connection %T has no commit hook", dc)
		}
		h.RegisterCommitHook(func() int32 {
			if d.fts.stepping.Load() {
				// A full-text merge changes no row (ftsmerge.go): the
				// read cache and the owner-parts cache stay valid.
				d.fts.commits.Add(1)
				return 0
			}
			d.rc.gen.Add(1)
			d.parts.wcommits.Add(1)
			d.fts.noteCommit() // the writer is not idle (ftsmerge.go)
			return 0
		})
		return nil
	})
}

// Cached is memo for other packages: the value of key in the current write
// generation, computed once by fn (concurrent misses share the call).
// Callers must not modify the shared result.
func Cached[T any](ctx context.Context, d *DB, key string, fn func(ctx context.Context) (T, error)) (T, error) {
	return memo(ctx, d, key, fn)
}

// LiveListingJSON is the live listing's public profile encoded as the API
// serves it, kept encoded in the read cache (its own entry: the hot path
// never holds the decoded profile as well); a miss reads the ready-made
// profile (profiles.go).
func (d *DB) LiveListingJSON(ctx context.Context, slug string) (ops.Encoded, error) {
	return memo(ctx, d, "listing json "+slug, func(ctx context.Context) (ops.Encoded, error) {
		return d.liveListingEncoded(ctx, slug)
	})
}

// LiveListing is the public profile of the live listing with this slug,
// from the read cache (shared: do not modify).
func (d *DB) LiveListing(ctx context.Context, slug string) (*Listing, error) {
	return memo(ctx, d, "listing "+slug, func(ctx context.Context) (*Listing, error) {
		return d.GetListingBy(ctx, d.R, "l.slug = ? AND l.status = 'live'", slug)
	})
}

type searchResult struct {
	items []Summary
	total Total
}

// CachedSearch is SearchListingsTotal through the read cache (the items are
// shared: do not modify).
func (d *DB) CachedSearch(ctx context.Context, f SearchFilter) ([]Summary, Total, error) {
	r, err := memo(ctx, d, fmt.Sprintf("search %+v", f), func(ctx context.Context) (searchResult, error) {
		items, t, err := d.SearchListingsTotal(ctx, f)
		return searchResult{items, t}, err
	})
	return r.items, r.total, err
}
