package mcp_test

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strings"
	"sync"
	"testing"
	"time"

	"launchdir/apitest"
	"launchdir/app"
	"launchdir/mcp"
	"launchdir/ops"
	"launchdir/testsite"

	"github.com/google/jsonschema-go/jsonschema"
	sdk "github.com/modelcontextprotocol/go-sdk/mcp"
)

var update = flag.Bool("update", false, "rewrite testdata/tools.golden.json")

// newEnv starts the real HTTP stack on the fixture with MCP mounted.
func newEnv(t *testing.T, setup ...func(*app.App)) *apitest.Env {
	t.Helper()
	o := apitest.Options{Fixture: true}
	if len(setup) > 0 {
		o.Setup = setup[0]
	}
	e := apitest.New(t, o)
	mcp.Mount(e.Routes, e.App)
	return e
}

// headerTransport adds fixed headers to every request.
type headerTransport struct {
	base http.RoundTripper
	hdr  map[string]string
}

func (h headerTransport) RoundTrip(r *http.Request) (*http.Response, error) {
	r = r.Clone(r.Context())
	for k, v := range h.hdr {
		r.Header.Set(k, v)
	}
	return h.base.RoundTrip(r)
}

type conn struct {
	path    string
	version string
	hdr     map[string]string
	client  *sdk.Client
}

// connect opens a client session with the Go SDK over real HTTP.
func connect(t *testing.T, e *apitest.Env, c conn) *sdk.ClientSession {
	t.Helper()
	cs, err := tryConnect(e, c)
	if err != nil {
		t.Fatalf("connect %s: %v", c.path, err)
	}
	t.Cleanup(func() { cs.Close() })
	return cs
}

func tryConnect(e *apitest.Env, c conn) (*sdk.ClientSession, error) {
	if c.path == "" {
		c.path = "/mcp"
	}
	client := c.client
	if client == nil {
		client = sdk.NewClient(&sdk.Implementation{Name: "launchdir-test", Version: "1.0.0"}, nil)
	}
	client.AddSendingMiddleware(checkOutputSchema(e))
	tr := &sdk.StreamableClientTransport{
		Endpoint:   e.URL + c.path,
		HTTPClient: &http.Client{Transport: headerTransport{http.DefaultTransport, c.hdr}, Timeout: 20 * time.Second},
		MaxRetries: -1,
	}
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	return client.Connect(ctx, tr, &sdk.ClientSessionOptions{ProtocolVersion: c.version})
}

// checkOutputSchema validates every successful tools/call result's
// structuredContent against the tool's outputSchema; a mismatch turns the
// call into an error naming the tool and the JSON path.
func checkOutputSchema(e *apitest.Env) sdk.Middleware {
	return func(next sdk.MethodHandler) sdk.MethodHandler {
		return func(ctx context.Context, method string, req sdk.Request) (sdk.Result, error) {
			res, err := next(ctx, method, req)
			r, ok := res.(*sdk.CallToolResult)
			if err != nil || !ok || r.IsError {
				return res, err
			}
			p, _ := req.GetParams().(*sdk.CallToolParams)
			op := e.App.Table.Get(p.Name)
			if op == nil {
				return res, err
			}
			b, _ := json.Marshal(r.StructuredContent)
			if verr := apitest.ValidateJSON(mcp.BuildTool(op).OutputSchema, b); verr != nil {
				return res, fmt.Errorf("tool %s: structuredContent does not match its outputSchema: %v", p.Name, verr)
			}
			return res, nil
		}
	}
}

func bearer(key string) map[string]string { return map[string]string{"Authorization": "Bearer " + key} }

func listTools(t *testing.T, cs *sdk.ClientSession) []*sdk.Tool {
	t.Helper()
	var out []*sdk.Tool
	for tool, err := range cs.Tools(context.Background(), nil) {
		if err != nil {
			t.Fatal(err)
		}
		out = append(out, tool)
	}
	return out
}

func names(tools []*sdk.Tool) []string {
	var n []string
	for _, t := range tools {
		n = append(n, t.Name)
	}
	sort.Strings(n)
	return n
}

func call(t *testing.T, cs *sdk.ClientSession, name string, args map[string]any) *sdk.CallToolResult {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	res, err := cs.CallTool(ctx, &sdk.CallToolParams{Name: name, Arguments: args})
	if err != nil {
		t.Fatalf("%s: %v", name, err)
	}
	return res
}

func text(res *sdk.CallToolResult) string {
	var b strings.Builder
	for _, c := range res.Content {
		if tc, ok := c.(*sdk.TextContent); ok {
			b.WriteString(tc.Text)
		}
	}
	return b.String()
}

func TestToolsListMatchesTable(t *testing.T) {
	e := newEnv(t)
	cs := connect(t, e, conn{path: "/mcp/full"})
	tools := listTools(t, cs)
	var want []string
	for _, op := range e.App.Table.Ops {
		want = append(want, op.ID)
	}
	sort.Strings(want)
	if got := names(tools); !slices.Equal(got, want) {
		t.Fatalf("tools/list has %d tools, table has %d operations\n got: %v\nwant: %v", len(got), len(want), got, want)
	}
	for _, tool := range tools {
		op := e.App.Table.Get(tool.Name)
		for what, s := range map[string]any{"input": tool.InputSchema, "output": tool.OutputSchema} {
			resolveSchema(t, tool.Name+" "+what, s)
		}
		in := tool.InputSchema.(map[string]any)
		if in["type"] != "object" {
			t.Errorf("%s: input schema type %v", tool.Name, in["type"])
		}
		props, _ := in["properties"].(map[string]any)
		for _, p := range op.InputSchema().Props {
			if props[p.Name] == nil {
				t.Errorf("%s: input %s missing from schema", tool.Name, p.Name)
			}
		}
		if _, ok := props[mcp.IdempotencyKeyArg]; ok != op.Idem {
			t.Errorf("%s: idempotency_key present=%v, op.Idem=%v", tool.Name, ok, op.Idem)
		}
		a := tool.Annotations
		if a == nil {
			t.Errorf("%s: no annotations", tool.Name)
			continue
		}
		if a.ReadOnlyHint != op.ReadOnly() {
			t.Errorf("%s: readOnlyHint %v", tool.Name, a.ReadOnlyHint)
		}
		if a.OpenWorldHint == nil || *a.OpenWorldHint != op.OpenWorld {
			t.Errorf("%s: openWorldHint %v", tool.Name, a.OpenWorldHint)
		}
		if !op.ReadOnly() && (a.DestructiveHint == nil || *a.DestructiveHint != op.Destructive) {
			t.Errorf("%s: destructiveHint %v", tool.Name, a.DestructiveHint)
		}
		if op.Scope != "" && !strings.Contains(tool.Description, "needs scope "+op.Scope) {
			t.Errorf("%s: description does not name scope %s: %q", tool.Name, op.Scope, tool.Description)
		}
	}
}

func resolveSchema(t *testing.T, what string, s any) *jsonschema.Resolved {
	t.Helper()
	b, err := json.Marshal(s)
	if err != nil {
		t.Fatalf("%s: %v", what, err)
	}
	var js jsonschema.Schema
	if err := json.Unmarshal(b, &js); err != nil {
		t.Fatalf("%s: schema does not decode: %v\n%s", what, err, b)
	}
	r, err := js.Resolve(nil)
	if err != nil {
		t.Fatalf("%s: invalid schema: %v\n%s", what, err, b)
	}
	return r
}

// TestToolsGolden snapshots every tool as clients of /mcp/full see it
// (the default /mcp lists the same without outputSchema). Regenerate with
// go test ./mcp -run TestToolsGolden -update.
func TestToolsGolden(t *testing.T) {
	e := newEnv(t)
	cs := connect(t, e, conn{path: "/mcp/full"})
	tools := listTools(t, cs)
	sort.Slice(tools, func(i, j int) bool { return tools[i].Name < tools[j].Name })
	type snap struct {
		Name         string               `json:"name"`
		Title        string               `json:"title,omitempty"`
		Description  string               `json:"description"`
		Annotations  *sdk.ToolAnnotations `json:"annotations"`
		InputSchema  any                  `json:"inputSchema"`
		OutputSchema any                  `json:"outputSchema,omitempty"`
	}
	got := map[string]string{}
	var all []snap
	for _, tl := range tools {
		s := snap{tl.Name, tl.Title, tl.Description, tl.Annotations, tl.InputSchema, tl.OutputSchema}
		got[tl.Name] = indentJSON(s, "  ")
		all = append(all, s)
	}
	file := filepath.Join("testdata", "tools.golden.json")
	if *update {
		b := []byte(indentJSON(all, ""))
		if err := os.MkdirAll("testdata", 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(file, b, 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	raw, err := os.ReadFile(file)
	if err != nil {
		t.Fatalf("%v (create it with: go test ./mcp -run TestToolsGolden -update)", err)
	}
	var old []json.RawMessage
	if err := json.Unmarshal(raw, &old); err != nil {
		t.Fatalf("%s: %v", file, err)
	}
	want := map[string]string{}
	for _, o := range old {
		var s snap
		json.Unmarshal(o, &s)
		want[s.Name] = indentJSON(s, "  ")
	}
	var problems []string
	for name, w := range want {
		g, ok := got[name]
		if !ok {
			problems = append(problems, "tool "+name+" is in the golden file but no longer served")
			continue
		}
		if g != w {
			problems = append(problems, "tool "+name+" changed:\n"+lineDiff(w, g))
		}
	}
	for name := range got {
		if _, ok := want[name]; !ok {
			problems = append(problems, "tool "+name+" is new (not in the golden file)")
		}
	}
	if len(problems) > 0 {
		sort.Strings(problems)
		t.Fatalf("tools differ from %s (if intended, run: go test ./mcp -run TestToolsGolden -update)\n%s", file, strings.Join(problems, "\n"))
	}
}

// indentJSON renders v as indented JSON without HTML escaping.
func indentJSON(v any, prefix string) string {
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	enc.SetIndent(prefix, "  ")
	enc.Encode(v)
	return buf.String()
}

// lineDiff shows the lines that differ between two texts, with the line
// before each for context ("-" golden, "+" now).
func lineDiff(a, b string) string {
	al, bl := strings.Split(a, "\n"), strings.Split(b, "\n")
	// Longest common subsequence, fine for the small texts compared here.
	n, m := len(al), len(bl)
	lcs := make([][]int, n+1)
	for i := range lcs {
		lcs[i] = make([]int, m+1)
	}
	for i := n - 1; i >= 0; i-- {
		for j := m - 1; j >= 0; j-- {
			if al[i] == bl[j] {
				lcs[i][j] = lcs[i+1][j+1] + 1
			} else {
				lcs[i][j] = max(lcs[i+1][j], lcs[i][j+1])
			}
		}
	}
	var out []string
	i, j, prev, inHunk := 0, 0, "", false
	emit := func(line string) {
		if !inHunk && prev != "" {
			out = append(out, "      "+prev)
		}
		out = append(out, line)
		inHunk = true
	}
	for i < n || j < m {
		switch {
		case i < n && j < m && al[i] == bl[j]:
			prev, inHunk = al[i], false
			i, j = i+1, j+1
		case i < n && (j == m || lcs[i+1][j] >= lcs[i][j+1]):
			emit("    - " + al[i])
			i++
		default:
			emit("    + " + bl[j])
			j++
		}
	}
	return strings.Join(out, "\n")
}

// publicArgs are arguments valid for the fixture, one entry per public tool.
var publicArgs = map[string]map[string]any{
	"get_site_info":            {},
	"search_listings":          {"q": "database", "per_page": 5},
	"get_listing":              {"slug": "quickbase"},
	"list_comments":            {"slug": "quickbase", "sort": "top"},
	"get_comment":              {"comment_id": 1},
	"get_alternatives":         {"slug": "quickbase"},
	"compare_listings":         {"a": "quickbase", "b": "tablely"},
	"list_categories":          {"include_empty": false},
	"get_category":             {"slug": "developer-tools"},
	"get_launch_week":          {"week": "this"},
	"list_launches":            {"section": "this-week"},
	"get_leaderboard":          {"board": "community-weekly"},
	"list_founders":            {"q": "ada"},
	"get_founder":              {"slug": "ada-lovelace"},
	"list_blog_posts":          {},
	"get_blog_post":            {"slug": "how-to-launch"},
	"list_awards":              {},
	"get_badges":               {"slug": "rankrocket", "shape": "pill"},
	"list_interview_questions": {},
	"list_products":            {},
}

func TestPublicToolsSucceed(t *testing.T) {
	e := newEnv(t)
	cs := connect(t, e, conn{})
	schemas := map[string]*jsonschema.Resolved{}
	for _, tl := range listTools(t, cs) {
		schemas[tl.Name] = resolveSchema(t, tl.Name, tl.InputSchema)
	}
	for _, op := range e.App.Table.Ops {
		if op.Scope != "" {
			continue
		}
		args, ok := publicArgs[op.ID]
		if !ok {
			t.Errorf("public tool %s has no fixture arguments in publicArgs; add some", op.ID)
			continue
		}
		t.Run(op.ID, func(t *testing.T) {
			if err := schemas[op.ID].Validate(jsonRoundTrip(args)); err != nil {
				t.Errorf("fixture arguments fail the advertised schema: %v", err)
			}
			res := call(t, cs, op.ID, args)
			if res.IsError {
				t.Fatalf("isError: %s", text(res))
			}
			checkBodyMatchesREST(t, e, op, args, res)
		})
	}
}

func jsonRoundTrip(v any) any {
	b, _ := json.Marshal(v)
	var out any
	json.Unmarshal(b, &out)
	return out
}

// checkBodyMatchesREST checks structuredContent and the text are the same
// JSON object, and equal the REST body for GETs.
func checkBodyMatchesREST(t *testing.T, e *apitest.Env, op *ops.Operation, args map[string]any, res *sdk.CallToolResult) {
	t.Helper()
	var sc, tc map[string]any
	b, _ := json.Marshal(res.StructuredContent)
	if err := json.Unmarshal(b, &sc); err != nil || sc == nil {
		t.Fatalf("structuredContent is not an object: %s", b)
	}
	if err := json.Unmarshal([]byte(text(res)), &tc); err != nil {
		t.Fatalf("text content is not JSON: %v", err)
	}
	if !jsonEqual(sc, tc) {
		t.Errorf("structuredContent and text differ")
	}
	if op.Method != http.MethodGet || op.ID == "get_site_info" {
		return
	}
	path, q := op.Path, []string{}
	for k, v := range args {
		if strings.Contains(path, ":"+k) {
			path = strings.Replace(path, ":"+k, fmt.Sprint(v), 1)
		} else {
			q = append(q, fmt.Sprintf("%s=%v", k, v))
		}
	}
	if len(q) > 0 {
		path += "?" + strings.Join(q, "&")
	}
	r := e.Do("GET", "/api/v1"+path, nil)
	if r.Status != 200 {
		t.Fatalf("REST %s: %d %s", path, r.Status, r.Body)
	}
	var rest map[string]any
	json.Unmarshal(r.Body, &rest)
	if !jsonEqual(rest, sc) {
		t.Errorf("MCP body differs from REST body for %s\nREST: %s\nMCP:  %s", path, r.Body, b)
	}
}

func jsonEqual(a, b any) bool {
	x, _ := json.Marshal(a)
	y, _ := json.Marshal(b)
	return bytes.Equal(x, y)
}

func TestSignedInTools(t *testing.T) {
	e := newEnv(t)
	key := e.APIKey("owner@example.com")
	cs := connect(t, e, conn{hdr: bearer(key)})
	res := call(t, cs, "get_account", nil)
	if res.IsError {
		t.Fatalf("get_account: %s", text(res))
	}
	var acct struct {
		User struct {
			Email string `json:"email"`
		} `json:"user"`
		Scopes []string `json:"scopes"`
	}
	b, _ := json.Marshal(res.StructuredContent)
	json.Unmarshal(b, &acct)
	if acct.User.Email != "owner@example.com" || len(acct.Scopes) != 3 {
		t.Errorf("get_account: %s", b)
	}
	// Every signed-in read without required inputs works with the key.
	for _, op := range e.App.Table.Ops {
		if op.Scope == "" || !op.ReadOnly() || op.Method != http.MethodGet || hasRequired(op) || op.Toolset == mcp.TeamToolset {
			continue
		}
		if res := call(t, cs, op.ID, nil); res.IsError {
			t.Errorf("%s: %s", op.ID, text(res))
		}
	}
	// idempotency_key makes a retried write return the first result.
	if e.App.Table.Get("post_listing_update") == nil {
		t.Fatal("post_listing_update is not in the operations table")
	}
	{
		args := map[string]any{"listing_id": 1, "title": "v3", "body": "Even faster.", mcp.IdempotencyKeyArg: "retry-1"}
		first := call(t, cs, "post_listing_update", args)
		second := call(t, cs, "post_listing_update", args)
		if first.IsError || second.IsError || text(first) != text(second) {
			t.Errorf("idempotent retry: %s / %s", text(first), text(second))
		}
		args["title"] = "v4"
		if res := call(t, cs, "post_listing_update", args); !res.IsError || !strings.Contains(text(res), "idempotency") {
			t.Errorf("key reused with other arguments: %s", text(res))
		}
	}
	// Validation of signed-in tools reports fields like REST.
	if e.App.Table.Get("submit_listing") == nil {
		t.Fatal("submit_listing is not in the operations table")
	}
	{
		res := call(t, cs, "submit_listing", map[string]any{"url": strings.Repeat("x", 3000), mcp.IdempotencyKeyArg: strings.Repeat("k", 300)})
		if !res.IsError || !strings.Contains(text(res), mcp.IdempotencyKeyArg) {
			t.Errorf("long idempotency key: %s", text(res))
		}
	}
}

func hasRequired(op *ops.Operation) bool {
	for _, p := range op.InputSchema().Props {
		if p.Required {
			return true
		}
	}
	return false
}

// rpc posts a raw JSON-RPC message (legacy protocol, no initialize needed in
// stateless mode).
func rpc(t *testing.T, e *apitest.Env, path, body string, hdr ...string) (*http.Response, string) {
	t.Helper()
	req, _ := http.NewRequest("POST", e.URL+path, strings.NewReader(body))
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json, text/event-stream")
	for i := 0; i+1 < len(hdr); i += 2 {
		if hdr[i] == "Host" {
			req.Host = hdr[i+1]
			continue
		}
		req.Header.Set(hdr[i], hdr[i+1])
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	checkRawToolResult(t, e, body, string(b))
	return resp, string(b)
}

// checkRawToolResult validates a raw tools/call reply's structuredContent
// against the tool's outputSchema, like checkOutputSchema does for the SDK.
func checkRawToolResult(t *testing.T, e *apitest.Env, reqBody, respBody string) {
	t.Helper()
	var req struct {
		Method string `json:"method"`
		Params struct {
			Name string `json:"name"`
		} `json:"params"`
	}
	var resp struct {
		Result *struct {
			IsError           bool            `json:"isError"`
			StructuredContent json.RawMessage `json:"structuredContent"`
		} `json:"result"`
	}
	if json.Unmarshal([]byte(reqBody), &req) != nil || req.Method != "tools/call" ||
		json.Unmarshal([]byte(sseData(respBody)), &resp) != nil || resp.Result == nil || resp.Result.IsError {
		return
	}
	op := e.App.Table.Get(req.Params.Name)
	if op == nil {
		return
	}
	if err := apitest.ValidateJSON(mcp.BuildTool(op).OutputSchema, resp.Result.StructuredContent); err != nil {
		t.Errorf("tool %s: structuredContent does not match its outputSchema: %v", op.ID, err)
	}
}

const callGetAccount = `{"jsonrpc":"2.0","id":7,"method":"tools/call","params":{"name":"get_account","arguments":{}}}`

func TestAuthChallenges(t *testing.T) {
	e := newEnv(t)
	meta := e.URL + "/.well-known/oauth-protected-resource/mcp"

	resp, body := rpc(t, e, "/mcp", callGetAccount)
	if resp.StatusCode != 401 {
		t.Fatalf("anonymous get_account: %d %s", resp.StatusCode, body)
	}
	if h := resp.Header.Get("WWW-Authenticate"); !strings.HasPrefix(h, "Bearer ") || !strings.Contains(h, `resource_metadata="`+meta+`"`) {
		t.Errorf("WWW-Authenticate = %q", h)
	}
	if !strings.Contains(body, `"id":7`) || !strings.Contains(body, "account:read") {
		t.Errorf("401 body: %s", body)
	}

	narrow := e.APIKey("owner@example.com", ops.ScopeListingsWrite)
	resp, body = rpc(t, e, "/mcp", callGetAccount, "Authorization", "Bearer "+narrow)
	if resp.StatusCode != 403 {
		t.Fatalf("narrow key get_account: %d %s", resp.StatusCode, body)
	}
	h := resp.Header.Get("WWW-Authenticate")
	for _, want := range []string{`error="insufficient_scope"`, `scope="account:read"`, `resource_metadata="` + meta + `"`} {
		if !strings.Contains(h, want) {
			t.Errorf("403 WWW-Authenticate %q lacks %s", h, want)
		}
	}

	resp, body = rpc(t, e, "/mcp", `{"jsonrpc":"2.0","id":1,"method":"tools/list"}`, "Authorization", "Bearer ldk_not_a_key")
	if resp.StatusCode != 401 || !strings.Contains(resp.Header.Get("WWW-Authenticate"), `resource_metadata="`+meta+`"`) {
		t.Errorf("bad token: %d %q %s", resp.StatusCode, resp.Header.Get("WWW-Authenticate"), body)
	}

	// 2026-07-28 requests: challenged when well formed; a header mismatch is
	// a malformed request (400 from the SDK), not an auth problem.
	modern := `{"jsonrpc":"2.0","id":9,"method":"tools/call","params":{"name":"get_account","arguments":{},"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{}}}}`
	resp, body = rpc(t, e, "/mcp", modern, "Mcp-Protocol-Version", "2026-07-28", "Mcp-Method", "tools/call", "Mcp-Name", "get_account")
	if resp.StatusCode != 401 || !strings.Contains(body, `"id":9`) {
		t.Errorf("2026-07-28 anonymous get_account: %d %s", resp.StatusCode, body)
	}
	resp, body = rpc(t, e, "/mcp", modern, "Mcp-Protocol-Version", "2026-07-28", "Mcp-Method", "tools/call")
	if resp.StatusCode != 400 || !strings.Contains(body, "-32020") {
		t.Errorf("2026-07-28 without Mcp-Name: %d %s", resp.StatusCode, body)
	}

	// Anonymous public calls and lists work; the SDK client surfaces the 401.
	resp, body = rpc(t, e, "/mcp", `{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"get_listing","arguments":{"slug":"quickbase"}}}`)
	if resp.StatusCode != 200 || !strings.Contains(body, "QuickBase") {
		t.Errorf("anonymous get_listing: %d %s", resp.StatusCode, body)
	}
	cs := connect(t, e, conn{})
	if _, err := cs.CallTool(context.Background(), &sdk.CallToolParams{Name: "get_account"}); err == nil {
		t.Errorf("anonymous SDK call of get_account succeeded")
	}
	// A tool hidden by the endpoint's selection is not challenged.
	resp, _ = rpc(t, e, "/mcp/x/public", callGetAccount)
	if resp.StatusCode == 401 {
		t.Errorf("get_account on /mcp/x/public challenged although not served there")
	}
}

func TestBadInputIsToolError(t *testing.T) {
	e := newEnv(t)
	cs := connect(t, e, conn{})
	res := call(t, cs, "search_listings", map[string]any{"per_page": 101})
	if !res.IsError {
		t.Fatalf("per_page 101 accepted")
	}
	rest := e.Do("GET", "/api/v1/listings?per_page=101", nil)
	var prob ops.Problem
	json.Unmarshal(rest.Body, &prob)
	var got ops.Problem
	if err := json.Unmarshal([]byte(text(res)), &got); err != nil {
		t.Fatalf("tool error is not a problem document: %s", text(res))
	}
	if len(got.Errors) != 1 || got.Errors[0].Field != "per_page" || !slices.Equal(got.Errors, prob.Errors) {
		t.Errorf("field errors: MCP %+v, REST %+v", got.Errors, prob.Errors)
	}
	for args, field := range map[string]string{
		`{"slug":"Not A Slug"}`:          "slug",
		`{"slug":"quickbase","extra":1}`: "extra",
		`{}`:                             "slug",
	} {
		var m map[string]any
		json.Unmarshal([]byte(args), &m)
		res := call(t, cs, "get_listing", m)
		if !res.IsError || !strings.Contains(text(res), `"field":"`+field+`"`) {
			t.Errorf("get_listing %s: %s", args, text(res))
		}
	}
	res = call(t, cs, "get_listing", map[string]any{"slug": "no-such-listing"})
	if !res.IsError || !strings.Contains(text(res), "not_found") {
		t.Errorf("unknown slug: %s", text(res))
	}
}

func toolsetsOf(e *apitest.Env, tools []*sdk.Tool) map[string]bool {
	out := map[string]bool{}
	for _, tl := range tools {
		op := e.App.Table.Get(tl.Name)
		ts := op.Toolset
		if ts == "" {
			ts = "public"
		}
		out[ts] = true
	}
	return out
}

func TestToolsetsAndReadOnly(t *testing.T) {
	e := newEnv(t)
	count := func(pred func(*ops.Operation) bool) int {
		n := 0
		for _, op := range e.App.Table.Ops {
			if pred(op) && op.Toolset != mcp.TeamToolset { // the cases below never ask for the team's toolset
				n++
			}
		}
		return n
	}
	in := func(sets ...string) func(*ops.Operation) bool {
		return func(op *ops.Operation) bool {
			ts := op.Toolset
			if ts == "" {
				ts = "public"
			}
			return slices.Contains(sets, ts)
		}
	}
	cases := []struct {
		name string
		c    conn
		want func(*ops.Operation) bool
	}{
		{"path public", conn{path: "/mcp/x/public"}, in("public")},
		{"path public,orders", conn{path: "/mcp/x/public,orders"}, in("public", "orders")},
		{"path listings readonly", conn{path: "/mcp/x/listings/readonly"}, func(op *ops.Operation) bool { return in("listings")(op) && op.ReadOnly() }},
		{"readonly", conn{path: "/mcp/readonly"}, (*ops.Operation).ReadOnly},
		{"header toolsets", conn{hdr: map[string]string{"X-MCP-Toolsets": "drafts, listings"}}, in("drafts", "listings")},
		{"header readonly", conn{hdr: map[string]string{"X-MCP-Readonly": "true"}}, (*ops.Operation).ReadOnly},
		{"path and header intersect", conn{path: "/mcp/x/public,orders", hdr: map[string]string{"X-MCP-Toolsets": "orders,claims"}}, in("orders")},
		{"all", conn{path: "/mcp/x/all"}, func(*ops.Operation) bool { return true }},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			cs := connect(t, e, tc.c)
			tools := listTools(t, cs)
			if len(tools) != count(tc.want) {
				t.Errorf("%d tools, want %d: %v", len(tools), count(tc.want), names(tools))
			}
			for _, tl := range tools {
				if !tc.want(e.App.Table.Get(tl.Name)) {
					t.Errorf("tool %s should not be listed", tl.Name)
				}
			}
		})
	}
	// Read-only endpoints refuse write tools as unknown.
	cs := connect(t, e, conn{path: "/mcp/readonly"})
	if _, err := cs.CallTool(context.Background(), &sdk.CallToolParams{Name: "submit_listing", Arguments: map[string]any{"url": "https://example.com"}}); err == nil {
		t.Errorf("submit_listing callable on /mcp/readonly")
	}
	if res := call(t, cs, "get_listing", map[string]any{"slug": "tablely"}); res.IsError {
		t.Errorf("get_listing on readonly: %s", text(res))
	}

	resp, body := rpc(t, e, "/mcp/x/bogus", `{"jsonrpc":"2.0","id":1,"method":"tools/list"}`)
	if resp.StatusCode != 404 || !strings.Contains(body, `unknown toolset \"bogus\"`) {
		t.Errorf("unknown toolset in path: %d %s", resp.StatusCode, body)
	}
	resp, body = rpc(t, e, "/mcp", `{"jsonrpc":"2.0","id":1,"method":"tools/list"}`, "X-MCP-Toolsets", "public,nope")
	if resp.StatusCode != 400 || !strings.Contains(body, "nope") {
		t.Errorf("unknown toolset in header: %d %s", resp.StatusCode, body)
	}
	resp, body = rpc(t, e, "/mcp/x/public", `{"jsonrpc":"2.0","id":1,"method":"tools/list"}`, "X-MCP-Toolsets", "orders")
	if resp.StatusCode != 400 || !strings.Contains(body, "shares no toolset") {
		t.Errorf("disjoint path and header toolsets: %d %s", resp.StatusCode, body)
	}
	if _, err := tryConnect(e, conn{path: "/mcp/x/bogus"}); err == nil || !strings.Contains(err.Error(), "bogus") {
		t.Errorf("SDK client on unknown toolset: %v", err)
	}
}

func TestProtocolVersions(t *testing.T) {
	e := newEnv(t)
	for _, v := range []string{"2026-07-28", "2025-11-25", "2025-06-18", "2025-03-26"} {
		t.Run(v, func(t *testing.T) {
			cs := connect(t, e, conn{version: v})
			if got := cs.InitializeResult().ProtocolVersion; got != v {
				t.Fatalf("negotiated %s, want %s", got, v)
			}
			if n := len(listTools(t, cs)); n != len(e.App.Table.Ops)-teamTools(e.App.Table.Ops) {
				t.Errorf("%d tools", n)
			}
			if res := call(t, cs, "get_listing", map[string]any{"slug": "rankrocket"}); res.IsError {
				t.Errorf("get_listing: %s", text(res))
			}
		})
	}
	// Raw 2025-06-18 initialize answers with that version; 2024-11-05 is not
	// offered and is answered with the newest initialize-based version.
	for req, want := range map[string]string{"2025-06-18": "2025-06-18", "2024-11-05": "2025-11-25"} {
		resp, body := rpc(t, e, "/mcp", `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"`+req+`","capabilities":{},"clientInfo":{"name":"raw","version":"1"}}}`)
		if resp.StatusCode != 200 || !strings.Contains(body, `"protocolVersion":"`+want+`"`) {
			t.Errorf("initialize %s: %d %s", req, resp.StatusCode, body)
		}
	}
	// Stateless: no session id is handed out; GET has no standalone stream.
	resp, _ := rpc(t, e, "/mcp", `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"raw","version":"1"}}}`)
	if resp.Header.Get("Mcp-Session-Id") != "" {
		t.Errorf("session id in stateless mode")
	}
	r := e.Do("GET", "/mcp", nil, "Accept", "text/event-stream")
	if r.Status != http.StatusMethodNotAllowed {
		t.Errorf("GET /mcp: %d", r.Status)
	}
}

func TestHTTPProtections(t *testing.T) {
	e := newEnv(t)
	list := `{"jsonrpc":"2.0","id":1,"method":"tools/list"}`
	resp, body := rpc(t, e, "/mcp", list, "Origin", "https://evil.example")
	if resp.StatusCode != 403 {
		t.Errorf("cross-origin: %d %s", resp.StatusCode, body)
	}
	resp, body = rpc(t, e, "/mcp", list, "Origin", e.URL)
	if resp.StatusCode != 200 {
		t.Errorf("same origin: %d %s", resp.StatusCode, body)
	}
	resp, body = rpc(t, e, "/mcp", callGetAccount, "Host", "evil.example", "Authorization", "Bearer ldk_bogus")
	if resp.StatusCode != 403 {
		t.Errorf("DNS rebinding (foreign Host on loopback): %d %s", resp.StatusCode, body)
	}
	// The cap is 8 MiB (image tools take a 5 MiB file as base64).
	big := `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"search_listings","arguments":{"q":"` + strings.Repeat("a", 8<<20) + `"}}}`
	resp, body = rpc(t, e, "/mcp", big)
	if resp.StatusCode != http.StatusRequestEntityTooLarge {
		t.Errorf("8 MiB body: %d %.200s", resp.StatusCode, body)
	}
}

func TestResourcesAndPrompts(t *testing.T) {
	e := newEnv(t)
	cs := connect(t, e, conn{})
	ctx := context.Background()
	lr, err := cs.ListResources(ctx, nil)
	if err != nil {
		t.Fatal(err)
	}
	var uris []string
	for _, r := range lr.Resources {
		uris = append(uris, r.URI)
	}
	for _, want := range []string{"launchdir://listings/quickbase", "launchdir://blog/how-to-launch"} {
		if !slices.Contains(uris, want) {
			t.Errorf("resources/list lacks %s: %v", want, uris)
		}
	}
	if slices.Contains(uris, "launchdir://listings/secretdraft") {
		t.Errorf("draft listing exposed as a resource")
	}
	tr, err := cs.ListResourceTemplates(ctx, nil)
	if err != nil || len(tr.ResourceTemplates) != 2 {
		t.Fatalf("templates: %v %+v", err, tr)
	}
	rr, err := cs.ReadResource(ctx, &sdk.ReadResourceParams{URI: "launchdir://listings/tablely"})
	if err != nil {
		t.Fatal(err)
	}
	rest := e.Do("GET", "/api/v1/listings/tablely", nil)
	if len(rr.Contents) != 1 || rr.Contents[0].MIMEType != "application/json" || rr.Contents[0].Text != string(rest.Body) {
		t.Errorf("read listing: %+v", rr.Contents)
	}
	rr, err = cs.ReadResource(ctx, &sdk.ReadResourceParams{URI: "launchdir://blog/how-to-launch"})
	if err != nil || !strings.Contains(rr.Contents[0].Text, "how-to-launch") {
		t.Errorf("read blog: %v %+v", err, rr)
	}
	if _, err := cs.ReadResource(ctx, &sdk.ReadResourceParams{URI: "launchdir://listings/secretdraft"}); err == nil {
		t.Errorf("draft listing readable")
	}

	cr, err := cs.Complete(ctx, &sdk.CompleteParams{Ref: &sdk.CompleteReference{Type: "ref/resource", URI: "launchdir://listings/{slug}"},
		Argument: sdk.CompleteParamsArgument{Name: "slug", Value: "quick"}})
	if err != nil || !slices.Contains(cr.Completion.Values, "quickbase") {
		t.Errorf("complete slug: %v %+v", err, cr)
	}
	cr, err = cs.Complete(ctx, &sdk.CompleteParams{Ref: &sdk.CompleteReference{Type: "ref/prompt", Name: "submit_product"},
		Argument: sdk.CompleteParamsArgument{Name: "plan", Value: "p"}})
	if err != nil || !slices.Equal(cr.Completion.Values, []string{"paid"}) {
		t.Errorf("complete plan: %v %+v", err, cr)
	}

	pl, err := cs.ListPrompts(ctx, nil)
	if err != nil || len(pl.Prompts) == 0 || pl.Prompts[0].Name != "submit_product" {
		t.Fatalf("prompts: %v %+v", err, pl)
	}
	gp, err := cs.GetPrompt(ctx, &sdk.GetPromptParams{Name: "submit_product", Arguments: map[string]string{"url": "https://example.com"}})
	if err != nil {
		t.Fatal(err)
	}
	txt := gp.Messages[0].Content.(*sdk.TextContent).Text
	for _, step := range []string{"submit_listing", "get_draft", "update_draft", "submit_draft", "choose_free_listing", "create_checkout", "https://example.com"} {
		if !strings.Contains(txt, step) {
			t.Errorf("prompt lacks %s", step)
		}
	}
	// Every tool the prompt names exists in the operations table and is
	// listed to clients.
	listed := names(listTools(t, cs))
	for _, name := range []string{"submit_listing", "get_draft", "update_draft", "submit_draft", "choose_free_listing", "create_checkout"} {
		if e.App.Table.Get(name) == nil {
			t.Errorf("prompt names %s, which is not in the operations table", name)
		} else if !slices.Contains(listed, name) {
			t.Errorf("prompt names %s, which tools/list does not offer", name)
		}
	}
}

// TestProgress runs a test-only operation that reports progress and checks
// the client receives it (2026-07-28 and 2025-06-18).
func TestProgress(t *testing.T) {
	e := newEnv(t, func(a *app.App) {
		op := &ops.Operation{ID: "zz_slow", Method: "POST", Path: "/zz-slow", Toolset: "public", Summary: "Test",
			Output: ops.Out[struct {
				Steps int64 `json:"steps"`
			}](),
			Body: ops.Obj(ops.P("steps", ops.Int(1, 5))),
			Handler: func(ctx context.Context, in *ops.Input) (any, error) {
				n := in.Int("steps")
				for i := int64(1); i <= n; i++ {
					if in.Progress != nil {
						in.Progress(float64(i), float64(n), fmt.Sprintf("step %d", i))
					}
				}
				return map[string]any{"steps": n}, nil
			}}
		t2, err := ops.NewTable(append(slices.Clone(a.Table.Ops), op))
		if err != nil {
			t.Fatal(err)
		}
		a.Table, a.Exec.Table = t2, t2
	})
	for _, v := range []string{"2026-07-28", "2025-06-18"} {
		t.Run(v, func(t *testing.T) {
			got := make(chan *sdk.ProgressNotificationParams, 10)
			client := sdk.NewClient(&sdk.Implementation{Name: "t", Version: "1"}, &sdk.ClientOptions{
				ProgressNotificationHandler: func(_ context.Context, r *sdk.ProgressNotificationClientRequest) { got <- r.Params },
			})
			cs := connect(t, e, conn{version: v, client: client})
			params := &sdk.CallToolParams{Name: "zz_slow", Arguments: map[string]any{"steps": 3}}
			params.SetProgressToken("tok-1")
			res, err := cs.CallTool(context.Background(), params)
			if err != nil || res.IsError {
				t.Fatalf("%v %s", err, text(res))
			}
			var seen []float64
			timeout := time.After(5 * time.Second)
			for len(seen) < 3 {
				select {
				case p := <-got:
					if p.ProgressToken != "tok-1" || p.Total != 3 {
						t.Errorf("progress %+v", p)
					}
					seen = append(seen, p.Progress)
				case <-timeout:
					t.Fatalf("progress notifications: %v", seen)
				}
			}
		})
	}
}

// newBackgroundEnv is newEnv with the app's background workers running, so
// the draft pipeline crawls what submit_listing queues.
func newBackgroundEnv(t *testing.T) *apitest.Env {
	t.Helper()
	e := apitest.New(t, apitest.Options{Fixture: true, Background: true})
	mcp.Mount(e.Routes, e.App)
	return e
}

// TestSubmitListingProgress: with a progress token, submit_listing waits for
// the draft while reporting progress and returns it ready.
func TestSubmitListingProgress(t *testing.T) {
	e := newBackgroundEnv(t)
	site := testsite.Serve(t, "acme-analytics", nil)
	var (
		mu   sync.Mutex
		seen []*sdk.ProgressNotificationParams
	)
	client := sdk.NewClient(&sdk.Implementation{Name: "t", Version: "1"}, &sdk.ClientOptions{
		ProgressNotificationHandler: func(_ context.Context, r *sdk.ProgressNotificationClientRequest) {
			mu.Lock()
			seen = append(seen, r.Params)
			mu.Unlock()
		},
	})
	cs := connect(t, e, conn{hdr: bearer(e.APIKey("owner@example.com")), client: client})
	params := &sdk.CallToolParams{Name: "submit_listing", Arguments: map[string]any{"url": site.URL + "/"}}
	params.SetProgressToken("submit-1")
	ctx, cancel := context.WithTimeout(context.Background(), 90*time.Second)
	defer cancel()
	res, err := cs.CallTool(ctx, params)
	if err != nil || res.IsError {
		t.Fatalf("submit_listing: %v %s", err, text(res))
	}
	var d struct {
		ID     string `json:"id"`
		Status string `json:"status"`
		Fields map[string]struct {
			Value any    `json:"value"`
			State string `json:"state"`
		} `json:"fields"`
	}
	if err := json.Unmarshal([]byte(text(res)), &d); err != nil {
		t.Fatalf("result: %v %s", err, text(res))
	}
	if d.Status != "ready" || d.ID == "" {
		t.Fatalf("submit_listing returned status %q, want ready: %.500s", d.Status, text(res))
	}
	if f := d.Fields["name"]; f.Value != "Acme Analytics" || f.State != "ai" {
		t.Errorf("name field %+v", f)
	}
	// Notifications may trail the result slightly; wait briefly for the first.
	deadline := time.Now().Add(5 * time.Second)
	for {
		mu.Lock()
		n := len(seen)
		mu.Unlock()
		if n > 0 || time.Now().After(deadline) {
			break
		}
		time.Sleep(20 * time.Millisecond)
	}
	mu.Lock()
	defer mu.Unlock()
	if len(seen) == 0 {
		t.Fatal("no notifications/progress for submit_listing with a progress token")
	}
	last := -1.0
	for _, p := range seen {
		if p.ProgressToken != "submit-1" {
			t.Errorf("progress token %v", p.ProgressToken)
		}
		if p.Progress <= last {
			t.Errorf("progress did not increase: %v after %v", p.Progress, last)
		}
		if p.Total > 0 && p.Progress > p.Total {
			t.Errorf("progress %v beyond total %v", p.Progress, p.Total)
		}
		last = p.Progress
	}
	// The same draft is readable through get_draft.
	if got := call(t, cs, "get_draft", map[string]any{"id": d.ID}); got.IsError || !strings.Contains(text(got), `"status":"ready"`) {
		t.Errorf("get_draft: %s", text(got))
	}
}

// TestCaching checks list results carry a freshness hint.
func TestCaching(t *testing.T) {
	e := newEnv(t)
	resp, body := rpc(t, e, "/mcp", `{"jsonrpc":"2.0","id":1,"method":"tools/list","params":{"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{}}}}`,
		"Mcp-Protocol-Version", "2026-07-28", "Mcp-Method", "tools/list")
	if resp.StatusCode != 200 {
		t.Fatalf("%d %s", resp.StatusCode, body)
	}
	data := sseData(body)
	if !strings.Contains(data, `"ttlMs":60000`) || !strings.Contains(data, `"cacheScope":"public"`) {
		t.Errorf("tools/list lacks cache hints: %.300s", data)
	}
}

func sseData(body string) string {
	var out []string
	sc := bufio.NewScanner(strings.NewReader(body))
	sc.Buffer(make([]byte, 1<<20), 8<<20)
	for sc.Scan() {
		if d, ok := strings.CutPrefix(sc.Text(), "data: "); ok {
			out = append(out, d)
		}
	}
	if len(out) == 0 {
		return body
	}
	return strings.Join(out, "\n")
}

func TestInvalidUTF8Refused(t *testing.T) {
	e := newEnv(t)
	body := `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"search_listings","arguments":{"q":"ab` + "\xff" + `cd"}}}`
	resp, out := rpc(t, e, "/mcp", body, "MCP-Protocol-Version", "2025-06-18")
	if resp.StatusCode != 400 || !strings.Contains(out, "UTF-8") {
		t.Fatalf("invalid UTF-8: %d %s", resp.StatusCode, out)
	}
}

// teamTools counts the site team's tools, which the default list leaves out.
func teamTools(list []*ops.Operation) int {
	n := 0
	for _, op := range list {
		if op.Toolset == mcp.TeamToolset {
			n++
		}
	}
	return n
}
