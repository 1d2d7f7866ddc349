package crawl

import (
	"bytes"
	"compress/gzip"
	"context"
	"encoding/xml"
	"io"
	"net/url"
	"strings"
)

const (
	maxSitemaps    = 3
	maxSitemapURLs = 1000
)

// sitemapURLs lists page URLs from the site's sitemaps (from robots.txt, or
// /sitemap.xml), following one level of sitemap index. Each sitemap fetch is
// robots-checked like a page.
func (s *session) sitemapURLs(ctx context.Context, home *url.URL, scope *siteScope) []*url.URL {
	var queue []*url.URL
	if pol, err := s.robotsFor(ctx, home); err == nil {
		for _, raw := range pol.sitemaps {
			if u := resolveLink(home, raw); u != nil && scope.contains(u) {
				queue = append(queue, u)
			}
		}
	}
	if len(queue) == 0 {
		queue = append(queue, &url.URL{Scheme: home.Scheme, Host: home.Host, Path: "/sitemap.xml"})
	}
	var pages []*url.URL
	for fetched := 0; len(queue) > 0 && fetched < maxSitemaps && len(pages) < maxSitemapURLs; fetched++ {
		u := queue[0]
		queue = queue[1:]
		locs, isIndex := s.readSitemap(ctx, u, scope)
		for _, loc := range locs {
			lu := resolveLink(home, loc)
			if lu == nil || !scope.contains(lu) {
				continue
			}
			if isIndex {
				queue = append(queue, lu)
			} else if len(pages) < maxSitemapURLs {
				pages = append(pages, lu)
			}
		}
	}
	return pages
}

// readSitemap fetches one sitemap and returns its <loc> values and whether it
// is a sitemap index.
func (s *session) readSitemap(ctx context.Context, u *url.URL, scope *siteScope) ([]string, bool) {
	resp, err := s.get(ctx, u, true, s.c.opts.MaxBytes, scope, false)
	if err != nil || resp.status < 200 || resp.status > 299 {
		return nil, false
	}
	body := resp.body
	if bytes.HasPrefix(body, []byte{0x1f, 0x8b}) {
		zr, err := gzip.NewReader(bytes.NewReader(body))
		if err != nil {
			return nil, false
		}
		body, _ = io.ReadAll(io.LimitReader(zr, s.c.opts.MaxBytes))
	}
	return parseSitemap(body)
}

// parseSitemap reads <loc> elements of a urlset or sitemapindex leniently.
func parseSitemap(body []byte) ([]string, bool) {
	dec := xml.NewDecoder(bytes.NewReader(body))
	dec.Strict = false
	var locs []string
	isIndex, inLoc := false, false
	for {
		tok, err := dec.Token()
		if err != nil {
			break
		}
		switch t := tok.(type) {
		case xml.StartElement:
			if t.Name.Local == "sitemapindex" {
				isIndex = true
			}
			inLoc = t.Name.Local == "loc"
		case xml.CharData:
			if inLoc {
				if loc := strings.TrimSpace(string(t)); loc != "" {
					locs = append(locs, loc)
				}
			}
		case xml.EndElement:
			inLoc = false
		}
	}
	return locs, isIndex
}
