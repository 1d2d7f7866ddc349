package mcp

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/url"
	"slices"
	"strings"
	"unicode/utf8"

	"launchdir/ops"
)

// JSON-RPC error codes of the HTTP layer (implementation-defined range).
const (
	codeParseError     = -32700
	codeInvalidRequest = -32600
	codeUnauthorized   = -32001
	codeForbidden      = -32003
	codeTooLarge       = -32004
)

// ServeHTTP checks what must be decided before the SDK sees the request:
// the endpoint's tool selection, the browser origin, the body size and the
// caller's credentials (401/403 challenges for signed-in tools), then hands
// the request to the stateless Streamable HTTP transport.
func (h *Handler) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	// DNS rebinding: a request reaching a loopback listener must name a
	// loopback host (the SDK checks the same; checking first keeps a
	// rebinding attempt from ever reaching authentication).
	if la, ok := r.Context().Value(http.LocalAddrContextKey).(net.Addr); ok && la != nil && isLoopback(la.String()) && !isLoopback(r.Host) {
		writeRPCError(w, http.StatusForbidden, nil, codeForbidden, fmt.Sprintf("invalid Host header %q", r.Host), nil)
		return
	}
	if origin := r.Header.Get("Origin"); origin != "" && !h.originAllowed(r.Context(), origin) {
		writeRPCError(w, http.StatusForbidden, nil, codeForbidden,
			fmt.Sprintf("cross-origin request refused: origin %s is not allowed", origin), nil)
		return
	}
	var msgs []rpcMessage
	if r.Method == http.MethodPost && r.Body != nil {
		body, err := io.ReadAll(http.MaxBytesReader(w, r.Body, h.opts.MaxBodyBytes))
		r.Body.Close()
		if err != nil {
			var mbe *http.MaxBytesError
			if errors.As(err, &mbe) {
				writeRPCError(w, http.StatusRequestEntityTooLarge, nil, codeTooLarge,
					fmt.Sprintf("request body exceeds %d bytes", h.opts.MaxBodyBytes), nil)
				return
			}
			writeRPCError(w, http.StatusBadRequest, nil, codeInvalidRequest, "request body could not be read", nil)
			return
		}
		if !utf8.Valid(body) {
			// JSON decoders would silently turn bad bytes into U+FFFD and
			// store them; refuse like the REST door does.
			writeRPCError(w, http.StatusBadRequest, nil, codeInvalidRequest, "request body is not valid UTF-8", nil)
			return
		}
		if status, code, msg := refuseShape(body); status != 0 {
			writeRPCError(w, status, nil, code, msg, nil)
			return
		}
		r.Body = io.NopCloser(bytes.NewReader(body))
		r.ContentLength = int64(len(body))
		msgs = peek(body)
	}
	sel, status, err := h.parseSelection(r)
	if err != nil {
		writeRPCError(w, status, firstID(msgs), codeInvalidRequest, err.Error(), nil)
		return
	}
	p, err := h.app.People.Authenticate(r.Context(), r.Header.Get("Authorization"))
	if err != nil {
		e := ops.AsError(err)
		if e.Code != ops.CodeUnauthorized {
			h.app.Log.Error("mcp authenticate", "err", err)
			writeRPCError(w, e.Code.Status(), firstID(msgs), -32603, e.Detail, nil)
			return
		}
		w.Header().Set("WWW-Authenticate", fmt.Sprintf(`Bearer error="invalid_token", error_description=%q, resource_metadata=%q`,
			e.Detail, h.resourceMetadataURL(r.Context())))
		writeRPCError(w, http.StatusUnauthorized, firstID(msgs), codeUnauthorized, e.Detail,
			map[string]any{"status": 401, "resource_metadata": h.resourceMetadataURL(r.Context())})
		return
	}
	for _, m := range msgs {
		if m.Method != "tools/call" {
			continue
		}
		td := h.byName[m.Params.Name]
		if td == nil || td.op.Scope == "" || !sel.includes(td.op) || !headersMatch(r, m) {
			continue // the SDK answers unknown tools and malformed requests
		}
		scope := td.op.Scope
		if p == nil {
			w.Header().Set("WWW-Authenticate", fmt.Sprintf(`Bearer resource_metadata=%q, scope=%q`, h.resourceMetadataURL(r.Context()), scope))
			writeRPCError(w, http.StatusUnauthorized, m.ID, codeUnauthorized,
				fmt.Sprintf("tool %s needs sign-in with scope %s: send Authorization: Bearer <OAuth access token or API key>", td.op.ID, scope),
				map[string]any{"status": 401, "resource_metadata": h.resourceMetadataURL(r.Context()), "required_scope": scope})
			return
		}
		if !p.Has(scope) {
			w.Header().Set("WWW-Authenticate", fmt.Sprintf(`Bearer error="insufficient_scope", scope=%q, resource_metadata=%q`, scope, h.resourceMetadataURL(r.Context())))
			writeRPCError(w, http.StatusForbidden, m.ID, codeForbidden,
				fmt.Sprintf("tool %s needs scope %s, which this credential lacks", td.op.ID, scope),
				map[string]any{"status": 403, "resource_metadata": h.resourceMetadataURL(r.Context()), "required_scope": scope})
			return
		}
	}
	ctx := context.WithValue(r.Context(), keySelection, sel)
	ctx = context.WithValue(ctx, keyPrincipal, p)
	h.sdk.ServeHTTP(w, r.WithContext(ctx))
}

// parseSelection reads the toolsets and read-only mode from the path below
// BasePath and from the X-MCP-Toolsets / X-MCP-Readonly headers (both
// restrict: a tool must pass every selector given).
func (h *Handler) parseSelection(r *http.Request) (selection, int, error) {
	var sel selection
	rest, ok := strings.CutPrefix(r.URL.Path, h.opts.BasePath)
	if !ok {
		return sel, http.StatusNotFound, fmt.Errorf("no MCP endpoint at %s", r.URL.Path)
	}
	if r, ok := strings.CutPrefix(rest, "/full"); ok && (r == "" || r[0] == '/') {
		sel.full, rest = true, r
	}
	if r, ok := strings.CutSuffix(rest, "/readonly"); ok {
		sel.readOnly, rest = true, r
	}
	if rest != "" {
		list, ok := strings.CutPrefix(rest, "/x/")
		if !ok || list == "" || strings.Contains(list, "/") {
			return sel, http.StatusNotFound, fmt.Errorf("no MCP endpoint at %s; use %s, %s/readonly or %s/x/{toolsets}", r.URL.Path, h.opts.BasePath, h.opts.BasePath, h.opts.BasePath)
		}
		if dec, err := url.PathUnescape(list); err == nil {
			list = dec
		}
		sets, err := h.toolsetList(list)
		if err != nil {
			return sel, http.StatusNotFound, err
		}
		sel.toolsets = sets
	}
	if hv := strings.TrimSpace(r.Header.Get("X-MCP-Toolsets")); hv != "" {
		sets, err := h.toolsetList(hv)
		if err != nil {
			return sel, http.StatusBadRequest, fmt.Errorf("X-MCP-Toolsets: %v", err)
		}
		if sets != nil {
			if sel.toolsets == nil {
				sel.toolsets = sets
			} else {
				sel.toolsets = slices.DeleteFunc(sel.toolsets, func(s string) bool { return !slices.Contains(sets, s) })
				if len(sel.toolsets) == 0 {
					return sel, http.StatusBadRequest, fmt.Errorf("X-MCP-Toolsets %q shares no toolset with this endpoint's %s", hv, strings.TrimPrefix(rest, "/x/"))
				}
			}
		}
	}
	switch v := strings.ToLower(strings.TrimSpace(r.Header.Get("X-MCP-Output-Schemas"))); v {
	case "", "false", "0", "no":
	case "true", "1", "yes":
		sel.full = true
	default:
		return sel, http.StatusBadRequest, fmt.Errorf("X-MCP-Output-Schemas must be true or false, not %q", v)
	}
	switch v := strings.ToLower(strings.TrimSpace(r.Header.Get("X-MCP-Readonly"))); v {
	case "", "false", "0", "no":
	case "true", "1", "yes":
		sel.readOnly = true
	default:
		return sel, http.StatusBadRequest, fmt.Errorf("X-MCP-Readonly must be true or false, not %q", v)
	}
	return sel, 0, nil
}

// toolsetList parses a comma list of toolset names; "all" selects every
// toolset (nil).
func (h *Handler) toolsetList(list string) ([]string, error) {
	var out []string
	for _, name := range strings.Split(list, ",") {
		name = strings.ToLower(strings.TrimSpace(name))
		if name == "" {
			continue
		}
		if name == "all" {
			return nil, nil
		}
		if !slices.Contains(h.toolsets, name) {
			return nil, fmt.Errorf("unknown toolset %q; toolsets are %s (comma separated, or all)", name, strings.Join(h.toolsets, ", "))
		}
		out = append(out, name)
	}
	if len(out) == 0 {
		return nil, fmt.Errorf("no toolset named; toolsets are %s", strings.Join(h.toolsets, ", "))
	}
	return sortedUnique(out), nil
}

// rpcMessage is the part of a JSON-RPC message the HTTP layer looks at.
type rpcMessage struct {
	ID     json.RawMessage `json:"id"`
	Method string          `json:"method"`
	Params struct {
		Name string         `json:"name"`
		Meta map[string]any `json:"_meta"`
	} `json:"params"`
}

// headersMatch reports whether a request's SEP-2243 headers agree with its
// body. A 2026-07-28 request whose Mcp-Protocol-Version, Mcp-Method or
// Mcp-Name headers disagree is malformed: the SDK rejects it with 400
// (HeaderMismatch), which must win over an authorization challenge.
func headersMatch(r *http.Request, m rpcMessage) bool {
	hv := strings.TrimSpace(r.Header.Get("Mcp-Protocol-Version"))
	bv, _ := m.Params.Meta["io.modelcontextprotocol/protocolVersion"].(string)
	if hv < "2026-07-28" && bv < "2026-07-28" {
		return true // initialize-based protocols have no such headers
	}
	return hv == bv &&
		strings.TrimSpace(r.Header.Get("Mcp-Method")) == m.Method &&
		strings.TrimSpace(r.Header.Get("Mcp-Name")) == m.Params.Name
}

// refuseShape answers what the SDK must never see: a body that is not JSON
// (a JSON-RPC parse error, as JSON, not the SDK's text/plain) and a batch.
// Batches were removed from MCP in protocol 2025-06-18; served, one 55 KB
// batch of 1,000 tools/list calls cost 8 s of CPU and 148 MB of answer
// while the rate limiter counted one request. Refusing them keeps one
// request one message. It returns status 0 for a body to pass on.
func refuseShape(body []byte) (status, code int, msg string) {
	body = bytes.TrimSpace(body)
	if !json.Valid(body) {
		return http.StatusBadRequest, codeParseError, "parse error: the request body is not one JSON value"
	}
	if body[0] == '[' {
		return http.StatusBadRequest, codeInvalidRequest, "JSON-RPC batches are not supported (MCP removed them in protocol 2025-06-18): send one message per request"
	}
	if body[0] != '{' {
		return http.StatusBadRequest, codeInvalidRequest, "the request body must be one JSON-RPC message object"
	}
	return 0, 0, ""
}

// peek decodes the one message of a body refuseShape passed; malformed
// messages give nothing (the SDK reports them).
func peek(body []byte) []rpcMessage {
	var m rpcMessage
	if json.Unmarshal(body, &m) != nil {
		return nil
	}
	return []rpcMessage{m}
}

func firstID(msgs []rpcMessage) json.RawMessage {
	if len(msgs) == 1 {
		return msgs[0].ID
	}
	return nil
}

// writeRPCError answers with an HTTP status and a JSON-RPC error body, which
// MCP clients surface as the call's error.
func writeRPCError(w http.ResponseWriter, status int, id json.RawMessage, code int, msg string, data any) {
	if len(id) == 0 {
		id = json.RawMessage("null")
	}
	e := map[string]any{"code": code, "message": msg}
	if data != nil {
		e["data"] = data
	}
	b, _ := json.Marshal(map[string]any{"jsonrpc": "2.0", "id": id, "error": e})
	w.Header().Set("Content-Type", "application/json")
	w.Header().Set("Cache-Control", "no-store")
	w.WriteHeader(status)
	w.Write(b)
}

// originOf returns scheme://host[:port] of a URL, lower case.
func originOf(raw string) string {
	u, err := url.Parse(strings.TrimSpace(raw))
	if err != nil || u.Scheme == "" || u.Host == "" {
		return ""
	}
	scheme, host := strings.ToLower(u.Scheme), strings.ToLower(u.Host)
	if (scheme == "https" && strings.HasSuffix(host, ":443")) || (scheme == "http" && strings.HasSuffix(host, ":80")) {
		host = host[:strings.LastIndex(host, ":")]
	}
	return scheme + "://" + host
}

// isLoopback reports whether a host or host:port is localhost or a loopback IP.
func isLoopback(hostport string) bool {
	host := hostport
	if h, _, err := net.SplitHostPort(hostport); err == nil {
		host = h
	}
	host = strings.Trim(host, "[]")
	// *.localhost names are loopback too (RFC 6761; browsers never send
	// them elsewhere): a second site on one machine is devtools.localhost.
	if strings.EqualFold(host, "localhost") || strings.HasSuffix(strings.ToLower(host), ".localhost") {
		return true
	}
	ip := net.ParseIP(host)
	return ip != nil && ip.IsLoopback()
}
