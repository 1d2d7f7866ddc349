package site_test

import (
	"launchdir/app/kernel"
	"net/url"
	"regexp"
	"strconv"
	"strings"
	"testing"
)

var secretRe = regexp.MustCompile(`<code id="secret">(ldk_[a-z0-9]+)</code>`)

// A key made in the keys area works against the API; its secret is shown
// once; revoking it there stops it.
func TestFounderCreatesAKeyAndUsesItAgainstTheAPI(t *testing.T) {
	e := newAreaEnv(t)
	if pg := e.as(0).get("/me/keys"); pg.status != 303 || pg.loc != "/signin?next=%2Fme%2Fkeys" {
		t.Fatalf("anonymous: %d %s", pg.status, pg.loc)
	}
	owner := e.as(1)
	pg := owner.get("/me/keys")
	if pg.status != 200 || pg.header.Get("Cache-Control") != "no-store" || !strings.Contains(pg.body, "No keys yet") {
		t.Fatalf("keys page: %d %s", pg.status, pg.body)
	}
	// Bounds: name 101 characters, no scope, unknown scope.
	for _, f := range []url.Values{{"name": {strings.Repeat("k", 101)}, "scopes": {"account:read"}}, {"name": {"k"}},
		{"name": {"k"}, "scopes": {"admin"}}} {
		if pg := owner.post("/me/keys", "/me/keys", f); pg.status != 400 || strings.Contains(pg.body, "ldk_") {
			t.Errorf("%v: %d", f, pg.status)
		}
	}
	pg = owner.post("/me/keys", "/me/keys", url.Values{"name": {strings.Repeat("k", 100)}, "scopes": {"account:read", "orders:write"}})
	m := secretRe.FindStringSubmatch(pg.body)
	if pg.status != 200 || m == nil || !strings.Contains(pg.body, `data-copy="secret"`) || !strings.Contains(pg.body, "/static/founder_copy.js") {
		t.Fatalf("create: %d %s", pg.status, pg.body)
	}
	secret := m[1]
	r := e.Do("GET", "/api/v1/me", nil, "Authorization", "Bearer "+secret)
	if r.Status != 200 || !strings.Contains(string(r.Body), "owner@example.com") {
		t.Fatalf("key against the API: %d %s", r.Status, r.Body)
	}
	// Shown once: the list has the prefix, never the secret.
	pg = owner.get("/me/keys")
	if strings.Contains(pg.body, secret) || !strings.Contains(pg.body, secret[:12]+"…") || !strings.Contains(pg.body, "account:read, orders:write") {
		t.Fatalf("list: %s", pg.body)
	}
	keys, _ := e.App.People.UserAPIKeys(t.Context(), 1)
	id := keys[0].ID
	// Another founder cannot revoke it: 404.
	if pg := e.as(2).post("/me/keys/"+itoa(id)+"/revoke", "/me/keys", url.Values{}); pg.status != 404 {
		t.Fatalf("another's key: %d", pg.status)
	}
	if pg := owner.post("/me/keys/"+itoa(id)+"/revoke", "/me/keys", url.Values{}); pg.status != 303 || pg.loc != "/me/keys?done=revoked" {
		t.Fatalf("revoke: %d %s", pg.status, pg.loc)
	}
	if r := e.Do("GET", "/api/v1/me", nil, "Authorization", "Bearer "+secret); r.Status != 401 {
		t.Fatalf("revoked key: %d", r.Status)
	}
	if pg := owner.get("/me/keys?done=revoked"); !strings.Contains(pg.body, "Access revoked") || !strings.Contains(pg.body, "revoked 18 Nov 2026") {
		t.Fatalf("after revoke: %s", pg.body)
	}
	// Without the form token nothing is created.
	if pg := owner.do("POST", "/me/keys", "application/x-www-form-urlencoded", strings.NewReader("name=x&scopes=account:read")); pg.status != 403 {
		t.Fatalf("no csrf: %d", pg.status)
	}
	if n := count(t, e.Env, `SELECT count(*) FROM api_keys WHERE user_id = 1`); n != 1 {
		t.Fatalf("keys: %d", n)
	}
}

func itoa(n int64) string { return strconv.FormatInt(n, 10) }

func TestFounderRevokesAnOAuthGrant(t *testing.T) {
	e := newAreaEnv(t)
	mustExec(t, e, `INSERT INTO oauth_clients(client_id, client_name, redirect_uris, grant_types, response_types, scope, created_at)
		VALUES ('c1', 'Claude Desktop', '[]', '[]', '[]', 'account:read', '2026-11-01T00:00:00Z')`)
	mustExec(t, e, `INSERT INTO oauth_grants(id, client_id, user_id, scope, resource, created_at) VALUES (1, 'c1', 1, 'account:read', ?, '2026-11-01T00:00:00Z')`, e.App.MCPURL())
	token := "lda_pagetesttoken"
	mustExec(t, e, `INSERT INTO oauth_tokens(hash, kind, grant_id, scope, created_at, expires_at) VALUES (?, 'access', 1, 'account:read', '2026-11-18T00:00:00Z', '2026-11-19T00:00:00Z')`, kernel.HashSecret(token))
	owner := e.as(1)
	pg := owner.get("/me/grants")
	if pg.status != 200 || !strings.Contains(pg.body, "Claude Desktop") || !strings.Contains(pg.body, "1 Nov 2026") {
		t.Fatalf("grants: %d %s", pg.status, pg.body)
	}
	if pg := e.as(2).get("/me/grants"); strings.Contains(pg.body, "Claude Desktop") {
		t.Fatal("another founder sees the grant")
	}
	if pg := e.as(2).post("/me/grants/1/revoke", "/me/keys", url.Values{}); pg.status != 404 {
		t.Fatalf("another's grant: %d", pg.status)
	}
	if pg := owner.post("/me/grants/1/revoke", "/me/keys", url.Values{}); pg.status != 303 {
		t.Fatalf("revoke: %d", pg.status)
	}
	if r := e.Do("GET", "/api/v1/me", nil, "Authorization", "Bearer "+token); r.Status != 401 {
		t.Fatalf("token after revoke: %d", r.Status)
	}
	if pg := owner.post("/me/grants/1/revoke", "/me/keys", url.Values{}); pg.status != 400 {
		t.Fatalf("revoke twice: %d", pg.status)
	}
}

func mustExec(t *testing.T, e *areaEnv, q string, args ...any) {
	t.Helper()
	if _, err := e.DB.W.Exec(q, args...); err != nil {
		t.Fatal(err)
	}
}

func regexpFind(t *testing.T, body, pattern string) string {
	t.Helper()
	m := regexp.MustCompile(pattern).FindStringSubmatch(body)
	if m == nil {
		t.Fatalf("no %s in %s", pattern, body)
	}
	return m[1]
}
