package site

import (
	"encoding/json"
	"reflect"
	"sync"

	"launchdir/db"
	"launchdir/ops"
)

// A page takes an operation's output as the handler made it, not through
// JSON: encoding a list of 40 summaries for the page to decode it again
// was a quarter of the home page's CPU. The rule that keeps this safe and
// equal to the REST door's answer:
//
//   - The value goes into the page's data only when the data is of the
//     value's type or embeds it (weekData embeds catalog.LaunchWeek), so
//     the compiler checks every field the page reads. Any other shape, and
//     an output a read cache kept encoded (an ops.Encoded without its
//     Value), goes through JSON as before.
//   - A handler's value may be shared with the read cache, and a page
//     writes its card views into the summaries (decorateCards). So every
//     list of summaries the value holds is copied first, along with the
//     structs on the way to it; nothing the page writes reaches the cache.

// place puts an operation's output v into out (a pointer).
func place(v any, out any) error {
	if enc, ok := v.(ops.Encoded); ok {
		if enc.Value == nil {
			return json.Unmarshal(enc.JSON, out)
		}
		v = enc.Value
	}
	src := reflect.ValueOf(v)
	if src.Kind() == reflect.Pointer && !src.IsNil() {
		src = src.Elem()
	}
	dst := reflect.ValueOf(out)
	if src.IsValid() && dst.Kind() == reflect.Pointer && !dst.IsNil() {
		if slot, ok := slotFor(dst.Elem(), src.Type()); ok {
			slot.Set(src)
			ownCards(slot, 0)
			return nil
		}
	}
	b, err := json.Marshal(v)
	if err != nil {
		return err
	}
	return json.Unmarshal(b, out)
}

// slotFor is dst itself when it has type t, or dst's embedded field of
// type t.
func slotFor(dst reflect.Value, t reflect.Type) (reflect.Value, bool) {
	if dst.Type() == t {
		return dst, true
	}
	if dst.Kind() != reflect.Struct {
		return reflect.Value{}, false
	}
	for i := range dst.NumField() {
		f := dst.Type().Field(i)
		if f.Anonymous && f.IsExported() && f.Type == t {
			return dst.Field(i), true
		}
	}
	return reflect.Value{}, false
}

var summaryType = reflect.TypeFor[db.Summary]()

// ownCards replaces every slice of summaries under v, and every pointer on
// the way to one, by a copy of its own (v is settable). Summaries are the
// only thing a page writes into (their Card); the rest stays shared.
func ownCards(v reflect.Value, depth int) {
	if depth > 8 || !holdsSummaries(v.Type()) {
		return
	}
	switch v.Kind() {
	case reflect.Pointer:
		if v.IsNil() {
			return
		}
		c := reflect.New(v.Type().Elem())
		c.Elem().Set(v.Elem())
		ownCards(c.Elem(), depth+1)
		v.Set(c)
	case reflect.Interface:
		if v.IsNil() {
			return
		}
		c := reflect.New(v.Elem().Type()).Elem()
		c.Set(v.Elem())
		ownCards(c, depth+1)
		v.Set(c)
	case reflect.Struct:
		if v.Type() == summaryType {
			return // a value in an owned struct or slice: already a copy
		}
		for i := range v.NumField() {
			if v.Type().Field(i).IsExported() {
				ownCards(v.Field(i), depth+1)
			}
		}
	case reflect.Array:
		for i := range v.Len() {
			ownCards(v.Index(i), depth+1)
		}
	case reflect.Slice:
		if v.IsNil() {
			return
		}
		c := reflect.MakeSlice(v.Type(), v.Len(), v.Len())
		reflect.Copy(c, v)
		for i := range c.Len() {
			ownCards(c.Index(i), depth+1)
		}
		v.Set(c)
	}
}

var summaryHolders sync.Map // reflect.Type → bool

// holdsSummaries reports whether a value of type t can reach a db.Summary
// through exported fields, slices, arrays, pointers or interfaces (an
// interface might hold anything: it counts).
func holdsSummaries(t reflect.Type) bool {
	if h, ok := summaryHolders.Load(t); ok {
		return h.(bool)
	}
	h := reaches(t, map[reflect.Type]bool{})
	summaryHolders.Store(t, h) // only the top result: inner ones may have met a cycle
	return h
}

func reaches(t reflect.Type, seen map[reflect.Type]bool) bool {
	if seen[t] {
		return false // a cycle adds nothing its first visit does not find
	}
	seen[t] = true
	switch t.Kind() {
	case reflect.Struct:
		if t == summaryType {
			return true
		}
		for i := range t.NumField() {
			if t.Field(i).IsExported() && reaches(t.Field(i).Type, seen) {
				return true
			}
		}
	case reflect.Pointer, reflect.Slice, reflect.Array:
		return reaches(t.Elem(), seen)
	case reflect.Interface:
		return true
	}
	return false
}
