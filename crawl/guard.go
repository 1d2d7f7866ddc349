package crawl

import (
	"fmt"
	"net/url"
	"regexp"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/PuerkitoBio/goquery"
)

// urlFields are fields whose value is a link that must be on the cited page.
var urlFields = map[string]bool{"demo_video_url": true, "logo_url": true}

// pageProof is what Guard accepts as proof from one crawled page.
type pageProof struct {
	corpus string              // folded visible text without injected lines
	title  string              // folded title
	meta   map[string]string   // lower-cased meta key -> folded content
	ld     map[string][]string // "type.prop" -> folded JSON-LD values
	links  map[string]bool     // href/src/JSON-LD URL strings, raw and resolved
	html   string
}

type guard struct {
	pages      map[string]*pageProof
	categories []Category
}

func newGuard(res *Result) *guard {
	g := &guard{pages: map[string]*pageProof{}}
	if res == nil {
		return g
	}
	for i := range res.Pages {
		p := &res.Pages[i]
		u, err := url.Parse(p.URL)
		if err != nil {
			continue
		}
		g.pages[pageKey(u)] = buildProof(p, u)
	}
	return g
}

// buildProof reads the page's visible text with the visible-text model
// (recomputed from the markup, not trusted from storage) and the metadata
// quoted in its own forms (title, meta tags, JSON-LD, links).
func buildProof(p *Page, u *url.URL) *pageProof {
	proof := &pageProof{links: map[string]bool{}, html: string(p.HTML), title: foldText(p.Title), meta: map[string]string{}}
	text := p.Text
	if len(p.HTML) > 0 {
		text = VisibleText(p.HTML)
	}
	proof.corpus = cleanText(text)
	doc, err := goquery.NewDocumentFromReader(strings.NewReader(proof.html))
	if err == nil {
		for k, v := range metaTags(doc) {
			proof.meta[k] = foldText(v)
		}
		proof.ld = ldFacts(jsonLD(doc))
		for _, s := range ldStrings(doc) {
			proof.addLink(u, s)
		}
		doc.Find("[href],[src]").Each(func(_ int, s *goquery.Selection) {
			proof.addLink(u, s.AttrOr("href", ""))
			proof.addLink(u, s.AttrOr("src", ""))
		})
	}
	return proof
}

func (p *pageProof) addLink(base *url.URL, raw string) {
	raw = strings.TrimSpace(raw)
	if raw == "" {
		return
	}
	p.links[raw] = true
	if r, err := base.Parse(raw); err == nil {
		p.links[linkKey(r.String())] = true
	}
}

// linkKey compares links without a trailing slash or fragment.
func linkKey(s string) string {
	u, err := url.Parse(strings.TrimSpace(s))
	if err != nil {
		return s
	}
	u = normalizeURL(u)
	return strings.TrimSuffix(u.String(), "/")
}

func (g *guard) proof(rawURL string) *pageProof {
	u, err := url.Parse(strings.TrimSpace(rawURL))
	if err != nil {
		return nil
	}
	return g.pages[pageKey(normalizeURL(u))]
}

// hasQuote checks a plain quote against the visible text and a metadata
// quote against its metadata.
func (p *pageProof) hasQuote(q string) bool {
	if p == nil {
		return false
	}
	if kind, key, ok := metaQuote(q); ok {
		v := foldText(metaValue(q))
		if v == "" {
			return false
		}
		switch kind {
		case "title":
			return strings.Contains(p.title, v)
		case "link":
			return p.links[strings.TrimSpace(metaValue(q))] || p.links[linkKey(metaValue(q))]
		case "meta":
			return strings.Contains(p.meta[key], v)
		case "json-ld":
			for _, have := range p.ld[key] {
				if strings.Contains(have, v) {
					return true
				}
			}
		}
		return false
	}
	f := foldText(q)
	return f != "" && strings.Contains(p.corpus, f)
}

// cleanText folds the visible text, leaving out lines that carry injected
// instructions: no part of them counts as evidence, however innocent the
// excerpt looks. Other lines join with spaces so quotes may span blocks.
func cleanText(text string) string {
	var b strings.Builder
	for _, line := range strings.Split(text, "\n") {
		if looksLikeInjection(line) {
			b.WriteString("\n")
			continue
		}
		b.WriteString(line)
		b.WriteString(" ")
	}
	parts := strings.Split(b.String(), "\n")
	for i, part := range parts {
		parts[i] = foldText(part)
	}
	return strings.Join(parts, "\n")
}

func (p *pageProof) hasLink(v string) bool {
	return p.links[strings.TrimSpace(v)] || p.links[linkKey(v)] || strings.Contains(p.html, v)
}

// validEvidence keeps evidence whose (truncated) quote is on the cited page
// and is not injected instructions; links count as quotes for link fields.
func (g *guard) validEvidence(evs []Evidence, linkOK bool) []Evidence {
	var out []Evidence
	for _, e := range evs {
		e.Quote = truncateRunes(strings.TrimSpace(e.Quote), MaxQuoteLen)
		p := g.proof(e.URL)
		if p == nil || e.Quote == "" || looksLikeInjection(e.Quote) {
			continue
		}
		if p.hasQuote(e.Quote) || (linkOK && (p.links[e.Quote] || p.links[linkKey(e.Quote)])) {
			out = append(out, e)
		}
	}
	return out
}

// Guard removes every value that the crawled pages do not prove and
// enforces length bounds. It returns a cleaned copy and the keys dropped:
// field keys, "socials.<platform>", "faqs[i]" and "founders[i]".
func Guard(p *Profile, res *Result) (*Profile, []string) { return GuardWith(p, res, nil) }

// GuardWith is Guard knowing the allowed categories: a drafted category must
// be one of them and its quote must use a word of its name or description.
func GuardWith(p *Profile, res *Result, categories []Category) (*Profile, []string) {
	out := newProfile()
	if p == nil {
		return out, nil
	}
	g := newGuard(res)
	g.categories = categories
	var dropped []string
	for _, k := range sortedKeys(p.Fields) {
		if v, ok := g.checkField(k, p.Fields[k]); ok {
			out.Fields[k] = v
		} else {
			dropped = append(dropped, k)
		}
	}
	for _, k := range sortedKeys(p.Socials) {
		if v, ok := g.checkSocial(k, p.Socials[k]); ok {
			out.Socials[k] = v
		} else {
			dropped = append(dropped, "socials."+k)
		}
	}
	for i, f := range p.FAQs {
		if c, ok := g.checkFAQ(f); ok && len(out.FAQs) < MaxFAQs {
			out.FAQs = append(out.FAQs, c)
		} else {
			dropped = append(dropped, fmt.Sprintf("faqs[%d]", i))
		}
	}
	out.CategoryCandidates = g.checkCandidates(p.CategoryCandidates, out.Fields["categories"])
	for i, f := range p.Founders {
		if c, ok := g.checkFounder(f); ok && len(out.Founders) < MaxFounders {
			out.Founders = append(out.Founders, c)
		} else {
			dropped = append(dropped, fmt.Sprintf("founders[%d]", i))
		}
	}
	return out, dropped
}

func sortedKeys[V any](m map[string]V) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return keys
}

func (g *guard) checkField(key string, v Value) (Value, bool) {
	switch {
	case isListField(key):
		items, ok := asStrings(v.Value)
		if !ok {
			return Value{}, false
		}
		return g.checkList(key, items, v.Evidence)
	case isStringField(key):
		s, ok := v.Value.(string)
		if !ok {
			return Value{}, false
		}
		return g.checkString(key, strings.TrimSpace(s), v.Evidence)
	}
	return Value{}, false
}

func asStrings(v any) ([]string, bool) {
	switch t := v.(type) {
	case []string:
		return t, true
	case []any:
		out := make([]string, 0, len(t))
		for _, e := range t {
			if s, ok := e.(string); ok {
				out = append(out, s) // non-string items are dropped one by one
			}
		}
		return out, true
	}
	return nil, false
}

func (g *guard) checkString(key, val string, evs []Evidence) (Value, bool) {
	limit := MaxStringLen
	if key == "description" {
		limit = MaxDescriptionLen
	}
	if val == "" || runeLen(val) > limit {
		return Value{}, false
	}
	if key == "country" {
		code, ok := countryCode(val)
		if !ok {
			return Value{}, false
		}
		val = code
	}
	evs = g.validEvidence(evs, urlFields[key] || key == "contact_email")
	if key == "pricing_summary" || key == "pricing_model" {
		if len(evs) == 0 || !unionSupports(key, val, evs) {
			return Value{}, false
		}
		return Value{Value: val, Evidence: evs}, true
	}
	var kept []Evidence
	for _, e := range evs {
		if g.quoteSupports(key, val, e) {
			kept = append(kept, e)
		}
	}
	if len(kept) == 0 {
		return Value{}, false
	}
	return Value{Value: val, Evidence: kept}, true
}

var yearRe = regexp.MustCompile(`^(?:18|19|20)\d{2}$`)

// quoteSupports checks that a short factual value is stated in its quote.
func (g *guard) quoteSupports(key, val string, e Evidence) bool {
	q := e.Quote
	switch key {
	case "name", "city":
		return containsFold(q, val)
	case "founded_year":
		y, _ := strconv.Atoi(val)
		return yearRe.MatchString(val) && y <= time.Now().Year() && regexp.MustCompile(`\b`+val+`\b`).MatchString(q)
	case "country":
		return mentionsCountry(q, val)
	case "contact_email":
		return plausibleEmail(val) && containsFold(q, val)
	case "demo_video_url", "logo_url":
		u, err := parseHTTPURL(val)
		p := g.proof(e.URL)
		return err == nil && p != nil && p.hasLink(u.String())
	case "stage":
		return stageSupported(val, q)
	}
	return true
}

func mentionsCountry(q, code string) bool {
	if regexp.MustCompile(`\b` + code + `\b`).MatchString(q) {
		return true
	}
	// A postal address format states its country: "Boulder, CO 80302".
	if re, ok := addressFormats[code]; ok && re.MatchString(q) {
		return true
	}
	fq := foldText(q)
	for _, name := range countryNames(code) {
		if regexp.MustCompile(`\b` + regexp.QuoteMeta(name) + `\b`).MatchString(fq) {
			return true
		}
	}
	return false
}

var stageCues = map[string][]string{
	"beta":         {"beta"},
	"alpha":        {"alpha"},
	"early_access": {"early access"},
	"launched":     {"launched", "generally available", "now available"},
}

func stageSupported(val, q string) bool {
	cues, ok := stageCues[strings.ToLower(val)]
	if !ok {
		cues = []string{val}
	}
	for _, c := range cues {
		if containsFold(q, c) {
			return true
		}
	}
	return false
}

var priceTokenRe = regexp.MustCompile(`(?i)[$€£¥₹]\s?\d[\d,]*(?:\.\d+)?|\d[\d,]*(?:\.\d+)?\s?(?:€|eur\b|usd\b|gbp\b)`)

// modelRules: the same stated rules the built-in drafter applies.
var modelRules = map[string]*regexp.Regexp{
	"usage_based":  usageRe,
	"one_time":     oneTimeRe,
	"open_source":  openSrcRe,
	"subscription": regexp.MustCompile(`(?i)subscription|abonnement|suscripci|` + recurringRe.String()[4:]),
	"free":         regexp.MustCompile(`(?i)\bfree\b|kostenlos|gratuit|gratis`),
}

// unionSupports checks pricing fields against all their quotes together,
// since plans are quoted one card at a time.
func unionSupports(key, val string, evs []Evidence) bool {
	var qs []string
	for _, e := range evs {
		qs = append(qs, e.Quote)
	}
	all := strings.ReplaceAll(foldText(strings.Join(qs, " \n ")), " ", "")
	if key == "pricing_summary" {
		prices := priceTokenRe.FindAllString(val, -1)
		if len(prices) == 0 {
			return containsFold(strings.Join(qs, "\n"), val)
		}
		for _, pr := range prices {
			if !strings.Contains(all, strings.ReplaceAll(foldText(pr), " ", "")) {
				return false
			}
		}
		return true
	}
	model := strings.ToLower(val)
	if model == "freemium" {
		hasFree := regexp.MustCompile(`free|kostenlos|gratis|gratuit|[$€£¥₹]0\b|(?:^|[^\d,.])0(?:[.,]00)?€|price:0\b`).MatchString(all)
		hasPaid := regexp.MustCompile(`[$€£¥₹][1-9]|[1-9][\d,.]*(?:€|eur|usd|gbp)|price:[1-9]`).MatchString(all)
		return strings.Contains(all, "freemium") || (hasFree && hasPaid)
	}
	re, ok := modelRules[model]
	if !ok {
		return strings.Contains(all, model)
	}
	return re.MatchString(strings.Join(qs, " \n "))
}

// checkList drops unsupported, empty, over-long and duplicate items.
func (g *guard) checkList(key string, items []string, evs []Evidence) (Value, bool) {
	evs = g.validEvidence(evs, false)
	var kept []string
	used := map[int]bool{}
	seen := map[string]bool{}
	for _, it := range items {
		it = strings.TrimSpace(it)
		f := foldText(it)
		if it == "" || runeLen(it) > MaxItemLen || seen[f] || len(kept) >= MaxItems {
			continue
		}
		for i, e := range evs {
			if g.itemSupported(key, it, e.Quote) {
				kept, seen[f], used[i] = append(kept, it), true, true
				break
			}
		}
	}
	if len(kept) == 0 {
		return Value{}, false
	}
	var keptEv []Evidence
	for i, e := range evs {
		if used[i] {
			keptEv = append(keptEv, e)
		}
	}
	return Value{Value: kept, Evidence: keptEv}, true
}

// itemSupported: an item must be in a quote; a category must be one of
// the allowed ones (when known) and its quote must name it or carry one of
// its terms of some weight (a phrase, a keyword or a name word, not a
// lone description word).
func (g *guard) itemSupported(key, item, quote string) bool {
	if key != "categories" {
		return containsFold(quote, item)
	}
	cat, ok := g.category(item)
	if !ok {
		return false
	}
	return containsFold(quote, item) || quoteCategoryScore(cat, quote) >= 2
}

// category looks up an allowed category by its exact name; with no list
// known any name passes with its name as its only term.
func (g *guard) category(name string) (Category, bool) {
	if g.categories == nil {
		return Category{Name: name}, name != ""
	}
	for _, c := range g.categories {
		if c.Name == name {
			return c, true
		}
	}
	return Category{}, false
}

// checkCandidates keeps the candidates that are allowed categories with a
// supporting quote on their page, at most three, and puts the kept primary
// category first.
func (g *guard) checkCandidates(cands []CategoryCandidate, cats Value) []CategoryCandidate {
	var out []CategoryCandidate
	seen := map[string]bool{}
	primary, _ := asStrings(cats.Value)
	if len(primary) > 0 {
		out = append(out, CategoryCandidate{Name: primary[0], Evidence: cats.Evidence[:1]})
		for _, c := range cands {
			if c.Name == primary[0] {
				out[0].Score = c.Score
				if evs := g.candidateEvidence(c); len(evs) > 0 {
					out[0].Evidence = evs
				}
			}
		}
		seen[primary[0]] = true
	}
	for _, c := range cands {
		if len(out) == catCandidates || seen[c.Name] {
			continue
		}
		if evs := g.candidateEvidence(c); len(evs) > 0 {
			seen[c.Name] = true
			out = append(out, CategoryCandidate{Name: c.Name, Score: c.Score, Evidence: evs})
		}
	}
	return out
}

func (g *guard) candidateEvidence(c CategoryCandidate) []Evidence {
	if _, ok := g.category(c.Name); !ok {
		return nil
	}
	var kept []Evidence
	for _, e := range g.validEvidence(c.Evidence, false) {
		if g.itemSupported("categories", c.Name, e.Quote) {
			kept = append(kept, e)
		}
	}
	return kept
}

func (g *guard) checkSocial(platform string, v Value) (Value, bool) {
	s, ok := v.Value.(string)
	if !ok || !isPlatform(platform) || runeLen(s) > MaxStringLen {
		return Value{}, false
	}
	u, err := parseHTTPURL(s)
	if err != nil {
		return Value{}, false
	}
	if platform != "website" && platform != "custom" {
		if got, _ := socialLink(u); got != platform {
			return Value{}, false
		}
	}
	var kept []Evidence
	for _, e := range g.validEvidence(v.Evidence, true) {
		if p := g.proof(e.URL); p != nil && p.hasLink(u.String()) {
			kept = append(kept, e)
		}
	}
	if len(kept) == 0 {
		return Value{}, false
	}
	return Value{Value: u.String(), Evidence: kept}, true
}

// checkFAQ keeps a question and answer that both appear on a cited page:
// in its visible text, or in the page's JSON-LD when quoted in that form.
func (g *guard) checkFAQ(f FAQ) (FAQ, bool) {
	f.Question, f.Answer = strings.TrimSpace(f.Question), strings.TrimSpace(f.Answer)
	if f.Question == "" || f.Answer == "" || runeLen(f.Question) > MaxStringLen || runeLen(f.Answer) > MaxFAQAnswerLen {
		return FAQ{}, false
	}
	if looksLikeInjection(f.Question + " " + f.Answer) {
		return FAQ{}, false
	}
	evs := g.validEvidence(f.Evidence, false)
	stated := func(s string) bool {
		for _, e := range evs {
			if g.proof(e.URL).hasQuote(s) {
				return true
			}
			if kind, _, ok := metaQuote(e.Quote); ok && kind == "json-ld" && foldText(metaValue(e.Quote)) == foldText(s) {
				return true
			}
		}
		return false
	}
	if len(evs) > 0 && stated(f.Question) && stated(f.Answer) {
		f.Evidence = evs
		return f, true
	}
	return FAQ{}, false
}

// checkFounder keeps a person whose name is quoted; a title, bio or social
// link the cited page does not show is cleared rather than kept.
func (g *guard) checkFounder(f Founder) (Founder, bool) {
	f.Name = strings.TrimSpace(f.Name)
	if f.Name == "" || runeLen(f.Name) > 200 {
		return Founder{}, false
	}
	var kept []Evidence
	for _, e := range g.validEvidence(f.Evidence, false) {
		if containsFold(e.Quote, f.Name) {
			kept = append(kept, e)
		}
	}
	if len(kept) == 0 {
		return Founder{}, false
	}
	onPage := func(s string) bool {
		for _, e := range kept {
			if g.proof(e.URL).hasQuote(s) {
				return true
			}
		}
		return false
	}
	if runeLen(f.Title) > 200 || !onPage(f.Title) {
		f.Title = ""
	}
	if runeLen(f.Bio) > MaxStringLen || !onPage(f.Bio) {
		f.Bio = ""
	}
	socials := map[string]string{}
	for k, v := range f.Socials {
		u, err := parseHTTPURL(v)
		if err != nil || !isPlatform(k) {
			continue
		}
		for _, e := range kept {
			if g.proof(e.URL).hasLink(u.String()) {
				socials[k] = u.String()
				break
			}
		}
	}
	f.Socials, f.Evidence = socials, kept
	return f, true
}
