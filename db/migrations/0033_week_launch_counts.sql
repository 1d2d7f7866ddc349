-- The number of launches in each week whose listing is live or scheduled
-- (db.WeekLaunches' total, the home page's "this week" and the week
-- pages), kept by triggers (issue 26). Counting it read each of the week's
-- launches in the listings index: 8,574 seeks at 1M listings, 31–60 ms on
-- a fresh server's first home page. The change counter week_launches
-- (0026) kept it from being counted again, but not the first time.
CREATE TABLE week_launch_counts (
  week TEXT PRIMARY KEY,
  n    INTEGER NOT NULL
) WITHOUT ROWID;

INSERT INTO week_launch_counts(week, n)
  SELECT n.week, count(*) FROM launches n JOIN listings l ON l.id = n.listing_id
  WHERE l.status IN ('live','scheduled') GROUP BY n.week;

-- A launch counts while its listing is live or scheduled. A launch whose
-- listing does not exist (deleted with foreign keys off) never counts.
CREATE TRIGGER launches_counts_ai AFTER INSERT ON launches
WHEN EXISTS (SELECT 1 FROM listings WHERE id = new.listing_id AND status IN ('live','scheduled')) BEGIN
  INSERT INTO week_launch_counts(week, n) VALUES (new.week, 1)
    ON CONFLICT(week) DO UPDATE SET n = n + 1;
END;
CREATE TRIGGER launches_counts_ad AFTER DELETE ON launches
WHEN EXISTS (SELECT 1 FROM listings WHERE id = old.listing_id AND status IN ('live','scheduled')) BEGIN
  UPDATE week_launch_counts SET n = n - 1 WHERE week = old.week;
END;
CREATE TRIGGER launches_counts_au AFTER UPDATE OF week, listing_id ON launches BEGIN
  UPDATE week_launch_counts SET n = n - 1 WHERE week = old.week
    AND EXISTS (SELECT 1 FROM listings WHERE id = old.listing_id AND status IN ('live','scheduled'));
  INSERT INTO week_launch_counts(week, n)
    SELECT new.week, 1 WHERE EXISTS (SELECT 1 FROM listings WHERE id = new.listing_id AND status IN ('live','scheduled'))
    ON CONFLICT(week) DO UPDATE SET n = n + 1;
END;

-- A listing that becomes (or stops being) live or scheduled moves all its
-- launches in or out.
CREATE TRIGGER listings_counts_status AFTER UPDATE OF status ON listings
WHEN (old.status IN ('live','scheduled')) IS NOT (new.status IN ('live','scheduled')) BEGIN
  INSERT INTO week_launch_counts(week, n)
    SELECT week, CASE WHEN new.status IN ('live','scheduled') THEN count(*) ELSE -count(*) END
    FROM launches WHERE listing_id = new.id GROUP BY week
    ON CONFLICT(week) DO UPDATE SET n = n + excluded.n;
END;
-- A listing deleted: its launches go with it (ON DELETE CASCADE), after
-- the listing row, when launches_counts_ad no longer finds it; so they are
-- taken out here, before.
CREATE TRIGGER listings_counts_bd BEFORE DELETE ON listings
WHEN old.status IN ('live','scheduled') BEGIN
  UPDATE week_launch_counts SET n = n - (SELECT count(*) FROM launches WHERE listing_id = old.id AND week = week_launch_counts.week)
    WHERE week IN (SELECT week FROM launches WHERE listing_id = old.id);
END;

-- The change counter week_launches (0026) kept a counted total; with the
-- total kept here nothing reads it, so its triggers go (they were a write
-- on every launch and status change).
DROP TRIGGER launches_counter_ai;
DROP TRIGGER launches_counter_ad;
DROP TRIGGER launches_counter_au;
DROP TRIGGER listings_counter_status;
DROP TRIGGER listings_counter_ad;
DELETE FROM change_counters WHERE name = 'week_launches';
