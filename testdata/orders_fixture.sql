-- Orders test data, loaded after public_fixture.sql. "Now" is
-- 2026-11-18T12:00:00Z (week 2026-11-16); bookable weeks 2026-11-23 .. 2027-01-11.
INSERT INTO listings(id, slug, name, url, domain, tagline, status, plan, launch_week, launched_at, primary_category_id, created_at, updated_at) VALUES
 (7,'bundleapp','BundleApp','https://bundleapp.example/','bundleapp.example','Bundled for launch','draft','none',NULL,NULL,2,'2026-11-01T00:00:00Z','2026-11-01T00:00:00Z'),
 (8,'queuedapp','QueuedApp','https://queuedapp.example/','queuedapp.example','In the free queue','scheduled','free','2026-12-14',NULL,4,'2026-11-01T00:00:00Z','2026-11-01T00:00:00Z'),
 (9,'rejectedapp','RejectedApp','https://rejectedapp.example/','rejectedapp.example','Refused','rejected','none',NULL,NULL,4,'2026-11-01T00:00:00Z','2026-11-01T00:00:00Z');
INSERT INTO listing_categories(listing_id, category_id, is_primary) VALUES (7,2,1),(8,4,1),(9,4,1);
INSERT INTO listing_owners(listing_id, user_id, role, created_at) VALUES
 (7,1,'owner','2026-11-01T00:00:00Z'),(8,1,'owner','2026-11-01T00:00:00Z'),(9,1,'owner','2026-11-01T00:00:00Z');

INSERT INTO promo_codes(code, kind, value, valid_from, valid_until, max_redemptions, redemptions, products, created_at) VALUES
 ('WELCOME10','percent',10,NULL,NULL,NULL,0,'[]','2026-01-01T00:00:00Z'),
 ('FIVEOFF','fixed',500,NULL,NULL,NULL,0,'[]','2026-01-01T00:00:00Z'),
 ('OLD','percent',20,'2025-01-01T00:00:00Z','2026-01-01T00:00:00Z',NULL,0,'[]','2025-01-01T00:00:00Z'),
 ('FUTURE','percent',20,'2027-01-01T00:00:00Z',NULL,NULL,0,'[]','2026-01-01T00:00:00Z'),
 ('GONE','percent',20,NULL,NULL,1,1,'[]','2026-01-01T00:00:00Z'),
 ('FEATONLY','percent',20,NULL,NULL,NULL,0,'["featured"]','2026-01-01T00:00:00Z'),
 ('ONCE','percent',50,NULL,NULL,1,0,'[]','2026-01-01T00:00:00Z'),
 ('FREE','percent',100,NULL,NULL,NULL,0,'[]','2026-01-01T00:00:00Z');
