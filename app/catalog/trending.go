package catalog

import (
	"context"
	"database/sql"
	"encoding/json"
	"time"

	"launchdir/db"
)

// Trending. A listing's trending score weighs each counted vote by its age:
// 1 for a vote of the last 7 days, exp(-(age-7)/7) for an older one (the
// score the demo seeds). A vote adds 1 the moment it is cast (countVote);
// RefreshTrending, hourly, lets the older votes decay.

// trendingWindow: a vote older than this weighs under exp(-7) ≈ 0.0009,
// below the score's precision (3 decimals), so it is left out.
const trendingWindow = 56 * 24 * time.Hour

// trendingBatch bounds the listings one refresh transaction rewrites, so
// the writer is never held long. Measured at 1M listings (412k scored):
// 500 per transaction held the writer ~18 ms each (15 s in all), 200 holds
// it ~11 ms (23 s in all, BenchmarkRefreshTrending); at 20k, 0.17 s.
const trendingBatch = 200

// RefreshTrending recomputes the trending score of every listing with a
// counted vote in the window or a score above 0, in batches.
func (a *Service) RefreshTrending(ctx context.Context) error {
	start, now := time.Now(), a.Now().UTC()
	since := now.Add(-trendingWindow).Format(time.RFC3339)
	ids, err := db.Column[int64](ctx, a.DB.R, `SELECT listing_id FROM votes WHERE counted AND created_at >= ?1
		UNION SELECT id FROM listings WHERE trending > 0`, since)
	if err != nil {
		return err
	}
	listings := len(ids)
	for len(ids) > 0 {
		n := min(len(ids), trendingBatch)
		batch, err := json.Marshal(ids[:n])
		if err != nil {
			return err
		}
		ids = ids[n:]
		err = a.DB.Tx(ctx, func(tx *sql.Tx) error {
			_, err := tx.ExecContext(ctx, trendingSQL, now.Format(time.RFC3339), since, string(batch))
			return err
		})
		if err != nil {
			return err
		}
	}
	a.Log.Info("trending refreshed", "listings", listings, "took", time.Since(start).Round(time.Millisecond))
	return nil
}

// trendingSQL rewrites the scores of the listings in ?3 (a JSON array)
// whose score changed, from their counted votes since ?2 at time ?1.
const trendingSQL = `WITH ids(id) AS (SELECT value FROM json_each(?3)),
	s AS (SELECT ids.id, coalesce((SELECT round(sum(CASE WHEN d <= 7 THEN 1.0 ELSE exp(-(d - 7) / 7.0) END), 3)
		FROM (SELECT julianday(?1) - julianday(v.created_at) AS d FROM votes v
			WHERE v.listing_id = ids.id AND v.counted AND v.created_at >= ?2)), 0) AS score FROM ids)
	UPDATE listings SET trending = s.score FROM s WHERE listings.id = s.id AND listings.trending IS NOT s.score`
