package crawl

import (
	"net/url"
	"regexp"
	"strconv"
	"strings"
	"time"

	"github.com/PuerkitoBio/goquery"
)

func extractFacts(b *builder, pages []*pageInfo) {
	extractStage(b, pages)
	extractFounded(b, pages)
	extractLocation(b, pages)
	extractEmail(b, pages)
	extractVideo(b, pages)
	extractLogo(b, pages)
}

var stageRe = regexp.MustCompile(`(?i)\b(public beta|private beta|open beta|closed beta|in beta|beta version|early access|in alpha|alpha version|öffentliche beta|bêta publique|en bêta|accès anticipé|acceso anticipado|en beta|versión beta)(?:[^\p{L}]|$)`)

// extractStage reports a stage only when the home or about page says the
// product itself (its name, not "Name Studio") is in that stage.
func extractStage(b *builder, pages []*pageInfo) {
	name, _ := b.p.Fields["name"].Value.(string)
	if name == "" {
		return
	}
	nameRe := regexp.MustCompile(`\b(?i:` + regexp.QuoteMeta(name) + `)\b(?:\s+\p{Lu}\w*)?`)
	for _, pi := range pages {
		if pi.kind != "home" && pi.kind != "about" {
			continue
		}
		for _, line := range pi.lines {
			loc := stageRe.FindStringIndex(line)
			if loc == nil {
				continue
			}
			sent := sentenceAt(line, loc[0], loc[1])
			m := nameRe.FindString(sent)
			if m == "" || !strings.EqualFold(strings.TrimSpace(m), name) || isBoilerplate(sent) {
				continue // the stage of something else ("Boltbot Studio")
			}
			cue := strings.ToLower(line[loc[0]:loc[1]])
			stage := "beta"
			switch {
			case strings.Contains(cue, "alpha"):
				stage = "alpha"
			case strings.Contains(cue, "early access"), strings.Contains(cue, "anticipé"), strings.Contains(cue, "anticipado"):
				stage = "early_access"
			}
			b.setString("stage", stage, ev(pi, sent))
			return
		}
	}
}

// foundedRes find a founding year in a sentence, in English, German,
// French and Spanish; the verb may come before or (German) after the year.
var foundedRes = []*regexp.Regexp{
	regexp.MustCompile(`(?i)\b(?:founded|established|started|incorporated|launched|set up|created|began|gegründet|fondée?s?|créée?s?|lancée?s?|fundad[oa]s?|naci[óo]|cread[oa]s?|lanzad[oa]s?)(?:[^\p{L}]|$)[^.!?]{0,40}?\b((?:18|19|20)\d{2})\b`),
	regexp.MustCompile(`(?i)\b(?:since|seit|depuis|desde|est\.|founded:|gründung:?)\s*((?:18|19|20)\d{2})\b`),
	regexp.MustCompile(`(?i)\b(?:wurde|wurden)\s+((?:18|19|20)\d{2})\b[^.!?]{0,80}?\bgegründet\b`),
}

// extractFounded looks for "founded in 2019"-style sentences that are not
// about someone else (boilerplate), then for a schema.org foundingDate.
func extractFounded(b *builder, pages []*pageInfo) {
	thisYear := time.Now().Year()
	for _, pi := range byKind(pages, "about", "home", "team", "contact") {
		if pi.kind != "about" && pi.kind != "home" && pi.kind != "team" && pi.kind != "contact" {
			continue
		}
		for _, line := range pi.lines {
			for _, re := range foundedRes {
				m := re.FindStringSubmatchIndex(line)
				if m == nil {
					continue
				}
				year := line[m[2]:m[3]]
				sent := sentenceAt(line, m[0], m[1])
				if y, _ := strconv.Atoi(year); y <= thisYear && !isBoilerplate(sent) {
					b.setString("founded_year", year, ev(pi, sent))
					return
				}
			}
		}
	}
	for _, pi := range pages {
		for _, n := range pi.ld {
			d := ldString(n, "foundingDate")
			if len(d) >= 4 {
				if y, err := strconv.Atoi(d[:4]); err == nil && y >= 1800 && y <= thisYear {
					b.setString("founded_year", d[:4], ldEv(pi, ldType(n), "foundingDate", d))
					return
				}
			}
		}
	}
}

// extractLocation reads city and country from a postal address on the
// contact/imprint, about or home page, then from "City, Country" prose,
// then from a schema.org PostalAddress.
func extractLocation(b *builder, pages []*pageInfo) {
	ordered := byKind(pages, "contact", "about", "home", "team")
	for _, pi := range ordered {
		for i, line := range pi.lines {
			next := ""
			if i+1 < len(pi.lines) {
				next = pi.lines[i+1]
			}
			if a, ok := parseAddress(line, next); ok {
				b.setString("city", a.city, ev(pi, a.quote))
				b.setString("country", a.country, ev(pi, a.quote))
				return
			}
		}
	}
	for _, pi := range ordered {
		for _, line := range pi.lines {
			if city, code, ok := cityCountry(line); ok && !isBoilerplate(line) && !regionCode(city) {
				q := ev(pi, line)
				b.setString("city", city, q)
				b.setString("country", code, q)
				return
			}
		}
	}
	for _, pi := range ordered {
		for _, n := range pi.ld {
			if !ldHasType(n, "PostalAddress") {
				continue
			}
			city, country := ldString(n, "addressLocality"), ldString(n, "addressCountry")
			code, ok := countryCode(country)
			if city == "" || !ok || regionCode(city) {
				continue
			}
			b.setString("city", city, ldEv(pi, ldType(n), "addressLocality", city))
			b.setString("country", code, ldEv(pi, ldType(n), "addressCountry", country))
			return
		}
	}
}

var cityBeforeComma = regexp.MustCompile(`(\p{Lu}[\p{L}'-]+(?: \p{Lu}[\p{L}'-]+){0,2}),\s*$`)

// cityCountry finds "City, Country" in a line for any known country name.
func cityCountry(line string) (city, code string, ok bool) {
	for _, name := range countryNameList {
		c := codeByName[name]
		if len(name) < 4 {
			continue // "usa"/"uk" abbreviations are too ambiguous in prose
		}
		i := indexWord(line, name)
		if i <= 0 {
			continue
		}
		if m := cityBeforeComma.FindStringSubmatch(line[:i]); m != nil {
			return m[1], c, true
		}
	}
	return "", "", false
}

// indexWord finds name in line (case-insensitive, proper case expected for
// the first letter) as a whole word, or -1.
func indexWord(line, name string) int {
	ll := strings.ToLower(line)
	if len(ll) != len(line) {
		return indexWordExact(line, name)
	}
	for from := 0; ; {
		i := strings.Index(ll[from:], name)
		if i < 0 {
			return -1
		}
		i += from
		end := i + len(name)
		if (i == 0 || !isWordByte(line[i-1])) && (end == len(line) || !isWordByte(line[end])) && line[i] >= 'A' && line[i] <= 'Z' {
			return i
		}
		from = i + 1
	}
}

// indexWordExact handles lines whose lower-casing changes byte offsets.
func indexWordExact(line, name string) int {
	titled := strings.ToUpper(name[:1]) + name[1:]
	re := regexp.MustCompile(`\b` + regexp.QuoteMeta(titled) + `\b`)
	if loc := re.FindStringIndex(line); loc != nil {
		return loc[0]
	}
	return -1
}

func isWordByte(c byte) bool {
	return c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c >= 0x80
}

var emailRe = regexp.MustCompile(`[A-Za-z0-9._%+-]+@[A-Za-z0-9-]+(?:\.[A-Za-z0-9-]+)*\.[A-Za-z]{2,24}`)

func plausibleEmail(e string) bool {
	l := strings.ToLower(e)
	for _, ext := range []string{".png", ".jpg", ".jpeg", ".gif", ".svg", ".webp"} {
		if strings.HasSuffix(l, ext) {
			return false
		}
	}
	return emailRe.FindString(e) == e
}

// extractEmail prefers an address written on the contact page, home or
// about page, then the schema.org email, then a mailto: link.
func extractEmail(b *builder, pages []*pageInfo) {
	ordered := byKind(pages, "contact", "home", "about")
	for _, pi := range ordered {
		for _, line := range pi.lines {
			for _, m := range emailRe.FindAllStringIndex(line, -1) {
				if e := line[m[0]:m[1]]; plausibleEmail(e) {
					b.setString("contact_email", e, ev(pi, sentenceAt(line, m[0], m[1])))
					return
				}
			}
		}
	}
	for _, pi := range ordered {
		for _, n := range pi.ld {
			if e := strings.TrimPrefix(ldString(n, "email"), "mailto:"); e != "" && plausibleEmail(e) {
				b.setString("contact_email", e, ldEv(pi, ldType(n), "email", e))
				return
			}
		}
	}
	for _, pi := range ordered {
		var found bool
		pi.doc.Find(`a[href^="mailto:"]`).EachWithBreak(func(_ int, s *goquery.Selection) bool {
			href := s.AttrOr("href", "")
			addr, _, _ := strings.Cut(strings.TrimPrefix(href, "mailto:"), "?")
			if un, err := url.PathUnescape(addr); err == nil {
				addr = un
			}
			if plausibleEmail(addr) {
				b.setString("contact_email", addr, linkEv(pi, href))
				found = true
			}
			return !found
		})
		if found {
			return
		}
	}
}

// extractVideo finds an embedded or linked product video.
func extractVideo(b *builder, pages []*pageInfo) {
	for _, pi := range byKind(pages, "home", "features") {
		var done bool
		pi.doc.Find("iframe[src],video[src],video source[src],a[href]").EachWithBreak(func(_ int, s *goquery.Selection) bool {
			raw := s.AttrOr("src", s.AttrOr("href", ""))
			if u := absURL(pi, raw); u != nil && isVideoURL(u) {
				b.setString("demo_video_url", u.String(), linkEv(pi, raw))
				done = true
			}
			return !done
		})
		if done {
			return
		}
	}
}

// extractLogo takes the schema.org logo, else the site's own logo image:
// customer and partner logo walls are already pruned; an image in the
// header or named like the product beats any other "logo" image.
func extractLogo(b *builder, pages []*pageInfo) {
	home := pages[0]
	for _, n := range home.ld {
		if !ldHasType(n, "Organization", "Corporation", "LocalBusiness", "Brand") {
			continue
		}
		if raw := ldString(n, "logo"); raw != "" {
			if u := absURL(home, raw); u != nil {
				b.setString("logo_url", u.String(), ldEv(home, ldType(n), "logo", raw))
				return
			}
		}
	}
	name, _ := b.p.Fields["name"].Value.(string)
	best, bestScore := "", 0
	home.doc.Find("img[src]").Each(func(_ int, s *goquery.Selection) {
		hint := strings.ToLower(s.AttrOr("class", "") + " " + s.AttrOr("id", "") + " " + s.AttrOr("alt", "") + " " + s.AttrOr("src", ""))
		score := 0
		if strings.Contains(hint, "logo") || strings.Contains(hint, "wordmark") || strings.Contains(hint, "brand") {
			score += 2
		}
		if name != "" && containsFold(s.AttrOr("alt", "")+" "+s.AttrOr("src", ""), name) {
			score += 2
		}
		if score > 0 && s.Closest("header,nav,[class*=brand],[class*=navbar]").Length() > 0 {
			score++
		}
		if score >= 2 && score > bestScore {
			best, bestScore = s.AttrOr("src", ""), score
		}
	})
	if u := absURL(home, best); u != nil {
		b.setString("logo_url", u.String(), linkEv(home, best))
	}
}

// extractSocials collects company profiles from schema.org sameAs and links
// on every page except team pages (whose links belong to people).
func extractSocials(b *builder, pages []*pageInfo) {
	add := func(pi *pageInfo, raw string) {
		u := absURL(pi, raw)
		if u == nil {
			return
		}
		platform, personal := socialLink(u)
		if platform == "" || personal {
			return
		}
		if _, ok := b.p.Socials[platform]; !ok {
			b.p.Socials[platform] = Value{Value: u.String(), Evidence: []Evidence{linkEv(pi, raw)}}
		}
	}
	for _, pi := range pages {
		if pi.kind == "team" {
			continue
		}
		pi.doc.Find("a[href]").Each(func(_ int, s *goquery.Selection) {
			if s.Closest("[class*=member],[class*=person],[class*=founder],[class*=author],[class*=team]").Length() == 0 {
				add(pi, s.AttrOr("href", ""))
			}
		})
		for _, n := range pi.ld {
			if ldHasType(n, "Organization", "Corporation", "SoftwareApplication", "Product", "WebSite") {
				for _, raw := range ldList(n, "sameAs") {
					add(pi, raw)
				}
			}
		}
	}
}
