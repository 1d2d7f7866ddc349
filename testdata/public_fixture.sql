-- A small, hand-written directory for API tests. "Now" in tests is
-- 2026-11-18T12:00:00Z (a Wednesday), so this week is 2026-11-16.
INSERT INTO settings(key, value) VALUES ('site_name','Test Directory'), ('first_week','2026-06-01'), ('free_queue_weeks','4'), ('free_weekly_capacity','2');

INSERT INTO users(id, email, name, created_at) VALUES
 (1,'owner@example.com','Olivia Owner','2026-01-01T00:00:00Z'),
 (2,'other@example.com','Oscar Other','2026-01-01T00:00:00Z'),
 (3,'fan@example.com','Fiona Fan','2026-01-01T00:00:00Z');

INSERT INTO categories(id, slug, name, parent_id, description, position, attributes) VALUES
 (1,'developer-tools','Developer Tools',NULL,'Tools for builders',1,'["Open source","Self-hosted","API"]'),
 (2,'databases','Databases',1,'Data stores',1,'["Query language"]'),
 (3,'marketing','Marketing',NULL,'Grow your audience',2,'["Channels","Free trial"]'),
 (4,'seo','SEO',3,'Search engine optimisation',1,'[]'),
 (5,'empty-cat','Empty Category',NULL,'Nothing here',3,'[]');

INSERT INTO listings(id, slug, name, url, domain, tagline, short_description, description, stage, pricing_model, pricing_summary,
  country, city, founded_year, contact_email, features, keywords, socials, not_found, attributes, status, plan, launch_week, launched_at,
  primary_category_id, unlock_story, unlock_milestones, unlock_media, votes, views, follows, trending, rating_sum, rating_count,
  domain_rating, billboard_cents, created_at, updated_at) VALUES
 (1,'quickbase','QuickBase','https://quickbase.example/','quickbase.example','The fastest embedded database','Embedded SQL for apps',
  'QuickBase is an embedded database for mobile and desktop apps. It syncs offline data.','growth','open-source','Free and open source',
  'DE','Berlin',2019,'hi@quickbase.example','["Offline sync","SQL queries","Encryption"]','["database","sqlite","offline"]',
  '{"github":"https://github.com/quickbase","x":"https://x.com/quickbase"}','["city"]','{"Open source":"Yes","API":"REST","Query language":"SQL"}',
  'live','paid','2026-11-16','2026-11-16T09:00:00Z',2,1,1,1,120,5000,40,9.5,9,2,55,25000,'2026-10-01T00:00:00Z','2026-11-16T09:00:00Z'),
 (2,'rankrocket','RankRocket','https://rankrocket.example/','rankrocket.example','SEO audits that explain themselves','Plain-English SEO',
  'RankRocket audits your site for search engines and explains every fix. Works with any database of pages, even Tablely.','launched','subscription','From $19/month',
  'US','Austin',2021,'team@rankrocket.example','["Site audit","Keyword tracking"]','["seo","marketing"]',
  '{"linkedin":"https://linkedin.com/company/rankrocket"}','[]','{"Channels":"Search","Free trial":"14 days"}',
  'live','free','2026-11-09','2026-11-10T10:00:00Z',4,0,0,0,80,3000,25,4.0,0,0,30,0,'2026-10-01T00:00:00Z','2026-11-10T10:00:00Z'),
 (3,'tablely','Tablely','https://www.tablely.example/','tablely.example','Spreadsheets that behave like a database','A friendly database',
  'Tablely turns spreadsheets into a relational database with forms.','beta','freemium','Free up to 3 tables',
  'GB','London',NULL,'','["Forms","Relations"]','["database","spreadsheet"]','{}','["founded_year","contact_email"]','{"Self-hosted":"No"}',
  'live','free','2026-11-16','2026-11-18T08:00:00Z',2,0,0,0,45,900,10,7.0,4,1,NULL,5000,'2026-10-01T00:00:00Z','2026-11-18T08:00:00Z'),
 (4,'oldpost','OldPost','https://oldpost.example/','oldpost.example','Newsletter tool from the archives','Email newsletters',
  'OldPost sends newsletters.','profitable','one-time','$99 once','FR','Paris',2015,'','[]','["newsletter"]','{}','[]','{}',
  'live','free','2026-06-01','2026-06-02T10:00:00Z',3,0,0,0,10,100,2,0.5,0,0,20,0,'2026-05-01T00:00:00Z','2026-06-02T10:00:00Z'),
 (5,'soonapp','SoonApp','https://soonapp.example/','soonapp.example','Coming next month','Launching soon',
  'SoonApp is not live yet.','pre-launch','free','Free','US','',NULL,'','[]','["database"]','{}','[]','{}',
  'scheduled','free','2026-12-14',NULL,2,0,0,0,0,0,0,0,0,0,NULL,0,'2026-11-01T00:00:00Z','2026-11-01T00:00:00Z'),
 (6,'secretdraft','SecretDraft','https://secretdraft.example/','secretdraft.example','Hidden draft','Draft',
  'A draft database listing nobody may see.','idea','free','','US','',NULL,'','[]','["database"]','{}','[]','{}',
  'draft','none',NULL,NULL,2,0,0,0,0,0,0,0,0,0,NULL,0,'2026-11-01T00:00:00Z','2026-11-01T00:00:00Z');

INSERT INTO listing_categories(listing_id, category_id, is_primary) VALUES
 (1,2,1),(1,3,0),(2,4,1),(3,2,1),(4,3,1),(5,2,1),(6,2,1);

INSERT INTO listing_owners(listing_id, user_id, role, created_at) VALUES
 (1,1,'owner','2026-10-01T00:00:00Z'),(3,1,'owner','2026-10-01T00:00:00Z'),(6,1,'owner','2026-10-01T00:00:00Z'),(2,2,'owner','2026-10-01T00:00:00Z');

INSERT INTO founders(id, slug, name, title, bio, country, socials, created_at) VALUES
 (1,'ada-lovelace','Ada Lovelace','CEO','Built databases for 10 years.','DE','{"linkedin":"https://linkedin.com/in/ada"}','2026-01-01T00:00:00Z'),
 (2,'bob-builder','Bob Builder','CTO','Can we fix it?','US','{}','2026-01-01T00:00:00Z'),
 (3,'ghost-founder','Ghost Founder','CEO','Only has a draft.','US','{}','2026-01-01T00:00:00Z');
INSERT INTO listing_founders(listing_id, founder_id, position) VALUES (1,1,0),(3,1,0),(2,2,0),(6,3,0);

INSERT INTO faqs(listing_id, position, question, answer) VALUES
 (1,0,'Is it free?','Yes, QuickBase is open source.'),(1,1,'Does it sync?','Yes, offline sync is built in.');
INSERT INTO listing_updates(listing_id, title, body, created_at) VALUES
 (1,'v2 released','Faster queries.','2026-11-17T10:00:00Z'),(1,'v1.9','Bug fixes.','2026-10-17T10:00:00Z');
INSERT INTO stories(listing_id, title, story, updated_at) VALUES (1,'Why we built QuickBase','We needed offline data.','2026-11-01T00:00:00Z');
INSERT INTO milestones(listing_id, date, title, created_at) VALUES (1,'2026-01-15','1.0 shipped','2026-01-15T00:00:00Z');
INSERT INTO media(listing_id, kind, url, caption) VALUES (1,'image','https://quickbase.example/shot.png','Dashboard');
INSERT INTO stories(listing_id, title, story, updated_at) VALUES (2,'Locked story','Not unlocked.','2026-11-01T00:00:00Z');

INSERT INTO reviews(listing_id, author_name, rating, body, genuine, created_at) VALUES
 (1,'A',5,'Great',1,'2026-11-01T00:00:00Z'),(1,'B',4,'Good',1,'2026-11-01T00:00:00Z'),(1,'Spam',1,'Bad',0,'2026-11-01T00:00:00Z'),
 (3,'C',4,'Nice',1,'2026-11-01T00:00:00Z');

INSERT INTO weekly_votes(week, listing_id, votes) VALUES
 ('2026-11-16',1,30),('2026-11-16',3,45),('2026-11-09',2,50),('2026-11-09',1,40),('2026-11-09',4,5),('2026-11-02',1,50);

INSERT INTO awards(week, rank, listing_id, votes) VALUES
 ('2026-11-09',1,2,50),('2026-11-09',2,1,40),('2026-11-09',3,4,5),('2026-11-02',1,1,50);

INSERT INTO domain_ratings(listing_id, measured_on, rating) VALUES
 (1,'2026-09-01',50),(1,'2026-10-01',52),(1,'2026-11-01',55),(2,'2026-10-01',32),(2,'2026-11-01',30);
INSERT INTO revenue(listing_id, mrr_cents, verified, source, updated_at) VALUES (1,1200000,1,'stripe','2026-11-01T00:00:00Z'),(2,300000,0,'self-reported','2026-11-01T00:00:00Z');
INSERT INTO billboard_contributions(listing_id, amount_cents, created_at) VALUES (1,25000,'2026-11-01T00:00:00Z'),(3,5000,'2026-11-02T00:00:00Z');
INSERT INTO alternatives(listing_id, alternative_id, approved) VALUES (1,4,1),(1,3,0);

INSERT INTO blog_posts(slug, title, summary, body_md, author, tags, faqs, published_at) VALUES
 ('how-to-launch','How to launch on a directory','A launch checklist','# Launch\n\nPrepare your **badge**.','Team','["launch"]','[{"question":"When?","answer":"Mondays."}]','2026-11-01T00:00:00Z'),
 ('seo-basics','SEO basics for founders','Search 101','# SEO\n\nWrite for people.','Team','["seo"]','[]','2026-10-01T00:00:00Z');

INSERT INTO interview_questions(id, position, question, hint) VALUES
 (1,1,'What problem do you solve?',''),(2,2,'Who are your customers?',''),(3,3,'What is next?','');

UPDATE categories SET live_count = (SELECT count(DISTINCT lc.listing_id) FROM listing_categories lc JOIN listings l ON l.id = lc.listing_id
  JOIN categories k ON k.id = lc.category_id WHERE l.status = 'live' AND (k.id = categories.id OR k.parent_id = categories.id));

-- A comment (issue 22) so the public comment reads have something to show.
INSERT INTO comments(id, listing_id, user_id, body, created_at) VALUES
 (1,1,3,'Does QuickBase sync *both ways*?','2026-11-17T10:00:00Z');
