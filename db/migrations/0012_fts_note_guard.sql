-- 0011's note was INSERT OR IGNORE, but an outer statement's conflict
-- clause overrides a trigger's (UPDATE OR REPLACE, UPDATE OR ABORT, an
-- upsert's DO UPDATE): a second edit of one listing in one transaction
-- could replace the note, leaving text in the index that nothing deletes,
-- or fail on the note's key. The note is now a plain insert that cannot
-- conflict: the first note in a transaction stays, whatever the statement.
DROP TRIGGER listings_fts_au;
CREATE TRIGGER listings_fts_au AFTER UPDATE OF name, tagline, description, features, keywords ON listings
WHEN old.name IS NOT new.name OR old.tagline IS NOT new.tagline OR old.description IS NOT new.description
  OR old.features IS NOT new.features OR old.keywords IS NOT new.keywords BEGIN
  INSERT INTO listings_fts_stale(id, name, tagline, description, features, keywords)
  SELECT old.id, old.name, old.tagline, old.description, old.features, old.keywords
  WHERE NOT EXISTS (SELECT 1 FROM listings_fts_stale WHERE id = old.id);
END;

-- A listing's id is permanent: it is the full-text index's rowid (and every
-- other table's reference). Nothing changes it; this says so, rather than
-- leave the index holding the old id. (INSERT OR REPLACE over an existing
-- listing would also leave the index wrong, as SQLite's REPLACE deletes
-- without delete triggers: nothing may use it on listings.)
CREATE TRIGGER listings_id_permanent BEFORE UPDATE OF id ON listings
WHEN old.id IS NOT new.id BEGIN
  SELECT RAISE(ABORT, 'listing ids are permanent');
END;
