package drafting

import (
	"context"
	"database/sql"
	"fmt"
	"maps"
	"slices"
	"strconv"
	"strings"

	"launchdir/app/kernel"
	"launchdir/crawl"
	"launchdir/db"
	"launchdir/ops"
)

type updateDraftInput struct {
	Fields         map[string]any    `json:"fields"`
	LockFields     []string          `json:"lock_fields"`
	Regenerate     []string          `json:"regenerate"`
	Restore        []string          `json:"restore"`
	FAQs           []DraftFAQ        `json:"faqs"`
	CompanySocials map[string]string `json:"company_socials"`
	FounderSocials map[string]string `json:"founder_socials"`
	Founders       []DraftFounder    `json:"founders"`
	Story          map[string]string `json:"story"`
	Milestones     []db.Milestone    `json:"milestones"`
	CompetitorURL  *string           `json:"competitor_url"`
	SEO            map[string]string `json:"seo"`
}

func (a *Service) updateDraft(ctx context.Context, in *ops.Input) (any, error) {
	var req updateDraftInput
	if err := in.Decode(&req); err != nil {
		return nil, err
	}
	if err := a.checkDraftCategories(ctx, req.Fields); err != nil {
		return nil, err
	}
	var (
		r     *draftRow
		regen []string
		out   *Draft
	)
	err := a.DB.Tx(ctx, func(tx *sql.Tx) error {
		var err error
		if r, err = a.access(ctx, tx, in.Principal, in.Str("id")); err != nil {
			return err
		}
		if len(req.Regenerate) > 0 && r.status != draftReady {
			return ops.Invalid("regenerate", "the draft is %s; regenerate works on a ready draft", r.status)
		}
		applyDraftEdits(r.data, &req, in)
		if regen = unlocked(r.data, req.Regenerate); len(regen) > 0 {
			r.status = draftDrafting
		}
		if err := a.saveDraft(ctx, tx, r); err != nil {
			return err
		}
		if err := a.syncSubmitted(ctx, tx, r, in.UserID(), "update_draft", editScope(&req, in)); err != nil {
			return err
		}
		// The response is the draft as saved (status drafting while a
		// regeneration is queued): stored with the edit, the queueing
		// after the commit does not change it.
		out = a.view(ctx, r)
		return kernel.RespondInTx(ctx, tx, out)
	})
	if err != nil {
		return nil, err
	}
	if len(regen) > 0 {
		a.enqueueDraft(draftJob{id: r.id, regenerate: regen})
	}
	return out, nil
}

// editScope is what an update_draft changed, for the listing sync.
func editScope(req *updateDraftInput, in *ops.Input) syncScope {
	s := syncScope{fields: map[string]bool{}, parts: map[string]bool{}}
	for name := range req.Fields {
		s.fields[name] = true
	}
	for _, name := range req.Restore {
		s.fields[name] = true
	}
	for _, part := range []string{"faqs", "founders", "company_socials", "story", "milestones", "seo"} {
		if in.Has(part) {
			s.parts[part] = true
		}
	}
	if in.Has("founder_socials") {
		s.parts["founders"] = true
	}
	// Sections that are objects of named fields change only the names sent.
	s.keys = map[string][]string{"story": slices.Sorted(maps.Keys(req.Story)), "seo": slices.Sorted(maps.Keys(req.SEO))}
	return s
}

// unlocked drops locked fields from a regenerate list: regenerate never
// touches fields in state override.
func unlocked(d *draftData, names []string) []string {
	out := []string{}
	for _, n := range names {
		if d.Fields[n].State != stateOverride {
			out = append(out, n)
		}
	}
	return out
}

// applyDraftEdits applies an update in spec order: typed values, then
// restore, then locks; sub-objects replace what they name.
func applyDraftEdits(d *draftData, req *updateDraftInput, in *ops.Input) {
	for _, name := range slices.Sorted(maps.Keys(req.Fields)) {
		if y, ok := req.Fields[name].(float64); ok && name == "founded_year" {
			req.Fields[name] = strconv.Itoa(int(y)) // kept as drafted: text
		}
		if s, ok := req.Fields[name].(string); ok {
			req.Fields[name] = kernel.NormalizeText(s) // a form's CRLF is not a change
		}
		setTypedField(d.Fields[name], req.Fields[name])
	}
	for _, name := range req.Restore {
		f := d.Fields[name]
		if f.AIValue == nil {
			f.Value, f.State, f.Evidence = nil, stateNotFound, []crawl.Evidence{}
		} else {
			f.Value, f.State, f.Evidence = f.AIValue, stateAI, orEvidence(d.AIEvidence[name])
		}
	}
	for _, name := range req.LockFields {
		d.Fields[name].State = stateOverride
	}
	if in.Has("faqs") {
		d.FAQs = orFAQs(req.FAQs)
	}
	if in.Has("founders") {
		d.Founders = keepFounderSocials(founderList(req.Founders), req.Founders, d.Founders)
	}
	if in.Has("founder_socials") {
		if len(d.Founders) == 0 {
			d.Founders = []DraftFounder{{Socials: map[string]string{}, Evidence: []crawl.Evidence{}}}
		}
		d.Founders[0].Socials = orMap(req.FounderSocials)
	}
	if in.Has("company_socials") {
		d.CompanySocials = orMap(req.CompanySocials)
	}
	if in.Has("story") { // PATCH: the sections sent change, the others stay
		d.Story = orMap(d.Story)
		for k, v := range req.Story {
			d.Story[k] = kernel.NormalizeText(v)
		}
	}
	if in.Has("milestones") {
		d.Milestones = req.Milestones
		if d.Milestones == nil {
			d.Milestones = []db.Milestone{}
		}
	}
	if req.CompetitorURL != nil {
		d.CompetitorURL = *req.CompetitorURL
	}
	if in.Has("seo") {
		for k, v := range req.SEO {
			d.SEO[k] = v
		}
	}
}

// setTypedField: null removes (deleted); a typed value over an AI value is
// edited, over nothing manual; a locked field stays locked.
func setTypedField(f *Field, v any) {
	if v == nil {
		f.Value, f.Evidence = nil, []crawl.Evidence{}
		if f.State != stateOverride {
			f.State = stateDeleted
		}
		return
	}
	f.Value, f.Evidence = v, []crawl.Evidence{}
	if f.State == stateOverride {
		return
	}
	if f.AIValue != nil {
		f.State = stateEdited
	} else {
		f.State = stateManual
	}
}

// keepFounderSocials: a founder sent without "socials" keeps the links the
// draft had for them (the same name, ignoring case), so replacing the
// founders list to fix a title does not erase their socials; "socials": {}
// clears them.
func keepFounderSocials(out, sent, old []DraftFounder) []DraftFounder {
	for i := range out {
		if sent[i].Socials != nil {
			continue
		}
		for _, o := range old {
			if strings.EqualFold(strings.TrimSpace(o.Name), strings.TrimSpace(out[i].Name)) && len(o.Socials) > 0 {
				out[i].Socials = maps.Clone(o.Socials)
				break
			}
		}
	}
	return out
}

func orMap(m map[string]string) map[string]string {
	if m == nil {
		return map[string]string{}
	}
	return m
}

func orFAQs(f []DraftFAQ) []DraftFAQ {
	out := []DraftFAQ{}
	for _, x := range f {
		x.Evidence = []crawl.Evidence{}
		out = append(out, x)
	}
	return out
}

func founderList(fs []DraftFounder) []DraftFounder {
	out := []DraftFounder{}
	for _, f := range fs {
		if f.Socials == nil {
			f.Socials = map[string]string{}
		}
		f.Evidence = []crawl.Evidence{}
		out = append(out, f)
	}
	return out
}

// checkDraftCategories requires category names from list_categories.
func (a *Service) checkDraftCategories(ctx context.Context, fields map[string]any) error {
	list, ok := fields["categories"].([]any)
	if !ok {
		return nil
	}
	names, err := a.categoryNames(ctx)
	if err != nil {
		return err
	}
	bySlug, err := a.categoryNamesBySlug(ctx)
	if err != nil {
		return err
	}
	var bad []ops.FieldError
	for i, c := range list {
		if name, ok := bySlug[strings.ToLower(c.(string))]; ok {
			list[i] = name // a slug, as orders take them: drafts keep names
			continue
		}
		if !containsFold(names, c.(string)) {
			bad = append(bad, ops.FieldError{Field: fmt.Sprintf("fields.categories[%d]", i), Message: "not a category name or slug from list_categories"})
		}
	}
	if len(bad) > 0 {
		return ops.InvalidFields(bad)
	}
	return nil
}

func containsFold(list []string, s string) bool {
	for _, x := range list {
		if strings.EqualFold(x, s) {
			return true
		}
	}
	return false
}

// categoryNamesBySlug maps every category slug to its name.
func (a *Service) categoryNamesBySlug(ctx context.Context) (map[string]string, error) {
	rows, err := a.DB.R.QueryContext(ctx, `SELECT slug, name FROM categories`)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	out := map[string]string{}
	for rows.Next() {
		var slug, name string
		if err := rows.Scan(&slug, &name); err != nil {
			return nil, err
		}
		out[slug] = name
	}
	return out, rows.Err()
}
