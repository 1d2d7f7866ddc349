package mcp_test

import (
	"os"
	"testing"
	"time"
)

// TestServeForConformance is not a test but a server helper for
// scripts/conformance: with MCP_TEST_SERVE=<file> it serves the fixture
// directory with MCP mounted, writes the server's origin to <file> and runs
// until the file is removed (at most 30 minutes). The conformance script
// uses it (scripts/conformance --test-server) when the binary cannot be
// used. In ordinary `go test` runs it always skips; that skip is expected
// and hides no coverage.
func TestServeForConformance(t *testing.T) {
	file := os.Getenv("MCP_TEST_SERVE")
	if file == "" {
		t.Skip("not a test: server helper for scripts/conformance --test-server; set MCP_TEST_SERVE=<file> to serve")
	}
	e := newEnv(t)
	if err := os.WriteFile(file, []byte(e.URL+"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	deadline := time.Now().Add(30 * time.Minute)
	for time.Now().Before(deadline) {
		if _, err := os.Stat(file); err != nil {
			return
		}
		time.Sleep(200 * time.Millisecond)
	}
}
