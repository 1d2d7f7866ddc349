-- Issue 25: limits that hold under attack.
--
-- An idempotent operation in several atomic phases (create_checkout: the
-- order, then the payment step and the response) records in its first
-- phase's transaction where a retry resumes if the process dies before the
-- response is stored (the order number). Empty: no recovery point.
ALTER TABLE idempotency_keys ADD COLUMN recovery TEXT NOT NULL DEFAULT '';
