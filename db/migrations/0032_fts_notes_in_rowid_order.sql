-- Notes are applied by db.syncFTS in one statement ordered by rowid
-- (deletes before inserts at one rowid), no longer by a trigger per note in
-- id order: since 0031 a note's two writes can sit on both sides of 2^40,
-- and FTS5 writes its pending rows out as a segment whenever a rowid is
-- lower than the one before (a segment per switch between a live listing
-- and a draft in one commit).
--
-- Apply the notes left in this transaction with the trigger that wrote them.
DELETE FROM listings_fts_stale;
DROP TRIGGER listings_fts_stale_ad;
