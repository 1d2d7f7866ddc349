package site

import (
	"context"
	"fmt"
	"html/template"
	"net/http"
	"strconv"
	"strings"

	"launchdir/app/media"
	"launchdir/db"
	"launchdir/routes"

	"github.com/julienschmidt/httprouter"
)

// Stored images (/media/) are served by the routes door (routes/media.go),
// so an API-only server has them too; the site adds the favicon and the
// social cards, with the same inert headers.
func setImageHeaders(h http.Header, contentType string) { routes.SetImageHeaders(h, contentType) }

// mountMedia registers the image routes.
func (s *Site) mountMedia(get func(string, func(http.ResponseWriter, *http.Request, httprouter.Params))) {
	get("/favicon.ico", s.favicon)
	get("/apple-touch-icon.png", s.touchIcon)
	get("/og/:kind/:file", s.socialCard)
}

// favicon is the site team's icon or one drawn from the site's name; its
// URL is fixed, so it is cached for a day, not forever.
func (s *Site) favicon(w http.ResponseWriter, r *http.Request, _ httprouter.Params) {
	s.writeIcon(w, r, "image/x-icon", s.App.Media.FaviconICO(r.Context()))
}

func (s *Site) touchIcon(w http.ResponseWriter, r *http.Request, _ httprouter.Params) {
	s.writeIcon(w, r, "image/png", s.App.Media.FaviconPNG(r.Context(), 180))
}

func (s *Site) writeIcon(w http.ResponseWriter, r *http.Request, ct string, b []byte) {
	setImageHeaders(w.Header(), ct)
	writeBody(w, r, b, "public, max-age=86400")
}

// mediaFuncs are the template functions that draw images: they know the
// sites' origins, so only /media/ images stored here are ever shown.
func (s *Site) mediaFuncs() template.FuncMap {
	return template.FuncMap{
		// logo is a listing's logo at px CSS pixels (1x and 2x variants),
		// or its letter tile when it has no image of this site.
		"logo": s.logoHTML,
		// cardHTML is a listing's card (card_html.go).
		"cardHTML": func(c db.Summary) template.HTML { return s.cardHTML(&c) },
		// cardsHTML is a list's cards in one call, not one template call
		// and one reflected call per card.
		"cardsHTML": s.cardsHTML,
		// avatar is a founder's picture, or nothing.
		"avatar": func(url string, px int) template.HTML {
			p, ok := s.ownPath(url)
			if !ok {
				return ""
			}
			hash, _, _, _ := media.ParsePath(p)
			return template.HTML(fmt.Sprintf(`<img class="avatar" src="%s" srcset="%s 1x, %s 2x" width="%d" height="%d" alt="" loading="lazy" decoding="async">`,
				media.Path(hash, "64", "jpg"), media.Path(hash, "64", "jpg"), media.Path(hash, "128", "jpg"), px, px))
		},
		"list2": func(a, b string) []string { return []string{a, b} },
		"shots": func(list []db.Media) []shot { return shots(s.ownPath, list) },
		// siteLogoPath is the site team's logo, or "".
		"siteLogoPath": func() string { return s.App.Media.SiteLogoPath(context.Background()) },
	}
}

// logoHTML is a listing's logo at px CSS pixels (1x and 2x variants), or
// its letter tile when it has no image of this site.
func (s *Site) logoHTML(url, name string, px int, eager bool) template.HTML {
	p, ok := s.ownPath(url)
	if !ok {
		cls := "logo"
		if px > 48 {
			cls = "logo big"
		}
		return template.HTML(`<span class="` + cls + `" aria-hidden="true">` + template.HTMLEscapeString(media.Initial(name)) + `</span>`)
	}
	return logoImg(p, px, eager)
}

// logoImg is the <img> of a logo at px CSS pixels.
func logoImg(p string, px int, eager bool) template.HTML {
	hash, _, _, _ := media.ParsePath(p)
	one, two := "64", "128"
	if px > 64 {
		one, two = "128", "256"
	}
	load := `loading="lazy" decoding="async"`
	if eager {
		load = `fetchpriority="high"`
	}
	cls := "logo"
	if px > 48 {
		cls = "logo big"
	}
	return template.HTML(fmt.Sprintf(`<img class="%s" src="%s" srcset="%s 1x, %s 2x" width="%d" height="%d" alt="" %s>`,
		cls, media.Path(hash, one, "png"), media.Path(hash, one, "png"), media.Path(hash, two, "png"), px, px, load))
}

// shot is one gallery image with its responsive sources.
type shot struct {
	Src, SrcSet, Alt string
	Lazy             bool
	Link             string // a video or another site's image: a plain link
	Label            string
}

// shots turns a listing's media into gallery images (this site's
// screenshots) and plain links (anything else).
func shots(ownPath func(string) (string, bool), list []db.Media) []shot {
	var out []shot
	for i, m := range list {
		p, ok := ownPath(m.URL)
		if !ok || m.Kind != "image" {
			label := m.Caption
			if label == "" {
				label = m.Kind
			}
			out = append(out, shot{Link: m.URL, Label: label})
			continue
		}
		hash, _, _, _ := media.ParsePath(p)
		var set []string
		for _, v := range media.KindVariants(media.KindScreenshot) {
			set = append(set, media.Path(hash, v.Name, "jpg")+" "+strconv.Itoa(v.Width)+"w")
		}
		alt := m.Caption
		if alt == "" {
			alt = "Screenshot " + strconv.Itoa(i+1)
		}
		out = append(out, shot{Src: media.Path(hash, "960", "jpg"), SrcSet: strings.Join(set, ", "), Alt: alt, Lazy: i > 0})
	}
	return out
}
