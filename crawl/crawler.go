package crawl

import (
	"context"
	"errors"
	"net/http"
	"net/url"
	"strings"
	"sync"
	"time"

	"github.com/PuerkitoBio/goquery"
)

// Page is one fetched HTML page. HTML is the body decoded to UTF-8; Text is
// the visible text, one block per line.
type Page struct {
	URL, Title, Text string
	HTML             []byte
}

// Result is what a crawl read. RobotsFetches counts robots.txt requests,
// PageFetches every other request (pages, sitemaps, redirect hops).
type Result struct {
	StartURL, FinalURL         string
	Pages                      []Page
	RobotsFetches, PageFetches int
	// Disallowed are the planned pages robots.txt did not allow.
	Disallowed []string
}

// Progress is what a running crawl reports: pages read and planned, the
// page being read now ("" between pages) and the planned pages robots.txt
// did not allow (every page read was allowed).
type Progress struct {
	Done, Planned int
	Current       string
	Disallowed    []string
}

// Crawler reads product websites politely. It is safe for concurrent use and
// keeps a robots.txt cache and per-host politeness state across crawls.
type Crawler struct {
	opts       Options
	client     *http.Client
	politeness politeness
	robotsMu   sync.Mutex
	robots     map[string]*robotsEntry
	now        func() time.Time // the robots cache's clock; tests move it
}

// New returns a Crawler using the guarded client from NewHTTPClient.
func New(o Options) *Crawler {
	o = o.withDefaults()
	client := NewHTTPClient(o)
	// Redirects are followed by hand so each hop is robots-checked and polite.
	client.CheckRedirect = func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }
	return &Crawler{opts: o, client: client, robots: map[string]*robotsEntry{}}
}

// session carries the request counters of one Crawl or FetchPage call.
type session struct {
	c                 *Crawler
	mu                sync.Mutex
	robotsN, requests int
	extra             []Page // pages read while planning (a translated homepage)
}

func (s *session) count(isRobots bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if isRobots {
		s.robotsN++
	} else {
		s.requests++
	}
}

// errOffSite stops a redirect that leaves the crawled site.
var errOffSite = errors.New("redirect leaves the site")

// Crawl reads the homepage plus the pages a profile needs (about, pricing,
// features, faq, team, contact, blog/changelog) found from homepage links and
// sitemap.xml, at most MaxPages pages, same host and its www. variant only.
// progress, if not nil, is called before and after each page (the
// homepage and planning are not reported). Errors are *FetchError.
func (c *Crawler) Crawl(ctx context.Context, startURL string, progress func(Progress)) (*Result, error) {
	norm, err := ValidateSubmitURL(startURL)
	if err != nil {
		return nil, badURL("The website address is not valid: " + err.Error() + ".")
	}
	start, _ := url.Parse(norm)
	s := &session{c: c}
	home, doc, ferr := s.fetchHome(ctx, start)
	if ferr != nil {
		return nil, ferr
	}
	res := &Result{StartURL: norm, FinalURL: home.URL, Pages: []Page{*home}}
	final, _ := url.Parse(home.URL)
	scope := newSiteScope(final)
	plan := s.plan(ctx, doc, final, scope)
	res.Pages = append(res.Pages, s.extra...)
	planned := len(res.Pages) + len(plan)
	var disallowed []string
	report := func(current string) {
		if progress != nil {
			progress(Progress{Done: len(res.Pages), Planned: planned, Current: current, Disallowed: append([]string(nil), disallowed...)})
		}
	}
	report("")
	for _, target := range plan {
		if ctx.Err() != nil {
			break
		}
		report(target.String())
		p, err := s.fetchSubpage(ctx, target, scope)
		if p != nil {
			res.Pages = append(res.Pages, *p)
		} else {
			planned-- // a skipped page is no longer part of the plan
			var fe *FetchError
			if errors.As(err, &fe) && fe.Kind == "robots_disallowed" {
				disallowed = append(disallowed, target.String())
			}
		}
		report("")
	}
	res.RobotsFetches, res.PageFetches, res.Disallowed = s.robotsN, s.requests, disallowed
	return res, nil
}

// fetchHome reads the start page; any failure is reported to the user.
func (s *session) fetchHome(ctx context.Context, start *url.URL) (*Page, *goquery.Document, *FetchError) {
	resp, err := s.get(ctx, start, true, s.c.opts.MaxBytes, nil, false)
	if err != nil {
		return nil, nil, classifyError(err, start.String())
	}
	if resp.status < 200 || resp.status > 299 {
		return nil, nil, httpStatusError(resp.url.String(), resp.status)
	}
	if !isHTMLType(resp.contentType) || (resp.contentType == "" && !looksLikeHTML(resp.body)) {
		return nil, nil, notHTMLError(resp.url.String(), mediaType(resp.contentType))
	}
	page, doc, err := buildPage(resp)
	if err != nil {
		return nil, nil, notHTMLError(resp.url.String(), mediaType(resp.contentType))
	}
	return page, doc, nil
}

// fetchSubpage reads one planned page; failures just skip the page (the
// error says why, when a request was refused).
func (s *session) fetchSubpage(ctx context.Context, u *url.URL, scope *siteScope) (*Page, error) {
	resp, err := s.get(ctx, u, true, s.c.opts.MaxBytes, scope, false)
	if err != nil {
		return nil, err
	}
	if resp.status < 200 || resp.status > 299 || !isHTMLType(resp.contentType) {
		return nil, nil
	}
	page, _, err := buildPage(resp)
	if err != nil {
		return nil, nil
	}
	return page, nil
}

// FetchPage fetches one URL through the guarded client (size capped, charset
// decoded), for badge and claim checks. It does not consult robots.txt since
// the site owner asked for the check, but it is polite per host.
func (c *Crawler) FetchPage(ctx context.Context, rawURL string) (*Page, error) {
	norm, err := ValidateSubmitURL(rawURL)
	if err != nil {
		return nil, badURL("The address is not valid: " + err.Error() + ".")
	}
	u, _ := url.Parse(norm)
	s := &session{c: c}
	resp, err := s.get(ctx, u, false, c.opts.MaxBytes, nil, false)
	if err != nil {
		return nil, classifyError(err, norm)
	}
	if resp.status < 200 || resp.status > 299 {
		return nil, httpStatusError(resp.url.String(), resp.status)
	}
	if mediaType(resp.contentType) == "text/plain" {
		return &Page{URL: resp.url.String(), Text: string(decodeBody(resp.body, resp.contentType)), HTML: nil}, nil
	}
	if !isHTMLType(resp.contentType) {
		return nil, notHTMLError(resp.url.String(), mediaType(resp.contentType))
	}
	page, _, err := buildPage(resp)
	if err != nil {
		return nil, notHTMLError(resp.url.String(), mediaType(resp.contentType))
	}
	return page, nil
}

// siteScope is the crawled host plus its www. twin.
type siteScope struct{ hosts map[string]bool }

func newSiteScope(u *url.URL) *siteScope {
	h := strings.ToLower(u.Host)
	twin := "www." + h
	if strings.HasPrefix(h, "www.") {
		twin = strings.TrimPrefix(h, "www.")
	}
	return &siteScope{hosts: map[string]bool{h: true, twin: true}}
}

func (s *siteScope) contains(u *url.URL) bool {
	return s.hosts[strings.ToLower(normalizeURL(u).Host)]
}
