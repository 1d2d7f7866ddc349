package site

import (
	"encoding/json"
	"fmt"
	"net/http"
	"strings"

	"launchdir/app/drafting"
	"launchdir/app/kernel"
	"launchdir/ops"
	"launchdir/routes"

	"github.com/julienschmidt/httprouter"
)

// Submit by URL and draft review: the same operations as POST /drafts,
// GET/PATCH /drafts/{id} and POST /drafts/{id}/submit. While the site is
// read the draft page shows the pages read so far and polls a small JSON
// progress address (static/founder_draft.js); it is a plain page, so a
// reload (or no JavaScript and the Refresh link) shows the same state.

func (s *Site) mountFounderDrafts(srv *routes.Server) {
	get, post := s.areaRoutes(srv, false)
	get("/me/drafts", s.myDrafts)
	post("/me/drafts", s.mySubmitURL)
	get("/me/drafts/:id", s.myDraft)
	get("/me/drafts/:id/progress", s.myDraftProgress)
	get("/me/drafts/:id/preview", s.myDraftPreview)
	post("/me/drafts/:id/field", s.myDraftField)
	post("/me/drafts/:id/invite", s.myDraftInvite)
	post("/me/drafts/:id/more", s.myDraftMore)
	post("/me/drafts/:id/submit", s.myDraftSubmit)
	post("/me/drafts/:id/save", s.myDraftSave)
}

type myDraftsData struct {
	kernel.Page[drafting.Draft]
	Pager *Pager
	URL   string
}

func (s *Site) draftsPage(w http.ResponseWriter, r *http.Request, uid int64, status int, typed, errMsg string) {
	var d myDraftsData
	if err := s.op(r.Context(), uid, "list_my_drafts", pageArgsAny(r), &d.Page); err != nil {
		s.areaError(w, r, uid, err)
		return
	}
	d.Pager, d.URL = newPager(r, d.Page.Page, d.PerPage, d.Total), typed
	s.renderArea(w, r, "founder_drafts", "Your drafts", status, uid, d, errMsg)
}

func (s *Site) myDrafts(w http.ResponseWriter, r *http.Request, _ httprouter.Params, uid int64) {
	s.draftsPage(w, r, uid, http.StatusOK, "", "")
}

func (s *Site) mySubmitURL(w http.ResponseWriter, r *http.Request, _ httprouter.Params, uid int64) {
	u := strings.TrimSpace(r.PostFormValue("url"))
	var d drafting.Draft
	if err := s.op(r.Context(), uid, "submit_listing", map[string]any{"url": u}, &d); err != nil {
		e := ops.AsError(err)
		if e.Code == ops.CodeInternal || e.Code == ops.CodeUnauthorized {
			s.areaError(w, r, uid, err)
			return
		}
		s.draftsPage(w, r, uid, e.Code.Status(), u, e.Detail)
		return
	}
	http.Redirect(w, r, "/me/drafts/"+d.ID, http.StatusSeeOther)
}

type draftField struct {
	Name  string
	List  bool
	Text  string // the value as typed in the form (lists one per line)
	Field *drafting.Field
}

type myDraftData struct {
	D        *drafting.Draft
	Fields   []draftField
	FAQRows  []drafting.DraftFAQ     // the FAQs plus empty rows, 5 in all
	Founders []drafting.DraftFounder // the founders plus one empty row, at most 6
	Story    []storyPart
	// CompanySocials and FounderSocials (the primary founder's) are the
	// social link forms.
	CompanySocials, FounderSocials []socialLink
	Working                        bool
	Crawl                          drafting.DraftCrawl // current page, robots decisions // crawling or drafting
	Read                           int
	Planned                        int
	// Form is the one form of the page (founder_draft_form.go).
	Form *draftForm
	// Warnings say what the last save did not keep and why.
	Warnings []string
}

func (s *Site) loadDraft(r *http.Request, uid int64, id string) (*myDraftData, error) {
	var d drafting.Draft
	if err := s.op(r.Context(), uid, "get_draft", map[string]any{"id": id}, &d); err != nil {
		return nil, err
	}
	out := &myDraftData{D: &d, Working: d.Status == "crawling" || d.Status == "drafting"}
	out.Read, out.Planned = s.App.Drafting.DraftProgress(d.ID)
	out.Crawl = s.App.Drafting.DraftCrawlDetail(r.Context(), d.ID)
	if !out.Working || out.Read < len(d.PagesRead) {
		out.Read = len(d.PagesRead) // the worker's counter ends with the job
	}
	for _, f := range drafting.DraftFields() {
		df := draftField{Name: f.Name, List: f.List, Field: d.Fields[f.Name]}
		if df.Field != nil {
			df.Text = fieldText(df.Field.Value)
		}
		out.Fields = append(out.Fields, df)
	}
	out.FAQRows = append(out.FAQRows, d.FAQs...)
	for len(out.FAQRows) < 5 {
		out.FAQRows = append(out.FAQRows, drafting.DraftFAQ{})
	}
	out.Founders = append(out.Founders, d.Founders...)
	if len(out.Founders) < 6 {
		out.Founders = append(out.Founders, drafting.DraftFounder{})
	}
	out.CompanySocials, out.FounderSocials = socialRows("c-", d.CompanySocials), socialRows("p-", d.FounderSocials)
	out.Story = append(out.Story, storyPart{Name: "title", Value: d.Story["title"]})
	for _, sec := range kernel.StorySections() {
		out.Story = append(out.Story, storyPart{Name: sec, Value: d.Story[sec], Long: true})
	}
	return out, nil
}

type storyPart struct {
	Name, Value string
	Long        bool
}

// myDraftMore saves one of the draft's other parts: FAQs, founders, story
// or SEO and competitor (update_draft's faqs, founders, story, seo,
// competitor_url; each replaces what was there).
func (s *Site) myDraftMore(w http.ResponseWriter, r *http.Request, ps httprouter.Params, uid int64) {
	id := ps.ByName("id")
	args := map[string]any{"id": id}
	f := r.PostForm
	switch f.Get("section") {
	case "faqs":
		faqs := []any{}
		for i := range f["question"] {
			q, a := strings.TrimSpace(f["question"][i]), ""
			if i < len(f["answer"]) {
				a = strings.TrimSpace(f["answer"][i])
			}
			if q != "" || a != "" {
				faqs = append(faqs, map[string]any{"question": q, "answer": a})
			}
		}
		args["faqs"] = faqs
	case "founders":
		d, err := s.loadDraft(r, uid, id)
		if err != nil {
			s.areaError(w, r, uid, err)
			return
		}
		founders := []any{}
		for i := range f["name"] {
			name := strings.TrimSpace(f["name"][i])
			if name == "" {
				continue
			}
			fd := map[string]any{"name": name, "title": pick(f["title"], i), "bio": pick(f["bio"], i)}
			if i < len(d.D.Founders) && len(d.D.Founders[i].Socials) > 0 {
				links := map[string]any{} // kept: the page does not edit links
				for k, v := range d.D.Founders[i].Socials {
					links[k] = v
				}
				fd["socials"] = links
			}
			founders = append(founders, fd)
		}
		args["founders"] = founders
	case "story":
		story := map[string]any{"title": f.Get("title")}
		for _, sec := range kernel.StorySections() {
			story[sec] = f.Get(sec)
		}
		args["story"] = story
	case "socials":
		args["company_socials"], args["founder_socials"] = socialsForm(r, "c-"), socialsForm(r, "p-")
	case "seo":
		args["seo"] = map[string]any{"title": f.Get("seo_title"), "meta": f.Get("seo_meta")}
		args["competitor_url"] = strings.TrimSpace(f.Get("competitor_url"))
	default:
		s.areaError(w, r, uid, ops.Invalid("section", "must be faqs, founders, socials, story or seo"))
		return
	}
	if err := s.op(r.Context(), uid, "update_draft", args, nil); err != nil {
		s.draftRefusal(w, r, uid, id, err, func(d *myDraftData) {
			if f.Get("section") == "socials" {
				d.CompanySocials, d.FounderSocials = typedSocials(r, "c-"), typedSocials(r, "p-")
			}
		})
		return
	}
	http.Redirect(w, r, "/me/drafts/"+id+"?done=draft#"+f.Get("section"), http.StatusSeeOther)
}

func pick(list []string, i int) string {
	if i < len(list) {
		return strings.TrimSpace(list[i])
	}
	return ""
}

// fieldText shows a draft value in a form: lists one item a line.
func fieldText(v any) string {
	switch x := v.(type) {
	case nil:
		return ""
	case string:
		return x
	case []any:
		parts := make([]string, len(x))
		for i, p := range x {
			parts[i] = fmt.Sprint(p)
		}
		return strings.Join(parts, "\n")
	case float64:
		return fmt.Sprintf("%.0f", x)
	}
	return fmt.Sprint(v)
}

func (s *Site) myDraft(w http.ResponseWriter, r *http.Request, ps httprouter.Params, uid int64) {
	d, err := s.loadDraft(r, uid, ps.ByName("id"))
	if err != nil {
		s.areaError(w, r, uid, err)
		return
	}
	d.Warnings = r.URL.Query()["warn"]
	s.buildForm(r, uid, d)
	s.renderArea(w, r, "founder_draft", "Review your draft", http.StatusOK, uid, d, "")
}

// myDraftProgress is what the page polls while the site is read.
func (s *Site) myDraftProgress(w http.ResponseWriter, r *http.Request, ps httprouter.Params, uid int64) {
	d, err := s.loadDraft(r, uid, ps.ByName("id"))
	if err != nil {
		w.Header().Set("Cache-Control", "no-store")
		http.Error(w, `{"error":"not found"}`, http.StatusNotFound)
		return
	}
	w.Header().Set("Content-Type", "application/json")
	w.Header().Set("Cache-Control", "no-store")
	json.NewEncoder(w).Encode(map[string]any{"status": d.D.Status, "pages_read": d.Read, "pages_planned": d.Planned,
		"pages": d.D.PagesRead, "current_page": d.Crawl.Current, "robots_disallowed": d.Crawl.Disallowed})
}

// myDraftField edits one field: save the typed value, lock, restore or
// regenerate it (update_draft's fields, lock_fields, restore, regenerate).
func (s *Site) myDraftField(w http.ResponseWriter, r *http.Request, ps httprouter.Params, uid int64) {
	id, name := ps.ByName("id"), r.PostFormValue("field")
	args := map[string]any{"id": id}
	switch r.PostFormValue("do") {
	case "save":
		var v any = r.PostFormValue("value")
		for _, f := range drafting.DraftFields() {
			if f.Name == name && f.List {
				items := []any{}
				for _, line := range strings.Split(v.(string), "\n") {
					if line = strings.TrimSpace(line); line != "" {
						items = append(items, line)
					}
				}
				v = items
			}
		}
		if s, ok := v.(string); ok && strings.TrimSpace(s) == "" {
			v = nil // an empty value removes the field
		}
		args["fields"] = map[string]any{name: v}
	case "lock":
		args["lock_fields"] = []any{name}
	case "restore":
		args["restore"] = []any{name}
	case "regenerate":
		args["regenerate"] = []any{name}
	default:
		s.areaError(w, r, uid, ops.Invalid("do", "must be save, lock, restore or regenerate"))
		return
	}
	if err := s.op(r.Context(), uid, "update_draft", args, nil); err != nil {
		s.draftRefusal(w, r, uid, id, err)
		return
	}
	http.Redirect(w, r, "/me/drafts/"+id+"?done=draft#f-"+name, http.StatusSeeOther)
}

func (s *Site) draftRefusal(w http.ResponseWriter, r *http.Request, uid int64, id string, err error, edit ...func(*myDraftData)) {
	e := ops.AsError(err)
	if e.Code == ops.CodeNotFound || e.Code == ops.CodeInternal {
		s.areaError(w, r, uid, err)
		return
	}
	d, lerr := s.loadDraft(r, uid, id)
	if lerr != nil {
		s.areaError(w, r, uid, lerr)
		return
	}
	for _, f := range edit {
		f(d)
	}
	s.buildForm(r, uid, d)
	msg := e.Detail
	for _, f := range e.Fields {
		if !strings.Contains(msg, f.Message) {
			msg += "; " + f.Field + ": " + f.Message
		}
	}
	s.renderArea(w, r, "founder_draft", "Review your draft", e.Code.Status(), uid, d, msg)
}

func (s *Site) myDraftInvite(w http.ResponseWriter, r *http.Request, ps httprouter.Params, uid int64) {
	id := ps.ByName("id")
	if err := s.op(r.Context(), uid, "invite_cofounder", map[string]any{"id": id, "email": strings.TrimSpace(r.PostFormValue("email"))}, nil); err != nil {
		s.draftRefusal(w, r, uid, id, err)
		return
	}
	http.Redirect(w, r, "/me/drafts/"+id+"?done=invited", http.StatusSeeOther)
}

func (s *Site) myDraftSubmit(w http.ResponseWriter, r *http.Request, ps httprouter.Params, uid int64) {
	id := ps.ByName("id")
	var res drafting.SubmittedDraft
	if err := s.op(r.Context(), uid, "submit_draft", map[string]any{"id": id}, &res); err != nil {
		s.draftRefusal(w, r, uid, id, err)
		return
	}
	http.Redirect(w, r, fmt.Sprintf("/me/listings/%d?done=submitted", res.ListingID), http.StatusSeeOther)
}
