-- Listings per status, kept by triggers in the writing transaction, so the
-- total of an unfiltered live or upcoming list is one row read instead of a
-- count over every listing. Filled once here (one index scan).
CREATE TABLE listing_status_counts (
  status TEXT PRIMARY KEY,
  n      INTEGER NOT NULL
) WITHOUT ROWID;
INSERT INTO listing_status_counts(status, n) SELECT status, count(*) FROM listings GROUP BY status;
CREATE TRIGGER listing_status_counts_ai AFTER INSERT ON listings BEGIN
  INSERT INTO listing_status_counts(status, n) VALUES (new.status, 1)
    ON CONFLICT(status) DO UPDATE SET n = n + 1;
END;
CREATE TRIGGER listing_status_counts_ad AFTER DELETE ON listings BEGIN
  UPDATE listing_status_counts SET n = n - 1 WHERE status = old.status;
END;
CREATE TRIGGER listing_status_counts_au AFTER UPDATE OF status ON listings WHEN old.status IS NOT new.status BEGIN
  UPDATE listing_status_counts SET n = n - 1 WHERE status = old.status;
  INSERT INTO listing_status_counts(status, n) VALUES (new.status, 1)
    ON CONFLICT(status) DO UPDATE SET n = n + 1;
END;

-- The full-text index's own term statistics (documents per term), read to
-- estimate a one-word search total without counting its matches.
CREATE VIRTUAL TABLE listings_vocab USING fts5vocab(listings_fts, row);
