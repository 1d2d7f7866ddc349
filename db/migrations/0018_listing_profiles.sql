-- Ready-made public profiles (issue 26). get_listing used to assemble a
-- profile from a dozen queries per request, and the read cache in front of
-- it is retired by every write, so on a live directory (votes, sessions,
-- edits never stop) nearly every read paid the full assembly.
--
-- listing_profiles holds each live listing's public profile as the API
-- serves it (the JSON and its ETag), so a read is one indexed row. It is
-- never served stale: every change to something a profile shows notes that
-- listing in listing_profiles_stale in the same statement (the triggers
-- below), and a read serves a row only while its listing has no note;
-- db.rebuildProfiles, run by every write transaction before it commits
-- (and in the background for owner edits and big batches), builds the
-- noted profiles again and drops their notes. A noted listing is assembled
-- fresh, as before, so a write that commits some other way is never served
-- stale either, only slower. (The triggers used to delete the row: a
-- profile is bigger than a page, so that freed and reallocated overflow
-- pages in every edit's commit, about a quarter of its WAL frames.)
--
-- Notes are plain inserts that cannot conflict (WHERE NOT EXISTS, not OR
-- IGNORE): an outer statement's conflict clause overrides a trigger's
-- (migration 0012).
--
-- A vote changes one number of a profile, and on a launch day votes are
-- most of the writes: so the vote count does not retire the row. The row
-- keeps the count it was built with (votes) and where that number stands
-- in the JSON (votes_at, the offset of its first digit); a read whose
-- listing's count differs puts the current count in its place and hashes
-- the ETag again (db/profiles.go).
CREATE TABLE listing_profiles (
  listing_id INTEGER PRIMARY KEY,
  slug       TEXT NOT NULL UNIQUE,
  json       BLOB NOT NULL,
  etag       TEXT NOT NULL,
  votes      INTEGER NOT NULL,
  votes_at   INTEGER NOT NULL
);

CREATE TABLE listing_profiles_stale (listing_id INTEGER PRIMARY KEY);

-- Every live listing starts noted; the background rebuild fills the table.
INSERT INTO listing_profiles_stale(listing_id) SELECT id FROM listings WHERE status = 'live';

-- The listing row: the columns a profile shows (db/profile.go listingCols;
-- TestProfileTriggerColumns keeps the two lists together), but votes (see
-- listing_profiles).
CREATE TRIGGER listings_profile_ai AFTER INSERT ON listings BEGIN
  INSERT INTO listing_profiles_stale(listing_id) SELECT new.id
    WHERE NOT EXISTS (SELECT 1 FROM listing_profiles_stale WHERE listing_id = new.id);
END;

CREATE TRIGGER listings_profile_au AFTER UPDATE OF id, slug, name, url, tagline, logo_url, views, follows, status,
  launch_week, launched_at, primary_category_id, short_description, description, features, usps, keywords, tags, stage,
  pricing_model, pricing_summary, country, city, founded_year, contact_email, domain, plan, socials, not_found,
  attributes, unlock_story, unlock_milestones, unlock_media, rating_sum, rating_count, domain_rating, demo_video_url,
  updated_at ON listings BEGIN
  INSERT INTO listing_profiles_stale(listing_id) SELECT new.id
    WHERE NOT EXISTS (SELECT 1 FROM listing_profiles_stale WHERE listing_id = new.id);
END;

CREATE TRIGGER listings_profile_ad AFTER DELETE ON listings BEGIN
  DELETE FROM listing_profiles WHERE listing_id = old.id;
END;

-- Categories and founders are shown by every listing they belong to.
CREATE TRIGGER categories_profile_au AFTER UPDATE OF id, slug, name ON categories BEGIN
  INSERT INTO listing_profiles_stale(listing_id)
    SELECT DISTINCT r.listing_id FROM (SELECT listing_id FROM listing_categories WHERE category_id = old.id
    UNION SELECT id FROM listings WHERE primary_category_id = old.id) AS r
    WHERE NOT EXISTS (SELECT 1 FROM listing_profiles_stale s WHERE s.listing_id = r.listing_id);
END;

CREATE TRIGGER categories_profile_ad AFTER DELETE ON categories BEGIN
  INSERT INTO listing_profiles_stale(listing_id)
    SELECT DISTINCT r.listing_id FROM (SELECT listing_id FROM listing_categories WHERE category_id = old.id
    UNION SELECT id FROM listings WHERE primary_category_id = old.id) AS r
    WHERE NOT EXISTS (SELECT 1 FROM listing_profiles_stale s WHERE s.listing_id = r.listing_id);
END;

CREATE TRIGGER founders_profile_au AFTER UPDATE OF id, slug, name, title, bio, socials, avatar_url ON founders BEGIN
  INSERT INTO listing_profiles_stale(listing_id)
    SELECT DISTINCT r.listing_id FROM (SELECT listing_id FROM listing_founders WHERE founder_id = old.id) AS r
    WHERE NOT EXISTS (SELECT 1 FROM listing_profiles_stale s WHERE s.listing_id = r.listing_id);
END;

CREATE TRIGGER founders_profile_ad AFTER DELETE ON founders BEGIN
  INSERT INTO listing_profiles_stale(listing_id)
    SELECT DISTINCT r.listing_id FROM (SELECT listing_id FROM listing_founders WHERE founder_id = old.id) AS r
    WHERE NOT EXISTS (SELECT 1 FROM listing_profiles_stale s WHERE s.listing_id = r.listing_id);
END;

-- The listing's own parts.
CREATE TRIGGER listing_categories_profile_ai AFTER INSERT ON listing_categories BEGIN
  INSERT INTO listing_profiles_stale(listing_id) SELECT new.listing_id
    WHERE NOT EXISTS (SELECT 1 FROM listing_profiles_stale WHERE listing_id = new.listing_id);
END;

CREATE TRIGGER listing_categories_profile_au AFTER UPDATE ON listing_categories BEGIN
  INSERT INTO listing_profiles_stale(listing_id) SELECT old.listing_id
    WHERE NOT EXISTS (SELECT 1 FROM listing_profiles_stale WHERE listing_id = old.listing_id);
  INSERT INTO listing_profiles_stale(listing_id) SELECT new.listing_id
    WHERE NOT EXISTS (SELECT 1 FROM listing_profiles_stale WHERE listing_id = new.listing_id);
END;

CREATE TRIGGER listing_categories_profile_ad AFTER DELETE ON listing_categories BEGIN
  INSERT INTO listing_profiles_stale(listing_id) SELECT old.listing_id
    WHERE NOT EXISTS (SELECT 1 FROM listing_profiles_stale WHERE listing_id = old.listing_id);
END;

CREATE TRIGGER listing_founders_profile_ai AFTER INSERT ON listing_founders BEGIN
  INSERT INTO listing_profiles_stale(listing_id) SELECT new.listing_id
    WHERE NOT EXISTS (SELECT 1 FROM listing_profiles_stale WHERE listing_id = new.listing_id);
END;

CREATE TRIGGER listing_founders_profile_au AFTER UPDATE ON listing_founders BEGIN
  INSERT INTO listing_profiles_stale(listing_id) SELECT old.listing_id
    WHERE NOT EXISTS (SELECT 1 FROM listing_profiles_stale WHERE listing_id = old.listing_id);
  INSERT INTO listing_profiles_stale(listing_id) SELECT new.listing_id
    WHERE NOT EXISTS (SELECT 1 FROM listing_profiles_stale WHERE listing_id = new.listing_id);
END;

CREATE TRIGGER listing_founders_profile_ad AFTER DELETE ON listing_founders BEGIN
  INSERT INTO listing_profiles_stale(listing_id) SELECT old.listing_id
    WHERE NOT EXISTS (SELECT 1 FROM listing_profiles_stale WHERE listing_id = old.listing_id);
END;

CREATE TRIGGER faqs_profile_ai AFTER INSERT ON faqs BEGIN
  INSERT INTO listing_profiles_stale(listing_id) SELECT new.listing_id
    WHERE NOT EXISTS (SELECT 1 FROM listing_profiles_stale WHERE listing_id = new.listing_id);
END;

CREATE TRIGGER faqs_profile_au AFTER UPDATE ON faqs BEGIN
  INSERT INTO listing_profiles_stale(listing_id) SELECT old.listing_id
    WHERE NOT EXISTS (SELECT 1 FROM listing_profiles_stale WHERE listing_id = old.listing_id);
  INSERT INTO listing_profiles_stale(listing_id) SELECT new.listing_id
    WHERE NOT EXISTS (SELECT 1 FROM listing_profiles_stale WHERE listing_id = new.listing_id);
END;

CREATE TRIGGER faqs_profile_ad AFTER DELETE ON faqs BEGIN
  INSERT INTO listing_profiles_stale(listing_id) SELECT old.listing_id
    WHERE NOT EXISTS (SELECT 1 FROM listing_profiles_stale WHERE listing_id = old.listing_id);
END;

CREATE TRIGGER listing_updates_profile_ai AFTER INSERT ON listing_updates BEGIN
  INSERT INTO listing_profiles_stale(listing_id) SELECT new.listing_id
    WHERE NOT EXISTS (SELECT 1 FROM listing_profiles_stale WHERE listing_id = new.listing_id);
END;

CREATE TRIGGER listing_updates_profile_au AFTER UPDATE ON listing_updates BEGIN
  INSERT INTO listing_profiles_stale(listing_id) SELECT old.listing_id
    WHERE NOT EXISTS (SELECT 1 FROM listing_profiles_stale WHERE listing_id = old.listing_id);
  INSERT INTO listing_profiles_stale(listing_id) SELECT new.listing_id
    WHERE NOT EXISTS (SELECT 1 FROM listing_profiles_stale WHERE listing_id = new.listing_id);
END;

CREATE TRIGGER listing_updates_profile_ad AFTER DELETE ON listing_updates BEGIN
  INSERT INTO listing_profiles_stale(listing_id) SELECT old.listing_id
    WHERE NOT EXISTS (SELECT 1 FROM listing_profiles_stale WHERE listing_id = old.listing_id);
END;

CREATE TRIGGER domain_ratings_profile_ai AFTER INSERT ON domain_ratings BEGIN
  INSERT INTO listing_profiles_stale(listing_id) SELECT new.listing_id
    WHERE NOT EXISTS (SELECT 1 FROM listing_profiles_stale WHERE listing_id = new.listing_id);
END;

CREATE TRIGGER domain_ratings_profile_au AFTER UPDATE ON domain_ratings BEGIN
  INSERT INTO listing_profiles_stale(listing_id) SELECT old.listing_id
    WHERE NOT EXISTS (SELECT 1 FROM listing_profiles_stale WHERE listing_id = old.listing_id);
  INSERT INTO listing_profiles_stale(listing_id) SELECT new.listing_id
    WHERE NOT EXISTS (SELECT 1 FROM listing_profiles_stale WHERE listing_id = new.listing_id);
END;

CREATE TRIGGER domain_ratings_profile_ad AFTER DELETE ON domain_ratings BEGIN
  INSERT INTO listing_profiles_stale(listing_id) SELECT old.listing_id
    WHERE NOT EXISTS (SELECT 1 FROM listing_profiles_stale WHERE listing_id = old.listing_id);
END;

CREATE TRIGGER stories_profile_ai AFTER INSERT ON stories BEGIN
  INSERT INTO listing_profiles_stale(listing_id) SELECT new.listing_id
    WHERE NOT EXISTS (SELECT 1 FROM listing_profiles_stale WHERE listing_id = new.listing_id);
END;

CREATE TRIGGER stories_profile_au AFTER UPDATE ON stories BEGIN
  INSERT INTO listing_profiles_stale(listing_id) SELECT old.listing_id
    WHERE NOT EXISTS (SELECT 1 FROM listing_profiles_stale WHERE listing_id = old.listing_id);
  INSERT INTO listing_profiles_stale(listing_id) SELECT new.listing_id
    WHERE NOT EXISTS (SELECT 1 FROM listing_profiles_stale WHERE listing_id = new.listing_id);
END;

CREATE TRIGGER stories_profile_ad AFTER DELETE ON stories BEGIN
  INSERT INTO listing_profiles_stale(listing_id) SELECT old.listing_id
    WHERE NOT EXISTS (SELECT 1 FROM listing_profiles_stale WHERE listing_id = old.listing_id);
END;

CREATE TRIGGER milestones_profile_ai AFTER INSERT ON milestones BEGIN
  INSERT INTO listing_profiles_stale(listing_id) SELECT new.listing_id
    WHERE NOT EXISTS (SELECT 1 FROM listing_profiles_stale WHERE listing_id = new.listing_id);
END;

CREATE TRIGGER milestones_profile_au AFTER UPDATE ON milestones BEGIN
  INSERT INTO listing_profiles_stale(listing_id) SELECT old.listing_id
    WHERE NOT EXISTS (SELECT 1 FROM listing_profiles_stale WHERE listing_id = old.listing_id);
  INSERT INTO listing_profiles_stale(listing_id) SELECT new.listing_id
    WHERE NOT EXISTS (SELECT 1 FROM listing_profiles_stale WHERE listing_id = new.listing_id);
END;

CREATE TRIGGER milestones_profile_ad AFTER DELETE ON milestones BEGIN
  INSERT INTO listing_profiles_stale(listing_id) SELECT old.listing_id
    WHERE NOT EXISTS (SELECT 1 FROM listing_profiles_stale WHERE listing_id = old.listing_id);
END;

CREATE TRIGGER media_profile_ai AFTER INSERT ON media BEGIN
  INSERT INTO listing_profiles_stale(listing_id) SELECT new.listing_id
    WHERE NOT EXISTS (SELECT 1 FROM listing_profiles_stale WHERE listing_id = new.listing_id);
END;

CREATE TRIGGER media_profile_au AFTER UPDATE ON media BEGIN
  INSERT INTO listing_profiles_stale(listing_id) SELECT old.listing_id
    WHERE NOT EXISTS (SELECT 1 FROM listing_profiles_stale WHERE listing_id = old.listing_id);
  INSERT INTO listing_profiles_stale(listing_id) SELECT new.listing_id
    WHERE NOT EXISTS (SELECT 1 FROM listing_profiles_stale WHERE listing_id = new.listing_id);
END;

CREATE TRIGGER media_profile_ad AFTER DELETE ON media BEGIN
  INSERT INTO listing_profiles_stale(listing_id) SELECT old.listing_id
    WHERE NOT EXISTS (SELECT 1 FROM listing_profiles_stale WHERE listing_id = old.listing_id);
END;


-- The owner's published interview (issue 23): a profile shows the answers of
-- its listing's first owner, so the owners, the answers and the questions
-- retire the profiles of every listing of the person concerned.
CREATE TRIGGER listing_owners_profile_ai AFTER INSERT ON listing_owners BEGIN
  INSERT INTO listing_profiles_stale(listing_id) SELECT new.listing_id
    WHERE NOT EXISTS (SELECT 1 FROM listing_profiles_stale WHERE listing_id = new.listing_id);
END;

CREATE TRIGGER listing_owners_profile_au AFTER UPDATE ON listing_owners BEGIN
  INSERT INTO listing_profiles_stale(listing_id) SELECT old.listing_id
    WHERE NOT EXISTS (SELECT 1 FROM listing_profiles_stale WHERE listing_id = old.listing_id);
  INSERT INTO listing_profiles_stale(listing_id) SELECT new.listing_id
    WHERE NOT EXISTS (SELECT 1 FROM listing_profiles_stale WHERE listing_id = new.listing_id);
END;

CREATE TRIGGER listing_owners_profile_ad AFTER DELETE ON listing_owners BEGIN
  INSERT INTO listing_profiles_stale(listing_id) SELECT old.listing_id
    WHERE NOT EXISTS (SELECT 1 FROM listing_profiles_stale WHERE listing_id = old.listing_id);
END;

CREATE TRIGGER interview_answers_profile_ai AFTER INSERT ON interview_answers BEGIN
  INSERT INTO listing_profiles_stale(listing_id)
    SELECT DISTINCT r.listing_id FROM (SELECT listing_id FROM listing_owners WHERE user_id = new.user_id) AS r
    WHERE NOT EXISTS (SELECT 1 FROM listing_profiles_stale s WHERE s.listing_id = r.listing_id);
END;

CREATE TRIGGER interview_answers_profile_au AFTER UPDATE ON interview_answers BEGIN
  INSERT INTO listing_profiles_stale(listing_id)
    SELECT DISTINCT r.listing_id FROM (SELECT listing_id FROM listing_owners WHERE user_id IN (old.user_id, new.user_id)) AS r
    WHERE NOT EXISTS (SELECT 1 FROM listing_profiles_stale s WHERE s.listing_id = r.listing_id);
END;

CREATE TRIGGER interview_answers_profile_ad AFTER DELETE ON interview_answers BEGIN
  INSERT INTO listing_profiles_stale(listing_id)
    SELECT DISTINCT r.listing_id FROM (SELECT listing_id FROM listing_owners WHERE user_id = old.user_id) AS r
    WHERE NOT EXISTS (SELECT 1 FROM listing_profiles_stale s WHERE s.listing_id = r.listing_id);
END;

CREATE TRIGGER interview_questions_profile_ai AFTER INSERT ON interview_questions BEGIN
  INSERT INTO listing_profiles_stale(listing_id)
    SELECT DISTINCT r.listing_id FROM (SELECT lo.listing_id FROM listing_owners lo JOIN interview_answers a ON a.user_id = lo.user_id WHERE a.question_id IN (new.id)) AS r
    WHERE NOT EXISTS (SELECT 1 FROM listing_profiles_stale s WHERE s.listing_id = r.listing_id);
END;

CREATE TRIGGER interview_questions_profile_au AFTER UPDATE ON interview_questions BEGIN
  INSERT INTO listing_profiles_stale(listing_id)
    SELECT DISTINCT r.listing_id FROM (SELECT lo.listing_id FROM listing_owners lo JOIN interview_answers a ON a.user_id = lo.user_id WHERE a.question_id IN (old.id, new.id)) AS r
    WHERE NOT EXISTS (SELECT 1 FROM listing_profiles_stale s WHERE s.listing_id = r.listing_id);
END;

CREATE TRIGGER interview_questions_profile_ad AFTER DELETE ON interview_questions BEGIN
  INSERT INTO listing_profiles_stale(listing_id)
    SELECT DISTINCT r.listing_id FROM (SELECT lo.listing_id FROM listing_owners lo JOIN interview_answers a ON a.user_id = lo.user_id WHERE a.question_id IN (old.id)) AS r
    WHERE NOT EXISTS (SELECT 1 FROM listing_profiles_stale s WHERE s.listing_id = r.listing_id);
END;

-- A new category or founder is shown by no listing until a link row (whose
-- triggers are above) points at it, unless it takes the id of a deleted one:
-- retired as well, so every table a profile reads has all three triggers
-- (TestProfileReadsAreWatched).

CREATE TRIGGER categories_profile_ai AFTER INSERT ON categories BEGIN
  INSERT INTO listing_profiles_stale(listing_id)
    SELECT DISTINCT r.listing_id FROM (SELECT listing_id FROM listing_categories WHERE category_id = new.id UNION SELECT id FROM listings WHERE primary_category_id = new.id) AS r
    WHERE NOT EXISTS (SELECT 1 FROM listing_profiles_stale s WHERE s.listing_id = r.listing_id);
END;

CREATE TRIGGER founders_profile_ai AFTER INSERT ON founders BEGIN
  INSERT INTO listing_profiles_stale(listing_id)
    SELECT DISTINCT r.listing_id FROM (SELECT listing_id FROM listing_founders WHERE founder_id = new.id) AS r
    WHERE NOT EXISTS (SELECT 1 FROM listing_profiles_stale s WHERE s.listing_id = r.listing_id);
END;

-- Search with a total (issue 26): checking that a full-text match is live
-- looked the listing up in its table, one wide row per page, so counting a
-- frequent word's 10,000 matches read 10,000 pages. This index of live
-- listings answers "is listing id live, with how many votes" from a few
-- hundred small pages of integers (db/listings.go, rankedSearch; votes
-- orders equally ranked matches).
CREATE INDEX listings_live_ids ON listings(id, votes) WHERE status = 'live';

-- A listing's status and vote count by id, from a small index instead of
-- the table's wide rows (a page each): a week's ranking counts its launches
-- whose listing is live or scheduled (db.WeekRankFrom: 4.4 ms for a week of
-- 800 launches, on every listing and week page once a write had retired the
-- read cache, and counts under 1,000 are never cached; 0.5 ms with it), and
-- a ready-made profile's read takes the current vote count from it (17-22
-- µs a read with the page cache emptied, as every commit empties a reader's,
-- against 11 µs).
CREATE INDEX listings_status_by_id ON listings(id, status, votes);
