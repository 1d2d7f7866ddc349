package crawl

import (
	"net/http"
	"net/url"
	"testing"
	"time"

	"github.com/temoto/robotstxt"
)

func mustURL(t *testing.T, s string) *url.URL {
	t.Helper()
	u, err := url.Parse(s)
	if err != nil {
		t.Fatal(err)
	}
	return u
}

func TestRobotsStatusPolicy(t *testing.T) {
	cases := []struct {
		status int
		allow  bool
	}{
		{200, true}, {404, true}, {403, true}, {410, true}, {500, false}, {503, false}, {302, false},
	}
	u := mustURL(t, "https://a.example/page")
	for _, c := range cases {
		body := []byte("User-agent: *\nAllow: /\n")
		if got := parseRobots(c.status, body, RobotsToken).allowed(u); got != c.allow {
			t.Errorf("status %d: allowed=%v, want %v", c.status, got, c.allow)
		}
	}
}

func TestRobotsRules(t *testing.T) {
	cases := []struct {
		name, body, path string
		allow            bool
	}{
		{"longest match wins (allow)", "User-agent: *\nDisallow: /\nAllow: /public\n", "/public/page", true},
		{"longest match wins (disallow)", "User-agent: *\nAllow: /docs\nDisallow: /docs/private\n", "/docs/private/x", false},
		{"no match allows", "User-agent: *\nDisallow: /admin\n", "/pricing", true},
		{"tie goes to allow (allow first)", "User-agent: *\nAllow: /page\nDisallow: /page\n", "/page", true},
		{"tie goes to allow (disallow first)", "User-agent: *\nDisallow: /page\nAllow: /page\n", "/page", true},
		{"wildcard tie goes to allow", "User-agent: *\nDisallow: /*.php\nAllow: /*.php\n", "/index.php", true},
		{"end anchor matches", "User-agent: *\nDisallow: /*.pdf$\n", "/files/a.pdf", false},
		{"end anchor needs end", "User-agent: *\nDisallow: /*.pdf$\n", "/files/a.pdf?x=1", true},
		{"wildcard in middle", "User-agent: *\nDisallow: /shop/*/cart\n", "/shop/7/cart", false},
		{"query is matched", "User-agent: *\nDisallow: /*?session=\n", "/page?session=1", false},
		{"empty disallow allows", "User-agent: *\nDisallow:\n", "/anything", true},
		{"robots.txt always allowed", "User-agent: *\nDisallow: /\n", "/robots.txt", true},
		{"own group beats star", "User-agent: *\nDisallow: /\n\nUser-agent: launchdirbot\nAllow: /\n", "/x", true},
		{"own group only", "User-agent: launchdirbot\nDisallow: /\n\nUser-agent: *\nAllow: /\n", "/x", false},
		{"token is case-insensitive", "User-agent: LaunchDirBot\nDisallow: /secret\n", "/secret", false},
		{"token with version", "User-agent: launchdirbot/2.1\nDisallow: /secret\n", "/secret", false},
		{"other bots ignored", "User-agent: googlebot\nDisallow: /\n", "/x", true},
		{"prefix of token is another bot", "User-agent: launchdir\nDisallow: /\n", "/x", true},
		{"grouped agents share rules", "User-agent: otherbot\nUser-agent: launchdirbot\nDisallow: /both\n", "/both/1", false},
		{"groups for same agent merge", "User-agent: launchdirbot\nDisallow: /a\n\nUser-agent: launchdirbot\nDisallow: /b\n", "/b", false},
		{"escaped rule vs unicode path", "User-agent: *\nDisallow: /caf%C3%A9\n", "/café", false},
		{"raw unicode rule vs escaped path", "User-agent: *\nDisallow: /café\n", "/caf%C3%A9", false},
		{"lowercase escapes in rule", "User-agent: *\nDisallow: /caf%c3%a9\n", "/café/menu", false},
		{"comments ignored", "User-agent: * # all\nDisallow: /private # keep out\n", "/private", false},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			p := parseRobots(200, []byte(c.body), RobotsToken)
			u := mustURL(t, "https://a.example"+c.path)
			if got := p.allowed(u); got != c.allow {
				t.Errorf("%s: allowed=%v, want %v", c.path, got, c.allow)
			}
		})
	}
}

// The library rejects the whole file over one bad line; we must still obey
// the valid rules instead of allowing everything.
func TestRobotsLenientParse(t *testing.T) {
	body := []byte("Disallow: /early\nUser-agent: *\nCrawl-delay: soon\nthis line is junk\nDisalow: /typo\nDisallow: /private\n")
	if _, err := robotstxt.FromBytes(body); err == nil {
		t.Log("library accepted the file; the lenient path is still exercised below")
	}
	p := parseRobots(200, body, RobotsToken)
	for path, want := range map[string]bool{"/private/x": false, "/typo": false, "/public": true, "/early": true} {
		if got := p.allowed(mustURL(t, "https://a.example"+path)); got != want {
			t.Errorf("%s: allowed=%v, want %v", path, got, want)
		}
	}
}

func TestRobotsCrawlDelayAndSitemaps(t *testing.T) {
	body := []byte("User-agent: *\nCrawl-delay: 2.5\nDisallow: /x\n\nSitemap: https://a.example/sitemap.xml\n")
	p := parseRobots(200, body, RobotsToken)
	if p.crawlDelay != 2500*time.Millisecond {
		t.Errorf("crawl delay %v", p.crawlDelay)
	}
	if len(p.sitemaps) != 1 || p.sitemaps[0] != "https://a.example/sitemap.xml" {
		t.Errorf("sitemaps %v", p.sitemaps)
	}
}

func TestRobotsReadsAtLeast500KiB(t *testing.T) {
	pad := make([]byte, 0, 510<<10)
	pad = append(pad, "User-agent: *\n"...)
	for len(pad) < 500<<10 {
		pad = append(pad, "# padding padding padding padding padding padding\n"...)
	}
	pad = append(pad, "Disallow: /late\n"...)
	if got := parseRobots(200, pad, RobotsToken).allowed(mustURL(t, "https://a.example/late")); got {
		t.Error("rule after 500 KiB was ignored")
	}
}

func TestRobots5xxBlocksCrawl(t *testing.T) {
	s := serveSite(t, "pixelnote", nil)
	s.Overrides["/robots.txt"] = func(w http.ResponseWriter, r *http.Request) { http.Error(w, "down", http.StatusServiceUnavailable) }
	_, err := testCrawler().Crawl(t.Context(), s.URL+"/", nil)
	if fe, ok := err.(*FetchError); !ok || fe.Kind != "robots_disallowed" {
		t.Fatalf("err = %v, want robots_disallowed", err)
	}
	if s.Requests() != 1 {
		t.Errorf("%d requests, want only robots.txt", s.Requests())
	}
}

func TestRobotsNetworkErrorBlocksCrawl(t *testing.T) {
	s := serveSite(t, "pixelnote", nil)
	s.Overrides["/robots.txt"] = func(w http.ResponseWriter, r *http.Request) {
		conn, _, _ := w.(http.Hijacker).Hijack()
		conn.Close()
	}
	_, err := testCrawler().Crawl(t.Context(), s.URL+"/", nil)
	if err == nil {
		t.Fatal("crawl succeeded although robots.txt could not be read")
	}
	if s.Count("/") != 0 {
		t.Error("homepage was fetched although robots.txt failed")
	}
}

func TestRobotsCachedPerHost(t *testing.T) {
	s := serveSite(t, "pixelnote", nil)
	c := testCrawler()
	for range 2 {
		if _, err := c.Crawl(t.Context(), s.URL+"/", nil); err != nil {
			t.Fatal(err)
		}
	}
	if n := s.Count("/robots.txt"); n != 1 {
		t.Errorf("robots.txt fetched %d times, want 1", n)
	}
}

// RFC 9309: a cached robots.txt is used for at most 24 hours.
func TestRobotsCacheExpires(t *testing.T) {
	s := serveSite(t, "pixelnote", nil)
	c := testCrawler()
	now := time.Date(2026, 11, 18, 12, 0, 0, 0, time.UTC)
	c.now = func() time.Time { return now }
	crawl := func() {
		if _, err := c.Crawl(t.Context(), s.URL+"/", nil); err != nil {
			t.Fatal(err)
		}
	}
	crawl()
	now = now.Add(23 * time.Hour)
	crawl()
	if n := s.Count("/robots.txt"); n != 1 {
		t.Fatalf("refetched within 24 h: %d", n)
	}
	now = now.Add(2 * time.Hour)
	crawl()
	if n := s.Count("/robots.txt"); n != 2 {
		t.Fatalf("not refetched after 24 h: %d", n)
	}
}

func TestRobotsCrawlDelay(t *testing.T) {
	s := serveSite(t, "acme-analytics", nil)
	var times []time.Time
	s.Overrides["/robots.txt"] = func(w http.ResponseWriter, r *http.Request) {
		w.Write([]byte("User-agent: *\nCrawl-delay: 0.05\n"))
	}
	c := New(Options{AllowPrivate: true, MaxPages: 4, MaxCrawlDelay: time.Second})
	res, err := c.Crawl(t.Context(), s.URL+"/", func(p Progress) {
		if p.Current == "" {
			times = append(times, time.Now())
		}
	})
	if err != nil {
		t.Fatal(err)
	}
	for i := 1; i < len(times); i++ {
		if gap := times[i].Sub(times[i-1]); gap < 40*time.Millisecond {
			t.Errorf("pages %d and %d only %v apart", i-1, i, gap)
		}
	}
	if len(res.Pages) < 3 {
		t.Errorf("only %d pages", len(res.Pages))
	}
}

func TestRobotsCrawlDelayIsCapped(t *testing.T) {
	s := serveSite(t, "acme-analytics", nil)
	s.Overrides["/robots.txt"] = func(w http.ResponseWriter, r *http.Request) {
		w.Write([]byte("User-agent: *\nCrawl-delay: 86400\n"))
	}
	c := New(Options{AllowPrivate: true, MaxPages: 3, MaxCrawlDelay: 10 * time.Millisecond})
	start := time.Now()
	if _, err := c.Crawl(t.Context(), s.URL+"/", nil); err != nil {
		t.Fatal(err)
	}
	if time.Since(start) > 3*time.Second {
		t.Errorf("hostile crawl-delay not capped: %v", time.Since(start))
	}
}
