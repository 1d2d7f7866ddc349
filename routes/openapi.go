package routes

import (
	"encoding/json"
	"net/http"
	"regexp"
	"strings"

	"launchdir/app"
	"launchdir/ops"

	"github.com/julienschmidt/httprouter"
)

var pathParam = regexp.MustCompile(`:([a-z_]+)`)

// OpenAPI builds the OpenAPI 3.1 document from the operations table.
func OpenAPI(a *app.App) ([]byte, error) {
	paths := map[string]map[string]any{}
	for _, op := range a.Table.Ops {
		p := pathParam.ReplaceAllString(op.Path, "{$1}")
		if paths[p] == nil {
			paths[p] = map[string]any{}
		}
		paths[p][strings.ToLower(op.Method)] = operationDoc(op)
	}
	doc := map[string]any{
		"openapi":           "3.1.0",
		"jsonSchemaDialect": "https://json-schema.org/draft/2020-12/schema",
		"info": map[string]any{
			"title":       "launchdir API",
			"version":     app.Version,
			"description": "Startup listing directory: public reads, signed-in writes, drafts from a crawl with evidence, orders with hosted checkout. Every operation is also an MCP tool of the same name at " + a.MCPURL() + ".",
		},
		"servers": []any{map[string]any{"url": a.APIURL()}},
		"paths":   paths,
		"components": map[string]any{
			"securitySchemes": map[string]any{
				"bearer": map[string]any{"type": "http", "scheme": "bearer",
					"description": "An API key or an OAuth 2.1 access token. Scopes: account:read, listings:write, orders:write."},
			},
			"schemas": map[string]any{"Problem": problemSchema()},
			"responses": map[string]any{
				"Problem": map[string]any{"description": "RFC 9457 problem", "content": map[string]any{
					"application/problem+json": map[string]any{"schema": map[string]any{"$ref": "#/components/schemas/Problem"}}}},
			},
		},
	}
	return json.MarshalIndent(doc, "", "  ")
}

func operationDoc(op *ops.Operation) map[string]any {
	d := map[string]any{
		"operationId": op.ID,
		"summary":     op.Summary,
		"tags":        []string{op.Toolset},
	}
	if op.Description != "" {
		d["description"] = op.Description
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
	if len(params) > 0 {
		d["parameters"] = params
	}
	if op.Body != nil {
		d["requestBody"] = map[string]any{"required": true, "content": map[string]any{
			"application/json": map[string]any{"schema": ops.JSONSchema(op.Body)}}}
	}
	out := map[string]any{"type": "object"}
	if op.Output != nil {
		out = ops.JSONSchema(op.Output)
	}
	responses := map[string]any{
		itoa(op.SuccessStatus()): map[string]any{"description": "Success", "content": map[string]any{
			"application/json": map[string]any{"schema": out}}},
		"400": ref(), "429": ref(),
	}
	if op.Scope != "" {
		d["security"] = []any{map[string]any{"bearer": []string{op.Scope}}}
		d["x-scope"] = op.Scope
		responses["401"], responses["403"] = ref(), ref()
	} else {
		d["security"] = []any{map[string]any{}, map[string]any{"bearer": []string{}}}
	}
	if strings.Contains(op.Path, ":") {
		responses["404"] = ref()
	}
	if op.Idem {
		responses["409"], responses["422"] = ref(), ref()
	}
	if op.Method == http.MethodGet {
		responses["304"] = map[string]any{"description": "Not modified (If-None-Match matched the ETag)"}
	}
	d["responses"] = responses
	return d
}

func ref() map[string]any { return map[string]any{"$ref": "#/components/responses/Problem"} }

func itoa(n int) string { b, _ := json.Marshal(n); return string(b) }

func problemSchema() map[string]any {
	return map[string]any{
		"type":     "object",
		"required": []string{"type", "title", "status", "code"},
		"properties": map[string]any{
			"type": map[string]any{"type": "string"}, "title": map[string]any{"type": "string"},
			"status": map[string]any{"type": "integer"}, "detail": map[string]any{"type": "string"},
			"instance": map[string]any{"type": "string"}, "code": map[string]any{"type": "string"},
			"required_scope": map[string]any{"type": "string"},
			"errors": map[string]any{"type": "array", "items": map[string]any{"type": "object",
				"properties": map[string]any{"field": map[string]any{"type": "string"}, "message": map[string]any{"type": "string"}}}},
		},
	}
}

func (s *Server) serveOpenAPI(w http.ResponseWriter, r *http.Request, _ httprouter.Params) {
	writeJSON(w, r, http.StatusOK, s.openapi, true, true)
}
