package crawl

import (
	"regexp"
	"strings"
	"sync"
)

// Postal addresses of the largest markets, parsed into city + ISO country.
// Region and state codes ("ON", "TX", "NSW") are never taken as cities.

type address struct{ city, country, quote string }

const cityPat = `(\p{Lu}[\p{L}'’.-]+(?:[ -](?:\p{Lu}[\p{L}'’.-]+|de|del|am|an|sur|upon|on))*)`

var (
	usStates   = "AL|AK|AZ|AR|CA|CO|CT|DE|DC|FL|GA|HI|ID|IL|IN|IA|KS|KY|LA|ME|MD|MA|MI|MN|MS|MO|MT|NE|NV|NH|NJ|NM|NY|NC|ND|OH|OK|OR|PA|RI|SC|SD|TN|TX|UT|VT|VA|WA|WV|WI|WY"
	caProv     = "AB|BC|MB|NB|NL|NS|NT|NU|ON|PE|QC|SK|YT"
	auStates   = "NSW|VIC|QLD|WA|SA|TAS|ACT|NT"
	usAddrRe   = regexp.MustCompile(cityPat + `,\s*(` + usStates + `)\s+\d{5}(?:-\d{4})?\b`)
	caAddrRe   = regexp.MustCompile(cityPat + `,?\s+(` + caProv + `)\s+[A-Z]\d[A-Z]\s?\d[A-Z]\d\b`)
	auAddrRe   = regexp.MustCompile(cityPat + `\s+(` + auStates + `)\s+\d{4}\b`)
	ukAddrRe   = regexp.MustCompile(cityPat + `,?\s+([A-Z]{1,2}\d[A-Z\d]?\s?\d[A-Z]{2})\b`)
	nlAddrRe   = regexp.MustCompile(`\b\d{4}\s?[A-Z]{2}\s+` + cityPat)
	zipFirstRe = regexp.MustCompile(`(?:^|[\s,·|])(?:[A-Z]{1,2}-)?(\d{5}|\d{4}|\d{3} \d{2})\s+` + cityPat)
	regionRe   = regexp.MustCompile(`^(?:[A-Z]{2,3}|` + usStates + `|` + caProv + `|` + auStates + `)$`)
)

// addressFormats are the address shapes that alone name their country.
var addressFormats = map[string]*regexp.Regexp{"US": usAddrRe, "CA": caAddrRe, "AU": auAddrRe}

// regionCode reports a value that is a state/province code, not a city.
func regionCode(city string) bool {
	return regionRe.MatchString(strings.TrimSpace(city))
}

// parseAddress finds a postal address in line (with the next line, where
// an address block often puts the country).
func parseAddress(line, next string) (address, bool) {
	if isBoilerplate(line) && !strings.ContainsAny(line, "0123456789") {
		return address{}, false
	}
	both := line
	if next != "" {
		both = line + " " + next
	}
	country := func(s string) (string, bool) { return countryIn(s) }
	try := func(re *regexp.Regexp, code string, cityGroup int) (address, bool) {
		m := re.FindStringSubmatch(line)
		if m == nil {
			return address{}, false
		}
		city := cleanCity(m[cityGroup])
		if city == "" || regionCode(city) {
			return address{}, false
		}
		q := line
		if c, ok := country(line); ok {
			if code == "" {
				code = c
			}
		} else if c, ok := country(next); ok && (code == "" || c == code) {
			code, q = c, both
		} else if code == "" {
			return address{}, false
		}
		return address{city: city, country: code, quote: q}, true
	}
	for _, t := range []struct {
		re   *regexp.Regexp
		code string
		g    int
	}{{usAddrRe, "US", 1}, {caAddrRe, "CA", 1}, {auAddrRe, "AU", 1}, {nlAddrRe, "NL", 1}, {ukAddrRe, "GB", 1}, {zipFirstRe, "", 2}} {
		if a, ok := try(t.re, t.code, t.g); ok {
			if t.code == "" || t.code == "GB" || t.code == "NL" {
				// Postcode shapes overlap between countries: a stated
				// country wins over the shape.
				if c, ok := country(both); ok {
					a.country = c
				}
			}
			if t.code == "NL" || t.code == "GB" {
				if _, stated := country(both); !stated && t.code == "NL" {
					continue // "1234 AB City" without a country is too loose
				}
			}
			return a, true
		}
	}
	return address{}, false
}

// cleanCity trims trailing country words and street-like leftovers.
func cleanCity(c string) string {
	c = strings.TrimSpace(strings.TrimRight(c, ".,"))
	for _, name := range countryNameList {
		if n := len(name); len(c) > n+1 && strings.EqualFold(c[len(c)-n:], name) && c[len(c)-n-1] == ' ' {
			c = strings.TrimSpace(c[:len(c)-n-1])
		}
	}
	if f := strings.Fields(c); len(f) > 3 {
		return ""
	}
	return c
}

// countryIn finds a country named in s: a name (English or native) or a
// short form such as USA/UK as a whole word.
func countryIn(s string) (string, bool) {
	for _, name := range countryNameList {
		if len(name) < 2 {
			continue
		}
		if i := indexWordFold(s, name); i >= 0 {
			return codeByName[name], true
		}
	}
	return "", false
}

// indexWordFold finds name in s, case-insensitive, as a whole word; short
// names (usa, uk) must be upper-case in s.
func indexWordFold(s, name string) int {
	wordReOnce.Do(compileWordRes)
	if loc := wordRes[name].FindStringIndex(s); loc != nil {
		return loc[0]
	}
	return -1
}

var (
	wordReOnce sync.Once
	wordRes    map[string]*regexp.Regexp
)

func compileWordRes() {
	wordRes = map[string]*regexp.Regexp{}
	for _, name := range countryNameList {
		wordRes[name] = countryWordRe(name)
	}
}

func countryWordRe(name string) *regexp.Regexp {
	pat := `(?i)(?:^|[^\p{L}])` + regexp.QuoteMeta(name) + `(?:$|[^\p{L}])`
	if len(name) <= 4 && !strings.Contains(name, " ") {
		pat = `(?:^|[^\p{L}])` + regexp.QuoteMeta(strings.ToUpper(name)) + `(?:$|[^\p{L}])`
	}
	return regexp.MustCompile(pat)
}
