package db

import (
	"context"
	"fmt"
	"sync"
	"time"
)

// Counting a large result set costs O(rows) in SQLite (about 5 ms per
// 100k index entries), which would dominate list latency at 100k listings.
// Public list totals above countCacheMin are therefore cached for
// countCacheTTL: a big total may lag writes by seconds; small totals, which
// people can check by eye, are always exact.
const (
	countCacheMin = 1000
	countCacheTTL = 30 * time.Second
)

type countEntry struct {
	n  int
	at time.Time
}

type countCache struct {
	mu sync.Mutex
	m  map[string]countEntry
}

func (c *countCache) get(key string, now time.Time) (int, bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	e, ok := c.m[key]
	if !ok || now.Sub(e.at) > countCacheTTL {
		return 0, false
	}
	return e.n, true
}

func (c *countCache) put(key string, n int, now time.Time) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.m == nil || len(c.m) > 10000 {
		c.m = map[string]countEntry{} // bounded: drop everything rather than grow
	}
	c.m[key] = countEntry{n: n, at: now}
}

// PublicCount runs a count query for a public list total, caching totals
// above countCacheMin briefly.
func (d *DB) PublicCount(ctx context.Context, query string, args ...any) (int, error) {
	key := query + fmt.Sprint(args...)
	now := time.Now()
	if n, ok := d.counts.get(key, now); ok {
		return n, nil
	}
	var n int
	if err := d.R.QueryRowContext(ctx, query, args...).Scan(&n); err != nil {
		return 0, err
	}
	if n > countCacheMin {
		d.counts.put(key, n, now)
	}
	return n, nil
}
