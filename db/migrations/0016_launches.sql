-- One truth for "this week's rank" (issue 23). A listing's launches are
-- rows of their own: its first launch week (listings.launch_week, kept here
-- by triggers) and every paid relaunch, which adds a week while the listing
-- stays live. Each row carries the counted votes of that week (kept from
-- weekly_votes by triggers, in the writing transaction). The week page, the
-- home page, the weekly community board, the badge and the Launch of the
-- Week awards all read the same rows in the same order:
--   votes in that week DESC, then the lower listing id (the older listing).
-- The tie rule no longer uses all-time votes, so a finished week's order is
-- frozen once the week ends and always agrees with the awards given for it.
CREATE TABLE launches (
  week       TEXT NOT NULL,
  listing_id INTEGER NOT NULL REFERENCES listings(id) ON DELETE CASCADE,
  votes      INTEGER NOT NULL DEFAULT 0,
  relaunch   INTEGER NOT NULL DEFAULT 0, -- 1: bought as a relaunch; stays when launch_week moves
  PRIMARY KEY (week, listing_id)
) WITHOUT ROWID;
CREATE INDEX launches_rank ON launches(week, votes DESC, listing_id);
CREATE INDEX launches_listing ON launches(listing_id);

INSERT INTO launches(week, listing_id, votes)
SELECT launch_week, id, launch_week_votes FROM listings WHERE launch_week IS NOT NULL;

-- The listing-row copy of the launch week's votes (0010) gives way to the
-- launches rows: one count, one index.
DROP TRIGGER weekly_votes_week_rank_ai;
DROP TRIGGER weekly_votes_week_rank_moved;
DROP TRIGGER weekly_votes_week_rank_au;
DROP TRIGGER weekly_votes_week_rank_ad;
DROP TRIGGER listings_week_rank_au;
DROP INDEX listings_week_rank;
ALTER TABLE listings DROP COLUMN launch_week_votes;

CREATE TRIGGER weekly_votes_launch_ai AFTER INSERT ON weekly_votes BEGIN
  UPDATE launches SET votes = new.votes
  WHERE week = new.week AND listing_id = new.listing_id AND votes != new.votes;
END;
CREATE TRIGGER weekly_votes_launch_moved AFTER UPDATE OF week, listing_id ON weekly_votes
WHEN old.week IS NOT new.week OR old.listing_id IS NOT new.listing_id BEGIN
  UPDATE launches SET votes = 0 WHERE week = old.week AND listing_id = old.listing_id AND votes != 0;
END;
CREATE TRIGGER weekly_votes_launch_au AFTER UPDATE ON weekly_votes BEGIN
  UPDATE launches SET votes = new.votes
  WHERE week = new.week AND listing_id = new.listing_id AND votes != new.votes;
END;
CREATE TRIGGER weekly_votes_launch_ad AFTER DELETE ON weekly_votes BEGIN
  UPDATE launches SET votes = 0 WHERE week = old.week AND listing_id = old.listing_id AND votes != 0;
END;

-- The first launch week follows listings.launch_week: a new listing with a
-- week, a scheduled listing moved, a launch now. A relaunch row stays.
CREATE TRIGGER listings_launch_ai AFTER INSERT ON listings WHEN new.launch_week IS NOT NULL BEGIN
  INSERT OR IGNORE INTO launches(week, listing_id, votes) VALUES (new.launch_week, new.id,
    coalesce((SELECT votes FROM weekly_votes WHERE week = new.launch_week AND listing_id = new.id), 0));
END;
CREATE TRIGGER listings_launch_au AFTER UPDATE OF launch_week ON listings
WHEN old.launch_week IS NOT new.launch_week BEGIN
  DELETE FROM launches WHERE listing_id = new.id AND week = old.launch_week AND relaunch = 0;
  INSERT OR IGNORE INTO launches(week, listing_id, votes) SELECT new.launch_week, new.id,
    coalesce((SELECT votes FROM weekly_votes WHERE week = new.launch_week AND listing_id = new.id), 0)
  WHERE new.launch_week IS NOT NULL;
END;

-- Awards given before this rule to a listing that did not launch in that
-- week (or out of the week's order) are given again for that week, from
-- the same ranking; weeks whose awards already follow it are kept as they are.
CREATE TEMP TABLE award_redo AS
SELECT DISTINCT a.week FROM awards a
WHERE NOT EXISTS (SELECT 1 FROM launches n WHERE n.week = a.week AND n.listing_id = a.listing_id)
   OR a.rank != (SELECT 1 + count(*) FROM launches n JOIN listings l ON l.id = n.listing_id
                 WHERE n.week = a.week AND l.status IN ('live','scheduled')
                   AND (n.votes > a.votes OR (n.votes = a.votes AND n.listing_id < a.listing_id)));
DELETE FROM awards WHERE week IN (SELECT week FROM award_redo);
INSERT INTO awards(week, rank, listing_id, votes)
SELECT week, rk, listing_id, votes FROM (
  SELECT n.week, row_number() OVER (PARTITION BY n.week ORDER BY n.votes DESC, n.listing_id) AS rk, n.listing_id, n.votes
  FROM launches n JOIN listings l ON l.id = n.listing_id
  WHERE n.week IN (SELECT week FROM award_redo) AND l.status IN ('live','scheduled') AND n.votes > 0)
WHERE rk <= 3;
DROP TABLE award_redo;
