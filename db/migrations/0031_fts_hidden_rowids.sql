-- Listings that are not live are indexed at their id + 2^40 (issue 26;
-- db.hiddenRowid), live ones at their id as before.
--
-- A search of live listings counted its matches up to 10,001 by looking
-- each match up in the index of live ids (listings_live_ids): one b-tree
-- seek per match, two thirds of a frequent word's search at 1M listings,
-- where that index (11 MB) no longer fits a reader's page cache and most
-- seeks read a page from the OS. With every live listing below 2^40 and
-- every other above, "live" is a range of the full-text index's own rowids:
-- the count walks the word's list of documents and stops at the range's
-- end (8-11x cheaper in sqlite3 at 1M), and the newest candidates of a
-- live search are live by construction. A scheduled listing's search
-- (upcoming) reads the range above.
--
-- The full-text table keeps listings as its external content only for
-- deletes, which give the old text themselves; nothing reads content
-- through it (no snippet, no highlight), and 'rebuild', which would read
-- rows back by id, is no longer used (demo.buildFTS inserts them).

-- Apply the notes left in this transaction with the triggers that wrote them.
DELETE FROM listings_fts_stale;

-- A note records where its text is indexed, so a status change that moves
-- the listing across 2^40 deletes it from the right place.
ALTER TABLE listings_fts_stale ADD COLUMN fts_rowid INTEGER;

-- Move the listings that are not live.
INSERT INTO listings_fts(listings_fts, rowid, name, tagline, description, features, keywords)
  SELECT 'delete', id, name, tagline, description, features, keywords FROM listings WHERE status != 'live';
INSERT INTO listings_fts(rowid, name, tagline, description, features, keywords)
  SELECT id + 1099511627776, name, tagline, description, features, keywords FROM listings WHERE status != 'live';

DROP TRIGGER listings_fts_ai;
CREATE TRIGGER listings_fts_ai AFTER INSERT ON listings BEGIN
  INSERT INTO listings_fts(rowid, name, tagline, description, features, keywords)
  SELECT new.id + CASE WHEN new.status = 'live' THEN 0 ELSE 1099511627776 END,
    new.name, new.tagline, new.description, new.features, new.keywords
  WHERE NOT EXISTS (SELECT 1 FROM listings_fts_stale WHERE id = new.id);
END;

DROP TRIGGER listings_fts_ad;
CREATE TRIGGER listings_fts_ad AFTER DELETE ON listings BEGIN
  INSERT INTO listings_fts(listings_fts, rowid, name, tagline, description, features, keywords)
  SELECT 'delete', old.id + CASE WHEN old.status = 'live' THEN 0 ELSE 1099511627776 END,
    old.name, old.tagline, old.description, old.features, old.keywords
  WHERE NOT EXISTS (SELECT 1 FROM listings_fts_stale WHERE id = old.id);
END;

-- A text edit, or a status change into or out of 'live', notes the
-- listing (the first note in a transaction stays: it holds what the index
-- holds, and where).
DROP TRIGGER listings_fts_au;
CREATE TRIGGER listings_fts_au AFTER UPDATE OF name, tagline, description, features, keywords, status ON listings
WHEN old.name IS NOT new.name OR old.tagline IS NOT new.tagline OR old.description IS NOT new.description
  OR old.features IS NOT new.features OR old.keywords IS NOT new.keywords
  OR (old.status = 'live') IS NOT (new.status = 'live') BEGIN
  INSERT INTO listings_fts_stale(id, fts_rowid, name, tagline, description, features, keywords)
  SELECT old.id, old.id + CASE WHEN old.status = 'live' THEN 0 ELSE 1099511627776 END,
    old.name, old.tagline, old.description, old.features, old.keywords
  WHERE NOT EXISTS (SELECT 1 FROM listings_fts_stale WHERE id = old.id);
END;

-- Applying a note takes the noted text out where it is indexed and puts
-- the listing's current text in where its status says (nothing if the
-- listing is gone).
DROP TRIGGER listings_fts_stale_ad;
CREATE TRIGGER listings_fts_stale_ad AFTER DELETE ON listings_fts_stale BEGIN
  INSERT INTO listings_fts(listings_fts, rowid, name, tagline, description, features, keywords)
  VALUES ('delete', old.fts_rowid, old.name, old.tagline, old.description, old.features, old.keywords);
  INSERT INTO listings_fts(rowid, name, tagline, description, features, keywords)
  SELECT id + CASE WHEN status = 'live' THEN 0 ELSE 1099511627776 END,
    name, tagline, description, features, keywords FROM listings WHERE id = old.id;
END;
