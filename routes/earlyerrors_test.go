package routes_test

import (
	"bufio"
	"encoding/json"
	"io"
	"net"
	"net/http"
	"strings"
	"testing"

	"launchdir/apitest"
	"launchdir/routes"
)

// rawRequest sends bytes as they are (net/http's client refuses to send
// what these tests need) and reads the response.
func rawRequest(t *testing.T, addr, req string) (*http.Response, []byte) {
	t.Helper()
	c, err := net.Dial("tcp", addr)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	go io.WriteString(c, req) // the server may answer before reading it all
	resp, err := http.ReadResponse(bufio.NewReader(c), nil)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	return resp, b
}

func TestEarlyErrorsAreProblems(t *testing.T) {
	e := apitest.New(t, apitest.Options{Fixture: true})
	// A server like main.go's: header limit and the problem listener.
	srv := &http.Server{Handler: e.Routes, MaxHeaderBytes: routes.MaxHeaderBytes}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	go srv.Serve(routes.ProblemListener(ln))
	t.Cleanup(func() { srv.Close() })
	addr := ln.Addr().String()
	for _, tc := range []struct {
		name, req string
		status    int
		code      string
	}{
		{"control character in a header", "POST /api/v1/orders/checkout HTTP/1.1\r\nHost: x\r\nIdempotency-Key: a\x01b\r\nContent-Length: 2\r\n\r\n{}", 400, "invalid"},
		{"DEL in a header", "GET /api/v1/site HTTP/1.1\r\nHost: x\r\nIdempotency-Key: a\x7fb\r\n\r\n", 400, "invalid"},
		{"1.5 MB header", "GET /api/v1/site HTTP/1.1\r\nHost: x\r\nX-Big: " + strings.Repeat("a", 1536<<10) + "\r\n\r\n", 431, "too_large"},
		{"header one past the limit", "GET /api/v1/site HTTP/1.1\r\nHost: x\r\nX-Big: " + strings.Repeat("a", routes.MaxHeaderBytes+4096) + "\r\n\r\n", 431, "too_large"},
		{"malformed request line", "GARBAGE\r\n\r\n", 400, "invalid"},
	} {
		resp, body := rawRequest(t, addr, tc.req)
		var p map[string]any
		if resp.StatusCode != tc.status || resp.Header.Get("Content-Type") != "application/problem+json" || json.Unmarshal(body, &p) != nil || p["code"] != tc.code {
			t.Errorf("%s: %d %q %s", tc.name, resp.StatusCode, resp.Header.Get("Content-Type"), body)
		}
	}
	// Headers under the limit still reach the handlers.
	resp, body := rawRequest(t, addr, "GET /api/v1/site HTTP/1.1\r\nHost: x\r\nX-Big: "+strings.Repeat("a", 32<<10)+"\r\nConnection: close\r\n\r\n")
	if resp.StatusCode != 200 {
		t.Errorf("32 KiB header: %d %s", resp.StatusCode, body)
	}
	// A tab is a legal header character, so it reaches the executor, which
	// refuses it in an Idempotency-Key.
	k := apitest.Bearer(e.APIKey("owner@example.com"))
	r := e.Do("POST", "/api/v1/me/listings/1/updates", map[string]any{"title": "t", "body": "b"}, append(k, "Idempotency-Key", "a\tb")...)
	if r.Status != 400 || !strings.Contains(string(r.Body), "Idempotency-Key") {
		t.Errorf("tab in key: %d %s", r.Status, r.Body)
	}
}
