-- Re-index a listing's full text only when an indexed column's value
-- changed: "UPDATE OF" fires whenever a column is assigned, and an owner
-- edit assigns only the fields it sends, but a re-index (FTS5 delete of the
-- old text plus insert of the new) is the biggest cost of an edit
-- (README, performance), so an edit of other fields, or one that re-sends
-- the same text, skips it.
DROP TRIGGER listings_fts_au;
CREATE TRIGGER listings_fts_au AFTER UPDATE OF name, tagline, description, features, keywords ON listings
WHEN old.name IS NOT new.name OR old.tagline IS NOT new.tagline OR old.description IS NOT new.description
  OR old.features IS NOT new.features OR old.keywords IS NOT new.keywords BEGIN
  INSERT INTO listings_fts(listings_fts, rowid, name, tagline, description, features, keywords)
  VALUES ('delete', old.id, old.name, old.tagline, old.description, old.features, old.keywords);
  INSERT INTO listings_fts(rowid, name, tagline, description, features, keywords)
  VALUES (new.id, new.name, new.tagline, new.description, new.features, new.keywords);
END;
