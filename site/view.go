package site

import (
	"fmt"
	"html/template"
	"math"
	"net/http"
	"sort"
	"strconv"
	"strings"

	"launchdir/app/kernel"
	"launchdir/db"
	"launchdir/ops"
)

// pageNames are the templates under templates/, each rendered inside layout.html.
var pageNames = []string{"home", "listing", "categories", "category", "week", "leaderboards", "board",
	"founders", "founder", "blog", "post", "awards", "search", "compare", "error",
	"alternatives", "reviews", "signup", "signin", "reset-request", "reset", "unsubscribe", "following",
	"upcoming", "notifications", "dispute", "digest", "digest_issue", "digest_link", "review-retry"}

func (s *Site) parse() error {
	s.pages = map[string]*template.Template{}
	for _, name := range pageNames {
		t, err := template.New(name).Funcs(funcs).Funcs(s.mediaFuncs()).ParseFS(templateFS,
			"templates/parts.html", "templates/comments.html", "templates/gallery.html", "templates/"+name+".html")
		if err != nil {
			return fmt.Errorf("site template %s: %w", name, err)
		}
		s.pages[name] = t
	}
	return nil
}

var funcs = template.FuncMap{
	"markdown":        renderMarkdown,
	"paragraphs":      paragraphs,
	"drChart":         drChart,
	"date":            kernel.HumanDate,
	"money":           money,
	"count":           countOf,
	"categoryOptions": categoryOptions,
	"platform":        platformLabel,
	"stars":           stars,
	"metric":          metricText,
	"keys":            sortedKeys[string],
	"has":             func(list []string, v string) bool { return contains(list, v) },
	"initial": func(s string) string {
		for _, r := range s {
			return strings.ToUpper(string(r))
		}
		return "?"
	},
	"seq": func(from, to int) []int {
		var out []int
		for i := from; i <= to; i++ {
			out = append(out, i)
		}
		return out
	},
	"pageWindow": pageWindow,
	"title": func(s string) string {
		return strings.ToUpper(s[:min(1, len(s))]) + strings.ReplaceAll(s[min(1, len(s)):], "_", " ")
	},
}

// renderMarkdown turns a blog post's Markdown into sanitised HTML; the
// rule (renderer and sanitiser) is the business layer's, shared with
// comments.
func renderMarkdown(src string) template.HTML { return template.HTML(kernel.RenderMarkdown(src)) }

func paragraphs(s string) []string {
	var out []string
	for _, p := range strings.Split(strings.ReplaceAll(s, "\r\n", "\n"), "\n\n") {
		if p = strings.TrimSpace(p); p != "" {
			out = append(out, p)
		}
	}
	return out
}

// drChart draws the Domain Rating history as a small inline SVG line chart
// (no script, no external file), with a text alternative.
func drChart(h []db.DRPoint) template.HTML {
	if len(h) < 2 {
		return ""
	}
	const w, ht, pad = 240.0, 60.0, 4.0
	lo, hi := math.MaxInt, math.MinInt
	for _, p := range h {
		lo, hi = min(lo, p.Rating), max(hi, p.Rating)
	}
	span := float64(max(hi-lo, 1))
	var pts []string
	for i, p := range h {
		x := pad + float64(i)*(w-2*pad)/float64(len(h)-1)
		y := ht - pad - float64(p.Rating-lo)*(ht-2*pad)/span
		pts = append(pts, fmt.Sprintf("%.1f,%.1f", x, y))
	}
	first, last := h[0], h[len(h)-1]
	label := fmt.Sprintf("Domain Rating from %d (%s) to %d (%s), low %d, high %d", first.Rating, first.Date, last.Rating, last.Date, lo, hi)
	return template.HTML(fmt.Sprintf(`<svg class="chart" viewBox="0 0 %.0f %.0f" width="%.0f" height="%.0f" role="img" aria-label="%s">`+
		`<title>%s</title><polyline fill="none" stroke="currentColor" stroke-width="2" points="%s"/></svg>`,
		w, ht, w, ht, template.HTMLEscapeString(label), template.HTMLEscapeString(label), strings.Join(pts, " ")))
}

// grouped prints a figure for people: thousands separated ("70,983").
// (x/text's message printer did this at a fifth of a template call's cost
// per figure: a card shows three.)
func grouped(v int64) string {
	s := strconv.FormatInt(v, 10)
	neg := v < 0
	if neg {
		s = s[1:]
	}
	if len(s) <= 3 {
		if neg {
			return "-" + s
		}
		return s
	}
	b := make([]byte, 0, len(s)+len(s)/3+1)
	if neg {
		b = append(b, '-')
	}
	head := len(s) % 3
	if head == 0 {
		head = 3
	}
	b = append(b, s[:head]...)
	for i := head; i < len(s); i += 3 {
		b = append(b, ',')
		b = append(b, s[i:i+3]...)
	}
	return string(b)
}

// countOf says how many of a thing, in the right number: "1 vote",
// "2 votes", "1,204 followers" (one and other are English's two forms).
// n may be any integer or a pointer to one (a week's votes).
func countOf(n any, one, other string) string {
	var v int64
	switch x := n.(type) {
	case int:
		v = int64(x)
	case int64:
		v = x
	case *int64:
		if x != nil {
			v = *x
		}
	case float64:
		v = int64(x)
	}
	if v == 1 || v == -1 {
		return grouped(v) + " " + one
	}
	return grouped(v) + " " + other
}

func money(cents any) string {
	var c float64
	switch v := cents.(type) {
	case float64:
		c = v
	case int64:
		c = float64(v)
	case int:
		c = float64(v)
	default:
		return fmt.Sprint(cents)
	}
	return "$" + centsText(int64(math.Round(c)))
}

func stars(avg *float64) string {
	if avg == nil {
		return "no rating yet"
	}
	return fmt.Sprintf("%.1f / 5", *avg)
}

// metricText shows a leaderboard metric in its unit.
func metricText(m db.BoardMetric) string {
	switch m.Name {
	case "contributed_cents":
		return money(m.Value)
	case "mrr_cents":
		s := money(m.Value) + " MRR"
		if m.Verified != nil && *m.Verified {
			s += " (verified)"
		}
		return s
	case "votes":
		return countOf(m.Value, "vote", "votes")
	case "votes_in_week":
		return countOf(m.Value, "vote", "votes") + " in the week"
	case "domain_rating":
		return fmt.Sprintf("DR %d", m.Value)
	}
	return fmt.Sprint(m.Value)
}

// pageWindow lists the page numbers shown around the current one.
func pageWindow(p *Pager) []int {
	n := p.Pages()
	var out []int
	for i := max(1, p.Page-3); i <= min(n, p.Page+3); i++ {
		out = append(out, i)
	}
	return out
}

func contains(list []string, v string) bool {
	for _, x := range list {
		if x == v {
			return true
		}
	}
	return false
}

func sortedKeys[V any](m map[string]V) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return keys
}

// pageParam reads the optional page query parameter with the API's bounds
// (1..1000): a bad value is a 400 page naming the field, not page 1.
func pageParam(r *http.Request) (int, error) {
	v := r.URL.Query().Get("page")
	if v == "" {
		return 1, nil
	}
	n, err := strconv.Atoi(v)
	if err != nil || n < 1 || n > 1000 {
		return 0, ops.Invalid("page", "must be an integer from 1 to 1000")
	}
	return n, nil
}
