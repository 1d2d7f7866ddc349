package ops

import (
	"errors"
	"fmt"
	"net/http"
	"time"
)

// Code is a domain error class. Every layer speaks codes; only the table
// below knows HTTP statuses, so REST and MCP report the same thing.
type Code string

const (
	CodeInvalid          Code = "invalid"            // bad parameter, body or option
	CodeUnauthorized     Code = "unauthorized"       // no or bad credentials
	CodeForbidden        Code = "forbidden"          // signed in, not permitted
	CodeNotFound         Code = "not_found"          // unknown (or someone else's) thing
	CodeMethodNotAllowed Code = "method_not_allowed" // wrong HTTP method on a known path
	CodeConflict         Code = "conflict"           // already exists / in progress
	CodeIdemMismatch     Code = "idempotency_mismatch"
	CodeRateLimited      Code = "rate_limited"
	CodeTooLarge         Code = "too_large"
	CodeUnsupportedMedia Code = "unsupported_media_type"
	CodeInternal         Code = "internal"
	CodeUnavailable      Code = "unavailable"
	CodeTimeout          Code = "timeout"      // the request (its body) did not arrive in time
	CodeUnknownSite      Code = "unknown_site" // no directory is served at this host name
)

// codeInfo is the one table mapping codes to HTTP statuses and titles.
var codeInfo = map[Code]struct {
	Status int
	Title  string
}{
	CodeInvalid:          {http.StatusBadRequest, "Invalid input"},
	CodeUnauthorized:     {http.StatusUnauthorized, "Not signed in"},
	CodeForbidden:        {http.StatusForbidden, "Not permitted"},
	CodeNotFound:         {http.StatusNotFound, "Not found"},
	CodeMethodNotAllowed: {http.StatusMethodNotAllowed, "Method not allowed"},
	CodeConflict:         {http.StatusConflict, "Conflict"},
	CodeIdemMismatch:     {http.StatusUnprocessableEntity, "Idempotency key reused with a different request"},
	CodeRateLimited:      {http.StatusTooManyRequests, "Too many requests"},
	CodeTooLarge:         {http.StatusRequestEntityTooLarge, "Request body too large"},
	CodeUnsupportedMedia: {http.StatusUnsupportedMediaType, "Unsupported media type"},
	CodeInternal:         {http.StatusInternalServerError, "Internal error"},
	CodeUnavailable:      {http.StatusServiceUnavailable, "Service unavailable"},
	CodeTimeout:          {http.StatusRequestTimeout, "Request timeout"},
	CodeUnknownSite:      {http.StatusMisdirectedRequest, "No directory at this address"},
}

// Status returns the HTTP status for a code.
func (c Code) Status() int {
	if i, ok := codeInfo[c]; ok {
		return i.Status
	}
	return http.StatusInternalServerError
}

// Title returns the short human title for a code.
func (c Code) Title() string {
	if i, ok := codeInfo[c]; ok {
		return i.Title
	}
	return "Internal error"
}

// FieldError names one bad input field and why it is bad.
type FieldError struct {
	Field   string `json:"field"`
	Message string `json:"message"`
}

// Error is the one error type that crosses layers.
type Error struct {
	Code       Code
	Detail     string
	Fields     []FieldError
	RetryAfter time.Duration // for rate_limited, and unavailable when retrying soon helps
	Scope      string        // for forbidden: the scope that was missing, if any
	Extra      map[string]any
}

func (e *Error) Error() string {
	if len(e.Fields) > 0 {
		return fmt.Sprintf("%s: %s (%s: %s)", e.Code, e.Detail, e.Fields[0].Field, e.Fields[0].Message)
	}
	return fmt.Sprintf("%s: %s", e.Code, e.Detail)
}

// Errorf builds an Error with a formatted detail.
func Errorf(code Code, format string, args ...any) *Error {
	return &Error{Code: code, Detail: fmt.Sprintf(format, args...)}
}

// Invalid builds a 400 naming one field.
func Invalid(field, format string, args ...any) *Error {
	msg := fmt.Sprintf(format, args...)
	return &Error{Code: CodeInvalid, Detail: field + ": " + msg, Fields: []FieldError{{Field: field, Message: msg}}}
}

// InvalidFields builds a 400 from a list of field errors.
func InvalidFields(fields []FieldError) *Error {
	detail := "the request has invalid fields"
	if len(fields) == 1 {
		detail = fields[0].Field + ": " + fields[0].Message
	}
	return &Error{Code: CodeInvalid, Detail: detail, Fields: fields}
}

// NotFound builds a 404.
func NotFound(what string) *Error {
	return &Error{Code: CodeNotFound, Detail: what + " not found"}
}

// AsError converts any error into *Error; unknown errors become internal.
func AsError(err error) *Error {
	var e *Error
	if errors.As(err, &e) {
		return e
	}
	return &Error{Code: CodeInternal, Detail: "an unexpected error occurred"}
}
