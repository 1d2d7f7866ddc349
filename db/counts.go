package db

import (
	"context"
	"fmt"
	"sync"
	"time"

	"golang.org/x/sync/singleflight"
)

// Counting a large result set costs O(rows) in SQLite (about 5 ms per
// 100k index entries, far more through a full-text match), which would
// dominate list latency at 100k listings. So no request waits for a full
// count of a big set:
//   - unfiltered live/upcoming lists and category-only lists read counters
//     kept by triggers (listing_status_counts) or by RecountCategories
//     (categories.live_count): exact and O(1);
//   - other listing searches count at most countCap matches and report
//     countCap (or, for one word, an estimate from its newest matches) with
//     "total_is_estimate" when more match;
//   - totals above countCacheMin are cached for countCacheTTL; an expired
//     entry is still served (up to countStaleMax) while one background query
//     refreshes it, and concurrent identical counts run once (singleflight).
//
// Small totals, which people can check by eye, are always exact and fresh.
const (
	countCacheMin = 1000
	countCacheTTL = 30 * time.Second
	countStaleMax = 10 * time.Minute
)

// countCap bounds the rows a search total counts (a variable so tests can
// reach the bound with a small database).
var countCap = 10000

type countEntry struct {
	n        int
	estimate bool
	at       time.Time
}

type countCache struct {
	mu     sync.Mutex
	m      map[string]countEntry
	flight singleflight.Group
}

func (c *countCache) get(key string) (countEntry, bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	e, ok := c.m[key]
	return e, ok
}

func (c *countCache) put(key string, e countEntry) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.m == nil || len(c.m) > 10000 {
		c.m = map[string]countEntry{} // bounded: drop everything rather than grow
	}
	c.m[key] = e
}

// versioned is a value kept under the change counter it depends on.
type versioned struct {
	version int64
	v       any
}

// versionCounts holds values by key, each valid while its counter stands.
type versionCounts struct {
	mu sync.Mutex
	m  map[string]versioned
}

// atVersion is read(q) for key, read again only when change counter
// `counter` (migrations 0026, 0030) has moved since, exact either way: the
// counter is read first, so a value stored under a version is never older
// than that version's commit. Main's only: another site's rows (sites.go
// views) move no counter, so there it reads every time.
func atVersion[T any](ctx context.Context, d *DB, counter, key string, read func(q Queries) (T, error)) (T, error) {
	q := d.Prepared(d.R)
	if SiteOf(ctx) != MainSite {
		return read(q)
	}
	var v int64
	if err := q.QueryRowContext(ctx, `SELECT n FROM change_counters WHERE name = `+TextArg, counter).Scan(&v); err != nil {
		var zero T
		return zero, err
	}
	key = counter + " " + key
	c := &d.vcounts
	c.mu.Lock()
	e, ok := c.m[key]
	c.mu.Unlock()
	if ok && e.version == v {
		return e.v.(T), nil
	}
	val, err := read(q)
	if err != nil {
		return val, err
	}
	c.mu.Lock()
	if c.m == nil || len(c.m) >= 1024 {
		c.m = map[string]versioned{} // bounded: keys come from request input (weeks, days)
	}
	if old, ok := c.m[key]; !ok || old.version <= v {
		c.m[key] = versioned{v, val}
	}
	c.mu.Unlock()
	return val, nil
}

// Total is a list total; Estimate says N is not exact (more rows match
// than were counted).
type Total struct {
	N        int
	Estimate bool
}

// cached serves key from the cache, computing it with fn at most once at a
// time. A stale entry is served at once while fn refreshes it in the
// background, so only the first request for a key ever waits for fn.
func (d *DB) cached(ctx context.Context, key string, fn func(ctx context.Context) (Total, error)) (Total, error) {
	key = siteKeyPrefix(ctx) + key
	now := time.Now()
	e, ok := d.counts.get(key)
	age := now.Sub(e.at)
	if ok && age <= countCacheTTL {
		return Total{e.n, e.estimate}, nil
	}
	run := func() (any, error) {
		// Detached from the request: a refresh outlives the request that
		// started it, and a waiting request's cancellation must not fail the others.
		// Nor on its pin (pin.go): a background refresh may outlive it.
		t, err := fn(Unpinned(context.WithoutCancel(ctx)))
		if err == nil && t.N > countCacheMin {
			d.counts.put(key, countEntry{t.N, t.Estimate, time.Now()})
		}
		return t, err
	}
	if ok && age <= countStaleMax {
		d.counts.flight.DoChan(key, run) // refresh in the background
		return Total{e.n, e.estimate}, nil
	}
	select {
	case r := <-d.counts.flight.DoChan(key, run):
		if r.Err != nil {
			return Total{}, r.Err
		}
		return r.Val.(Total), nil
	case <-ctx.Done():
		return Total{}, ctx.Err()
	}
}

// PublicCount runs an exact count query for a public list total, caching
// totals above countCacheMin (see cached).
func (d *DB) PublicCount(ctx context.Context, query string, args ...any) (int, error) {
	t, err := d.cached(ctx, query+fmt.Sprint(args...), func(ctx context.Context) (Total, error) {
		var n int
		err := d.R.QueryRowContext(ctx, query, args...).Scan(&n)
		return Total{N: n}, err
	})
	return t.N, err
}

// BoundedCount is boundedCount without an estimate, for lists outside this
// package: query selects the matching rows (SELECT 1 FROM …).
func (d *DB) BoundedCount(ctx context.Context, query string, args ...any) (Total, error) {
	return d.boundedCount(ctx, query, args, nil)
}

// boundedCount counts the rows of a query (a SELECT of anything) up to
// countCap; beyond that the total is an estimate: estimate() if given and
// larger, else countCap.
func (d *DB) boundedCount(ctx context.Context, query string, args []any, estimate func(ctx context.Context) (int, error)) (Total, error) {
	return d.cached(ctx, "bounded:"+query+fmt.Sprint(args...), func(ctx context.Context) (Total, error) {
		var n int
		err := d.Prepared(d.R).QueryRowContext(ctx, fmt.Sprintf("SELECT count(*) FROM (%s LIMIT %d)", query, countCap+1), args...).Scan(&n)
		if err != nil || n <= countCap {
			return Total{N: n}, err
		}
		t := Total{N: countCap, Estimate: true}
		if estimate != nil {
			if e, err := estimate(ctx); err == nil && e > t.N {
				t.N = e
			}
		}
		return t, nil
	})
}

// StatusCount is the number of listings with a status, from the counter
// the listing triggers maintain (exact, O(1)).
func (d *DB) StatusCount(ctx context.Context, status string) (int, error) {
	return statusCountIn(ctx, d.Prepared(d.R), status)
}

// statusCountIn is StatusCount on q: inside a read transaction, on its
// connection (asking the pool for another while holding one can wait
// forever once every connection is held so).
func statusCountIn(ctx context.Context, q Queries, status string) (int, error) {
	var n int
	err := q.QueryRowContext(ctx, `SELECT coalesce((SELECT n FROM listing_status_counts WHERE status = ?), 0)`, status).Scan(&n)
	return n, err
}
