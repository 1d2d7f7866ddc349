package demo

import (
	"fmt"
	"slices"
	"strconv"
	"strings"
)

// vocab is the set of words one listing's prose is built from. Choosing
// them once keeps the tagline, description, FAQs and reviews consistent.
type vocab struct {
	top      *topCategory
	sub      *subcategory
	features []string
	words    []string // placeholder, value, placeholder, value, …
}

// fill replaces the {placeholders} of tmpl with this listing's words and
// capitalises the result. It does what a strings.Replacer of the pairs
// would (every placeholder is one brace-delimited word, so at most one
// matches at a position) without building a replacer per listing.
func (v *vocab) fill(tmpl string) string {
	if !strings.Contains(tmpl, "{") {
		return capitalise(tmpl)
	}
	var b strings.Builder
	b.Grow(len(tmpl) + 64)
	for {
		i := strings.IndexByte(tmpl, '{')
		if i < 0 {
			break
		}
		b.WriteString(tmpl[:i])
		tmpl = tmpl[i:]
		word, n := v.lookup(tmpl)
		if n == 0 {
			b.WriteByte('{')
			tmpl = tmpl[1:]
			continue
		}
		b.WriteString(word)
		tmpl = tmpl[n:]
	}
	b.WriteString(tmpl)
	return capitalise(b.String())
}

// lookup returns the value of the placeholder s starts with and its length.
func (v *vocab) lookup(s string) (string, int) {
	end := strings.IndexByte(s, '}')
	if end < 0 {
		return "", 0
	}
	key := s[:end+1]
	for i := 0; i < len(v.words); i += 2 {
		if v.words[i] == key {
			return v.words[i+1], end + 1
		}
	}
	return "", 0
}

// newListing builds the descriptive fields of a listing in cat. rich adds
// longer prose; Seed turns it off for speed.
func (g *gen) newListing(id int64, status string, cat *category, rich bool) *listing {
	l := &listing{ID: id, Status: status, Category: cat, DomainRating: -1}
	g.naming(l)
	l.Country, l.City = g.place()
	if g.chance(8) {
		l.City = "" // decided before the prose, which mentions the city
	}
	l.PricingModel, l.PricingNote = g.pricing(cat.Top)
	l.Stage = g.stage(status)
	l.words = g.vocabulary(l, cat)
	g.prose(l, rich)
	g.facts(l)
	g.attributes(l)
	l.NotFound = notFound(l)
	return l
}

// naming picks a product name with a free slug and domain.
func (g *gen) naming(l *listing) {
	for try := 0; try < 8; try++ {
		l.Name = g.productName()
		if !g.slugs.has(slugify(l.Name)) {
			break
		}
	}
	l.Slug = uniqueSlug(g.slugs, slugify(l.Name))
	l.Domain = g.domain(l)
	l.URL = "https://" + l.Domain + "/"
	if g.chance(20) {
		l.URL = "https://www." + l.Domain + "/"
	}
	l.LogoURL = "https://" + l.Domain + "/logo.png"
}

func (g *gen) productName() string {
	root := pick(g, nameRoots)
	switch x := g.r.IntN(100); {
	case x < 60:
		return root + pick(g, nameSuffixes)
	case x < 90:
		other := pick(g, nameRoots)
		if other == root {
			return root + pick(g, nameSuffixes)
		}
		return root + strings.ToLower(other)
	default:
		return root + " " + pick(g, nameSecondWords)
	}
}

// domain tries the plain name on every TLD, then prefixed variants
// ("getledgerly.io"), the way founders find a free domain.
func (g *gen) domain(l *listing) string {
	base := strings.ReplaceAll(l.Slug, "-", "")
	start := g.r.IntN(len(tlds))
	for _, prefix := range domainPrefixes {
		for i := range tlds {
			d := prefix + base + tlds[(start+i)%len(tlds)]
			if !g.domains.has(d) {
				g.domains.add(d)
				return d
			}
		}
	}
	d := base + strconv.FormatInt(l.ID, 10) + ".com"
	g.domains.add(d)
	return d
}

func (g *gen) pricing(top *topCategory) (model, summary string) {
	models := []string{"freemium", "subscription", "usage-based", "one-time", "free", "open-source"}
	weights := []int{30, 30, 10, 8, 8, 6}
	if top.OpenSource {
		weights[5] += 16
	}
	model = models[g.weighted(weights)]
	p := pick(g, []int{5, 8, 9, 12, 15, 19, 24, 29, 39, 49, 79, 99})
	options := map[string][]string{
		"freemium":     {"Free plan; Pro from $%d/month", "Free for up to 3 users, then $%d per user/month"},
		"subscription": {"From $%d/month with a 14-day free trial", "$%d per seat per month, billed annually", "Starter $%d/month; Team plans available"},
		"usage-based":  {"Free up to 10,000 events, then $%d per 100,000", "Pay as you go; typical teams spend about $%d/month"},
		"one-time":     {"One-time purchase of $%d with a year of updates", "Lifetime licence for $%d"},
		"free":         {"Free forever", "Free, supported by optional donations"},
		"open-source":  {"Free and open source (MIT); hosted plan from $%d/month", "Open source (AGPL); managed cloud from $%d/month"},
	}[model]
	tmpl := pick(g, options)
	if model == "one-time" {
		p *= 3
	}
	if strings.Contains(tmpl, "%d") {
		summary = fmt.Sprintf(tmpl, p)
	} else {
		summary = tmpl
	}
	if g.chance(5) {
		summary = "" // the site did not say
	}
	return model, summary
}

func (g *gen) stage(status string) string {
	stages := []string{"idea", "pre-launch", "beta", "launched", "growth", "profitable"}
	var w []int
	switch status {
	case "live", "archived":
		w = []int{0, 3, 25, 40, 20, 12}
	case "scheduled":
		w = []int{0, 40, 40, 20, 0, 0}
	default:
		w = []int{30, 40, 30, 0, 0, 0}
	}
	return stages[g.weighted(w)]
}

// vocabulary chooses the words of this listing. A top-level primary
// category borrows the words of one of its subcategories.
func (g *gen) vocabulary(l *listing, cat *category) *vocab {
	top, sub := cat.Top, cat.Sub
	if sub == nil {
		sub = &top.Subs[g.r.IntN(len(top.Subs))]
	}
	verbs := sample(g, sub.Verbs, 2)
	nouns := sample(g, sub.Nouns, 2)
	auds := sample(g, top.Audiences, 2)
	ints := sample(g, top.Integrations, 2)
	feats := sample(g, append(append([]string{}, sub.Features...), top.Features...), 8)
	adj := pick(g, adjectives)
	lf := make([]string, len(feats))
	for i, f := range feats {
		lf[i] = lowerFirst(f)
	}
	city := l.City
	if city == "" {
		city = "a small town"
	}
	words := []string{
		"{Name}", l.Name, "{kind}", sub.Kind,
		"{Verb}", capitalise(verbs[0]), "{verb}", verbs[0], "{verb2}", verbs[1],
		"{noun}", nouns[0], "{noun2}", nouns[1],
		"{adj}", adj, "{a_adj}", article(adj) + " " + adj, "{A_adj}", capitalise(article(adj)) + " " + adj,
		"{audience}", auds[0], "{Audience}", capitalise(auds[0]), "{audience2}", auds[1], "{pain}", pick(g, top.Pains),
		"{integration}", ints[0], "{integration2}", ints[1],
		"{f1}", lf[0], "{f2}", lf[1], "{f3}", lf[2], "{f4}", lf[3], "{F1}", feats[0],
		"{city}", city, "{count}", thousands(pick(g, []int{300, 800, 1200, 2500, 4000, 9000, 15000})),
		"{ncountries}", strconv.Itoa(5 + g.r.IntN(60)), "{pricing}", pricingPhrase(l),
		"{n}", strconv.Itoa(pick(g, []int{5, 10, 15, 20})),
	}
	return &vocab{top: top, sub: sub, features: feats, words: words}
}

// pricingPhrase describes the price mid-sentence, even when the site did
// not state a pricing summary.
func pricingPhrase(l *listing) string {
	if l.PricingNote == "" {
		switch l.PricingModel {
		case "free":
			return "it is free"
		case "freemium":
			return "a free plan, with paid upgrades as you grow"
		case "open-source":
			return "free to self-host, with a paid hosted plan"
		case "one-time":
			return "pay once, use it forever"
		case "usage-based":
			return "you pay only for what you use"
		}
		return "one plan, billed monthly"
	}
	return strings.ToLower(l.PricingNote[:1]) + l.PricingNote[1:]
}

// prose writes the tagline, descriptions, features and search words.
func (g *gen) prose(l *listing, rich bool) {
	v := l.words
	l.Tagline = v.fill(pick(g, taglineTemplates))
	l.Short = v.fill(pick(g, shortTemplates))
	paras := []string{v.fill(pick(g, introTemplates))}
	extra := [][]string{howTemplates, featureTemplates, teamTemplates}
	n := 1
	if rich {
		n = 1 + g.r.IntN(3)
	}
	for _, i := range g.r.Perm(len(extra))[:n] {
		paras = append(paras, v.fill(pick(g, extra[i])))
	}
	l.Description = strings.Join(paras, "\n\n")

	nf := 3 + g.r.IntN(6)
	if !rich {
		nf = 3 + g.r.IntN(3)
	}
	l.Features = v.features[:nf]
	for _, u := range sample(g, uspTemplates, 2+g.r.IntN(3)) {
		l.USPs = append(l.USPs, v.fill(u))
	}
	if l.PricingModel == "open-source" {
		l.USPs = append(l.USPs, "Open source, with a hosted plan for teams")
	}
	l.Keywords = sample(g, v.top.Keywords, 3+g.r.IntN(3))
	if kw := strings.ToLower(v.sub.Name); !slices.Contains(l.Keywords, kw) {
		l.Keywords = append(l.Keywords, kw)
	}
	l.Tags = append(sample(g, v.top.Tags, 1+g.r.IntN(3)), v.sub.Slug)

	l.Headline = l.Tagline
	l.Summary = l.Short
	l.SEOTitle = truncateWords(l.Name+" – "+l.Tagline, 70)
	l.SEODescription = truncateWords(l.Short, 160)
}

// facts fills the details a crawler would find on the company's site;
// some are missing on purpose and then listed in not_found.
func (g *gen) facts(l *listing) {
	if !g.chance(12) {
		age := min(int(g.r.ExpFloat64()*3), g.now.Year()-2008)
		l.FoundedYear = g.now.Year() - max(age, 0)
	}
	if !g.chance(10) {
		l.Email = pick(g, emailLocals) + "@" + l.Domain
	}
	if g.chance(30) {
		if g.chance(70) {
			l.VideoURL = "https://www.youtube.com/watch?v=" + g.randomToken(11, alnum)
		} else {
			l.VideoURL = "https://www.loom.com/share/" + g.randomToken(32, hexDigits)
		}
	}
	l.Socials = g.socials(l.Slug, l.Domain)
}

// socials returns links for a random subset of the allowed keys.
func (g *gen) socials(slug, domain string) map[string]string {
	h := strings.ReplaceAll(slug, "-", "")
	out := map[string]string{}
	if g.chance(5) {
		return out
	}
	for i, k := range socialKeys {
		if !g.chance(socialOdds[i]) {
			continue
		}
		out[k] = g.socialURL(k, slug, h, domain)
	}
	return out
}

func (g *gen) socialURL(key, slug, handle, domain string) string {
	switch key {
	case "linkedin":
		return "https://www.linkedin.com/company/" + slug
	case "x":
		return "https://x.com/" + handle
	case "facebook":
		return "https://www.facebook.com/" + handle
	case "instagram":
		return "https://www.instagram.com/" + handle
	case "youtube":
		return "https://www.youtube.com/@" + handle
	case "tiktok":
		return "https://www.tiktok.com/@" + handle
	case "github":
		return "https://github.com/" + handle
	case "reddit":
		return "https://www.reddit.com/r/" + handle
	case "medium":
		return "https://medium.com/@" + handle
	case "substack":
		return "https://" + handle + ".substack.com"
	case "producthunt":
		return "https://www.producthunt.com/products/" + slug
	case "discord":
		return "https://discord.gg/" + g.randomToken(8, alnum)
	case "website":
		return "https://" + domain + "/"
	default:
		return "https://" + domain + "/community"
	}
}

// attributes answers some of the category's compare columns, leaving
// others empty as real listings do.
func (g *gen) attributes(l *listing) {
	l.Attributes = map[string]string{}
	free := l.PricingModel == "free" || l.PricingModel == "freemium" || l.PricingModel == "open-source"
	for _, a := range l.Category.Top.Attributes {
		if !g.chance(70) {
			continue
		}
		val := pick(g, a.Values)
		switch {
		case a.Name == "Open source" && l.PricingModel == "open-source":
			val = "Yes"
		case a.Name == "Free tier" && free:
			val = "Yes"
		case a.Name == "Free tier" && val == "Yes":
			val = "14-day trial"
		}
		l.Attributes[a.Name] = val
	}
}

// notFound lists, in a fixed order, the facts the listing lacks.
func notFound(l *listing) []string {
	out := []string{}
	for _, f := range []struct {
		name    string
		missing bool
	}{
		{"founded_year", l.FoundedYear == 0},
		{"city", l.City == ""},
		{"contact_email", l.Email == ""},
		{"pricing_summary", l.PricingNote == ""},
		{"demo_video_url", l.VideoURL == ""},
		{"socials", len(l.Socials) == 0},
	} {
		if f.missing {
			out = append(out, f.name)
		}
	}
	return out
}
