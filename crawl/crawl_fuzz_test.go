package crawl

import (
	"context"
	"fmt"
	"net/url"
	"os"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"testing"
	"time"
	"unicode/utf8"
)

// fixturePages returns the HTML fixture files (small) as seeds, with
// template placeholders filled in.
func fixturePages(t testing.TB) map[string][]byte {
	files, err := filepath.Glob("../testdata/sites/*/*.html")
	if err != nil {
		t.Fatal(err)
	}
	out := map[string][]byte{}
	for _, f := range files {
		b, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		s := strings.NewReplacer("{{BASE}}", "https://x.example", "{{PADDING}}", "").Replace(string(b))
		out[f] = []byte(s)
	}
	return out
}

// fuzzPage builds a Page the way the crawler does (decode, parse, visible text).
func fuzzPage(t *testing.T, rawURL string, body []byte) (Page, bool) {
	u, err := url.Parse(rawURL)
	if err != nil {
		t.Fatal(err)
	}
	p, _, err := buildPage(&response{url: u, status: 200, contentType: "text/html", body: body})
	if err != nil {
		return Page{}, false
	}
	return *p, true
}

func checkEvidence(t *testing.T, what string, evs []Evidence) {
	t.Helper()
	if len(evs) == 0 {
		t.Errorf("%s: no evidence", what)
	}
	for _, e := range evs {
		if strings.TrimSpace(e.Quote) == "" {
			t.Errorf("%s: empty evidence quote", what)
		}
		if runeLen(e.Quote) > MaxQuoteLen {
			t.Errorf("%s: quote of %d runes > %d", what, runeLen(e.Quote), MaxQuoteLen)
		}
	}
}

// FuzzDraftAndGuard runs the built-in drafter and Guard on hostile HTML: it
// must not panic, must finish quickly, and everything it keeps must carry
// evidence and respect the length bounds.
func FuzzDraftAndGuard(f *testing.F) {
	pages := fixturePages(f)
	var names []string
	for n := range pages {
		names = append(names, n)
	}
	for i, n := range names {
		f.Add(pages[n], pages[names[(i+1)%len(names)]])
	}
	f.Add([]byte(""), []byte(""))
	f.Add([]byte("<title>A | B</title><meta name=description content='x'>"), []byte("<h2>FAQ</h2><h3>Q?</h3><p>A.</p>"))
	f.Add([]byte(`<script type="application/ld+json">{"@type":"SoftwareApplication","name":"N","foundingDate":"2020","offers":{"price":"0"},"founder":[{"name":"A B"}]}</script>`), []byte("<html><body>Founded in 2019 in Berlin, Germany. $9/mo</body></html>"))
	f.Add([]byte(`<meta charset="iso-8859-1"><p>caf\xe9 \xff\xfe</p>`), []byte("\xef\xbb\xbf<p>\x00\x01</p>"))
	f.Add([]byte(`<script type="application/ld+json">[[[[{"@graph":[{"@type":["Person"],"name":{"@value":1}}]}]]]]</script>`), []byte(`<a href="javascript:alert(1)">x</a><img src="//[::1">`))

	cats := CategoriesNamed("Developer Tools", "Marketing")
	f.Fuzz(func(t *testing.T, home, about []byte) {
		type result struct {
			p   *Profile
			err error
		}
		done := make(chan result, 1)
		go func() {
			res := &Result{StartURL: "https://x.example/", FinalURL: "https://x.example/"}
			if p, ok := fuzzPage(t, "https://x.example/", home); ok {
				res.Pages = append(res.Pages, p)
			}
			if len(about) > 0 {
				if p, ok := fuzzPage(t, "https://x.example/about", about); ok {
					res.Pages = append(res.Pages, p)
				}
			}
			p, _, err := DraftAndGuard(context.Background(), NewBuiltinDrafter(), res, cats)
			done <- result{p, err}
		}()
		var r result
		select {
		case r = <-done:
		case <-time.After(10 * time.Second):
			buf := make([]byte, 1<<20)
			buf = buf[:runtime.Stack(buf, true)]
			t.Fatalf("DraftAndGuard took over 10s on %d+%d bytes\n%s", len(home), len(about), buf)
		}
		if r.err != nil {
			return
		}
		p := r.p
		for k, v := range p.Fields {
			checkEvidence(t, k, v.Evidence)
			switch val := v.Value.(type) {
			case string:
				limit := MaxStringLen
				if k == "description" {
					limit = MaxDescriptionLen
				}
				if !isStringField(k) || val == "" || runeLen(val) > limit || !utf8.ValidString(val) {
					t.Errorf("field %s: bad string value (%d runes)", k, runeLen(val))
				}
			case []string:
				if !isListField(k) || len(val) == 0 || len(val) > MaxItems {
					t.Errorf("field %s: bad list of %d items", k, len(val))
				}
				for _, it := range val {
					if it == "" || runeLen(it) > MaxItemLen {
						t.Errorf("field %s: bad item (%d runes)", k, runeLen(it))
					}
				}
			default:
				t.Errorf("field %s: value of type %T", k, v.Value)
			}
		}
		for k, v := range p.Socials {
			checkEvidence(t, "socials."+k, v.Evidence)
			s, ok := v.Value.(string)
			if !isPlatform(k) || !ok || runeLen(s) > MaxStringLen {
				t.Errorf("social %s: bad value %v", k, v.Value)
			}
		}
		if len(p.FAQs) > MaxFAQs {
			t.Errorf("%d FAQs > %d", len(p.FAQs), MaxFAQs)
		}
		for i, q := range p.FAQs {
			checkEvidence(t, fmt.Sprintf("faqs[%d]", i), q.Evidence)
			if q.Question == "" || q.Answer == "" || runeLen(q.Question) > MaxStringLen || runeLen(q.Answer) > MaxFAQAnswerLen {
				t.Errorf("faqs[%d]: bad lengths %d/%d", i, runeLen(q.Question), runeLen(q.Answer))
			}
		}
		if len(p.Founders) > MaxFounders {
			t.Errorf("%d founders > %d", len(p.Founders), MaxFounders)
		}
		for i, fo := range p.Founders {
			checkEvidence(t, fmt.Sprintf("founders[%d]", i), fo.Evidence)
			if fo.Name == "" || runeLen(fo.Name) > 200 || runeLen(fo.Title) > 200 || runeLen(fo.Bio) > MaxStringLen {
				t.Errorf("founders[%d]: bad lengths", i)
			}
		}
	})
}

// FuzzRobots parses hostile robots.txt bodies and matches hostile paths.
func FuzzRobots(f *testing.F) {
	files, _ := filepath.Glob("../testdata/sites/*/robots.txt")
	for _, fn := range files {
		b, err := os.ReadFile(fn)
		if err != nil {
			f.Fatal(err)
		}
		f.Add(b, "/admin/x", "0.01")
		f.Add(b, "/", "1")
	}
	f.Add([]byte("User-agent: *\nDisallow: /*.php$\nAllow: /a*b*c\n"), "/x/a.php?q=1", "5")
	f.Add([]byte("user-agent: LaunchDirBot/2.0\r\ndisallow: /%7efoo\r\nallow: /p%C3%A9\n"), "/~foo/pé", "1e300")
	f.Add([]byte("\xef\xbb\xbfUser-agent: *\nDisallow: *\nDisallow: $\nAllow: /$\nCrawl-delay: NaN\nCrawl-delay: Inf\n"), "", "Inf")
	f.Add([]byte("Sitemap: https://x.example/s.xml\nUser-agent: *\n# c\nDisallow: /a%\nDisallow: /%zz\n"), "/a%25?", "-1")

	f.Fuzz(func(t *testing.T, body []byte, path, delay string) {
		for _, status := range []int{200, 404, 503} {
			p := parseRobots(status, body, RobotsToken)
			if p == nil {
				t.Fatal("nil policy")
			}
			if p.crawlDelay < 0 {
				t.Errorf("negative crawl delay %v", p.crawlDelay)
			}
			u, err := url.Parse("https://x.example" + path)
			if err != nil {
				u = &url.URL{Scheme: "https", Host: "x.example", Path: path}
			}
			_ = p.allowed(u)
		}
		for _, r := range parseRobotsBody(body, RobotsToken).rules {
			_ = robotsMatch(r.pattern, normalizeRobotsPath(path))
		}
		_ = robotsMatch(normalizeRobotsPath(path), normalizeRobotsPath(path))

		// A stated, positive Crawl-delay must never end up as "no delay".
		p := parseRobotsBody([]byte("User-agent: *\nCrawl-delay: "+delay+"\n"), RobotsToken)
		if p.crawlDelay < 0 {
			t.Errorf("Crawl-delay %q gave negative delay %v", delay, p.crawlDelay)
		}
		if !strings.ContainsAny(delay, "#\r\n") {
			if d, err := strconv.ParseFloat(strings.TrimSpace(delay), 64); err == nil && d >= 1 && p.crawlDelay < time.Second {
				t.Errorf("Crawl-delay %q gave delay %v", delay, p.crawlDelay)
			}
		}
	})
}

// FuzzValidateSubmitURL: never panics; accepted URLs are http(s), bounded and
// carry no credentials.
func FuzzValidateSubmitURL(f *testing.F) {
	for _, s := range []string{
		"acme.com", "https://acme.com/path?q=1#frag", "HTTP://ACME.COM:80/", "http://user:pw@acme.com/",
		"javascript:alert(1)", "mailto:a@b.c", "localhost:8080", "https://[::1]:443/", "https://bücher.de",
		"https://xn--bcher-kva.de.", "ftp://x", "https://a.com:99999", "//acme.com", " https://acme.com ",
		"https://%61cme.com", "https://[fe80::1%25eth0]/", "https://ａｃｍｅ．ｃｏｍ/", "https://a＠b.com/",
		strings.Repeat("a", 2050) + ".com", "https://" + strings.Repeat("ß", 1000) + ".com",
	} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, raw string) {
		out, err := ValidateSubmitURL(raw)
		if err != nil {
			if out != "" {
				t.Errorf("error %v with output %q", err, out)
			}
			return
		}
		if len(out) > maxURLLen {
			t.Errorf("output of %d bytes", len(out))
		}
		u, err := url.Parse(out)
		if err != nil {
			t.Fatalf("output %q does not parse: %v", out, err)
		}
		if u.Scheme != "http" && u.Scheme != "https" {
			t.Errorf("output %q has scheme %q", out, u.Scheme)
		}
		if u.User != nil {
			t.Errorf("output %q has userinfo", out)
		}
		if u.Hostname() == "" {
			t.Errorf("output %q has no host", out)
		}
	})
}
