-- Issue 24: what an order buys is placed on the site it was bought on, at
-- that site's price. An order records its site; a featured slot bought on
-- another site than main is that site's (site_featured_slots, read by the
-- site's shadow views as featured_slots, db/sites.go). Weekly capacity of a
-- product is counted per site.
ALTER TABLE orders ADD COLUMN site_key TEXT NOT NULL DEFAULT 'main';
CREATE INDEX orders_site_status ON orders(site_key, status);

CREATE TABLE site_featured_slots (
  site_key   TEXT NOT NULL REFERENCES sites(key) ON DELETE CASCADE,
  listing_id INTEGER NOT NULL REFERENCES listings(id) ON DELETE CASCADE,
  week       TEXT NOT NULL,
  order_id   INTEGER REFERENCES orders(id),
  PRIMARY KEY (site_key, week, listing_id)
) WITHOUT ROWID;
