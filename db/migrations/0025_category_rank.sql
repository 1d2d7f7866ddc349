-- A category's listings by votes from one index (issue 26). A category page
-- ranked its members by reading each member's listing row (2,500 a big
-- category, a 4 KB page each) or walked the whole directory's votes index
-- checking membership (7,200 entries for page 10): 2.5-4 ms a page, a third
-- of it page reads, and a writer beside the reads empties the readers' page
-- caches after every commit. Each membership row now carries its listing's
-- live flag and vote count, kept exact by the triggers below in the writing
-- transaction, and an index orders a category as the page does
-- (votes DESC, then id), so a page reads offset+limit index entries.
-- First: the profile trigger fired on any update of a membership row (and
-- would retire every profile in the UPDATE below); the two maintained
-- columns are not part of a profile, and a vote must keep the ready-made
-- profile (0018).
DROP TRIGGER listing_categories_profile_au;
CREATE TRIGGER listing_categories_profile_au AFTER UPDATE OF listing_id, category_id, is_primary ON listing_categories BEGIN
  INSERT INTO listing_profiles_stale(listing_id) SELECT old.listing_id
    WHERE NOT EXISTS (SELECT 1 FROM listing_profiles_stale WHERE listing_id = old.listing_id);
  INSERT INTO listing_profiles_stale(listing_id) SELECT new.listing_id
    WHERE NOT EXISTS (SELECT 1 FROM listing_profiles_stale WHERE listing_id = new.listing_id);
END;

ALTER TABLE listing_categories ADD COLUMN live INTEGER NOT NULL DEFAULT 0;
ALTER TABLE listing_categories ADD COLUMN votes INTEGER NOT NULL DEFAULT 0;

-- OR IGNORE: no statement journal for a bulk update that cannot fail half-way.
UPDATE OR IGNORE listing_categories
SET live = (SELECT l.status = 'live' FROM listings l WHERE l.id = listing_categories.listing_id),
    votes = (SELECT l.votes FROM listings l WHERE l.id = listing_categories.listing_id)
WHERE EXISTS (SELECT 1 FROM listings l WHERE l.id = listing_categories.listing_id AND (l.status = 'live' OR l.votes != 0));

-- live in the key, not a partial index: a WITHOUT ROWID table's partial
-- index still reads the row for the flag; this one covers the page query.
CREATE INDEX listing_categories_rank ON listing_categories(category_id, live, votes DESC, listing_id);

-- A new membership takes its listing's values (the seed writes them itself
-- and drops this trigger during its load).
CREATE TRIGGER listing_categories_rank_ai AFTER INSERT ON listing_categories BEGIN
  UPDATE listing_categories
  SET live = coalesce((SELECT status = 'live' FROM listings WHERE id = new.listing_id), 0),
      votes = coalesce((SELECT votes FROM listings WHERE id = new.listing_id), 0)
  WHERE listing_id = new.listing_id AND category_id = new.category_id;
END;

-- A vote, a withdrawal, a recount, a status change: the listing's rows
-- follow. An unchanged value writes nothing (the WHEN and the WHERE).
CREATE TRIGGER listings_category_rank_au AFTER UPDATE OF votes, status ON listings
WHEN old.votes IS NOT new.votes OR (old.status = 'live') IS NOT (new.status = 'live') BEGIN
  UPDATE listing_categories SET votes = new.votes, live = (new.status = 'live')
  WHERE listing_id = new.id AND (votes IS NOT new.votes OR live IS NOT (new.status = 'live'));
END;
