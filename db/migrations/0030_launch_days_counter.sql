-- Change counter launch_days (issue 26; see 0026): what ranks the
-- listings launched on a day (db.LaunchedBetween, the home page's
-- "today"): which listings are live, when they launched, their votes. The
-- ranking sorted all of a day's launches on every home page (176 at 100k),
-- though an owner's edit, a review or a follow changes none of it.
INSERT INTO change_counters(name, n) VALUES ('launch_days', 0);

CREATE TRIGGER listings_days_ai AFTER INSERT ON listings BEGIN
  UPDATE change_counters SET n = n + 1 WHERE name = 'launch_days';
END;
CREATE TRIGGER listings_days_ad AFTER DELETE ON listings BEGIN
  UPDATE change_counters SET n = n + 1 WHERE name = 'launch_days';
END;
CREATE TRIGGER listings_days_au AFTER UPDATE OF status, launched_at, votes ON listings
WHEN old.status IS NOT new.status OR old.launched_at IS NOT new.launched_at OR old.votes IS NOT new.votes BEGIN
  UPDATE change_counters SET n = n + 1 WHERE name = 'launch_days';
END;
