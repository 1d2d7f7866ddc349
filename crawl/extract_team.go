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
	// notNameWords never appear in a person's name: a heading made of them
	// ("Das Team", "Our Founders", "Notre Équipe") is a section, not a person.
	notNameWords = regexp.MustCompile(`(?i)(?:^|\s)(?:team|teams|das|die|der|den|our|the|unser|unsere|über|uns|about|notre|nos|équipe|equipe|nuestro|nuestra|equipo|meet|founders?|gründer\w*|fondateurs?|fundador\w*|story|geschichte|histoire|historia|company|mission|jobs|careers|karriere|contact|kontakt|impressum|values|werte|valeurs|valores|leadership|management|people|board|investors?|advisors?|partners?|press|presse|blog|pricing|preise|features|funktionen|hello|hallo|bonjour|hola|welcome|willkommen|bienvenue|bienvenido|quiénes|somos|qui|sommes|nous|wir|sind|who|we|are|und|and|et|y|of|for|für|pour|para|join|us)(?:\s|$)`)
	// socialWords are link labels that follow a person's title.
	socialWords = regexp.MustCompile(`(?i)\s*(?:\b(?:linkedin|twitter|github|x|mastodon|bluesky|website|e-?mail|profil|profile)\b[\s·|/,]*)+$`)
	// foundedByRe: "founded by A and B", in four languages.
	foundedByRe = regexp.MustCompile(`(?:(?i:founded|started|created|built|gegründet|ins leben gerufen|fondée?|créée?|lancée?|fundad[ao]|cread[ao])(?:\s+(?i:in|im|en)\s+\d{4})?\s+(?i:by|von|par|por)|(?i:our\s+founders|unsere\s+gründer(?:innen)?|nos\s+fondat(?:eurs|rices)|nuestr[oa]s\s+fundador(?:es|as)),?)\s+(` + nameAlt + `(?:\s*,\s*` + nameAlt + `)*(?:,?\s+(?:and|und|et|y|&)\s+` + nameAlt + `)?)`)
	nameSplitRe = regexp.MustCompile(`\s*,\s*|,?\s+(?:and|und|et|y|&)\s+`)
)

// nameAlt is one person's name in prose: two to four capitalised words.
const nameAlt = `\p{Lu}[\p{L}'’.-]+(?:\s(?:(?:de|van|von|der|den|da|di|del|la|le|du|dos)\s)*\p{Lu}[\p{L}'’.-]+){1,3}`

// isPersonName: shaped like a name and made of no section words.
func isPersonName(s string) bool {
	return personName.MatchString(s) && !notNameWords.MatchString(s)
}

// roleTitle cuts a person's title from the text after their name: the
// first line, without a bio sentence or the labels of profile links.
func roleTitle(text string) string {
	line, _, _ := strings.Cut(strings.TrimSpace(text), "\n")
	line = flat(line)
	for _, sep := range []string{". ", " — ", " – ", " | ", " · "} {
		if head, rest, ok := strings.Cut(line, sep); ok && roleWords.MatchString(head) && runeLen(rest) > 0 {
			line = head
		}
	}
	line = strings.TrimSpace(socialWords.ReplaceAllString(line, ""))
	return strings.TrimRight(line, " .,;:")
}

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
	// People a sentence calls founders; a card found later may add their
	// title, so they are merged by name.
	byName := map[string]int{}
	for i, f := range out {
		byName[foldText(f.Name)] = i
	}
	for _, pi := range byKind(pages, "about", "team", "home") {
		if pi.kind == "team" || pi.kind == "about" || pi.kind == "home" {
			foundersInProse(pi, func(f Founder) {
				key := foldText(f.Name)
				if _, dup := byName[key]; dup || seen[key] || len(out) >= MaxFounders {
					return
				}
				seen[key], byName[key] = true, len(out)
				out = append(out, f)
			})
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
		if !isPersonName(name) {
			return
		}
		// The card: the heading's parent when it holds only this heading,
		// else the heading and its siblings up to the next heading (cards
		// written one after another in a shared container).
		card := h.Parent()
		if card.Find("h2,h3,h4,h5").Length() != 1 {
			card = h.AddSelection(h.NextUntil("h1,h2,h3,h4,h5"))
		}
		role := flat(selText(card.Find(`[class*=role],[class*=title],[class*=position],[class*=job]`).First()))
		if role != "" {
			role = roleTitle(role)
		} else {
			for sib := h.Next(); sib.Length() > 0 && role == "" && headingLevel(sib.Get(0)) == 0; sib = sib.Next() {
				role = roleTitle(selText(sib))
			}
		}
		if role == "" || runeLen(role) > 80 || !roleWords.MatchString(role) {
			return
		}
		f := Founder{Name: name, Title: role, Socials: map[string]string{}, Evidence: []Evidence{ev(pi, name+" "+role)}}
		if !findQuote(pi, f.Evidence[0].Quote) {
			f.Evidence = []Evidence{ev(pi, visibleText(card.Nodes...))}
		}
		card.Find("p").AddSelection(card.Filter("p")).Each(func(_ int, p *goquery.Selection) {
			t := flat(selText(p))
			if f.Bio != "" || runeLen(t) < 40 || strings.HasPrefix(t, role) && runeLen(t) < runeLen(role)+40 {
				if f.Bio == "" && strings.HasPrefix(t, role) {
					if rest := strings.TrimSpace(strings.TrimLeft(strings.TrimPrefix(t, role), ".—–|· ")); runeLen(rest) >= 40 {
						f.Bio = truncateRunes(strings.TrimSpace(socialWords.ReplaceAllString(rest, "")), MaxStringLen)
					}
				}
				return
			}
			if strings.HasPrefix(t, role) {
				t = strings.TrimSpace(strings.TrimLeft(strings.TrimPrefix(t, role), ".—–|· "))
			}
			f.Bio = truncateRunes(strings.TrimSpace(socialWords.ReplaceAllString(t, "")), MaxStringLen)
		})
		card.Find("a[href]").AddSelection(card.Filter("a[href]")).Each(func(_ int, a *goquery.Selection) {
			if u := absURL(pi, a.AttrOr("href", "")); u != nil {
				if platform, _ := socialLink(u); platform != "" && f.Socials[platform] == "" {
					f.Socials[platform] = u.String()
				}
			}
		})
		add(f)
	})
}

// findQuote reports whether quote reads on the page as one run of text.
func findQuote(pi *pageInfo, quote string) bool {
	return strings.Contains(foldText(strings.Join(pi.lines, " ")), foldText(quote))
}

// foundersInProse reads "founded by A and B" sentences; such people are
// founders by the sentence itself, which is their evidence.
func foundersInProse(pi *pageInfo, add func(Founder)) {
	for _, line := range pi.lines {
		if isBoilerplate(line) {
			continue
		}
		for _, m := range foundedByRe.FindAllStringSubmatchIndex(line, -1) {
			sent := sentenceAt(line, m[0], m[1])
			for _, name := range nameSplitRe.Split(line[m[2]:m[3]], -1) {
				name = strings.TrimRight(strings.TrimSpace(name), ".")
				if isPersonName(name) {
					add(Founder{Name: name, Socials: map[string]string{}, Evidence: []Evidence{ev(pi, sent)}})
				}
			}
		}
	}
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
		if !isPersonName(name) || !strings.HasPrefix(line, name) {
			return
		}
		rest := strings.TrimPrefix(line, name)
		if !roleSep.MatchString(rest) && goquery.NodeName(strong.Next()) != "br" {
			return // "Name — Role", or "Name<br>Role" (figure captions)
		}
		role := roleTitle(roleSep.ReplaceAllString(rest, ""))
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
