package mcp_test

import (
	"strings"
	"testing"
)

// A visitor asks through MCP, the maker answers through MCP, and the
// thread reads back with the Maker mark (issue 22).
func TestCommentsThroughMCP(t *testing.T) {
	e := newEnv(t)
	e.DB.W.Exec(`UPDATE users SET verified_at = '2026-01-02T00:00:00Z'`)
	visitor := connect(t, e, conn{hdr: bearer(e.APIKey("fan@example.com"))})
	maker := connect(t, e, conn{hdr: bearer(e.APIKey("owner@example.com"))})
	res := call(t, visitor, "post_comment", map[string]any{"slug": "tablely", "body": "Is there an API?"})
	if res.IsError {
		t.Fatalf("post: %s", text(res))
	}
	id := res.StructuredContent.(map[string]any)["id"].(float64)
	res = call(t, maker, "reply_to_comment", map[string]any{"comment_id": id, "body": "Yes, REST and MCP."})
	if res.IsError || res.StructuredContent.(map[string]any)["maker"] != true {
		t.Fatalf("reply: %s", text(res))
	}
	// Threads go one level deep: the refusal names the field.
	reply := res.StructuredContent.(map[string]any)["id"].(float64)
	if res := call(t, visitor, "reply_to_comment", map[string]any{"comment_id": reply, "body": "thanks"}); !res.IsError || !strings.Contains(text(res), "parent_id") {
		t.Fatalf("reply to a reply: %s", text(res))
	}
	anon := connect(t, e, conn{})
	res = call(t, anon, "list_comments", map[string]any{"slug": "tablely"})
	if res.IsError || !strings.Contains(text(res), "Yes, REST and MCP.") || !strings.Contains(text(res), `"maker":true`) {
		t.Fatalf("list: %s", text(res))
	}
}
