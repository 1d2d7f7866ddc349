package conversation

import (
	"context"
	"database/sql"
	"strings"
	"time"

	"launchdir/app/kernel"
	"launchdir/ops"
)

// shown is a comment that is shown with its text: not deleted, not
// hidden by the site team, not by a banned account.
const shownSQL = `%[1]s.deleted_at IS NULL AND %[1]s.hidden_at IS NULL
	AND NOT EXISTS(SELECT 1 FROM account_bans b WHERE b.user_id = %[1]s.user_id)`

func shown(alias string) string { return strings.ReplaceAll(shownSQL, "%[1]s", alias) }

// listedTop is a top-level comment in the list: shown, or a placeholder
// that replies still hang on.
var listedTop = `c.listing_id = ? AND c.parent_id IS NULL AND ((` + shown("c") + `)
	OR EXISTS(SELECT 1 FROM comments r WHERE r.parent_id = c.id AND ` + shown("r") + `))`

// listedReply is a reply in the list: shown or deleted (the placeholder
// keeps the conversation's order); hidden ones are left out.
var listedReply = `c.parent_id = ? AND c.hidden_at IS NULL
	AND NOT EXISTS(SELECT 1 FROM account_bans b WHERE b.user_id = c.user_id)`

const commentCols = `c.id, coalesce(c.parent_id, 0), coalesce(c.user_id, 0), coalesce(u.name, ''), c.body, c.pinned, c.upvotes,
	c.created_at, coalesce(c.edited_at, ''), c.deleted_at IS NOT NULL,
	c.hidden_at IS NOT NULL OR EXISTS(SELECT 1 FROM account_bans b WHERE b.user_id = c.user_id),
	EXISTS(SELECT 1 FROM listing_owners o WHERE o.listing_id = c.listing_id AND o.user_id = c.user_id),
	EXISTS(SELECT 1 FROM comment_votes v WHERE v.comment_id = c.id AND v.user_id = ?)`

// scan reads commentCols and applies what a placeholder hides.
func (a *Service) scan(sc interface{ Scan(...any) error }, viewer int64) (Comment, error) {
	var c Comment
	err := sc.Scan(&c.ID, &c.ParentID, &c.AuthorID, &c.Author, &c.BodyMarkdown, &c.Pinned, &c.Upvotes,
		&c.CreatedAt, &c.EditedAt, &c.Deleted, &c.Hidden, &c.Maker, &c.Upvoted)
	if err != nil {
		return c, err
	}
	c.Edited = c.EditedAt != ""
	if c.Deleted || c.Hidden {
		c.Author, c.BodyMarkdown, c.Maker, c.Pinned, c.Upvoted, c.EditedAt, c.Edited = "", "", false, false, false, "", false
		c.AuthorID = 0
		return c, nil
	}
	c.BodyHTML = kernel.RenderComment(c.BodyMarkdown)
	if viewer > 0 && viewer == c.AuthorID {
		t, _ := time.Parse(time.RFC3339, c.CreatedAt)
		c.CanEdit = a.Now().Sub(t) <= EditWindow
	}
	return c, nil
}

// List is a listing's comments, one page of top-level comments with their
// replies. sort is "newest" (default) or "top" (most upvoted); the pinned
// maker's comment comes first on the first page either way. viewer (0 for
// none) marks the viewer's upvotes and editable comments.
func (a *Service) List(ctx context.Context, slug, sort string, page, perPage int, viewer int64) (kernel.Page[Comment], error) {
	out := kernel.Page[Comment]{Items: []Comment{}, Page: page, PerPage: perPage}
	order := "c.pinned DESC, c.created_at DESC, c.id DESC"
	switch sort {
	case "", "newest":
	case "top":
		order = "c.pinned DESC, c.upvotes DESC, c.created_at DESC, c.id DESC"
	default:
		return out, ops.Invalid("sort", "must be newest or top")
	}
	l, err := openListing(ctx, a.DB.R, slug)
	if err != nil {
		return out, err
	}
	if out.Total, err = a.DB.Count(ctx, `SELECT count(*) FROM comments c WHERE `+listedTop, l.ID); err != nil {
		return out, err
	}
	rows, err := a.DB.R.QueryContext(ctx, `SELECT `+commentCols+` FROM comments c LEFT JOIN users u ON u.id = c.user_id
		WHERE `+listedTop+` ORDER BY `+order+` LIMIT ? OFFSET ?`, viewer, l.ID, perPage, (page-1)*perPage)
	if err != nil {
		return out, err
	}
	for rows.Next() {
		c, err := a.scan(rows, viewer)
		if err != nil {
			rows.Close()
			return out, err
		}
		out.Items = append(out.Items, c)
	}
	rows.Close()
	if err := rows.Err(); err != nil {
		return out, err
	}
	for i := range out.Items {
		if out.Items[i].Replies, err = a.replies(ctx, out.Items[i].ID, viewer); err != nil {
			return out, err
		}
		out.Items[i].ReplyCount = len(out.Items[i].Replies)
	}
	return out, nil
}

func (a *Service) replies(ctx context.Context, parentID, viewer int64) ([]Comment, error) {
	rows, err := a.DB.R.QueryContext(ctx, `SELECT `+commentCols+` FROM comments c LEFT JOIN users u ON u.id = c.user_id
		WHERE `+listedReply+` ORDER BY c.created_at, c.id LIMIT ?`, viewer, parentID, maxRepliesShown)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var out []Comment
	for rows.Next() {
		c, err := a.scan(rows, viewer)
		if err != nil {
			return nil, err
		}
		out = append(out, c)
	}
	return out, rows.Err()
}

// Count is how many comments of a listing are shown with their text (the
// number the listing page's heading gives).
func (a *Service) Count(ctx context.Context, listingID int64) (int, error) {
	return a.DB.Count(ctx, `SELECT count(*) FROM comments c WHERE c.listing_id = ? AND `+shown("c"), listingID)
}

// Summary is what a listing page says about its conversation: how many
// comments are shown and whether the viewer (0: nobody) is an owner, who
// may pin a maker's comment.
func (a *Service) Summary(ctx context.Context, slug string, viewer int64) (shownCount int, isOwner bool, err error) {
	l, err := openListing(ctx, a.DB.R, slug)
	if err != nil {
		return 0, false, err
	}
	if shownCount, err = a.Count(ctx, l.ID); err != nil {
		return 0, false, err
	}
	if viewer > 0 {
		isOwner = a.OwnListing(ctx, a.DB.R, viewer, l.ID) == nil
	}
	return shownCount, isOwner, nil
}

// commentByID is one comment as its author sees it after a change.
func (a *Service) commentByID(ctx context.Context, id, viewer int64) (*Comment, error) {
	return a.commentIn(ctx, a.DB.R, id, viewer)
}

// commentIn reads comment id as viewer sees it through q (the read pool,
// or the write transaction that changed it).
func (a *Service) commentIn(ctx context.Context, q kernel.Querier, id, viewer int64) (*Comment, error) {
	row := q.QueryRowContext(ctx, `SELECT `+commentCols+` FROM comments c LEFT JOIN users u ON u.id = c.user_id WHERE c.id = ?`, viewer, id)
	c, err := a.scan(row, viewer)
	if err == sql.ErrNoRows {
		return nil, ops.NotFound("comment")
	}
	return &c, err
}
