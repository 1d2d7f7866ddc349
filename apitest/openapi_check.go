package apitest

import (
	"bytes"
	"encoding/json"
	"fmt"
	"net/http"
	"os"
	"regexp"
	"sort"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"

	"github.com/santhosh-tekuri/jsonschema/v6"
)

// Every REST response a test gets through Env.Do is checked against the
// served OpenAPI document: the status must be documented for the
// operation, the body must validate against its schema (formats
// asserted), and required response headers must be present. The first
// mismatch fails the test naming the operation and the JSON path.

// Validated counts responses checked against the document (all tests of
// the process); APITEST_VALIDATED_FILE, when set, receives the count.
var Validated atomic.Int64

const docURL = "https://launchdir.test/openapi.json"

// docChecker validates responses against one OpenAPI document.
type docChecker struct {
	doc    map[string]any
	routes []docRoute
	mu     sync.Mutex
	comp   *jsonschema.Compiler
	cache  map[string]*jsonschema.Schema
}

type docRoute struct {
	re      *regexp.Regexp
	path    string // OpenAPI path template
	methods map[string]string
}

var (
	checkerOnce sync.Once
	checker     *docChecker
	checkerErr  error
)

// documentChecker builds the checker once per test process: the document
// is the same for every environment but for its addresses.
func documentChecker(doc []byte) (*docChecker, error) {
	checkerOnce.Do(func() { checker, checkerErr = newDocChecker(doc) })
	return checker, checkerErr
}

func newDocChecker(raw []byte) (*docChecker, error) {
	doc, err := jsonschema.UnmarshalJSON(bytes.NewReader(raw))
	if err != nil {
		return nil, err
	}
	c := jsonschema.NewCompiler()
	c.DefaultDraft(jsonschema.Draft2020)
	c.AssertFormat()
	if err := c.AddResource(docURL, doc); err != nil {
		return nil, err
	}
	m := doc.(map[string]any)
	dc := &docChecker{doc: m, comp: c, cache: map[string]*jsonschema.Schema{}}
	paths, _ := m["paths"].(map[string]any)
	keys := make([]string, 0, len(paths))
	for p := range paths {
		keys = append(keys, p)
	}
	sort.Strings(keys)
	for _, p := range keys {
		re := regexp.MustCompile("^" + regexp.MustCompile(`\\\{[a-z_]+\\\}`).ReplaceAllString(regexp.QuoteMeta(p), `[^/]+`) + "$")
		r := docRoute{re: re, path: p, methods: map[string]string{}}
		for method, v := range paths[p].(map[string]any) {
			r.methods[strings.ToUpper(method)], _ = v.(map[string]any)["operationId"].(string)
		}
		dc.routes = append(dc.routes, r)
	}
	return dc, nil
}

func (dc *docChecker) schema(ptr string) (*jsonschema.Schema, error) {
	dc.mu.Lock()
	defer dc.mu.Unlock()
	if s, ok := dc.cache[ptr]; ok {
		return s, nil
	}
	s, err := dc.comp.Compile(docURL + "#" + ptr)
	if err != nil {
		return nil, err
	}
	dc.cache[ptr] = s
	return s, nil
}

func escPtr(s string) string { return strings.ReplaceAll(strings.ReplaceAll(s, "~", "~0"), "/", "~1") }

// check returns "" when the response matches the document, or what is wrong.
func (dc *docChecker) check(method, path string, r *Response) string {
	head := method == http.MethodHead
	if head {
		method = http.MethodGet
	}
	var route *docRoute
	for i := range dc.routes {
		if dc.routes[i].re.MatchString(path) {
			route = &dc.routes[i]
			break
		}
	}
	var opID, base string
	var responses map[string]any
	switch {
	case route == nil:
		return dc.checkProblem("no operation", r, http.StatusNotFound)
	case route.methods[method] == "":
		return dc.checkProblem(method+" "+route.path, r, http.StatusMethodNotAllowed)
	default:
		opID = route.methods[method]
		base = "/paths/" + escPtr(route.path) + "/" + strings.ToLower(method) + "/responses"
		op := dc.doc["paths"].(map[string]any)[route.path].(map[string]any)[strings.ToLower(method)].(map[string]any)
		responses = op["responses"].(map[string]any)
	}
	key := strconv.Itoa(r.Status)
	resp, ok := responses[key].(map[string]any)
	if !ok && r.Status >= 500 {
		key, resp, ok = "default", responses["default"].(map[string]any), true
	}
	if !ok {
		return fmt.Sprintf("operation %s: status %d is not documented", opID, r.Status)
	}
	ptr := base + "/" + escPtr(key)
	if ref, isRef := resp["$ref"].(string); isRef {
		ptr = strings.TrimPrefix(ref, "#")
		name := ptr[strings.LastIndexByte(ptr, '/')+1:]
		resp = dc.doc["components"].(map[string]any)["responses"].(map[string]any)[name].(map[string]any)
	}
	if msg := checkHeaders(dc.doc, resp, r); msg != "" {
		return fmt.Sprintf("operation %s status %d: %s", opID, r.Status, msg)
	}
	content, _ := resp["content"].(map[string]any)
	if len(content) == 0 || head && r.Status < 300 {
		return ""
	}
	var media string
	for m := range content {
		media = m
	}
	if ct := r.Header.Get("Content-Type"); !strings.HasPrefix(ct, media) {
		return fmt.Sprintf("operation %s status %d: Content-Type %q, document says %s", opID, r.Status, ct, media)
	}
	return dc.validate(ptr+"/content/"+escPtr(media)+"/schema", "operation "+opID, r)
}

func (dc *docChecker) checkProblem(what string, r *Response, want int) string {
	if r.Status != want {
		return fmt.Sprintf("%s: status %d (only %d is expected)", what, r.Status, want)
	}
	return dc.validate("/components/schemas/Problem", what, r)
}

func (dc *docChecker) validate(ptr, what string, r *Response) string {
	s, err := dc.schema(ptr)
	if err != nil {
		return fmt.Sprintf("%s: compile %s: %v", what, ptr, err)
	}
	body, err := jsonschema.UnmarshalJSON(bytes.NewReader(r.Body))
	if err != nil {
		return fmt.Sprintf("%s status %d: body is not JSON: %v", what, r.Status, err)
	}
	if err := s.Validate(body); err != nil {
		return fmt.Sprintf("%s status %d: body does not match the document: %s", what, r.Status, firstError(err))
	}
	Validated.Add(1)
	return ""
}

// firstError names the failing JSON paths and why (the leaves of the
// validator's output tree, at most four).
func firstError(err error) string {
	ve, ok := err.(*jsonschema.ValidationError)
	if !ok {
		return err.Error()
	}
	var msgs []string
	var walk func(u *jsonschema.OutputUnit)
	walk = func(u *jsonschema.OutputUnit) {
		if len(u.Errors) == 0 && u.Error != nil {
			msgs = append(msgs, fmt.Sprintf("at %q: %s", "$"+strings.ReplaceAll(u.InstanceLocation, "/", "."), u.Error.String()))
		}
		for i := range u.Errors {
			walk(&u.Errors[i])
		}
	}
	walk(ve.DetailedOutput())
	if len(msgs) == 0 {
		return ve.Error()
	}
	if len(msgs) > 4 {
		msgs = msgs[:4]
	}
	return strings.Join(msgs, "; ")
}

// checkHeaders checks headers the document marks required are present.
func checkHeaders(doc map[string]any, resp map[string]any, r *Response) string {
	hs, _ := resp["headers"].(map[string]any)
	for name, v := range hs {
		h := v.(map[string]any)
		if ref, ok := h["$ref"].(string); ok {
			h = doc["components"].(map[string]any)["headers"].(map[string]any)[ref[strings.LastIndexByte(ref, '/')+1:]].(map[string]any)
		}
		if req, _ := h["required"].(bool); req && r.Header.Get(name) == "" {
			return "required header " + name + " missing"
		}
	}
	return ""
}

// checkResponse validates one response of Env.Do.
func (e *Env) checkResponse(method, url string, r *Response) {
	path := strings.TrimPrefix(url, e.URL)
	if i := strings.IndexAny(path, "?#"); i >= 0 {
		path = path[:i]
	}
	api, ok := strings.CutPrefix(path, "/api/v1")
	if !ok || api == "/openapi.json" || r.Status == 0 {
		return
	}
	dc, err := documentChecker(e.Routes.OpenAPIDocument())
	if err != nil {
		e.T.Errorf("openapi checker: %v", err)
		return
	}
	if msg := dc.check(method, api, r); msg != "" {
		e.T.Errorf("openapi: %s %s: %s", method, path, msg)
	}
}

func writeValidatedCount() {
	if f := os.Getenv("APITEST_VALIDATED_FILE"); f != "" {
		fh, err := os.OpenFile(f, os.O_APPEND|os.O_CREATE|os.O_WRONLY, 0o644)
		if err == nil {
			fmt.Fprintln(fh, Validated.Swap(0))
			fh.Close()
		}
	}
}

// ValidateJSON validates a JSON body against a standalone JSON Schema
// (2020-12, formats asserted); the error names the failing JSON path. The
// MCP tests use it for structuredContent against each tool's outputSchema.
func ValidateJSON(schema any, body []byte) error {
	raw, err := json.Marshal(schema)
	if err != nil {
		return err
	}
	doc, err := jsonschema.UnmarshalJSON(bytes.NewReader(raw))
	if err != nil {
		return err
	}
	c := jsonschema.NewCompiler()
	c.DefaultDraft(jsonschema.Draft2020)
	c.AssertFormat()
	const u = "https://launchdir.test/output.json"
	if err := c.AddResource(u, doc); err != nil {
		return err
	}
	s, err := c.Compile(u)
	if err != nil {
		return err
	}
	v, err := jsonschema.UnmarshalJSON(bytes.NewReader(body))
	if err != nil {
		return fmt.Errorf("not JSON: %v", err)
	}
	if err := s.Validate(v); err != nil {
		return fmt.Errorf("%s", firstError(err))
	}
	Validated.Add(1)
	return nil
}
