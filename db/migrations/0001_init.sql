-- launchdir schema v1: the whole domain. Times are RFC 3339 UTC text,
-- dates YYYY-MM-DD, weeks the date of their Monday. JSON columns hold arrays
-- or objects and are only read whole.

CREATE TABLE settings (
  key   TEXT PRIMARY KEY,
  value TEXT NOT NULL
);

CREATE TABLE users (
  id            INTEGER PRIMARY KEY,
  email         TEXT NOT NULL UNIQUE COLLATE NOCASE,
  name          TEXT NOT NULL DEFAULT '',
  password_hash TEXT,
  is_admin      INTEGER NOT NULL DEFAULT 0,
  created_at    TEXT NOT NULL
);

CREATE TABLE api_keys (
  id           INTEGER PRIMARY KEY,
  user_id      INTEGER NOT NULL REFERENCES users(id) ON DELETE CASCADE,
  name         TEXT NOT NULL DEFAULT '',
  prefix       TEXT NOT NULL,
  hash         TEXT NOT NULL UNIQUE,       -- sha256 of the secret; the secret is shown once
  scopes       TEXT NOT NULL,              -- space separated
  created_at   TEXT NOT NULL,
  last_used_at TEXT,
  revoked_at   TEXT
);
CREATE INDEX api_keys_user ON api_keys(user_id);

CREATE TABLE categories (
  id          INTEGER PRIMARY KEY,
  slug        TEXT NOT NULL UNIQUE,
  name        TEXT NOT NULL UNIQUE,
  parent_id   INTEGER REFERENCES categories(id),
  description TEXT NOT NULL DEFAULT '',
  position    INTEGER NOT NULL DEFAULT 0,
  attributes  TEXT NOT NULL DEFAULT '[]',  -- attribute names compared side by side
  live_count  INTEGER NOT NULL DEFAULT 0   -- maintained: live listings in this category (primary or extra)
);
CREATE INDEX categories_parent ON categories(parent_id, position);

CREATE TABLE listings (
  id                  INTEGER PRIMARY KEY,
  slug                TEXT NOT NULL UNIQUE,
  name                TEXT NOT NULL,
  url                 TEXT NOT NULL,
  domain              TEXT NOT NULL,
  tagline             TEXT NOT NULL DEFAULT '',
  short_description   TEXT NOT NULL DEFAULT '',
  description         TEXT NOT NULL DEFAULT '',
  stage               TEXT NOT NULL DEFAULT '',
  pricing_model       TEXT NOT NULL DEFAULT '',
  pricing_summary     TEXT NOT NULL DEFAULT '',
  country             TEXT NOT NULL DEFAULT '',
  city                TEXT NOT NULL DEFAULT '',
  founded_year        INTEGER,
  contact_email       TEXT NOT NULL DEFAULT '',
  demo_video_url      TEXT NOT NULL DEFAULT '',
  logo_url            TEXT NOT NULL DEFAULT '',
  features            TEXT NOT NULL DEFAULT '[]',
  usps                TEXT NOT NULL DEFAULT '[]',
  keywords            TEXT NOT NULL DEFAULT '[]',
  tags                TEXT NOT NULL DEFAULT '[]',
  headline            TEXT NOT NULL DEFAULT '',
  summary             TEXT NOT NULL DEFAULT '',
  seo_title           TEXT NOT NULL DEFAULT '',
  seo_description     TEXT NOT NULL DEFAULT '',
  socials             TEXT NOT NULL DEFAULT '{}',
  not_found           TEXT NOT NULL DEFAULT '[]', -- facts the company's own site did not state
  attributes          TEXT NOT NULL DEFAULT '{}', -- category attribute -> value, for compare
  status              TEXT NOT NULL DEFAULT 'draft'
                      CHECK (status IN ('draft','awaiting_badge','scheduled','live','rejected','archived')),
  plan                TEXT NOT NULL DEFAULT 'none' CHECK (plan IN ('none','free','paid')),
  launch_week         TEXT,            -- Monday of the launch week
  launched_at         TEXT,            -- when it went live
  primary_category_id INTEGER REFERENCES categories(id),
  unlock_story        INTEGER NOT NULL DEFAULT 0,
  unlock_milestones   INTEGER NOT NULL DEFAULT 0,
  unlock_media        INTEGER NOT NULL DEFAULT 0,
  -- maintained counters, so sorts never aggregate at query time
  votes               INTEGER NOT NULL DEFAULT 0,
  views               INTEGER NOT NULL DEFAULT 0,
  follows             INTEGER NOT NULL DEFAULT 0,
  trending            REAL    NOT NULL DEFAULT 0,
  rating_sum          INTEGER NOT NULL DEFAULT 0, -- genuine reviews only
  rating_count        INTEGER NOT NULL DEFAULT 0,
  domain_rating       INTEGER,
  billboard_cents     INTEGER NOT NULL DEFAULT 0,
  created_at          TEXT NOT NULL,
  updated_at          TEXT NOT NULL
);
CREATE INDEX listings_votes     ON listings(status, votes DESC, id);
CREATE INDEX listings_newest    ON listings(status, launched_at DESC, id);
CREATE INDEX listings_views     ON listings(status, views DESC, id);
CREATE INDEX listings_follows   ON listings(status, follows DESC, id);
CREATE INDEX listings_trending  ON listings(status, trending DESC, id);
CREATE INDEX listings_dr        ON listings(status, domain_rating DESC, id);
CREATE INDEX listings_billboard ON listings(status, billboard_cents DESC, id);
CREATE INDEX listings_week      ON listings(launch_week, status, votes DESC);
CREATE INDEX listings_domain    ON listings(domain, status);
CREATE INDEX listings_country   ON listings(country, status, votes DESC);
CREATE INDEX listings_stage     ON listings(stage, status, votes DESC);
CREATE INDEX listings_pricing   ON listings(pricing_model, status, votes DESC);
CREATE INDEX listings_category  ON listings(primary_category_id, status, votes DESC);

-- Full-text search over the listing text, kept in sync by triggers inside the
-- writing transaction. Column order matters for bm25 weights (name highest).
CREATE VIRTUAL TABLE listings_fts USING fts5(
  name, tagline, description, features, keywords,
  content='listings', content_rowid='id', tokenize='unicode61 remove_diacritics 2'
);
CREATE TRIGGER listings_fts_ai AFTER INSERT ON listings BEGIN
  INSERT INTO listings_fts(rowid, name, tagline, description, features, keywords)
  VALUES (new.id, new.name, new.tagline, new.description, new.features, new.keywords);
END;
CREATE TRIGGER listings_fts_ad AFTER DELETE ON listings BEGIN
  INSERT INTO listings_fts(listings_fts, rowid, name, tagline, description, features, keywords)
  VALUES ('delete', old.id, old.name, old.tagline, old.description, old.features, old.keywords);
END;
CREATE TRIGGER listings_fts_au AFTER UPDATE OF name, tagline, description, features, keywords ON listings BEGIN
  INSERT INTO listings_fts(listings_fts, rowid, name, tagline, description, features, keywords)
  VALUES ('delete', old.id, old.name, old.tagline, old.description, old.features, old.keywords);
  INSERT INTO listings_fts(rowid, name, tagline, description, features, keywords)
  VALUES (new.id, new.name, new.tagline, new.description, new.features, new.keywords);
END;

CREATE TABLE listing_categories (
  listing_id  INTEGER NOT NULL REFERENCES listings(id) ON DELETE CASCADE,
  category_id INTEGER NOT NULL REFERENCES categories(id),
  is_primary  INTEGER NOT NULL DEFAULT 0,
  PRIMARY KEY (listing_id, category_id)
) WITHOUT ROWID;
CREATE INDEX listing_categories_cat ON listing_categories(category_id, listing_id);

CREATE TABLE listing_owners (
  listing_id INTEGER NOT NULL REFERENCES listings(id) ON DELETE CASCADE,
  user_id    INTEGER NOT NULL REFERENCES users(id) ON DELETE CASCADE,
  role       TEXT NOT NULL DEFAULT 'owner',   -- owner (submitted) or claimed
  created_at TEXT NOT NULL,
  PRIMARY KEY (listing_id, user_id)
) WITHOUT ROWID;
CREATE INDEX listing_owners_user ON listing_owners(user_id, listing_id);

-- Per-site copy (headline, summary, SEO) for directory networks; apply_to copies into these.
CREATE TABLE listing_site_copy (
  listing_id      INTEGER NOT NULL REFERENCES listings(id) ON DELETE CASCADE,
  site_key        TEXT NOT NULL,
  headline        TEXT NOT NULL DEFAULT '',
  summary         TEXT NOT NULL DEFAULT '',
  seo_title       TEXT NOT NULL DEFAULT '',
  seo_description TEXT NOT NULL DEFAULT '',
  PRIMARY KEY (listing_id, site_key)
) WITHOUT ROWID;

CREATE TABLE founders (
  id         INTEGER PRIMARY KEY,
  slug       TEXT NOT NULL UNIQUE,
  name       TEXT NOT NULL,
  title      TEXT NOT NULL DEFAULT '',
  bio        TEXT NOT NULL DEFAULT '',
  country    TEXT NOT NULL DEFAULT '',
  socials    TEXT NOT NULL DEFAULT '{}',
  user_id    INTEGER REFERENCES users(id),
  created_at TEXT NOT NULL
);
CREATE INDEX founders_name ON founders(name COLLATE NOCASE);
CREATE INDEX founders_country ON founders(country, name);
CREATE INDEX founders_user ON founders(user_id);

CREATE TABLE listing_founders (
  listing_id INTEGER NOT NULL REFERENCES listings(id) ON DELETE CASCADE,
  founder_id INTEGER NOT NULL REFERENCES founders(id) ON DELETE CASCADE,
  position   INTEGER NOT NULL DEFAULT 0,
  PRIMARY KEY (listing_id, founder_id)
) WITHOUT ROWID;
CREATE INDEX listing_founders_founder ON listing_founders(founder_id);

CREATE TABLE faqs (
  id         INTEGER PRIMARY KEY,
  listing_id INTEGER NOT NULL REFERENCES listings(id) ON DELETE CASCADE,
  position   INTEGER NOT NULL,
  question   TEXT NOT NULL,
  answer     TEXT NOT NULL
);
CREATE INDEX faqs_listing ON faqs(listing_id, position);

CREATE TABLE listing_updates (
  id         INTEGER PRIMARY KEY,
  listing_id INTEGER NOT NULL REFERENCES listings(id) ON DELETE CASCADE,
  user_id    INTEGER REFERENCES users(id),
  title      TEXT NOT NULL,
  body       TEXT NOT NULL,
  created_at TEXT NOT NULL
);
CREATE INDEX listing_updates_listing ON listing_updates(listing_id, created_at DESC);
CREATE INDEX listing_updates_time ON listing_updates(created_at DESC);

CREATE TABLE milestones (
  id          INTEGER PRIMARY KEY,
  listing_id  INTEGER NOT NULL REFERENCES listings(id) ON DELETE CASCADE,
  date        TEXT NOT NULL,
  title       TEXT NOT NULL,
  description TEXT NOT NULL DEFAULT '',
  url         TEXT NOT NULL DEFAULT '',
  created_at  TEXT NOT NULL
);
CREATE INDEX milestones_listing ON milestones(listing_id, date);

CREATE TABLE stories (
  listing_id   INTEGER PRIMARY KEY REFERENCES listings(id) ON DELETE CASCADE,
  title        TEXT NOT NULL DEFAULT '',
  story        TEXT NOT NULL DEFAULT '',
  why_started  TEXT NOT NULL DEFAULT '',
  problem      TEXT NOT NULL DEFAULT '',
  journey      TEXT NOT NULL DEFAULT '',
  challenges   TEXT NOT NULL DEFAULT '',
  achievements TEXT NOT NULL DEFAULT '',
  lessons      TEXT NOT NULL DEFAULT '',
  whats_next   TEXT NOT NULL DEFAULT '',
  updated_at   TEXT NOT NULL
);

CREATE TABLE media (
  id         INTEGER PRIMARY KEY,
  listing_id INTEGER NOT NULL REFERENCES listings(id) ON DELETE CASCADE,
  kind       TEXT NOT NULL CHECK (kind IN ('image','video')),
  url        TEXT NOT NULL,
  caption    TEXT NOT NULL DEFAULT '',
  position   INTEGER NOT NULL DEFAULT 0
);
CREATE INDEX media_listing ON media(listing_id, position);

CREATE TABLE alternatives (
  listing_id     INTEGER NOT NULL REFERENCES listings(id) ON DELETE CASCADE,
  alternative_id INTEGER NOT NULL REFERENCES listings(id) ON DELETE CASCADE,
  approved       INTEGER NOT NULL DEFAULT 0,  -- approved by the listing's owner
  PRIMARY KEY (listing_id, alternative_id)
) WITHOUT ROWID;

CREATE TABLE reviews (
  id          INTEGER PRIMARY KEY,
  listing_id  INTEGER NOT NULL REFERENCES listings(id) ON DELETE CASCADE,
  author_name TEXT NOT NULL,
  rating      INTEGER NOT NULL CHECK (rating BETWEEN 1 AND 5),
  body        TEXT NOT NULL DEFAULT '',
  genuine     INTEGER NOT NULL DEFAULT 1,  -- 0 = flagged by moderation; never counted
  created_at  TEXT NOT NULL
);
CREATE INDEX reviews_listing ON reviews(listing_id, created_at DESC);

-- Votes come only from people on the site (never through the API).
CREATE TABLE votes (
  listing_id INTEGER NOT NULL REFERENCES listings(id) ON DELETE CASCADE,
  voter      TEXT NOT NULL,     -- user id or hashed visitor id
  week       TEXT NOT NULL,     -- Monday of the week the vote was cast
  created_at TEXT NOT NULL,
  PRIMARY KEY (listing_id, voter)
) WITHOUT ROWID;

-- Maintained weekly counters for the weekly board and awards.
CREATE TABLE weekly_votes (
  week       TEXT NOT NULL,
  listing_id INTEGER NOT NULL REFERENCES listings(id) ON DELETE CASCADE,
  votes      INTEGER NOT NULL DEFAULT 0,
  PRIMARY KEY (week, listing_id)
) WITHOUT ROWID;
CREATE INDEX weekly_votes_rank ON weekly_votes(week, votes DESC, listing_id);

CREATE TABLE daily_views (
  listing_id INTEGER NOT NULL REFERENCES listings(id) ON DELETE CASCADE,
  day        TEXT NOT NULL,
  views      INTEGER NOT NULL DEFAULT 0,
  PRIMARY KEY (listing_id, day)
) WITHOUT ROWID;

CREATE TABLE follows (
  listing_id INTEGER NOT NULL REFERENCES listings(id) ON DELETE CASCADE,
  user_id    INTEGER NOT NULL REFERENCES users(id) ON DELETE CASCADE,
  created_at TEXT NOT NULL,
  PRIMARY KEY (listing_id, user_id)
) WITHOUT ROWID;

CREATE TABLE domain_ratings (
  listing_id  INTEGER NOT NULL REFERENCES listings(id) ON DELETE CASCADE,
  measured_on TEXT NOT NULL,
  rating      INTEGER NOT NULL CHECK (rating BETWEEN 0 AND 100),
  PRIMARY KEY (listing_id, measured_on)
) WITHOUT ROWID;

CREATE TABLE revenue (
  listing_id  INTEGER PRIMARY KEY REFERENCES listings(id) ON DELETE CASCADE,
  mrr_cents   INTEGER NOT NULL,
  currency    TEXT NOT NULL DEFAULT 'USD',
  verified    INTEGER NOT NULL DEFAULT 0,
  source      TEXT NOT NULL DEFAULT 'self-reported',
  updated_at  TEXT NOT NULL
);
CREATE INDEX revenue_rank ON revenue(mrr_cents DESC, listing_id);

CREATE TABLE billboard_contributions (
  id           INTEGER PRIMARY KEY,
  listing_id   INTEGER NOT NULL REFERENCES listings(id) ON DELETE CASCADE,
  amount_cents INTEGER NOT NULL CHECK (amount_cents > 0),
  order_id     INTEGER,
  created_at   TEXT NOT NULL
);
CREATE INDEX billboard_listing ON billboard_contributions(listing_id);

CREATE TABLE blog_posts (
  id           INTEGER PRIMARY KEY,
  slug         TEXT NOT NULL UNIQUE,
  title        TEXT NOT NULL,
  summary      TEXT NOT NULL DEFAULT '',
  body_md      TEXT NOT NULL,
  author       TEXT NOT NULL DEFAULT '',
  tags         TEXT NOT NULL DEFAULT '[]',
  faqs         TEXT NOT NULL DEFAULT '[]',
  published_at TEXT NOT NULL
);
CREATE INDEX blog_posts_published ON blog_posts(published_at DESC, id DESC);

CREATE TABLE awards (
  week       TEXT NOT NULL,
  rank       INTEGER NOT NULL CHECK (rank BETWEEN 1 AND 3),
  listing_id INTEGER NOT NULL REFERENCES listings(id) ON DELETE CASCADE,
  votes      INTEGER NOT NULL,
  PRIMARY KEY (week, rank)
) WITHOUT ROWID;
CREATE INDEX awards_listing ON awards(listing_id, week DESC);

CREATE TABLE interview_questions (
  id       INTEGER PRIMARY KEY,
  position INTEGER NOT NULL,
  question TEXT NOT NULL,
  hint     TEXT NOT NULL DEFAULT '',
  active   INTEGER NOT NULL DEFAULT 1
);

CREATE TABLE interview_answers (
  user_id     INTEGER NOT NULL REFERENCES users(id) ON DELETE CASCADE,
  question_id INTEGER NOT NULL REFERENCES interview_questions(id),
  answer      TEXT NOT NULL,
  updated_at  TEXT NOT NULL,
  PRIMARY KEY (user_id, question_id)
) WITHOUT ROWID;

-- Every owner edit leaves a before/after copy for the site team.
CREATE TABLE revisions (
  id         INTEGER PRIMARY KEY,
  entity     TEXT NOT NULL,      -- listing, story, milestone, faqs, socials, ...
  entity_id  INTEGER NOT NULL,
  listing_id INTEGER,
  user_id    INTEGER REFERENCES users(id),
  operation  TEXT NOT NULL,
  before     TEXT NOT NULL,
  after      TEXT NOT NULL,
  created_at TEXT NOT NULL
);
CREATE INDEX revisions_listing ON revisions(listing_id, id DESC);

-- Every email the service sends; delivered by a worker, retried, never lost.
CREATE TABLE outbox (
  id              INTEGER PRIMARY KEY,
  kind            TEXT NOT NULL,
  to_addr         TEXT NOT NULL,
  subject         TEXT NOT NULL,
  body            TEXT NOT NULL,
  status          TEXT NOT NULL DEFAULT 'pending' CHECK (status IN ('pending','sent','failed')),
  attempts        INTEGER NOT NULL DEFAULT 0,
  last_error      TEXT NOT NULL DEFAULT '',
  next_attempt_at TEXT NOT NULL,
  created_at      TEXT NOT NULL,
  sent_at         TEXT
);
CREATE INDEX outbox_due ON outbox(status, next_attempt_at);

CREATE TABLE idempotency_keys (
  user_id         INTEGER NOT NULL,
  key             TEXT NOT NULL,
  request_hash    TEXT NOT NULL,
  state           TEXT NOT NULL CHECK (state IN ('running','done')),
  response_status INTEGER,
  response_body   BLOB,
  created_at      TEXT NOT NULL,
  expires_at      TEXT NOT NULL,
  PRIMARY KEY (user_id, key)
) WITHOUT ROWID;
CREATE INDEX idempotency_expiry ON idempotency_keys(expires_at);

CREATE TABLE drafts (
  id             TEXT PRIMARY KEY,     -- UUID
  user_id        INTEGER NOT NULL REFERENCES users(id) ON DELETE CASCADE,
  url            TEXT NOT NULL,
  status         TEXT NOT NULL CHECK (status IN ('crawling','drafting','ready','failed','submitted')),
  failure_kind   TEXT NOT NULL DEFAULT '',
  failure_reason TEXT NOT NULL DEFAULT '',
  data           TEXT NOT NULL DEFAULT '{}', -- fields, faqs, founders, socials, story, milestones, seo, evidence
  pages          TEXT NOT NULL DEFAULT '[]', -- crawled page texts kept as evidence for regenerate
  listing_id     INTEGER REFERENCES listings(id),
  attempts       INTEGER NOT NULL DEFAULT 0,
  created_at     TEXT NOT NULL,
  updated_at     TEXT NOT NULL
);
CREATE INDEX drafts_user ON drafts(user_id, created_at DESC);
CREATE INDEX drafts_status ON drafts(status);

CREATE TABLE draft_invites (
  id          INTEGER PRIMARY KEY,
  draft_id    TEXT NOT NULL REFERENCES drafts(id) ON DELETE CASCADE,
  email       TEXT NOT NULL COLLATE NOCASE,
  invited_by  INTEGER NOT NULL REFERENCES users(id),
  created_at  TEXT NOT NULL,
  accepted_at TEXT,
  UNIQUE (draft_id, email)
);

CREATE TABLE claims (
  id          INTEGER PRIMARY KEY,
  listing_id  INTEGER NOT NULL REFERENCES listings(id) ON DELETE CASCADE,
  user_id     INTEGER NOT NULL REFERENCES users(id) ON DELETE CASCADE,
  method      TEXT NOT NULL CHECK (method IN ('dns','meta','file','email')),
  token       TEXT NOT NULL,
  email       TEXT NOT NULL DEFAULT '',
  status      TEXT NOT NULL CHECK (status IN ('pending','verified','failed','expired')),
  last_error  TEXT NOT NULL DEFAULT '',
  created_at  TEXT NOT NULL,
  verified_at TEXT
);
CREATE UNIQUE INDEX claims_one_pending ON claims(user_id, listing_id) WHERE status = 'pending';
CREATE INDEX claims_user ON claims(user_id, id DESC);

-- Orders (products, prices and capacities live in settings/products).
CREATE TABLE products (
  code          TEXT PRIMARY KEY,
  name          TEXT NOT NULL,
  description   TEXT NOT NULL,
  price_cents   INTEGER NOT NULL CHECK (price_cents >= 0),
  currency      TEXT NOT NULL DEFAULT 'USD',
  needs_listing INTEGER NOT NULL DEFAULT 1,
  options       TEXT NOT NULL DEFAULT '{}',   -- option name -> allowed values
  weekly_capacity INTEGER,                    -- NULL: not week-bound
  position      INTEGER NOT NULL DEFAULT 0,
  active        INTEGER NOT NULL DEFAULT 1
);

CREATE TABLE orders (
  id             INTEGER PRIMARY KEY,
  number         TEXT NOT NULL UNIQUE,
  user_id        INTEGER NOT NULL REFERENCES users(id),
  status         TEXT NOT NULL CHECK (status IN ('pending','paid','failed','expired','canceled','refunded')),
  currency       TEXT NOT NULL,
  subtotal_cents INTEGER NOT NULL,
  discount_cents INTEGER NOT NULL DEFAULT 0,
  vat_cents      INTEGER NOT NULL DEFAULT 0,
  total_cents    INTEGER NOT NULL,
  vat_rate       TEXT NOT NULL DEFAULT '0',
  vat_note       TEXT NOT NULL DEFAULT '',
  billing_country TEXT NOT NULL DEFAULT '',
  vat_number     TEXT NOT NULL DEFAULT '',
  promo_code     TEXT NOT NULL DEFAULT '',
  provider       TEXT NOT NULL DEFAULT 'test',
  provider_ref   TEXT NOT NULL DEFAULT '',
  checkout_token TEXT NOT NULL UNIQUE,
  created_at     TEXT NOT NULL,
  updated_at     TEXT NOT NULL,
  paid_at        TEXT,
  expires_at     TEXT NOT NULL
);
CREATE INDEX orders_user ON orders(user_id, id DESC);

CREATE TABLE order_lines (
  id             INTEGER PRIMARY KEY,
  order_id       INTEGER NOT NULL REFERENCES orders(id) ON DELETE CASCADE,
  position       INTEGER NOT NULL,
  product        TEXT NOT NULL REFERENCES products(code),
  listing_id     INTEGER REFERENCES listings(id),
  week           TEXT,
  details        TEXT NOT NULL DEFAULT '{}',   -- amount, categories, options
  net_cents      INTEGER NOT NULL,
  discount_cents INTEGER NOT NULL DEFAULT 0,
  vat_cents      INTEGER NOT NULL DEFAULT 0
);
CREATE INDEX order_lines_order ON order_lines(order_id, position);
CREATE INDEX order_lines_week ON order_lines(product, week);

CREATE TABLE promo_codes (
  code            TEXT PRIMARY KEY,     -- matched exactly as typed
  kind            TEXT NOT NULL CHECK (kind IN ('percent','fixed')),
  value           INTEGER NOT NULL CHECK (value > 0),
  valid_from      TEXT,
  valid_until     TEXT,
  max_redemptions INTEGER,
  redemptions     INTEGER NOT NULL DEFAULT 0,
  products        TEXT NOT NULL DEFAULT '[]', -- empty = any product
  created_at      TEXT NOT NULL
);

CREATE TABLE featured_slots (
  listing_id INTEGER NOT NULL REFERENCES listings(id) ON DELETE CASCADE,
  week       TEXT NOT NULL,
  order_id   INTEGER REFERENCES orders(id),
  PRIMARY KEY (week, listing_id)
) WITHOUT ROWID;

CREATE TABLE team_tasks (
  id         INTEGER PRIMARY KEY,
  kind       TEXT NOT NULL,         -- ai_review, done_for_you, ...
  listing_id INTEGER REFERENCES listings(id),
  order_id   INTEGER REFERENCES orders(id),
  status     TEXT NOT NULL DEFAULT 'open',
  created_at TEXT NOT NULL
);
