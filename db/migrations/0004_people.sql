-- People on the site (issue 14): verified emails, sessions, single-use
-- tokens, votes per launch week (stored even when they do not count),
-- reviews written by accounts, follow notifications, the reports queue and
-- emails with an HTML part and extra headers (List-Unsubscribe).

ALTER TABLE users ADD COLUMN verified_at TEXT;   -- email confirmed by link

-- Site sessions (cookie value hashed). revoked_at: signed out, or the
-- password was reset.
CREATE TABLE sessions (
  hash       TEXT PRIMARY KEY,
  user_id    INTEGER NOT NULL REFERENCES users(id) ON DELETE CASCADE,
  created_at TEXT NOT NULL,
  expires_at TEXT NOT NULL,
  revoked_at TEXT
);
CREATE INDEX sessions_user ON sessions(user_id);
CREATE INDEX sessions_expiry ON sessions(expires_at);

-- Emailed links: verify (24 h), reset (1 h, single use), unsubscribe (one
-- per follower email, for one listing). Only the SHA-256 is stored.
CREATE TABLE person_tokens (
  hash       TEXT PRIMARY KEY,
  kind       TEXT NOT NULL CHECK (kind IN ('verify','reset','unsubscribe')),
  user_id    INTEGER NOT NULL REFERENCES users(id) ON DELETE CASCADE,
  listing_id INTEGER REFERENCES listings(id) ON DELETE CASCADE,
  created_at TEXT NOT NULL,
  expires_at TEXT NOT NULL,
  used_at    TEXT
);
CREATE INDEX person_tokens_user ON person_tokens(user_id, kind);
CREATE INDEX person_tokens_expiry ON person_tokens(expires_at);

-- Votes: one per person per listing per launch week (was: per listing).
-- counted = 0 keeps a vote that boards, awards and badges ignore (owner,
-- unverified or too-new account when it was cast).
CREATE TABLE votes_v2 (
  listing_id INTEGER NOT NULL REFERENCES listings(id) ON DELETE CASCADE,
  voter      TEXT NOT NULL,     -- user id or hashed visitor id
  week       TEXT NOT NULL,     -- Monday of the week the vote was cast
  created_at TEXT NOT NULL,
  counted    INTEGER NOT NULL DEFAULT 1,
  PRIMARY KEY (listing_id, voter, week)
) WITHOUT ROWID;
INSERT INTO votes_v2(listing_id, voter, week, created_at) SELECT listing_id, voter, week, created_at FROM votes;
DROP TABLE votes;
ALTER TABLE votes_v2 RENAME TO votes;
CREATE INDEX votes_voter ON votes(voter, week);

-- Reviews written by accounts: one per person per listing, editable.
ALTER TABLE reviews ADD COLUMN user_id INTEGER REFERENCES users(id) ON DELETE SET NULL;
ALTER TABLE reviews ADD COLUMN updated_at TEXT;
CREATE UNIQUE INDEX reviews_one_per_user ON reviews(listing_id, user_id) WHERE user_id IS NOT NULL;
CREATE INDEX reviews_user ON reviews(user_id);

-- Follows: notify = 0 after the follower unsubscribed from update emails.
ALTER TABLE follows ADD COLUMN notify INTEGER NOT NULL DEFAULT 1;
CREATE INDEX follows_user ON follows(user_id, created_at DESC);

-- Reports of listings and reviews: the site team's moderation queue.
CREATE TABLE reports (
  id          INTEGER PRIMARY KEY,
  user_id     INTEGER NOT NULL REFERENCES users(id) ON DELETE CASCADE,
  kind        TEXT NOT NULL CHECK (kind IN ('listing','review')),
  listing_id  INTEGER NOT NULL REFERENCES listings(id) ON DELETE CASCADE,
  review_id   INTEGER REFERENCES reviews(id) ON DELETE CASCADE,
  reason      TEXT NOT NULL,
  status      TEXT NOT NULL DEFAULT 'open' CHECK (status IN ('open','resolved','dismissed')),
  created_at  TEXT NOT NULL,
  resolved_at TEXT
);
CREATE INDEX reports_queue ON reports(status, id);
CREATE UNIQUE INDEX reports_once ON reports(user_id, kind, listing_id, coalesce(review_id, 0)) WHERE status = 'open';

-- Emails: an optional HTML part and extra headers (JSON object).
ALTER TABLE outbox ADD COLUMN html TEXT NOT NULL DEFAULT '';
ALTER TABLE outbox ADD COLUMN headers TEXT NOT NULL DEFAULT '{}';
