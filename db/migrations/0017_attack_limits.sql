-- Issue 25: limits that hold under attack.
--
-- An idempotent operation in several atomic phases (create_checkout: the
-- order, then the payment step and the response) records in its first
-- phase's transaction where a retry resumes if the process dies before the
-- response is stored (the order number). Empty: no recovery point.
ALTER TABLE idempotency_keys ADD COLUMN recovery TEXT NOT NULL DEFAULT '';

-- Sign-up limits per address and per network (IPv4 /24, IPv6 /48): the
-- address and network an account was made from.
ALTER TABLE users ADD COLUMN signup_ip TEXT NOT NULL DEFAULT '';
ALTER TABLE users ADD COLUMN signup_net TEXT NOT NULL DEFAULT '';
CREATE INDEX users_signup_ip ON users(signup_ip, created_at) WHERE signup_ip <> '';
CREATE INDEX users_signup_net ON users(signup_net, created_at) WHERE signup_net <> '';

-- Where each vote came from, and the suspected ring it is held in (its
-- counted is 0 until the site team reviews the ring).
ALTER TABLE votes ADD COLUMN ip TEXT NOT NULL DEFAULT '';
ALTER TABLE votes ADD COLUMN net TEXT NOT NULL DEFAULT '';
ALTER TABLE votes ADD COLUMN ring_id INTEGER;
CREATE INDEX votes_listing_week_time ON votes(listing_id, week, created_at);
CREATE INDEX votes_ring ON votes(ring_id) WHERE ring_id IS NOT NULL;

CREATE TABLE vote_rings (
  id          INTEGER PRIMARY KEY,
  listing_id  INTEGER NOT NULL REFERENCES listings(id) ON DELETE CASCADE,
  week        TEXT NOT NULL,
  signal      TEXT NOT NULL,   -- what the members share, in words
  status      TEXT NOT NULL DEFAULT 'open' CHECK (status IN ('open','discounted','counted')),
  created_at  TEXT NOT NULL,
  reviewed_by INTEGER REFERENCES users(id),
  reviewed_at TEXT
);
CREATE INDEX vote_rings_open ON vote_rings(status, created_at);

-- The proof-of-work challenge on sign-up (ALTCHA scheme): the HMAC key
-- that signs challenges (made here, so a read replica's pages sign with
-- the primary's key) and the challenges already spent (no replay).
CREATE TABLE signup_pow_key (k BLOB NOT NULL);
INSERT INTO signup_pow_key(k) VALUES (randomblob(32));
CREATE TABLE signup_pow_spent (
  challenge  TEXT PRIMARY KEY,
  expires_at TEXT NOT NULL
) WITHOUT ROWID;
