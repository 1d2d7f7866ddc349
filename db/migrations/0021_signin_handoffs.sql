-- Issue 24: cross-host sign-in. Cookies belong to one host, so a person
-- signed in on the main site is handed to another site of this process
-- with a code: single use, valid for a minute, stored only as its hash,
-- bound to the site it names and to the browser that asked (state_hash is
-- the hash of a secret cookie that site set before sending it to main).
CREATE TABLE signin_handoffs (
  hash       TEXT PRIMARY KEY,
  user_id    INTEGER NOT NULL REFERENCES users(id) ON DELETE CASCADE,
  site_key   TEXT NOT NULL REFERENCES sites(key) ON DELETE CASCADE,
  state_hash TEXT NOT NULL,
  created_at TEXT NOT NULL,
  expires_at TEXT NOT NULL
) WITHOUT ROWID;
CREATE INDEX signin_handoffs_expiry ON signin_handoffs(expires_at);
