package routes

import (
	"context"
	_ "embed"
	"encoding/json"
	"net/http"
	"reflect"
	"regexp"
	"strconv"
	"strings"

	"launchdir/app"
	"launchdir/app/kernel"
	"launchdir/ops"

	"github.com/julienschmidt/httprouter"
)

var pathParam = regexp.MustCompile(`:([a-z_]+)`)

// examples.json holds a success body per public operation, taken from the
// demo directory (regenerate: go test ./routes -run TestOpenAPIExamples -update).
//
//go:embed examples.json
var examplesJSON []byte

var examples = func() map[string]json.RawMessage {
	m := map[string]json.RawMessage{}
	if err := json.Unmarshal(examplesJSON, &m); err != nil {
		panic("routes/examples.json: " + err.Error())
	}
	return m
}()

// OpenAPIPath turns an httprouter path into an OpenAPI path template.
func OpenAPIPath(p string) string { return pathParam.ReplaceAllString(p, "{$1}") }

// tagInfo declares the document's tags, in order.
var tagInfo = []struct{ name, desc string }{
	{"public", "Public reads: listings, categories, launches, leaderboards, founders, blog, awards, badges. No sign-in needed."},
	{"account", "The signed-in user: account, founder interview."},
	{"drafts", "Submit a product by URL; the crawler drafts its profile with evidence; edit and submit."},
	{"listings", "Your listings: edit, updates, milestones, story, free launch."},
	{"claims", "Claim an existing listing by DNS, meta tag, file or email."},
	{"orders", "Products, quotes and hosted checkout."},
	{"comments", "Questions and answers on listings: comments, maker replies, the pinned maker's comment, notification settings."},
	{"webhooks", "Outbound webhooks (Standard Webhooks): endpoints, events, deliveries, redelivery and secret rotation."},
	{"sites", "The directories this server runs (site team only): host names, name, look, categories, calendar, prices, and which listings each shows."},
}

// OpenAPI builds the OpenAPI 3.1 document from the operations table. Every
// response schema is generated from the operation's Go output type.
func OpenAPI(ctx context.Context, a *app.App) ([]byte, error) {
	refl := ops.NewReflector("#/components/schemas/")
	refl.Schema(reflect.TypeFor[ops.Problem]())
	paths := map[string]map[string]any{}
	for _, op := range a.Table.Ops {
		p := OpenAPIPath(op.Path)
		if paths[p] == nil {
			paths[p] = map[string]any{}
		}
		paths[p][strings.ToLower(op.Method)] = operationDoc(op, refl)
	}
	schemas := map[string]any{}
	for k, v := range refl.Defs {
		schemas[k] = v
	}
	var tags []any
	for _, t := range tagInfo {
		tags = append(tags, map[string]any{"name": t.name, "description": t.desc})
	}
	doc := map[string]any{
		"openapi":           "3.1.0",
		"jsonSchemaDialect": "https://json-schema.org/draft/2020-12/schema",
		"info": map[string]any{
			"title":       "launchdir API",
			"version":     kernel.Version,
			"description": "Startup listing directory: public reads, signed-in writes, drafts from a crawl with evidence, orders with hosted checkout. Every operation is also an MCP tool of the same name at " + a.MCPURL(ctx) + ". Errors are RFC 9457 problems (application/problem+json) with a stable `code`. " + corsDoc,
			"contact":     map[string]any{"name": a.SiteName(ctx), "url": a.Origin(ctx) + "/"},
			// OpenAPI 3.1: an SPDX identifier, exclusive with url (LICENSE).
			"license": map[string]any{"name": "Apache-2.0", "identifier": "Apache-2.0"},
		},
		"servers": []any{map[string]any{"url": a.APIURL(ctx), "description": "This server"}},
		"tags":    tags,
		"paths":   paths,
		"components": map[string]any{
			"securitySchemes": securitySchemes(ctx, a),
			"schemas":         schemas,
			"responses":       problemResponses(),
			"headers":         headerDocs(),
		},
	}
	return json.MarshalIndent(doc, "", "  ")
}

func securitySchemes(ctx context.Context, a *app.App) map[string]any {
	scopes := map[string]any{
		ops.ScopeAccountRead:   "Read your account, drafts, listings, claims and orders.",
		ops.ScopeListingsWrite: "Submit and edit drafts and listings, claim listings.",
		ops.ScopeOrdersWrite:   "Quote orders and create checkouts.",
	}
	return map[string]any{
		"bearer": map[string]any{"type": "http", "scheme": "bearer",
			"description": "An API key (ldk_…, `launchdir apikey create`) or an OAuth 2.1 access token. Scopes: account:read, listings:write, orders:write."},
		"oauth2": map[string]any{"type": "oauth2",
			"description": "OAuth 2.1 authorization code with PKCE (S256). Clients register dynamically at " + a.Origin(ctx) + "/oauth/register; metadata at " + a.Origin(ctx) + "/.well-known/oauth-authorization-server.",
			"flows": map[string]any{"authorizationCode": map[string]any{
				"authorizationUrl": a.Origin(ctx) + "/oauth/authorize",
				"tokenUrl":         a.Origin(ctx) + "/oauth/token",
				"refreshUrl":       a.Origin(ctx) + "/oauth/token",
				"scopes":           scopes,
			}}},
	}
}

// headerDocs are the response headers the server sends.
func headerDocs() map[string]any {
	h := func(desc string, schema map[string]any) map[string]any {
		return map[string]any{"description": desc, "schema": schema}
	}
	always := func(desc string, schema map[string]any) map[string]any { // sent on every response it is listed on
		return map[string]any{"description": desc, "schema": schema, "required": true}
	}
	str, integer := map[string]any{"type": "string"}, map[string]any{"type": "integer", "minimum": 0}
	return map[string]any{
		"ETag":                always("Validator of the body (weak, W/\"…\", when the body is sent compressed); send it back in If-None-Match to get 304.", str),
		"Cache-Control":       always("public, max-age=30 on anonymous public reads; private, no-cache on signed-in reads; no-store otherwise.", str),
		"RateLimit-Limit":     h("Requests allowed in the current window (burst), per client address.", integer),
		"RateLimit-Remaining": h("Requests left in the current window.", integer),
		"RateLimit-Reset":     h("Seconds until the window is full again.", integer),
		"RateLimit-Policy":    h("The limit policy, e.g. 40;w=2.", str),
		"X-Request-Id":        h("This request's id (yours when you sent a short X-Request-Id of letters, digits and -_.:); problem bodies repeat it as request_id and the server's access log carries it.", str),
		"Retry-After":         always("Seconds to wait before retrying.", integer),
		"Idempotent-Replayed": h("true when this is the stored response of an earlier request with the same Idempotency-Key.", map[string]any{"type": "string", "enum": []string{"true"}}),
		"WWW-Authenticate":    always("Bearer challenge (RFC 6750): error=invalid_token for a bad credential, error=insufficient_scope with the scope needed.", str),
		"Location": map[string]any{"description": "Where the created thing can be read (an absolute path below the server).", "required": true,
			"schema": map[string]any{"type": "string", "format": "uri-reference"}},
		"Allow": always("The methods this path takes.", str),
	}
}

func hdr(name string) map[string]any { return map[string]any{"$ref": "#/components/headers/" + name} }

func rateHeaders() map[string]any {
	return map[string]any{"RateLimit-Limit": hdr("RateLimit-Limit"), "RateLimit-Remaining": hdr("RateLimit-Remaining"),
		"RateLimit-Reset": hdr("RateLimit-Reset"), "RateLimit-Policy": hdr("RateLimit-Policy"), "X-Request-Id": hdr("X-Request-Id")}
}

// problemStatuses: response name, HTTP status, description, extra headers.
var problemStatuses = []struct {
	name, status, desc string
	headers            []string
}{
	{"ReadReplica", "307", "Sent to a read replica started with -replica-writes redirect (see the README, read replicas; by default a replica forwards writes to the primary instead): repeat the request, same method and body, at Location on the primary (code unavailable, extra.primary).", []string{"Location"}},
	{"BadRequest", "400", "Invalid input (code invalid): errors lists each bad field.", nil},
	{"Unauthorized", "401", "No or bad credentials (code unauthorized). Public operations answer this too when a bad credential is sent.", []string{"WWW-Authenticate"}},
	{"Forbidden", "403", "The credential lacks the scope (code forbidden, required_scope, and a WWW-Authenticate insufficient_scope challenge).", nil},
	{"NotFound", "404", "Not found (code not_found); another user's thing is not found too.", nil},
	{"MethodNotAllowed", "405", "Another method on this path (code method_not_allowed).", []string{"Allow"}},
	{"Conflict", "409", "Conflict (code conflict): already exists, or a request with this Idempotency-Key is still running.", nil},
	{"TooLarge", "413", "The request body is over 1 MiB (code too_large).", nil},
	{"UnsupportedMediaType", "415", "The body is not application/json (code unsupported_media_type).", nil},
	{"IdempotencyMismatch", "422", "The Idempotency-Key was used with another request (code idempotency_mismatch).", nil},
	{"RateLimited", "429", "Too many requests (code rate_limited).", []string{"Retry-After"}},
	{"UnknownSite", "421", "No directory is served at the request's host name (code unknown_site); see the README, several sites.", nil},
	{"ServerError", "default", "Server error (code internal 500, or unavailable 503: with Retry-After when the server is at capacity and the request waited its turn in vain).", nil},
}

func problemResponses() map[string]any {
	out := map[string]any{}
	for _, p := range problemStatuses {
		headers := rateHeaders()
		for _, h := range p.headers {
			headers[h] = hdr(h)
		}
		if p.status == "307" { // not the created-thing Location of a 201
			headers["Location"] = map[string]any{"description": "The same URL on the primary.", "schema": map[string]any{"type": "string", "format": "uri"}}
		}
		headers["Cache-Control"] = hdr("Cache-Control")
		out[p.name] = map[string]any{"description": p.desc, "headers": headers, "content": map[string]any{
			"application/problem+json": map[string]any{"schema": map[string]any{"$ref": "#/components/schemas/Problem"}}}}
	}
	return out
}

func problemRef(status string) map[string]any {
	for _, p := range problemStatuses {
		if p.status == status {
			return map[string]any{"$ref": "#/components/responses/" + p.name}
		}
	}
	panic("no problem response " + status)
}

func operationDoc(op *ops.Operation, refl *ops.Reflector) map[string]any {
	d := map[string]any{
		"operationId": op.ID,
		"summary":     op.Summary,
		"description": op.Description,
		"tags":        []string{op.TagName()},
	}
	var params []any
	for _, p := range op.AllParams() {
		params = append(params, map[string]any{
			"name": p.Name, "in": p.In, "required": p.Required || p.In == "path",
			"schema": ops.JSONSchema(p.Schema), "description": p.Schema.Description,
		})
	}
	if op.Idem {
		params = append(params, map[string]any{"name": "Idempotency-Key", "in": "header", "required": false,
			"description": "Makes retries safe: the first response is stored for 24 h and replayed for the same key and body.",
			"schema":      map[string]any{"type": "string", "maxLength": 255}})
	}
	if op.Method == http.MethodGet {
		params = append(params, map[string]any{"name": "If-None-Match", "in": "header", "required": false,
			"description": "An ETag from an earlier response: 304 when the body is unchanged.",
			"schema":      map[string]any{"type": "string"}})
	}
	if len(params) > 0 {
		d["parameters"] = params
	}
	if op.Body != nil {
		content := map[string]any{"application/json": map[string]any{"schema": ops.JSONSchema(op.Body)}}
		if op.Upload != "" {
			content["multipart/form-data"] = map[string]any{"schema": uploadSchema(op)}
		}
		d["requestBody"] = map[string]any{"required": true, "content": content}
	}
	d["responses"] = responsesDoc(op, refl)
	if op.Scope != "" {
		// Scopes are listed for oauth2 only (spectral:oas wants scopes of
		// oauth2 schemes); x-scope and the description name it for API keys.
		d["security"] = []any{map[string]any{"bearer": []string{}}, map[string]any{"oauth2": []string{op.Scope}}}
		d["description"] = op.Description + " Needs scope " + op.Scope + " (API key or OAuth token)."
		d["x-scope"] = op.Scope
	} else {
		d["security"] = []any{map[string]any{}, map[string]any{"bearer": []string{}}, map[string]any{"oauth2": []string{}}}
	}
	return d
}

func responsesDoc(op *ops.Operation, refl *ops.Reflector) map[string]any {
	headers := rateHeaders()
	headers["Cache-Control"] = hdr("Cache-Control")
	if op.Method == http.MethodGet {
		headers["ETag"] = hdr("ETag")
	}
	if op.Idem {
		headers["Idempotent-Replayed"] = hdr("Idempotent-Replayed")
	}
	if op.Location != "" {
		headers["Location"] = map[string]any{"$ref": "#/components/headers/Location", "description": "Where the created thing can be read: /api/v1" + op.Location + "."}
	}
	media := map[string]any{"schema": refl.Schema(op.Output)}
	if ex, ok := examples[op.ID]; ok {
		media["example"] = ex
	}
	success := map[string]any{"description": successText(op), "headers": headers, "content": map[string]any{"application/json": media}}
	r := map[string]any{strconv.Itoa(op.SuccessStatus()): success}
	for _, s := range []string{"400", "401", "404", "405", "421", "429", "default"} {
		r[s] = problemRef(s)
	}
	if op.Scope != "" {
		r["403"] = problemRef("403")
	}
	if op.Method != http.MethodGet {
		r["409"] = problemRef("409")
		r["413"], r["415"] = problemRef("413"), problemRef("415")
		r["307"] = problemRef("307")
	}
	if op.Idem {
		r["422"] = problemRef("422")
	}
	if op.Method == http.MethodGet {
		r["304"] = map[string]any{"description": "Not modified (If-None-Match matched the ETag)",
			"headers": map[string]any{"ETag": hdr("ETag"), "Cache-Control": hdr("Cache-Control")}}
	}
	return r
}

func successText(op *ops.Operation) string {
	if op.SuccessStatus() == http.StatusCreated {
		return "Created"
	}
	return "Success"
}

// OpenAPIDocument is the main site's document.
func (s *Server) OpenAPIDocument() []byte {
	doc, _ := s.siteOpenAPI(context.Background())
	return doc
}

// siteOpenAPI is the document of ctx's site (its servers entry, issuer and
// names are that site's), built once per site and origin.
func (s *Server) siteOpenAPI(ctx context.Context) ([]byte, error) {
	site := s.App.Site(ctx)
	key := site.Key + " " + site.Origin
	if doc, ok := s.openapi.Load(key); ok {
		return doc.([]byte), nil
	}
	b, err := OpenAPI(ctx, s.App)
	if err != nil {
		return nil, err
	}
	doc, _ := s.openapi.LoadOrStore(key, b)
	return doc.([]byte), nil
}

func (s *Server) serveOpenAPI(w http.ResponseWriter, r *http.Request, _ httprouter.Params) {
	doc, err := s.siteOpenAPI(r.Context())
	if err != nil {
		writeProblem(w, r, err)
		return
	}
	writeJSON(w, r, http.StatusOK, doc, "", true, true)
}

// uploadSchema is the multipart form of an upload operation: the file part
// (which fills op.Upload) and the body's other string properties.
func uploadSchema(op *ops.Operation) map[string]any {
	props := map[string]any{"file": map[string]any{"type": "string", "format": "binary",
		"description": "The image file (PNG, JPEG, GIF or WebP, at most 5 MiB)."}}
	for _, p := range op.Body.Props {
		if p.Name != op.Upload && p.Schema.Type == "string" {
			props[p.Name] = ops.JSONSchema(p.Schema)
		}
	}
	return map[string]any{"type": "object", "properties": props}
}
