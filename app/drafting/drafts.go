package drafting

import (
	"context"
	"database/sql"
	"encoding/json"
	"fmt"
	"strconv"
	"strings"
	"time"

	"launchdir/app/kernel"
	"launchdir/crawl"
	"launchdir/db"
	"launchdir/ops"
)

// Draft statuses:
//   - crawling: the job is stored; the crawler reads the site
//   - drafting: pages are read; the drafter builds the profile (also while
//     regenerate redrafts fields)
//   - ready: the profile can be reviewed, edited and submitted
//   - failed: the site could not be read; failure says why and what to do
const (
	draftCrawling = "crawling"
	draftDrafting = "drafting"
	draftReady    = "ready"
	draftFailed   = "failed"
)

// Field states of spec section 3.
const (
	stateAI       = "ai"
	stateNotFound = "not_found"
	stateEdited   = "edited"
	stateManual   = "manual"
	stateOverride = "override"
	stateDeleted  = "deleted"
)

// profileFields are the draft profile fields (spec section 2) with their
// maximum string length; list fields hold up to 20 strings of 200.
var profileFields = []struct {
	Name string
	Max  int
	List bool
}{
	{"name", 500, false}, {"tagline", 500, false}, {"short_description", 500, false}, {"description", 20000, false},
	{"stage", 500, false}, {"pricing_model", 500, false}, {"pricing_summary", 500, false}, {"country", 500, false},
	{"city", 500, false}, {"founded_year", 500, false}, {"contact_email", 500, false}, {"demo_video_url", 500, false},
	{"logo_url", 500, false}, {"categories", 200, true}, {"tags", 200, true}, {"features", 200, true},
	{"usps", 200, true}, {"keywords", 200, true},
}

func profileFieldNames() []string {
	out := make([]string, len(profileFields))
	for i, f := range profileFields {
		out[i] = f.Name
	}
	return out
}

// DraftFailure says why a draft failed and what to do.
type DraftFailure struct {
	Kind   string `json:"kind" doc:"dns, tls, connect, timeout, robots_disallowed, http_status, not_html, blocked_address, too_large, no_content or internal."`
	Reason string `json:"reason"`
}

// Field is one profile field of a draft.
type Field struct {
	Value    any              `json:"value" anyof:"string,integer,array,null" doc:"Text, a list of strings for list fields, an integer for founded_year; null when empty."`
	State    string           `json:"state" enum:"ai,not_found,edited,manual,override,deleted"`
	Evidence []crawl.Evidence `json:"evidence"`
	// AIValue and AIEvidence keep what the drafter found, for restore.
	AIValue    any              `json:"ai_value" anyof:"string,integer,array,null" doc:"What the drafter found (restore brings it back)."`
	AIEvidence []crawl.Evidence `json:"-"`
}

// DraftFounder is a founder of a draft.
type DraftFounder struct {
	Name     string           `json:"name"`
	Title    string           `json:"title"`
	Bio      string           `json:"bio"`
	Socials  db.Socials       `json:"socials"`
	Evidence []crawl.Evidence `json:"evidence"`
}

// DraftFAQ is a question and answer, with evidence when drafted.
type DraftFAQ struct {
	Question string           `json:"question"`
	Answer   string           `json:"answer"`
	Evidence []crawl.Evidence `json:"evidence"`
}

// draftData is what drafts.data stores.
type draftData struct {
	Fields         map[string]*Field           `json:"fields"`
	AIEvidence     map[string][]crawl.Evidence `json:"ai_evidence"`
	FAQs           []DraftFAQ                  `json:"faqs"`
	Founders       []DraftFounder              `json:"founders"`
	CompanySocials map[string]string           `json:"company_socials"`
	SocialEvidence map[string][]crawl.Evidence `json:"social_evidence"`
	Story          map[string]string           `json:"story"`
	Milestones     []db.Milestone              `json:"milestones"`
	CompetitorURL  string                      `json:"competitor_url"`
	SEO            map[string]string           `json:"seo"`
	Dropped        []string                    `json:"dropped_by_guard"`
	// RobotsDisallowed are the planned pages robots.txt did not allow
	// (the founder's draft page shows them).
	RobotsDisallowed []string `json:"robots_disallowed,omitempty"`
	// warnings say what the last submit or sync did not keep and why
	// (categories over the contract's rule); shown in that response only.
	warnings []string
	// Logo is the drafter's logo, fetched and stored (or one the founder
	// uploaded instead); nil when there is none or it was removed.
	Logo *DraftLogo `json:"logo,omitempty"`
	// CategorySuggestions are the drafter's best categories of the tree
	// (crawl's classifier: at most 3, best first), kept for the founder to
	// choose from even after the categories field is edited.
	CategorySuggestions []CategorySuggestion `json:"category_suggestions,omitempty"`
}

// CategorySuggestion is a category of the tree the drafter found the site
// to fit, with the quote that decided it.
type CategorySuggestion struct {
	Name     string           `json:"name" doc:"A category name of this directory's tree."`
	Evidence []crawl.Evidence `json:"evidence" doc:"The page and quote that decided it."`
}

// DraftLogo is a draft's logo: stored on this site, with where it came from.
type DraftLogo struct {
	URL    string `json:"url" format:"uri" doc:"The logo as stored on this site (256 px PNG); becomes the listing's logo_url."`
	Source string `json:"source,omitempty" doc:"The image URL the drafter fetched; empty for an upload."`
	Page   string `json:"page,omitempty" doc:"The page that named the image (evidence)."`
}

func newDraftData() *draftData {
	d := &draftData{Fields: map[string]*Field{}, AIEvidence: map[string][]crawl.Evidence{}, FAQs: []DraftFAQ{},
		Founders: []DraftFounder{}, CompanySocials: map[string]string{}, SocialEvidence: map[string][]crawl.Evidence{},
		Story: map[string]string{}, Milestones: []db.Milestone{}, SEO: map[string]string{"title": "", "meta": ""}}
	for _, f := range profileFields {
		d.Fields[f.Name] = &Field{State: stateNotFound, Evidence: []crawl.Evidence{}}
	}
	return d
}

// Draft is the API view of a draft.
type Draft struct {
	ID                  string               `json:"id"`
	URL                 string               `json:"url"`
	Status              string               `json:"status" enum:"crawling,drafting,ready,failed"`
	Failure             *DraftFailure        `json:"failure,omitempty" doc:"Only when status is failed."`
	Fields              map[string]*Field    `json:"fields"`
	FAQs                []DraftFAQ           `json:"faqs"`
	Founders            []DraftFounder       `json:"founders"`
	CompanySocials      db.Socials           `json:"company_socials"`
	FounderSocials      db.Socials           `json:"founder_socials"`
	Story               map[string]string    `json:"story"`
	Milestones          []db.Milestone       `json:"milestones"`
	CompetitorURL       string               `json:"competitor_url"`
	SEO                 map[string]string    `json:"seo"`
	Completeness        int                  `json:"completeness"`
	Missing             []string             `json:"missing"`
	NotFound            []string             `json:"not_found_on_website"`
	ListingID           *int64               `json:"listing_id"`
	PagesRead           []string             `json:"pages_read" format:"uri"`
	Invites             []string             `json:"invites" format:"email"`
	CreatedAt           string               `json:"created_at"`
	UpdatedAt           string               `json:"updated_at"`
	Poll                string               `json:"poll,omitempty"`
	Warnings            []string             `json:"warnings,omitempty" doc:"What this submit or update did not keep on the listing and why (e.g. categories beyond what the plan allows)."`
	Logo                *DraftLogo           `json:"logo,omitempty" doc:"The logo found on the website (fetched through the SSRF guard and re-encoded) or uploaded; absent when none."`
	CategorySuggestions []CategorySuggestion `json:"category_suggestions,omitempty" doc:"Up to 3 categories of the tree the website fits, best first, each with the quote that decided it; absent when the site does not say what the product is. Choose one as the first of fields.categories."`
}

// draftRow is a loaded draft.
type draftRow struct {
	id, userID                  string
	owner                       int64
	url, status, fkind, freason string
	data                        *draftData
	pages                       []crawl.Page
	listingID                   sql.NullInt64
	createdAt, updatedAt        string
}

func loadDraft(ctx context.Context, q kernel.Querier, id string) (*draftRow, error) {
	var r draftRow
	var data, pages string
	err := q.QueryRowContext(ctx, `SELECT id, user_id, url, status, failure_kind, failure_reason, data, pages, listing_id,
		created_at, updated_at FROM drafts WHERE id = ?`, id).Scan(&r.id, &r.owner, &r.url, &r.status, &r.fkind, &r.freason,
		&data, &pages, &r.listingID, &r.createdAt, &r.updatedAt)
	if err != nil {
		return nil, err
	}
	r.data = newDraftData()
	if err := json.Unmarshal([]byte(data), r.data); err != nil {
		return nil, fmt.Errorf("draft %s data: %w", id, err)
	}
	r.data.normalize()
	_ = json.Unmarshal([]byte(pages), &r.pages)
	return &r, nil
}

// normalize fills maps and fields missing from older rows.
func (d *draftData) normalize() {
	fresh := newDraftData()
	for name, f := range fresh.Fields {
		if d.Fields[name] == nil {
			d.Fields[name] = f
		}
		if d.Fields[name].Evidence == nil {
			d.Fields[name].Evidence = []crawl.Evidence{}
		}
	}
	if d.CompanySocials == nil {
		d.CompanySocials = map[string]string{}
	}
	if d.Story == nil {
		d.Story = map[string]string{}
	}
	if d.SEO == nil {
		d.SEO = fresh.SEO
	}
	if d.FAQs == nil {
		d.FAQs = []DraftFAQ{}
	}
	if d.Founders == nil {
		d.Founders = []DraftFounder{}
	}
	if d.Milestones == nil {
		d.Milestones = []db.Milestone{}
	}
}

// access loads a draft the principal may see: its owner or an invited
// co-founder (by email). Anyone else gets 404, like a missing draft.
func (a *Service) access(ctx context.Context, q kernel.Querier, p *ops.Principal, id string) (*draftRow, error) {
	id = strings.ToLower(id) // ids are issued in lower case; UUIDs compare case-insensitively
	r, err := loadDraft(ctx, q, id)
	if db.IsNoRows(err) || (err == nil && r.owner != p.UserID && !a.invited(ctx, q, id, p.Email)) {
		return nil, &ops.Error{Code: ops.CodeNotFound, Detail: "draft not found among your drafts",
			Fields: []ops.FieldError{{Field: "id", Message: "no draft of yours has this id"}}}
	}
	return r, err
}

func (a *Service) invited(ctx context.Context, q kernel.Querier, draftID, email string) bool {
	var one int
	return q.QueryRowContext(ctx, `SELECT 1 FROM draft_invites WHERE draft_id = ? AND email = ?`, draftID, email).Scan(&one) == nil
}

// view builds the API shape of a draft.
func (a *Service) view(ctx context.Context, r *draftRow) *Draft {
	d := r.data
	v := &Draft{ID: r.id, URL: r.url, Status: r.status, Fields: apiFields(d.Fields), FAQs: d.FAQs, Founders: d.Founders,
		CompanySocials: d.CompanySocials, FounderSocials: map[string]string{}, Story: d.Story, Milestones: d.Milestones,
		CompetitorURL: d.CompetitorURL, SEO: d.SEO, CreatedAt: r.createdAt, UpdatedAt: r.updatedAt, PagesRead: []string{}, Invites: []string{},
		Warnings: d.warnings, Logo: d.Logo, CategorySuggestions: d.CategorySuggestions}
	if len(d.Founders) > 0 && d.Founders[0].Socials != nil {
		v.FounderSocials = d.Founders[0].Socials
	}
	if r.status == draftFailed {
		v.Failure = &DraftFailure{Kind: r.fkind, Reason: r.freason}
	}
	if r.status == draftCrawling || r.status == draftDrafting {
		v.Poll = "Poll get_draft every few seconds until status is ready or failed."
	}
	if r.listingID.Valid {
		id := r.listingID.Int64
		v.ListingID = &id
	}
	for _, p := range r.pages {
		v.PagesRead = append(v.PagesRead, p.URL)
	}
	v.Completeness, v.Missing = completeness(d)
	v.NotFound = notFoundFields(d)
	rows, err := a.DB.R.QueryContext(ctx, `SELECT email FROM draft_invites WHERE draft_id = ? ORDER BY id`, r.id)
	if err == nil {
		defer rows.Close()
		for rows.Next() {
			var e string
			if rows.Scan(&e) == nil {
				v.Invites = append(v.Invites, e)
			}
		}
	}
	return v
}

// apiFields is the fields as the API shows them: founded_year, drafted as
// text, is an integer (or null) like on listings. The stored map is not
// changed.
func apiFields(fields map[string]*Field) map[string]*Field {
	f, ok := fields["founded_year"]
	if !ok || f == nil {
		return fields
	}
	out := make(map[string]*Field, len(fields))
	for k, v := range fields {
		out[k] = v
	}
	c := *f
	c.Value, c.AIValue = yearValue(f.Value), yearValue(f.AIValue)
	out["founded_year"] = &c
	return out
}

// yearValue turns a drafted year ("2019") into 2019; anything else is null.
func yearValue(v any) any {
	s, ok := v.(string)
	if !ok {
		return v
	}
	y, err := strconv.Atoi(strings.TrimSpace(s))
	if err != nil {
		return nil
	}
	return y
}

// notFoundFields are the facts the site did not state (not_found_on_website).
func notFoundFields(d *draftData) []string {
	out := []string{}
	for _, f := range profileFields {
		if d.Fields[f.Name].State == stateNotFound {
			out = append(out, f.Name)
		}
	}
	return out
}

func filled(v any) bool {
	switch x := v.(type) {
	case string:
		return strings.TrimSpace(x) != ""
	case []any:
		return len(x) > 0
	case []string:
		return len(x) > 0
	}
	return false
}

// completeness scores what a good listing needs and names what is missing.
func completeness(d *draftData) (int, []string) {
	checks := []struct {
		what string
		ok   bool
	}{
		{"name", filled(d.Fields["name"].Value)},
		{"tagline", filled(d.Fields["tagline"].Value)},
		{"short_description", filled(d.Fields["short_description"].Value)},
		{"description", filled(d.Fields["description"].Value)},
		{"categories", filled(d.Fields["categories"].Value)},
		{"features", filled(d.Fields["features"].Value)},
		{"pricing_model", filled(d.Fields["pricing_model"].Value)},
		{"pricing_summary", filled(d.Fields["pricing_summary"].Value)},
		{"logo_url", filled(d.Fields["logo_url"].Value)},
		{"country", filled(d.Fields["country"].Value)},
		{"founders (a founder with name and bio)", len(d.Founders) > 0 && d.Founders[0].Name != "" && d.Founders[0].Bio != ""},
		{"founder_socials (a social link of the founder)", len(d.Founders) > 0 && len(d.Founders[0].Socials) > 0},
		{"company_socials", len(d.CompanySocials) > 0},
		{"faqs", len(d.FAQs) > 0},
	}
	missing := []string{}
	for _, c := range checks {
		if !c.ok {
			missing = append(missing, c.what)
		}
	}
	return (len(checks) - len(missing)) * 100 / len(checks), missing
}

func (a *Service) saveDraft(ctx context.Context, tx *sql.Tx, r *draftRow) error {
	r.updatedAt = a.Now().UTC().Format(time.RFC3339Nano)
	_, err := tx.ExecContext(ctx, `UPDATE drafts SET data = ?, status = ?, updated_at = ? WHERE id = ?`,
		db.EncodeJSON(r.data), r.status, r.updatedAt, r.id)
	return err
}

// DraftField names a draft profile field and whether it holds a list.
type DraftField struct {
	Name string
	List bool
}

// DraftFields are the draft profile fields in the order of the spec.
func DraftFields() []DraftField {
	out := make([]DraftField, len(profileFields))
	for i, f := range profileFields {
		out[i] = DraftField{Name: f.Name, List: f.List}
	}
	return out
}
