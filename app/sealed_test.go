package app_test

import (
	"io"
	"log/slog"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"launchdir/app/kernel"
)

// Sealed secrets open again after a restart with the same key file, not
// with another; the key file is created private.
func TestSealedSecretsKeyFile(t *testing.T) {
	path := filepath.Join(t.TempDir(), "test.db.key")
	log := slog.New(slog.NewTextHandler(io.Discard, nil))
	k1 := kernel.New(nil, kernel.Config{KeyFile: path}, log)
	sealed, err := k1.Seal("whsec_c2VjcmV0")
	if err != nil || strings.Contains(sealed, "c2VjcmV0") {
		t.Fatalf("seal: %q %v", sealed, err)
	}
	st, err := os.Stat(path)
	if err != nil || st.Mode().Perm() != 0o600 {
		t.Fatalf("key file: %v %v", st, err)
	}
	k2 := kernel.New(nil, kernel.Config{KeyFile: path}, log) // a restart
	if got, err := k2.Unseal(sealed); err != nil || got != "whsec_c2VjcmV0" {
		t.Fatalf("unseal after restart: %q %v", got, err)
	}
	other := kernel.New(nil, kernel.Config{KeyFile: filepath.Join(t.TempDir(), "other.key")}, log)
	if _, err := other.Unseal(sealed); err == nil {
		t.Fatal("another key opened the secret")
	}
	os.WriteFile(path, []byte("short\n"), 0o600)
	if _, err := kernel.New(nil, kernel.Config{KeyFile: path}, log).Seal("x"); err == nil {
		t.Fatal("a damaged key file was accepted")
	}
}
