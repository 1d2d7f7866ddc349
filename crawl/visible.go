package crawl

import (
	"bytes"
	"regexp"
	"strconv"
	"strings"

	"golang.org/x/net/html"
	"golang.org/x/net/html/atom"
)

// The visible-text model: what a visitor can read on a page. An element is
// hidden when its attributes (hidden, aria-hidden, a hiding class), its
// inline style or a simple rule of the page's <style> blocks (tag, .class,
// #id, tag.class selectors) hide it: display:none, visibility:hidden,
// opacity:0, font-size:0, zero width and height, clipping, off-screen
// positioning or text indent, or a text colour equal to its background or
// to the page's background. Hidden text is never evidence.

// hidingClasses are utility classes of common CSS frameworks whose sheets
// are external, so their rules are unknown to us.
var hidingClasses = map[string]bool{
	"hidden": true, "d-none": true, "sr-only": true, "visually-hidden": true, "visuallyhidden": true,
	"invisible": true, "screen-reader-text": true, "is-hidden": true, "hide": true, "offscreen": true,
}

// cssRule is one selector of compound parts (tag, .class, #id) and its
// declarations; anc are the ancestor compounds of a descendant selector
// (".footer .note", "footer p"), outermost first.
type cssRule struct {
	tag, class, id string
	anc            []cssRule
	decl           map[string]string
}

var (
	cssCommentRe = regexp.MustCompile(`(?s)/\*.*?\*/`)
	cssRuleRe    = regexp.MustCompile(`([^{}]+)\{([^{}]*)\}`)
	simpleSelRe  = regexp.MustCompile(`^([a-z][a-z0-9]*)?(?:\.([\w-]+))?(?:#([\w-]+))?$`)
)

// parseDecls reads "a:b; c:d" into a map with lower-cased, trimmed values.
func parseDecls(s string) map[string]string {
	m := map[string]string{}
	for _, d := range strings.Split(s, ";") {
		k, v, ok := strings.Cut(d, ":")
		if !ok {
			continue
		}
		k = strings.ToLower(strings.TrimSpace(k))
		v = strings.ToLower(strings.TrimSpace(strings.TrimSuffix(strings.TrimSpace(v), "!important")))
		if k != "" {
			m[k] = strings.TrimSpace(v)
		}
	}
	return m
}

// styleSheet collects the simple rules of all <style> blocks; @media and
// other nested blocks are skipped (their rules may not apply).
func styleSheet(root *html.Node) []cssRule {
	var css strings.Builder
	var walk func(n *html.Node)
	walk = func(n *html.Node) {
		if n.Type == html.ElementNode && n.DataAtom == atom.Style {
			for c := n.FirstChild; c != nil; c = c.NextSibling {
				css.WriteString(c.Data)
			}
			css.WriteString("\n")
			return
		}
		for c := n.FirstChild; c != nil; c = c.NextSibling {
			walk(c)
		}
	}
	walk(root)
	src := cssCommentRe.ReplaceAllString(css.String(), "")
	src = stripNestedBlocks(src)
	var rules []cssRule
	for _, m := range cssRuleRe.FindAllStringSubmatch(src, -1) {
		decl := parseDecls(m[2])
		for _, sel := range strings.Split(m[1], ",") {
			if r, ok := parseSelector(sel); ok {
				r.decl = decl
				rules = append(rules, r)
			}
		}
	}
	return rules
}

// parseSelector reads a simple or descendant selector ("p.note",
// ".footer .ai-note", "footer small"); child, sibling, attribute and
// pseudo selectors are not read (their rules may not apply).
func parseSelector(sel string) (cssRule, bool) {
	parts := strings.Fields(strings.ToLower(strings.TrimSpace(sel)))
	if len(parts) == 0 || len(parts) > 4 {
		return cssRule{}, false
	}
	var comps []cssRule
	for _, p := range parts {
		sm := simpleSelRe.FindStringSubmatch(p)
		if sm == nil || sm[0] == "" {
			return cssRule{}, false
		}
		comps = append(comps, cssRule{tag: sm[1], class: sm[2], id: sm[3]})
	}
	r := comps[len(comps)-1]
	r.anc = comps[:len(comps)-1]
	return r, true
}

// stripNestedBlocks drops @-rules with a nested block (@media {...{...}}).
func stripNestedBlocks(s string) string {
	var b strings.Builder
	for {
		i := strings.Index(s, "@")
		if i < 0 {
			b.WriteString(s)
			return b.String()
		}
		b.WriteString(s[:i])
		s = s[i:]
		open := strings.IndexAny(s, "{;")
		if open < 0 || s[open] == ';' {
			if open < 0 {
				return b.String()
			}
			s = s[open+1:]
			continue
		}
		depth, j := 0, open
		for ; j < len(s); j++ {
			if s[j] == '{' {
				depth++
			} else if s[j] == '}' {
				depth--
				if depth == 0 {
					break
				}
			}
		}
		if j >= len(s) {
			return b.String()
		}
		s = s[j+1:]
	}
}

func (r cssRule) matches(n *html.Node) bool {
	if !r.matchesSelf(n) {
		return false
	}
	// Ancestors, innermost last in anc, are matched walking up the tree.
	i := len(r.anc) - 1
	for p := n.Parent; p != nil && i >= 0; p = p.Parent {
		if p.Type == html.ElementNode && r.anc[i].matchesSelf(p) {
			i--
		}
	}
	return i < 0
}

func (r cssRule) matchesSelf(n *html.Node) bool {
	if r.tag != "" && r.tag != n.Data {
		return false
	}
	if r.id != "" && !strings.EqualFold(attr(n, "id"), r.id) {
		return false
	}
	if r.class != "" && !hasClass(n, r.class) {
		return false
	}
	return true
}

func attr(n *html.Node, key string) string {
	for _, a := range n.Attr {
		if strings.EqualFold(a.Key, key) {
			return a.Val
		}
	}
	return ""
}

func hasAttr(n *html.Node, key string) bool {
	for _, a := range n.Attr {
		if strings.EqualFold(a.Key, key) {
			return true
		}
	}
	return false
}

func hasClass(n *html.Node, class string) bool {
	for _, c := range strings.Fields(strings.ToLower(attr(n, "class"))) {
		if c == class {
			return true
		}
	}
	return false
}

// visModel decides visibility for one document.
type visModel struct {
	rules  []cssRule
	pageBG string // the body's/html's background colour, normalised
}

func newVisModel(root *html.Node) *visModel {
	m := &visModel{rules: styleSheet(root)}
	var find func(n *html.Node)
	find = func(n *html.Node) {
		if n.Type == html.ElementNode && (n.DataAtom == atom.Body || n.DataAtom == atom.Html) {
			if bg := background(m.style(n)); bg != "" {
				m.pageBG = bg
			}
		}
		if n.Type == html.ElementNode && n.DataAtom == atom.Body {
			return
		}
		for c := n.FirstChild; c != nil; c = c.NextSibling {
			find(c)
		}
	}
	find(root)
	if m.pageBG == "" {
		m.pageBG = "#ffffff" // browsers paint white by default
	}
	return m
}

// style merges the matching sheet rules with the inline style (inline wins).
func (m *visModel) style(n *html.Node) map[string]string {
	st := map[string]string{}
	for _, r := range m.rules {
		if r.matches(n) {
			for k, v := range r.decl {
				st[k] = v
			}
		}
	}
	for k, v := range parseDecls(attr(n, "style")) {
		st[k] = v
	}
	return st
}

func background(st map[string]string) string {
	if c := normColor(st["background-color"]); c != "" {
		return c
	}
	for _, part := range strings.Fields(st["background"]) {
		if c := normColor(part); c != "" {
			return c
		}
	}
	return ""
}

var namedColors = map[string]string{"white": "#ffffff", "black": "#000000", "red": "#ff0000", "transparent": "",
	"snow": "#fffafa", "ivory": "#fffff0", "whitesmoke": "#f5f5f5", "ghostwhite": "#f8f8ff", "floralwhite": "#fffaf0", "azure": "#f0ffff", "mintcream": "#f5fffa"}

// normColor gives #rrggbb for #rgb, #rrggbb, rgb(), rgba() with an opaque
// alpha and a few names.
func normColor(c string) string {
	c = strings.TrimSpace(strings.ToLower(c))
	if v, ok := namedColors[c]; ok {
		return v
	}
	if strings.HasPrefix(c, "rgba(") && strings.HasSuffix(c, ")") {
		parts := strings.Split(strings.TrimSuffix(strings.TrimPrefix(c, "rgba("), ")"), ",")
		if len(parts) != 4 {
			return ""
		}
		if a, err := strconv.ParseFloat(strings.TrimSpace(parts[3]), 64); err != nil || a < 0.9 {
			return ""
		}
		c = "rgb(" + strings.Join(parts[:3], ",") + ")"
	}
	if strings.HasPrefix(c, "#") {
		h := c[1:]
		switch len(h) {
		case 3, 4:
			return "#" + string([]byte{h[0], h[0], h[1], h[1], h[2], h[2]})
		case 6:
			return c
		case 8:
			return "#" + h[:6]
		}
		return ""
	}
	if strings.HasPrefix(c, "rgb(") && strings.HasSuffix(c, ")") {
		parts := strings.Split(strings.TrimSuffix(strings.TrimPrefix(c, "rgb("), ")"), ",")
		if len(parts) == 3 {
			var out strings.Builder
			out.WriteString("#")
			for _, p := range parts {
				v, err := strconv.Atoi(strings.TrimSpace(p))
				if err != nil || v < 0 || v > 255 {
					return ""
				}
				out.WriteString(strconv.FormatInt(int64(v)+0x100, 16)[1:])
			}
			return out.String()
		}
	}
	return ""
}

// cssLen reads a length in px (or a bare number); ok is false for others.
func cssLen(v string) (float64, bool) {
	v = strings.TrimSpace(v)
	for _, unit := range []string{"px", "em", "rem", "%", "pt", "vw", "vh"} {
		v = strings.TrimSuffix(v, unit)
	}
	f, err := strconv.ParseFloat(v, 64)
	return f, err == nil
}

func isZero(v string) bool {
	f, ok := cssLen(v)
	return ok && f == 0
}

var translateRe = regexp.MustCompile(`translate[xy]?\(\s*(-?[\d.]+)(px)?`)

// offTransform: translated far off the page ("translateX(-9999px)").
func offTransform(v string) bool {
	for _, m := range translateRe.FindAllStringSubmatch(v, -1) {
		if f, err := strconv.ParseFloat(m[1], 64); err == nil && (f <= -500 || f >= 5000) && m[2] == "px" {
			return true
		}
	}
	return false
}

func farOff(v string) bool {
	f, ok := cssLen(v)
	return ok && f <= -500
}

// hidden reports whether n itself hides its content; bg is the background
// colour the element is painted on (inherited).
func (m *visModel) hidden(n *html.Node, bg string) (bool, string) {
	if hasAttr(n, "hidden") || strings.EqualFold(attr(n, "aria-hidden"), "true") {
		return true, bg
	}
	for _, c := range strings.Fields(strings.ToLower(attr(n, "class"))) {
		if hidingClasses[c] {
			return true, bg
		}
	}
	st := m.style(n)
	switch {
	case st["display"] == "none", st["visibility"] == "hidden", st["visibility"] == "collapse":
		return true, bg
	case isZero(st["opacity"]), isZero(st["font-size"]), tiny(st["opacity"], 0.05), tiny(st["font-size"], 2):
		return true, bg
	case isZero(st["width"]) && isZero(st["height"]), (isZero(st["max-height"]) || isZero(st["height"])) && st["overflow"] == "hidden":
		return true, bg
	case (st["width"] == "1px" || isZero(st["width"])) && (st["height"] == "1px" || isZero(st["height"])) && st["overflow"] == "hidden":
		return true, bg
	case strings.HasPrefix(st["clip"], "rect(0") || strings.HasPrefix(strings.ReplaceAll(st["clip"], " ", ""), "rect(1px,1px,1px,1px") || strings.Contains(st["clip-path"], "inset(50%") || strings.Contains(st["clip-path"], "inset(100%") || strings.Contains(st["clip-path"], "circle(0"):
		return true, bg
	case farOff(st["text-indent"]):
		return true, bg
	case (st["position"] == "absolute" || st["position"] == "fixed") && (farOff(st["left"]) || farOff(st["top"]) || farOff(st["right"])):
		return true, bg
	case strings.Contains(st["transform"], "scale(0"), offTransform(st["transform"]):
		return true, bg
	}
	if own := background(st); own != "" {
		bg = own
	}
	if fg := normColor(st["color"]); fg != "" && sameColor(fg, bg) {
		return true, bg
	}
	if strings.TrimSpace(st["color"]) == "transparent" {
		return true, bg
	}
	return false, bg
}

// sameColor: text a reader cannot tell from its background (each channel
// within 12 of 255: #fefefe on white, #111 on black).
func sameColor(a, b string) bool {
	if a == b {
		return true
	}
	if len(a) != 7 || len(b) != 7 {
		return false
	}
	for i := 1; i < 7; i += 2 {
		x, err1 := strconv.ParseInt(a[i:i+2], 16, 32)
		y, err2 := strconv.ParseInt(b[i:i+2], 16, 32)
		if err1 != nil || err2 != nil || x-y > 12 || y-x > 12 {
			return false
		}
	}
	return true
}

// tiny: a size no reader can read (font-size under 2px, opacity under 0.05).
func tiny(v string, limit float64) bool {
	f, ok := cssLen(v)
	return ok && f < limit && !strings.HasSuffix(strings.TrimSpace(v), "%") && !strings.HasSuffix(strings.TrimSpace(v), "em")
}

// pruneHidden removes every hidden element (and HTML comments) from the
// tree, so later reads of the document see only what a visitor sees.
// <head>, <script> and <style> stay: metadata and JSON-LD live there.
func pruneHidden(root *html.Node) {
	m := newVisModel(root)
	var walk func(n *html.Node, bg string)
	walk = func(n *html.Node, bg string) {
		for c := n.FirstChild; c != nil; {
			next := c.NextSibling
			switch c.Type {
			case html.CommentNode:
				n.RemoveChild(c)
			case html.ElementNode:
				if c.DataAtom == atom.Head || c.DataAtom == atom.Script || c.DataAtom == atom.Style {
					break
				}
				if hid, cbg := m.hidden(c, bg); hid {
					n.RemoveChild(c)
				} else {
					walk(c, cbg)
				}
			default:
				walk(c, bg)
			}
			c = next
		}
	}
	walk(root, m.pageBG)
}

// parseVisible parses a page and prunes what a visitor cannot see.
func parseVisible(page []byte) (*html.Node, error) {
	root, err := html.Parse(bytes.NewReader(page))
	if err != nil {
		return nil, err
	}
	pruneHidden(root)
	return root, nil
}

// VisibleText is the text a visitor reads on an HTML page, one block per
// line: the visible-text model applied to the decoded markup.
func VisibleText(page []byte) string {
	root, err := parseVisible(page)
	if err != nil {
		return ""
	}
	return visibleText(root)
}
