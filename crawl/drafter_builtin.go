package crawl

import (
	"context"
	"errors"
	"regexp"
	"strings"
	"unicode"

	"github.com/PuerkitoBio/goquery"
)

// builtinDrafter extracts only what the pages state, offline.
type builtinDrafter struct{}

// NewBuiltinDrafter returns the offline drafter: structured data, meta tags,
// headings, lists, pricing cards, FAQ sections and team cards, each value
// with the quotes and page URL it came from.
func NewBuiltinDrafter() Drafter { return builtinDrafter{} }

// Draft implements Drafter.
func (builtinDrafter) Draft(ctx context.Context, res *Result, categories []Category) (*Profile, error) {
	if res == nil || len(res.Pages) == 0 {
		return nil, errors.New("crawl result has no pages")
	}
	pages := analyzePages(res)
	if len(pages) == 0 {
		return nil, errors.New("no page could be parsed")
	}
	b := &builder{p: newProfile()}
	extractIdentity(b, pages)
	extractDescriptions(b, pages)
	extractFacts(b, pages)
	extractPricing(b, pages)
	extractLists(b, pages)
	extractCategories(b, pages, categories)
	b.p.FAQs = extractFAQs(pages)
	b.p.Founders = extractTeam(pages)
	extractSocials(b, pages)
	return b.p, ctx.Err()
}

// builder fills a profile; the first value set for a key wins.
type builder struct{ p *Profile }

func (b *builder) setString(key, val string, evs ...Evidence) {
	val = strings.TrimSpace(val)
	if _, done := b.p.Fields[key]; done || val == "" || len(evs) == 0 {
		return
	}
	b.p.Fields[key] = Value{Value: val, Evidence: evs}
}

func (b *builder) setList(key string, items []string, evs []Evidence) {
	if _, done := b.p.Fields[key]; done || len(items) == 0 || len(evs) == 0 {
		return
	}
	if len(items) > MaxItems {
		items = items[:MaxItems]
	}
	b.p.Fields[key] = Value{Value: items, Evidence: evs}
}

func (b *builder) has(key string) bool {
	_, ok := b.p.Fields[key]
	return ok
}

var titleSeparators = []string{" | ", " — ", " – ", " - ", " · ", ": "}

// splitTitle splits "Name — tagline" into its parts.
func splitTitle(t string) (string, string) {
	for _, sep := range titleSeparators {
		if a, rest, ok := strings.Cut(t, sep); ok {
			return strings.TrimSpace(a), strings.TrimSpace(rest)
		}
	}
	return strings.TrimSpace(t), ""
}

var productTypes = []string{"SoftwareApplication", "WebApplication", "MobileApplication", "Product", "Organization", "Corporation", "LocalBusiness", "WebSite"}

// extractIdentity sets name and tagline from structured data, og:site_name,
// the title and the first heading of the homepage.
func extractIdentity(b *builder, pages []*pageInfo) {
	home := pages[0]
	name, source := "", Evidence{}
	for _, t := range productTypes {
		for _, n := range home.ld {
			if s := ldString(n, "name"); name == "" && ldHasType(n, t) && s != "" {
				name, source = s, ldEv(home, ldType(n), "name", s)
			}
		}
	}
	if name == "" && home.meta["og:site_name"] != "" {
		name, source = home.meta["og:site_name"], metaEv(home, "og:site_name")
	}
	titleName, titleRest := splitTitle(home.page.Title)
	if name == "" && titleName != "" {
		name, source = titleName, titleEv(home)
	}
	h1 := flat(home.doc.Find("h1").First().Text())
	if name == "" && h1 != "" && runeLen(h1) <= 60 {
		name, source = h1, ev(home, h1)
	}
	if cased, line := siteCasing(home, name); line != "" && runeLen(line) <= MaxQuoteLen {
		name, source = cased, ev(home, line)
	}
	if name != "" && runeLen(name) <= 80 {
		evs := []Evidence{source}
		if line := findLine(home, name); line != "" && line != source.Quote {
			evs = append(evs, ev(home, line))
		}
		b.setString("name", name, evs...)
	}
	// The tagline in the site's own casing: the hero heading when the title
	// repeats it (titles are often lower-cased after the dash), the title's
	// part only when it is written as a sentence or heading would be.
	h1OK := h1 != "" && !strings.EqualFold(h1, name) && runeLen(h1) <= 150 && !looksLikeInjection(h1)
	switch {
	case len(strings.Fields(titleRest)) >= 2 && h1OK && containsFold(h1, titleRest):
		b.setString("tagline", h1, ev(home, h1))
	case len(strings.Fields(titleRest)) >= 2 && !strings.EqualFold(titleRest, name) && !startsLower(titleRest):
		b.setString("tagline", titleRest, titleEv(home))
	case h1OK:
		b.setString("tagline", h1, ev(home, h1))
	case len(strings.Fields(titleRest)) >= 2 && !strings.EqualFold(titleRest, name):
		if line := findLine(home, titleRest); line != "" && !startsLower(line) {
			b.setString("tagline", line, ev(home, line)) // written on the page, as the page writes it
		} else {
			b.setString("tagline", titleRest, titleEv(home))
		}
	default:
		if t := home.meta["og:title"]; t != "" {
			if n, rest := splitTitle(t); strings.EqualFold(n, name) && len(strings.Fields(rest)) >= 2 {
				b.setString("tagline", rest, metaEv(home, "og:title"))
			}
		}
	}
}

// startsLower: the first letter is lower case ("simple invoicing for ...").
func startsLower(s string) bool {
	for _, r := range s {
		if unicode.IsLetter(r) {
			return unicode.IsLower(r)
		}
	}
	return false
}

// siteCasing returns the name as the home page's visible text writes it
// most often, when that differs only in case from the metadata's.
func siteCasing(home *pageInfo, name string) (string, string) {
	counts := map[string]int{}
	lineOf := map[string]string{}
	re := regexp.MustCompile(`(?i)(?:^|[^\p{L}\p{N}])(` + regexp.QuoteMeta(name) + `)(?:$|[^\p{L}\p{N}])`)
	for _, l := range home.lines {
		for _, m := range re.FindAllStringSubmatch(l, -1) {
			counts[m[1]]++
			if lineOf[m[1]] == "" {
				lineOf[m[1]] = l
			}
		}
	}
	best, n := name, counts[name]
	for k, c := range counts {
		if c > n || c == n && k < best && best != name {
			best, n = k, c
		}
	}
	if best == name || n < 2 || counts[name] >= n {
		return name, ""
	}
	return best, lineOf[best]
}

// extractDescriptions sets short_description from meta tags (or the hero
// paragraph) and description from the about page's paragraphs.
func extractDescriptions(b *builder, pages []*pageInfo) {
	home := pages[0]
	for _, k := range []string{"description", "og:description", "twitter:description"} {
		if d := home.meta[k]; d != "" && runeLen(d) <= MaxStringLen && !looksLikeInjection(d) {
			b.setString("short_description", d, metaEv(home, k))
		}
	}
	for _, n := range home.ld {
		if d := ldString(n, "description"); d != "" && ldHasType(n, productTypes...) && runeLen(d) <= MaxStringLen && !looksLikeInjection(d) {
			b.setString("short_description", d, ldEv(home, ldType(n), "description", d))
		}
	}
	heroParas := paragraphs(home, 40, 3)
	if len(heroParas) > 0 && runeLen(heroParas[0]) <= MaxStringLen {
		b.setString("short_description", heroParas[0], ev(home, heroParas[0]))
	}
	var paras []string
	var evs []Evidence
	for _, pi := range byKind(pages, "about", "home") {
		if pi.kind != "about" && pi.kind != "home" {
			continue
		}
		for _, para := range paragraphs(pi, 60, 4) {
			if len(paras) < 4 {
				paras, evs = append(paras, para), append(evs, ev(pi, para))
			}
		}
		if len(paras) >= 2 {
			break
		}
	}
	if len(paras) > 0 {
		b.setString("description", truncateRunes(strings.Join(paras, "\n\n"), MaxDescriptionLen), evs...)
	}
}

// paragraphs returns up to limit body paragraphs of at least minLen runes,
// skipping navigation, header and footer chrome.
func paragraphs(pi *pageInfo, minLen, limit int) []string {
	var out []string
	pi.doc.Find("p").EachWithBreak(func(_ int, s *goquery.Selection) bool {
		if s.Closest("footer,nav,header,address,details,dd,li,[class*=plan],[class*=card],[class*=member]").Length() > 0 {
			return true
		}
		if prev := s.Prev(); prev.Length() > 0 && headingLevel(prev.Get(0)) > 0 && strings.HasSuffix(flat(selText(prev)), "?") {
			return true // an FAQ answer, not a description
		}
		t := flat(selText(s))
		if runeLen(t) >= minLen && !looksLikeInjection(t) && !isBoilerplate(t) {
			out = append(out, t)
		}
		return len(out) < limit
	})
	return out
}
