package crawl

import (
	"strings"
)

// profileSchema is the strict JSON schema the LLM must answer with. Strict
// mode needs every property required and no extra properties, so unknown
// values are "" or [].
func profileSchema() map[string]any {
	str := map[string]any{"type": "string"}
	evidence := map[string]any{"type": "array", "items": object(map[string]any{"quote": str, "url": str})}
	fields := map[string]any{}
	for _, k := range StringFields {
		fields[k] = object(map[string]any{"value": str, "evidence": evidence})
	}
	for _, k := range ListFields {
		fields[k] = object(map[string]any{"value": map[string]any{"type": "array", "items": str}, "evidence": evidence})
	}
	platform := map[string]any{"type": "string", "enum": SocialPlatforms}
	social := object(map[string]any{"platform": platform, "url": str, "evidence": evidence})
	return object(map[string]any{
		"fields": object(fields),
		"faqs":   map[string]any{"type": "array", "items": object(map[string]any{"question": str, "answer": str, "evidence": evidence})},
		"founders": map[string]any{"type": "array", "items": object(map[string]any{
			"name": str, "title": str, "bio": str, "evidence": evidence,
			"socials": map[string]any{"type": "array", "items": object(map[string]any{"platform": platform, "url": str})},
		})},
		"socials": map[string]any{"type": "array", "items": social},
	})
}

func object(props map[string]any) map[string]any {
	return map[string]any{"type": "object", "properties": props, "required": sortedKeys(props), "additionalProperties": false}
}

// profileFromJSON re-validates an LLM answer: unknown keys are dropped,
// types and lengths checked, categories mapped onto the allowed names and
// evidence URLs limited to crawled pages. Evidence content is Guard's job.
func profileFromJSON(raw any, res *Result, categories []string) *Profile {
	p := newProfile()
	top, _ := raw.(map[string]any)
	pages := map[string]bool{}
	for _, pg := range res.Pages {
		pages[pg.URL] = true
	}
	fields, _ := top["fields"].(map[string]any)
	for _, k := range append(append([]string{}, StringFields...), ListFields...) {
		if v, ok := fieldFromJSON(k, fields[k], pages, categories); ok {
			p.Fields[k] = v
		}
	}
	for _, f := range jsonList(top["faqs"]) {
		q, a := jsonStr(f, "question"), jsonStr(f, "answer")
		if q != "" && a != "" && len(p.FAQs) < MaxFAQs {
			p.FAQs = append(p.FAQs, FAQ{Question: q, Answer: a, Evidence: evidenceFromJSON(f["evidence"], pages)})
		}
	}
	for _, f := range jsonList(top["founders"]) {
		if name := jsonStr(f, "name"); name != "" && len(p.Founders) < MaxFounders {
			fd := Founder{Name: name, Title: jsonStr(f, "title"), Bio: jsonStr(f, "bio"), Socials: map[string]string{}, Evidence: evidenceFromJSON(f["evidence"], pages)}
			for _, s := range jsonList(f["socials"]) {
				if pl, u := jsonStr(s, "platform"), jsonStr(s, "url"); isPlatform(pl) && u != "" {
					fd.Socials[pl] = u
				}
			}
			p.Founders = append(p.Founders, fd)
		}
	}
	for _, s := range jsonList(top["socials"]) {
		pl, u := jsonStr(s, "platform"), jsonStr(s, "url")
		if _, dup := p.Socials[pl]; isPlatform(pl) && u != "" && !dup {
			p.Socials[pl] = Value{Value: u, Evidence: evidenceFromJSON(s["evidence"], pages)}
		}
	}
	return p
}

func fieldFromJSON(key string, raw any, pages map[string]bool, categories []string) (Value, bool) {
	obj, _ := raw.(map[string]any)
	if obj == nil {
		return Value{}, false
	}
	evs := evidenceFromJSON(obj["evidence"], pages)
	if isListField(key) {
		items := listFromJSON(key, obj["value"], categories)
		return Value{Value: items, Evidence: evs}, len(items) > 0
	}
	s, _ := obj["value"].(string)
	s = strings.TrimSpace(s)
	limit := MaxStringLen
	if key == "description" {
		limit = MaxDescriptionLen
	}
	if key == "country" {
		code, ok := countryCode(s)
		if !ok {
			return Value{}, false
		}
		s = code
	}
	return Value{Value: s, Evidence: evs}, s != "" && runeLen(s) <= limit
}

func listFromJSON(key string, raw any, categories []string) []string {
	arr, _ := raw.([]any)
	var out []string
	for _, e := range arr {
		s, _ := e.(string)
		s = strings.TrimSpace(s)
		if key == "categories" {
			s = matchCategory(s, categories)
		}
		if s != "" && runeLen(s) <= MaxItemLen && len(out) < MaxItems {
			out = append(out, s)
		}
	}
	return out
}

// matchCategory returns the allowed name equal to s ignoring case, or "".
func matchCategory(s string, categories []string) string {
	for _, c := range categories {
		if strings.EqualFold(strings.TrimSpace(c), s) {
			return c
		}
	}
	return ""
}

func evidenceFromJSON(raw any, pages map[string]bool) []Evidence {
	var out []Evidence
	for _, e := range jsonList(raw) {
		q, u := jsonStr(e, "quote"), jsonStr(e, "url")
		if q != "" && pages[u] && len(out) < 10 {
			out = append(out, Evidence{Quote: truncateRunes(q, MaxQuoteLen), URL: u})
		}
	}
	return out
}

func jsonList(raw any) []map[string]any {
	arr, _ := raw.([]any)
	var out []map[string]any
	for _, e := range arr {
		if m, ok := e.(map[string]any); ok {
			out = append(out, m)
		}
	}
	return out
}

func jsonStr(m map[string]any, key string) string {
	s, _ := m[key].(string)
	return strings.TrimSpace(s)
}
