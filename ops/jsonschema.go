package ops

// JSONSchema renders s as a JSON Schema 2020-12 object (the dialect of
// OpenAPI 3.1 and MCP tool schemas).
func JSONSchema(s *Schema) map[string]any {
	m := map[string]any{}
	if s.Nullable {
		// anyOf, not a type array: several MCP clients read "type" as a
		// single string (see Reflector).
		c := *s
		c.Nullable = false
		inner := JSONSchema(&c)
		out := Nullable(inner)
		if d, ok := inner["description"]; ok {
			delete(inner, "description")
			out["description"] = d
		}
		return out
	}
	if s.Type != "" {
		m["type"] = s.Type
	}
	set := func(k string, v any, ok bool) {
		if ok {
			m[k] = v
		}
	}
	set("description", s.Description, s.Description != "")
	set("format", s.Format, s.Format != "")
	set("pattern", s.Pattern, s.Pattern != "")
	set("minLength", s.MinLength, s.MinLength > 0)
	set("maxLength", s.MaxLength, s.MaxLength > 0)
	set("enum", s.Enum, len(s.Enum) > 0)
	set("default", s.Default, s.Default != nil)
	if s.Min != nil {
		m["minimum"] = *s.Min
	}
	if s.Max != nil {
		m["maximum"] = *s.Max
	}
	if s.Type == "array" {
		if s.Items != nil {
			m["items"] = JSONSchema(s.Items)
		}
		set("maxItems", s.MaxItems, s.MaxItems > 0)
		set("minItems", s.MinItems, s.MinItems > 0)
	}
	if s.Type == "object" {
		objectSchema(s, m)
	}
	return m
}

func objectSchema(s *Schema, m map[string]any) {
	if s.MaxProps > 0 {
		m["maxProperties"] = s.MaxProps
	}
	if s.Values != nil {
		m["additionalProperties"] = JSONSchema(s.Values)
		if len(s.KeyEnum) > 0 {
			m["propertyNames"] = map[string]any{"enum": s.KeyEnum}
		}
		return
	}
	props := map[string]any{}
	var req []string
	for _, p := range s.Props {
		props[p.Name] = JSONSchema(p.Schema)
		if p.Required {
			req = append(req, p.Name)
		}
	}
	m["properties"] = props
	if len(req) > 0 {
		m["required"] = req
	}
	m["additionalProperties"] = false
}
