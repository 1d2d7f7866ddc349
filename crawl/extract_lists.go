package crawl

import (
	"regexp"
	"strings"

	"github.com/PuerkitoBio/goquery"
	"golang.org/x/net/html"
)

var (
	featuresHeading = regexp.MustCompile(`(?i)^(?:key |main |core |all |our )?features\b|^(?:\S+ ){0,3}features$|^what you get\b|^what (?:\S+ ){1,2}(?:does|can do)\b|^what you can do\b|^capabilities\b|^everything you need\b|^everything (?:in|included)\b|^how it works\b|^specs\b|^highlights\b|^(?:alle |unsere |die )?funktionen\b|^(?:\S+ ){0,2}funktionen$|^alles,? was\b|^leistungen\b|^so funktioniert|^was \S+ kann\b|^fonctionnalités\b|^(?:nos |les )?fonctionnalit|^(?:\S+ ){0,2}fonctionnalités$|^tout ce qu|^comment ça marche|^ce que \S+ fait|^funciones\b|^(?:\S+ ){0,2}funciones$|^funcionalidades\b|^características\b|^todo lo que\b|^cómo funciona|^qué (?:hace|puedes)`)
	uspHeading      = regexp.MustCompile(`(?i)^why\b|\bbenefits\b|\badvantages\b|^reasons to\b|\bwhat makes\b|^warum\b|^vorteile\b|^ihre vorteile\b|^pourquoi\b|^avantages\b|^(?:por qué|porqué)|^ventajas\b|^beneficios\b`)
)

func extractLists(b *builder, pages []*pageInfo) {
	var ordered []*pageInfo
	for _, pi := range byKind(pages, "home", "features") {
		if pi.kind != "pricing" { // plan lists are not the product's features
			ordered = append(ordered, pi)
		}
	}
	items, evs := collectUnderHeadings(ordered, featuresHeading)
	if len(items) < 3 {
		more, moreEv := featureSections(ordered)
		items, evs = mergeItems(items, evs, more, moreEv)
	}
	if len(items) < 3 {
		more, moreEv := featureListLD(pages)
		items, evs = mergeItems(items, evs, more, moreEv)
	}
	b.setList("features", items, evs)
	items, evs = collectUnderHeadings(ordered, uspHeading)
	b.setList("usps", items, evs)
	extractKeywords(b, pages[0])
	productTags(b)
}

// pageKeywords derives keywords from the product's own words when it has
// no keywords meta tag: its tags ("what it is") and the category terms
// (keyword lists, name and description phrases) that its statements of
// what it is use, as the page writes them. Runs after the categories are
// scored, with the same statements.
func pageKeywords(b *builder, texts []selfText, allowed []Category) {
	if b.has("keywords") {
		return
	}
	var kws []string
	var evs []Evidence
	add := func(k string, e Evidence) {
		k = strings.Trim(flat(k), " -,.;:")
		if k == "" || runeLen(k) > 60 || looksLikeInjection(k) {
			return
		}
		for i, have := range kws {
			fk, fh := foldText(k), foldText(have)
			switch {
			case fk == fh || strings.Contains(fh, fk):
				return
			case strings.Contains(fk, fh):
				kws[i], evs[i] = k, e // the longer phrase says more
				return
			}
		}
		kws, evs = append(kws, k), append(evs, e)
	}
	if v, ok := b.p.Fields["tags"]; ok {
		tags, _ := asStrings(v.Value)
		for _, t := range tags {
			if len(v.Evidence) > 0 {
				add(t, v.Evidence[0])
			}
		}
	}
	for _, c := range allowed {
		for _, re := range categoryTermRes(c) {
			for _, t := range texts {
				if t.tier < 2 {
					continue
				}
				if m := re.FindStringSubmatch(t.text); m != nil {
					add(m[1], t.ev)
					break
				}
			}
		}
	}
	if len(kws) > 6 {
		kws, evs = kws[:6], evs[:6]
	}
	b.setList("keywords", kws, evs)
}

// mergeItems appends the items not yet listed.
func mergeItems(items []string, evs []Evidence, more []string, moreEv []Evidence) ([]string, []Evidence) {
	for i, it := range more {
		if len(items) < MaxItems && !duplicateItem(items, it) {
			items, evs = append(items, it), append(evs, moreEv[i])
		}
	}
	return items, evs
}

// featureSections reads sections marked as features by their class or id
// ("features", "feature-grid"), and on a features page the cards under its
// section headings: a heading followed by its explanation.
func featureSections(pages []*pageInfo) ([]string, []Evidence) {
	var items []string
	var evs []Evidence
	addItem := func(pi *pageInfo, li listItem) {
		if len(items) < MaxItems && !duplicateItem(items, li.item) && runeLen(li.item) <= 80 && !looksLikeInjection(li.quote) && !ctaRe.MatchString(li.item) {
			items, evs = append(items, li.item), append(evs, ev(pi, li.quote))
		}
	}
	for _, pi := range pages {
		pi.doc.Find(`section[id*=feature],section[class*=feature],div[id*=feature],div[class*=features],ul[class*=feature]`).Each(func(_ int, sec *goquery.Selection) {
			if sec.ParentsFiltered(`[id*=feature],[class*=feature]`).Length() > 0 {
				return // read once, from the outermost section
			}
			if heads := sec.Find("h3,h4"); heads.Length() >= 2 {
				heads.Each(func(_ int, h *goquery.Selection) { addItem(pi, cardItem(h, h.Next())) })
				return
			}
			sec.Find("li").Each(func(_ int, li *goquery.Selection) {
				if it, ok := bulletItem(li); ok {
					addItem(pi, it)
				}
			})
		})
		if pi.kind != "features" {
			continue
		}
		pi.doc.Find("h2,h3").Each(func(_ int, h *goquery.Selection) {
			if next := h.Next(); next.Length() > 0 && goquery.NodeName(next) == "p" && h.Closest(chromeSel).Length() == 0 {
				addItem(pi, cardItem(h, next))
			}
		})
	}
	return items, evs
}

// ctaRe marks calls to action and section titles that are no feature.
var ctaRe = regexp.MustCompile(`(?i)^(?:get started|start|try|sign up|book a demo|contact|pricing|faq|questions|jetzt|kostenlos testen|essai|essayez|prueba|empieza|ready|bereit|prêt|listo)\b|\?$`)

// featureListLD reads schema.org featureList (an array, or one string
// separated by commas or new lines).
func featureListLD(pages []*pageInfo) ([]string, []Evidence) {
	for _, pi := range pages {
		for _, n := range pi.ld {
			raw := ldList(n, "featureList")
			if len(raw) == 1 {
				raw = strings.FieldsFunc(raw[0], func(r rune) bool { return r == ',' || r == '\n' })
			}
			var items []string
			var evs []Evidence
			for _, it := range raw {
				if it = strings.TrimSpace(it); it != "" && runeLen(it) <= MaxItemLen && !looksLikeInjection(it) {
					items, evs = append(items, it), append(evs, ldEv(pi, ldType(n), "featureList", it))
				}
			}
			if len(items) > 0 {
				return items, evs
			}
		}
	}
	return nil, nil
}

// listItem is one bullet and the visible text that proves it.
type listItem struct{ item, quote string }

// collectUnderHeadings gathers list items (or card headings) that follow a
// heading matching re, de-duplicated across pages.
func collectUnderHeadings(pages []*pageInfo, re *regexp.Regexp) ([]string, []Evidence) {
	var items []string
	var evs []Evidence
	for _, pi := range pages {
		pi.doc.Find("h1,h2,h3,h4").Each(func(_ int, h *goquery.Selection) {
			title := flat(selText(h))
			if runeLen(title) > 60 || !re.MatchString(title) {
				return
			}
			for _, li := range itemsAfter(h) {
				if len(items) >= MaxItems || duplicateItem(items, li.item) {
					continue
				}
				items = append(items, li.item)
				evs = append(evs, ev(pi, li.quote))
			}
		})
	}
	return items, evs
}

func duplicateItem(items []string, item string) bool {
	f := foldText(item)
	for _, have := range items {
		hf := foldText(have)
		if hf == f || strings.HasPrefix(hf, f+" ") {
			return true
		}
	}
	return false
}

func headingLevel(n *html.Node) int {
	if n != nil && n.Type == html.ElementNode && len(n.Data) == 2 && n.Data[0] == 'h' && n.Data[1] >= '1' && n.Data[1] <= '6' {
		return int(n.Data[1] - '0')
	}
	return 0
}

// itemsAfter walks the siblings after heading h until a heading of the same
// or a higher level, collecting <li> texts or sub-heading cards. When the
// heading sits alone in a wrapper, the wrapper's siblings are walked.
func itemsAfter(h *goquery.Selection) []listItem {
	level := headingLevel(h.Get(0))
	out := itemsInSiblings(h, level)
	if len(out) == 0 && h.Parent().Children().Length() == 1 {
		out = itemsInSiblings(h.Parent(), level)
	}
	return out
}

func itemsInSiblings(start *goquery.Selection, level int) []listItem {
	var out []listItem
	for sib := start.Next(); sib.Length() > 0; sib = sib.Next() {
		node := sib.Get(0)
		if l := headingLevel(node); l > 0 && l <= level {
			break
		}
		if l := headingLevel(node); l > level {
			out = append(out, cardItem(sib, sib.Next()))
			continue
		}
		if lis := sib.Find("li").AddSelection(sib.Filter("li")); lis.Length() > 0 {
			lis.Each(func(_ int, li *goquery.Selection) {
				if it, ok := bulletItem(li); ok {
					out = append(out, it)
				}
			})
			continue
		}
		sib.Find("h3,h4,h5").Each(func(_ int, sub *goquery.Selection) {
			if headingLevel(sub.Get(0)) > level {
				out = append(out, cardItem(sub, sub.Next()))
			}
		})
	}
	return out
}

// cardItem uses a card's heading as the item and heading+text as the quote.
func cardItem(head, next *goquery.Selection) listItem {
	title := flat(selText(head))
	quote := title
	if next.Length() > 0 && headingLevel(next.Get(0)) == 0 && goquery.NodeName(next) == "p" {
		quote = flat(visibleText(head.Get(0), next.Get(0)))
	}
	return listItem{item: title, quote: quote}
}

func bulletItem(li *goquery.Selection) (listItem, bool) {
	t := flat(selText(li))
	switch {
	case t == "" || looksLikeInjection(t):
		return listItem{}, false
	case runeLen(t) <= MaxItemLen:
		return listItem{item: t, quote: t}, true
	}
	if strong := flat(selText(li.Find("strong,b").First())); strong != "" && runeLen(strong) <= MaxItemLen {
		return listItem{item: strong, quote: t}, true
	}
	if s := splitSentences(t); len(s) > 0 && runeLen(s[0]) <= MaxItemLen {
		return listItem{item: s[0], quote: t}, true
	}
	return listItem{}, false
}

// extractKeywords copies meta keywords, and schema.org keywords as tags.
func extractKeywords(b *builder, home *pageInfo) {
	if kw := home.meta["keywords"]; kw != "" {
		b.setList("keywords", splitKeywords(kw), []Evidence{metaEv(home, "keywords")})
	}
	for _, n := range home.ld {
		if !ldHasType(n, productTypes...) {
			continue
		}
		raw := ldList(n, "keywords")
		var tags []string
		var evs []Evidence
		for _, r := range raw {
			for _, t := range splitKeywords(r) {
				tags = append(tags, t)
			}
			evs = append(evs, ldEv(home, ldType(n), "keywords", r))
		}
		b.setList("tags", tags, evs)
	}
}

func splitKeywords(s string) []string {
	var out []string
	seen := map[string]bool{}
	for _, k := range strings.Split(s, ",") {
		k = strings.TrimSpace(k)
		if k != "" && runeLen(k) <= MaxItemLen && !seen[strings.ToLower(k)] {
			seen[strings.ToLower(k)] = true
			out = append(out, k)
		}
	}
	return out
}

var (
	// "<what it is> for <audience>" in a tagline.
	whatForRe = regexp.MustCompile(`(?i)^(.{3,60}?) (?:for|für|pour|para) \S`)
	// "<Name> is a <what it is>[: , that …]" in a description.
	whatIsRe    = regexp.MustCompile(`(?i)^\S+(?: \S+)? (?:is|ist|est|es) (?:an? |the |eine?r? |die |der |das |une? |una? |la |le |el )?([^:,.;]{3,60}?)(?:[:,.;]| that | for | für | pour | para | con | with | connecting |$)`)
	leadArticle = regexp.MustCompile(`(?i)^(?:the|an?|die|der|das|eine?|le|la|les|une?|el|una?) `)
	prepTail    = regexp.MustCompile(`(?i) (?:on|in|per|auf|en|sur) .*$`)
	andSplit    = regexp.MustCompile(`(?i) (?:and|und|et|y) `)
	notWhat     = regexp.MustCompile(`(?i)^(?:one|every|your|our|never|find|tu|vos|votre|ihr|fast) |\d`)
)

// productTags derives tags from what the product says it is: the head of
// its tagline ("Email marketing for shops") and of its description
// ("Helpwise is help desk software: …"), each with the source's evidence.
func productTags(b *builder) {
	if b.has("tags") {
		return
	}
	var tags []string
	var evs []Evidence
	seen := map[string]bool{}
	add := func(key string, re *regexp.Regexp) {
		v, ok := b.p.Fields[key]
		s, _ := v.Value.(string)
		m := re.FindStringSubmatch(strings.TrimSpace(s))
		if !ok || m == nil {
			return
		}
		for _, t := range andSplit.Split(prepTail.ReplaceAllString(leadArticle.ReplaceAllString(strings.TrimSpace(m[1]), ""), ""), -1) {
			t = strings.TrimSpace(t)
			if n := len(strings.Fields(t)); n == 0 || n > 4 || notWhat.MatchString(t+" ") || seen[foldText(t)] || looksLikeInjection(t) {
				continue
			}
			seen[foldText(t)] = true
			tags = append(tags, t)
			evs = append(evs, v.Evidence...)
		}
	}
	add("tagline", whatForRe)
	add("short_description", whatIsRe)
	tags = dropLonger(tags)
	if len(tags) > 8 {
		tags = tags[:8]
	}
	b.setList("tags", tags, evs)
}

// dropLonger keeps "help desk" and drops "help desk software": one tag per
// thing.
func dropLonger(tags []string) []string {
	var out []string
	for i, t := range tags {
		dup := false
		for j, u := range tags {
			if i != j && len(u) < len(t) && strings.Contains(foldText(t), foldText(u)) {
				dup = true
			}
		}
		if !dup {
			out = append(out, t)
		}
	}
	return out
}
