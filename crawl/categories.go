package crawl

import (
	"regexp"
	"sort"
	"strings"
	"sync"
	"unicode"

	"github.com/PuerkitoBio/goquery"
)

// Categories are chosen by what the product does. A small classifier is
// built from the category tree itself: each category's terms are
//   - its name, or a part of it ("AI", "Machine Learning"), as a phrase: 4
//     (3 for a single word, 2 for a word as vague as "design" or "health");
//   - its description's phrases of several adjacent words: 3;
//   - keyword lists per category name in English, German, French and
//     Spanish (category_keywords.go): strong terms 3, weak terms 2;
//   - a single description word: 1.
// The site is read in two tiers: what the product says it is (title after
// the name, meta and JSON-LD descriptions, the first heading, the hero
// paragraphs, the tagline) counts twice; its section headings, feature
// items and about text count once. Each term counts once per category, at
// its best tier. The best category is the primary one when it scores at
// least 6 (one strong term where the product says what it is, or two in
// its features); a second one is kept when it reaches 70% of the best. The
// three best categories scoring at least 4 are the candidates offered to
// the founder (Profile.CategoryCandidates). The evidence of each is the
// statement that scored it best. Below the floor the drafter abstains: no
// category beats a wrong one.

const (
	catMinScore       = 6
	catCandidateScore = 4
	catRelative       = 0.7
	catMax            = 2
	catCandidates     = 3
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
	words := strings.FieldsFunc(s, func(r rune) bool { return !unicode.IsLetter(r) && !unicode.IsDigit(r) && r != '*' && r != '/' })
	var out []string
	for _, w := range words {
		if w = strings.Trim(w, "/"); w == "" {
			continue
		}
		if strings.HasSuffix(w, "*") {
			out = append(out, w) // a keyword's prefix form, kept as written
			continue
		}
		out = append(out, stem(strings.TrimSuffix(w, "*")))
	}
	return out
}

func stem(w string) string {
	if len(w) > 3 && strings.HasSuffix(w, "s") && !strings.HasSuffix(w, "ss") {
		w = strings.TrimSuffix(w, "s")
	}
	return w
}

// stemMatch: equal stems, a keyword prefix ("physio*"), or one a prefix
// of the other when the shorter has at least eight letters
// ("physiotherapy" ~ "physiotherapeuten"), so "product" never matches
// "productivity". a is the term's stem, b the text's.
func stemMatch(a, b string) bool {
	if a == b {
		return true
	}
	if pre, ok := strings.CutSuffix(a, "*"); ok {
		return strings.HasPrefix(b, pre)
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

// vagueNameWords are category-name words too common in product copy to
// decide a category alone.
var vagueNameWords = map[string]bool{"design": true, "security": true, "health": true, "review": true, "legal": true, "hardware": true, "ai": true, "energy": true, "work": true}

// categoryPhrases derives the scored terms of a category.
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
		if len(toks) > 1 {
			out = append(out, catPhrase{stems: toks, weight: whole})
		}
		for _, t := range content {
			out = append(out, catPhrase{stems: []string{t}, weight: single})
		}
	}
	for _, part := range strings.FieldsFunc(c.Name, func(r rune) bool { return r == '&' || r == ',' || r == '/' }) {
		part = strings.ReplaceAll(part, " and ", " ")
		toks := catTokens(part)
		switch {
		case len(toks) > 1:
			add(part, 4, 1)
		case len(toks) == 1 && vagueNameWords[toks[0]]:
			out = append(out, catPhrase{stems: toks, weight: 2})
		case len(toks) == 1:
			out = append(out, catPhrase{stems: toks, weight: 3})
		}
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
	strong, weak := keywordsFor(c.Name)
	for _, k := range strong {
		if toks := catTokens(k); len(toks) > 0 {
			out = append(out, catPhrase{stems: toks, weight: 3})
		}
	}
	for _, k := range weak {
		if toks := catTokens(k); len(toks) > 0 {
			out = append(out, catPhrase{stems: toks, weight: 2})
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
	best := map[string]int{}
	for _, ph := range phrases {
		key := strings.Join(ph.stems, " ")
		if ph.weight > best[key] && phraseIn(ph.stems, toks) {
			best[key] = ph.weight
		}
	}
	score := 0
	for _, w := range best {
		score += w
	}
	return score
}

// selfText is one statement of what the product is or does, with its
// evidence and its tier (2: says what the product is; 1: supports it).
type selfText struct {
	text string
	ev   Evidence
	tier int
}

// productSelfTexts are the home page's statements of what the product is
// (tier 2) and its headings, features and about text (tier 1).
func productSelfTexts(b *builder, pages []*pageInfo) []selfText {
	home := pages[0]
	var out []selfText
	add := func(text string, e Evidence, tier int) {
		if text = flat(text); text != "" && !looksLikeInjection(text) && !isBoilerplate(text) {
			out = append(out, selfText{text, e, tier})
		}
	}
	if _, rest := splitTitle(home.page.Title); rest != "" {
		add(rest, titleEv(home), 2)
	}
	for _, k := range []string{"description", "og:description", "og:title", "twitter:description"} {
		if d := home.meta[k]; d != "" {
			add(d, metaEv(home, k), 2)
		}
	}
	for _, n := range home.ld {
		if !ldHasType(n, productTypes...) {
			continue
		}
		for _, prop := range []string{"description", "applicationCategory", "slogan", "disambiguatingDescription"} {
			if d := ldString(n, prop); d != "" {
				add(d, ldEv(home, ldType(n), prop, d), 2)
			}
		}
	}
	if h1 := flat(home.doc.Find("h1").First().Text()); h1 != "" {
		add(h1, ev(home, h1), 2)
	}
	if v, ok := b.p.Fields["tagline"]; ok && len(v.Evidence) > 0 {
		add(v.Value.(string), v.Evidence[0], 2)
	}
	for i, para := range paragraphs(home, 40, 3) {
		tier := 2
		if i > 1 {
			tier = 1
		}
		for _, sent := range splitSentences(para) {
			add(sent, ev(home, sent), tier)
		}
	}
	home.doc.Find("h2,h3").Each(func(_ int, h *goquery.Selection) {
		if t := flat(selText(h)); runeLen(t) <= 120 {
			add(t, ev(home, t), 1)
		}
	})
	if v, ok := b.p.Fields["features"]; ok {
		items, _ := asStrings(v.Value)
		for i, it := range items {
			if i < len(v.Evidence) {
				add(it, v.Evidence[i], 1)
			}
		}
	}
	for _, pi := range pages {
		if pi.kind != "about" && pi.kind != "features" {
			continue
		}
		for _, para := range paragraphs(pi, 40, 3) {
			for _, sent := range splitSentences(para) {
				add(sent, ev(pi, sent), 1)
			}
		}
	}
	return out
}

// catScore is one category's score and the statement that decided it.
type catScore struct {
	name  string
	score int
	ev    Evidence
}

// classifyCategories scores every allowed category against the site's
// statements, best first.
func classifyCategories(texts []selfText, allowed []Category) []catScore {
	toks := make([][]string, len(texts))
	for i, t := range texts {
		toks[i] = catTokens(t.text)
	}
	var found []catScore
	for _, c := range allowed {
		phrases := categoryPhrases(c)
		// Each term counts once, at the best tier it is found in.
		best := map[string]int{}
		for _, ph := range phrases {
			key := strings.Join(ph.stems, " ")
			for i, t := range texts {
				if w := ph.weight * t.tier; w > best[key] && phraseIn(ph.stems, toks[i]) {
					best[key] = w
				}
			}
		}
		sc := 0
		for _, w := range best {
			sc += w
		}
		if sc < catCandidateScore {
			continue
		}
		var ev Evidence
		bestN := 0
		for i, t := range texts {
			if n := scoreCategory(phrases, toks[i]) * t.tier; n > bestN && categorySupported(c, t.ev.Quote) {
				ev, bestN = t.ev, n
			}
		}
		if bestN == 0 {
			continue // no single statement shows it: not a decision we can quote
		}
		found = append(found, catScore{c.Name, sc, ev})
	}
	sort.SliceStable(found, func(i, j int) bool { return found[i].score > found[j].score })
	return found
}

// extractCategories chooses the primary category (and a second one when
// it is nearly as strong) and the top candidates, each with the statement
// that decided it.
func extractCategories(b *builder, pages []*pageInfo, allowed []Category) {
	texts := productSelfTexts(b, pages)
	if len(texts) == 0 || len(allowed) == 0 {
		return
	}
	found := classifyCategories(texts, allowed)
	for i, f := range found {
		if i == catCandidates {
			break
		}
		b.p.CategoryCandidates = append(b.p.CategoryCandidates, CategoryCandidate{Name: f.name, Score: f.score, Evidence: []Evidence{f.ev}})
	}
	var names []string
	var evs []Evidence
	for _, f := range found {
		if len(names) == catMax || f.score < catMinScore || float64(f.score) < catRelative*float64(found[0].score) {
			break
		}
		names, evs = append(names, f.name), append(evs, f.ev)
	}
	if len(names) == 0 {
		b.p.CategoryCandidates = nil // abstain: the site does not say what it is
	} else {
		b.setList("categories", names, evs)
	}
	// Keywords use the terms of the categories the site was placed in.
	var placed []Category
	for _, c := range allowed {
		for _, n := range names {
			if c.Name == n {
				placed = append(placed, c)
			}
		}
	}
	pageKeywords(b, texts, placed)
}

var (
	termResMu sync.Mutex
	termRes   = map[Category][]*regexp.Regexp{}
)

// categoryTermRes are patterns of a category's specific terms (strong
// keywords, multi-word name and description phrases) that capture the
// words as a page writes them.
func categoryTermRes(c Category) []*regexp.Regexp {
	termResMu.Lock()
	defer termResMu.Unlock()
	if res, ok := termRes[c]; ok {
		return res
	}
	var terms []string
	strong, _ := keywordsFor(c.Name)
	terms = append(terms, strong...)
	for _, part := range strings.FieldsFunc(c.Name, func(r rune) bool { return r == '&' || r == ',' || r == '/' }) {
		if len(strings.Fields(part)) > 1 {
			terms = append(terms, part)
		}
	}
	desc := c.Description
	if _, after, ok := strings.Cut(desc, ":"); ok {
		desc = after
	}
	for _, part := range strings.FieldsFunc(desc, func(r rune) bool { return r == ',' || r == ';' || r == '.' }) {
		part = strings.TrimSpace(strings.TrimPrefix(strings.TrimSpace(part), "and "))
		if n := len(strings.Fields(part)); n >= 2 && n <= 3 {
			terms = append(terms, part)
		}
	}
	var res []*regexp.Regexp
	for _, t := range terms {
		var words []string
		for _, w := range strings.FieldsFunc(t, func(r rune) bool { return r == ' ' || r == '-' }) {
			if pre, ok := strings.CutSuffix(w, "*"); ok {
				words = append(words, regexp.QuoteMeta(pre)+`[\p{L}]*`)
			} else {
				words = append(words, regexp.QuoteMeta(w)+`(?:s|es)?`)
			}
		}
		if len(words) == 0 || len(t) < 3 {
			continue
		}
		res = append(res, regexp.MustCompile(`(?i)(?:^|[^\p{L}\p{N}])(`+strings.Join(words, `[\s-]+`)+`)(?:[^\p{L}\p{N}]|$)`))
	}
	termRes[c] = res
	return res
}

// categorySupported: a category's quote must carry one of its terms: a
// name word, a description word or a keyword (checked by Guard, for any
// drafter).
func categorySupported(c Category, quote string) bool {
	return quoteCategoryScore(c, quote) > 0
}

// quoteCategoryScore scores one quote for one category.
func quoteCategoryScore(c Category, quote string) int {
	if _, _, ok := metaQuote(quote); ok {
		quote = metaValue(quote)
	}
	return scoreCategory(categoryPhrases(c), catTokens(quote))
}
