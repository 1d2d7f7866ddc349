package site

import (
	"fmt"
	"html/template"
	"net/http"
	"reflect"
	"strings"

	"launchdir/app/catalog"
	"launchdir/app/media"
	"launchdir/db"
)

// Hooks for the external tests of this package.

// CardHTML is the card a list page writes for c.
func CardHTML(s *Site, c *db.Summary) string { return string(s.cardHTML(c)) }

// CardView sets c's card view as decorateCards would.
func CardView(c *db.Summary, csrf, back string, voted, eager bool, count int64, thumb *media.Thumb) {
	c.Card = &cardView{CSRF: csrf, Back: back, Voted: voted, Eager: eager, Count: count,
		Name: "Upvote " + c.Name + " (", Unit: voteUnit(count, c.WeekVotes != nil) + ")", Thumb: thumb}
}

// cardTemplate is the "card" template cardHTML replaced, kept as the
// reference its output is compared with.
const cardTemplate = `{{define "card"}}<li class="card">
{{with .Card}}{{logo $.LogoURL $.Name 48 .Eager}}{{else}}{{logo .LogoURL .Name 48 false}}{{end}}
<div class="body">{{if eq .Status "scheduled"}}<span class="name">{{.Name}}</span> <a href="{{.URL}}" rel="nofollow noopener">website</a>{{else}}<a class="name" href="/listings/{{.Slug}}">{{.Name}}</a>{{end}}
<p class="tagline">{{.Tagline}}</p>
<p class="meta">{{if .Category}}<a href="/categories/{{.Category.Slug}}">{{.Category.Name}}</a> · {{end}}{{if eq .Status "scheduled"}}launches {{date .LaunchWeek}}{{else}}{{with .WeekVotes}}{{count . "vote" "votes"}} in the week · {{count $.Votes "in all" "in all"}}{{else}}{{count .Votes "vote" "votes"}}{{end}} · {{count .Follows "follower" "followers"}}{{end}}</p></div>
{{with .Card}}{{if eq $.Status "live"}}<form class="vote" method="post" action="/listings/{{$.Slug}}/vote">{{with .CSRF}}<input type="hidden" name="csrf" value="{{.}}">{{end}}<input type="hidden" name="next" value="{{.Back}}"><button type="submit" aria-pressed="{{.Voted}}"><span aria-hidden="true">▲</span> <span class="sr">{{.Name}}</span><span class="count">{{.Count}}</span><span class="sr">{{.Unit}}</span></button></form>{{end}}
{{with .Thumb}}<img class="thumb" src="{{.Src}}" srcset="{{.SrcSet}}" width="{{.Width}}" height="{{.Height}}" alt="" loading="lazy" decoding="async">{{end}}{{end}}</li>{{end}}`

// TemplateCardHTML renders c with the template cardHTML replaced.
func TemplateCardHTML(s *Site, c *db.Summary) (string, error) {
	t, err := template.New("ref").Funcs(funcs).Funcs(areaFuncs).Funcs(s.mediaFuncs()).Parse(cardTemplate)
	if err != nil {
		return "", err
	}
	var b strings.Builder
	err = t.ExecuteTemplate(&b, "card", *c)
	return b.String(), err
}

// PageCards runs a list operation as its page does (s.call into the page's
// data type) and returns the summaries the page shows, after decorateCards
// when decorate is set.
func PageCards(s *Site, r *http.Request, opID string, args map[string]string, decorate bool) ([]*db.Summary, error) {
	var data any
	switch opID {
	case "list_launches":
		data = &catalog.LaunchSection{}
	case "get_launch_week":
		data = &weekData{}
	case "get_category":
		data = &categoryData{}
	case "search_listings":
		data = &searchData{}
	default:
		return nil, fmt.Errorf("no page type for %s", opID)
	}
	if err := s.call(r.Context(), opID, args, data); err != nil {
		return nil, err
	}
	if decorate {
		s.decorateCards(r, &Page{Data: data, Path: "/"})
	}
	return collectCards(reflect.ValueOf(data), 0), nil
}

// categoryOptionsTemplate is the search form's category menu as the
// template wrote it before categoryOptions replaced it.
const categoryOptionsTemplate = `<option value="">Any</option>{{range .Categories}}<option value="{{.Slug}}"{{if eq .Slug $.F.category}} selected{{end}}>{{.Name}} ({{.LiveCount}})</option>{{range .Subcategories}}<option value="{{.Slug}}"{{if eq .Slug $.F.category}} selected{{end}}>— {{.Name}} ({{.LiveCount}})</option>{{end}}{{end}}`

// CategoryOptions writes the menu both ways: by categoryOptions and by the
// template it replaced.
func CategoryOptions(cats []db.Category, selected string) (got, want string, err error) {
	t, err := template.New("ref").Parse(`<select>` + categoryOptionsTemplate + `</select>`)
	if err != nil {
		return "", "", err
	}
	var b strings.Builder
	err = t.Execute(&b, map[string]any{"Categories": cats, "F": map[string]string{"category": selected}})
	return `<select>` + string(categoryOptions(cats, selected)) + `</select>`, b.String(), err
}
