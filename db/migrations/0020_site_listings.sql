-- Issue 24: what is per site besides the settings (0019).
--
-- The main site is the network's full directory: it shows every live
-- listing from the tables it always read (listings, votes, weekly_votes,
-- launches, awards, week_capacity), which this migration does not touch, so
-- main's queries, indexes, triggers and numbers stay exactly as they were.
-- Every other site keeps its own rows in the site_* tables below, each the
-- same shape as main's table plus site_key. A read for another site runs
-- the SAME query text over views of these rows that shadow main's table
-- names (db/sites.go), so the ranking rule (db.WeekRankFrom) and every
-- public read stay in one place.

-- The listings another site shows (main shows every live listing). votes:
-- the listing's counted votes cast on that site (its all-time count there),
-- kept in the vote's transaction.
CREATE TABLE listing_sites (
  site_key   TEXT NOT NULL REFERENCES sites(key) ON DELETE CASCADE,
  listing_id INTEGER NOT NULL REFERENCES listings(id) ON DELETE CASCADE,
  added_at   TEXT NOT NULL,
  votes      INTEGER NOT NULL DEFAULT 0,
  PRIMARY KEY (site_key, listing_id)
) WITHOUT ROWID;
CREATE INDEX listing_sites_listing ON listing_sites(listing_id);

-- Votes cast on another site: one per person per listing per week per site.
CREATE TABLE site_votes (
  site_key   TEXT NOT NULL REFERENCES sites(key) ON DELETE CASCADE,
  listing_id INTEGER NOT NULL REFERENCES listings(id) ON DELETE CASCADE,
  voter      TEXT NOT NULL,
  week       TEXT NOT NULL,
  created_at TEXT NOT NULL,
  counted    INTEGER NOT NULL DEFAULT 1,
  ip         TEXT NOT NULL DEFAULT '',
  net        TEXT NOT NULL DEFAULT '',
  ring_id    INTEGER,
  PRIMARY KEY (site_key, listing_id, voter, week)
) WITHOUT ROWID;
CREATE INDEX site_votes_voter ON site_votes(site_key, voter, week);
CREATE INDEX site_votes_recent ON site_votes(site_key, created_at, listing_id) WHERE counted;

CREATE TABLE site_weekly_votes (
  site_key   TEXT NOT NULL REFERENCES sites(key) ON DELETE CASCADE,
  week       TEXT NOT NULL,
  listing_id INTEGER NOT NULL REFERENCES listings(id) ON DELETE CASCADE,
  votes      INTEGER NOT NULL DEFAULT 0,
  PRIMARY KEY (site_key, week, listing_id)
) WITHOUT ROWID;

-- A listing's launches on another site: its launch week (while it is on
-- the site) and relaunches bought there; votes as main's launches carry them.
CREATE TABLE site_launches (
  site_key   TEXT NOT NULL REFERENCES sites(key) ON DELETE CASCADE,
  week       TEXT NOT NULL,
  listing_id INTEGER NOT NULL REFERENCES listings(id) ON DELETE CASCADE,
  votes      INTEGER NOT NULL DEFAULT 0,
  relaunch   INTEGER NOT NULL DEFAULT 0,
  PRIMARY KEY (site_key, week, listing_id)
) WITHOUT ROWID;
CREATE INDEX site_launches_rank ON site_launches(site_key, week, votes DESC, listing_id);
CREATE INDEX site_launches_listing ON site_launches(listing_id, site_key);

CREATE TABLE site_awards (
  site_key   TEXT NOT NULL REFERENCES sites(key) ON DELETE CASCADE,
  week       TEXT NOT NULL,
  rank       INTEGER NOT NULL CHECK (rank BETWEEN 1 AND 3),
  listing_id INTEGER NOT NULL REFERENCES listings(id) ON DELETE CASCADE,
  votes      INTEGER NOT NULL,
  PRIMARY KEY (site_key, week, rank)
) WITHOUT ROWID;
CREATE INDEX site_awards_listing ON site_awards(listing_id, site_key, week DESC);

-- Free launch capacity of one week on another site (main: week_capacity).
CREATE TABLE site_week_capacity (
  site_key      TEXT NOT NULL REFERENCES sites(key) ON DELETE CASCADE,
  week          TEXT NOT NULL,
  free_capacity INTEGER NOT NULL CHECK (free_capacity BETWEEN 0 AND 1000),
  PRIMARY KEY (site_key, week)
) WITHOUT ROWID;

-- A product's price on one site (any site, main included); without a row
-- the product's own price applies.
CREATE TABLE site_prices (
  site_key     TEXT NOT NULL REFERENCES sites(key) ON DELETE CASCADE,
  product_code TEXT NOT NULL REFERENCES products(code) ON DELETE CASCADE,
  price_cents  INTEGER NOT NULL CHECK (price_cents >= 0),
  PRIMARY KEY (site_key, product_code)
) WITHOUT ROWID;

-- The sites a promo code may be redeemed on (JSON array of keys; [] = every site).
ALTER TABLE promo_codes ADD COLUMN sites TEXT NOT NULL DEFAULT '[]';

-- The votes of another site's week follow into its launches, as 0016 does for main.
CREATE TRIGGER site_weekly_votes_launch_ai AFTER INSERT ON site_weekly_votes BEGIN
  UPDATE site_launches SET votes = new.votes
  WHERE site_key = new.site_key AND week = new.week AND listing_id = new.listing_id AND votes != new.votes;
END;
CREATE TRIGGER site_weekly_votes_launch_au AFTER UPDATE ON site_weekly_votes BEGIN
  UPDATE site_launches SET votes = new.votes
  WHERE site_key = new.site_key AND week = new.week AND listing_id = new.listing_id AND votes != new.votes;
END;
CREATE TRIGGER site_weekly_votes_launch_ad AFTER DELETE ON site_weekly_votes BEGIN
  UPDATE site_launches SET votes = 0
  WHERE site_key = old.site_key AND week = old.week AND listing_id = old.listing_id AND votes != 0;
END;

-- A listing put on a site launches there in its launch week (a launch on
-- two sites competes on each); taken off, its first launch there goes.
CREATE TRIGGER listing_sites_launch_ai AFTER INSERT ON listing_sites BEGIN
  INSERT OR IGNORE INTO site_launches(site_key, week, listing_id, votes)
  SELECT new.site_key, l.launch_week, l.id,
    coalesce((SELECT votes FROM site_weekly_votes w WHERE w.site_key = new.site_key AND w.week = l.launch_week AND w.listing_id = l.id), 0)
  FROM listings l WHERE l.id = new.listing_id AND l.launch_week IS NOT NULL;
END;
CREATE TRIGGER listing_sites_launch_ad AFTER DELETE ON listing_sites BEGIN
  DELETE FROM site_launches WHERE site_key = old.site_key AND listing_id = old.listing_id AND relaunch = 0;
END;
-- The launch week moved: on every site the listing is on, as on main.
CREATE TRIGGER listings_site_launch_au AFTER UPDATE OF launch_week ON listings
WHEN old.launch_week IS NOT new.launch_week BEGIN
  DELETE FROM site_launches WHERE listing_id = new.id AND week = old.launch_week AND relaunch = 0;
  INSERT OR IGNORE INTO site_launches(site_key, week, listing_id, votes)
  SELECT s.site_key, new.launch_week, new.id,
    coalesce((SELECT votes FROM site_weekly_votes w WHERE w.site_key = s.site_key AND w.week = new.launch_week AND w.listing_id = new.id), 0)
  FROM listing_sites s WHERE s.listing_id = new.id AND new.launch_week IS NOT NULL;
END;
