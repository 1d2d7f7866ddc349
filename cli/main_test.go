package cli

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"launchdir/server"
	"log/slog"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"
)

func runCmd(t *testing.T, args ...string) (string, error) {
	t.Helper()
	var out, errOut bytes.Buffer
	err := Run(args, &out, &errOut)
	return out.String(), err
}

func TestCLIAPIKeysAndUsers(t *testing.T) {
	db := filepath.Join(t.TempDir(), "cli.db")
	out, err := runCmd(t, "apikey", "create", "-email", "Ada@Example.com", "-scopes", "account:read,listings:write", "-db", db)
	if err != nil {
		t.Fatal(err)
	}
	// Other tools read the key from stdout: exactly one line, only the key.
	if !strings.HasPrefix(out, "ldk_") || strings.Count(out, "\n") != 1 || strings.ContainsAny(strings.TrimSpace(out), " \t") {
		t.Fatalf("apikey create printed %q", out)
	}
	list, err := runCmd(t, "apikey", "list", "-db", db)
	if err != nil || !strings.Contains(list, "ada@example.com") || !strings.Contains(list, "account:read,listings:write") {
		t.Fatalf("list: %v %s", err, list)
	}
	if strings.Contains(list, strings.TrimSpace(out)) {
		t.Fatal("list shows the secret")
	}
	if _, err := runCmd(t, "apikey", "revoke", "-id", "1", "-db", db); err != nil {
		t.Fatal(err)
	}
	if _, err := runCmd(t, "apikey", "revoke", "-id", "1", "-db", db); err == nil {
		t.Fatal("revoked twice")
	}
	if _, err := runCmd(t, "apikey", "create", "-email", "a@example.com", "-scopes", "admin", "-db", db); err == nil {
		t.Fatal("unknown scope accepted")
	}
	if out, err := runCmd(t, "user", "create", "-email", "bob@example.com", "-name", "Bob", "-db", db); err != nil || !strings.Contains(out, "bob@example.com") {
		t.Fatalf("user create: %v %s", err, out)
	}
	if out, err := runCmd(t, "user", "create", "-email", "bob@example.com", "-db", db); err != nil || !strings.Contains(out, "already exists: nothing to change") {
		t.Fatalf("user create again: %v %s", err, out)
	}
	if out, _ := runCmd(t, "user", "list", "-db", db); !strings.Contains(out, "Bob") {
		t.Fatalf("user list: %s", out)
	}
}

func TestCLIBadInput(t *testing.T) {
	for _, args := range [][]string{
		{"nonsense"},
		{"-addr", "nope"},
		{"-bogus"},
		{"-db", "/nonexistent-dir/x.db", "-addr", "127.0.0.1:0"},
		{"-payments", "cash"},
		{"-read-conns", "0"}, {"-read-page-cache", "0"}, {"-write-page-cache", "0"},
		{"-max-inflight", "-1"}, {"-max-inflight-writes", "0"}, {"-max-inflight-pages", "-1"}, {"-queue-timeout", "0s"},
		{"-log-flush", "-1ms"}, {"-log-flush", "61s"},
		{"seed", "-listings", "0", "-db", filepath.Join(t.TempDir(), "s.DB")},
		{"order", "refund", "-number", "LD-2026-000001", "-db", filepath.Join(t.TempDir(), "o.db")},
	} {
		if _, err := runCmd(t, args...); err == nil {
			t.Errorf("%v: no error", args)
		}
	}
}

func TestEnvironmentSetsFlags(t *testing.T) {
	t.Setenv("LAUNCHDIR_ADDR", "not-an-address")
	if _, err := runCmd(t, "-db", filepath.Join(t.TempDir(), "e.db")); err == nil || !strings.Contains(err.Error(), "not-an-address") {
		t.Fatalf("LAUNCHDIR_ADDR ignored: %v", err)
	}
	// A flag on the command line wins over the environment: with the
	// environment's bad value ignored, the run gets as far as the database.
	t.Setenv("LAUNCHDIR_PAYMENTS", "cash")
	_, err := runCmd(t, "-payments", "test", "-addr", "127.0.0.1:0", "-db", "/nonexistent-dir/x.db")
	if err == nil || strings.Contains(err.Error(), "cash") || !strings.Contains(err.Error(), "nonexistent-dir") {
		t.Fatalf("flag did not win: %v", err)
	}
}

func TestDemoOnlyFillsANewDatabase(t *testing.T) {
	dir := t.TempDir()
	for _, c := range []struct {
		demo bool
		want string // "" = empty directory
	}{{true, "filled"}, {false, ""}} {
		cfg := server.DefaultConfig()
		cfg.Addr, cfg.DB, cfg.Demo = "127.0.0.1:0", filepath.Join(dir, fmt.Sprintf("demo-%v.db", c.demo)), c.demo
		if err := cfg.Check(); err != nil {
			t.Fatal(err)
		}
		svc, err := server.Start(context.Background(), cfg, slog.New(slog.NewTextHandler(io.Discard, nil)))
		if err != nil {
			t.Fatal(err)
		}
		var live int
		svc.DB.R.QueryRow(`SELECT count(*) FROM listings WHERE status = 'live'`).Scan(&live)
		svc.Close()
		if (c.want == "filled") != (live >= 250) {
			t.Errorf("-demo=%v: %d live listings", c.demo, live)
		}
	}
	// An existing database is never filled again.
	cfg := server.DefaultConfig()
	cfg.Addr, cfg.DB = "127.0.0.1:0", filepath.Join(dir, "demo-false.db")
	cfg.Check()
	svc, err := server.Start(context.Background(), cfg, slog.New(slog.NewTextHandler(io.Discard, nil)))
	if err != nil {
		t.Fatal(err)
	}
	defer svc.Close()
	var live int
	svc.DB.R.QueryRow(`SELECT count(*) FROM listings`).Scan(&live)
	if live != 0 {
		t.Errorf("an existing empty database was filled: %d listings", live)
	}
}

func TestCLIPricesAndPasswords(t *testing.T) {
	db := filepath.Join(t.TempDir(), "p.db")
	if _, err := runCmd(t, "price", "set", "launch", "5900", "-db", db); err != nil {
		t.Fatal(err)
	}
	if out, _ := runCmd(t, "price", "list", "-db", db); !strings.Contains(out, "launch") || !strings.Contains(out, "5900") {
		t.Fatalf("price list: %s", out)
	}
	if _, err := runCmd(t, "price", "set", "launch", "-5", "-db", db); err == nil {
		t.Fatal("negative price accepted")
	}
	r, w, _ := os.Pipe()
	old := os.Stdin
	os.Stdin = r
	defer func() { os.Stdin = old }()
	w.WriteString("correct horse battery\n")
	w.Close()
	if _, err := runCmd(t, "user", "create", "-email", "pw@example.com", "-password-stdin", "-db", db); err != nil {
		t.Fatal(err)
	}
	a, err := openApp(db)
	if err != nil {
		t.Fatal(err)
	}
	defer a.DB.Close()
	var hash string
	a.DB.R.QueryRow(`SELECT password_hash FROM users WHERE email = 'pw@example.com'`).Scan(&hash)
	if !strings.HasPrefix(strings.TrimPrefix(hash, "sha256+"), "$2") || strings.Contains(hash, "horse") {
		t.Fatalf("password not stored as a bcrypt hash: %q", hash)
	}
}

func TestSIGTERMShutsDownCleanly(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := ln.Addr().String()
	ln.Close()
	db := filepath.Join(t.TempDir(), "sig.db")
	done := make(chan error, 1)
	go func() { done <- Run([]string{"-addr", addr, "-db", db, "-demo=false"}, io.Discard, io.Discard) }()
	deadline := time.Now().Add(10 * time.Second)
	for {
		resp, err := http.Get("http://" + addr + "/healthz")
		if err == nil {
			resp.Body.Close()
			break
		}
		if time.Now().After(deadline) {
			t.Fatal("server did not come up")
		}
		time.Sleep(20 * time.Millisecond)
	}
	if err := syscall.Kill(os.Getpid(), syscall.SIGTERM); err != nil {
		t.Fatal(err)
	}
	select {
	case err := <-done:
		if err != nil {
			t.Fatalf("serve returned %v", err)
		}
	case <-time.After(20 * time.Second):
		t.Fatal("no shutdown after SIGTERM")
	}
	if _, err := http.Get("http://" + addr + "/healthz"); err == nil {
		t.Fatal("still accepting after shutdown")
	}
	// A clean close checkpoints the WAL into the database file.
	if st, err := os.Stat(db + "-wal"); err == nil && st.Size() != 0 {
		t.Fatalf("WAL not checkpointed: %d bytes", st.Size())
	}
}

// withStdin runs fn with line as standard input.
func withStdin(t *testing.T, line string, fn func()) {
	t.Helper()
	r, w, _ := os.Pipe()
	old := os.Stdin
	os.Stdin = r
	defer func() { os.Stdin = old }()
	w.WriteString(line + "\n")
	w.Close()
	fn()
}

// An email that already has API keys gets a password and admin from the
// same idempotent command, with a clear message each time.
func TestCLIUserIdempotent(t *testing.T) {
	db := filepath.Join(t.TempDir(), "u.db")
	key, err := runCmd(t, "apikey", "create", "-email", "ada@example.com", "-scopes", "account:read", "-db", db)
	if err != nil {
		t.Fatal(err)
	}
	steps := []struct {
		args  []string
		stdin string
		want  string
	}{
		{[]string{"user", "create", "-email", "ada@example.com", "-password-stdin", "-admin"}, "correct horse battery", "user 1 ada@example.com already exists: password set, admin"},
		{[]string{"user", "create", "-email", "ada@example.com", "-password-stdin", "-admin"}, "correct horse battery", "already exists: password unchanged (same)"},
		{[]string{"user", "create", "-email", "ada@example.com"}, "", "user 1 ada@example.com already exists: nothing to change"},
		{[]string{"user", "create", "-email", "ADA@example.com", "-name", "Ada"}, "", "already exists: name set"},
		{[]string{"user", "password", "-email", "ada@example.com", "-password-stdin"}, "a different password", "user 1 ada@example.com: password set"},
		{[]string{"user", "promote", "-email", "ada@example.com"}, "", "is an admin"},
		{[]string{"user", "create", "-email", "new@example.com", "-password-stdin"}, "long enough!", "created user 2 new@example.com: password set"},
	}
	for _, st := range steps {
		var out string
		var err error
		withStdin(t, st.stdin, func() { out, err = runCmd(t, append(st.args, "-db", db)...) })
		if err != nil || !strings.Contains(out, st.want) {
			t.Fatalf("%v: %v %q, want %q", st.args, err, out, st.want)
		}
	}
	for _, bad := range []struct {
		args  []string
		stdin string
		want  string
	}{
		{[]string{"user", "password", "-email", "nobody@example.com", "-password-stdin"}, "a long password", "no account has the email nobody@example.com"},
		{[]string{"user", "password", "-email", "ada@example.com", "-password-stdin"}, "short", "10 to 200 characters"},
		{[]string{"user", "password", "-email", "ada@example.com"}, "", "needs -password-stdin"},
		{[]string{"user", "create", "-email", "ada@example.com", "-password-stdin"}, "", "no password on stdin"},
	} {
		var err error
		withStdin(t, bad.stdin, func() { _, err = runCmd(t, append(bad.args, "-db", db)...) })
		if err == nil || !strings.Contains(err.Error(), bad.want) || strings.Contains(err.Error(), "2067") {
			t.Fatalf("%v: %v, want %q", bad.args, err, bad.want)
		}
	}
	a, err := openApp(db)
	if err != nil {
		t.Fatal(err)
	}
	defer a.DB.Close()
	ctx := context.Background()
	if id, _ := a.People.CheckCredentials(ctx, "ada@example.com", "a different password"); id != 1 {
		t.Fatal("the password set from the command line does not sign in")
	}
	if p, err := a.People.Authenticate(ctx, "Bearer "+strings.TrimSpace(key)); err != nil || p.UserID != 1 {
		t.Fatalf("the API key belongs to another account now: %+v %v", p, err)
	}
	if !a.Admin.IsAdmin(ctx, 1) {
		t.Fatal("not an admin")
	}
}

// A database first made by `apikey create` still gets the demo directory on
// its first serve, and the key keeps working; a directory served empty
// once with -demo=false stays empty.
func TestFirstServeFillsDemoAfterAPIKey(t *testing.T) {
	dir := t.TempDir()
	dbPath := filepath.Join(dir, "first.db")
	key, err := runCmd(t, "apikey", "create", "-email", "early@example.com", "-scopes", "account:read", "-db", dbPath)
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	serve := func(path string, withDemo bool) (listings int) {
		c := server.DefaultConfig()
		c.DB, c.Addr, c.Demo = path, "127.0.0.1:0", withDemo
		if err := c.Check(); err != nil {
			t.Fatal(err)
		}
		s, err := server.Start(ctx, c, slog.New(slog.NewTextHandler(io.Discard, nil)))
		if err != nil {
			t.Fatal(err)
		}
		defer s.Close()
		s.App.DB.R.QueryRow(`SELECT count(*) FROM listings WHERE status = 'live'`).Scan(&listings)
		if path == dbPath {
			p, err := s.App.People.Authenticate(ctx, "Bearer "+strings.TrimSpace(key))
			if err != nil || p.Email != "early@example.com" {
				t.Fatalf("key after the demo fill: %+v %v", p, err)
			}
		}
		return listings
	}
	if n := serve(dbPath, true); n < 200 {
		t.Fatalf("%d live listings after the first serve", n)
	}
	empty := filepath.Join(dir, "empty.db")
	if n := serve(empty, false); n != 0 {
		t.Fatal(n)
	}
	if n := serve(empty, true); n != 0 {
		t.Fatalf("a directory served empty on purpose got %d demo listings", n)
	}
}

// TestFirstServeMergesTheDemoFoundersKey: an API key made before the first
// serve for the demo founder's own email ends up on the demo founder's
// account (owner of its listings) instead of stopping the demo fill.
func TestFirstServeMergesTheDemoFoundersKey(t *testing.T) {
	dbPath := filepath.Join(t.TempDir(), "first.db")
	key, err := runCmd(t, "apikey", "create", "-email", "demo@launchdir.local", "-scopes", "account:read,listings:write", "-db", dbPath)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := runCmd(t, "user", "promote", "-email", "demo@launchdir.local", "-db", dbPath); err != nil {
		t.Fatal(err)
	}
	c := server.DefaultConfig()
	c.DB, c.Addr = dbPath, "127.0.0.1:0"
	if err := c.Check(); err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	s, err := server.Start(ctx, c, slog.New(slog.NewTextHandler(io.Discard, nil)))
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	p, err := s.App.People.Authenticate(ctx, "Bearer "+strings.TrimSpace(key))
	if err != nil || p.Email != "demo@launchdir.local" || p.UserID != 1 {
		t.Fatalf("key after the demo fill: %+v %v", p, err)
	}
	var owned, accounts, admin int
	s.App.DB.R.QueryRow(`SELECT (SELECT count(*) FROM listing_owners WHERE user_id = 1),
		(SELECT count(*) FROM users WHERE email LIKE 'demo@launchdir.local%'), (SELECT is_admin FROM users WHERE id = 1)`).Scan(&owned, &accounts, &admin)
	if owned == 0 || accounts != 1 || admin != 1 {
		t.Fatalf("demo founder owns %d listings, %d accounts with the email, admin %d", owned, accounts, admin)
	}
}
