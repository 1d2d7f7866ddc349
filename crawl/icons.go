package crawl

import (
	"bytes"
	"net/url"
	"strings"

	"github.com/PuerkitoBio/goquery"
)

// IconURLs are the icons a page names for its site, best first, as
// absolute URLs: apple-touch-icon links (square, 180 px, usually PNG), then
// other icon links that are not .ico or .svg, then the conventional
// /apple-touch-icon.png at the site's root. The drafter falls back to them
// when the site's logo cannot be had (an SVG logo, say).
func IconURLs(p Page) []string {
	base, err := url.Parse(p.URL)
	if err != nil || base.Host == "" {
		return nil
	}
	var touch, other []string
	if doc, err := goquery.NewDocumentFromReader(bytes.NewReader(p.HTML)); err == nil {
		doc.Find("link[rel][href]").Each(func(_ int, s *goquery.Selection) {
			rel := strings.ToLower(s.AttrOr("rel", ""))
			href, _ := s.Attr("href")
			u, err := base.Parse(strings.TrimSpace(href))
			if err != nil || (u.Scheme != "http" && u.Scheme != "https") {
				return
			}
			path := strings.ToLower(u.Path)
			switch {
			case strings.Contains(rel, "apple-touch-icon"):
				touch = append(touch, u.String())
			case strings.Contains(rel, "icon") && !strings.HasSuffix(path, ".ico") && !strings.HasSuffix(path, ".svg"):
				other = append(other, u.String())
			}
		})
	}
	root := (&url.URL{Scheme: base.Scheme, Host: base.Host, Path: "/apple-touch-icon.png"}).String()
	out := []string{}
	seen := map[string]bool{}
	for _, u := range append(append(touch, other...), root) {
		if !seen[u] {
			seen[u] = true
			out = append(out, u)
		}
	}
	return out
}
