package catalog

import (
	"launchdir/app/kernel"
	"launchdir/db"
	"launchdir/ops"
)

// The value lists response enums name (enum:"$name" tags).
func init() {
	ops.RegisterEnum("launch_section", launchSections)
	ops.RegisterEnum("board", boardNames)
	ops.RegisterEnum("badge_shape", badgeShapes)
	ops.RegisterEnum("badge_mode", badgeModes)
	ops.RegisterEnum("badge_size", badgeSizes)
}

// Response bodies of the operations that are not a stored thing returned
// as is. Each is an operation's Output in the table; the OpenAPI document
// and the MCP output schemas are generated from these types (see
// ops.Reflector for the struct tags).

// SiteInfo describes the directory (get_site_info).
type SiteInfo struct {
	Name              string     `json:"name"`
	Description       string     `json:"description"`
	SiteKey           string     `json:"site_key" doc:"This site's key for apply_to."`
	Version           string     `json:"version"`
	URLs              SiteURLs   `json:"urls"`
	Counts            SiteCounts `json:"counts"`
	CurrentWeek       string     `json:"current_week" format:"date" doc:"Monday of the current launch week."`
	WeekStartsOn      string     `json:"week_starts_on" enum:"monday"`
	FreeQueueWeeks    int        `json:"free_queue_weeks"`
	LaunchSections    []string   `json:"launch_sections" enum:"$launch_section"`
	Leaderboards      []string   `json:"leaderboards" enum:"$board"`
	ListingStatuses   []string   `json:"listing_statuses" enum:"$listing_status"`
	Scopes            []string   `json:"scopes" enum:"$scope"`
	VotesViaAPI       bool       `json:"votes_via_api"`
	VotingExplanation string     `json:"voting_explanation"`
}

// SiteURLs are the service's addresses.
type SiteURLs struct {
	Base    string `json:"base" format:"uri"`
	API     string `json:"api" format:"uri"`
	OpenAPI string `json:"openapi" format:"uri"`
	MCP     string `json:"mcp" format:"uri"`
}

// SiteCounts are the directory's sizes.
type SiteCounts struct {
	LiveListings     int `json:"live_listings"`
	UpcomingListings int `json:"upcoming_listings"`
	Categories       int `json:"categories"`
}

// Comparison is compare_listings' body.
type Comparison struct {
	A    db.Summary   `json:"a"`
	B    db.Summary   `json:"b"`
	Rows []CompareRow `json:"rows"`
	Note string       `json:"note"`
}

// CompareRow is one attribute compared across two listings.
type CompareRow struct {
	Attribute string `json:"attribute"`
	A         string `json:"a" doc:"Listing a's value; empty when it does not state it."`
	B         string `json:"b" doc:"Listing b's value; empty when it does not state it."`
}

// CategoryListings is get_category's body: the category and a page of its listings.
type CategoryListings struct {
	Category db.Category `json:"category"`
	kernel.Page[db.Summary]
}

// LaunchWeek is get_launch_week's body.
type LaunchWeek struct {
	Week     string `json:"week" format:"date" doc:"The week's Monday."`
	Starts   string `json:"starts" format:"date"`
	Ends     string `json:"ends" format:"date" doc:"The week's Sunday."`
	IsFuture bool   `json:"is_future"`
	kernel.Page[db.Summary]
}

// LaunchSection is list_launches' body.
type LaunchSection struct {
	Section string `json:"section" enum:"$launch_section"`
	kernel.Page[db.Summary]
}

// Leaderboard is get_leaderboard's body.
type Leaderboard struct {
	Board      string `json:"board" enum:"$board"`
	Title      string `json:"title"`
	Metric     string `json:"metric" enum:"votes_in_week,votes,contributed_cents,domain_rating,mrr_cents" doc:"What items' metric.value counts."`
	Paid       bool   `json:"paid" doc:"true for the billboard: positions are bought."`
	ThirdParty bool   `json:"third_party,omitempty" doc:"Figures come from a third party."`
	Disclosure string `json:"disclosure,omitempty"`
	Source     string `json:"source"`
	Week       string `json:"week,omitempty" format:"date" doc:"community-weekly only: the week's Monday."`
	kernel.Page[db.BoardItem]
}

// AwardPage is list_awards' body.
type AwardPage struct {
	kernel.Page[db.Award]
	Basis string `json:"basis"`
}

// InterviewQuestions is list_interview_questions' body.
type InterviewQuestions struct {
	Items           []db.InterviewQuestion `json:"items"`
	Total           int                    `json:"total"`
	MaxAnswers      int                    `json:"max_answers"`
	MaxAnswerLength int                    `json:"max_answer_length"`
}

// Badges is get_badges' body.
type Badges struct {
	Listing   db.Summary        `json:"listing"`
	Shape     string            `json:"shape" enum:"$badge_shape"`
	Mode      string            `json:"mode" enum:"$badge_mode"`
	Size      string            `json:"size" enum:"$badge_size"`
	HTML      string            `json:"html" doc:"Embed code: an image linking to the listing."`
	ImageURL  string            `json:"image_url" format:"uri"`
	ImageURLs map[string]string `json:"image_urls" doc:"The image in each mode (auto, light, dark)."`
	Link      string            `json:"link" format:"uri"`
	Shapes    []string          `json:"shapes" enum:"$badge_shape"`
	Modes     []string          `json:"modes" enum:"$badge_mode"`
	Sizes     []string          `json:"sizes" enum:"$badge_size"`
	Note      string            `json:"note"`
}
