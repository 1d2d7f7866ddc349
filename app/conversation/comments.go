package conversation

import (
	"context"
	"crypto/sha256"
	"database/sql"
	"encoding/hex"
	"fmt"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"

	"launchdir/app/kernel"
	"launchdir/db"
	"launchdir/ops"
)

// Comment is one comment as every door shows it. A deleted comment keeps
// its place in the thread with no author and no text; one hidden by the
// site team (or written by a banned account) is shown only as a
// placeholder, and only when replies still hang on it.
type Comment struct {
	ID           int64     `json:"id"`
	ParentID     int64     `json:"parent_id,omitempty" doc:"The comment this one replies to; absent for a top-level comment."`
	Author       string    `json:"author" doc:"The author's name; empty when deleted or hidden."`
	Maker        bool      `json:"maker" doc:"The author is an owner of the listing."`
	Pinned       bool      `json:"pinned" doc:"The pinned maker's comment, listed first."`
	BodyMarkdown string    `json:"body_markdown" doc:"What the author wrote (Markdown subset); empty when deleted or hidden."`
	BodyHTML     string    `json:"body_html" doc:"The body rendered and sanitised: paragraphs, emphasis, code, quotes, lists and nofollow links."`
	Upvotes      int       `json:"upvotes"`
	Edited       bool      `json:"edited"`
	Deleted      bool      `json:"deleted"`
	Hidden       bool      `json:"hidden" doc:"Hidden by the site team."`
	CreatedAt    string    `json:"created_at"`
	EditedAt     string    `json:"edited_at,omitempty"`
	ReplyCount   int       `json:"reply_count" doc:"Replies shown under this comment."`
	Replies      []Comment `json:"replies,omitempty" doc:"Replies, oldest first (one level deep)."`

	// What the site needs about the viewer; not part of the API.
	AuthorID int64 `json:"-"`
	Upvoted  bool  `json:"-"`
	CanEdit  bool  `json:"-"`
}

// commentListing is what the rules need to know about a listing.
type commentListing struct {
	ID               int64
	Name, Slug       string
	Status, LaunchWk string
}

// openListing finds a live or scheduled listing by slug (anything else is
// not found).
func openListing(ctx context.Context, q kernel.Querier, slug string) (*commentListing, error) {
	var l commentListing
	err := q.QueryRowContext(ctx, `SELECT id, name, slug, status, coalesce(launch_week,'') FROM listings
		WHERE slug = ? AND status IN ('live','scheduled')`, slug).Scan(&l.ID, &l.Name, &l.Slug, &l.Status, &l.LaunchWk)
	if err == nil {
		var shown bool
		if shown, err = kernel.ShownHere(ctx, q, l.ID); err == nil && !shown {
			err = sql.ErrNoRows
		}
	}
	if err != nil {
		return nil, kernel.WithField(kernel.NotFound(err, "listing "+slug), "slug")
	}
	return &l, nil
}

// author is what decides whether a person may post.
type author struct {
	name              string
	verified, banned  bool
	owner             bool
	created           time.Time
	createdText, mail string
}

func (a *Service) author(ctx context.Context, q kernel.Querier, userID, listingID int64) (author, error) {
	var au author
	var verified sql.NullString
	err := q.QueryRowContext(ctx, `SELECT u.name, u.email, u.verified_at, u.created_at,
		EXISTS(SELECT 1 FROM account_bans b WHERE b.user_id = u.id),
		EXISTS(SELECT 1 FROM listing_owners o WHERE o.user_id = u.id AND o.listing_id = ?)
		FROM users u WHERE u.id = ?`, listingID, userID).Scan(&au.name, &au.mail, &verified, &au.createdText, &au.banned, &au.owner)
	if err != nil {
		return au, kernel.NotFound(err, "account")
	}
	au.verified = verified.Valid
	au.created, _ = time.Parse(time.RFC3339, au.createdText)
	return au, nil
}

// checkAuthor applies the rules on who may post: not banned, email
// verified, and no links from accounts younger than LinkMinAccountAge.
func (a *Service) checkAuthor(au author, body string) error {
	if au.banned {
		return &ops.Error{Code: ops.CodeForbidden, Detail: "this account can no longer comment"}
	}
	if !au.verified {
		return &ops.Error{Code: ops.CodeForbidden, Detail: "verify your email address before commenting: open the link we emailed you"}
	}
	if a.Now().Sub(au.created) < LinkMinAccountAge && kernel.HasLink(body) {
		return ops.Invalid("body", "accounts younger than 24 hours may not post links or web addresses; write without them, or wait until %s",
			kernel.HumanTime(au.created.Add(LinkMinAccountAge).UTC().Format(time.RFC3339)))
	}
	return nil
}

// checkBody trims a comment and checks its length.
func checkBody(body string) (string, error) {
	body = strings.TrimSpace(strings.ReplaceAll(body, "\r\n", "\n"))
	if n := utf8.RuneCountInString(body); n < 1 || n > MaxCommentBody {
		return "", ops.Invalid("body", "write 1 to %d characters", MaxCommentBody)
	}
	if strings.ContainsRune(body, 0) {
		return "", ops.Invalid("body", "must not contain NUL characters")
	}
	return body, nil
}

// addressKey is the per-address limit's key: a hash, so addresses are
// not stored with comments.
func addressKey(ip string) string {
	if ip == "" {
		return ""
	}
	h := sha256.Sum256([]byte("launchdir comment address\x00" + ip))
	return hex.EncodeToString(h[:16])
}

// reserveRate checks the rate limits inside the write transaction that
// inserts the comment. SQLite has one writer, so counting and inserting
// in one transaction reserve atomically: 30 parallel posts cannot all see
// room for one more.
func (a *Service) reserveRate(ctx context.Context, tx *sql.Tx, userID int64, ipKey string) error {
	since := a.Now().Add(-RateWindow).UTC().Format(time.RFC3339)
	var n int
	if err := tx.QueryRowContext(ctx, `SELECT count(*) FROM comments WHERE user_id = ? AND created_at > ?`, userID, since).Scan(&n); err != nil {
		return err
	}
	if n >= MaxCommentsPerAccount {
		return a.rateLimited(ctx, tx, `user_id = ?`, userID, fmt.Sprintf("You have posted %d comments in %d minutes, the most one account may.", n, int(RateWindow/time.Minute)))
	}
	if ipKey == "" {
		return nil
	}
	if err := tx.QueryRowContext(ctx, `SELECT count(*) FROM comments WHERE ip_hash = ? AND created_at > ?`, ipKey, since).Scan(&n); err != nil {
		return err
	}
	if n >= MaxCommentsPerAddress {
		return a.rateLimited(ctx, tx, `ip_hash = ?`, ipKey, fmt.Sprintf("Too many comments from your network address (%d in %d minutes).", n, int(RateWindow/time.Minute)))
	}
	return nil
}

// rateLimited says when the oldest comment of the window leaves it.
func (a *Service) rateLimited(ctx context.Context, tx *sql.Tx, where string, arg any, msg string) error {
	since := a.Now().Add(-RateWindow).UTC().Format(time.RFC3339)
	var oldest string
	tx.QueryRowContext(ctx, `SELECT min(created_at) FROM comments WHERE `+where+` AND created_at > ?`, arg, since).Scan(&oldest)
	wait := time.Second
	if t, err := time.Parse(time.RFC3339, oldest); err == nil {
		wait = max(t.Add(RateWindow).Sub(a.Now()), time.Second)
	}
	mins := int((wait + time.Minute - 1) / time.Minute)
	return &ops.Error{Code: ops.CodeRateLimited, RetryAfter: wait,
		Detail: msg + fmt.Sprintf(" Try again in %d minute%s.", mins, map[bool]string{true: "", false: "s"}[mins == 1])}
}

// Post adds a comment to a live or upcoming listing, or a reply when
// parentID > 0 (replies go one level deep). ip is the caller's address
// ("" when unknown: only the per-account limit applies). The listing's
// owners are told of a new comment; the parent's author of a reply.
func (a *Service) Post(ctx context.Context, userID int64, slug string, parentID int64, body, ip string) (*Comment, error) {
	body, err := checkBody(body)
	if err != nil {
		return nil, err
	}
	var (
		id  int64
		out *Comment
	)
	err = a.DB.Tx(ctx, func(tx *sql.Tx) error {
		l, err := openListing(ctx, tx, slug)
		if err != nil {
			return err
		}
		au, err := a.author(ctx, tx, userID, l.ID)
		if err != nil {
			return err
		}
		if err := a.checkAuthor(au, body); err != nil {
			return err
		}
		var parentAuthor int64
		if parentID > 0 {
			if parentAuthor, err = replyable(ctx, tx, l.ID, parentID); err != nil {
				return err
			}
		}
		ipKey := addressKey(ip)
		if err := a.reserveRate(ctx, tx, userID, ipKey); err != nil {
			return err
		}
		var parent any
		if parentID > 0 {
			parent = parentID
		}
		res, err := tx.ExecContext(ctx, `INSERT INTO comments(listing_id, parent_id, user_id, body, ip_hash, created_at) VALUES(?,?,?,?,?,?)`,
			l.ID, parent, userID, body, ipKey, a.NowText())
		if err != nil {
			return err
		}
		id, _ = res.LastInsertId()
		err = a.EmitEvent(ctx, tx, kernel.Event{Type: "comment.created", ListingID: l.ID, Data: map[string]any{
			"listing": a.ListingRef(ctx, tx, l.ID),
			"comment": map[string]any{"id": id, "parent_id": parentID, "author": au.name, "maker": au.owner, "body_markdown": body,
				"url": a.ListingURL(ctx, l.Slug) + "#comment-" + strconv.FormatInt(id, 10)}}})
		if err != nil {
			return err
		}
		if err := a.notifyComment(ctx, tx, l, au, id, parentAuthor, userID, body); err != nil {
			return err
		}
		out, err = a.respond(ctx, tx, id, userID)
		return err
	})
	if err != nil {
		return nil, err
	}
	return out, nil
}

// respond reads the comment as the request's answer inside the write
// transaction that changed it, and stores it there as the idempotent
// response (kernel.RespondInTx): a retry after a crash replays it.
func (a *Service) respond(ctx context.Context, tx *sql.Tx, id, viewer int64) (*Comment, error) {
	c, err := a.commentIn(ctx, tx, id, viewer)
	if err != nil {
		return nil, err
	}
	return c, kernel.RespondInTx(ctx, tx, c)
}

// replyable checks that parentID is a top-level comment of the listing
// that can take replies, and returns its author.
func replyable(ctx context.Context, tx *sql.Tx, listingID, parentID int64) (int64, error) {
	var lid int64
	var grand, author sql.NullInt64
	var deleted, hidden sql.NullString
	var banned bool
	err := tx.QueryRowContext(ctx, `SELECT listing_id, parent_id, user_id, deleted_at, hidden_at,
		EXISTS(SELECT 1 FROM account_bans b WHERE b.user_id = c.user_id) FROM comments c WHERE id = ?`, parentID).
		Scan(&lid, &grand, &author, &deleted, &hidden, &banned)
	if db.IsNoRows(err) || (err == nil && (lid != listingID || hidden.Valid || banned)) {
		return 0, &ops.Error{Code: ops.CodeNotFound, Detail: "comment not found on this listing",
			Fields: []ops.FieldError{{Field: "parent_id", Message: "no comment of this listing has this id"}}}
	}
	if err != nil {
		return 0, err
	}
	if grand.Valid {
		return 0, ops.Invalid("parent_id", "replies go one level deep: reply to comment %d, which this one answers", grand.Int64)
	}
	if deleted.Valid {
		return 0, ops.Invalid("parent_id", "that comment was deleted and takes no new replies")
	}
	return author.Int64, nil
}

// notifyComment tells the parent's author of a reply, and the listing's
// owners of any comment (except the one who wrote it and the parent's
// author, who is already told).
func (a *Service) notifyComment(ctx context.Context, tx *sql.Tx, l *commentListing, au author, id, parentAuthor, userID int64, body string) error {
	link := a.ListingURL(ctx, l.Slug) + "#comment-" + strconv.FormatInt(id, 10)
	excerpt := body
	if utf8.RuneCountInString(excerpt) > 600 {
		excerpt = string([]rune(excerpt)[:600]) + "…"
	}
	name := au.name
	if name == "" {
		name = "Someone"
	}
	if parentAuthor > 0 && parentAuthor != userID {
		_, err := a.Notify(ctx, tx, kernel.Notice{Kind: "reply", UserID: parentAuthor,
			Subject: name + " replied to your comment on " + l.Name,
			Text:    name + " replied to your comment on " + l.Name + ":\n\n" + excerpt,
			Link:    link, Button: "Read the reply"})
		if err != nil {
			return err
		}
	}
	what := "commented on"
	if parentAuthor > 0 {
		what = "replied in the comments of"
	}
	owners, err := tx.QueryContext(ctx, `SELECT user_id FROM listing_owners WHERE listing_id = ? AND user_id NOT IN (?, ?) ORDER BY user_id`,
		l.ID, userID, parentAuthor)
	if err != nil {
		return err
	}
	var ids []int64
	for owners.Next() {
		var oid int64
		if err := owners.Scan(&oid); err != nil {
			owners.Close()
			return err
		}
		ids = append(ids, oid)
	}
	owners.Close()
	for _, oid := range ids {
		_, err := a.Notify(ctx, tx, kernel.Notice{Kind: "comment", UserID: oid,
			Subject: name + " " + what + " " + l.Name,
			Text:    name + " " + what + " " + l.Name + ":\n\n" + excerpt + "\n\nAnswer on the listing page: replies from owners carry the Maker mark.",
			Link:    link, Button: "Answer"})
		if err != nil {
			return err
		}
	}
	return nil
}

// own finds the person's comment for a change; another person's comment
// is not found (404), so ids cannot be probed.
func (a *Service) own(ctx context.Context, tx *sql.Tx, userID, commentID int64) (created string, deleted bool, err error) {
	var del sql.NullString
	err = tx.QueryRowContext(ctx, `SELECT c.created_at, c.deleted_at FROM comments c JOIN listings l ON l.id = c.listing_id
		WHERE c.id = ? AND c.user_id = ? AND c.hidden_at IS NULL AND l.status IN ('live','scheduled')`, commentID, userID).Scan(&created, &del)
	if db.IsNoRows(err) {
		return "", false, &ops.Error{Code: ops.CodeNotFound, Detail: "comment not found among your comments",
			Fields: []ops.FieldError{{Field: "comment_id", Message: "none of your comments has this id"}}}
	}
	return created, del.Valid, err
}

// Edit replaces the text of the person's comment within EditWindow of
// posting; the comment then shows it was edited.
func (a *Service) Edit(ctx context.Context, userID, commentID int64, body string) (*Comment, error) {
	body, err := checkBody(body)
	if err != nil {
		return nil, err
	}
	var out *Comment
	err = a.DB.Tx(ctx, func(tx *sql.Tx) error {
		created, deleted, err := a.own(ctx, tx, userID, commentID)
		if err != nil {
			return err
		}
		if deleted {
			return ops.Invalid("comment_id", "the comment was deleted")
		}
		t, _ := time.Parse(time.RFC3339, created)
		if a.Now().Sub(t) > EditWindow {
			return ops.Invalid("body", "comments can be edited for %d minutes after posting; this one was posted at %s UTC",
				int(EditWindow/time.Minute), t.UTC().Format("15:04"))
		}
		var listingID int64
		if err := tx.QueryRowContext(ctx, `SELECT listing_id FROM comments WHERE id = ?`, commentID).Scan(&listingID); err != nil {
			return err
		}
		au, err := a.author(ctx, tx, userID, listingID)
		if err != nil {
			return err
		}
		if err := a.checkAuthor(au, body); err != nil {
			return err
		}
		if _, err = tx.ExecContext(ctx, `UPDATE comments SET body = ?, edited_at = ? WHERE id = ?`, body, a.NowText(), commentID); err != nil {
			return err
		}
		out, err = a.respond(ctx, tx, commentID, userID)
		return err
	})
	if err != nil {
		return nil, err
	}
	return out, nil
}

// Delete removes the text of the person's comment; the thread keeps a
// "deleted" placeholder, so replies still read in order. Deleting twice
// is fine.
func (a *Service) Delete(ctx context.Context, userID, commentID int64) (*Comment, error) {
	var out *Comment
	err := a.DB.Tx(ctx, func(tx *sql.Tx) error {
		_, deleted, err := a.own(ctx, tx, userID, commentID)
		if err != nil {
			return err
		}
		if !deleted {
			if _, err := tx.ExecContext(ctx, `UPDATE comments SET body = '', pinned = 0, deleted_at = ? WHERE id = ?`, a.NowText(), commentID); err != nil {
				return err
			}
		}
		out, err = a.respond(ctx, tx, commentID, userID)
		return err
	})
	if err != nil {
		return nil, err
	}
	return out, nil
}

// Pin makes the owner's own top-level comment the listing's pinned
// maker's comment (replacing any earlier one), or unpins it.
func (a *Service) Pin(ctx context.Context, userID, commentID int64, pin bool) (*Comment, error) {
	var out *Comment
	err := a.DB.Tx(ctx, func(tx *sql.Tx) error {
		if _, deleted, err := a.own(ctx, tx, userID, commentID); err != nil {
			return err
		} else if deleted {
			return ops.Invalid("comment_id", "the comment was deleted")
		}
		var listingID int64
		var parent sql.NullInt64
		if err := tx.QueryRowContext(ctx, `SELECT listing_id, parent_id FROM comments WHERE id = ?`, commentID).Scan(&listingID, &parent); err != nil {
			return err
		}
		if err := a.OwnListing(ctx, tx, userID, listingID); err != nil {
			return &ops.Error{Code: ops.CodeForbidden, Detail: "only the listing's owners can pin a maker's comment"}
		}
		if parent.Valid {
			return ops.Invalid("comment_id", "only a top-level comment can be pinned, not a reply")
		}
		if err := setPinned(ctx, tx, listingID, commentID, pin); err != nil {
			return err
		}
		var err error
		out, err = a.respond(ctx, tx, commentID, userID)
		return err
	})
	if err != nil {
		return nil, err
	}
	return out, nil
}

// setPinned pins the comment (unpinning any other of the listing) or
// unpins it.
func setPinned(ctx context.Context, tx *sql.Tx, listingID, commentID int64, pin bool) error {
	if !pin {
		_, err := tx.ExecContext(ctx, `UPDATE comments SET pinned = 0 WHERE id = ?`, commentID)
		return err
	}
	if _, err := tx.ExecContext(ctx, `UPDATE comments SET pinned = 0 WHERE listing_id = ? AND pinned`, listingID); err != nil {
		return err
	}
	_, err := tx.ExecContext(ctx, `UPDATE comments SET pinned = 1 WHERE id = ?`, commentID)
	return err
}

// ToggleUpvote adds or withdraws the person's upvote of a comment (one per
// person); the counter moves in the same transaction. Authors cannot
// upvote their own comments; banned and unverified accounts cannot upvote.
func (a *Service) ToggleUpvote(ctx context.Context, userID, commentID int64) (bool, int, error) {
	var on bool
	var n int
	err := a.DB.Tx(ctx, func(tx *sql.Tx) error {
		var listingID int64
		var authorID sql.NullInt64
		err := tx.QueryRowContext(ctx, `SELECT c.listing_id, c.user_id FROM comments c JOIN listings l ON l.id = c.listing_id
			WHERE c.id = ? AND c.deleted_at IS NULL AND c.hidden_at IS NULL AND l.status IN ('live','scheduled')
			AND NOT EXISTS(SELECT 1 FROM account_bans b WHERE b.user_id = c.user_id)`, commentID).Scan(&listingID, &authorID)
		if err != nil {
			return kernel.NotFound(err, "comment")
		}
		au, err := a.author(ctx, tx, userID, listingID)
		if err != nil {
			return err
		}
		if au.banned || !au.verified {
			return &ops.Error{Code: ops.CodeForbidden, Detail: "only verified accounts can upvote comments"}
		}
		if authorID.Int64 == userID {
			return ops.Invalid("comment_id", "you cannot upvote your own comment")
		}
		res, err := tx.ExecContext(ctx, `DELETE FROM comment_votes WHERE comment_id = ? AND user_id = ?`, commentID, userID)
		if err != nil {
			return err
		}
		delta := -1
		if k, _ := res.RowsAffected(); k == 0 {
			on, delta = true, 1
			if _, err := tx.ExecContext(ctx, `INSERT INTO comment_votes(comment_id, user_id, created_at) VALUES(?,?,?)`, commentID, userID, a.NowText()); err != nil {
				return err
			}
		}
		return tx.QueryRowContext(ctx, `UPDATE comments SET upvotes = max(0, upvotes + ?) WHERE id = ? RETURNING upvotes`, delta, commentID).Scan(&n)
	})
	return on, n, err
}

// Report puts a comment in the site team's moderation queue. Reporting
// the same comment again while the first report is open changes nothing.
func (a *Service) Report(ctx context.Context, userID, commentID int64, reason string) error {
	reason = strings.TrimSpace(reason)
	if n := utf8.RuneCountInString(reason); n < 1 || n > maxReportReason {
		return ops.Invalid("reason", "say what is wrong in 1 to %d characters", maxReportReason)
	}
	return a.DB.Tx(ctx, func(tx *sql.Tx) error {
		var listingID int64
		err := tx.QueryRowContext(ctx, `SELECT c.listing_id FROM comments c JOIN listings l ON l.id = c.listing_id
			WHERE c.id = ? AND c.deleted_at IS NULL AND c.hidden_at IS NULL AND l.status IN ('live','scheduled')`, commentID).Scan(&listingID)
		if err != nil {
			return kernel.NotFound(err, "comment")
		}
		_, err = tx.ExecContext(ctx, `INSERT INTO reports(user_id, kind, listing_id, comment_id, reason, created_at) VALUES(?,?,?,?,?,?)
			ON CONFLICT DO NOTHING`, userID, "comment", listingID, commentID, reason, a.NowText())
		return err
	})
}
