package conversation

import "time"

// The rules of comments, written down (README "Conversation" repeats them).
const (
	// MaxCommentBody is the longest comment, in characters.
	MaxCommentBody = 5000
	// EditWindow is how long after posting its author may edit a comment.
	EditWindow = 15 * time.Minute
	// LinkMinAccountAge: younger accounts may not post links (spam).
	LinkMinAccountAge = 24 * time.Hour
	// RateWindow is the window of the comment rate limits.
	RateWindow = 10 * time.Minute
	// MaxCommentsPerAccount and MaxCommentsPerAddress are how many
	// comments (replies included, deleted ones too) one account and one
	// network address may post within RateWindow.
	MaxCommentsPerAccount = 10
	MaxCommentsPerAddress = 30
	// maxRepliesShown bounds the replies listed under one comment.
	maxRepliesShown = 100
	// maxReportReason is the longest report reason.
	maxReportReason = 500
)
