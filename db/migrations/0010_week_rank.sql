-- A week's launches in index order (issue 11): the ranking is live first,
-- then scheduled; by the votes of the listing's own launch week, then all
-- votes, then id. The week's votes live in weekly_votes, so ranking a week
-- read and sorted every listing of it (8,300 at 1M listings, 15 ms). The
-- listing now carries the votes of its launch week, kept exact by the
-- triggers below in the writing transaction (votes, recounts, moderation,
-- imports, rescheduling all go through weekly_votes or launch_week), and
-- one partial index orders a week as the page query does: a page reads
-- offset+limit index entries (rowid last gives the id ASC ties).
ALTER TABLE listings ADD COLUMN launch_week_votes INTEGER NOT NULL DEFAULT 0;

-- OR IGNORE: this UPDATE cannot abort half-way, so SQLite keeps no
-- statement journal of every page it changes (in memory here: 1 GB of RSS
-- at 1M listings, 150 -> 60 MB at 100k); the value is never NULL anyway.
UPDATE OR IGNORE listings SET launch_week_votes = (SELECT votes FROM weekly_votes w WHERE w.week = listings.launch_week AND w.listing_id = listings.id)
WHERE launch_week IS NOT NULL AND EXISTS (SELECT 1 FROM weekly_votes w WHERE w.week = listings.launch_week AND w.listing_id = listings.id AND w.votes != 0);

CREATE INDEX listings_week_rank ON listings(launch_week, status = 'scheduled', launch_week_votes DESC, votes DESC)
  WHERE status IN ('live','scheduled');

-- A count for another week than the listing's launch week changes nothing
-- (the WHERE matches no row), and neither does an unchanged count (no row
-- write, no index update on the vote path). A row moved to another week or
-- listing (no code does that today) is still followed: the old key is
-- cleared, then the new one set.
CREATE TRIGGER weekly_votes_week_rank_ai AFTER INSERT ON weekly_votes BEGIN
  UPDATE listings SET launch_week_votes = new.votes
  WHERE id = new.listing_id AND launch_week = new.week AND launch_week_votes != new.votes;
END;
CREATE TRIGGER weekly_votes_week_rank_moved AFTER UPDATE OF week, listing_id ON weekly_votes
WHEN old.week IS NOT new.week OR old.listing_id IS NOT new.listing_id BEGIN
  UPDATE listings SET launch_week_votes = 0
  WHERE id = old.listing_id AND launch_week = old.week AND launch_week_votes != 0;
END;
CREATE TRIGGER weekly_votes_week_rank_au AFTER UPDATE ON weekly_votes BEGIN
  UPDATE listings SET launch_week_votes = new.votes
  WHERE id = new.listing_id AND launch_week = new.week AND launch_week_votes != new.votes;
END;
CREATE TRIGGER weekly_votes_week_rank_ad AFTER DELETE ON weekly_votes BEGIN
  UPDATE listings SET launch_week_votes = 0
  WHERE id = old.listing_id AND launch_week = old.week AND launch_week_votes != 0;
END;
-- Rescheduled (or launched into another week): that week's count, if any.
CREATE TRIGGER listings_week_rank_au AFTER UPDATE OF launch_week ON listings
WHEN old.launch_week IS NOT new.launch_week BEGIN
  UPDATE listings SET launch_week_votes = coalesce(
    (SELECT votes FROM weekly_votes WHERE week = new.launch_week AND listing_id = new.id), 0)
  WHERE id = new.id;
END;
