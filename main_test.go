package main

import (
	"bytes"
	"path/filepath"
	"strings"
	"testing"
)

func runCmd(t *testing.T, args ...string) (string, error) {
	t.Helper()
	var out, errOut bytes.Buffer
	err := run(args, &out, &errOut)
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
	if _, err := runCmd(t, "user", "create", "-email", "bob@example.com", "-db", db); err == nil {
		t.Fatal("duplicate user accepted")
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
		{"seed", "-listings", "0", "-db", filepath.Join(t.TempDir(), "s.db")},
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
	// A flag on the command line wins over the environment.
	t.Setenv("LAUNCHDIR_PAYMENTS", "cash")
	if _, err := runCmd(t, "-payments", "test", "-addr", "bad"); err == nil || strings.Contains(err.Error(), "cash") {
		t.Fatalf("flag did not win: %v", err)
	}
}
