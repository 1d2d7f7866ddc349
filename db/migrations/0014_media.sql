-- Images live in this file (issue 21): one row per accepted image, keyed by
-- the sha256 of what was uploaded (with its kind, which fixes the variants),
-- and one row per re-encoded variant. URLs are /media/<hash>-<variant>.<ext>,
-- so a variant never changes once written and is served as immutable.
CREATE TABLE media_images (
  hash        TEXT PRIMARY KEY,
  kind        TEXT NOT NULL CHECK (kind IN ('logo','screenshot','avatar','site_logo','favicon')),
  width       INTEGER NOT NULL,
  height      INTEGER NOT NULL,
  source_url  TEXT NOT NULL DEFAULT '',  -- where a fetched image came from
  source_page TEXT NOT NULL DEFAULT '',  -- the page that named it (evidence)
  created_at  TEXT NOT NULL
);

CREATE TABLE media_variants (
  id           INTEGER PRIMARY KEY,
  hash         TEXT NOT NULL REFERENCES media_images(hash) ON DELETE CASCADE,
  variant      TEXT NOT NULL,
  content_type TEXT NOT NULL,
  width        INTEGER NOT NULL,
  height       INTEGER NOT NULL,
  bytes        BLOB NOT NULL
);
CREATE UNIQUE INDEX media_variants_key ON media_variants(hash, variant);

-- A founder's avatar: a /media/ URL of this site.
ALTER TABLE founders ADD COLUMN avatar_url TEXT NOT NULL DEFAULT '';
