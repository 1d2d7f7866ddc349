-- The trending refresh (app.RefreshTrending) reads the counted votes of the
-- last 8 weeks; without this it would read every vote each hour.
CREATE INDEX votes_recent ON votes(created_at, listing_id) WHERE counted;
