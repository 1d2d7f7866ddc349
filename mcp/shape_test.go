package mcp_test

import (
	"encoding/json"
	"strings"
	"sync"
	"testing"
	"time"
)

// rpcError decodes a JSON-RPC error answer.
func rpcError(t *testing.T, body string) (code int, msg string) {
	t.Helper()
	var m struct {
		ID    any `json:"id"`
		Error struct {
			Code    int    `json:"code"`
			Message string `json:"message"`
		} `json:"error"`
	}
	if err := json.Unmarshal([]byte(body), &m); err != nil || m.ID != nil {
		t.Fatalf("not a JSON-RPC error with id null: %v %.300s", err, body)
	}
	return m.Error.Code, m.Error.Message
}

// A batch is refused with one small JSON-RPC error however many calls it
// holds; 30 batches of 1,000 tools/list calls in parallel are all refused
// quickly and a public read meanwhile is unaffected. One message still
// works (the edge: a batch of one is a batch).
func TestBatchRefused(t *testing.T) {
	e := newEnv(t)
	one := `{"jsonrpc":"2.0","id":1,"method":"tools/list"}`
	batch := "[" + strings.TrimSuffix(strings.Repeat(one+",", 1000), ",") + "]"
	for _, b := range []string{batch, "[" + one + "]", "[]"} {
		resp, body := rpc(t, e, "/mcp", b)
		if resp.StatusCode != 400 || resp.Header.Get("Content-Type") != "application/json" || len(body) > 500 {
			t.Fatalf("batch of %d bytes: %d %s %.300s", len(b), resp.StatusCode, resp.Header.Get("Content-Type"), body)
		}
		if code, msg := rpcError(t, body); code != -32600 || !strings.Contains(msg, "batch") {
			t.Errorf("batch: code %d %q", code, msg)
		}
	}
	start := time.Now()
	var wg sync.WaitGroup
	for range 30 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			if resp, body := rpc(t, e, "/mcp", batch); resp.StatusCode != 400 || len(body) > 500 {
				t.Errorf("parallel batch: %d (%d bytes)", resp.StatusCode, len(body))
			}
		}()
	}
	if r := e.Do("GET", "/api/v1/listings/quickbase", nil); r.Status != 200 {
		t.Errorf("public read during the batches: %d", r.Status)
	}
	wg.Wait()
	if d := time.Since(start); d > 5*time.Second {
		t.Errorf("30 refused batches took %v", d)
	}
	if resp, body := rpc(t, e, "/mcp", one); resp.StatusCode != 200 || !strings.Contains(body, `"tools"`) {
		t.Errorf("single message: %d %.200s", resp.StatusCode, body)
	}
}

// A body that is not JSON is a JSON-RPC parse error (-32700) in JSON, not
// the transport's text/plain.
func TestMalformedJSONIsParseError(t *testing.T) {
	e := newEnv(t)
	for _, b := range []string{"{", "", "   ", `{"jsonrpc":"2.0",}`, strings.Repeat("[", 100000), strings.Repeat(`{"a":`, 20000) + "1" + strings.Repeat("}", 20000), "nul", `{"a":1}{"b":2}`} {
		resp, body := rpc(t, e, "/mcp", b)
		if resp.StatusCode != 400 || resp.Header.Get("Content-Type") != "application/json" {
			t.Errorf("%.20q: %d %s %.200s", b, resp.StatusCode, resp.Header.Get("Content-Type"), body)
			continue
		}
		if code, _ := rpcError(t, body); code != -32700 {
			t.Errorf("%.20q: code %d, want -32700", b, code)
		}
	}
	// JSON that is not a message object is an invalid request.
	for _, b := range []string{"1", `"x"`, "null"} {
		resp, body := rpc(t, e, "/mcp", b)
		if code, _ := rpcError(t, body); resp.StatusCode != 400 || code != -32600 {
			t.Errorf("%q: %d code %d", b, resp.StatusCode, code)
		}
	}
}
