package app

import (
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
	ops.RegisterEnum("listing_status", ListingStatuses)
	ops.RegisterEnum("promo_reason", []string{PromoUnknown, PromoNotYetValid, PromoExpired, PromoUsedUp, PromoNotApplicable})
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
	Page[db.Summary]
}

// LaunchWeek is get_launch_week's body.
type LaunchWeek struct {
	Week     string `json:"week" format:"date" doc:"The week's Monday."`
	Starts   string `json:"starts" format:"date"`
	Ends     string `json:"ends" format:"date" doc:"The week's Sunday."`
	IsFuture bool   `json:"is_future"`
	Page[db.Summary]
}

// LaunchSection is list_launches' body.
type LaunchSection struct {
	Section string `json:"section" enum:"$launch_section"`
	Page[db.Summary]
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
	Page[db.BoardItem]
}

// AwardPage is list_awards' body.
type AwardPage struct {
	Page[db.Award]
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

// Account is get_account's body.
type Account struct {
	User       User          `json:"user"`
	Scopes     []string      `json:"scopes" enum:"$scope"`
	Credential string        `json:"credential" enum:"api_key,oauth"`
	Counts     AccountCounts `json:"counts"`
}

// AccountCounts counts what the user has.
type AccountCounts struct {
	Drafts   int `json:"drafts"`
	Listings int `json:"listings"`
	Orders   int `json:"orders"`
	Claims   int `json:"claims"`
}

// MyListing is an item of list_my_listings.
type MyListing struct {
	ListingID int64 `json:"listing_id"`
	db.Summary
	Plan string `json:"plan" enum:"none,free,paid"`
}

// PostedUpdate is post_listing_update's body.
type PostedUpdate struct {
	Update            db.Update `json:"update"`
	ListingID         int64     `json:"listing_id"`
	FollowersNotified int       `json:"followers_notified"`
}

// MilestoneResult is add_milestone's body.
type MilestoneResult struct {
	Milestone db.Milestone `json:"milestone"`
	ListingID int64        `json:"listing_id"`
	Visible   bool         `json:"visible" doc:"Whether milestones are shown publicly (unlocked)."`
}

// DeletedMilestone is delete_milestone's body.
type DeletedMilestone struct {
	Deleted   bool         `json:"deleted"`
	Milestone db.Milestone `json:"milestone"`
	ListingID int64        `json:"listing_id"`
}

// StoryResult is set_founder_story's body.
type StoryResult struct {
	Story     db.Story `json:"story"`
	ListingID int64    `json:"listing_id"`
	Visible   bool     `json:"visible" doc:"Whether the story is shown publicly (unlocked)."`
}

// InterviewAnswers is answer_interview's body: all your answers.
type InterviewAnswers struct {
	Answers   []InterviewAnswer `json:"answers"`
	Answered  int               `json:"answered"`
	Questions int               `json:"questions"`
}

// InterviewAnswer is one answer.
type InterviewAnswer struct {
	QuestionID int64  `json:"question_id"`
	Question   string `json:"question,omitempty"`
	Answer     string `json:"answer"`
}

// FreeLaunch is choose_free_listing's body.
type FreeLaunch struct {
	ListingID  int64  `json:"listing_id"`
	Status     string `json:"status" enum:"scheduled"`
	Plan       string `json:"plan" enum:"free,paid"`
	LaunchWeek string `json:"launch_week" format:"date"`
	Note       string `json:"note"`
}

// Invite is invite_cofounder's body.
type Invite struct {
	DraftID     string `json:"draft_id"`
	Email       string `json:"email" format:"email"`
	InvitedAt   string `json:"invited_at" format:"date-time"`
	InvitesUsed int    `json:"invites_used"`
	InvitesLeft int    `json:"invites_left"`
}

// SubmittedDraft is submit_draft's body.
type SubmittedDraft struct {
	ListingID int64  `json:"listing_id"`
	Status    string `json:"status" enum:"draft"`
	Draft     Draft  `json:"draft"`
	Next      string `json:"next"`
}

// Products is list_products' body.
type Products struct {
	Products      []ProductView `json:"products"`
	BookableWeeks []string      `json:"bookable_weeks" format:"date"`
	VATRatesAsOf  string        `json:"vat_rates_as_of" format:"date"`
	Note          string        `json:"note"`
}

// QuoteResult is quote_order's body.
type QuoteResult struct {
	Quote Quote  `json:"quote"`
	Saved bool   `json:"saved" doc:"Always false: a quote saves nothing."`
	Note  string `json:"note"`
}
