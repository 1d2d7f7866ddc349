package site

import (
	"bytes"
	"encoding/xml"
	"fmt"
	"net/http"
	"strconv"
	"strings"
	"sync"
	"time"

	"launchdir/db"

	"github.com/gorilla/feeds"
	"github.com/julienschmidt/httprouter"
)

func parseTime(s string) time.Time {
	for _, layout := range []string{time.RFC3339, "2006-01-02"} {
		if t, err := time.Parse(layout, s); err == nil {
			return t
		}
	}
	return time.Time{}
}

func (s *Site) writeFeed(w http.ResponseWriter, r *http.Request, f *feeds.Feed) {
	atom, err := f.ToAtom()
	if err != nil {
		s.errorPage(w, r, err)
		return
	}
	w.Header().Set("Content-Type", "application/atom+xml; charset=utf-8")
	writeCached(w, r, []byte(atom))
}

// launchFeed is the Atom feed of the newest launches.
func (s *Site) launchFeed(w http.ResponseWriter, r *http.Request, _ httprouter.Params) {
	var l list[db.Summary]
	if err := s.call(r.Context(), "list_launches", map[string]string{"section": "recent", "per_page": "50"}, &l); err != nil {
		s.errorPage(w, r, err)
		return
	}
	base := s.App.Origin(r.Context())
	f := &feeds.Feed{Title: s.App.SiteName(r.Context()) + ": launches", Link: &feeds.Link{Href: base + "/"},
		Id: base + "/feeds/launches.atom", Description: "The newest launches on " + s.App.SiteName(r.Context())}
	for _, it := range l.Items {
		t := parseTime(it.LaunchedAt)
		if t.After(f.Updated) {
			f.Updated = t
		}
		f.Items = append(f.Items, &feeds.Item{Title: it.Name + ": " + it.Tagline, Link: &feeds.Link{Href: base + "/listings/" + it.Slug},
			Id: base + "/listings/" + it.Slug, Description: it.Tagline, Created: t, Updated: t})
	}
	s.writeFeed(w, r, f)
}

// blogFeed is the Atom feed of blog posts.
func (s *Site) blogFeed(w http.ResponseWriter, r *http.Request, _ httprouter.Params) {
	var l list[db.BlogPost]
	if err := s.call(r.Context(), "list_blog_posts", map[string]string{"per_page": "50"}, &l); err != nil {
		s.errorPage(w, r, err)
		return
	}
	base := s.App.Origin(r.Context())
	f := &feeds.Feed{Title: s.App.SiteName(r.Context()) + ": blog", Link: &feeds.Link{Href: base + "/blog"},
		Id: base + "/feeds/blog.atom", Description: "Articles from " + s.App.SiteName(r.Context())}
	for _, p := range l.Items {
		t := parseTime(p.PublishedAt)
		if t.After(f.Updated) {
			f.Updated = t
		}
		f.Items = append(f.Items, &feeds.Item{Title: p.Title, Link: &feeds.Link{Href: base + "/blog/" + p.Slug},
			Id: base + "/blog/" + p.Slug, Description: p.Summary, Author: &feeds.Author{Name: p.Author}, Created: t, Updated: t})
	}
	s.writeFeed(w, r, f)
}

// sitemapSize is how many listing URLs one sitemap file holds (the
// protocol's limit is 50,000).
const sitemapSize = 10000

type urlset struct {
	XMLName xml.Name `xml:"urlset"`
	NS      string   `xml:"xmlns,attr"`
	URLs    []smURL  `xml:"url"`
}

type smURL struct {
	Loc     string `xml:"loc"`
	LastMod string `xml:"lastmod,omitempty"`
}

type smIndex struct {
	XMLName  xml.Name `xml:"sitemapindex"`
	NS       string   `xml:"xmlns,attr"`
	Sitemaps []smURL  `xml:"sitemap"`
}

const smNS = "http://www.sitemaps.org/schemas/sitemap/0.9"

func xmlBody(v any) ([]byte, error) {
	var buf bytes.Buffer
	buf.WriteString(xml.Header)
	err := xml.NewEncoder(&buf).Encode(v)
	return buf.Bytes(), err
}

func writeXML(w http.ResponseWriter, r *http.Request, v any) {
	body, err := xmlBody(v)
	if err != nil {
		http.Error(w, "sitemap failed", http.StatusInternalServerError)
		return
	}
	w.Header().Set("Content-Type", "application/xml; charset=utf-8")
	writeCached(w, r, body)
}

// sitemap is an index: the fixed pages, categories, founders and posts in
// one file, listings in files of sitemapSize, so 100k listings stay valid.
func (s *Site) sitemap(w http.ResponseWriter, r *http.Request, _ httprouter.Params) {
	n, err := s.App.Catalog.LiveListingCount(r.Context())
	if err != nil {
		s.errorPage(w, r, err)
		return
	}
	base := s.App.Origin(r.Context())
	idx := smIndex{NS: smNS, Sitemaps: []smURL{{Loc: base + "/sitemaps/pages.xml"}}}
	for i := 0; i*sitemapSize < n; i++ {
		idx.Sitemaps = append(idx.Sitemaps, smURL{Loc: fmt.Sprintf("%s/sitemaps/listings-%d.xml", base, i+1)})
	}
	writeXML(w, r, idx)
}

func (s *Site) sitemapPart(w http.ResponseWriter, r *http.Request, ps httprouter.Params) {
	if body, ok := s.sitemaps.get(s.cacheKey(r.Context(), ps.ByName("file")), time.Now()); ok {
		w.Header().Set("Content-Type", "application/xml; charset=utf-8")
		writeCached(w, r, body)
		return
	}
	ctx := r.Context()
	base := s.App.Origin(r.Context())
	set := urlset{NS: smNS}
	file := ps.ByName("file")
	if file == "pages.xml" {
		for _, p := range []string{"/", "/launches/this", "/categories", "/leaderboards", "/awards", "/founders", "/blog", "/search", "/compare"} {
			set.URLs = append(set.URLs, smURL{Loc: base + p})
		}
		for _, b := range boards {
			set.URLs = append(set.URLs, smURL{Loc: base + "/leaderboards/" + b.Slug})
		}
		for _, k := range []struct{ kind, prefix string }{{"category", "/categories/"}, {"founder", "/founders/"}, {"post", "/blog/"}} {
			es, err := s.App.Catalog.SitemapOthers(ctx, k.kind)
			if err != nil {
				s.errorPage(w, r, err)
				return
			}
			for _, e := range es {
				set.URLs = append(set.URLs, smURL{Loc: base + k.prefix + e.Slug, LastMod: lastMod(e.UpdatedAt)})
			}
		}
		s.writeSitemap(w, r, file, set)
		return
	}
	num, ok := strings.CutPrefix(file, "listings-")
	num, ok2 := strings.CutSuffix(num, ".xml")
	i, err := strconv.Atoi(num)
	if !ok || !ok2 || err != nil || i < 1 || i > 1000 {
		s.notFound(w, r, "There is no sitemap "+file+".")
		return
	}
	es, err := s.App.Catalog.SitemapListings(ctx, (i-1)*sitemapSize, sitemapSize)
	if err != nil {
		s.errorPage(w, r, err)
		return
	}
	if len(es) == 0 && i > 1 {
		s.notFound(w, r, "There is no sitemap "+file+".")
		return
	}
	for _, e := range es {
		set.URLs = append(set.URLs, smURL{Loc: base + "/listings/" + e.Slug, LastMod: lastMod(e.UpdatedAt)})
	}
	s.writeSitemap(w, r, file, set)
}

// writeSitemap writes a sitemap file and keeps it for sitemapTTL: a file
// of 10,000 URLs costs tens of milliseconds and crawlers fetch them often.
func (s *Site) writeSitemap(w http.ResponseWriter, r *http.Request, file string, set urlset) {
	body, err := xmlBody(set)
	if err != nil {
		s.errorPage(w, r, err)
		return
	}
	s.sitemaps.put(s.cacheKey(r.Context(), file), body, time.Now())
	w.Header().Set("Content-Type", "application/xml; charset=utf-8")
	writeCached(w, r, body)
}

const sitemapTTL = 5 * time.Minute

// bodyCache keeps rendered bodies for ttl (wall clock), bounded in entries.
type bodyCache struct {
	ttl time.Duration
	mu  sync.Mutex
	m   map[string]cachedBody
}

type cachedBody struct {
	body []byte
	at   time.Time
}

func (c *bodyCache) get(key string, now time.Time) ([]byte, bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	e, ok := c.m[key]
	if !ok || now.Sub(e.at) > c.ttl || now.Before(e.at) {
		return nil, false
	}
	return e.body, true
}

func (c *bodyCache) put(key string, body []byte, now time.Time) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.m == nil || len(c.m) >= 64 {
		c.m = map[string]cachedBody{}
	}
	c.m[key] = cachedBody{body, now}
}

func lastMod(s string) string {
	if t := parseTime(s); !t.IsZero() {
		return t.UTC().Format("2006-01-02")
	}
	return ""
}

func (s *Site) text(w http.ResponseWriter, r *http.Request, body string) {
	w.Header().Set("Content-Type", "text/plain; charset=utf-8")
	writeCached(w, r, []byte(body))
}

func (s *Site) robots(w http.ResponseWriter, r *http.Request, _ httprouter.Params) {
	s.text(w, r, "User-agent: *\nAllow: /\nDisallow: /api/\nDisallow: /oauth/\nDisallow: /checkout/\nDisallow: /search?\n"+
		"Disallow: /signin\nDisallow: /signup\nDisallow: /account\n\nSitemap: "+s.App.Origin(r.Context())+"/sitemap.xml\n")
}

// llms tells language-model agents where the machine interfaces are.
func (s *Site) llms(w http.ResponseWriter, r *http.Request, _ httprouter.Params) {
	a, base := s.App, s.App.Origin(r.Context())
	s.text(w, r, fmt.Sprintf(`# %s

> %s

This website is one door of a startup listing directory. Agents should use the API or MCP instead of scraping pages: they return the same data as JSON.

## Machine interfaces

- REST API: %s (JSON; pagination with page and per_page; errors are RFC 9457 problem+json)
- OpenAPI 3.1 description: %s/openapi.json
- MCP server (streamable HTTP): %s (every API operation is a tool; signed-in tools use OAuth)
- OAuth metadata: %s/.well-known/oauth-authorization-server
- Site facts (counts, current launch week, leaderboards): %s/site

## Pages

- Launches by week: %s/launches/this
- Categories: %s/categories
- Leaderboards (the billboard is a PAID ranking): %s/leaderboards
- Feeds: %s/feeds/launches.atom and %s/feeds/blog.atom
- Sitemap: %s/sitemap.xml

Votes come only from people signed in on the website; the API has no voting.
`, a.SiteName(r.Context()), s.siteDescription(r), a.APIURL(r.Context()), a.APIURL(r.Context()), a.MCPURL(r.Context()), base, a.APIURL(r.Context()),
		base, base, base, base, base, base))
}
