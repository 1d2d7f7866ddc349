-- The full-text index is brought up to date once per transaction instead of
-- once per edited listing. A statement that fires a trigger runs in a
-- statement savepoint, and FTS5 writes its pending changes out as a new
-- segment at every savepoint once it is part of the transaction: with the
-- index written by the update trigger itself, every edit of a group commit
-- (db/group.go) flushed a segment of its own (12% of an owner PATCH's CPU
-- at 100k listings, README, performance).
--
-- So an edit only notes the listing in listings_fts_stale, with the text
-- the index holds for it (the first note in a transaction wins: that is
-- the indexed text), and db.syncFTS, run by every write transaction before
-- it commits, deletes the notes; deleting a note re-indexes its listing in
-- one statement. Inserts and deletes still write the index at once (they
-- are rare), except for a listing already noted: then the note decides.
CREATE TABLE listings_fts_stale (
  id          INTEGER PRIMARY KEY,
  name        TEXT,
  tagline     TEXT,
  description TEXT,
  features    TEXT,
  keywords    TEXT
);

DROP TRIGGER listings_fts_au;
CREATE TRIGGER listings_fts_au AFTER UPDATE OF name, tagline, description, features, keywords ON listings
WHEN old.name IS NOT new.name OR old.tagline IS NOT new.tagline OR old.description IS NOT new.description
  OR old.features IS NOT new.features OR old.keywords IS NOT new.keywords BEGIN
  INSERT OR IGNORE INTO listings_fts_stale(id, name, tagline, description, features, keywords)
  VALUES (old.id, old.name, old.tagline, old.description, old.features, old.keywords);
END;

DROP TRIGGER listings_fts_ai;
CREATE TRIGGER listings_fts_ai AFTER INSERT ON listings BEGIN
  INSERT INTO listings_fts(rowid, name, tagline, description, features, keywords)
  SELECT new.id, new.name, new.tagline, new.description, new.features, new.keywords
  WHERE NOT EXISTS (SELECT 1 FROM listings_fts_stale WHERE id = new.id);
END;

DROP TRIGGER listings_fts_ad;
CREATE TRIGGER listings_fts_ad AFTER DELETE ON listings BEGIN
  INSERT INTO listings_fts(listings_fts, rowid, name, tagline, description, features, keywords)
  SELECT 'delete', old.id, old.name, old.tagline, old.description, old.features, old.keywords
  WHERE NOT EXISTS (SELECT 1 FROM listings_fts_stale WHERE id = old.id);
END;

-- Deleting a note takes the noted text out of the index and puts the
-- listing's current text in (none if the listing is gone).
CREATE TRIGGER listings_fts_stale_ad AFTER DELETE ON listings_fts_stale BEGIN
  INSERT INTO listings_fts(listings_fts, rowid, name, tagline, description, features, keywords)
  VALUES ('delete', old.id, old.name, old.tagline, old.description, old.features, old.keywords);
  INSERT INTO listings_fts(rowid, name, tagline, description, features, keywords)
  SELECT id, name, tagline, description, features, keywords FROM listings WHERE id = old.id;
END;
