package crawl

import (
	"regexp"
	"strings"

	"github.com/PuerkitoBio/goquery"
)

var (
	personName = regexp.MustCompile(`^\p{Lu}[\p{L}'.-]+(?: \p{Lu}[\p{L}'.-]+){1,3}$`)
	roleWords  = regexp.MustCompile(`(?i)\b(founder|co-founder|ceo|cto|coo|cfo|cmo|chief|engineer|designer|head|lead|manager|director|developer|marketing|sales|product|officer|partner|advisor|president|owner)\b`)
)

// extractTeam reads schema.org Person nodes and team cards (a name heading
// followed by a role), founders first.
func extractTeam(pages []*pageInfo) []Founder {
	var out []Founder
	seen := map[string]bool{}
	add := func(f Founder) {
		key := foldText(f.Name)
		if seen[key] || len(out) >= MaxFounders {
			return
		}
		seen[key] = true
		out = append(out, f)
	}
	for _, pi := range byKind(pages, "team", "about") {
		if pi.kind == "team" || pi.kind == "about" {
			teamCards(pi, add)
		}
	}
	for _, pi := range byKind(pages, "team", "about", "home") {
		teamFromLD(pi, pages, add)
	}
	var founders, others []Founder
	for _, f := range out {
		if strings.Contains(strings.ToLower(f.Title), "founder") {
			founders = append(founders, f)
		} else {
			others = append(others, f)
		}
	}
	return append(founders, others...)
}

func teamCards(pi *pageInfo, add func(Founder)) {
	pi.doc.Find("h2,h3,h4").Each(func(_ int, h *goquery.Selection) {
		name := flat(selText(h))
		if !personName.MatchString(name) {
			return
		}
		card := h.Parent()
		if card.Find("h2,h3,h4").Length() != 1 {
			return
		}
		role := flat(selText(card.Find(`[class*=role],[class*=title],[class*=position],[class*=job]`).First()))
		if role == "" {
			role = flat(selText(h.Next()))
		}
		if role == "" || runeLen(role) > 80 || !roleWords.MatchString(role) {
			return
		}
		f := Founder{Name: name, Title: role, Socials: map[string]string{}, Evidence: []Evidence{ev(pi, selText(card))}}
		card.Find("p").Each(func(_ int, p *goquery.Selection) {
			if t := flat(selText(p)); f.Bio == "" && t != role && runeLen(t) >= 40 {
				f.Bio = truncateRunes(t, MaxStringLen)
			}
		})
		card.Find("a[href]").Each(func(_ int, a *goquery.Selection) {
			if u := absURL(pi, a.AttrOr("href", "")); u != nil {
				if platform, _ := socialLink(u); platform != "" && f.Socials[platform] == "" {
					f.Socials[platform] = u.String()
				}
			}
		})
		add(f)
	})
}

// teamFromLD reads Person nodes; the quote is a visible line with the name
// when one exists, else the structured-data name itself.
func teamFromLD(pi *pageInfo, pages []*pageInfo, add func(Founder)) {
	for _, n := range pi.ld {
		if !ldHasType(n, "Person") {
			continue
		}
		name := ldString(n, "name")
		if name == "" || runeLen(name) > 80 {
			continue
		}
		f := Founder{Name: name, Title: ldString(n, "jobTitle"), Bio: truncateRunes(ldString(n, "description"), MaxStringLen), Socials: map[string]string{}}
		quote := findLine(pi, name)
		if quote == "" {
			quote = name
		}
		f.Evidence = []Evidence{ev(pi, quote)}
		for _, raw := range ldList(n, "sameAs") {
			if u := absURL(pi, raw); u != nil {
				if platform, _ := socialLink(u); platform != "" && f.Socials[platform] == "" {
					f.Socials[platform] = u.String()
				}
			}
		}
		add(f)
	}
}
