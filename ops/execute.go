package ops

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"log/slog"
	"runtime/debug"
	"sort"
)

// Encoded is an operation's output already encoded as JSON (kept so by a
// read cache): the executor uses it as the body instead of encoding again,
// and the REST door sends its ETag instead of hashing the body again. JSON
// must be exactly what json.Marshal gives for the operation's output.
type Encoded struct {
	JSON []byte
	ETag string
	// Value is the value JSON encodes, set only by a handler that has just
	// built it (a read cache keeps JSON alone): the website renders it
	// instead of decoding JSON (Executor.Value). Doors that send JSON
	// ignore it.
	Value any
}

// Encode is out encoded as an Encoded, with its ETag.
func Encode(out any) (Encoded, error) {
	b, err := json.Marshal(out)
	if err != nil {
		return Encoded{}, err
	}
	return Encoded{JSON: b, ETag: ETag(b)}, nil
}

// ETag is the strong validator of a response body: its SHA-256, 96 bits.
func ETag(body []byte) string {
	sum := sha256.Sum256(body)
	return `"` + hex.EncodeToString(sum[:12]) + `"`
}

// Result is a finished call: the status and the exact JSON body, so a
// replayed idempotent call returns byte-identical output on both doors.
type Result struct {
	Status   int
	Body     json.RawMessage
	Replayed bool
	ETag     string // of Body when known already (see Encoded); not stored
	// Resume, from IdemStore.Begin: run the operation again from this
	// recovery point (its effect committed, its response did not).
	Resume string
}

// IdemStore remembers responses of idempotent calls per (user, key).
type IdemStore interface {
	// Begin claims key for the request hash. It returns a stored result to
	// replay, or nil when the caller should run the operation, or a result
	// with only Resume set when the operation resumes from a recovery point. It returns
	// CodeConflict while the first call still runs and CodeIdemMismatch when
	// the key was used with another request.
	Begin(ctx context.Context, userID int64, key, hash string) (*Result, error)
	// Finish stores the result; Abandon forgets the key (on internal errors,
	// so a retry may run again).
	Finish(ctx context.Context, userID int64, key string, r *Result) error
	Abandon(ctx context.Context, userID int64, key string)
}

// Executor runs operations for every front door (REST and MCP).
type Executor struct {
	Table *Table
	Idem  IdemStore
	Log   *slog.Logger
	// Primary is set on a read replica: the primary's public origin.
	// Operations that write are refused there and pointed at it.
	Primary string
}

// ReadReplica is the error of a write sent to a read replica.
func ReadReplica(primary string) *Error {
	return &Error{Code: CodeUnavailable,
		Detail: "this server is a read-only replica: send writes to the primary, " + primary + " (REST " + primary + "/api/v1, MCP " + primary + "/mcp)",
		Extra:  map[string]any{"primary": primary}}
}

// Call authorises, validates and runs op. args holds raw inputs (strings
// already coerced for REST; JSON values for MCP).
func (x *Executor) Call(ctx context.Context, op *Operation, p *Principal, args map[string]any, idemKey string, progress func(float64, float64, string)) (res *Result, err error) {
	in, err := x.admit(op, p, args)
	if err != nil {
		return nil, err
	}
	in.IdemKey, in.Progress = idemKey, progress
	if !op.Idem || idemKey == "" || p == nil {
		return x.run(ctx, op, in)
	}
	if len(idemKey) > 255 {
		return nil, Invalid("Idempotency-Key", "must be at most 255 characters")
	}
	if !printableKey(idemKey) {
		return nil, Invalid("Idempotency-Key", "must be printable ASCII (no control characters)")
	}
	hash := requestHash(op.ID, in.Args)
	prev, err := x.Idem.Begin(ctx, p.UserID, idemKey, hash)
	if err != nil {
		return nil, err
	}
	recovery := ""
	if prev != nil {
		if prev.Resume == "" {
			prev.Replayed = true
			return prev, nil
		}
		recovery = prev.Resume
	}
	rctx := WithIdemClaim(ctx, IdemClaim{UserID: p.UserID, Key: idemKey, Status: op.SuccessStatus(), Recovery: recovery})
	res, err = x.run(rctx, op, in)
	if err != nil {
		e := AsError(err)
		if e.Code == CodeInternal || e.Code == CodeUnavailable || e.Code == CodeRateLimited {
			x.Idem.Abandon(context.WithoutCancel(ctx), p.UserID, idemKey)
			return nil, err
		}
		res = &Result{Status: e.Code.Status(), Body: ProblemBody(e)}
		if ferr := x.Idem.Finish(context.WithoutCancel(ctx), p.UserID, idemKey, res); ferr != nil {
			x.Log.Error("idempotency finish", "err", ferr)
		}
		return nil, err
	}
	if c, _ := IdemClaimFrom(rctx); c.Stored() {
		return res, nil // committed with the effect, byte for byte this body
	}
	if ferr := x.Idem.Finish(context.WithoutCancel(ctx), p.UserID, idemKey, res); ferr != nil {
		x.Log.Error("idempotency finish", "err", ferr)
	}
	return res, nil
}

// Value runs a read-only operation like Call and returns its handler's
// output as it is: an Encoded when a read cache kept it encoded, else the
// typed value. The website renders that value, so encoding it for the page
// to decode again would be pure cost (a quarter of the home page's CPU).
// The value may be shared with a read cache: the caller must never write
// into it. Writes go through Call, which keeps idempotency.
func (x *Executor) Value(ctx context.Context, op *Operation, p *Principal, args map[string]any) (any, error) {
	if !op.ReadOnly() { // a door's mistake: writes need Call's idempotency
		x.Log.Error("Value called for a write", "op", op.ID)
		return nil, &Error{Code: CodeInternal, Detail: "an unexpected error occurred"}
	}
	in, err := x.admit(op, p, args)
	if err != nil {
		return nil, err
	}
	return x.output(ctx, op, in)
}

// admit checks the principal's scope and the arguments: what every call
// passes before its handler runs.
func (x *Executor) admit(op *Operation, p *Principal, args map[string]any) (*Input, error) {
	if x.Primary != "" && !op.ReadOnly() {
		return nil, ReadReplica(x.Primary)
	}
	if op.Scope != "" {
		if p == nil {
			return nil, &Error{Code: CodeUnauthorized, Detail: "this operation needs sign-in: send Authorization: Bearer <API key or access token>"}
		}
		if !p.Has(op.Scope) {
			return nil, &Error{Code: CodeForbidden, Detail: "the credential lacks the scope " + op.Scope, Scope: op.Scope}
		}
	}
	clean, ferrs := x.validate(op, args)
	if len(ferrs) > 0 {
		return nil, InvalidFields(ferrs)
	}
	return &Input{Principal: p, Args: clean}, nil
}

// validate applies defaults and checks args against the input schema.
func (x *Executor) validate(op *Operation, args map[string]any) (map[string]any, []FieldError) {
	schema := op.InputSchema()
	if args == nil {
		args = map[string]any{}
	}
	for _, p := range op.AllParams() {
		if _, ok := args[p.Name]; !ok && p.Schema.Default != nil {
			args[p.Name] = p.Schema.Default
		}
	}
	out, errs := Validate(schema, args, "")
	m, _ := out.(map[string]any)
	return m, errs
}

// run calls the handler and encodes its output.
func (x *Executor) run(ctx context.Context, op *Operation, in *Input) (*Result, error) {
	out, err := x.output(ctx, op, in)
	if err != nil {
		return nil, err
	}
	if enc, ok := out.(Encoded); ok {
		return &Result{Status: op.SuccessStatus(), Body: json.RawMessage(enc.JSON), ETag: enc.ETag}, nil
	}
	body, err := json.Marshal(out)
	if err != nil {
		x.Log.Error("marshal output", "op", op.ID, "err", err)
		return nil, &Error{Code: CodeInternal, Detail: "an unexpected error occurred"}
	}
	return &Result{Status: op.SuccessStatus(), Body: body}, nil
}

// output calls the handler, turning panics into internal errors so one bad
// request never takes the process down.
func (x *Executor) output(ctx context.Context, op *Operation, in *Input) (out any, err error) {
	defer func() {
		if r := recover(); r != nil {
			x.Log.Error("panic in operation", "op", op.ID, "panic", r, "stack", string(debug.Stack()))
			out, err = nil, &Error{Code: CodeInternal, Detail: "an unexpected error occurred"}
		}
	}()
	out, err = op.Handler(ctx, in)
	if err != nil {
		if e := AsError(err); e.Code == CodeInternal && e.Detail == "an unexpected error occurred" {
			x.Log.Error("operation failed", "op", op.ID, "err", err)
		}
		return nil, AsError(err)
	}
	return out, nil
}

// requestHash identifies a request for idempotency: operation plus its
// canonical arguments (encoding/json sorts map keys).
func requestHash(opID string, args map[string]any) string {
	b, _ := json.Marshal(args)
	h := sha256.Sum256(append([]byte(opID+"\n"), b...))
	return hex.EncodeToString(h[:])
}

// Problem is the RFC 9457 body. It has no instance member: a stored
// idempotent failure must replay byte for byte.
type Problem struct {
	Type   string       `json:"type" format:"uri" doc:"<base-url>/problems/<code>: a page explaining the problem."`
	Title  string       `json:"title"`
	Status int          `json:"status" doc:"The HTTP status."`
	Detail string       `json:"detail,omitempty"`
	Code   Code         `json:"code" enum:"$problem_code" doc:"Stable machine-readable class; the HTTP status follows from it."`
	Errors []FieldError `json:"errors,omitempty" doc:"invalid: one entry per bad input."`
	Scope  string       `json:"required_scope,omitempty" enum:"$scope" doc:"forbidden: the scope the credential lacks."`
	Extra  ProblemExtra `json:"extra,omitempty"`
	// RequestID is set by the HTTP door (routes), not by the executor.
	RequestID string `json:"request_id,omitempty" doc:"The request's X-Request-Id (the client's own when it sent a short plain one): quote it when reporting a problem; the server's access log line carries it."`
}

// ProblemExtra carries facts a client can act on.
type ProblemExtra map[string]any

// OutputSchema documents the extra members the service sends.
func (ProblemExtra) OutputSchema() map[string]any {
	return map[string]any{"type": "object", "additionalProperties": false,
		"description": "Facts a client can act on, by problem.",
		"properties": map[string]any{
			"claim_id":         map[string]any{"type": "integer", "description": "conflict on claim_listing: your pending claim of this listing."},
			"effect_committed": map[string]any{"type": "boolean", "description": "conflict on an Idempotency-Key: the first request took effect but the server stopped before storing its response; look the result up instead of repeating it."},
			"promo_reason":     map[string]any{"type": "string", "enum": enumValues("$promo_reason"), "description": "invalid promo_code: why the code cannot be used."},
			"primary":          map[string]any{"type": "string", "format": "uri", "description": "unavailable (or 307) from a read replica: the primary's origin, where writes go."},
		}}
}

// Codes lists every problem code (the Problem schema's enum).
func Codes() []string {
	out := make([]string, 0, len(codeInfo))
	for c := range codeInfo {
		out = append(out, string(c))
	}
	sort.Strings(out)
	return out
}

func init() {
	RegisterEnum("problem_code", Codes())
	RegisterEnum("scope", AllScopes)
}

// ProblemTypeBase prefixes problem type URIs; set from the base URL at start.
var ProblemTypeBase = "/problems/"

// ProblemFor builds the problem document of an error.
func ProblemFor(e *Error) Problem {
	return Problem{
		Type: ProblemTypeBase + string(e.Code), Title: e.Code.Title(), Status: e.Code.Status(),
		Detail: e.Detail, Code: e.Code, Errors: e.Fields, Scope: e.Scope, Extra: e.Extra,
	}
}

// ProblemBody is the marshaled problem document.
func ProblemBody(e *Error) json.RawMessage {
	b, _ := json.Marshal(ProblemFor(e))
	return b
}

// printableKey reports whether an idempotency key is visible ASCII or space.
func printableKey(k string) bool {
	for i := 0; i < len(k); i++ {
		if k[i] < 0x20 || k[i] > 0x7e {
			return false
		}
	}
	return true
}
