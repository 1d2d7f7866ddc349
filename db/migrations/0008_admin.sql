-- The site team's admin (issue 15): audit log, moderation, week capacities,
-- paused promo codes, data imports with their source and date, and the
-- billing details a person confirmed on the checkout page.

-- Every admin action: who, what, on what, before and after (JSON).
CREATE TABLE admin_audit (
  id         INTEGER PRIMARY KEY,
  admin_id   INTEGER NOT NULL REFERENCES users(id),
  action     TEXT NOT NULL,
  target     TEXT NOT NULL DEFAULT '',
  before     TEXT NOT NULL DEFAULT 'null',
  after      TEXT NOT NULL DEFAULT 'null',
  created_at TEXT NOT NULL
);
CREATE INDEX admin_audit_time ON admin_audit(id DESC);

-- Banned accounts: their votes stop counting.
CREATE TABLE account_bans (
  user_id    INTEGER PRIMARY KEY REFERENCES users(id) ON DELETE CASCADE,
  reason     TEXT NOT NULL,
  banned_by  INTEGER NOT NULL REFERENCES users(id),
  created_at TEXT NOT NULL
);

-- Why the site team rejected or archived a listing (shown to its owners).
ALTER TABLE listings ADD COLUMN moderation_reason TEXT NOT NULL DEFAULT '';

-- Reviews hidden by the site team: not shown, never counted.
ALTER TABLE reviews ADD COLUMN hidden_at TEXT;
ALTER TABLE reviews ADD COLUMN hidden_reason TEXT NOT NULL DEFAULT '';

-- Free launch capacity of one week (overrides setting free_weekly_capacity).
CREATE TABLE week_capacity (
  week          TEXT PRIMARY KEY,   -- Monday
  free_capacity INTEGER NOT NULL CHECK (free_capacity BETWEEN 0 AND 1000)
);

ALTER TABLE promo_codes ADD COLUMN paused INTEGER NOT NULL DEFAULT 0;

-- Where a Domain Rating figure came from (revenue already has source/updated_at).
ALTER TABLE domain_ratings ADD COLUMN source TEXT NOT NULL DEFAULT '';

-- Billing details the person confirmed on the checkout page.
ALTER TABLE orders ADD COLUMN billing_name TEXT NOT NULL DEFAULT '';
ALTER TABLE orders ADD COLUMN billing_email TEXT NOT NULL DEFAULT '';
ALTER TABLE orders ADD COLUMN billing_address TEXT NOT NULL DEFAULT '';
