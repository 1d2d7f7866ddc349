package ops

import (
	"encoding/json"
	"fmt"
	"net/url"
	"reflect"
	"sort"
	"strconv"
	"strings"
	"time"
)

// Out names an operation's success body type for Operation.Output:
// Out[Page[Summary]](). The schema is generated from the type, so the
// document can never drift from what the handler returns.
func Out[T any]() reflect.Type { return reflect.TypeFor[T]() }

// SchemaProvider lets a type give its own schema (maps whose keys are
// known, free-form values).
type SchemaProvider interface{ OutputSchema() map[string]any }

// Reflector turns Go response types into JSON Schema 2020-12. Every named
// struct becomes one definition referenced with $ref (Prefix + name), so a
// shared shape is written once. Struct tags refine it:
//
//	json:"name,omitempty"  property name; without omitempty it is required
//	doc:"..."              description
//	enum:"a,b,c"           allowed values (items of a []string)
//	format:"date"          format (date, date-time, uri, email)
//	anyof:"string,integer" a free-form (any) field's allowed JSON types
//
// A pointer without omitempty is nullable, written as
// anyOf [X, {"type": "null"}]: MCP clients that read "type" as a single
// string reject type arrays, and REST and MCP share this one form.
type Reflector struct {
	Prefix string // "#/components/schemas/" or "#/$defs/"
	Defs   map[string]map[string]any
	names  map[reflect.Type]string
	taken  map[string]reflect.Type
}

// NewReflector starts an empty set of definitions.
func NewReflector(prefix string) *Reflector {
	return &Reflector{Prefix: prefix, Defs: map[string]map[string]any{}, names: map[reflect.Type]string{}, taken: map[string]reflect.Type{}}
}

var (
	timeType     = reflect.TypeFor[time.Time]()
	rawType      = reflect.TypeFor[json.RawMessage]()
	providerType = reflect.TypeFor[SchemaProvider]()
)

// Schema returns the schema of t: a $ref for named structs, inline otherwise.
func (r *Reflector) Schema(t reflect.Type) map[string]any {
	if t.Implements(providerType) {
		return reflect.Zero(t).Interface().(SchemaProvider).OutputSchema()
	}
	switch t.Kind() {
	case reflect.Pointer:
		return Nullable(r.Schema(t.Elem()))
	case reflect.Struct:
		if t == timeType {
			return map[string]any{"type": "string", "format": "date-time"}
		}
		if t.Name() == "" {
			return r.object(t)
		}
		return map[string]any{"$ref": r.Prefix + r.define(t)}
	case reflect.Slice, reflect.Array:
		if t == rawType {
			return map[string]any{}
		}
		return map[string]any{"type": "array", "items": r.Schema(t.Elem())}
	case reflect.Map:
		s := map[string]any{"type": "object", "additionalProperties": r.Schema(t.Elem())}
		if t.Name() != "" { // a named map is a shared shape: one definition
			return map[string]any{"$ref": r.Prefix + r.defineAs(t, s)}
		}
		return s
	case reflect.String:
		return map[string]any{"type": "string"}
	case reflect.Bool:
		return map[string]any{"type": "boolean"}
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64,
		reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64:
		return map[string]any{"type": "integer"}
	case reflect.Float32, reflect.Float64:
		return map[string]any{"type": "number"}
	}
	return map[string]any{} // interface: anything
}

// Nullable allows null beside s. A $ref branch also says "type": "object"
// (every definition is an object): some clients want a type on each anyOf
// branch.
func Nullable(s map[string]any) map[string]any {
	if _, ok := s["$ref"]; ok && s["type"] == nil {
		s = map[string]any{"$ref": s["$ref"], "type": "object"}
	}
	return map[string]any{"anyOf": []any{s, map[string]any{"type": "null"}}}
}

// define registers t's definition and returns its name.
func (r *Reflector) define(t reflect.Type) string {
	if n, ok := r.names[t]; ok {
		return n
	}
	name := TypeName(t)
	if other, ok := r.taken[name]; ok && other != t {
		name = exportName(pkgBase(t.PkgPath())) + name
	}
	r.names[t], r.taken[name] = name, t
	r.Defs[name] = map[string]any{} // placeholder against recursion
	r.Defs[name] = r.object(t)
	return name
}

// defineAs registers a named non-struct type with its schema.
func (r *Reflector) defineAs(t reflect.Type, s map[string]any) string {
	if n, ok := r.names[t]; ok {
		return n
	}
	name := TypeName(t)
	if other, ok := r.taken[name]; ok && other != t {
		name = exportName(pkgBase(t.PkgPath())) + name
	}
	r.names[t], r.taken[name], r.Defs[name] = name, t, s
	return name
}

// TypeName is the definition name of a named type; generic instances read
// naturally: Page[db.Summary] is SummaryPage.
func TypeName(t reflect.Type) string {
	n := t.Name()
	i := strings.IndexByte(n, '[')
	if i < 0 {
		return n
	}
	arg := n[i+1 : len(n)-1]
	if j := strings.LastIndexAny(arg, "./"); j >= 0 {
		arg = arg[j+1:]
	}
	return exportName(arg) + n[:i]
}

func pkgBase(p string) string { return p[strings.LastIndexByte(p, '/')+1:] }

func exportName(s string) string {
	if s == "" {
		return s
	}
	return strings.ToUpper(s[:1]) + s[1:]
}

// object is a struct's closed object schema (embedded structs flattened).
func (r *Reflector) object(t reflect.Type) map[string]any {
	props := map[string]any{}
	var req []string
	r.fields(t, props, &req)
	sort.Strings(req)
	m := map[string]any{"type": "object", "properties": props, "additionalProperties": false}
	if len(req) > 0 {
		m["required"] = req
	}
	return m
}

func (r *Reflector) fields(t reflect.Type, props map[string]any, req *[]string) {
	for i := 0; i < t.NumField(); i++ {
		f := t.Field(i)
		tag := f.Tag.Get("json")
		if tag == "-" || (!f.IsExported() && !f.Anonymous) {
			continue
		}
		name, opts, _ := strings.Cut(tag, ",")
		if f.Anonymous && name == "" {
			ft := f.Type
			if ft.Kind() == reflect.Pointer {
				ft = ft.Elem()
			}
			if ft.Kind() == reflect.Struct {
				r.fields(ft, props, req)
				continue
			}
		}
		if name == "" {
			name = f.Name
		}
		omit := strings.Contains(opts, "omitempty") || strings.Contains(opts, "omitzero")
		ft := f.Type
		if omit && ft.Kind() == reflect.Pointer {
			ft = ft.Elem() // omitted when nil, never null
		}
		s := r.fieldSchema(f, ft)
		props[name] = s
		if !omit {
			*req = append(*req, name)
		}
	}
}

func (r *Reflector) fieldSchema(f reflect.StructField, ft reflect.Type) map[string]any {
	var s map[string]any
	if kinds := f.Tag.Get("anyof"); kinds != "" {
		var alts []any
		for _, k := range strings.Split(kinds, ",") {
			if k == "array" {
				alts = append(alts, map[string]any{"type": "array", "items": map[string]any{"type": "string"}})
			} else {
				alts = append(alts, map[string]any{"type": k})
			}
		}
		s = map[string]any{"anyOf": alts}
	} else {
		s = r.Schema(ft)
	}
	target := s // where enum and format go: the string itself
	if alts, ok := s["anyOf"].([]any); ok && len(alts) == 2 && f.Tag.Get("anyof") == "" {
		target = alts[0].(map[string]any)
	}
	if target["type"] == "array" {
		if it, ok := target["items"].(map[string]any); ok {
			target = it
		}
	}
	if _, isRef := target["$ref"]; !isRef {
		if e := f.Tag.Get("enum"); e != "" {
			target["enum"] = enumValues(e)
		}
		if fm := f.Tag.Get("format"); fm != "" {
			target["format"] = fm
		}
	}
	if d := f.Tag.Get("doc"); d != "" {
		if _, isRef := s["$ref"]; isRef {
			s = map[string]any{"$ref": s["$ref"], "description": d}
		} else {
			s["description"] = d
		}
	}
	return s
}

// Standalone is t's schema as one self-contained document (root inline,
// shared shapes under $defs), the form of an MCP tool's outputSchema.
func Standalone(t reflect.Type) map[string]any {
	r := NewReflector("#/$defs/")
	root := r.Schema(t)
	if ref, ok := root["$ref"].(string); ok {
		name := strings.TrimPrefix(ref, r.Prefix)
		root = copyMap(r.Defs[name])
		if !referenced(r.Defs, ref) {
			delete(r.Defs, name)
		}
	}
	if len(r.Defs) > 0 {
		defs := map[string]any{}
		for k, v := range r.Defs {
			defs[k] = v
		}
		root["$defs"] = defs
	}
	return root
}

func copyMap(m map[string]any) map[string]any {
	c := make(map[string]any, len(m))
	for k, v := range m {
		c[k] = v
	}
	return c
}

// referenced reports whether ref is used by any definition.
func referenced(defs map[string]map[string]any, ref string) bool {
	b, _ := json.Marshal(defs)
	return strings.Contains(string(b), fmt.Sprintf("%q", ref))
}

// enums holds value lists registered by name, so an enum tag can name the
// Go list the code checks against (enum:"$listing_status") instead of
// repeating it.
var enums = map[string][]string{}

// RegisterEnum names a list of allowed values for enum:"$name" tags.
func RegisterEnum(name string, values []string) { enums[name] = values }

func enumValues(tag string) []string {
	if name, ok := strings.CutPrefix(tag, "$"); ok {
		v, ok := enums[name]
		if !ok {
			panic("ops: enum tag names unregistered list " + name)
		}
		return v
	}
	return strings.Split(tag, ",")
}

// FillPath fills {field} placeholders of a path template from the
// top-level fields of a JSON object body (path-escaped).
func FillPath(tmpl string, body []byte) string {
	var m map[string]any
	_ = json.Unmarshal(body, &m)
	var b strings.Builder
	for {
		i := strings.IndexByte(tmpl, '{')
		j := strings.IndexByte(tmpl, '}')
		if i < 0 || j < i {
			b.WriteString(tmpl)
			return b.String()
		}
		b.WriteString(tmpl[:i])
		v := m[tmpl[i+1:j]]
		if f, ok := v.(float64); ok {
			b.WriteString(strconv.FormatInt(int64(f), 10))
		} else {
			b.WriteString(url.PathEscape(fmt.Sprint(v)))
		}
		tmpl = tmpl[j+1:]
	}
}
