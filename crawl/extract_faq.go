package crawl

import (
	"regexp"
	"strings"

	"github.com/PuerkitoBio/goquery"
)

var faqHeading = regexp.MustCompile(`(?i)\bfaqs?\b|frequently asked|^questions\b|common questions|questions (?:&|and) answers|^q ?& ?a\b|häufige fragen|^fragen\b|questions fréquentes|preguntas frecuentes|^preguntas\b|veelgestelde vragen|domande frequenti`)

// extractFAQs reads FAQPage structured data, <details>/<summary>, <dl>
// lists and questions written as headings under an FAQ heading.
func extractFAQs(pages []*pageInfo) []FAQ {
	var out []FAQ
	seen := map[string]bool{}
	add := func(pi *pageInfo, q, a string, evs ...Evidence) {
		q, a = flat(q), flat(trimNavLines(a))
		key := foldText(q)
		if q == "" || a == "" || seen[key] || len(out) >= MaxFAQs || runeLen(q) > MaxStringLen || looksLikeInjection(q+" "+a) {
			return
		}
		seen[key] = true
		a = truncateRunes(a, MaxFAQAnswerLen)
		if len(evs) == 0 {
			evs = []Evidence{ev(pi, q), ev(pi, a)}
		}
		out = append(out, FAQ{Question: q, Answer: a, Evidence: evs})
	}
	for _, pi := range byKind(pages, "faq", "home", "pricing") {
		faqFromDetails(pi, add)
		faqFromDL(pi, add)
		faqFromHeadings(pi, add)
		if pi.kind == "faq" {
			faqFromQuestions(pi, add)
		}
		faqFromLD(pi, add)
	}
	return out
}

type faqAdder func(pi *pageInfo, q, a string, evs ...Evidence)

func faqFromDetails(pi *pageInfo, add faqAdder) {
	pi.doc.Find("details").Each(func(_ int, d *goquery.Selection) {
		sum := d.ChildrenFiltered("summary").First()
		if sum.Length() == 0 {
			return
		}
		rest := d.Children().Not("summary")
		add(pi, selText(sum), chromeless(rest))
	})
}

func faqFromDL(pi *pageInfo, add faqAdder) {
	pi.doc.Find("dl").Each(func(_ int, dl *goquery.Selection) {
		dl.ChildrenFiltered("dt").Each(func(_ int, dt *goquery.Selection) {
			q := flat(selText(dt))
			dd := dt.NextFiltered("dd")
			if strings.HasSuffix(q, "?") && dd.Length() > 0 {
				add(pi, q, chromeless(dd))
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
			case goquery.NodeName(sib) == "p" && q != "" && sib.Closest(chromeSel).Length() == 0:
				a = append(a, text)
			}
		}
		flush()
	})
}

// faqFromQuestions reads any question/answer shape on an FAQ page: a
// short block ending in "?" (heading, paragraph, bold text, button)
// followed by the block that answers it.
func faqFromQuestions(pi *pageInfo, add faqAdder) {
	pi.doc.Find("h2,h3,h4,h5,h6,p,button,div,span,strong,b").Each(func(_ int, q *goquery.Selection) {
		text := flat(selText(q))
		if !strings.HasSuffix(text, "?") || runeLen(text) > 200 || len(strings.Fields(text)) < 2 {
			return
		}
		// Use the outermost element holding exactly this text.
		for p := q.Parent(); p.Length() > 0 && flat(selText(p)) == text; p = p.Parent() {
			q = p
		}
		ans := q.Next()
		if ans.Length() == 0 || headingLevel(ans.Get(0)) > 0 {
			return
		}
		a := flat(trimNavLines(chromeless(ans)))
		if a == "" || strings.HasSuffix(a, "?") || len(strings.Fields(a)) < 2 {
			return
		}
		add(pi, text, a)
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
		addLD(pi, ldString(n, "name"), a, add)
	}
}

// addLD adds a JSON-LD question: quoted from the visible page when it is
// there, else in the json-ld quote form.
func addLD(pi *pageInfo, q, a string, add faqAdder) {
	if findLine(pi, q) != "" && findLine(pi, a) != "" {
		add(pi, q, a)
		return
	}
	add(pi, q, a, ldEv(pi, "Question", "name", q), ldEv(pi, "Answer", "text", a))
}

// chromeSel is site navigation: menus, breadcrumbs, headers and footers.
const chromeSel = `nav,header,footer,[role=navigation],[role=banner],[role=contentinfo],[class*=breadcrumb],[class*=navbar],[class*=menu],[class*=pagination],[class*=back-to-top]`

// chromeless is the visible text of s without the navigation inside it.
func chromeless(s *goquery.Selection) string {
	c := s.Clone()
	c.Find(chromeSel).Remove()
	return selText(c.Filter(":not(" + chromeSel + ")"))
}

// navLine is a line that only names a place of the site ("Home", "Back
// to top", "Startseite", "Accueil", "Inicio").
var navLine = regexp.MustCompile(`(?i)^\W*(?:home|homepage|start|startseite|accueil|inicio|menu|menü|menú|back|back to top|back to faq|top|nach oben|zurück|zur startseite|retour|haut de page|retour en haut|volver|volver arriba|ir arriba|contact|kontakt|contacto|nous contacter|blog|login|log in|sign in|sign up|anmelden|connexion|iniciar sesión|faq|pricing|preise|tarifs|precios|features|about|über uns|à propos|sobre nosotros|next|previous|weiter|suivant|siguiente|skip to content)\W*$`)

// trimNavLines drops navigation lines at the start and end of a text.
func trimNavLines(s string) string {
	lines := strings.Split(strings.TrimSpace(s), "\n")
	for len(lines) > 1 && navLine.MatchString(lines[len(lines)-1]) {
		lines = lines[:len(lines)-1]
	}
	for len(lines) > 1 && navLine.MatchString(lines[0]) {
		lines = lines[1:]
	}
	return strings.Join(lines, "\n")
}

// visibleTextOfFragment strips markup from an HTML snippet.
func visibleTextOfFragment(s string) string {
	doc, err := goquery.NewDocumentFromReader(strings.NewReader(s))
	if err != nil {
		return s
	}
	return selText(doc.Selection)
}
