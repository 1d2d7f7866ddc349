package crawl

import (
	"bytes"
	"context"
	"net/url"
	"path"
	"sort"
	"strings"

	"github.com/PuerkitoBio/goquery"
)

// pageKinds are the pages a profile needs, in crawl priority order, with the
// URL slugs and link texts (folded: lower case, no accents) that identify
// them in English, German, French, Spanish and a few other languages.
var pageKinds = []struct {
	kind  string
	words []string
}{
	{"about", []string{"about", "about-us", "about us", "company", "story", "our-story", "our story", "mission", "who-we-are", "who we are",
		"ueber-uns", "uber-uns", "ueber uns", "uber uns", "unternehmen", "wir", "ueber", "a-propos", "a propos", "qui-sommes-nous", "qui sommes-nous",
		"qui sommes nous", "notre-histoire", "notre histoire", "entreprise", "sobre-nosotros", "sobre nosotros", "quienes-somos", "quienes somos",
		"nosotros", "empresa", "nuestra historia", "over-ons", "over ons", "chi-siamo", "chi siamo", "om-oss", "om oss"}},
	{"pricing", []string{"pricing", "prices", "plans", "price", "plans-pricing", "plans & pricing", "preise", "preis", "tarife", "preise & tarife",
		"tarifs", "tarif", "prix", "offres", "nos offres", "abonnements", "precios", "planes", "tarifas", "prijzen", "prezzi", "priser",
		"shop", "store", "buy", "kaufen", "boutique", "tienda", "comprar", "acheter"}},
	{"features", []string{"features", "feature", "product", "how-it-works", "how it works", "tour", "funktionen", "produkt", "so-funktionierts",
		"fonctionnalites", "produit", "funcionalidades", "caracteristicas", "producto", "platform", "connectors"}},
	{"faq", []string{"faq", "faqs", "questions", "frequently-asked-questions", "frequently asked questions", "help", "haeufige-fragen", "haufige-fragen",
		"haufige fragen", "fragen", "hilfe", "questions frequentes", "questions-frequentes", "aide", "preguntas-frecuentes", "preguntas frecuentes",
		"preguntas", "ayuda", "veelgestelde-vragen", "community", "support"}},
	{"team", []string{"team", "our-team", "our team", "people", "founders", "leadership", "das team", "unser team", "equipe", "l'equipe", "notre equipe",
		"equipo", "nuestro equipo", "meet the team"}},
	{"contact", []string{"contact", "contact-us", "contact us", "imprint", "impressum", "kontakt", "nous-contacter", "nous contacter", "contactez-nous",
		"contactez nous", "contacto", "contactanos", "mentions-legales", "mentions legales", "aviso-legal", "aviso legal", "legal-notice", "legal notice"}},
	{"blog", []string{"blog", "news", "journal", "actualites", "noticias", "neuigkeiten"}},
	{"changelog", []string{"changelog", "releases", "release-notes", "updates", "whats-new"}},
}

// candidate is a same-site link that might be one of the pageKinds.
type candidate struct {
	u        *url.URL
	kind     string
	score    int
	fromHome bool
}

// classifyPage names the kind of page a URL (and its link text) points to:
// the last path segment naming a kind scores 3, an earlier one 1, a link
// text naming it 2 more. Texts and slugs are compared accent-folded.
func classifyPage(u *url.URL, text string) (string, int) {
	segs := pathSegments(u.Path)
	text = foldSlug(strings.Trim(strings.TrimSpace(text), "?!:"))
	best, bestScore := "", 0
	for _, pk := range pageKinds {
		score := 0
		for _, w := range pk.words {
			w = strings.ReplaceAll(foldSlug(w), " ", "-")
			for i, seg := range segs {
				if seg == w && i == len(segs)-1 {
					score = max(score, 3)
				} else if seg == w {
					score = max(score, 1)
				}
			}
		}
		for _, w := range pk.words {
			phrase := strings.ReplaceAll(foldSlug(w), "-", " ")
			if text != "" && (text == phrase || strings.HasPrefix(text, phrase+" ") || strings.HasSuffix(text, " "+phrase)) {
				score += 2
				break
			}
		}
		if score > bestScore {
			best, bestScore = pk.kind, score
		}
	}
	return best, bestScore
}

// foldSlug lower-cases, drops accents and collapses spaces.
func foldSlug(s string) string {
	return strings.Join(strings.Fields(foldASCII(strings.ToLower(normalizeText(s)))), " ")
}

func pathSegments(p string) []string {
	var out []string
	for _, s := range strings.Split(p, "/") {
		if un, err := url.PathUnescape(s); err == nil {
			s = un
		}
		s = foldSlug(s)
		s = strings.TrimSuffix(strings.TrimSuffix(strings.TrimSuffix(s, ".html"), ".htm"), ".php")
		s = strings.ReplaceAll(s, "_", "-")
		if s != "" {
			out = append(out, s)
		}
	}
	return out
}

// skipExt lists links that are never HTML pages.
var skipExt = map[string]bool{
	".pdf": true, ".png": true, ".jpg": true, ".jpeg": true, ".gif": true, ".svg": true,
	".webp": true, ".zip": true, ".xml": true, ".css": true, ".js": true, ".json": true,
	".mp4": true, ".mp3": true, ".ico": true, ".txt": true, ".gz": true,
}

// plan picks at most MaxPages-1 sub-pages: the best candidate per page kind,
// homepage links before sitemap entries.
func (s *session) plan(ctx context.Context, doc *goquery.Document, home *url.URL, scope *siteScope) []*url.URL {
	seen := map[string]bool{pageKey(home): true}
	var cands []candidate
	add := func(u *url.URL, text string, fromHome bool) {
		u = normalizeURL(u)
		if !scope.contains(u) || skipExt[strings.ToLower(path.Ext(u.Path))] || seen[pageKey(u)] {
			return
		}
		kind, score := classifyPage(u, text)
		if score < 2 {
			return
		}
		seen[pageKey(u)] = true
		cands = append(cands, candidate{u: u, kind: kind, score: score, fromHome: fromHome})
	}
	doc.Find("a[href]").Each(func(_ int, a *goquery.Selection) {
		if u := resolveLink(home, a.AttrOr("href", "")); u != nil {
			add(u, a.Text(), true)
		}
	})
	for _, u := range s.sitemapURLs(ctx, home, scope) {
		add(u, "", false)
	}
	// A homepage in a language we cannot read names its translations with
	// hreflang: read one (English first) and plan from its links too.
	if !hasKind(cands, "about") || !hasKind(cands, "pricing") {
		if alt := hreflangAlternate(doc, home, scope); alt != nil && !seen[pageKey(alt)] {
			seen[pageKey(alt)] = true
			if p, _ := s.fetchSubpage(ctx, alt, scope); p != nil {
				s.extra = append(s.extra, *p)
				if altDoc, err := goquery.NewDocumentFromReader(bytes.NewReader(p.HTML)); err == nil {
					base, _ := url.Parse(p.URL)
					altDoc.Find("a[href]").Each(func(_ int, a *goquery.Selection) {
						if u := resolveLink(base, a.AttrOr("href", "")); u != nil {
							add(u, a.Text(), false)
						}
					})
				}
			}
		}
	}
	return pickPerKind(cands, s.c.opts.MaxPages-1-len(s.extra))
}

func hasKind(cands []candidate, kind string) bool {
	for _, c := range cands {
		if c.kind == kind {
			return true
		}
	}
	return false
}

// hreflangAlternate picks a same-site translation of the homepage:
// English, then x-default, German, French, Spanish.
func hreflangAlternate(doc *goquery.Document, home *url.URL, scope *siteScope) *url.URL {
	alts := map[string]*url.URL{}
	doc.Find(`link[rel~="alternate"][hreflang][href]`).Each(func(_ int, l *goquery.Selection) {
		lang := strings.ToLower(l.AttrOr("hreflang", ""))
		if i := strings.IndexByte(lang, '-'); i > 0 && lang != "x-default" {
			lang = lang[:i]
		}
		u := resolveLink(home, l.AttrOr("href", ""))
		if u != nil && scope.contains(u) && pageKey(normalizeURL(u)) != pageKey(home) && alts[lang] == nil {
			alts[lang] = normalizeURL(u)
		}
	})
	for _, lang := range []string{"en", "x-default", "de", "fr", "es"} {
		if u := alts[lang]; u != nil {
			return u
		}
	}
	return nil
}

func pickPerKind(cands []candidate, limit int) []*url.URL {
	sort.SliceStable(cands, func(i, j int) bool {
		a, b := cands[i], cands[j]
		if a.score != b.score {
			return a.score > b.score
		}
		if a.fromHome != b.fromHome {
			return a.fromHome
		}
		return len(a.u.Path) < len(b.u.Path)
	})
	var out []*url.URL
	for _, pk := range pageKinds {
		for _, c := range cands {
			if c.kind == pk.kind {
				out = append(out, c.u)
				break
			}
		}
	}
	if len(out) > limit {
		out = out[:max(limit, 0)]
	}
	return out
}

// pageKey identifies a page for de-duplication: host, path without a
// trailing slash, and query.
func pageKey(u *url.URL) string {
	p := strings.TrimSuffix(u.EscapedPath(), "/")
	return strings.ToLower(u.Host) + p + "?" + u.RawQuery
}

// resolveLink makes an absolute http(s) URL of an href, or nil.
func resolveLink(base *url.URL, href string) *url.URL {
	href = strings.TrimSpace(href)
	if href == "" || strings.HasPrefix(href, "#") {
		return nil
	}
	u, err := base.Parse(href)
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		return nil
	}
	return u
}
