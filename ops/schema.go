package ops

import (
	"regexp"
)

// Schema is the small subset of JSON Schema the operations table needs.
// One value drives three things: input validation, the OpenAPI document
// and the MCP tool input schemas, so they can never disagree.
type Schema struct {
	Type        string // string, integer, number, boolean, array, object
	Description string
	Format      string // email, date, uuid, uri
	Pattern     string
	MinLength   int
	MaxLength   int // 0 = unbounded
	Enum        []string
	Min, Max    *int64
	Items       *Schema
	MaxItems    int // 0 = unbounded
	MinItems    int
	Props       []Prop // ordered object properties
	// Values, when set, makes an object a map: any key (limited by KeyEnum)
	// with values of this schema.
	Values   *Schema
	KeyEnum  []string
	MaxProps int
	Nullable bool
	Default  any
	// Check runs after the structural checks; it returns "" when fine.
	Check func(v any) string

	re *regexp.Regexp
}

// Prop is one named property of an object schema.
type Prop struct {
	Name     string
	Required bool
	Schema   *Schema
}

func ptr(v int64) *int64 { return &v }

// Str is a string of at most max characters.
func Str(max int) *Schema { return &Schema{Type: "string", MaxLength: max} }

// Pattern is a string matching re, at most max characters.
func Pattern(re string, max int) *Schema {
	return &Schema{Type: "string", Pattern: re, MaxLength: max}
}

// Int is an integer in [min, max].
func Int(min, max int64) *Schema { return &Schema{Type: "integer", Min: ptr(min), Max: ptr(max)} }

// IntMin is an integer >= min.
func IntMin(min int64) *Schema { return &Schema{Type: "integer", Min: ptr(min)} }

// Bool is a boolean.
func Bool() *Schema { return &Schema{Type: "boolean"} }

// Enum is a string restricted to values.
func Enum(values ...string) *Schema { return &Schema{Type: "string", Enum: values} }

// Arr is an array of items with at most max entries.
func Arr(items *Schema, max int) *Schema { return &Schema{Type: "array", Items: items, MaxItems: max} }

// Obj is a closed object (no unknown properties).
func Obj(props ...Prop) *Schema { return &Schema{Type: "object", Props: props} }

// Map is an object whose keys are limited to keys (if any) and whose values follow v.
func Map(v *Schema, keys ...string) *Schema {
	return &Schema{Type: "object", Values: v, KeyEnum: keys}
}

// P is an optional property.
func P(name string, s *Schema) Prop { return Prop{Name: name, Schema: s} }

// R is a required property.
func R(name string, s *Schema) Prop { return Prop{Name: name, Required: true, Schema: s} }

// With helpers return a modified copy so shared schemas stay untouched.

// Desc sets the description.
func (s *Schema) Desc(d string) *Schema { c := *s; c.Description = d; return &c }

// Def sets the default value.
func (s *Schema) Def(v any) *Schema { c := *s; c.Default = v; return &c }

// OrNull allows JSON null.
func (s *Schema) OrNull() *Schema { c := *s; c.Nullable = true; return &c }

// Fmt sets the format.
func (s *Schema) Fmt(f string) *Schema { c := *s; c.Format = f; return &c }

// Min1 sets a minimum length / item count of 1.
func (s *Schema) Min1() *Schema {
	c := *s
	if c.Type == "array" {
		c.MinItems = 1
	} else {
		c.MinLength = 1
	}
	return &c
}

// Checked adds a custom check.
func (s *Schema) Checked(f func(v any) string) *Schema { c := *s; c.Check = f; return &c }

// Props returns the property with the given name, or nil.
func (s *Schema) Prop(name string) *Prop {
	for i := range s.Props {
		if s.Props[i].Name == name {
			return &s.Props[i]
		}
	}
	return nil
}
