package crawl

import (
	"bytes"
	"compress/gzip"
	"context"
	"errors"
	"io"
	"log"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"sync/atomic"
	"testing"
	"time"
)

func pagePaths(res *Result) []string {
	var out []string
	for _, p := range res.Pages {
		u, _ := url.Parse(p.URL)
		out = append(out, u.Path)
	}
	return out
}

func TestCrawlAcmePlansPagesFromLinksAndSitemap(t *testing.T) {
	s := serveSite(t, "acme-analytics", nil)
	var calls [][2]int
	var reports []Progress
	res, err := testCrawler().Crawl(t.Context(), s.URL, func(p Progress) {
		reports = append(reports, p)
		if p.Current == "" {
			calls = append(calls, [2]int{p.Done, p.Planned})
		}
	})
	if err != nil {
		t.Fatal(err)
	}
	got := strings.Join(pagePaths(res), " ")
	want := "/ /about /pricing /features /faq /team /contact /changelog"
	if got != want {
		t.Errorf("pages %q, want %q", got, want)
	}
	if s.Count("/blog/") != 0 || s.Count("/careers") != 0 || s.Count("/login") != 0 {
		t.Error("fetched a robots-disallowed or unneeded page")
	}
	if s.Count("/sitemap.xml") != 1 || s.Count("/robots.txt") != 1 {
		t.Errorf("sitemap %d, robots %d fetches", s.Count("/sitemap.xml"), s.Count("/robots.txt"))
	}
	if res.RobotsFetches != 1 || res.PageFetches != len(res.Pages)+1 {
		t.Errorf("counters robots=%d pages=%d", res.RobotsFetches, res.PageFetches)
	}
	last := calls[len(calls)-1]
	if calls[0] != [2]int{1, 9} || last != [2]int{len(res.Pages), len(res.Pages)} {
		t.Errorf("progress calls %v", calls) // the disallowed /blog/ leaves the plan
	}
	// Before each planned page its address is reported; robots decisions follow.
	var current []string
	for _, p := range reports {
		if p.Current != "" {
			current = append(current, strings.TrimPrefix(p.Current, s.URL))
		}
	}
	if len(current) != 8 || current[0] != "/about" {
		t.Errorf("current pages %v", current)
	}
	if d := reports[len(reports)-1].Disallowed; len(d) != 1 || d[0] != s.URL+"/blog/" {
		t.Errorf("disallowed %v", d)
	}
	if len(reports[0].Disallowed) != 0 {
		t.Errorf("first report disallowed %v", reports[0].Disallowed)
	}
	home := res.Pages[0]
	if home.Title != "Acme Analytics — Privacy-first product analytics" {
		t.Errorf("title %q", home.Title)
	}
	for _, hidden := range []string{"ignore this script text", "founded in 1850", "font-size"} {
		if strings.Contains(home.Text, hidden) {
			t.Errorf("visible text contains %q", hidden)
		}
	}
	if !strings.Contains(home.Text, "Funnels that show where users drop off") {
		t.Error("visible text misses the feature list")
	}
}

func TestCrawlMaxPages(t *testing.T) {
	s := serveSite(t, "acme-analytics", nil)
	c := New(Options{AllowPrivate: true, MaxPages: 3, MaxCrawlDelay: time.Millisecond})
	res, err := c.Crawl(t.Context(), s.URL, nil)
	if err != nil {
		t.Fatal(err)
	}
	if got := strings.Join(pagePaths(res), " "); got != "/ /about /pricing" {
		t.Errorf("pages %q", got)
	}
}

func TestCrawlRobotsDisallowed(t *testing.T) {
	s := serveSite(t, "closedbot", nil)
	_, err := testCrawler().Crawl(t.Context(), s.URL+"/", nil)
	wantKind(t, err, "robots_disallowed")
	if !strings.Contains(err.Error(), "robots.txt") {
		t.Errorf("message %q does not say why", err)
	}
	if s.Requests() != 1 || s.Count("/robots.txt") != 1 {
		t.Errorf("%d requests (robots %d), want only robots.txt", s.Requests(), s.Count("/robots.txt"))
	}
}

func TestCrawlRedirects(t *testing.T) {
	s := serveSite(t, "hopper", nil)
	res, err := testCrawler().Crawl(t.Context(), s.URL+"/start", nil)
	if err != nil {
		t.Fatal(err)
	}
	if res.FinalURL != s.URL+"/" || res.StartURL != s.URL+"/start" {
		t.Errorf("start %s final %s", res.StartURL, res.FinalURL)
	}
	_, err = testCrawler().Crawl(t.Context(), s.URL+"/deep", nil)
	wantKind(t, err, "too_many_redirects")
	_, err = testCrawler().Crawl(t.Context(), s.URL+"/to-ftp", nil)
	wantKind(t, err, "bad_url")
}

func TestCrawlByteCapTruncates(t *testing.T) {
	padding := strings.Repeat("<p>Filler paragraph that pads the page well past the cap.</p>\n", 50000) // ~3 MiB
	s := serveSite(t, "bigpage", map[string]string{"PADDING": padding})
	c := New(Options{AllowPrivate: true, MaxBytes: 1 << 20})
	res, err := c.Crawl(t.Context(), s.URL, nil)
	if err != nil {
		t.Fatal(err)
	}
	home := res.Pages[0]
	if len(home.HTML) > 1<<20 {
		t.Errorf("page is %d bytes, cap is 1 MiB", len(home.HTML))
	}
	if !strings.Contains(home.Text, "BigPage puts your whole handbook") || strings.Contains(home.Text, "beyond the byte cap") {
		t.Error("truncation kept the wrong part of the page")
	}
	if d, _ := NewBuiltinDrafter().Draft(t.Context(), res, nil); d.Fields["name"].Value != "BigPage" {
		t.Errorf("name %v", d.Fields["name"].Value)
	}
}

func TestCrawlDecodesLatin1(t *testing.T) {
	res, _ := crawlSite(t, "latin1shop")
	home := res.Pages[0]
	for _, want := range []string{"Café Crème", "torréfiés à Montréal", "Livraison gratuite dès 50 €", "Écrivez-nous"} {
		if !strings.Contains(home.Text, want) {
			t.Errorf("text misses %q", want)
		}
	}
	if !strings.HasPrefix(home.Title, "Café Crème – Thés") {
		t.Errorf("title %q", home.Title)
	}
}

func TestCrawlErrors(t *testing.T) {
	s := serveSite(t, "pixelnote", nil)
	s.Overrides["/pdf"] = func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/pdf")
		w.Write([]byte("%PDF-1.4"))
	}
	_, err := testCrawler().Crawl(t.Context(), s.URL+"/pdf", nil)
	wantKind(t, err, "not_html")
	_, err = testCrawler().Crawl(t.Context(), s.URL+"/missing", nil)
	wantKind(t, err, "http_status")
	_, err = testCrawler().Crawl(t.Context(), "ftp://x.example/", nil)
	wantKind(t, err, "bad_url")
	_, err = testCrawler().Crawl(t.Context(), "http://no-such-host.invalid/", nil)
	wantKind(t, err, "dns")
	closed := serveSite(t, "pixelnote", nil)
	addr := closed.URL
	closed.Close()
	_, err = testCrawler().Crawl(t.Context(), addr, nil)
	wantKind(t, err, "connect")
}

func TestCrawlTimeout(t *testing.T) {
	s := serveSite(t, "pixelnote", nil)
	s.Overrides["/slow"] = func(w http.ResponseWriter, r *http.Request) {
		select {
		case <-r.Context().Done():
		case <-time.After(2 * time.Second):
		}
	}
	c := New(Options{AllowPrivate: true, Timeout: 200 * time.Millisecond})
	_, err := c.Crawl(t.Context(), s.URL+"/slow", nil)
	wantKind(t, err, "timeout")
}

// One request at a time per host, even across concurrent crawls.
func TestPolitenessOneRequestPerHost(t *testing.T) {
	s := serveSite(t, "acme-analytics", nil)
	var inFlight, maxInFlight atomic.Int32
	base := s.Config.Handler
	s.Config.Handler = http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		n := inFlight.Add(1)
		for {
			m := maxInFlight.Load()
			if n <= m || maxInFlight.CompareAndSwap(m, n) {
				break
			}
		}
		time.Sleep(5 * time.Millisecond)
		base.ServeHTTP(w, r)
		inFlight.Add(-1)
	})
	c := testCrawler()
	done := make(chan error, 2)
	for range 2 {
		go func() { _, err := c.Crawl(t.Context(), s.URL, nil); done <- err }()
	}
	for range 2 {
		if err := <-done; err != nil {
			t.Fatal(err)
		}
	}
	if maxInFlight.Load() != 1 {
		t.Errorf("%d requests in flight at once", maxInFlight.Load())
	}
}

func TestFetchPage(t *testing.T) {
	s := serveSite(t, "closedbot", nil)
	p, err := testCrawler().FetchPage(t.Context(), s.URL+"/about")
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(p.Text, "ClosedBot was founded in 2021.") || p.Title != "About ClosedBot" {
		t.Errorf("page %+v", p)
	}
}

func TestClassifyPage(t *testing.T) {
	cases := map[string]string{
		"/about": "about", "/company/team": "team", "/pricing.html": "pricing", "/help": "faq",
		"/blog/": "blog", "/changelog": "changelog", "/contact-us": "contact",
	}
	for p, want := range cases {
		if got, _ := classifyPage(mustURL(t, "https://a.example"+p), ""); got != want {
			t.Errorf("%s: %s, want %s", p, got, want)
		}
	}
	if got, score := classifyPage(mustURL(t, "https://a.example/x"), "Pricing"); got != "pricing" || score < 2 {
		t.Errorf("link text: %s %d", got, score)
	}
}

func TestSiteScopeWWWTwin(t *testing.T) {
	s := newSiteScope(mustURL(t, "https://acme.example/"))
	for raw, want := range map[string]bool{
		"https://www.acme.example/about": true, "http://acme.example/x": true, "https://acme.example:443/": true,
		"https://blog.acme.example/": false, "https://evil.example/": false, "https://acme.example:8443/": false,
	} {
		if got := s.contains(mustURL(t, raw)); got != want {
			t.Errorf("%s: %v", raw, got)
		}
	}
	if !newSiteScope(mustURL(t, "https://www.acme.example/")).contains(mustURL(t, "https://acme.example/")) {
		t.Error("bare host not in scope of www host")
	}
}

func TestCrawlCancelled(t *testing.T) {
	s := serveSite(t, "pixelnote", nil)
	ctx, cancel := context.WithCancel(t.Context())
	cancel()
	_, err := testCrawler().Crawl(ctx, s.URL, nil)
	wantKind(t, err, "timeout")
}

func TestCancelledCrawlDoesNotPoisonRobotsCache(t *testing.T) {
	s := serveSite(t, "pixelnote", nil)
	c := testCrawler()
	ctx, cancel := context.WithCancel(t.Context())
	cancel()
	c.Crawl(ctx, s.URL, nil)
	if _, err := c.Crawl(t.Context(), s.URL, nil); err != nil {
		t.Fatalf("crawl after a cancelled one: %v", err)
	}
}

// A page served with Content-Encoding: gzip is decoded transparently, so its
// text and title come out readable rather than as compressed bytes.
func TestCrawlDecodesGzipPage(t *testing.T) {
	s := serveSite(t, "pixelnote", nil)
	const html = `<!doctype html><html><head><title>Gzipped Home</title></head>` +
		`<body><h1>Squeezed but readable</h1><p>This paragraph travelled compressed over the wire.</p></body></html>`
	var askedGzip atomic.Bool
	s.Overrides["/gz"] = func(w http.ResponseWriter, r *http.Request) {
		askedGzip.Store(strings.Contains(r.Header.Get("Accept-Encoding"), "gzip"))
		var buf bytes.Buffer
		zw := gzip.NewWriter(&buf)
		zw.Write([]byte(html))
		zw.Close()
		w.Header().Set("Content-Type", "text/html; charset=utf-8")
		w.Header().Set("Content-Encoding", "gzip")
		w.Write(buf.Bytes())
	}
	check := func(p *Page) {
		t.Helper()
		if p.Title != "Gzipped Home" {
			t.Errorf("title %q, want the decoded title", p.Title)
		}
		if !strings.Contains(p.Text, "This paragraph travelled compressed over the wire.") {
			t.Errorf("text not decoded: %q", p.Text)
		}
		if bytes.HasPrefix(p.HTML, []byte{0x1f, 0x8b}) {
			t.Error("HTML still holds the gzip stream")
		}
	}
	p, err := testCrawler().FetchPage(t.Context(), s.URL+"/gz")
	if err != nil {
		t.Fatal(err)
	}
	check(p)
	if !askedGzip.Load() {
		t.Error("request did not advertise Accept-Encoding: gzip")
	}
	res, err := testCrawler().Crawl(t.Context(), s.URL+"/gz", nil)
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Pages) == 0 {
		t.Fatal("no pages")
	}
	check(&res.Pages[0])
}

// A certificate the crawler does not trust ends in a "tls" FetchError with a
// message a person can act on, both for a crawl and for a single page.
func TestCrawlUntrustedCertificate(t *testing.T) {
	ts := httptest.NewUnstartedServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/html")
		w.Write([]byte("<title>secret</title>"))
	}))
	ts.Config.ErrorLog = log.New(io.Discard, "", 0) // the handshake failures are expected
	ts.StartTLS()
	t.Cleanup(ts.Close)
	c := New(Options{AllowPrivate: true, Timeout: 5 * time.Second, MaxCrawlDelay: time.Millisecond})
	u, _ := url.Parse(ts.URL)
	for name, run := range map[string]func() error{
		"crawl":      func() error { _, err := c.Crawl(t.Context(), ts.URL+"/", nil); return err },
		"fetch page": func() error { _, err := c.FetchPage(t.Context(), ts.URL+"/"); return err },
	} {
		t.Run(name, func(t *testing.T) {
			err := run()
			var fe *FetchError
			if !errors.As(err, &fe) {
				t.Fatalf("err = %v (%T), want *FetchError", err, err)
			}
			if fe.Kind != "tls" {
				t.Fatalf("kind %q (%s), want tls", fe.Kind, fe.Message)
			}
			if !strings.Contains(fe.Message, u.Hostname()) || !strings.Contains(strings.ToLower(fe.Message), "certificate") {
				t.Errorf("message does not name the host and the certificate problem: %q", fe.Message)
			}
			if strings.Contains(fe.Message, "x509:") || strings.Contains(fe.Message, "tls:") {
				t.Errorf("message leaks a raw Go error: %q", fe.Message)
			}
		})
	}
}

// TestCrawlFollowsHreflang: a homepage whose links we cannot classify
// (Polish slugs) is planned from its English translation.
func TestCrawlFollowsHreflang(t *testing.T) {
	res, s := crawlSite(t, "polyglot")
	var got []string
	for _, p := range res.Pages {
		got = append(got, strings.TrimPrefix(p.URL, s.URL))
	}
	want := []string{"/", "/en/", "/en/about", "/en/pricing"}
	if strings.Join(got, " ") != strings.Join(want, " ") {
		t.Fatalf("pages %v, want %v", got, want)
	}
}
