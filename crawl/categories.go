package crawl

import (
	"sort"
	"strings"
	"unicode"
)

// Categories are chosen from what the product says it is (its title,
// tagline, meta description and hero paragraph), matched against each
// category's name and description:
//   - the name, or a part of it ("AI", "Machine Learning"), as a phrase: 4;
//   - a description phrase of several words, all adjacent: 3;
//   - a single name or description word: 1.
// A category needs a score of at least 3 (one phrase, not word accidents)
// and at least 60% of the best score; at most two are chosen. Below that
// the drafter abstains: no category beats a wrong one.

const (
	catMinScore = 3
	catRelative = 0.6
	catMax      = 2
)

// catStop are words that say nothing about a category.
var catStop = map[string]bool{
	"and": true, "or": true, "for": true, "the": true, "of": true, "a": true, "an": true, "to": true, "in": true, "on": true,
	"with": true, "your": true, "you": true, "that": true, "their": true, "they": true, "use": true, "built": true, "buy": true, "own": true,
	"tool": true, "software": true, "app": true, "apps": true, "product": true, "other": true, "service": true,
	"team": true, "teams": true, "people": true, "company": true, "business": true, "data": true, "management": true,
	"platform": true, "online": true, "personal": true, "customer": true, "customers": true, "users": true, "internal": true,
	"products": true, "services": true, "tools": true, "work": true, "working": true, "them": true, "every": true,
}

// catTokens splits text into folded word stems.
func catTokens(s string) []string {
	s = foldASCII(strings.ToLower(normalizeText(s)))
	words := strings.FieldsFunc(s, func(r rune) bool { return !unicode.IsLetter(r) && !unicode.IsDigit(r) && r != '-' })
	var out []string
	for _, w := range words {
		if w = strings.Trim(w, "-"); w != "" {
			out = append(out, stem(w))
		}
	}
	return out
}

func stem(w string) string {
	if len(w) > 3 && strings.HasSuffix(w, "s") && !strings.HasSuffix(w, "ss") {
		w = strings.TrimSuffix(w, "s")
	}
	return w
}

// stemMatch: equal stems, or one a prefix of the other when the shorter
// has at least eight letters ("physiotherapy" ~ "physiotherapeuten"), so
// "product" never matches "productivity".
func stemMatch(a, b string) bool {
	if a == b {
		return true
	}
	if len(a) > len(b) {
		a, b = b, a
	}
	return len(a) >= 8 && strings.HasPrefix(b, a)
}

// catPhrase is a run of stems that names a topic, with its weight.
type catPhrase struct {
	stems  []string
	weight int
}

// categoryPhrases derives the scored phrases of a category.
func categoryPhrases(c Category) []catPhrase {
	var out []catPhrase
	add := func(text string, whole, single int) {
		toks := catTokens(text)
		var content []string
		for _, t := range toks {
			if !catStop[t] {
				content = append(content, t)
			}
		}
		if len(content) == 0 {
			return
		}
		if len(toks) > 1 || whole == 4 {
			out = append(out, catPhrase{stems: toks, weight: whole})
		}
		for _, t := range content {
			out = append(out, catPhrase{stems: []string{t}, weight: single})
		}
	}
	for _, part := range strings.FieldsFunc(c.Name, func(r rune) bool { return r == '&' || r == ',' || r == '/' }) {
		add(strings.ReplaceAll(part, " and ", " "), 4, 1)
	}
	desc := c.Description
	if _, after, ok := strings.Cut(desc, ":"); ok {
		desc = after
	}
	for _, part := range strings.FieldsFunc(desc, func(r rune) bool { return r == ',' || r == ';' || r == '.' }) {
		part = strings.TrimSpace(strings.TrimPrefix(strings.TrimSpace(part), "and "))
		if part != "" {
			add(part, 3, 1)
		}
	}
	return out
}

// phraseIn reports whether the stems occur adjacent in toks.
func phraseIn(ph []string, toks []string) bool {
	for i := 0; i+len(ph) <= len(toks); i++ {
		ok := true
		for j, s := range ph {
			if !stemMatch(s, toks[i+j]) {
				ok = false
				break
			}
		}
		if ok {
			return true
		}
	}
	return false
}

// scoreCategory sums the weights of distinct phrases found in toks; single
// words inside a matched longer phrase of the same category count once.
func scoreCategory(phrases []catPhrase, toks []string) int {
	score := 0
	seen := map[string]bool{}
	for _, ph := range phrases {
		key := strings.Join(ph.stems, " ")
		if seen[key] || !phraseIn(ph.stems, toks) {
			continue
		}
		seen[key] = true
		score += ph.weight
	}
	return score
}

// selfText is one statement of what the product is, with its evidence.
type selfText struct {
	text string
	ev   Evidence
}

// productSelfTexts are the home page's statements of what the product is.
func productSelfTexts(b *builder, home *pageInfo) []selfText {
	var out []selfText
	if _, rest := splitTitle(home.page.Title); rest != "" {
		out = append(out, selfText{rest, titleEv(home)})
	}
	for _, k := range []string{"description", "og:description", "og:title"} {
		if d := home.meta[k]; d != "" && !looksLikeInjection(d) {
			out = append(out, selfText{d, metaEv(home, k)})
		}
	}
	for _, n := range home.ld {
		if d := ldString(n, "description"); d != "" && ldHasType(n, productTypes...) && !looksLikeInjection(d) {
			out = append(out, selfText{d, ldEv(home, ldType(n), "description", d)})
		}
	}
	if h1 := flat(home.doc.Find("h1").First().Text()); h1 != "" {
		out = append(out, selfText{h1, ev(home, h1)})
	}
	for _, para := range paragraphs(home, 40, 1) {
		for _, sent := range splitSentences(para) {
			out = append(out, selfText{sent, ev(home, sent)})
		}
	}
	return out
}

// extractCategories scores every allowed category against the product's
// own description and keeps the clear winners, each with the statement
// that matched it best as evidence.
func extractCategories(b *builder, pages []*pageInfo, allowed []Category) {
	texts := productSelfTexts(b, pages[0])
	if len(texts) == 0 {
		return
	}
	var all []string
	toks := make([][]string, len(texts))
	for i, t := range texts {
		toks[i] = catTokens(t.text)
		all = append(all, toks[i]...)
		all = append(all, "\x00") // phrases never span two statements
	}
	type scored struct {
		name  string
		score int
		ev    Evidence
	}
	var found []scored
	for _, c := range allowed {
		phrases := categoryPhrases(c)
		sc := scoreCategory(phrases, all)
		if sc < catMinScore {
			continue
		}
		best, bestN := Evidence{}, 0
		for i, t := range texts {
			if n := scoreCategory(phrases, toks[i]); n > bestN {
				best, bestN = t.ev, n
			}
		}
		found = append(found, scored{c.Name, sc, best})
	}
	sort.SliceStable(found, func(i, j int) bool { return found[i].score > found[j].score })
	var names []string
	var evs []Evidence
	for _, f := range found {
		if len(names) == catMax || float64(f.score) < catRelative*float64(found[0].score) {
			break
		}
		names, evs = append(names, f.name), append(evs, f.ev)
	}
	b.setList("categories", names, evs)
}

// categorySupported: a category's quote must use a word of its name or
// description (checked by Guard, for any drafter).
func categorySupported(c Category, quote string) bool {
	toks := catTokens(quote)
	for _, ph := range categoryPhrases(c) {
		if len(ph.stems) == 1 && phraseIn(ph.stems, toks) {
			return true
		}
	}
	return false
}
