package site

import (
	"fmt"
	"net/http"
	"net/url"
	"slices"
	"strings"

	"launchdir/app/drafting"
	"launchdir/app/kernel"
	"launchdir/db"

	"github.com/julienschmidt/httprouter"
)

// The draft page in people's words (issue 23): one form, grouped in the
// sections a founder thinks in, with human labels and help, the evidence
// shown as "found on <page>" with its quote, a categories picker from the
// tree, a card preview and one Save. Saving sends update_draft once with
// only what changed (PATCH: a field left as it was keeps its state and its
// evidence), so editing two fields and saving once keeps both.

// fieldInfo is how the page names a draft field.
type fieldInfo struct{ Label, Help, Section string }

var draftFieldInfo = map[string]fieldInfo{
	"name":              {"Product name", "As people know it.", "basics"},
	"tagline":           {"Tagline", "One line that says what it does (the listing shows up to 200 characters).", "basics"},
	"short_description": {"Short description", "Two or three sentences for cards and search results (up to 300 are shown).", "basics"},
	"description":       {"Full description", "What it does, who it is for, how it works. Blank lines start new paragraphs.", "basics"},
	"stage":             {"Stage", "For example: idea, beta, launched, growing.", "basics"},
	"features":          {"Features", "One per line.", "basics"},
	"usps":              {"What sets it apart", "One per line: reasons to pick it over the others.", "basics"},
	"tags":              {"Tags", "One per line: words people would search for.", "basics"},
	"pricing_model":     {"Pricing model", "For example: free, freemium, subscription, one-time payment, open source.", "pricing"},
	"pricing_summary":   {"Pricing in short", "For example: free for 3 users, then $12 per user a month.", "pricing"},
	"country":           {"Country", "Two-letter code, for example DE, PT or US.", "company"},
	"city":              {"City", "", "company"},
	"founded_year":      {"Founded in", "The year, for example 2021.", "company"},
	"contact_email":     {"Contact email", "Shown on the listing for questions.", "company"},
	"demo_video_url":    {"Demo video", "A link to a video of the product (YouTube, Vimeo…).", "company"},
	"logo_url":          {"Logo", "A link to the logo image.", "company"},
	"keywords":          {"Search keywords", "One per line: the words search engines should match.", "seo"},
}

// stateWords says a field's state as a person would.
var stateWords = map[string]string{
	"ai":        "from your site",
	"not_found": "not found on your site",
	"edited":    "changed by you",
	"manual":    "added by you",
	"override":  "locked: drafting again leaves it as it is",
	"deleted":   "removed by you",
}

var storyLabels = map[string]string{
	"title": "Title of the story", "story": "The story", "why_started": "Why you started", "problem": "The problem you solve",
	"journey": "The journey so far", "challenges": "Challenges", "achievements": "Achievements", "lessons": "Lessons learned",
	"whats_next": "What's next",
}

// platformLabels are the social networks' own spellings.
var platformLabels = map[string]string{
	"linkedin": "LinkedIn", "x": "X (Twitter)", "facebook": "Facebook", "instagram": "Instagram", "youtube": "YouTube",
	"tiktok": "TikTok", "github": "GitHub", "reddit": "Reddit", "discord": "Discord", "medium": "Medium",
	"substack": "Substack", "producthunt": "Product Hunt", "website": "Website", "custom": "Other link",
}

// platformLabel names a social platform key.
func platformLabel(key string) string {
	if l, ok := platformLabels[key]; ok {
		return l
	}
	return key
}

// filledLinks counts the links of a links form that have a value.
func filledLinks(links []socialLink) int {
	n := 0
	for _, l := range links {
		if strings.TrimSpace(l.Value) != "" {
			n++
		}
	}
	return n
}

type evidenceView struct{ Page, URL, Quote string }

// foundOn names the page of a quote by its path ("your home page").
func foundOn(raw string) string {
	u, err := url.Parse(raw)
	if err != nil || u.Path == "" || u.Path == "/" {
		return "your home page"
	}
	return u.Path
}

type formField struct {
	Name, Label, Help, State, StateWord, Text string
	List, Long                                bool
	Evidence                                  []evidenceView
	CanRestore, CanLock, CanRedraft           bool
}

type formSection struct {
	ID, Title, Help string
	Fields          []formField
}

// suggestedCategory is one of the drafter's categories as the picker
// offers it: its name, where it was found, and whether it is chosen.
type suggestedCategory struct {
	Name, Page, URL, Quote string
	Chosen                 bool
}

// catOption is a category of the picker.
type catOption struct {
	Name, Label string
	Sub         bool
	Primary     bool
	More        bool
}

// draftForm is what the one form shows.
type draftForm struct {
	Sections   []formSection
	Categories []catOption
	// Suggested are the drafter's categories with their quotes (at most 3).
	Suggested []suggestedCategory
	Preview   db.Summary
	Next      string
}

var sectionTitles = []struct{ ID, Title, Help string }{
	{"basics", "The basics", "What people see first: the name, one line, a few sentences, and what it does."},
	{"pricing", "Pricing", "How people pay, in a line."},
	{"company", "The company", "Where you are, since when, how to reach you, and your links."},
	{"people", "The people", "Who makes it. The first founder is the primary one."},
	{"story", "Your story", "Shown once the story is unlocked (a paid launch or the trophy cabinet)."},
	{"seo", "Search engines", "How the listing appears in search results."},
}

// buildForm groups the draft's fields and fills the picker and preview.
func (s *Site) buildForm(r *http.Request, uid int64, d *myDraftData) {
	f := &draftForm{}
	for _, sec := range sectionTitles {
		fs := formSection{ID: sec.ID, Title: sec.Title, Help: sec.Help}
		for _, df := range d.Fields {
			info, ok := draftFieldInfo[df.Name]
			if !ok || info.Section != sec.ID {
				continue
			}
			fs.Fields = append(fs.Fields, s.formField(d, df, info))
		}
		f.Sections = append(f.Sections, fs)
	}
	current := fieldLines(d.D.Fields["categories"])
	var tree kernel.Page[db.Category]
	_ = s.op(r.Context(), uid, "list_categories", map[string]any{"per_page": 100}, &tree)
	for _, c := range tree.Items {
		f.Categories = append(f.Categories, catOption{Name: c.Name, Label: c.Name})
		for _, sc := range c.Subcategories {
			f.Categories = append(f.Categories, catOption{Name: sc.Name, Label: c.Name + " › " + sc.Name, Sub: true})
		}
	}
	for i := range f.Categories {
		for j, name := range current {
			if strings.EqualFold(name, f.Categories[i].Name) {
				f.Categories[i].Primary, f.Categories[i].More = j == 0, j > 0
			}
		}
	}
	for _, c := range d.D.CategorySuggestions {
		sc := suggestedCategory{Name: c.Name, Chosen: len(current) > 0 && strings.EqualFold(current[0], c.Name)}
		if len(c.Evidence) > 0 {
			sc.URL, sc.Quote = c.Evidence[0].URL, c.Evidence[0].Quote
			sc.Page = foundOn(c.Evidence[0].URL)
		}
		f.Suggested = append(f.Suggested, sc)
	}
	f.Preview = db.Summary{Name: textOf(d.D.Fields["name"]), Tagline: textOf(d.D.Fields["tagline"]), Status: "live"}
	if len(current) > 0 {
		f.Preview.Category = &db.CategoryRef{Name: current[0]}
	}
	switch {
	case d.D.Status == "failed":
		f.Next = "We could not read your site, so nothing was filled in for you. Type in at least the product name below, save, then save it as your listing."
	case d.D.ListingID != nil:
		f.Next = "This draft is your listing already: every save here updates it. Next: choose how to launch it on your listing's page."
	default:
		f.Next = "Check the values below, change what is wrong and save. Next: save it as your listing (nothing is published yet)."
	}
	d.Form = f
}

func (s *Site) formField(d *myDraftData, df draftField, info fieldInfo) formField {
	ff := formField{Name: df.Name, Label: info.Label, Help: info.Help, Text: df.Text, List: df.List,
		Long: df.List || df.Name == "description" || df.Name == "short_description"}
	if fl := df.Field; fl != nil {
		ff.State, ff.StateWord = fl.State, stateWords[fl.State]
		for _, e := range fl.Evidence {
			ff.Evidence = append(ff.Evidence, evidenceView{Page: foundOn(e.URL), URL: e.URL, Quote: e.Quote})
		}
		ready := d.D.Status == "ready"
		ff.CanRestore = fl.AIValue != nil && (fl.State == "edited" || fl.State == "deleted" || fl.State == "override")
		ff.CanLock = fl.State != "override" && fl.Value != nil
		ff.CanRedraft = ready && (fl.State == "ai" || fl.State == "not_found")
	}
	return ff
}

func textOf(f *drafting.Field) string {
	if f == nil {
		return ""
	}
	return fieldText(f.Value)
}

func fieldLines(f *drafting.Field) []string {
	var out []string
	for _, l := range strings.Split(textOf(f), "\n") {
		if l = strings.TrimSpace(l); l != "" {
			out = append(out, l)
		}
	}
	return out
}

// splitLines reads a list box: one item a line, blank lines dropped.
func splitLines(s string) []string {
	out := []string{}
	for _, l := range strings.Split(kernel.NormalizeText(s), "\n") {
		if l = strings.TrimSpace(l); l != "" {
			out = append(out, l)
		}
	}
	return out
}

// changes turns the one form into one update_draft call: only what differs
// from the draft as it is now is sent.
func changes(d *myDraftData, f url.Values) map[string]any {
	args := map[string]any{}
	fields := map[string]any{}
	for _, df := range d.Fields {
		key := "v-" + df.Name
		if _, sent := f[key]; !sent || df.Name == "categories" {
			continue
		}
		typed := kernel.NormalizeText(f.Get(key))
		if df.List {
			items := splitLines(typed)
			if strings.Join(items, "\n") != strings.Join(fieldLines(df.Field), "\n") {
				fields[df.Name] = toAny(items)
			}
			continue
		}
		if strings.TrimSpace(typed) == strings.TrimSpace(df.Text) {
			continue
		}
		if strings.TrimSpace(typed) == "" {
			fields[df.Name] = nil // an emptied box removes the value
		} else {
			fields[df.Name] = strings.TrimSpace(typed)
		}
	}
	if _, sent := f["cat-primary"]; sent {
		cats := []string{}
		p := f.Get("cat-primary")
		// A suggestion's button makes it the main category in the same
		// save, so what was typed elsewhere on the form is kept.
		if act, name, ok := strings.Cut(f.Get("act"), ":"); ok && act == "primary" && name != "" {
			p = name
		}
		if p != "" {
			cats = append(cats, p)
		}
		for _, c := range f["cat-more"] {
			if c != "" && !slices.Contains(cats, c) {
				cats = append(cats, c)
			}
		}
		if strings.Join(cats, "\n") != strings.Join(fieldLines(d.D.Fields["categories"]), "\n") {
			fields["categories"] = toAny(cats)
		}
	}
	if len(fields) > 0 {
		args["fields"] = fields
	}
	formParts(d, f, args)
	return args
}

func toAny(list []string) []any {
	out := make([]any, len(list))
	for i, v := range list {
		out[i] = v
	}
	return out
}

// formParts adds the FAQs, founders, links, story and SEO that changed.
func formParts(d *myDraftData, f url.Values, args map[string]any) {
	if _, sent := f["faq-q"]; sent {
		var typed []drafting.DraftFAQ
		for i, q := range f["faq-q"] {
			q, a := strings.TrimSpace(q), strings.TrimSpace(kernel.NormalizeText(pick(f["faq-a"], i)))
			if q != "" || a != "" {
				typed = append(typed, drafting.DraftFAQ{Question: q, Answer: a})
			}
		}
		if faqKey(typed) != faqKey(d.D.FAQs) {
			list := []any{}
			for _, x := range typed {
				list = append(list, map[string]any{"question": x.Question, "answer": x.Answer})
			}
			args["faqs"] = list
		}
	}
	if _, sent := f["fo-name"]; sent {
		var typed []drafting.DraftFounder
		for i, n := range f["fo-name"] {
			if n = strings.TrimSpace(n); n != "" {
				typed = append(typed, drafting.DraftFounder{Name: n, Title: pick(f["fo-title"], i), Bio: kernel.NormalizeText(pick(f["fo-bio"], i))})
			}
		}
		if founderKey(typed) != founderKey(d.D.Founders) {
			list := []any{} // sent without socials: each keeps their links (PATCH)
			for _, x := range typed {
				list = append(list, map[string]any{"name": x.Name, "title": x.Title, "bio": x.Bio})
			}
			args["founders"] = list
		}
	}
	for prefix, part := range map[string]string{"c-": "company_socials", "p-": "founder_socials"} {
		if _, sent := f[prefix+kernel.SocialPlatforms[0]]; !sent {
			continue
		}
		typed := map[string]any{}
		for _, p := range kernel.SocialPlatforms {
			if v := strings.TrimSpace(f.Get(prefix + p)); v != "" {
				typed[p] = v
			}
		}
		current := d.D.CompanySocials
		if part == "founder_socials" {
			current = d.D.FounderSocials
		}
		if fmt.Sprint(typed) != fmt.Sprint(anyMap(current)) {
			args[part] = typed
		}
	}
	story := map[string]any{}
	for key := range storyLabels {
		if v, sent := f["st-"+key]; sent && strings.TrimSpace(kernel.NormalizeText(v[0])) != strings.TrimSpace(d.D.Story[key]) {
			story[key] = strings.TrimSpace(kernel.NormalizeText(v[0]))
		}
	}
	if len(story) > 0 {
		args["story"] = story
	}
	seo := map[string]any{}
	for form, key := range map[string]string{"seo-title": "title", "seo-meta": "meta"} {
		if v, sent := f[form]; sent && strings.TrimSpace(v[0]) != d.D.SEO[key] {
			seo[key] = strings.TrimSpace(kernel.NormalizeText(v[0]))
		}
	}
	if len(seo) > 0 {
		args["seo"] = seo
	}
	if v, sent := f["competitor"]; sent && strings.TrimSpace(v[0]) != d.D.CompetitorURL {
		args["competitor_url"] = strings.TrimSpace(v[0])
	}
}

func anyMap(m map[string]string) map[string]any {
	out := map[string]any{}
	for k, v := range m {
		out[k] = v
	}
	return out
}

func faqKey(list []drafting.DraftFAQ) string {
	var b strings.Builder
	for _, x := range list {
		b.WriteString(x.Question + "\x00" + x.Answer + "\x01")
	}
	return b.String()
}

func founderKey(list []drafting.DraftFounder) string {
	var b strings.Builder
	for _, x := range list {
		b.WriteString(x.Name + "\x00" + x.Title + "\x00" + x.Bio + "\x01")
	}
	return b.String()
}

// myDraftSave saves the one form (and runs the field action pressed, if
// any: use the site's wording, lock, draft again).
func (s *Site) myDraftSave(w http.ResponseWriter, r *http.Request, ps httprouter.Params, uid int64) {
	id := ps.ByName("id")
	d, err := s.loadDraft(r, uid, id)
	if err != nil {
		s.areaError(w, r, uid, err)
		return
	}
	args := changes(d, r.PostForm)
	if act, name, ok := strings.Cut(r.PostFormValue("act"), ":"); ok && name != "" {
		key := map[string]string{"restore": "restore", "lock": "lock_fields", "redraft": "regenerate"}[act]
		if key != "" {
			args[key] = []any{name}
		}
	}
	if len(args) == 0 {
		http.Redirect(w, r, "/me/drafts/"+id+"?done=unchanged", http.StatusSeeOther)
		return
	}
	args["id"] = id
	var out drafting.Draft
	if err := s.op(r.Context(), uid, "update_draft", args, &out); err != nil {
		s.draftRefusal(w, r, uid, id, err, func(d *myDraftData) { keepTyped(d, r.PostForm) })
		return
	}
	q := url.Values{"done": {"draft"}}
	for _, w := range out.Warnings {
		q.Add("warn", w)
	}
	http.Redirect(w, r, "/me/drafts/"+id+"?"+q.Encode(), http.StatusSeeOther)
}

// keepTyped shows what was typed again when a save is refused.
func keepTyped(d *myDraftData, f url.Values) {
	for i, df := range d.Fields {
		if v, sent := f["v-"+df.Name]; sent {
			d.Fields[i].Text = v[0]
		}
	}
	if d.D.Story == nil {
		d.D.Story = map[string]string{}
	}
	for key := range storyLabels {
		if v, sent := f["st-"+key]; sent {
			d.D.Story[key] = v[0]
		}
	}
	for form, key := range map[string]string{"seo-title": "title", "seo-meta": "meta"} {
		if v, sent := f[form]; sent {
			d.D.SEO[key] = v[0]
		}
	}
	if v, sent := f["competitor"]; sent {
		d.D.CompetitorURL = v[0]
	}
	if _, sent := f["faq-q"]; sent {
		d.FAQRows = nil
		for i, q := range f["faq-q"] {
			d.FAQRows = append(d.FAQRows, drafting.DraftFAQ{Question: q, Answer: pick(f["faq-a"], i)})
		}
	}
	if _, sent := f["fo-name"]; sent {
		d.Founders = nil
		for i, n := range f["fo-name"] {
			d.Founders = append(d.Founders, drafting.DraftFounder{Name: n, Title: pick(f["fo-title"], i), Bio: pick(f["fo-bio"], i)})
		}
	}
	d.CompanySocials = typedLinks(f, "c-")
	d.FounderSocials = typedLinks(f, "p-")
}

func typedLinks(f url.Values, prefix string) []socialLink {
	links := map[string]string{}
	for _, p := range kernel.SocialPlatforms {
		links[p] = f.Get(prefix + p)
	}
	return socialRows(prefix, links)
}

// draftPreview is the listing page as the draft would make it.
type draftPreview struct {
	D         *drafting.Draft
	Values    map[string]string   // text fields; categories joined
	Lists     map[string][]string // features, usps
	StoryText bool
}

// myDraftPreview shows the listing page the draft would make (read only).
func (s *Site) myDraftPreview(w http.ResponseWriter, r *http.Request, ps httprouter.Params, uid int64) {
	d, err := s.loadDraft(r, uid, ps.ByName("id"))
	if err != nil {
		s.areaError(w, r, uid, err)
		return
	}
	p := draftPreview{D: d.D, Values: map[string]string{}, Lists: map[string][]string{}}
	for _, df := range d.Fields {
		if df.List {
			p.Lists[df.Name] = fieldLines(df.Field)
		} else {
			p.Values[df.Name] = strings.TrimSpace(df.Text)
		}
	}
	p.Values["categories"] = strings.Join(p.Lists["categories"], " · ")
	p.StoryText = strings.TrimSpace(d.D.Story["title"]+d.D.Story["story"]) != ""
	title := "Preview"
	if n := p.Values["name"]; n != "" {
		title = "Preview: " + n
	}
	s.renderArea(w, r, "founder_draft_preview", title, http.StatusOK, uid, p, "")
}
