package owning

import "launchdir/db"

// Response bodies of owning operations (each an Output in the table; the
// OpenAPI document and MCP output schemas are generated from them).

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
