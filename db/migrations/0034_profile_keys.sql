-- Ready-made profiles found by one b-tree (issue 26, ninth round). Every
-- commit empties every reader's page cache, and each page read back is a
-- system call: a get_listing read under a writer descended the slug index,
-- the profile table and listings_status_by_id (for the vote count), about
-- 11 page reads. Now:
--   - the row id is the slug's key (launchdir_slug_key, db/profilekey.go),
--     and the row keeps its slug, which a read compares;
--   - the row keeps its listing's current vote count (live_votes), kept by
--     the trigger below, so a read no longer joins listings. Whether the
--     listing is live is already in the note: a status change notes the
--     listing (listings_profile_au), and a rebuild of a listing that is not
--     live deletes its row.
-- live_votes comes before the JSON so that a vote rewrites the row's first
-- page only (SQLite overwrites a cell of unchanged size in place).
DROP TRIGGER listings_profile_ad;

CREATE TABLE listing_profiles_keyed (
  key        INTEGER PRIMARY KEY,
  listing_id INTEGER NOT NULL,
  live_votes INTEGER NOT NULL,
  slug       TEXT NOT NULL,
  json       BLOB NOT NULL,
  etag       TEXT NOT NULL,
  votes      INTEGER NOT NULL,
  votes_at   INTEGER NOT NULL
);

-- In key order, so the new table is written front to back: only the keys
-- are sorted (LIMIT -1 keeps the CTE's ORDER BY), then each row is read
-- by its listing id. A second slug with a taken key (OR IGNORE) gets no
-- row: it reads fresh.
INSERT OR IGNORE INTO listing_profiles_keyed(key, listing_id, live_votes, slug, json, etag, votes, votes_at)
  WITH o AS MATERIALIZED (SELECT launchdir_slug_key(slug) AS key, listing_id FROM listing_profiles ORDER BY key LIMIT -1)
  SELECT o.key, p.listing_id, l.votes, p.slug, p.json, p.etag, p.votes, p.votes_at
  FROM o JOIN listing_profiles p ON p.listing_id = o.listing_id JOIN listings l ON l.id = p.listing_id;

DROP TABLE listing_profiles;
ALTER TABLE listing_profiles_keyed RENAME TO listing_profiles;

-- A named index, not a column constraint: the seeder drops it while it
-- fills the empty table in key order, in which listing ids come at random
-- (db/profiles_staging.go), and builds it after.
CREATE UNIQUE INDEX listing_profiles_by_listing ON listing_profiles(listing_id);

CREATE TRIGGER listings_profile_ad AFTER DELETE ON listings BEGIN
  DELETE FROM listing_profiles WHERE listing_id = old.id;
END;

CREATE TRIGGER listings_profile_votes AFTER UPDATE OF votes ON listings BEGIN
  UPDATE listing_profiles SET live_votes = new.votes WHERE listing_id = new.id AND live_votes <> new.votes;
END;
