package kernel

import (
	"bytes"
	"html"
	"regexp"
	"sync"

	"github.com/microcosm-cc/bluemonday"
	"github.com/yuin/goldmark"
)

// Markdown, one renderer for the site: goldmark escapes raw HTML by default
// and bluemonday removes anything unsafe that links or images could still
// carry. The blog (a door) and comments (a domain) both render through
// here, so the rule of what HTML people's text may become lives in one place.

var (
	md = goldmark.New()
	// blogPolicy is the sanitiser of the site team's blog posts.
	blogPolicy = bluemonday.UGCPolicy()
	// commentPolicy is the subset comments may use: paragraphs, emphasis,
	// code, quotes, lists and links (nofollow ugc, opening elsewhere); no
	// images, headings or tables, which would let a comment dress up as
	// the page.
	commentPolicy = sync.OnceValue(func() *bluemonday.Policy {
		p := bluemonday.NewPolicy()
		p.AllowElements("p", "br", "em", "strong", "code", "pre", "blockquote", "ul", "ol", "li", "del", "hr")
		p.AllowStandardURLs()
		p.AllowAttrs("href").OnElements("a")
		p.RequireNoFollowOnLinks(true)
		p.AddTargetBlankToFullyQualifiedLinks(true)
		p.RequireNoReferrerOnLinks(true)
		return p
	})
)

// RenderMarkdown turns a blog post's Markdown into sanitised HTML.
func RenderMarkdown(src string) string { return render(src, blogPolicy) }

// RenderComment turns a comment's Markdown into sanitised HTML of the
// comment subset.
func RenderComment(src string) string {
	out := render(src, commentPolicy())
	// The policy keeps rel="nofollow noreferrer"; comments are
	// user-generated content, which search engines are told as well.
	return relRE.ReplaceAllString(out, `rel="nofollow ugc noreferrer noopener"`)
}

var relRE = regexp.MustCompile(`rel="[^"]*"`)

func render(src string, p *bluemonday.Policy) string {
	var buf bytes.Buffer
	if err := md.Convert([]byte(src), &buf); err != nil {
		return html.EscapeString(src)
	}
	return p.Sanitize(buf.String())
}

// linkRE finds what a reader could follow as a link in text: a URL with a
// scheme, a www. address, a Markdown link or autolink, or a bare domain
// with a common top-level domain ("buy-now.shop/deal").
var linkRE = regexp.MustCompile(`(?i)([a-z][a-z0-9+.-]*://|www\.|\]\(|<[a-z]+:|\b[a-z0-9-]+\.(com|net|org|io|co|ai|app|dev|xyz|shop|info|biz|ru|cn|top|site|online|store|link|me|ly|gg|to)\b)`)

// HasLink reports whether text contains a link or something a reader
// would type into a browser (see linkRE).
func HasLink(text string) bool { return linkRE.MatchString(text) }
