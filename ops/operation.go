package ops

import (
	"context"
	"encoding/json"
	"fmt"
	"reflect"
	"strings"
)

// Scopes a credential can carry.
const (
	ScopeAccountRead   = "account:read"
	ScopeListingsWrite = "listings:write"
	ScopeOrdersWrite   = "orders:write"
)

// AllScopes lists every scope, in documentation order.
var AllScopes = []string{ScopeAccountRead, ScopeListingsWrite, ScopeOrdersWrite}

// Principal is who is calling: the same for API keys and OAuth tokens.
type Principal struct {
	UserID       int64
	Email        string
	Scopes       []string
	Credential   string // "api_key" or "oauth"
	CredentialID int64
}

// Has reports whether the principal's credential carries scope.
func (p *Principal) Has(scope string) bool {
	if p == nil {
		return false
	}
	for _, s := range p.Scopes {
		if s == scope {
			return true
		}
	}
	return false
}

// Param is a path or query parameter.
type Param struct {
	Name     string
	In       string // "path" or "query"
	Required bool
	Schema   *Schema
}

// Handler runs one operation. It gets validated, defaulted input and
// returns a JSON-marshalable body or an error (ideally *Error).
type Handler func(ctx context.Context, in *Input) (any, error)

// Operation is one row of the operations table.
type Operation struct {
	ID          string // operationId and MCP tool name
	Method      string
	Path        string // httprouter syntax below /api/v1, e.g. /listings/:slug
	Summary     string
	Description string
	Toolset     string // public, drafts, listings, claims, orders
	Scope       string // "" means public
	Params      []Param
	Body        *Schema // closed object, or nil for no body
	Status      int     // success status (200 when zero)
	Idem        bool    // accepts Idempotency-Key
	Paginated   bool    // adds page and per_page
	Destructive bool
	OpenWorld   bool // reads the web (crawler)
	// Output is the Go type of the success body (ops.Out[T]()); the
	// OpenAPI response schema and the MCP outputSchema are generated from it.
	Output reflect.Type
	// Tag groups the operation in the OpenAPI document (default: Toolset).
	Tag string
	// Location, for 201s, is the path (below /api/v1) of what was created,
	// with {field} filled from the body's top-level fields.
	Location string
	// Upload names the base64 string body property that a REST
	// multipart/form-data upload's file part fills (images).
	Upload  string
	Handler Handler
}

// UploadBodyBytes caps the body of an operation with an Upload: a 5 MiB
// image as base64 (6.7 MiB) or as a multipart file, with room for the rest.
const UploadBodyBytes = 8 << 20

// Page parameters shared by every paginated operation (spec section 8).
var (
	PageSchema    = Int(1, 1000).Def(int64(1)).Desc("Page number, 1..1000.")
	PerPageSchema = Int(1, 100).Def(int64(20)).Desc("Items per page, 1..100.")
)

// AllParams returns the operation's parameters including pagination.
func (o *Operation) AllParams() []Param {
	if !o.Paginated {
		return o.Params
	}
	return append(append([]Param{}, o.Params...),
		Param{Name: "page", In: "query", Schema: PageSchema},
		Param{Name: "per_page", In: "query", Schema: PerPageSchema})
}

// TagName is the operation's OpenAPI tag.
func (o *Operation) TagName() string {
	if o.Tag != "" {
		return o.Tag
	}
	return o.Toolset
}

// ReadOnly reports whether the operation changes nothing.
func (o *Operation) ReadOnly() bool { return o.Method == "GET" || o.ID == "quote_order" }

// SuccessStatus is the HTTP status of a success.
func (o *Operation) SuccessStatus() int {
	if o.Status == 0 {
		return 200
	}
	return o.Status
}

// InputSchema is the flat object schema of all inputs (parameters and body
// properties side by side), the shape MCP tools take.
func (o *Operation) InputSchema() *Schema {
	s := &Schema{Type: "object"}
	for _, p := range o.AllParams() {
		s.Props = append(s.Props, Prop{Name: p.Name, Required: p.Required, Schema: p.Schema})
	}
	if o.Body != nil {
		s.Props = append(s.Props, o.Body.Props...)
	}
	return s
}

// Input is what a handler receives.
type Input struct {
	Principal *Principal
	Args      map[string]any // validated; defaults applied
	IdemKey   string
	// Progress, when set, reports progress of long operations (MCP).
	Progress func(done, total float64, msg string)
}

// Str returns a string argument ("" when absent).
func (in *Input) Str(name string) string { s, _ := in.Args[name].(string); return s }

// Int returns an integer argument (0 when absent).
func (in *Input) Int(name string) int64 { n, _ := in.Args[name].(int64); return n }

// Bool returns a boolean argument (false when absent).
func (in *Input) Bool(name string) bool { b, _ := in.Args[name].(bool); return b }

// Has reports whether an argument was given.
func (in *Input) Has(name string) bool { _, ok := in.Args[name]; return ok }

// Page returns the pagination arguments.
func (in *Input) Page() (page, perPage int) {
	page, perPage = int(in.Int("page")), int(in.Int("per_page"))
	if page < 1 {
		page = 1
	}
	if perPage < 1 {
		perPage = 20
	}
	return page, perPage
}

// Decode copies the arguments into a typed struct (json tags).
func (in *Input) Decode(dst any) error {
	b, err := json.Marshal(in.Args)
	if err != nil {
		return err
	}
	return json.Unmarshal(b, dst)
}

// UserID returns the signed-in user id (0 for anonymous calls).
func (in *Input) UserID() int64 {
	if in.Principal == nil {
		return 0
	}
	return in.Principal.UserID
}

// Table is the operations table.
type Table struct {
	Ops  []*Operation
	byID map[string]*Operation
}

// NewTable checks the table once at start: unique ids, a handler each, and
// no parameter colliding with a body property (MCP flattens both).
func NewTable(list []*Operation) (*Table, error) {
	t := &Table{Ops: list, byID: map[string]*Operation{}}
	for _, o := range list {
		if _, dup := t.byID[o.ID]; dup {
			return nil, fmt.Errorf("duplicate operation %s", o.ID)
		}
		if o.Handler == nil {
			return nil, fmt.Errorf("operation %s has no handler", o.ID)
		}
		if o.Output == nil {
			return nil, fmt.Errorf("operation %s has no output type", o.ID)
		}
		if o.SuccessStatus() == 201 && o.Location == "" {
			return nil, fmt.Errorf("operation %s answers 201 without a Location", o.ID)
		}
		seen := map[string]bool{}
		for _, p := range o.InputSchema().Props {
			if seen[p.Name] {
				return nil, fmt.Errorf("operation %s: input %s defined twice", o.ID, p.Name)
			}
			seen[p.Name] = true
		}
		for _, p := range o.Params {
			if p.In == "path" && !strings.Contains(o.Path, ":"+p.Name) {
				return nil, fmt.Errorf("operation %s: path parameter %s not in path", o.ID, p.Name)
			}
		}
		t.byID[o.ID] = o
	}
	return t, nil
}

// Get returns an operation by id.
func (t *Table) Get(id string) *Operation { return t.byID[id] }
