-- The full-text index no longer re-reads a listing's old text to take it
-- out. With an external-content index (0001) taking a row out meant
-- handing FTS5 the text it had indexed, which it tokenized again to find
-- the entries to delete: on an owner's edit that was the old name,
-- tagline, description, features and keywords tokenized once more beside
-- the new (about a tenth of an owner PATCH's CPU, README, performance).
-- A contentless-delete index (SQLite 3.43) takes a row out by its rowid
-- alone, leaving a tombstone its merges clear. Search reads only rowids
-- and bm25 from the index, never its text (the listings table has it), so
-- nothing else changes.
--
-- The index is built again here from the listings: seconds at 100k
-- listings, about a minute at 1M, once.
DROP TRIGGER listings_fts_ai;
DROP TRIGGER listings_fts_ad;
DROP TRIGGER listings_fts_au;
DROP TRIGGER listings_fts_stale_ad;
DROP TABLE listings_fts;
CREATE VIRTUAL TABLE listings_fts USING fts5(
  name, tagline, description, features, keywords,
  content='', contentless_delete=1, tokenize='unicode61 remove_diacritics 2'
);
INSERT INTO listings_fts(rowid, name, tagline, description, features, keywords)
  SELECT id, name, tagline, description, features, keywords FROM listings;

-- An edit notes the listing (its id: the old text is no longer needed);
-- deleting the note (db.syncFTS, before every commit) re-indexes it.
-- Inserts and deletes write the index at once, except for a listing
-- already noted: then the note decides (as in 0011 and 0012).
CREATE TRIGGER listings_fts_au AFTER UPDATE OF name, tagline, description, features, keywords ON listings
WHEN old.name IS NOT new.name OR old.tagline IS NOT new.tagline OR old.description IS NOT new.description
  OR old.features IS NOT new.features OR old.keywords IS NOT new.keywords BEGIN
  INSERT INTO listings_fts_stale(id) SELECT old.id WHERE NOT EXISTS (SELECT 1 FROM listings_fts_stale WHERE id = old.id);
END;

CREATE TRIGGER listings_fts_ai AFTER INSERT ON listings
WHEN NOT EXISTS (SELECT 1 FROM listings_fts_stale WHERE id = new.id) BEGIN
  INSERT INTO listings_fts(rowid, name, tagline, description, features, keywords)
  VALUES (new.id, new.name, new.tagline, new.description, new.features, new.keywords);
END;

CREATE TRIGGER listings_fts_ad AFTER DELETE ON listings
WHEN NOT EXISTS (SELECT 1 FROM listings_fts_stale WHERE id = old.id) BEGIN
  DELETE FROM listings_fts WHERE rowid = old.id;
END;

CREATE TRIGGER listings_fts_stale_ad AFTER DELETE ON listings_fts_stale BEGIN
  DELETE FROM listings_fts WHERE rowid = old.id;
  INSERT INTO listings_fts(rowid, name, tagline, description, features, keywords)
  SELECT id, name, tagline, description, features, keywords FROM listings WHERE id = old.id;
END;
