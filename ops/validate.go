package ops

import (
	"encoding/json"
	"fmt"
	"math"
	"net/mail"
	"regexp"
	"sort"
	"strconv"
	"strings"
	"sync"
	"time"
	"unicode/utf8"
)

var reCache sync.Map // pattern -> *regexp.Regexp

func compiled(p string) *regexp.Regexp {
	if v, ok := reCache.Load(p); ok {
		return v.(*regexp.Regexp)
	}
	re := regexp.MustCompile(p)
	reCache.Store(p, re)
	return re
}

var uuidRe = regexp.MustCompile(`^[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}$`)

// Validate checks v (a decoded JSON value: nil, bool, string, json.Number,
// int64, float64, []any, map[string]any) against s and returns the value
// normalised (integers as int64) plus every problem found, each naming its
// field path (e.g. items[2].week).
func Validate(s *Schema, v any, path string) (any, []FieldError) {
	var errs []FieldError
	out := validate(s, v, path, &errs)
	return out, errs
}

func fieldName(path string) string {
	if path == "" {
		return "body"
	}
	return path
}

func validate(s *Schema, v any, path string, errs *[]FieldError) any {
	add := func(format string, args ...any) {
		*errs = append(*errs, FieldError{Field: fieldName(path), Message: fmt.Sprintf(format, args...)})
	}
	if v == nil {
		if !s.Nullable {
			add("must not be null")
		}
		return nil
	}
	var out any
	switch s.Type {
	case "string":
		str, ok := v.(string)
		if !ok {
			add("must be a string")
			return v
		}
		checkString(s, str, add)
		out = str
	case "integer":
		n, ok := toInt(v)
		if !ok {
			add("must be an integer")
			return v
		}
		if s.Min != nil && n < *s.Min {
			add("must be at least %d", *s.Min)
		}
		if s.Max != nil && n > *s.Max {
			add("must be at most %d", *s.Max)
		}
		out = n
	case "number":
		f, ok := toFloat(v)
		if !ok {
			add("must be a number")
			return v
		}
		out = f
	case "boolean":
		b, ok := v.(bool)
		if !ok {
			add("must be true or false")
			return v
		}
		out = b
	case "array":
		out = validateArray(s, v, path, errs, add)
	case "object":
		out = validateObject(s, v, path, errs, add)
	default:
		out = v
	}
	if s.Check != nil && out != nil {
		if msg := s.Check(out); msg != "" {
			add("%s", msg)
		}
	}
	return out
}

func checkString(s *Schema, str string, add func(string, ...any)) {
	n := utf8.RuneCountInString(str)
	if !utf8.ValidString(str) {
		add("must be valid UTF-8")
		return
	}
	if hasControl(str) {
		add("must not contain control characters")
		return
	}
	if s.MinLength > 0 && n < s.MinLength {
		if s.MinLength == 1 {
			add("must not be empty")
		} else {
			add("must be at least %d characters", s.MinLength)
		}
	}
	if s.MaxLength > 0 && n > s.MaxLength {
		add("must be at most %d characters (got %d)", s.MaxLength, n)
		return
	}
	if len(s.Enum) > 0 && !contains(s.Enum, str) {
		add("must be one of %s", strings.Join(s.Enum, ", "))
		return
	}
	if s.Pattern != "" && !compiled(s.Pattern).MatchString(str) {
		add("must match %s", s.Pattern)
		return
	}
	if str == "" {
		return // formats apply to non-empty values; emptiness is MinLength's job
	}
	switch s.Format {
	case "email":
		at := strings.LastIndex(str, "@")
		if a, err := mail.ParseAddress(str); err != nil || a.Address != str || at < 1 || !strings.Contains(str[at:], ".") {
			add("must be an email address")
		} else if msg := emailLimits(str, at); msg != "" {
			add("%s", msg)
		}
	case "date":
		if d, err := time.Parse("2006-01-02", str); err != nil {
			add("must be a date as YYYY-MM-DD")
		} else if d.Year() < 1800 || d.Year() > 2100 {
			add("must be a date between 1800 and 2100")
		}
	case "uuid":
		if !uuidRe.MatchString(str) {
			add("must be a UUID")
		}
	}
}

// emailLimits applies RFC 5321's sizes, which the documented format
// "email" implies: at most 64 characters before the @, domain labels of
// 1 to 63 characters.
func emailLimits(s string, at int) string {
	if at > 64 {
		return "must be an email address with at most 64 characters before the @"
	}
	for _, label := range strings.Split(s[at+1:], ".") {
		if len(label) == 0 || len(label) > 63 {
			return "must be an email address whose domain labels have 1 to 63 characters"
		}
	}
	return ""
}

// hasControl finds C0/C1 control characters other than tab, newline and
// carriage return: NUL and friends break storage, logs and displays.
func hasControl(s string) bool {
	for _, r := range s {
		if (r < 0x20 && r != '\t' && r != '\n' && r != '\r') || r == 0x7f || (r >= 0x80 && r < 0xa0) {
			return true
		}
	}
	return false
}

func validateArray(s *Schema, v any, path string, errs *[]FieldError, add func(string, ...any)) any {
	arr, ok := v.([]any)
	if !ok {
		add("must be an array")
		return v
	}
	if s.MaxItems > 0 && len(arr) > s.MaxItems {
		add("must have at most %d items (got %d)", s.MaxItems, len(arr))
		return arr
	}
	if len(arr) < s.MinItems {
		add("must have at least %d item(s)", s.MinItems)
	}
	out := make([]any, len(arr))
	for i, item := range arr {
		out[i] = validate(s.Items, item, fmt.Sprintf("%s[%d]", path, i), errs)
	}
	return out
}

func join(path, name string) string {
	if name == "" {
		name = `""` // an empty key still needs a visible field name
	}
	if path == "" {
		return name
	}
	return path + "." + name
}

func validateObject(s *Schema, v any, path string, errs *[]FieldError, add func(string, ...any)) any {
	obj, ok := v.(map[string]any)
	if !ok {
		add("must be an object")
		return v
	}
	if s.MaxProps > 0 && len(obj) > s.MaxProps {
		add("must have at most %d properties (got %d)", s.MaxProps, len(obj))
		return obj
	}
	out := make(map[string]any, len(obj))
	if s.Values != nil {
		for _, k := range sortedKeys(obj) {
			if len(s.KeyEnum) > 0 && !contains(s.KeyEnum, k) {
				*errs = append(*errs, FieldError{Field: join(path, k), Message: "unknown key; allowed: " + strings.Join(s.KeyEnum, ", ")})
				continue
			}
			out[k] = validate(s.Values, obj[k], join(path, k), errs)
		}
		return out
	}
	for _, k := range sortedKeys(obj) {
		if s.Prop(k) == nil {
			*errs = append(*errs, FieldError{Field: join(path, k), Message: "unknown property"})
		}
	}
	for _, p := range s.Props {
		val, present := obj[p.Name]
		if !present {
			if p.Required {
				*errs = append(*errs, FieldError{Field: join(path, p.Name), Message: "is required"})
			}
			continue
		}
		out[p.Name] = validate(p.Schema, val, join(path, p.Name), errs)
	}
	return out
}

func sortedKeys(m map[string]any) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return keys
}

func contains(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}

func toInt(v any) (int64, bool) {
	switch n := v.(type) {
	case int64:
		return n, true
	case int:
		return int64(n), true
	case json.Number:
		if i, err := n.Int64(); err == nil {
			return i, true
		}
		// 3.0 is an integer in JSON Schema; 3.5 is not.
		if f, err := n.Float64(); err == nil && f == math.Trunc(f) && math.Abs(f) < 1<<53 {
			return int64(f), true
		}
	case float64:
		if n == math.Trunc(n) && math.Abs(n) < 1<<53 {
			return int64(n), true
		}
	}
	return 0, false
}

func toFloat(v any) (float64, bool) {
	switch n := v.(type) {
	case json.Number:
		f, err := n.Float64()
		return f, err == nil
	case float64:
		return n, true
	case int64:
		return float64(n), true
	}
	return 0, false
}

// Coerce turns a raw query or path string into the schema's type, so the
// same Validate runs on REST parameters and on MCP tool arguments.
func Coerce(s *Schema, raw string) (any, bool) {
	switch s.Type {
	case "integer":
		n, err := strconv.ParseInt(raw, 10, 64)
		return n, err == nil
	case "boolean":
		b, err := strconv.ParseBool(raw)
		return b, err == nil
	default:
		return raw, true
	}
}
