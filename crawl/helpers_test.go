package crawl

import (
	"testing"
	"time"

	"launchdir/testsite"
)

// siteServer is the shared fixture-site server.
type siteServer = testsite.Server

func serveSite(t testing.TB, name string, expand map[string]string) *siteServer {
	return testsite.Serve(t, name, expand)
}

// testCrawler is a crawler for local fixtures: SSRF guard off, tiny delays.
func testCrawler() *Crawler {
	return New(Options{AllowPrivate: true, Timeout: 5 * time.Second, MaxCrawlDelay: 20 * time.Millisecond, UserAgent: "launchdirbot/1.0 (+http://launchdir.test/bot)"})
}

// crawlSite crawls a fixture site from its homepage.
func crawlSite(t testing.TB, name string) (*Result, *siteServer) {
	t.Helper()
	s := serveSite(t, name, nil)
	res, err := testCrawler().Crawl(t.Context(), s.URL+"/", nil)
	if err != nil {
		t.Fatalf("crawl %s: %v", name, err)
	}
	return res, s
}
