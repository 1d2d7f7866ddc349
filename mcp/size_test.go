package mcp_test

import (
	"bytes"
	"encoding/json"
	"io"
	"launchdir/mcp"
	"net/http"
	"strings"
	"testing"
)

// toolsListBytes is tools/list as one client receives it on the wire.
func toolsListBytes(t *testing.T, url string, hdr map[string]string) (int, []map[string]any) {
	t.Helper()
	req, _ := http.NewRequest("POST", url, strings.NewReader(`{"jsonrpc":"2.0","id":1,"method":"tools/list"}`))
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json, text/event-stream")
	req.Header.Set("MCP-Protocol-Version", "2025-06-18")
	for k, v := range hdr {
		req.Header.Set(k, v)
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	if resp.StatusCode != 200 {
		t.Fatalf("%s: %d %s", url, resp.StatusCode, b)
	}
	data := b
	if i := bytes.Index(b, []byte("data: ")); i >= 0 { // an event stream
		data = bytes.TrimSpace(b[i+6:])
	}
	var m struct {
		Result struct{ Tools []map[string]any } `json:"result"`
	}
	if err := json.Unmarshal(data, &m); err != nil {
		t.Fatalf("%s: %v", url, err)
	}
	return len(b), m.Result.Tools
}

// The default tool list, every tool, stays under 100 KB (measured: 147 KB
// with output schemas, about 58 KB without); /mcp/full and the header
// X-MCP-Output-Schemas list the schemas, and tools still return
// structuredContent either way.
func TestDefaultToolsListUnder100KB(t *testing.T) {
	e := newEnv(t)
	n, tools := toolsListBytes(t, e.URL+"/mcp", nil)
	team := 0
	for _, op := range e.App.Table.Ops {
		if op.Toolset == mcp.TeamToolset {
			team++
		}
	}
	if n >= 100_000 || len(tools) != len(e.App.Table.Ops)-team {
		t.Fatalf("/mcp tools/list: %d bytes, %d tools of %d", n, len(tools), len(e.App.Table.Ops))
	}
	for _, tl := range tools {
		if tl["outputSchema"] != nil || tl["inputSchema"] == nil || tl["description"] == "" {
			t.Fatalf("/mcp lists %v", tl["name"])
		}
	}
	t.Logf("/mcp tools/list: %d bytes for %d tools", n, len(tools))
	for _, c := range []struct {
		path string
		hdr  map[string]string
	}{{"/mcp/full", nil}, {"/mcp", map[string]string{"X-MCP-Output-Schemas": "true"}}, {"/mcp/full/x/public/readonly", nil}} {
		fn, full := toolsListBytes(t, e.URL+c.path, c.hdr)
		for _, tl := range full {
			if tl["outputSchema"] == nil {
				t.Fatalf("%s %v: %v has no outputSchema", c.path, c.hdr, tl["name"])
			}
		}
		t.Logf("%s %v: %d bytes, %d tools", c.path, c.hdr, fn, len(full))
	}
	req, _ := http.NewRequest("POST", e.URL+"/mcp", strings.NewReader(`{"jsonrpc":"2.0","id":1,"method":"tools/list"}`))
	req.Header.Set("X-MCP-Output-Schemas", "maybe")
	req.Header.Set("Content-Type", "application/json")
	if resp, err := http.DefaultClient.Do(req); err != nil || resp.StatusCode != 400 {
		t.Fatalf("bad X-MCP-Output-Schemas: %v %v", err, resp.Status)
	}
	// A tool called through the default list still answers structured.
	cs := connect(t, e, conn{})
	res := call(t, cs, "search_listings", map[string]any{"per_page": 1})
	if res.StructuredContent == nil {
		t.Fatal("no structuredContent without an outputSchema")
	}
}
