-- effect_at is set INSIDE the write transaction of an idempotent request
-- (db.Tx), so "the effect committed" and "the key knows it" are one atomic
-- fact. A key left running by a crashed process is released for a new run
-- only when effect_at is NULL; otherwise it is finished with a stored
-- "effect committed, response lost" problem and never runs twice.
ALTER TABLE idempotency_keys ADD COLUMN effect_at TEXT;
