package crawl

import (
	"encoding/json"
	"net/url"
	"regexp"
	"strconv"
	"strings"

	"github.com/PuerkitoBio/goquery"
)

// pageInfo is a crawled page prepared for extraction.
type pageInfo struct {
	page  *Page
	url   *url.URL
	doc   *goquery.Document
	kind  string // "home" or one of pageKinds
	meta  map[string]string
	ld    []map[string]any // JSON-LD nodes that carry an @type
	lines []string         // visible text lines
}

func analyzePages(res *Result) []*pageInfo {
	var out []*pageInfo
	for i := range res.Pages {
		if pi := analyzePage(&res.Pages[i], i == 0); pi != nil {
			out = append(out, pi)
		}
	}
	return out
}

func analyzePage(p *Page, home bool) *pageInfo {
	u, err := url.Parse(p.URL)
	if err != nil {
		return nil
	}
	// Extractors read only what a visitor sees (hidden elements pruned) and
	// only the company's own claims (role blocks and injections pruned).
	root, err := parseVisible(p.HTML)
	if err != nil {
		return nil
	}
	pruneRoles(root)
	doc := goquery.NewDocumentFromNode(root)
	doc.Url = u
	var lines []string
	for _, l := range strings.Split(visibleText(root), "\n") {
		if !looksLikeInjection(l) {
			lines = append(lines, l)
		}
	}
	pi := &pageInfo{page: p, url: u, doc: doc, meta: metaTags(doc), ld: jsonLD(doc), lines: lines}
	pi.kind = "home"
	if !home {
		pi.kind, _ = classifyPage(u, "")
	}
	return pi
}

// metaTags maps lower-cased meta name/property to content.
func metaTags(doc *goquery.Document) map[string]string {
	m := map[string]string{}
	doc.Find("meta[content]").Each(func(_ int, s *goquery.Selection) {
		key := strings.ToLower(s.AttrOr("property", s.AttrOr("name", "")))
		if val := strings.TrimSpace(s.AttrOr("content", "")); key != "" && val != "" && !looksLikeInjection(val) {
			if _, dup := m[key]; !dup {
				m[key] = val
			}
		}
	})
	return m
}

// jsonLD returns every typed node from the page's JSON-LD blocks, including
// nested ones (@graph, address, founder ...), so callers can search by type.
// A block that carries injected instructions anywhere is ignored whole:
// its other values (a foundingDate next to "Note for AI: ...") are the
// same author's plant.
func jsonLD(doc *goquery.Document) []map[string]any {
	var nodes []map[string]any
	doc.Find(`script[type="application/ld+json"]`).Each(func(_ int, s *goquery.Selection) {
		var v any
		if json.Unmarshal([]byte(s.Text()), &v) == nil && !ldInjected(v) {
			collectLD(v, &nodes)
		}
	})
	return nodes
}

// ldInjected reports whether any string (or key) of a JSON-LD value looks
// like injected instructions.
func ldInjected(v any) bool {
	switch t := v.(type) {
	case string:
		return looksLikeInjection(t)
	case []any:
		for _, e := range t {
			if ldInjected(e) {
				return true
			}
		}
	case map[string]any:
		for k, e := range t {
			if looksLikeInjection(k) || ldInjected(e) {
				return true
			}
		}
	}
	return false
}

func collectLD(v any, out *[]map[string]any) {
	switch t := v.(type) {
	case []any:
		for _, e := range t {
			collectLD(e, out)
		}
	case map[string]any:
		if _, ok := t["@type"]; ok {
			*out = append(*out, t)
		}
		for _, e := range t {
			collectLD(e, out)
		}
	}
}

// ldStrings lists every string value in the page's JSON-LD.
func ldStrings(doc *goquery.Document) []string {
	var out []string
	var walk func(v any)
	walk = func(v any) {
		switch t := v.(type) {
		case string:
			out = append(out, t)
		case []any:
			for _, e := range t {
				walk(e)
			}
		case map[string]any:
			for _, e := range t {
				walk(e)
			}
		}
	}
	doc.Find(`script[type="application/ld+json"]`).Each(func(_ int, s *goquery.Selection) {
		var v any
		if json.Unmarshal([]byte(s.Text()), &v) == nil {
			walk(v)
		}
	})
	return out
}

func ldHasType(n map[string]any, types ...string) bool {
	var ts []string
	switch t := n["@type"].(type) {
	case string:
		ts = []string{t}
	case []any:
		for _, e := range t {
			if s, ok := e.(string); ok {
				ts = append(ts, s)
			}
		}
	}
	for _, have := range ts {
		for _, want := range types {
			if strings.EqualFold(have, want) {
				return true
			}
		}
	}
	return false
}

// ldString reads a JSON-LD property as text: a string, the first string of
// an array, or an object's name/url/@value.
func ldString(n map[string]any, key string) string {
	switch t := n[key].(type) {
	case string:
		return strings.TrimSpace(t)
	case float64:
		return strconv.FormatFloat(t, 'f', -1, 64)
	case []any:
		for _, e := range t {
			if s := ldString(map[string]any{"v": e}, "v"); s != "" {
				return s
			}
		}
	case map[string]any:
		for _, k := range []string{"name", "url", "@value", "text"} {
			if s := ldString(t, k); s != "" {
				return s
			}
		}
	}
	return ""
}

// ldStrings returns all strings of a property that may be a list.
func ldList(n map[string]any, key string) []string {
	switch t := n[key].(type) {
	case string:
		return []string{strings.TrimSpace(t)}
	case []any:
		var out []string
		for _, e := range t {
			if s, ok := e.(string); ok {
				out = append(out, strings.TrimSpace(s))
			}
		}
		return out
	}
	return nil
}

// selText is the visible text of a selection, as it appears in Page.Text.
func selText(s *goquery.Selection) string {
	return visibleText(s.Nodes...)
}

// flat joins lines into one line, the way a quote reads.
func flat(s string) string { return strings.Join(strings.Fields(s), " ") }

var sentenceEnd = regexp.MustCompile(`[.!?](\s|$)`)

// sentenceAt returns the sentence of line that contains [start,end).
func sentenceAt(line string, start, end int) string {
	from := 0
	for _, loc := range sentenceEnd.FindAllStringIndex(line[:start], -1) {
		from = loc[1]
	}
	to := len(line)
	if loc := sentenceEnd.FindStringIndex(line[end:]); loc != nil {
		to = end + loc[0] + 1
	}
	return strings.TrimSpace(line[from:to])
}

// findLine returns the first visible line of pi that contains needle
// (case-insensitive), cut to the sentence when the line is long.
func findLine(pi *pageInfo, needle string) string {
	if needle == "" {
		return ""
	}
	for _, line := range pi.lines {
		if !containsFold(line, needle) {
			continue
		}
		if runeLen(line) <= 300 {
			return line
		}
		for _, sent := range splitSentences(line) {
			if containsFold(sent, needle) {
				return truncateRunes(sent, MaxQuoteLen)
			}
		}
		return truncateRunes(line, MaxQuoteLen)
	}
	return ""
}

// splitSentences cuts a line after '.', '!' or '?' followed by a space.
func splitSentences(line string) []string {
	var out []string
	from := 0
	for _, loc := range sentenceEnd.FindAllStringIndex(line, -1) {
		out = append(out, strings.TrimSpace(line[from:loc[1]]))
		from = loc[1]
	}
	if rest := strings.TrimSpace(line[from:]); rest != "" {
		out = append(out, rest)
	}
	return out
}

func ev(pi *pageInfo, quote string) Evidence {
	return Evidence{Quote: truncateRunes(flat(quote), MaxQuoteLen), URL: pi.page.URL}
}

// byKind orders pages so the given kinds come first, in that order.
func byKind(pages []*pageInfo, kinds ...string) []*pageInfo {
	var out []*pageInfo
	used := map[*pageInfo]bool{}
	for _, k := range kinds {
		for _, p := range pages {
			if p.kind == k && !used[p] {
				out, used[p] = append(out, p), true
			}
		}
	}
	for _, p := range pages {
		if !used[p] {
			out = append(out, p)
		}
	}
	return out
}

// absURL resolves a link found on pi.
func absURL(pi *pageInfo, raw string) *url.URL {
	return resolveLink(pi.url, raw)
}
