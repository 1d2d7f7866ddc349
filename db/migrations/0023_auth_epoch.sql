-- A number that changes whenever what an API key authenticates as may
-- change: a key revoked, deleted or given other scopes, its user's email
-- changed or the user deleted. The server keeps the keys it resolved in
-- memory with the number it read first, and serves one from memory only
-- while the number is unchanged: one read of a one-row table instead of
-- the key's index, row and user (app/people/auth.go). The triggers live
-- in the file, so a revocation by another process (the CLI, another
-- instance on the same file, a primary replicated here) changes it too.
-- Inserts change nothing: a key not yet resolved is not in memory.
CREATE TABLE auth_epoch (
  id INTEGER PRIMARY KEY CHECK (id = 1),
  n  INTEGER NOT NULL
);
INSERT INTO auth_epoch(id, n) VALUES (1, 0);

CREATE TRIGGER api_keys_auth_epoch_au AFTER UPDATE OF id, user_id, hash, scopes, revoked_at ON api_keys BEGIN
  UPDATE auth_epoch SET n = n + 1 WHERE id = 1;
END;
CREATE TRIGGER api_keys_auth_epoch_ad AFTER DELETE ON api_keys BEGIN
  UPDATE auth_epoch SET n = n + 1 WHERE id = 1;
END;
CREATE TRIGGER users_auth_epoch_au AFTER UPDATE OF id, email ON users BEGIN
  UPDATE auth_epoch SET n = n + 1 WHERE id = 1;
END;
CREATE TRIGGER users_auth_epoch_ad AFTER DELETE ON users BEGIN
  UPDATE auth_epoch SET n = n + 1 WHERE id = 1;
END;
