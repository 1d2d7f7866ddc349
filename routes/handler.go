package routes

import (
	"bytes"
	"encoding/json"
	"errors"
	"io"
	"mime"
	"net/http"
	"strconv"
	"strings"
	"unicode/utf8"

	"launchdir/app/kernel"
	"launchdir/ops"

	"github.com/julienschmidt/httprouter"
)

// operationHandler is the one REST handler shape: authenticate, decode,
// call the executor (which validates and runs the business function), respond.
func (s *Server) operationHandler(op *ops.Operation) httprouter.Handle {
	return func(w http.ResponseWriter, r *http.Request, ps httprouter.Params) {
		SetRoute(r.Context(), op.ID)
		p, err := s.App.People.Authenticate(r.Context(), r.Header.Get("Authorization"))
		if err != nil {
			writeProblem(w, r, err)
			return
		}
		args, err := s.decodeArgs(op, r, ps)
		if err != nil {
			writeProblem(w, r, err)
			return
		}
		res, err := s.App.Exec.Call(kernel.WithClientIP(r.Context(), s.ClientIP(r)), op, p, args, r.Header.Get("Idempotency-Key"), nil)
		if err != nil {
			writeProblem(w, r, err)
			return
		}
		if res.Replayed {
			w.Header().Set("Idempotent-Replayed", "true")
		}
		if op.Location != "" && res.Status == http.StatusCreated {
			w.Header().Set("Location", "/api/v1"+ops.FillPath(op.Location, res.Body))
		}
		writeJSON(w, r, res.Status, res.Body, res.ETag, op.Method == http.MethodGet, p == nil && op.Scope == "")
	}
}

// decodeArgs gathers path and query parameters (coerced to their types) and
// the JSON body's properties into one argument map.
func (s *Server) decodeArgs(op *ops.Operation, r *http.Request, ps httprouter.Params) (map[string]any, error) {
	args := map[string]any{}
	var bad []ops.FieldError
	q := r.URL.Query()
	for _, p := range op.AllParams() {
		raw, ok := ps.ByName(p.Name), true
		if p.In == "query" {
			vals, present := q[p.Name]
			ok = present && len(vals) > 0
			if ok {
				raw = vals[0]
			}
		}
		if !ok {
			continue
		}
		v, good := ops.Coerce(p.Schema, raw)
		if !good {
			bad = append(bad, ops.FieldError{Field: p.Name, Message: "must be " + article(p.Schema.Type)})
			continue
		}
		args[p.Name] = v
	}
	if len(bad) > 0 {
		return nil, ops.InvalidFields(bad)
	}
	if op.Body == nil {
		return args, s.rejectUnexpectedBody(r)
	}
	var body map[string]any
	var err error
	if op.Upload != "" && isMultipart(r.Header.Get("Content-Type")) {
		body, err = s.readMultipart(op, r)
	} else {
		body, err = s.readJSONObject(r, s.bodyLimit(op))
	}
	if err != nil {
		return nil, err
	}
	for k, v := range body {
		if _, clash := args[k]; clash || op.Body.Prop(k) == nil {
			bad = append(bad, ops.FieldError{Field: k, Message: "unknown property"})
			continue
		}
		args[k] = v
	}
	if len(bad) > 0 {
		return nil, ops.InvalidFields(bad)
	}
	return args, nil
}

func article(t string) string {
	if t == "integer" {
		return "an integer"
	}
	if t == "boolean" {
		return "true or false"
	}
	return "a " + t
}

// rejectUnexpectedBody refuses a non-empty body where none is expected, so a
// client sending fields to a no-body operation learns they were ignored.
func (s *Server) rejectUnexpectedBody(r *http.Request) error {
	if r.Body == nil || r.Method == http.MethodGet {
		return nil
	}
	b, err := io.ReadAll(io.LimitReader(r.Body, s.Opts.MaxBodyBytes))
	if err != nil {
		return ops.Invalid("body", "could not be read")
	}
	trimmed := bytes.TrimSpace(b)
	if len(trimmed) == 0 || string(trimmed) == "{}" || string(trimmed) == "null" {
		return nil
	}
	return ops.Invalid("body", "this operation takes no request body")
}

// bodyLimit is the body cap of an operation: uploads take images.
func (s *Server) bodyLimit(op *ops.Operation) int64 {
	if op.Upload != "" {
		return max(s.Opts.MaxBodyBytes, ops.UploadBodyBytes)
	}
	return s.Opts.MaxBodyBytes
}

func tooLarge(limit int64) error {
	return &ops.Error{Code: ops.CodeTooLarge, Detail: "request body exceeds " + strconv.FormatInt(limit, 10) + " bytes"}
}

func (s *Server) readJSONObject(r *http.Request, limit int64) (map[string]any, error) {
	b, err := io.ReadAll(http.MaxBytesReader(nil, r.Body, limit))
	if err != nil {
		var mbe *http.MaxBytesError
		if errors.As(err, &mbe) {
			return nil, tooLarge(limit)
		}
		return nil, ops.Invalid("body", "could not be read")
	}
	if len(bytes.TrimSpace(b)) == 0 {
		return map[string]any{}, nil
	}
	if !utf8.Valid(b) {
		// encoding/json would silently turn bad bytes into U+FFFD.
		return nil, ops.Invalid("body", "is not valid UTF-8")
	}
	if !jsonMediaType(r.Header.Get("Content-Type")) {
		return nil, &ops.Error{Code: ops.CodeUnsupportedMedia,
			Detail: "send the body with Content-Type: application/json (PATCH also takes application/merge-patch+json)"}
	}
	dec := json.NewDecoder(bytes.NewReader(b))
	dec.UseNumber()
	var v any
	if err := dec.Decode(&v); err != nil {
		return nil, ops.Invalid("body", "is not valid JSON: %s", jsonErrText(err))
	}
	if dec.More() {
		return nil, ops.Invalid("body", "must hold exactly one JSON value")
	}
	obj, ok := v.(map[string]any)
	if !ok {
		return nil, ops.Invalid("body", "must be a JSON object")
	}
	return obj, nil
}

// jsonMediaType accepts the media types a non-empty body may have:
// application/json, and application/merge-patch+json (RFC 7396) because our
// PATCH bodies are merge patches (absent members stay as they are). A
// missing Content-Type is refused rather than guessed, and other +json types
// are refused: application/json-patch+json is a list of operations, not
// the object the operation expects.
func jsonMediaType(ct string) bool {
	mt, _, err := mime.ParseMediaType(ct)
	return err == nil && (mt == "application/json" || mt == "application/merge-patch+json")
}

func jsonErrText(err error) string {
	var se *json.SyntaxError
	if errors.As(err, &se) {
		return se.Error() + " at byte " + strconv.FormatInt(se.Offset, 10)
	}
	return err.Error()
}

// writeJSON writes a success body. GETs carry an ETag and answer
// If-None-Match with 304; public anonymous reads may be cached briefly.
func writeJSON(w http.ResponseWriter, r *http.Request, status int, body []byte, etag string, isGet, cacheable bool) {
	h := w.Header()
	h.Set("Content-Type", "application/json")
	if status >= 400 { // a replayed idempotent failure
		h.Set("Content-Type", "application/problem+json")
	}
	if isGet && status == http.StatusOK {
		if etag == "" {
			etag = ops.ETag(body)
		}
		h.Set("ETag", etag)
		if cacheable {
			h.Set("Cache-Control", "public, max-age=30")
		} else {
			h.Set("Cache-Control", "private, no-cache")
			h.Set("Vary", "Authorization")
		}
		if etagMatch(r.Header.Get("If-None-Match"), etag) {
			w.WriteHeader(http.StatusNotModified)
			return
		}
	} else {
		h.Set("Cache-Control", "no-store")
	}
	// The length up front: without it net/http sends any body over 2 KB (a
	// profile is 3.5 KB) chunked, and a client cannot know its size. The
	// compressor drops it when it compresses.
	if status != http.StatusNoContent {
		h.Set("Content-Length", strconv.Itoa(len(body)))
	}
	w.WriteHeader(status)
	w.Write(body)
}

func etagMatch(header, etag string) bool {
	if header == "" {
		return false
	}
	for _, part := range strings.Split(header, ",") {
		part = strings.TrimPrefix(strings.TrimSpace(part), "W/")
		if part == etag || part == "*" {
			return true
		}
	}
	return false
}

// writeProblem writes any error as RFC 9457 problem+json, with the headers
// its status needs (WWW-Authenticate, Retry-After).
func writeProblem(w http.ResponseWriter, r *http.Request, err error) {
	e := ops.AsError(err)
	h := w.Header()
	switch e.Code {
	case ops.CodeUnauthorized:
		h.Set("WWW-Authenticate", `Bearer realm="launchdir", error="invalid_token"`)
		if r.Header.Get("Authorization") == "" {
			h.Set("WWW-Authenticate", `Bearer realm="launchdir"`)
		}
	case ops.CodeForbidden:
		if e.Scope != "" {
			h.Set("WWW-Authenticate", `Bearer realm="launchdir", error="insufficient_scope", scope="`+e.Scope+`"`)
		}
	case ops.CodeRateLimited, ops.CodeUnavailable:
		if e.Code == ops.CodeUnavailable && e.RetryAfter <= 0 {
			break
		}
		secs := int(e.RetryAfter.Seconds() + 0.999)
		if secs < 1 {
			secs = 1
		}
		h.Set("Retry-After", strconv.Itoa(secs))
	}
	h.Set("Content-Type", "application/problem+json")
	h.Set("Cache-Control", "no-store")
	w.WriteHeader(e.Code.Status())
	w.Write(problemBody(r, e))
}
