package crawl

import (
	"bytes"
	"context"
	"io"
	"mime"
	"net/http"
	"net/url"
	"strings"
	"unicode/utf8"

	"github.com/PuerkitoBio/goquery"
	"golang.org/x/net/html"
	"golang.org/x/net/html/charset"
)

// response is one fetched document after redirects.
type response struct {
	url         *url.URL
	status      int
	contentType string
	location    string // Location header of a redirect
	body        []byte
	truncated   bool
}

// get fetches u following up to maxRedirects redirects by hand, so every hop
// gets its own robots check (when checkRobots), scope check (when scope is
// set) and per-host politeness.
func (s *session) get(ctx context.Context, u *url.URL, checkRobots bool, limit int64, scope *siteScope, isRobots bool) (*response, error) {
	for hop := 0; ; hop++ {
		if u.Scheme != "http" && u.Scheme != "https" {
			return nil, classifyError(errBadScheme, u.String())
		}
		if scope != nil && !scope.contains(u) {
			return nil, errOffSite
		}
		if checkRobots {
			pol, err := s.robotsFor(ctx, u)
			if err != nil {
				return nil, err
			}
			if !pol.allowed(u) {
				return nil, robotsDisallowed(u.String())
			}
		}
		resp, err := s.do(ctx, u, limit, isRobots)
		if err != nil {
			return nil, err
		}
		if !isRedirect(resp.status) {
			return resp, nil
		}
		if hop >= maxRedirects {
			return nil, tooManyRedirects(u.String())
		}
		next, err := u.Parse(resp.location)
		if err != nil || resp.location == "" {
			return resp, nil
		}
		u = normalizeURL(next)
	}
}

func isRedirect(status int) bool {
	switch status {
	case http.StatusMovedPermanently, http.StatusFound, http.StatusSeeOther,
		http.StatusTemporaryRedirect, http.StatusPermanentRedirect:
		return true
	}
	return false
}

// do performs one request under the host's politeness lock and reads at most
// limit bytes of the body; a longer body is truncated, not an error.
func (s *session) do(ctx context.Context, u *url.URL, limit int64, isRobots bool) (*response, error) {
	c := s.c
	release, err := c.politeness.acquire(ctx, hostKey(u), c.crawlDelay(u))
	if err != nil {
		return nil, classifyError(err, u.String())
	}
	defer release()
	s.count(isRobots)
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, u.String(), nil)
	if err != nil {
		return nil, badURL("The address " + u.String() + " is not a valid URL.")
	}
	req.Header.Set("User-Agent", c.opts.UserAgent)
	req.Header.Set("Accept", "text/html,application/xhtml+xml;q=0.9,text/plain;q=0.8,*/*;q=0.5")
	resp, err := c.client.Do(req)
	if err != nil {
		return nil, classifyError(err, u.String())
	}
	defer resp.Body.Close()
	out := &response{url: u, status: resp.StatusCode, contentType: resp.Header.Get("Content-Type")}
	if isRedirect(resp.StatusCode) {
		out.location = resp.Header.Get("Location")
		return out, nil
	}
	body, err := io.ReadAll(io.LimitReader(resp.Body, limit+1))
	if err != nil && len(body) == 0 {
		return nil, classifyError(err, u.String())
	}
	if int64(len(body)) > limit {
		body, out.truncated = body[:limit], true
	}
	out.body = body
	return out, nil
}

// mediaType is the lower-cased type/subtype of a Content-Type header.
func mediaType(ct string) string {
	mt, _, err := mime.ParseMediaType(ct)
	if err != nil {
		return strings.ToLower(strings.TrimSpace(strings.Split(ct, ";")[0]))
	}
	return mt
}

func isHTMLType(ct string) bool {
	switch mediaType(ct) {
	case "text/html", "application/xhtml+xml":
		return true
	case "":
		return true // no header: let the body decide (sniffed below)
	}
	return false
}

// decodeBody converts the body to UTF-8 using the Content-Type charset, a
// BOM or <meta charset>; with no declaration valid UTF-8 stays as it is.
func decodeBody(body []byte, contentType string) []byte {
	enc, name, certain := charset.DetermineEncoding(body, contentType)
	if name == "utf-8" || (!certain && name == "windows-1252" && utf8.Valid(body)) {
		return bytes.ToValidUTF8(body, []byte("\uFFFD"))
	}
	out, err := enc.NewDecoder().Bytes(body)
	if err != nil {
		return bytes.ToValidUTF8(body, []byte("\uFFFD"))
	}
	return out
}

// buildPage decodes and parses an HTML response into a Page.
func buildPage(r *response) (*Page, *goquery.Document, error) {
	decoded := decodeBody(r.body, r.contentType)
	root, err := html.Parse(bytes.NewReader(decoded))
	if err != nil {
		return nil, nil, err
	}
	doc := goquery.NewDocumentFromNode(root)
	doc.Url = r.url
	p := &Page{
		URL:   r.url.String(),
		Title: strings.Join(strings.Fields(doc.Find("title").First().Text()), " "),
		Text:  VisibleText(decoded),
		HTML:  decoded,
	}
	return p, doc, nil
}

// looksLikeHTML sniffs bodies served without a Content-Type.
func looksLikeHTML(body []byte) bool {
	return strings.HasPrefix(http.DetectContentType(body), "text/html")
}
