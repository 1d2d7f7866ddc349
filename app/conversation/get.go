package conversation

import (
	"context"
	"database/sql"

	"launchdir/app/kernel"
	"launchdir/ops"
)

// Get is one listed comment of a live or upcoming listing, with its
// replies when it is a top-level comment.
func (a *Service) Get(ctx context.Context, id, viewer int64) (*Comment, error) {
	var listingID int64
	var parent sql.NullInt64
	err := a.DB.R.QueryRowContext(ctx, `SELECT c.listing_id, c.parent_id FROM comments c JOIN listings l ON l.id = c.listing_id
		WHERE c.id = ? AND l.status IN ('live','scheduled')`, id).Scan(&listingID, &parent)
	if err != nil {
		return nil, kernel.NotFound(err, "comment")
	}
	var listed bool
	where := `c.id = ? AND ` + listedReply
	args := []any{id, parent.Int64}
	if !parent.Valid {
		where, args = `c.id = ? AND `+listedTop, []any{id, listingID}
	}
	if err := a.DB.R.QueryRowContext(ctx, `SELECT EXISTS(SELECT 1 FROM comments c WHERE `+where+`)`, args...).Scan(&listed); err != nil {
		return nil, err
	}
	if !listed {
		return nil, ops.NotFound("comment")
	}
	c, err := a.commentByID(ctx, id, viewer)
	if err != nil || parent.Valid {
		return c, err
	}
	if c.Replies, err = a.replies(ctx, id, viewer); err != nil {
		return nil, err
	}
	c.ReplyCount = len(c.Replies)
	return c, nil
}

// slugOf is the slug of a comment's listing (live or upcoming).
func (a *Service) slugOf(ctx context.Context, commentID int64) (string, error) {
	var slug string
	err := a.DB.R.QueryRowContext(ctx, `SELECT l.slug FROM comments c JOIN listings l ON l.id = c.listing_id
		WHERE c.id = ? AND l.status IN ('live','scheduled')`, commentID).Scan(&slug)
	if err != nil {
		if err == sql.ErrNoRows {
			return "", &ops.Error{Code: ops.CodeNotFound, Detail: "comment not found",
				Fields: []ops.FieldError{{Field: "comment_id", Message: "no comment has this id"}}}
		}
		return "", err
	}
	return slug, nil
}

// SetNotifications applies several on/off choices in one transaction.
func (a *Service) SetNotifications(ctx context.Context, userID int64, changes map[string]bool) error {
	_, err := a.setNotifications(ctx, userID, changes)
	return err
}

// setNotifications applies changes and answers every setting as it is
// now, read and stored as the idempotent response in the same transaction.
func (a *Service) setNotifications(ctx context.Context, userID int64, changes map[string]bool) (NotificationSettings, error) {
	var out NotificationSettings
	err := a.DB.Tx(ctx, func(tx *sql.Tx) error {
		for kind, on := range changes {
			if err := a.SetNotification(ctx, tx, userID, kind, on); err != nil {
				return err
			}
		}
		var err error
		if out.Settings, err = kernel.NotificationSettingsIn(ctx, tx, userID); err != nil {
			return err
		}
		return kernel.RespondInTx(ctx, tx, out)
	})
	return out, err
}
