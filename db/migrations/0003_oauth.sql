-- OAuth 2.1 authorization server (package oauth). Every secret (client
-- secret, code, access and refresh token, sign-in session) is stored only as
-- its SHA-256 (app.HashSecret). Times are RFC 3339 UTC text, so they compare
-- as strings.

-- Dynamically registered clients (RFC 7591). Clients identified by a client
-- ID metadata document URL are not stored: their document is fetched.
CREATE TABLE oauth_clients (
  client_id      TEXT PRIMARY KEY,
  secret_hash    TEXT,                         -- NULL for public clients
  client_name    TEXT NOT NULL DEFAULT '',
  redirect_uris  TEXT NOT NULL,                -- JSON array
  grant_types    TEXT NOT NULL,                -- JSON array
  response_types TEXT NOT NULL,                -- JSON array
  auth_method    TEXT NOT NULL DEFAULT 'none'
                 CHECK (auth_method IN ('none','client_secret_post','client_secret_basic')),
  scope          TEXT NOT NULL,                -- space separated
  created_at     TEXT NOT NULL
);

-- Sign-in sessions of the authorization pages (cookie value hashed).
CREATE TABLE oauth_sessions (
  hash       TEXT PRIMARY KEY,
  user_id    INTEGER NOT NULL REFERENCES users(id) ON DELETE CASCADE,
  created_at TEXT NOT NULL,
  expires_at TEXT NOT NULL
);
CREATE INDEX oauth_sessions_expiry ON oauth_sessions(expires_at);

-- A grant is one authorization (one code exchange): the family of every
-- access and refresh token issued from it. Revoking it revokes them all.
CREATE TABLE oauth_grants (
  id         INTEGER PRIMARY KEY,
  client_id  TEXT NOT NULL,
  user_id    INTEGER NOT NULL REFERENCES users(id) ON DELETE CASCADE,
  scope      TEXT NOT NULL,                    -- scopes the user approved
  resource   TEXT NOT NULL,                    -- audience (RFC 8707)
  created_at TEXT NOT NULL,
  revoked_at TEXT
);
CREATE INDEX oauth_grants_user ON oauth_grants(user_id);

-- Authorization codes: single use; grant_id is set by the exchange so a
-- replayed code can revoke what it produced.
CREATE TABLE oauth_codes (
  hash           TEXT PRIMARY KEY,
  client_id      TEXT NOT NULL,
  user_id        INTEGER NOT NULL REFERENCES users(id) ON DELETE CASCADE,
  redirect_uri   TEXT NOT NULL,
  redirect_given INTEGER NOT NULL DEFAULT 1,   -- redirect_uri was in the authorization request
  scope          TEXT NOT NULL,
  resource       TEXT NOT NULL,
  code_challenge TEXT NOT NULL,                -- S256
  created_at     TEXT NOT NULL,
  expires_at     TEXT NOT NULL,
  used_at        TEXT,
  grant_id       INTEGER REFERENCES oauth_grants(id) ON DELETE SET NULL
);
CREATE INDEX oauth_codes_expiry ON oauth_codes(expires_at);

CREATE TABLE oauth_tokens (
  id         INTEGER PRIMARY KEY,
  hash       TEXT NOT NULL UNIQUE,
  kind       TEXT NOT NULL CHECK (kind IN ('access','refresh')),
  grant_id   INTEGER NOT NULL REFERENCES oauth_grants(id) ON DELETE CASCADE,
  scope      TEXT NOT NULL,
  created_at TEXT NOT NULL,
  expires_at TEXT NOT NULL,
  rotated_at TEXT,                             -- refresh: exchanged for a new one
  revoked_at TEXT
);
CREATE INDEX oauth_tokens_grant ON oauth_tokens(grant_id);
CREATE INDEX oauth_tokens_expiry ON oauth_tokens(expires_at);
