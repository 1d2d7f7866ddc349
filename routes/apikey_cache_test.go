package routes_test

import (
	"context"
	"database/sql"
	"fmt"
	"testing"

	"launchdir/apitest"
)

// TestAPIKeyCacheSeesEveryChange: a key already resolved is served from
// memory (app/people/auth.go) only while the auth epoch (migration 0023)
// is unchanged. Every change to what the key authenticates as, made by
// this server or by another process on the same file (a second connection
// here, with the file's triggers only), is seen by the very next request.
func TestAPIKeyCacheSeesEveryChange(t *testing.T) {
	e := apitest.New(t, apitest.Options{})
	other, err := sql.Open("sqlite", "file:"+e.DB.Path+"?_pragma=busy_timeout(5000)&_pragma=foreign_keys(1)")
	if err != nil {
		t.Fatal(err)
	}
	defer other.Close()
	exec := func(q string, args ...any) {
		t.Helper()
		if _, err := other.Exec(q, args...); err != nil {
			t.Fatalf("%s: %v", q, err)
		}
	}
	me := func(key string, want int) map[string]any {
		t.Helper()
		r := e.Do("GET", "/api/v1/me", nil, apitest.Bearer(key)...)
		if r.Status != want {
			t.Fatalf("GET /me: %d, want %d: %s", r.Status, want, r.Body)
		}
		return r.JSON()
	}

	key := e.APIKey("cache@example.com")
	me(key, 200)
	me(key, 200) // now from memory

	// Served from memory: a change that bypasses the epoch (its trigger
	// dropped) is not seen, which is why the triggers must stay.
	exec(`DROP TRIGGER api_keys_auth_epoch_au`)
	exec(`UPDATE api_keys SET scopes = 'listings:read' WHERE user_id = (SELECT id FROM users WHERE email = 'cache@example.com')`)
	me(key, 200)
	exec(`CREATE TRIGGER api_keys_auth_epoch_au AFTER UPDATE OF id, user_id, hash, scopes, revoked_at ON api_keys BEGIN
		UPDATE auth_epoch SET n = n + 1 WHERE id = 1; END`)
	exec(`UPDATE api_keys SET scopes = 'listings:read' || '' WHERE user_id = (SELECT id FROM users WHERE email = 'cache@example.com')`)
	me(key, 403) // account:read is gone

	exec(`UPDATE api_keys SET scopes = 'account:read' WHERE user_id = (SELECT id FROM users WHERE email = 'cache@example.com')`)
	if got := me(key, 200)["scopes"]; fmt.Sprint(got) != "[account:read]" {
		t.Fatalf("scopes %v", got)
	}
	email := func() string {
		t.Helper()
		p, err := e.App.People.Authenticate(context.Background(), "Bearer "+key)
		if err != nil {
			t.Fatal(err)
		}
		return p.Email
	}
	if got := email(); got != "cache@example.com" {
		t.Fatalf("email %v", got)
	}
	exec(`UPDATE users SET email = 'renamed@example.com' WHERE email = 'cache@example.com'`)
	if got := email(); got != "renamed@example.com" {
		t.Fatalf("after another process renamed the user: email %v", got)
	}
	exec(`UPDATE api_keys SET revoked_at = '2026-11-18T12:00:00Z' WHERE user_id = (SELECT id FROM users WHERE email = 'renamed@example.com')`)
	me(key, 401)

	// Revoked by this server (the revoke operation's own transaction).
	key2 := e.APIKey("second@example.com")
	me(key2, 200)
	keys, err := e.App.People.ListAPIKeys(context.Background(), "second@example.com")
	if err != nil || len(keys) != 1 {
		t.Fatal(keys, err)
	}
	if err := e.App.People.RevokeAPIKey(context.Background(), keys[0].ID); err != nil {
		t.Fatal(err)
	}
	me(key2, 401)

	// The key's row deleted, and the user deleted (the key goes with it).
	key3 := e.APIKey("third@example.com")
	me(key3, 200)
	exec(`DELETE FROM api_keys WHERE user_id = (SELECT id FROM users WHERE email = 'third@example.com')`)
	me(key3, 401)
	key4 := e.APIKey("fourth@example.com")
	me(key4, 200)
	exec(`DELETE FROM users WHERE email = 'fourth@example.com'`)
	me(key4, 401)

	// A key made after others were resolved works at once (inserts leave
	// the epoch alone: nothing cached can be wrong about a new key).
	key5 := e.APIKey("fifth@example.com")
	me(key5, 200)
	me(key, 401)
}
