package cli

import (
	"path/filepath"
	"strings"
	"testing"
)

// `user promote` makes the site team's admins; demote undoes it.
func TestCLIPromoteAndDemote(t *testing.T) {
	db := filepath.Join(t.TempDir(), "cli.db")
	if _, err := runCmd(t, "user", "create", "-email", "team@example.com", "-db", db); err != nil {
		t.Fatal(err)
	}
	if out, err := runCmd(t, "user", "promote", "-email", "Team@Example.com", "-db", db); err != nil || !strings.Contains(out, "team@example.com is an admin") {
		t.Fatalf("promote: %v %s", err, out)
	}
	// Idempotent.
	if _, err := runCmd(t, "user", "promote", "-email", "team@example.com", "-db", db); err != nil {
		t.Fatal(err)
	}
	if _, err := runCmd(t, "user", "promote", "-email", "nobody@example.com", "-db", db); err == nil || !strings.Contains(err.Error(), "not found") {
		t.Fatalf("unknown user: %v", err)
	}
	if out, err := runCmd(t, "user", "demote", "-email", "team@example.com", "-db", db); err != nil || !strings.Contains(out, "no longer an admin") {
		t.Fatalf("demote: %v %s", err, out)
	}
}
