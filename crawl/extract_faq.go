package crawl

import (
	"regexp"
	"strings"

	"github.com/PuerkitoBio/goquery"
)

var faqHeading = regexp.MustCompile(`(?i)\bfaqs?\b|frequently asked|^questions\b|common questions`)

// extractFAQs reads FAQPage structured data, <details>/<summary>, <dl>
// lists and questions written as headings under an FAQ heading.
func extractFAQs(pages []*pageInfo) []FAQ {
	var out []FAQ
	seen := map[string]bool{}
	add := func(pi *pageInfo, q, a string) {
		q, a = flat(q), flat(a)
		key := foldText(q)
		if q == "" || a == "" || seen[key] || len(out) >= MaxFAQs || runeLen(q) > MaxStringLen || looksLikeInjection(q+" "+a) {
			return
		}
		seen[key] = true
		a = truncateRunes(a, MaxFAQAnswerLen)
		out = append(out, FAQ{Question: q, Answer: a, Evidence: []Evidence{ev(pi, q), ev(pi, a)}})
	}
	for _, pi := range byKind(pages, "faq", "home", "pricing") {
		faqFromDetails(pi, add)
		faqFromDL(pi, add)
		faqFromHeadings(pi, add)
		faqFromLD(pi, add)
	}
	return out
}

type faqAdder func(pi *pageInfo, q, a string)

func faqFromDetails(pi *pageInfo, add faqAdder) {
	pi.doc.Find("details").Each(func(_ int, d *goquery.Selection) {
		sum := d.ChildrenFiltered("summary").First()
		if sum.Length() == 0 {
			return
		}
		rest := d.Children().Not("summary")
		add(pi, selText(sum), selText(rest))
	})
}

func faqFromDL(pi *pageInfo, add faqAdder) {
	pi.doc.Find("dl").Each(func(_ int, dl *goquery.Selection) {
		dl.ChildrenFiltered("dt").Each(func(_ int, dt *goquery.Selection) {
			q := flat(selText(dt))
			dd := dt.NextFiltered("dd")
			if strings.HasSuffix(q, "?") && dd.Length() > 0 {
				add(pi, q, selText(dd))
			}
		})
	})
}

// faqFromHeadings handles "FAQ" followed by question headings, each with
// paragraphs as the answer, until a heading at the FAQ heading's level.
func faqFromHeadings(pi *pageInfo, add faqAdder) {
	pi.doc.Find("h1,h2,h3").Each(func(_ int, h *goquery.Selection) {
		if !faqHeading.MatchString(flat(selText(h))) {
			return
		}
		level := headingLevel(h.Get(0))
		q, a := "", []string{}
		flush := func() {
			if q != "" && len(a) > 0 {
				add(pi, q, strings.Join(a, " "))
			}
			q, a = "", nil
		}
		for sib := h.Next(); sib.Length() > 0; sib = sib.Next() {
			l := headingLevel(sib.Get(0))
			text := flat(selText(sib))
			switch {
			case l > 0 && l <= level:
				flush()
				return
			case l > level && strings.HasSuffix(text, "?"):
				flush()
				q = text
			case goquery.NodeName(sib) == "p" && q != "":
				a = append(a, text)
			}
		}
		flush()
	})
}

// faqFromLD reads schema.org FAQPage Question/acceptedAnswer pairs.
func faqFromLD(pi *pageInfo, add faqAdder) {
	for _, n := range pi.ld {
		if !ldHasType(n, "Question") {
			continue
		}
		ans, ok := n["acceptedAnswer"].(map[string]any)
		if !ok {
			continue
		}
		a := ldString(ans, "text")
		if strings.Contains(a, "<") {
			a = visibleTextOfFragment(a)
		}
		add(pi, ldString(n, "name"), a)
	}
}

// visibleTextOfFragment strips markup from an HTML snippet.
func visibleTextOfFragment(s string) string {
	doc, err := goquery.NewDocumentFromReader(strings.NewReader(s))
	if err != nil {
		return s
	}
	return selText(doc.Selection)
}
