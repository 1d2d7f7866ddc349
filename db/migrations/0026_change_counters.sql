-- Change counters (issue 26): a number a trigger raises in the writing
-- transaction whenever something a derived value depends on changes, so a
-- value kept in memory is reused until its counter moves instead of until
-- the next commit of anything. Raising it too often only costs a recount.
--
-- week_launches: which listings a week's launches count (db.WeekRankFrom:
-- the launches rows, the listings' live or scheduled status). A week page
-- counted its launches on every request (871 rows a week at 100k), and the
-- read cache that kept the total was retired by every write (an owner's
-- tagline, a vote); neither changes a week's count.
CREATE TABLE change_counters (
  name TEXT PRIMARY KEY,
  n    INTEGER NOT NULL
) WITHOUT ROWID;
INSERT INTO change_counters(name, n) VALUES ('week_launches', 0);

CREATE TRIGGER launches_counter_ai AFTER INSERT ON launches BEGIN
  UPDATE change_counters SET n = n + 1 WHERE name = 'week_launches';
END;
CREATE TRIGGER launches_counter_ad AFTER DELETE ON launches BEGIN
  UPDATE change_counters SET n = n + 1 WHERE name = 'week_launches';
END;
CREATE TRIGGER launches_counter_au AFTER UPDATE OF week, listing_id ON launches BEGIN
  UPDATE change_counters SET n = n + 1 WHERE name = 'week_launches';
END;
CREATE TRIGGER listings_counter_status AFTER UPDATE OF status ON listings
WHEN (old.status IN ('live','scheduled')) IS NOT (new.status IN ('live','scheduled')) BEGIN
  UPDATE change_counters SET n = n + 1 WHERE name = 'week_launches';
END;
CREATE TRIGGER listings_counter_ad AFTER DELETE ON listings BEGIN
  UPDATE change_counters SET n = n + 1 WHERE name = 'week_launches';
END;
