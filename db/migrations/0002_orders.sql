-- Orders v2: the default product catalogue (prices and weekly capacities are
-- admin settings: `launchdir price set`), order bookkeeping columns and the
-- record of payment provider events (webhook replays do nothing).

INSERT OR IGNORE INTO products(code, name, description, price_cents, currency, needs_listing, options, weekly_capacity, position) VALUES
 ('launch', 'Paid launch', 'Skip the free queue: go live now or in a chosen launch week. Upgrades a free listing to paid and unlocks story, milestones and media.', 4900, 'USD', 1, '{}', 20, 1),
 ('featured', 'Featured placement', 'Pin your listing above the weekly board for one booked week, on the homepage or in your category.', 9900, 'USD', 1, '{"placement":["homepage","category"]}', 3, 2),
 ('done_for_you', 'Done-for-you listing', 'Our team writes your listing, FAQs and founder story from your website and a short call.', 19900, 'USD', 1, '{}', NULL, 3),
 ('launch_bundle', 'Launch bundle', 'Paid launch in the booked week, featured placement on the homepage that week and an AI listing review, at a discount.', 12900, 'USD', 1, '{}', NULL, 4),
 ('extra_categories', 'Extra categories', 'Appear in up to three more categories and their compare tables. Priced per category.', 1900, 'USD', 1, '{}', NULL, 5),
 ('relaunch', 'Relaunch', 'Launch again in a booked week after a major release; your listing returns to that week''s board.', 2900, 'USD', 1, '{}', 10, 6),
 ('ai_review', 'AI listing review', 'A detailed review of your listing copy, positioning and SEO, checked by a human editor.', 3900, 'USD', 1, '{}', NULL, 7),
 ('billboard_min', 'Billboard contribution', 'Add to your billboard total to climb the paid billboard ranking. The price is the minimum contribution; pay more with amount_cents.', 500, 'USD', 1, '{}', NULL, 8),
 ('trophy_cabinet', 'Trophy cabinet', 'Unlock the story, milestones and media sections of your listing.', 2900, 'USD', 1, '{}', NULL, 9),
 ('trophy_plaque', 'Award plaque', 'A physical plaque engraved with your launch award, shipped worldwide.', 7900, 'USD', 1, '{"finish":["oak","walnut","black"],"size":["small","large"]}', NULL, 10);

ALTER TABLE orders ADD COLUMN checkout_url TEXT NOT NULL DEFAULT '';
ALTER TABLE orders ADD COLUMN status_note TEXT NOT NULL DEFAULT '';
CREATE INDEX orders_pending_expiry ON orders(status, expires_at);
CREATE INDEX orders_provider_ref ON orders(provider, provider_ref);

CREATE TABLE payment_events (
  provider     TEXT NOT NULL,
  event_id     TEXT NOT NULL,
  type         TEXT NOT NULL,
  order_number TEXT NOT NULL DEFAULT '',
  received_at  TEXT NOT NULL,
  PRIMARY KEY (provider, event_id)
) WITHOUT ROWID;
