package crawl

import (
	"regexp"
	"strconv"
	"strings"

	"github.com/PuerkitoBio/goquery"
)

// priceRe matches a quoted price such as "$29/month", "€9 per user/month"
// or "49 €".
var priceRe = regexp.MustCompile(`(?i)(?:[$€£¥₹]\s?\d[\d,]*(?:\.\d{1,2})?|\b\d[\d,]*(?:\.\d{1,2})?\s?(?:€|eur\b|usd\b|gbp\b))(?:\s?(?:/|per)\s?(?:(?:user|seat|member)\s?/?\s?)?(?:mo|month|yr|year|annum|week)\b)?`)

var recurringRe = regexp.MustCompile(`(?i)(?:/|per)\s?(?:(?:user|seat|member)\s?/?\s?)?(?:mo|month|yr|year|annum|week)\b`)

var numberRe = regexp.MustCompile(`\d[\d,]*(?:\.\d+)?`)

// plan is one pricing plan as the page shows it.
type plan struct {
	name, price, quote string
	amount             float64
	pi                 *pageInfo
}

func priceAmount(price string) float64 {
	n := strings.ReplaceAll(numberRe.FindString(price), ",", "")
	f, _ := strconv.ParseFloat(n, 64)
	return f
}

// extractPricing sets pricing_summary from plan cards or pricing tables, and
// pricing_model only when the plans (or a sentence) say so.
func extractPricing(b *builder, pages []*pageInfo) {
	for _, pi := range byKind(pages, "pricing", "home") {
		if pi.kind != "pricing" && pi.kind != "home" {
			continue
		}
		plans := findPlans(pi)
		if len(plans) == 0 {
			continue
		}
		var parts []string
		var evs []Evidence
		for _, p := range plans {
			parts = append(parts, p.name+": "+p.price)
			evs = append(evs, ev(pi, p.quote))
		}
		if summary := strings.Join(parts, "; "); runeLen(summary) <= MaxStringLen {
			b.setString("pricing_summary", summary, evs...)
		}
		setPricingModel(b, plans)
		return
	}
	extractFreeModel(b, pages)
}

func setPricingModel(b *builder, plans []plan) {
	var free, paid *plan
	recurring := false
	for i := range plans {
		p := &plans[i]
		if p.amount == 0 && free == nil {
			free = p
		}
		if p.amount > 0 && paid == nil {
			paid = p
		}
		if p.amount > 0 && recurringRe.MatchString(p.price) {
			recurring = true
		}
	}
	switch {
	case free != nil && paid != nil:
		b.setString("pricing_model", "freemium", ev(free.pi, free.quote), ev(paid.pi, paid.quote))
	case free == nil && paid != nil && recurring:
		b.setString("pricing_model", "subscription", ev(paid.pi, paid.quote))
	}
}

var freeRe = regexp.MustCompile(`(?i)\b(?:is (?:completely |totally |100% )?free|free forever|free to use|completely free|free and open[- ]source)\b`)

// extractFreeModel marks a product "free" only on an explicit statement and
// when no page shows a price.
func extractFreeModel(b *builder, pages []*pageInfo) {
	for _, pi := range pages {
		if priceRe.MatchString(pi.page.Text) {
			return
		}
	}
	for _, pi := range byKind(pages, "pricing", "home", "faq") {
		for _, line := range pi.lines {
			if loc := freeRe.FindStringIndex(line); loc != nil && !looksLikeInjection(line) {
				b.setString("pricing_model", "free", ev(pi, sentenceAt(line, loc[0], loc[1])))
				return
			}
		}
	}
}

var planClass = `[class*=plan],[class*=tier],[class*=pricing-card],[class*=price-card],[class*=package]`

// findPlans reads plan cards (one heading + a price) or table rows.
func findPlans(pi *pageInfo) []plan {
	var plans []plan
	seen := map[string]bool{}
	addCard := func(card *goquery.Selection) {
		heads := card.Find("h2,h3,h4,h5")
		if heads.Length() != 1 {
			return
		}
		text := flat(selText(card))
		price := priceRe.FindString(text)
		name := flat(selText(heads))
		if price == "" || name == "" || seen[name] || runeLen(name) > 60 {
			return
		}
		seen[name] = true
		plans = append(plans, plan{name: name, price: price, quote: quoteUpTo(text, price), amount: priceAmount(price), pi: pi})
	}
	pi.doc.Find(planClass).Each(func(_ int, s *goquery.Selection) { addCard(s) })
	if len(plans) == 0 && pi.kind == "pricing" {
		pi.doc.Find("h3,h4").Each(func(_ int, h *goquery.Selection) { addCard(h.Parent()) })
	}
	if len(plans) > 0 {
		return plans
	}
	pi.doc.Find("tr").Each(func(_ int, tr *goquery.Selection) {
		cells := tr.Find("td")
		if cells.Length() < 2 {
			return
		}
		name := flat(selText(cells.First()))
		text := flat(selText(tr))
		price := priceRe.FindString(text)
		if price == "" || name == "" || priceRe.MatchString(name) || seen[name] {
			return
		}
		seen[name] = true
		plans = append(plans, plan{name: name, price: price, quote: text, amount: priceAmount(price), pi: pi})
	})
	return plans
}

// quoteUpTo keeps the card text short but always including the price.
func quoteUpTo(text, price string) string {
	if runeLen(text) <= 300 {
		return text
	}
	end := strings.Index(text, price) + len(price)
	return text[:end]
}
