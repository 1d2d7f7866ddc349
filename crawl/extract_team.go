package crawl

import (
	"regexp"
	"strings"

	"github.com/PuerkitoBio/goquery"
)

var (
	personName = regexp.MustCompile(`^\p{Lu}[\p{L}'’.-]+(?: (?:(?:de|van|von|der|den|da|di|del|la|le|du|dos|ter|ten) )*\p{Lu}[\p{L}'’.-]+){1,3}$`)
	roleWords  = regexp.MustCompile(`(?i)\b(founder|co-founder|ceo|cto|coo|cfo|cmo|chief|engineer|designer|head|lead|manager|director|developer|marketing|sales|product|officer|partner|advisor|president|owner|vp|gründer\w*|mitgründer\w*|geschäftsführer\w*|leiter\w*|werkstudent\w*|entwickler\w*|kundenservice|fondat\w+|cofondat\w+|directeur|directrice|président\w*|responsable|fundador\w*|cofundador\w*|director\w*|entrenador\w*|jefe|jefa|operations)\b`)
	// founderRe: a title that makes someone a founder, in several languages.
	founderRe = regexp.MustCompile(`(?i)(?:^|[^\p{L}])(?:co-?founder|founder|founding partner|(?:mit)?gründer(?:in)?|mitbegründer(?:in)?|co-?fondat(?:eur|rice)|fondat(?:eur|rice)|co-?fundador(?:a)?|fundador(?:a)?|(?:mede)?oprichter|grundare)(?:$|[^\p{L}])`)
	roleSep   = regexp.MustCompile(`^\s*(?:[—–\-:,|]\s*)`)
)

// extractTeam reads founders from team cards (a name with a role), team
// lists ("Name — Co-founder") and schema.org Person/founder nodes. Staff
// who are not founders are left out: the field is founders.
func extractTeam(pages []*pageInfo) []Founder {
	var out []Founder
	seen := map[string]bool{}
	add := func(f Founder) {
		key := foldText(f.Name)
		if seen[key] || len(out) >= MaxFounders || !founderRe.MatchString(f.Title) {
			return
		}
		seen[key] = true
		out = append(out, f)
	}
	for _, pi := range byKind(pages, "team", "about", "home") {
		if pi.kind == "team" || pi.kind == "about" || pi.kind == "home" {
			teamCards(pi, add)
			teamList(pi, add)
		}
	}
	for _, pi := range byKind(pages, "team", "about", "home") {
		teamFromLD(pi, add)
	}
	return out
}

func teamCards(pi *pageInfo, add func(Founder)) {
	pi.doc.Find("h2,h3,h4,h5").Each(func(_ int, h *goquery.Selection) {
		name := flat(selText(h))
		if !personName.MatchString(name) {
			return
		}
		card := h.Parent()
		if card.Find("h2,h3,h4,h5").Length() != 1 {
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

// teamList reads "<li><strong>Name</strong> — Role</li>" style entries.
func teamList(pi *pageInfo, add func(Founder)) {
	pi.doc.Find("li,p,figcaption,div").Each(func(_ int, li *goquery.Selection) {
		strong := li.ChildrenFiltered("strong,b").First()
		if strong.Length() == 0 {
			return
		}
		name := flat(selText(strong))
		line := flat(selText(li))
		if !personName.MatchString(name) || !strings.HasPrefix(line, name) {
			return
		}
		rest := strings.TrimPrefix(line, name)
		if !roleSep.MatchString(rest) && goquery.NodeName(strong.Next()) != "br" {
			return // "Name — Role", or "Name<br>Role" (figure captions)
		}
		role := strings.TrimSpace(roleSep.ReplaceAllString(rest, ""))
		if role == "" || runeLen(role) > 80 || !roleWords.MatchString(role) {
			return
		}
		add(Founder{Name: name, Title: role, Socials: map[string]string{}, Evidence: []Evidence{ev(pi, line)}})
	})
}

// teamFromLD reads founder properties and Person nodes whose job title is
// a founder's; the quote is a visible line with the name when one exists,
// else the structured-data name itself.
func teamFromLD(pi *pageInfo, add func(Founder)) {
	for _, n := range pi.ld {
		var people []map[string]any
		switch f := n["founder"].(type) {
		case map[string]any:
			people = append(people, f)
		case []any:
			for _, e := range f {
				if m, ok := e.(map[string]any); ok {
					people = append(people, m)
				}
			}
		}
		isFounder := len(people) > 0
		if !isFounder && ldHasType(n, "Person") {
			people = []map[string]any{n}
		}
		for _, pn := range people {
			name := ldString(pn, "name")
			if name == "" || runeLen(name) > 80 {
				continue
			}
			title := ldString(pn, "jobTitle")
			if isFounder && !founderRe.MatchString(title) {
				title = strings.TrimSpace("Founder " + title)
			}
			f := Founder{Name: name, Title: title, Bio: truncateRunes(ldString(pn, "description"), MaxStringLen), Socials: map[string]string{}}
			if line := findLine(pi, name); line != "" {
				f.Evidence = []Evidence{ev(pi, line)}
			} else {
				f.Evidence = []Evidence{ldEv(pi, ldType(pn), "name", name)}
			}
			for _, raw := range ldList(pn, "sameAs") {
				if u := absURL(pi, raw); u != nil {
					if platform, _ := socialLink(u); platform != "" && f.Socials[platform] == "" {
						f.Socials[platform] = u.String()
					}
				}
			}
			add(f)
		}
	}
}
