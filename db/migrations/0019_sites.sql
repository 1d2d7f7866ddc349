-- Issue 24: several directories from one binary, one database, sites by
-- host name. The default site 'main' behaves exactly as before: its origin
-- is the -base-url flag and its settings are the settings table.
--
-- sites: every directory this process serves. origin is the site's public
-- origin (scheme://host[:port]); '' for main, which takes -base-url.
CREATE TABLE sites (
  key        TEXT PRIMARY KEY,
  origin     TEXT NOT NULL DEFAULT '',
  position   INTEGER NOT NULL DEFAULT 0,
  created_at TEXT NOT NULL,
  updated_at TEXT NOT NULL
) WITHOUT ROWID;
INSERT INTO sites(key, origin, position, created_at, updated_at)
VALUES ('main', '', 0, strftime('%Y-%m-%dT%H:%M:%SZ','now'), strftime('%Y-%m-%dT%H:%M:%SZ','now'));

-- Host names (lowercase host[:port]) routed to a site besides its
-- origin's own host; a host belongs to one site only.
CREATE TABLE site_hosts (
  host     TEXT PRIMARY KEY,
  site_key TEXT NOT NULL REFERENCES sites(key) ON DELETE CASCADE
) WITHOUT ROWID;
CREATE INDEX site_hosts_site ON site_hosts(site_key);

-- A site's own value for a setting (name, tagline, colours, images,
-- calendar, email sender, ...). A site without its own value uses the
-- settings table, so a new site starts as a copy of main's look and rules.
CREATE TABLE site_settings (
  site_key TEXT NOT NULL REFERENCES sites(key) ON DELETE CASCADE,
  key      TEXT NOT NULL,
  value    TEXT NOT NULL,
  PRIMARY KEY (site_key, key)
) WITHOUT ROWID;
