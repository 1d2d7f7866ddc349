package crawl

import "context"

// Evidence is a quote copied from a crawled page and the page's URL.
type Evidence struct {
	Quote string `json:"quote"`
	URL   string `json:"url"`
}

// Value is a drafted field value: a string, or []string for list fields.
type Value struct {
	Value    any        `json:"value"`
	Evidence []Evidence `json:"evidence"`
}

// FAQ is one question and answer as the site states them.
type FAQ struct {
	Question, Answer string
	Evidence         []Evidence
}

// Founder is a team member named on the site.
type Founder struct {
	Name, Title, Bio string
	Socials          map[string]string
	Evidence         []Evidence
}

// Profile is a drafted product profile; every value carries evidence.
type Profile struct {
	Fields   map[string]Value
	FAQs     []FAQ
	Founders []Founder
	Socials  map[string]Value
	// CategoryCandidates are the best matching categories, best first (at
	// most three), each with the statement that decided it, so a draft page
	// can offer them. When Fields["categories"] is set its first value is
	// the first candidate; empty when the drafter abstains.
	CategoryCandidates []CategoryCandidate
}

// CategoryCandidate is a category the site's statements match, with its
// score (0 when the drafter gives none, as an LLM) and evidence.
type CategoryCandidate struct {
	Name     string
	Score    int
	Evidence []Evidence
}

// Category is one directory category a drafter may choose: its name and
// what it covers (the description is matched too, not only the name).
type Category struct{ Name, Description string }

// CategoriesNamed makes categories without descriptions.
func CategoriesNamed(names ...string) []Category {
	out := make([]Category, len(names))
	for i, n := range names {
		out[i] = Category{Name: n}
	}
	return out
}

func categoryNameList(cs []Category) []string {
	out := make([]string, len(cs))
	for i, c := range cs {
		out[i] = c.Name
	}
	return out
}

// Drafter turns crawled pages into a profile. categories are the allowed
// categories; the first drafted category is the primary one. Callers run
// Guard on the result (or use DraftAndGuard).
type Drafter interface {
	Draft(ctx context.Context, res *Result, categories []Category) (*Profile, error)
}

// DraftAndGuard drafts with d and removes every value GuardWith cannot verify.
func DraftAndGuard(ctx context.Context, d Drafter, res *Result, categories []Category) (*Profile, []string, error) {
	p, err := d.Draft(ctx, res, categories)
	if err != nil {
		return nil, nil, err
	}
	clean, dropped := GuardWith(p, res, categories)
	return clean, dropped, nil
}

// SocialPlatforms are the only keys allowed in Profile.Socials and
// Founder.Socials.
var SocialPlatforms = []string{
	"linkedin", "x", "facebook", "instagram", "youtube", "tiktok", "github",
	"reddit", "medium", "substack", "producthunt", "discord", "website", "custom",
}

// StringFields and ListFields are the keys of Profile.Fields.
var (
	StringFields = []string{
		"name", "tagline", "short_description", "description", "stage",
		"pricing_model", "pricing_summary", "country", "city", "founded_year",
		"contact_email", "demo_video_url", "logo_url",
	}
	ListFields = []string{"categories", "tags", "features", "usps", "keywords"}
)

// Length bounds enforced by Guard.
const (
	MaxStringLen      = 500
	MaxDescriptionLen = 20000
	MaxItemLen        = 200
	MaxItems          = 20
	MaxQuoteLen       = 500
	MaxFAQAnswerLen   = 2000
	MaxFAQs           = 30
	MaxFounders       = 20
)

func newProfile() *Profile {
	return &Profile{Fields: map[string]Value{}, Socials: map[string]Value{}}
}

func isListField(k string) bool {
	for _, f := range ListFields {
		if f == k {
			return true
		}
	}
	return false
}

func isStringField(k string) bool {
	for _, f := range StringFields {
		if f == k {
			return true
		}
	}
	return false
}

func isPlatform(k string) bool {
	for _, p := range SocialPlatforms {
		if p == k {
			return true
		}
	}
	return false
}
