package crawl

import (
	"regexp"
	"strconv"
	"strings"

	"github.com/PuerkitoBio/goquery"
)

// priceRe matches a quoted price such as "$29/month", "€9 per user/month"
// or "49 €".
var priceRe = regexp.MustCompile(`(?i)(?:[$€£¥₹]\s?\d[\d,]*(?:\.\d{1,2})?|\b\d[\d,]*(?:\.\d{1,2})?\s?(?:€|eur\b|usd\b|gbp\b))(?:\s?(?:/|per|pro|par|al|por)\s?(?:(?:user|seat|member|agent|editor|vehicle|clinic|utilisateur|nutzer|usuario)\s?/?\s?(?:per\s)?)?(?:mo|month|yr|year|annum|week|monat|mois|mes)\b)?`)

var recurringRe = regexp.MustCompile(`(?i)/\s?(?:mo|month|yr|year|week|monat|jahr|mois|an|mes|año)\b|\b(?:per|pro|par|al|por|a|each|every|billed|im|au)\b[^.\d]{0,30}?\b(?:mo|month|year|yr|annum|week|monat|jahr|mois|an|mes|año)\b|\b(?:monthly|annually|yearly|monatlich|jährlich|mensuel\w*|annuel\w*|mensual\w*|anual\w*)\b`)

// Stated pricing rules, in the order they decide pricing_model.
var (
	usageRe    = regexp.MustCompile(`(?i)\busage[- ]based\b|\bpay[- ]as[- ]you[- ]go\b|\bpay (?:only )?(?:per|for what you)\b|\bper (?:million|thousand|1,000|1\.000|request|call|api call|lesson|session|transaction|booking|gb|minute)\b|\bnutzungsbasiert\w*|\bpaiement à l'usage\b|\bpago por uso(?:[^\p{L}]|$)`)
	oneTimeRe  = regexp.MustCompile(`(?i)\bone[- ]time (?:purchase|payment|fee|price|licen[cs]e)\b|\blifetime (?:deal|licen[cs]e|access)\b|\bpay once\b|\bbuy once\b|\beinmalig\w*|\bpaiement unique\b|\bachat unique\b|\bpago único(?:[^\p{L}]|$)`)
	openSrcRe  = regexp.MustCompile(`(?i)\bopen[- ]source\b|\bquelloffen\b|\bcode source ouvert\b|\bcódigo abierto\b`)
	freeWordRe = regexp.MustCompile(`(?i)^(?:free|kostenlos|gratis|gratuit|gratuito|gratuite|free forever)\b|\b(?:free forever|free for up to|kostenlos|gratuit)\b`)
)

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
// pricing_model only by a stated rule: usage-based or one-time wording, a
// free plan next to a paid one (freemium), recurring prices (subscription),
// JSON-LD offers, and for sites without prices open source or free.
func extractPricing(b *builder, pages []*pageInfo) {
	statedModel(b, pages)
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
	offersModel(b, pages)
	recurringSentence(b, pages)
	extractFreeModel(b, pages)
}

// statedModel applies the wording rules (usage-based, one-time) on the
// pricing and home pages.
func statedModel(b *builder, pages []*pageInfo) {
	for _, rule := range []struct {
		re    *regexp.Regexp
		model string
	}{{usageRe, "usage_based"}, {oneTimeRe, "one_time"}} {
		for _, pi := range byKind(pages, "pricing", "home") {
			if pi.kind != "pricing" && pi.kind != "home" {
				continue
			}
			for _, line := range pi.lines {
				if loc := rule.re.FindStringIndex(line); loc != nil && !isBoilerplate(line) {
					b.setString("pricing_model", rule.model, ev(pi, sentenceAt(line, loc[0], loc[1])))
					return
				}
			}
		}
	}
}

// offersModel reads schema.org Offers: a zero price next to a positive one
// is freemium.
func offersModel(b *builder, pages []*pageInfo) {
	for _, pi := range pages {
		var free, paid *Evidence
		for _, n := range pi.ld {
			if !ldHasType(n, "Offer") {
				continue
			}
			pr := ldString(n, "price")
			f, err := strconv.ParseFloat(strings.ReplaceAll(pr, ",", "."), 64)
			if err != nil {
				continue
			}
			e := ldEv(pi, ldType(n), "price", pr)
			if f == 0 && free == nil {
				free = &e
				if nm := ldString(n, "name"); nm != "" {
					e2 := ldEv(pi, ldType(n), "name", nm)
					free = &e2
				}
			}
			if f > 0 && paid == nil {
				paid = &e
			}
		}
		if free != nil && paid != nil {
			b.setString("pricing_model", "freemium", *free, *paid)
			return
		}
	}
}

// recurringSentence: a pricing page that states one recurring price in a
// sentence ("£30 per vehicle per month") is a subscription.
func recurringSentence(b *builder, pages []*pageInfo) {
	for _, pi := range pages {
		if pi.kind != "pricing" {
			continue
		}
		for _, line := range pi.lines {
			for _, sent := range splitSentences(line) {
				if priceRe.MatchString(sent) && recurringRe.MatchString(sent) && priceAmount(priceRe.FindString(sent)) > 0 {
					b.setString("pricing_model", "subscription", ev(pi, sent))
					return
				}
			}
		}
	}
}

// freeTierRe states a free plan in words ("Free plan for up to 3 users").
var freeTierRe = regexp.MustCompile(`(?i)\bfree (?:plan|tier|forever|version|edition|account)\b|\bfree for (?:up to|small|individuals|personal|solo|one)\b|\b(?:start|get started|stay) (?:for )?free\b(?:[^.]{0,20}\bforever\b)|\bkostenlose[rn]? (?:tarif|plan|basis|version|einstieg|zugang)|\bdauerhaft kostenlos\b|\bfür immer kostenlos\b|\b(?:plan|offre|formule|version) gratuite?\b|\bgratuit pour toujours\b|\b(?:plan|versión|cuenta) gratuit[ao]\b|\bgratis para siempre\b`)

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
		if p.amount > 0 && recurringRe.MatchString(p.quote) {
			recurring = true
		}
	}
	if free == nil && paid != nil {
		for _, line := range paid.pi.lines {
			if loc := freeTierRe.FindStringIndex(line); loc != nil && !strings.Contains(strings.ToLower(line), "trial") && !isBoilerplate(line) {
				b.setString("pricing_model", "freemium", ev(paid.pi, sentenceAt(line, loc[0], loc[1])), ev(paid.pi, paid.quote))
				return
			}
		}
	}
	switch {
	case free != nil && paid != nil:
		b.setString("pricing_model", "freemium", ev(free.pi, free.quote), ev(paid.pi, paid.quote))
	case free == nil && paid != nil && recurring:
		b.setString("pricing_model", "subscription", ev(paid.pi, paid.quote))
	}
}

var freeRe = regexp.MustCompile(`(?i)\b(?:is (?:completely |totally |100% )?free|free forever|free to use|completely free|free and open[- ]source|an? (?:completely |totally )?free (?:app|tool|service|plugin|extension|game))\b`)

// extractFreeModel marks a product open source or free only on an explicit
// statement and when no page shows a price.
func extractFreeModel(b *builder, pages []*pageInfo) {
	for _, pi := range pages {
		if priceRe.MatchString(strings.Join(pi.lines, "\n")) {
			return
		}
	}
	for _, pi := range byKind(pages, "pricing", "home", "faq") {
		for _, line := range pi.lines {
			if loc := openSrcRe.FindStringIndex(line); loc != nil && !isBoilerplate(line) {
				b.setString("pricing_model", "open_source", ev(pi, sentenceAt(line, loc[0], loc[1])))
				return
			}
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

var planClass = `[class*=plan],[class*=tier],[class*=pricing-card],[class*=price-card],[class*=package],[class*=tarif],[class*=paket],[class*=offre],[class*=product]`

// findPlans reads plan cards (one heading + a price) or table rows.
func findPlans(pi *pageInfo) []plan {
	var plans []plan
	seen := map[string]bool{}
	addCard := func(card *goquery.Selection) {
		heads := card.Find("h2,h3,h4,h5")
		if heads.Length() == 0 || heads.Length() > 3 || card.Find(planClass).Length() > 1 {
			return
		}
		text := flat(selText(card))
		price := priceRe.FindString(text)
		name := flat(selText(heads.First()))
		if heads.Length() > 1 && (price == "" || strings.Index(text, price) < strings.Index(text, name)) {
			return
		}
		if price == "" {
			// A free plan often names no amount: "Kostenlos", "Free for up to 3".
			body := strings.TrimSpace(strings.TrimPrefix(text, name))
			if m := freeWordRe.FindString(body); m != "" && !strings.Contains(strings.ToLower(body), "trial") {
				price = strings.TrimSpace(m)
			}
		}
		if price == "" || name == "" || seen[name] || runeLen(name) > 60 {
			return
		}
		seen[name] = true
		plans = append(plans, plan{name: name, price: price, quote: quoteUpTo(text, price), amount: priceAmount(price), pi: pi})
	}
	pi.doc.Find(planClass).Each(func(_ int, s *goquery.Selection) { addCard(s) })
	if len(plans) == 0 && pi.kind == "pricing" {
		pi.doc.Find("h2,h3,h4").Each(func(_ int, h *goquery.Selection) {
			if h.Parent().Find("h2,h3,h4").Length() == 1 {
				addCard(h.Parent())
			}
		})
	}
	if len(plans) > 0 {
		return plans
	}
	if plans = columnPlans(pi); len(plans) > 0 {
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

// columnPlans reads a comparison table whose columns are plans: a header
// row of plan names and a row of prices under them.
func columnPlans(pi *pageInfo) []plan {
	var plans []plan
	pi.doc.Find("table").EachWithBreak(func(_ int, tbl *goquery.Selection) bool {
		rows := tbl.Find("tr")
		if rows.Length() < 2 {
			return true
		}
		var names []string
		rows.First().Children().Each(func(_ int, c *goquery.Selection) { names = append(names, flat(selText(c))) })
		if len(names) < 3 {
			return true
		}
		rows.Slice(1, rows.Length()).EachWithBreak(func(_ int, tr *goquery.Selection) bool {
			var cells []string
			tr.Children().Each(func(_ int, c *goquery.Selection) { cells = append(cells, flat(selText(c))) })
			if len(cells) != len(names) {
				return true
			}
			var found []plan
			for i := 1; i < len(cells); i++ {
				price := priceRe.FindString(cells[i])
				if price == "" {
					if m := freeWordRe.FindString(cells[i]); m != "" {
						price = strings.TrimSpace(m)
					}
				}
				name := names[i]
				if price == "" || name == "" || runeLen(name) > 60 || priceRe.MatchString(name) {
					continue
				}
				found = append(found, plan{name: name, price: price, quote: name + " " + cells[i], amount: priceAmount(price), pi: pi})
			}
			if len(found) >= 2 {
				// The quote joins the plan's header and price cells; both are
				// on the page, in one column, so each is quoted on its own.
				for i := range found {
					found[i].quote = found[i].price
					if !findQuote(pi, found[i].quote) {
						found[i].quote = ""
					}
				}
				plans = found
				return false
			}
			return true
		})
		return len(plans) == 0
	})
	var out []plan
	for _, p := range plans {
		if p.quote != "" {
			out = append(out, p)
		}
	}
	if len(out) < 2 {
		return nil
	}
	return out
}

// quoteUpTo keeps the card text short but always including the price.
func quoteUpTo(text, price string) string {
	if runeLen(text) <= 300 {
		return text
	}
	end := strings.Index(text, price) + len(price)
	return text[:end]
}
