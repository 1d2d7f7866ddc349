package site

import (
	"html/template"
	"strconv"
	"strings"

	"launchdir/app/kernel"
	"launchdir/db"
)

// A card is written by cardHTML instead of a template: a list page shows
// 20 to 60 of them, each some thirty template actions, and html/template
// runs every action through reflection and its escapers. Template
// execution was 70% of the home page's CPU (15 s profile, signed in, c=8)
// and the largest part of every list page. The markup is the one the
// "card" template wrote (TestCardHTMLMatchesTemplate renders both and
// compares them byte for byte), escaped the way html/template escapes
// each context: text and attribute values (esc), URLs in href and src
// (cardURL: unsafe schemes filtered, the rest normalized).

// cardHTML is a listing's card: logo, name, tagline, meta line, and with a
// card view its vote button and thumbnail.
func (s *Site) cardHTML(c *db.Summary) template.HTML {
	var b strings.Builder
	b.Grow(1024)
	s.writeCard(&b, c)
	return template.HTML(b.String())
}

// writeCard writes a listing's card to b (see cardHTML).
func (s *Site) writeCard(b *strings.Builder, c *db.Summary) {
	v, _ := c.Card.(*cardView)
	b.WriteString(`<li class="card">` + "\n")
	if v != nil {
		b.WriteString(string(s.logoHTML(c.LogoURL, c.Name, 48, v.Eager)))
	} else {
		b.WriteString(string(s.logoHTML(c.LogoURL, c.Name, 48, false)))
	}
	b.WriteString("\n" + `<div class="body">`)
	if c.Status == "scheduled" {
		b.WriteString(`<span class="name">` + esc(c.Name) + `</span> <a href="` + cardURL(c.URL, true) + `" rel="nofollow noopener">website</a>`)
	} else {
		b.WriteString(`<a class="name" href="/listings/` + cardURL(c.Slug, false) + `">` + esc(c.Name) + `</a>`)
	}
	b.WriteString("\n" + `<p class="tagline">` + esc(c.Tagline) + "</p>\n" + `<p class="meta">`)
	if c.Category != nil {
		b.WriteString(`<a href="/categories/` + cardURL(c.Category.Slug, false) + `">` + esc(c.Category.Name) + `</a> · `)
	}
	switch {
	case c.Status == "scheduled":
		b.WriteString("launches " + esc(kernel.HumanDate(c.LaunchWeek)))
	case c.WeekVotes != nil:
		b.WriteString(esc(countOf(c.WeekVotes, "vote", "votes")) + " in the week · " + esc(countOf(c.Votes, "in all", "in all")))
	default:
		b.WriteString(esc(countOf(c.Votes, "vote", "votes")))
	}
	if c.Status != "scheduled" {
		b.WriteString(" · " + esc(countOf(c.Follows, "follower", "followers")))
	}
	b.WriteString("</p></div>\n")
	if v != nil {
		writeCardView(b, c, v)
	}
	b.WriteString("</li>")
}

// writeCardView writes the vote button (live listings) and the thumbnail.
func writeCardView(b *strings.Builder, c *db.Summary, v *cardView) {
	if c.Status == "live" {
		b.WriteString(`<form class="vote" method="post" action="/listings/` + cardURL(c.Slug, false) + `/vote">`)
		if v.CSRF != "" {
			b.WriteString(`<input type="hidden" name="csrf" value="` + esc(v.CSRF) + `">`)
		}
		b.WriteString(`<input type="hidden" name="next" value="` + esc(v.Back) + `"><button type="submit" aria-pressed="` +
			strconv.FormatBool(v.Voted) + `"><span aria-hidden="true">▲</span> <span class="sr">` + esc(v.Name) +
			`</span><span class="count">` + strconv.FormatInt(v.Count, 10) + `</span><span class="sr">` + esc(v.Unit) + `</span></button></form>`)
	}
	b.WriteString("\n")
	if t := v.Thumb; t != nil {
		b.WriteString(`<img class="thumb" src="` + cardURL(t.Src, true) + `" srcset="` + esc(t.SrcSet) + `" width="` +
			strconv.Itoa(t.Width) + `" height="` + strconv.Itoa(t.Height) + `" alt="" loading="lazy" decoding="async">`)
	}
}

// esc escapes text and quoted attribute values as html/template does: its
// text and attribute escaper also writes '+' as "&#43;", which
// template.HTMLEscapeString (text/template's) leaves as it is.
func esc(s string) string { return htmlEscaper.Replace(s) }

var htmlEscaper = strings.NewReplacer("\x00", "\uFFFD", `"`, "&#34;", "&", "&amp;", "'", "&#39;", "+", "&#43;", "<", "&lt;", ">", "&gt;")

// cardURL is a URL attribute's value as html/template writes it: at the
// start of the attribute (start) a scheme other than http, https or mailto
// is replaced by "#ZgotmplZ"; then every byte outside the URL's allowed
// set is percent-encoded (a '%' stays: the value is taken as already
// encoded) and the result escaped for the attribute.
func cardURL(u string, start bool) string {
	if start {
		if i := strings.IndexByte(u, ':'); i >= 0 && !strings.Contains(u[:i], "/") {
			switch strings.ToLower(u[:i]) {
			case "http", "https", "mailto":
			default:
				return "#ZgotmplZ"
			}
		}
	}
	var b strings.Builder
	for i := 0; i < len(u); i++ {
		c := u[i]
		switch {
		case 'a' <= c && c <= 'z', 'A' <= c && c <= 'Z', '0' <= c && c <= '9':
			b.WriteByte(c)
		case strings.IndexByte("-._~!#$&*+,/:;=?@[]%", c) >= 0:
			b.WriteByte(c)
		default:
			b.WriteString("%" + strconv.FormatInt(int64(c)|0x100, 16)[1:]) // lower-case hex, as html/template writes it
		}
	}
	return esc(b.String())
}

// cardsHTML is the cards of a list, one after the other.
func (s *Site) cardsHTML(cs []db.Summary) template.HTML {
	var b strings.Builder
	b.Grow(1100 * len(cs)) // a card with its vote button is about 1 KB
	for i := range cs {
		s.writeCard(&b, &cs[i])
	}
	return template.HTML(b.String())
}

// categoryOptions is the search form's category menu, written here for the
// reason cards are: 68 categories of four template actions each were the
// largest part of the search page's template time (the page's own
// escapers, through reflection, for every option). The markup is the one
// the template wrote (TestCategoryOptionsMatchTemplate compares them).
func categoryOptions(cats []db.Category, selected string) template.HTML {
	var b strings.Builder
	b.Grow(64 * len(cats))
	b.WriteString(`<option value="">Any</option>`)
	for _, c := range cats {
		writeCategoryOption(&b, &c, selected, "")
		for _, sc := range c.Subcategories {
			writeCategoryOption(&b, &sc, selected, "— ")
		}
	}
	return template.HTML(b.String())
}

func writeCategoryOption(b *strings.Builder, c *db.Category, selected, prefix string) {
	b.WriteString(`<option value="` + esc(c.Slug) + `"`)
	if c.Slug == selected {
		b.WriteString(" selected")
	}
	b.WriteString(">" + prefix + esc(c.Name) + " (" + strconv.FormatInt(c.LiveCount, 10) + ")</option>")
}
