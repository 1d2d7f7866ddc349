package crawl

import (
	"strings"
)

// Evidence quote forms. A plain quote is text copied from the visible text
// of the cited page. Facts a visitor does not read but the page states in
// its markup are quoted in their own form, which Guard checks against that
// markup:
//
//	title: <the page title>
//	meta <name or property>: <content>       e.g. "meta og:site_name: Tallyo"
//	json-ld <Type>.<property>: <value>        e.g. "json-ld Organization.email: hi@x.example"
//	link: <href or src of a link or image on the page>
const (
	titlePrefix = "title: "
	metaPrefix  = "meta "
	ldPrefix    = "json-ld "
	linkPrefix  = "link: "
)

// metaQuote splits a metadata quote into its form ("title", "meta",
// "json-ld", "link"), its key (meta name, "Type.property") and value.
func metaQuote(q string) (kind, key string, ok bool) {
	switch {
	case strings.HasPrefix(q, titlePrefix):
		return "title", "", true
	case strings.HasPrefix(q, linkPrefix):
		return "link", "", true
	case strings.HasPrefix(q, metaPrefix), strings.HasPrefix(q, ldPrefix):
		kind = "meta"
		rest := strings.TrimPrefix(q, metaPrefix)
		if strings.HasPrefix(q, ldPrefix) {
			kind, rest = "json-ld", strings.TrimPrefix(q, ldPrefix)
		}
		k, _, found := strings.Cut(rest, ": ")
		if !found || k == "" || strings.ContainsAny(k, " \n") {
			return "", "", false
		}
		return kind, strings.ToLower(k), true
	}
	return "", "", false
}

// metaValue is the value part of a metadata quote.
func metaValue(q string) string {
	if strings.HasPrefix(q, titlePrefix) {
		return strings.TrimPrefix(q, titlePrefix)
	}
	if strings.HasPrefix(q, linkPrefix) {
		return strings.TrimPrefix(q, linkPrefix)
	}
	_, v, _ := strings.Cut(q, ": ")
	return v
}

func metaEv(pi *pageInfo, key string) Evidence {
	return Evidence{Quote: truncateRunes(metaPrefix+key+": "+flat(pi.meta[key]), MaxQuoteLen), URL: pi.page.URL}
}

func ldEv(pi *pageInfo, typ, prop, val string) Evidence {
	return Evidence{Quote: truncateRunes(ldPrefix+typ+"."+prop+": "+flat(val), MaxQuoteLen), URL: pi.page.URL}
}

func titleEv(pi *pageInfo) Evidence {
	return Evidence{Quote: truncateRunes(titlePrefix+flat(pi.page.Title), MaxQuoteLen), URL: pi.page.URL}
}

func linkEv(pi *pageInfo, raw string) Evidence {
	return Evidence{Quote: linkPrefix + strings.TrimSpace(raw), URL: pi.page.URL}
}

// ldType is the first schema.org type of a node.
func ldType(n map[string]any) string {
	switch t := n["@type"].(type) {
	case string:
		return t
	case []any:
		for _, e := range t {
			if s, ok := e.(string); ok {
				return s
			}
		}
	}
	return ""
}

// ldFacts lists "type.prop" -> folded values for every typed node, as
// Guard's proof of json-ld quotes.
func ldFacts(nodes []map[string]any) map[string][]string {
	out := map[string][]string{}
	for _, n := range nodes {
		var types []string
		switch t := n["@type"].(type) {
		case string:
			types = []string{t}
		case []any:
			for _, e := range t {
				if s, ok := e.(string); ok {
					types = append(types, s)
				}
			}
		}
		for k := range n {
			if strings.HasPrefix(k, "@") {
				continue
			}
			var vals []string
			if s := ldString(n, k); s != "" {
				vals = append(vals, s)
			}
			vals = append(vals, ldList(n, k)...)
			for _, typ := range types {
				key := strings.ToLower(typ + "." + k)
				for _, v := range vals {
					out[key] = append(out[key], foldText(v))
				}
			}
		}
	}
	return out
}
