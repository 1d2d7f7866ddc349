// Package mcp is the MCP door of launchdir: a Streamable HTTP server (MCP Go
// SDK, stateless mode) whose tools are generated from the one operations
// table, so every REST operation is also a tool of the same name with the
// same validation, scopes, idempotency and JSON bodies.
//
// Endpoints (see Mount):
//
//	/mcp                       every tool
//	/mcp/readonly              read-only tools
//	/mcp/x/{toolsets}          tools of the named toolsets (comma separated)
//	/mcp/x/{toolsets}/readonly both restrictions
//	/mcp/full…                 any of the above with output schemas listed
//
// The default lists leave output schemas out (tools still return
// structuredContent) so that tools/list of every tool stays under 100 KB;
// /mcp/full or the header X-MCP-Output-Schemas: true add them.
//
// The headers X-MCP-Toolsets (comma list) and X-MCP-Readonly: true select
// the same way on any of these paths.
package mcp

import (
	"context"
	"encoding/json"
	"fmt"
	"log/slog"
	"net/http"
	"slices"
	"sort"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"launchdir/app"
	"launchdir/app/kernel"
	"launchdir/ops"
	"launchdir/routes"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"
)

// ProtocolVersions are the MCP protocol versions served: the stateless
// 2026-07-28 revision and the initialize-based 2025-03-26 to 2025-11-25.
var ProtocolVersions = []string{"2026-07-28", "2025-11-25", "2025-06-18", "2025-03-26"}

// IdempotencyKeyArg is the extra tool argument of operations that accept an
// Idempotency-Key on the REST side.
const IdempotencyKeyArg = "idempotency_key"

// Known toolsets, in documentation order. Operations naming another toolset
// form a toolset of that name, listed after these.
var knownToolsets = []string{"public", "drafts", "listings", "claims", "orders"}

// Options configures the MCP handler. The zero value is fine.
type Options struct {
	// BasePath is where the handler is mounted (default "/mcp"); the
	// toolset and read-only selectors are read from the path below it.
	BasePath string
	// MaxBodyBytes caps a request body (default ops.UploadBodyBytes, 8 MiB:
	// the image tools take a 5 MiB file as base64); larger bodies get 413.
	MaxBodyBytes int64
	// AllowedOrigins lists browser origins allowed besides the origin of
	// the request's site (e.g. "https://app.example.com").
	AllowedOrigins []string
	// ResourceMetadataURL is the OAuth protected resource metadata address
	// announced in WWW-Authenticate (default: the request's site's
	// <origin>/.well-known/oauth-protected-resource/mcp).
	ResourceMetadataURL string
	// ListTTL is the cache freshness hint of list results (default 60s).
	ListTTL time.Duration
	// Logger receives SDK diagnostics (default: the app's logger, warn and
	// above; the SDK reports client mistakes as errors, so they arrive as
	// warnings).
	Logger *slog.Logger
}

// Handler is the MCP HTTP handler.
type Handler struct {
	app      *app.App
	opts     Options
	origins  map[string]bool
	tools    []*toolDef
	toolsets []string
	byName   map[string]*toolDef
	sdk      *sdk.StreamableHTTPHandler

	mu      sync.Mutex
	servers map[string]*sdk.Server // by selection key
}

type toolDef struct {
	op   *ops.Operation
	tool *sdk.Tool
}

// NewHandler builds the MCP handler from the app's operations table.
func NewHandler(a *app.App, opts Options) *Handler {
	if opts.BasePath == "" {
		opts.BasePath = "/mcp"
	}
	opts.BasePath = strings.TrimSuffix(opts.BasePath, "/")
	if opts.MaxBodyBytes <= 0 {
		opts.MaxBodyBytes = ops.UploadBodyBytes
	}
	if opts.ListTTL == 0 {
		opts.ListTTL = time.Minute
	}
	if opts.Logger == nil && a.Log != nil {
		opts.Logger = slog.New(sdkLogHandler{a.Log.Handler().WithAttrs([]slog.Attr{slog.String("component", "mcp")})})
	}
	h := &Handler{app: a, opts: opts, byName: map[string]*toolDef{}, servers: map[string]*sdk.Server{},
		origins: map[string]bool{}}
	for _, o := range opts.AllowedOrigins {
		if o = originOf(o); o != "" {
			h.origins[o] = true
		}
	}
	seen := map[string]bool{}
	for _, ts := range knownToolsets {
		seen[ts] = true
	}
	h.toolsets = append(h.toolsets, knownToolsets...)
	for _, op := range a.Table.Ops {
		td := &toolDef{op: op, tool: BuildTool(op)}
		h.tools = append(h.tools, td)
		h.byName[op.ID] = td
		if ts := toolsetOf(op); !seen[ts] {
			seen[ts] = true
			h.toolsets = append(h.toolsets, ts)
		}
	}
	h.sdk = sdk.NewStreamableHTTPHandler(h.serverFor, &sdk.StreamableHTTPOptions{
		Stateless:           true,
		Logger:              opts.Logger,
		MaxRequestBodyBytes: opts.MaxBodyBytes,
		// A 2026-07-28 call ends with its POST: stop work the client left.
		PropagateRequestCancellation: true,
		// DNS rebinding protection is ServeHTTP's (requests arriving on a
		// loopback address must carry a loopback Host): the same rule as the
		// SDK's, which also knows *.localhost, the hosts of sites served
		// side by side on one machine.
		DisableLocalhostProtection: true,
	})
	return h
}

// Mount mounts the MCP endpoints on the REST server with default options.
func Mount(s *routes.Server, a *app.App) *Handler {
	return MountWith(s, a, Options{})
}

// MountWith mounts the MCP endpoints with the given options: /mcp,
// /mcp/readonly, /mcp/x/:toolsets and /mcp/x/:toolsets/readonly, for POST
// (JSON-RPC), GET and DELETE (answered 405 by the stateless transport).
func MountWith(s *routes.Server, a *app.App, opts Options) *Handler {
	h := NewHandler(a, opts)
	base := h.opts.BasePath
	for _, full := range []string{"", "/full"} {
		for _, p := range []string{"", "/readonly", "/x/:toolsets", "/x/:toolsets/readonly"} {
			for _, m := range []string{http.MethodPost, http.MethodGet, http.MethodDelete} {
				s.Handle(m, base+full+p, h)
			}
		}
	}
	return h
}

// Toolsets returns every toolset name, known ones first.
func (h *Handler) Toolsets() []string { return slices.Clone(h.toolsets) }

// Tools returns the tool definitions of every operation, in table order.
func (h *Handler) Tools() []*sdk.Tool {
	out := make([]*sdk.Tool, len(h.tools))
	for i, t := range h.tools {
		out[i] = t.tool
	}
	return out
}

func toolsetOf(op *ops.Operation) string {
	if op.Toolset == "" {
		return "public"
	}
	return op.Toolset
}

// selection is which tools one request sees.
type selection struct {
	toolsets []string // sorted; nil means all
	readOnly bool
	// full lists output schemas too (/mcp/full…, X-MCP-Output-Schemas):
	// they are 60 % of the list's bytes, and without them the default
	// tools/list stays under 100 KB of an LLM client's context.
	full bool
}

func (s selection) key() string {
	k := "*"
	if s.toolsets != nil {
		k = "=" + strings.Join(s.toolsets, ",")
	}
	if s.readOnly {
		k += "|ro"
	}
	if s.full {
		k += "|full"
	}
	return k
}

func (s selection) includes(op *ops.Operation) bool {
	if s.readOnly && !op.ReadOnly() {
		return false
	}
	if s.toolsets == nil {
		// The site team's tools (toolset sites) are listed when asked for
		// (/mcp/x/sites, /mcp/full): everyone else gets 404 from them, and
		// the default list stays under 100 KB.
		return s.full || toolsetOf(op) != TeamToolset
	}
	return slices.Contains(s.toolsets, toolsetOf(op))
}

// TeamToolset is the site team's toolset, left out of the default list.
const TeamToolset = "sites"

type ctxKey int

const (
	keySelection ctxKey = iota
	keyPrincipal
)

// resourceMetadataURL is the OAuth protected resource metadata address of
// the request's site, announced in WWW-Authenticate.
func (h *Handler) resourceMetadataURL(ctx context.Context) string {
	if h.opts.ResourceMetadataURL != "" {
		return h.opts.ResourceMetadataURL
	}
	return h.app.Origin(ctx) + "/.well-known/oauth-protected-resource/mcp"
}

// originAllowed: a browser page of the request's own site, or one listed
// in AllowedOrigins.
func (h *Handler) originAllowed(ctx context.Context, origin string) bool {
	o := originOf(origin)
	return h.origins[o] || (o != "" && o == originOf(h.app.Origin(ctx)))
}

// serverFor returns the (cached) SDK server of the request's site and
// selection: its name, website and instructions are the site's.
func (h *Handler) serverFor(r *http.Request) *sdk.Server {
	sel, _ := r.Context().Value(keySelection).(selection)
	ctx := r.Context()
	site := h.app.Site(ctx)
	name := h.app.SiteName(ctx)
	k := site.Key + " " + site.Origin + " " + name + " " + sel.key()
	h.mu.Lock()
	defer h.mu.Unlock()
	if s, ok := h.servers[k]; ok {
		return s
	}
	if len(h.servers) >= 256 { // renamed sites leave stale entries
		clear(h.servers)
	}
	s := h.newServer(sel, name, site.Origin)
	h.servers[k] = s
	return s
}

func (h *Handler) newServer(sel selection, siteName, origin string) *sdk.Server {
	ttl := int(h.opts.ListTTL / time.Millisecond)
	s := sdk.NewServer(&sdk.Implementation{
		Name: "launchdir", Title: siteName, Version: kernel.Version, WebsiteURL: origin,
	}, &sdk.ServerOptions{
		Instructions:              h.instructions(sel, siteName),
		Logger:                    h.opts.Logger,
		SupportedProtocolVersions: ProtocolVersions,
		CompletionHandler:         h.complete,
		Capabilities: &sdk.ServerCapabilities{
			Tools:     &sdk.ToolCapabilities{},
			Resources: &sdk.ResourceCapabilities{},
			Prompts:   &sdk.PromptCapabilities{},
		},
		SetCacheable: func(_ context.Context, req sdk.Request, c *sdk.Cacheable) {
			if c.TTLMs == 0 {
				c.TTLMs = ttl
			}
			if c.CacheScope == "" {
				c.CacheScope = "public" // nothing listed depends on the caller
			}
		},
	})
	for _, t := range h.tools {
		if sel.includes(t.op) {
			tool := t.tool
			if !sel.full { // results stay structured; the schema is at /mcp/full
				c := *tool
				c.OutputSchema = nil
				tool = &c
			}
			s.AddTool(tool, h.callTool(t.op))
		}
	}
	h.addResources(s)
	h.addPrompts(s)
	return s
}

func (h *Handler) instructions(sel selection, siteName string) string {
	var b strings.Builder
	fmt.Fprintf(&b, "%s is a directory of startup product listings. Public tools read listings, categories, launches, leaderboards, founders, blog posts and awards without sign-in. ", siteName)
	b.WriteString("Signed-in tools (their descriptions say which scope they need) submit a product by its website URL, edit drafts, manage own listings, claims and orders; they need Authorization: Bearer <OAuth access token or API key> and otherwise answer HTTP 401 with a WWW-Authenticate challenge pointing at the OAuth metadata. ")
	b.WriteString("Typical flow: submit_listing, poll get_draft until status is ready, update_draft, submit_draft, then choose_free_listing or create_checkout (the user pays on the returned checkout_url themselves). ")
	b.WriteString("The billboard leaderboard is a paid ranking and must be presented as paid. There is no voting through this server. ")
	fmt.Fprintf(&b, "Toolsets: %s (select with the path %s/x/<a,b> or the X-MCP-Toolsets header; %s/readonly or X-MCP-Readonly: true shows read-only tools). ",
		strings.Join(h.toolsets, ", "), h.opts.BasePath, h.opts.BasePath)
	if sel.full {
		b.WriteString("Tools list their output schemas.")
	} else {
		fmt.Fprintf(&b, "Results are JSON objects (structuredContent); %s/full (before /x or /readonly) or X-MCP-Output-Schemas: true lists each tool's output schema.", h.opts.BasePath)
	}
	if sel.toolsets != nil || sel.readOnly {
		b.WriteString(" This endpoint shows")
		if sel.readOnly {
			b.WriteString(" read-only tools")
		} else {
			b.WriteString(" the tools")
		}
		if sel.toolsets != nil {
			fmt.Fprintf(&b, " of the toolsets %s", strings.Join(sel.toolsets, ", "))
		}
		b.WriteString(" only.")
	}
	return b.String()
}

// BuildTool describes one operation as an MCP tool.
func BuildTool(op *ops.Operation) *sdk.Tool {
	in := ops.JSONSchema(op.InputSchema())
	if op.Idem {
		props, _ := in["properties"].(map[string]any)
		if props == nil {
			props = map[string]any{}
			in["properties"] = props
		}
		props[IdempotencyKeyArg] = map[string]any{
			"type": "string", "minLength": 1, "maxLength": 255,
			"description": "Optional key (max 255 characters) making retries safe: a repeated call with the same key and arguments returns the first result instead of acting twice.",
		}
	}
	// The same schema as the REST response, self-contained ($defs).
	out := ops.Standalone(op.Output)
	readOnly := op.ReadOnly()
	ann := &sdk.ToolAnnotations{
		Title:          op.Summary,
		ReadOnlyHint:   readOnly,
		IdempotentHint: readOnly || op.Method == http.MethodPut || op.Method == http.MethodDelete || op.Method == http.MethodPatch,
		OpenWorldHint:  ptr(op.OpenWorld),
	}
	if !readOnly {
		ann.DestructiveHint = ptr(op.Destructive)
	}
	return &sdk.Tool{
		Name:         op.ID,
		Title:        op.Summary,
		Description:  describe(op),
		InputSchema:  in,
		OutputSchema: out,
		Annotations:  ann,
	}
}

func ptr[T any](v T) *T { return &v }

// describe writes a description a model can act on: what the tool does,
// whether it needs sign-in, and the bounds of its arguments.
func describe(op *ops.Operation) string {
	var b strings.Builder
	b.WriteString(sentence(op.Summary))
	if op.Description != "" {
		b.WriteString(" ")
		// The REST header is the idempotency_key argument here.
		b.WriteString(strings.ReplaceAll(sentence(op.Description), "Idempotency-Key", IdempotencyKeyArg))
	}
	if op.Scope != "" {
		fmt.Fprintf(&b, "\nSigned in: needs scope %s (OAuth sign-in or an API key as Authorization: Bearer).", op.Scope)
	} else {
		b.WriteString("\nPublic: no sign-in needed.")
	}
	if op.OpenWorld {
		b.WriteString("\nReaches the open web: the service fetches pages of the product's website (respecting robots.txt).")
	}
	if op.Destructive {
		b.WriteString("\nDestructive: confirm with the user before calling.")
	}
	if op.Idem {
		fmt.Fprintf(&b, "\nSafe to retry with the same %s.", IdempotencyKeyArg)
	}
	if hints := argHints(op.InputSchema()); hints != "" {
		b.WriteString("\nArguments: ")
		b.WriteString(hints)
	}
	return b.String()
}

func sentence(s string) string {
	s = strings.TrimSpace(s)
	if s == "" || strings.HasSuffix(s, ".") || strings.HasSuffix(s, "?") || strings.HasSuffix(s, "!") {
		return s
	}
	return s + "."
}

// argHints summarises each top-level argument's type and bounds.
func argHints(s *ops.Schema) string {
	var parts []string
	for _, p := range s.Props {
		var attrs []string
		if p.Required {
			attrs = append(attrs, "required")
		}
		attrs = append(attrs, bounds(p.Schema)...)
		parts = append(parts, p.Name+" ("+strings.Join(attrs, ", ")+")")
	}
	return strings.Join(parts, "; ")
}

func bounds(s *ops.Schema) []string {
	var out []string
	t := s.Type
	if s.Format != "" {
		t += " " + s.Format
	}
	if s.Nullable {
		t += " or null"
	}
	out = append(out, t)
	switch {
	case len(s.Enum) > 0:
		out = append(out, "one of "+strings.Join(s.Enum, ", "))
	case s.MaxLength > 0:
		out = append(out, fmt.Sprintf("max %d chars", s.MaxLength))
	}
	switch {
	case s.Min != nil && s.Max != nil:
		out = append(out, fmt.Sprintf("%d..%d", *s.Min, *s.Max))
	case s.Min != nil:
		out = append(out, fmt.Sprintf(">= %d", *s.Min))
	case s.Max != nil:
		out = append(out, fmt.Sprintf("<= %d", *s.Max))
	}
	if s.Type == "array" {
		if s.MinItems > 0 {
			out = append(out, fmt.Sprintf("%d..%d items", s.MinItems, s.MaxItems))
		} else if s.MaxItems > 0 {
			out = append(out, fmt.Sprintf("max %d items", s.MaxItems))
		}
	}
	if s.Default != nil {
		out = append(out, fmt.Sprintf("default %v", s.Default))
	}
	return out
}

// callTool runs one operation for tools/call: decode the arguments, run the
// executor (scope check, validation, idempotency, handler) and turn the
// result or problem into a tool result.
func (h *Handler) callTool(op *ops.Operation) sdk.ToolHandler {
	return func(ctx context.Context, req *sdk.CallToolRequest) (*sdk.CallToolResult, error) {
		routes.SetRoute(ctx, op.ID) // the metrics' route of this tools/call
		p, err := h.principal(ctx, req.Extra)
		if err != nil {
			return errorResult(err), nil
		}
		args, key, err := decodeArgs(op, req.Params.Arguments)
		if err != nil {
			return errorResult(err), nil
		}
		var progress func(done, total float64, msg string)
		var finished atomic.Bool
		if tok := req.Params.GetProgressToken(); tok != nil && req.Session != nil {
			var mu sync.Mutex
			last := -1.0
			progress = func(done, total float64, msg string) {
				mu.Lock()
				defer mu.Unlock()
				if finished.Load() || done <= last { // progress must increase
					return
				}
				last = done
				if err := req.Session.NotifyProgress(ctx, &sdk.ProgressNotificationParams{
					ProgressToken: tok, Progress: done, Total: total, Message: msg,
				}); err != nil {
					h.app.Log.Debug("mcp progress", "err", err)
				}
			}
		}
		res, err := h.app.Exec.Call(ctx, op, p, args, key, progress)
		finished.Store(true)
		if err != nil {
			return errorResult(err), nil
		}
		if res.Status >= 400 { // a replayed failure
			return &sdk.CallToolResult{IsError: true, Content: []sdk.Content{&sdk.TextContent{Text: string(res.Body)}}}, nil
		}
		body := res.Body
		if len(body) == 0 || body[0] != '{' {
			body, _ = json.Marshal(map[string]json.RawMessage{"result": body})
		}
		return &sdk.CallToolResult{
			Content:           []sdk.Content{&sdk.TextContent{Text: string(body)}},
			StructuredContent: json.RawMessage(body),
		}, nil
	}
}

// errorResult is a tool error carrying the same problem document as REST.
func errorResult(err error) *sdk.CallToolResult {
	e := ops.AsError(err)
	return &sdk.CallToolResult{IsError: true, Content: []sdk.Content{&sdk.TextContent{Text: string(ops.ProblemBody(e))}}}
}

// decodeArgs turns raw tool arguments into the executor's argument map,
// taking out the idempotency key.
func decodeArgs(op *ops.Operation, raw json.RawMessage) (map[string]any, string, error) {
	args := map[string]any{}
	if t := strings.TrimSpace(string(raw)); t != "" && t != "null" {
		dec := json.NewDecoder(strings.NewReader(t))
		dec.UseNumber()
		var v any
		if err := dec.Decode(&v); err != nil {
			return nil, "", ops.Invalid("arguments", "are not valid JSON")
		}
		m, ok := v.(map[string]any)
		if !ok {
			return nil, "", ops.Invalid("arguments", "must be a JSON object")
		}
		args = m
	}
	var key string
	if op.Idem {
		if v, ok := args[IdempotencyKeyArg]; ok {
			delete(args, IdempotencyKeyArg)
			s, isStr := v.(string)
			switch {
			case !isStr:
				return nil, "", ops.Invalid(IdempotencyKeyArg, "must be a string")
			case s == "":
				return nil, "", ops.Invalid(IdempotencyKeyArg, "must not be empty")
			case len(s) > 255:
				return nil, "", ops.Invalid(IdempotencyKeyArg, "must be at most 255 characters")
			}
			key = s
		}
	}
	return args, key, nil
}

// principal is the caller authenticated by the HTTP layer; outside it (other
// transports) the request headers are authenticated here.
func (h *Handler) principal(ctx context.Context, extra *sdk.RequestExtra) (*ops.Principal, error) {
	if v := ctx.Value(keyPrincipal); v != nil {
		p, _ := v.(*ops.Principal)
		return p, nil
	}
	if extra == nil || extra.Header == nil {
		return nil, nil
	}
	return h.app.People.Authenticate(ctx, extra.Header.Get("Authorization"))
}

// sdkLogHandler keeps SDK records of warning level and above and logs them
// as warnings: its "errors" are mostly malformed client requests.
type sdkLogHandler struct{ slog.Handler }

func (h sdkLogHandler) Enabled(ctx context.Context, l slog.Level) bool {
	return l >= slog.LevelWarn && h.Handler.Enabled(ctx, slog.LevelWarn)
}

func (h sdkLogHandler) Handle(ctx context.Context, r slog.Record) error {
	r.Level = slog.LevelWarn
	return h.Handler.Handle(ctx, r)
}

func (h sdkLogHandler) WithAttrs(as []slog.Attr) slog.Handler {
	return sdkLogHandler{h.Handler.WithAttrs(as)}
}

func (h sdkLogHandler) WithGroup(n string) slog.Handler { return sdkLogHandler{h.Handler.WithGroup(n)} }

// sortedUnique sorts and de-duplicates names.
func sortedUnique(names []string) []string {
	sort.Strings(names)
	return slices.Compact(names)
}
