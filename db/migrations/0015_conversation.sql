-- Conversation and notifications (issue 22): comments on listings with one
-- level of replies, comment upvotes, reports of comments, the email
-- notification settings with one-click unsubscribe per kind, and the
-- "notify me at launch" list of upcoming listings.

-- Comments. body is the Markdown the author wrote ('' once deleted: the
-- thread keeps a "deleted" placeholder). parent_id is a top-level comment
-- (replies to replies are refused). upvotes is maintained in the same
-- transaction as comment_votes. ip_hash keys the per-address rate limit
-- (the address itself is not stored).
CREATE TABLE comments (
  id            INTEGER PRIMARY KEY,
  listing_id    INTEGER NOT NULL REFERENCES listings(id) ON DELETE CASCADE,
  parent_id     INTEGER REFERENCES comments(id) ON DELETE CASCADE,
  user_id       INTEGER REFERENCES users(id) ON DELETE SET NULL,
  body          TEXT NOT NULL,
  ip_hash       TEXT NOT NULL DEFAULT '',
  pinned        INTEGER NOT NULL DEFAULT 0,
  upvotes       INTEGER NOT NULL DEFAULT 0,
  created_at    TEXT NOT NULL,
  edited_at     TEXT,
  deleted_at    TEXT,
  hidden_at     TEXT,
  hidden_reason TEXT NOT NULL DEFAULT ''
);
CREATE INDEX comments_thread ON comments(listing_id, parent_id, created_at);
CREATE INDEX comments_parent ON comments(parent_id, created_at) WHERE parent_id IS NOT NULL;
CREATE INDEX comments_user ON comments(user_id, created_at);
CREATE INDEX comments_ip ON comments(ip_hash, created_at);
-- One pinned maker's comment per listing.
CREATE UNIQUE INDEX comments_one_pin ON comments(listing_id) WHERE pinned;

CREATE TABLE comment_votes (
  comment_id INTEGER NOT NULL REFERENCES comments(id) ON DELETE CASCADE,
  user_id    INTEGER NOT NULL REFERENCES users(id) ON DELETE CASCADE,
  created_at TEXT NOT NULL,
  PRIMARY KEY (comment_id, user_id)
) WITHOUT ROWID;

-- Reports gain the kind 'comment' (SQLite cannot change a CHECK: rebuild).
CREATE TABLE reports_v2 (
  id          INTEGER PRIMARY KEY,
  user_id     INTEGER NOT NULL REFERENCES users(id) ON DELETE CASCADE,
  kind        TEXT NOT NULL CHECK (kind IN ('listing','review','comment')),
  listing_id  INTEGER NOT NULL REFERENCES listings(id) ON DELETE CASCADE,
  review_id   INTEGER REFERENCES reviews(id) ON DELETE CASCADE,
  comment_id  INTEGER REFERENCES comments(id) ON DELETE CASCADE,
  reason      TEXT NOT NULL,
  status      TEXT NOT NULL DEFAULT 'open' CHECK (status IN ('open','resolved','dismissed')),
  created_at  TEXT NOT NULL,
  resolved_at TEXT
);
INSERT INTO reports_v2(id, user_id, kind, listing_id, review_id, reason, status, created_at, resolved_at)
  SELECT id, user_id, kind, listing_id, review_id, reason, status, created_at, resolved_at FROM reports;
DROP TABLE reports;
ALTER TABLE reports_v2 RENAME TO reports;
CREATE INDEX reports_queue ON reports(status, id);
CREATE UNIQUE INDEX reports_once ON reports(user_id, kind, listing_id, coalesce(review_id, 0), coalesce(comment_id, 0)) WHERE status = 'open';

-- Email notification settings: a row only for a kind the person turned
-- off (everything is on by default).
CREATE TABLE notification_off (
  user_id    INTEGER NOT NULL REFERENCES users(id) ON DELETE CASCADE,
  kind       TEXT NOT NULL,
  created_at TEXT NOT NULL,
  PRIMARY KEY (user_id, kind)
) WITHOUT ROWID;

-- One-click unsubscribe links of notification emails: one per email, for
-- one kind; only the SHA-256 of the secret is stored.
CREATE TABLE notification_tokens (
  hash       TEXT PRIMARY KEY,
  user_id    INTEGER NOT NULL REFERENCES users(id) ON DELETE CASCADE,
  kind       TEXT NOT NULL,
  created_at TEXT NOT NULL,
  expires_at TEXT NOT NULL
);
CREATE INDEX notification_tokens_expiry ON notification_tokens(expires_at);

-- "Notify me at launch": people waiting for an upcoming listing.
CREATE TABLE launch_watchers (
  listing_id  INTEGER NOT NULL REFERENCES listings(id) ON DELETE CASCADE,
  user_id     INTEGER NOT NULL REFERENCES users(id) ON DELETE CASCADE,
  created_at  TEXT NOT NULL,
  notified_at TEXT,
  PRIMARY KEY (listing_id, user_id)
) WITHOUT ROWID;

-- VAT invoices: one per paid order, numbered without gaps. The number is
-- max + 1 taken inside the payment's write transaction (SQLite has one
-- writer), so numbers follow payment order with no gaps and no repeats;
-- a rolled-back payment takes no number. seller and buyer are the details
-- as they were when the invoice was issued (JSON), so later edits of the
-- settings or the billing do not rewrite an issued invoice.
CREATE TABLE invoices (
  number    INTEGER PRIMARY KEY,
  order_id  INTEGER NOT NULL UNIQUE REFERENCES orders(id),
  issued_at TEXT NOT NULL,
  seller    TEXT NOT NULL,
  buyer     TEXT NOT NULL
);

-- Outbound webhooks (Standard Webhooks). An endpoint belongs to a person:
-- scope 'owner' receives the events of the listings they own (and their own
-- orders), scope 'site' (the site team's) every event. secret is the
-- whsec_ signing secret sealed with AES-256-GCM under the server's key
-- file (kernel/sealed.go), never stored in clear; previous_secret also
-- signs until previous_until after a rotation. failures counts
-- consecutive failed attempts; too many disable the endpoint.
CREATE TABLE webhook_endpoints (
  id              INTEGER PRIMARY KEY,
  user_id         INTEGER NOT NULL REFERENCES users(id) ON DELETE CASCADE,
  scope           TEXT NOT NULL CHECK (scope IN ('owner','site')),
  url             TEXT NOT NULL,
  description     TEXT NOT NULL DEFAULT '',
  events          TEXT NOT NULL,              -- JSON array of event types
  secret          TEXT NOT NULL,
  previous_secret TEXT NOT NULL DEFAULT '',
  previous_until  TEXT,
  status          TEXT NOT NULL DEFAULT 'enabled' CHECK (status IN ('enabled','disabled')),
  disabled_reason TEXT NOT NULL DEFAULT '',
  failures        INTEGER NOT NULL DEFAULT 0,
  created_at      TEXT NOT NULL,
  updated_at      TEXT NOT NULL
);
CREATE INDEX webhook_endpoints_user ON webhook_endpoints(user_id);

-- One event (webhook-id msg_...), its type and JSON payload as sent.
CREATE TABLE webhook_events (
  id         TEXT PRIMARY KEY,
  type       TEXT NOT NULL,
  payload    TEXT NOT NULL,
  created_at TEXT NOT NULL
);

-- One event to one endpoint, retried with backoff until delivered or
-- failed; a manual redelivery is a new row.
CREATE TABLE webhook_deliveries (
  id              INTEGER PRIMARY KEY,
  endpoint_id     INTEGER NOT NULL REFERENCES webhook_endpoints(id) ON DELETE CASCADE,
  event_id        TEXT NOT NULL REFERENCES webhook_events(id),
  status          TEXT NOT NULL DEFAULT 'pending' CHECK (status IN ('pending','delivered','failed')),
  attempts        INTEGER NOT NULL DEFAULT 0,
  next_attempt_at TEXT NOT NULL,
  last_status     INTEGER NOT NULL DEFAULT 0,
  last_latency_ms INTEGER NOT NULL DEFAULT 0,
  last_response   TEXT NOT NULL DEFAULT '',
  last_error      TEXT NOT NULL DEFAULT '',
  created_at      TEXT NOT NULL,
  delivered_at    TEXT
);
CREATE INDEX webhook_deliveries_due ON webhook_deliveries(status, next_attempt_at);
CREATE INDEX webhook_deliveries_endpoint ON webhook_deliveries(endpoint_id, id DESC);

-- The delivery log: every attempt with its status, latency and response.
CREATE TABLE webhook_attempts (
  id           INTEGER PRIMARY KEY,
  delivery_id  INTEGER NOT NULL REFERENCES webhook_deliveries(id) ON DELETE CASCADE,
  attempted_at TEXT NOT NULL,
  status_code  INTEGER NOT NULL DEFAULT 0,
  latency_ms   INTEGER NOT NULL DEFAULT 0,
  response     TEXT NOT NULL DEFAULT '',
  error        TEXT NOT NULL DEFAULT ''
);
CREATE INDEX webhook_attempts_delivery ON webhook_attempts(delivery_id, id);

-- The weekly digest: subscribers (visitors or accounts) confirm by an
-- emailed link (double opt-in) before any digest is sent; each has a
-- one-click unsubscribe link. Only hashes of the links' secrets are
-- stored. digests is the archive: one per week, as sent.
CREATE TABLE digest_subscribers (
  id              INTEGER PRIMARY KEY,
  email           TEXT NOT NULL UNIQUE COLLATE NOCASE,
  status          TEXT NOT NULL DEFAULT 'pending' CHECK (status IN ('pending','confirmed','unsubscribed')),
  confirm_hash    TEXT NOT NULL DEFAULT '',
  unsub_hash      TEXT NOT NULL,
  asked_at        TEXT NOT NULL,              -- last confirmation email
  confirmed_at    TEXT,
  unsubscribed_at TEXT,
  created_at      TEXT NOT NULL
);
CREATE INDEX digest_subscribers_status ON digest_subscribers(status);

CREATE TABLE digests (
  week       TEXT PRIMARY KEY,   -- Monday of the week the digest looks back on
  subject    TEXT NOT NULL,
  text       TEXT NOT NULL,
  html       TEXT NOT NULL,      -- the email's content, also the archive page's
  recipients INTEGER NOT NULL,
  created_at TEXT NOT NULL
);

-- Emails may carry attachments (the VAT invoice PDF of a receipt): a JSON
-- array of {name, content_type, data (base64)}.
ALTER TABLE outbox ADD COLUMN attachments TEXT NOT NULL DEFAULT '[]';
