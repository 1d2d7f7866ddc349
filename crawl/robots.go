package crawl

import (
	"bytes"
	"math"
	"net/url"
	"strconv"
	"strings"
	"time"

	"github.com/temoto/robotstxt"
)

// robotsRule is one Allow/Disallow line, pattern already percent-normalised.
type robotsRule struct {
	pattern string
	allow   bool
}

// robotsPolicy is what we keep per host after reading robots.txt.
type robotsPolicy struct {
	allowAll    bool
	disallowAll bool
	rules       []robotsRule
	crawlDelay  time.Duration
	sitemaps    []string
}

// parseRobots applies RFC 9309 status handling and parses the body leniently.
// temoto/robotstxt decides the status-code policy and lists sitemaps when it
// can parse the file; the rule decision itself is ours because the library
// resolves equal-length Allow/Disallow ties by rule order, and it rejects a
// whole file over a single bad line.
func parseRobots(status int, body []byte, token string) *robotsPolicy {
	if status < 200 || status >= 300 {
		rd, err := robotstxt.FromStatusAndBytes(status, nil)
		if err != nil || !rd.TestAgent("/", token) {
			return &robotsPolicy{disallowAll: true}
		}
		return &robotsPolicy{allowAll: true}
	}
	if len(body) > robotsMaxBytes {
		body = body[:robotsMaxBytes]
	}
	p := parseRobotsBody(body, token)
	if rd, err := robotstxt.FromBytes(body); err == nil && len(rd.Sitemaps) > 0 {
		p.sitemaps = rd.Sitemaps
	}
	return p
}

type robotsGroup struct {
	agents   []string
	rules    []robotsRule
	delay    time.Duration
	hasDelay bool
}

// parseRobotsBody is a lenient RFC 9309 group parser: lines it cannot
// understand are skipped instead of invalidating the file.
func parseRobotsBody(body []byte, token string) *robotsPolicy {
	var groups []*robotsGroup
	var cur *robotsGroup
	var sitemaps []string
	lastWasAgent := false
	for _, line := range splitLines(body) {
		key, val, ok := robotsLine(line)
		if !ok {
			continue
		}
		switch key {
		case "user-agent":
			if cur == nil || !lastWasAgent {
				cur = &robotsGroup{}
				groups = append(groups, cur)
			}
			cur.agents = append(cur.agents, strings.ToLower(val))
			lastWasAgent = true
		case "allow", "disallow":
			lastWasAgent = false
			if cur != nil && val != "" {
				cur.rules = append(cur.rules, robotsRule{pattern: normalizeRobotsPath(val), allow: key == "allow"})
			}
		case "crawl-delay":
			lastWasAgent = false
			if d, err := strconv.ParseFloat(val, 64); err == nil && d >= 0 && cur != nil {
				// A huge or infinite delay would overflow Duration to a
				// negative value and so mean "no delay"; saturate instead.
				cur.delay, cur.hasDelay = time.Duration(math.MaxInt64), true
				if d < float64(math.MaxInt64)/float64(time.Second) {
					cur.delay = time.Duration(d * float64(time.Second))
				}
			}
		case "sitemap":
			sitemaps = append(sitemaps, val)
		}
	}
	p := &robotsPolicy{sitemaps: sitemaps}
	for _, g := range selectGroups(groups, token) {
		p.rules = append(p.rules, g.rules...)
		if g.hasDelay && g.delay > p.crawlDelay {
			p.crawlDelay = g.delay
		}
	}
	return p
}

func splitLines(body []byte) []string {
	body = bytes.TrimPrefix(body, []byte("\xef\xbb\xbf"))
	return strings.FieldsFunc(string(body), func(r rune) bool { return r == '\n' || r == '\r' })
}

var robotsKeys = map[string]string{
	"user-agent": "user-agent", "useragent": "user-agent", "user agent": "user-agent",
	"allow":    "allow",
	"disallow": "disallow", "dissallow": "disallow", "dissalow": "disallow", "disalow": "disallow", "disallaw": "disallow",
	"crawl-delay": "crawl-delay", "crawldelay": "crawl-delay",
	"sitemap": "sitemap", "site-map": "sitemap",
}

// robotsLine splits "Key: value # comment" and maps common misspellings.
func robotsLine(line string) (key, val string, ok bool) {
	if i := strings.IndexByte(line, '#'); i >= 0 {
		line = line[:i]
	}
	k, v, found := strings.Cut(line, ":")
	if !found {
		return "", "", false
	}
	key, ok = robotsKeys[strings.ToLower(strings.TrimSpace(k))]
	return key, strings.TrimSpace(v), ok
}

// selectGroups returns the groups naming our product token, or else the "*"
// groups. RFC 9309 matches the product token case-insensitively; we also
// accept "token/version" forms some sites write.
func selectGroups(groups []*robotsGroup, token string) []*robotsGroup {
	var mine, star []*robotsGroup
	token = strings.ToLower(token)
	for _, g := range groups {
		for _, a := range g.agents {
			name := a
			if i := strings.IndexAny(name, "/ "); i >= 0 {
				name = name[:i]
			}
			if name == token {
				mine = append(mine, g)
				break
			}
			if a == "*" {
				star = append(star, g)
				break
			}
		}
	}
	if len(mine) > 0 {
		return mine
	}
	return star
}

// allowed decides per RFC 9309: the longest matching pattern wins and an
// equally long Allow beats Disallow, independent of rule order.
func (p *robotsPolicy) allowed(u *url.URL) bool {
	if p.allowAll {
		return true
	}
	if p.disallowAll {
		return false
	}
	path := robotsTarget(u)
	if path == "/robots.txt" {
		return true
	}
	bestLen, allow := -1, true
	for _, r := range p.rules {
		if !robotsMatch(r.pattern, path) {
			continue
		}
		l := len(r.pattern)
		if l > bestLen || (l == bestLen && r.allow) {
			bestLen, allow = l, r.allow
		}
	}
	return allow
}

// robotsTarget is the escaped path plus query that rules are matched against.
func robotsTarget(u *url.URL) string {
	p := u.EscapedPath()
	if p == "" {
		p = "/"
	}
	if u.RawQuery != "" || u.ForceQuery {
		p += "?" + u.RawQuery
	}
	return normalizeRobotsPath(p)
}

// normalizeRobotsPath percent-encodes non-ASCII and control octets and
// upper-cases existing escapes so rule and URL compare octet by octet.
func normalizeRobotsPath(s string) string {
	const hex = "0123456789ABCDEF"
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch {
		case c == '%' && i+2 < len(s) && isHex(s[i+1]) && isHex(s[i+2]):
			b.WriteByte('%')
			b.WriteString(strings.ToUpper(s[i+1 : i+3]))
			i += 2
		case c >= 0x80 || c <= 0x20 || c == 0x7f:
			b.WriteByte('%')
			b.WriteByte(hex[c>>4])
			b.WriteByte(hex[c&15])
		default:
			b.WriteByte(c)
		}
	}
	return b.String()
}

func isHex(c byte) bool {
	return c >= '0' && c <= '9' || c >= 'a' && c <= 'f' || c >= 'A' && c <= 'F'
}

// robotsMatch matches a pattern with '*' wildcards and an optional trailing
// '$' end anchor against the start of path.
func robotsMatch(pattern, path string) bool {
	anchored := strings.HasSuffix(pattern, "$")
	if anchored {
		pattern = pattern[:len(pattern)-1]
	}
	parts := strings.Split(pattern, "*")
	if !strings.HasPrefix(path, parts[0]) {
		return false
	}
	pos := len(parts[0])
	if len(parts) == 1 {
		return !anchored || pos == len(path)
	}
	for _, mid := range parts[1 : len(parts)-1] {
		i := strings.Index(path[pos:], mid)
		if i < 0 {
			return false
		}
		pos += i + len(mid)
	}
	last := parts[len(parts)-1]
	if anchored {
		return len(path)-pos >= len(last) && strings.HasSuffix(path, last)
	}
	return strings.Contains(path[pos:], last)
}
