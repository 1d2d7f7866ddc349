package drafting

// Response bodies of drafting operations (each an Output in the table; the
// OpenAPI document and MCP output schemas are generated from them).

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

// DeletedDraft is delete_draft's body.
type DeletedDraft struct {
	Deleted bool   `json:"deleted"`
	ID      string `json:"id"`
	URL     string `json:"url"`
	// ListingID is the listing submitted from the draft, which stays.
	ListingID *int64 `json:"listing_id"`
	Note      string `json:"note"`
}
