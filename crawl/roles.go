package crawl

import (
	"regexp"
	"strings"

	"golang.org/x/net/html"
	"golang.org/x/net/html/atom"
)

// Page roles: a page mixes the company's own claims with site chrome and
// other people's words. Blocks in these roles are visible (and may be
// quoted by a visitor) but are left out of the document the extractors
// read, so they cannot become a profile value:
//   - cookie and consent banners, newsletter and other pop-ups/dialogs;
//   - testimonials and reviews (other people, their cities and years);
//   - customer, client and partner logo walls, integrations lists.
// Legal and trademark boilerplate is recognised sentence by sentence
// (isBoilerplate), as it often shares a block with the postal address.

// roleParts are class/id words (split on - and _) that name such a block.
var roleParts = map[string]bool{
	"cookie": true, "cookies": true, "consent": true, "gdpr": true, "cmp": true,
	"newsletter": true, "subscribe": true, "popup": true, "modal": true, "overlay": true,
	"testimonial": true, "testimonials": true, "review": true, "reviews": true, "quotes": true,
	"customers": true, "clients": true, "logos": true, "partners": true, "integrations": true,
	"brands": true, "press": true, "sponsors": true, "trusted": true, "wall": true, "kunden": true,
	"clientes": true, "temoignages": true, "testimonios": true, "referenzen": true,
}

// roleHeadingRe names a section of other people's words or brands.
var roleHeadingRe = regexp.MustCompile(`(?i)^(?:trusted by|used by|loved by|our (?:customers|clients|partners)|customers|clients|what (?:our )?(?:customers|users|people|clients) (?:say|think)|testimonials|reviews|partners|powered by|integrations|works with|integrates with|as seen (?:in|on)|featured in|in the press|stay in the loop|subscribe|newsletter|das sagen|kundenstimmen|unsere kunden|referenzen|partner|integrationen|ils nous font confiance|nos clients|témoignages|ils parlent de nous|intégrations|nuestros clientes|testimonios|opiniones|integraciones|confían en nosotros)\b`)

var containerTags = map[atom.Atom]bool{
	atom.Div: true, atom.Section: true, atom.Aside: true, atom.Ul: true, atom.Ol: true, atom.Figure: true,
	atom.Blockquote: true, atom.Dialog: true, atom.Form: true, atom.P: true, atom.Article: true, atom.Li: true,
}

// roleBlock reports whether n is a block in one of the roles above.
func roleBlock(n *html.Node) bool {
	if n.Type != html.ElementNode {
		return false
	}
	switch n.DataAtom {
	case atom.Dialog, atom.Blockquote:
		return true
	}
	if !containerTags[n.DataAtom] {
		return false
	}
	role := strings.ToLower(attr(n, "role"))
	if role == "dialog" || role == "alertdialog" || strings.EqualFold(attr(n, "aria-modal"), "true") {
		return true
	}
	for _, tok := range strings.Fields(strings.ToLower(attr(n, "class") + " " + attr(n, "id"))) {
		for _, part := range strings.FieldsFunc(tok, func(r rune) bool { return r == '-' || r == '_' }) {
			if roleParts[foldASCII(part)] {
				return true
			}
		}
	}
	if n.DataAtom == atom.Section || n.DataAtom == atom.Div || n.DataAtom == atom.Aside {
		if h := firstHeading(n); h != nil && roleHeadingRe.MatchString(flat(visibleText(h))) {
			return true
		}
	}
	return false
}

// firstHeading is the first h1-h6 among n's first children.
func firstHeading(n *html.Node) *html.Node {
	seen := 0
	for c := n.FirstChild; c != nil && seen < 3; c = c.NextSibling {
		if c.Type != html.ElementNode {
			continue
		}
		seen++
		if headingLevel(c) > 0 {
			return c
		}
	}
	return nil
}

// pruneRoles removes role blocks and blocks whose own text is injected
// instructions (visible injections must not feed extractors either).
func pruneRoles(root *html.Node) {
	var walk func(n *html.Node)
	walk = func(n *html.Node) {
		for c := n.FirstChild; c != nil; {
			next := c.NextSibling
			if c.Type == html.ElementNode && c.DataAtom != atom.Head && c.DataAtom != atom.Body && c.DataAtom != atom.Html {
				if roleBlock(c) || (blockTags[c.DataAtom] && leafBlock(c) && looksLikeInjection(flat(visibleText(c)))) {
					n.RemoveChild(c)
					c = next
					continue
				}
			}
			walk(c)
			c = next
		}
	}
	walk(root)
}

// leafBlock has no block element inside.
func leafBlock(n *html.Node) bool {
	for c := n.FirstChild; c != nil; c = c.NextSibling {
		if c.Type == html.ElementNode && blockTags[c.DataAtom] && c.DataAtom != atom.Br {
			return false
		}
		if c.Type == html.ElementNode && !leafBlock(c) {
			return false
		}
	}
	return true
}

// foldASCII drops accents from a lower-case word ("témoignages").
func foldASCII(s string) string {
	return accentFolder.Replace(s)
}

var accentFolder = strings.NewReplacer("é", "e", "è", "e", "ê", "e", "ë", "e", "à", "a", "â", "a", "ä", "a", "á", "a",
	"î", "i", "ï", "i", "í", "i", "ô", "o", "ö", "o", "ó", "o", "ù", "u", "û", "u", "ü", "u", "ú", "u", "ç", "c", "ñ", "n", "ß", "ss")

// boilerplateRe marks legal, trademark and consent sentences: true, but
// about the law or other companies, never about the product.
var boilerplateRe = regexp.MustCompile(`(?i)\btrademarks?\b|\bregistered\s+(?:in|with|office|trademark)\b|\bmarques?\s+déposées?\b|\beingetragene\s+marke\b|\bmarcas?\s+registradas?\b|\ball\s+rights\s+reserved\b|\bdroits\s+réservés\b|\brechte\s+vorbehalten\b|\bderechos\s+reservados\b|\bchamber\s+of\s+commerce\b|\bhandelsregister\b|\bamtsgericht\b|\bcompany\s+(?:number|no\.?)\b|\bregulated\s+by\b|\bprovided\s+by\b|\bnot\s+a\s+bank\b|\bproperty\s+of\s+their\b|\bcookie\s+policy\b|\bprivacy\s+policy\b|\bdatenschutz\w*\b|©|\(c\)\s*\d{4}`)

func isBoilerplate(s string) bool { return boilerplateRe.MatchString(s) }
