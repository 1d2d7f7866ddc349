package conversation

import (
	"context"

	"launchdir/app/kernel"
	"launchdir/ops"
)

// Operations are conversation's operations: comments, then the email
// notification settings.
//
// Comment upvotes are not operations: like listing votes they come only
// from people on the site. An upvote ranks what every visitor reads first
// (the "top" order), so it follows the same rule as votes: a key or an
// OAuth client can post as its person, but a script that can upvote can
// also farm upvotes across accounts. Reports are site actions too, as
// for listings and reviews.
func (a *Service) Operations() []*ops.Operation {
	commentID := kernel.PathParam("comment_id", ops.IntMin(1).Desc("Comment id (integer >= 1)."))
	body := ops.R("body", ops.Str(MaxCommentBody).Min1().Desc("Markdown subset: paragraphs, *emphasis*, `code`, quotes, lists and links. Accounts younger than 24 hours may not post links."))
	return []*ops.Operation{
		{ID: "list_comments", Output: ops.Out[kernel.Page[Comment]](), Tag: "comments", Method: "GET", Path: "/listings/:slug/comments", Toolset: "public", Paginated: true,
			Summary:     "A listing's comments with their replies",
			Description: "Top-level comments of a live or upcoming listing, each with its replies (one level, oldest first). sort: newest (default) or top (most upvoted). The pinned maker's comment comes first. Deleted comments stay as placeholders; hidden ones only when replies hang on them.",
			Params:      []ops.Param{kernel.PathParam("slug", kernel.SlugSchema), kernel.QueryParam("sort", ops.Enum("newest", "top").Def("newest"))},
			Handler:     a.listComments},
		{ID: "get_comment", Output: ops.Out[Comment](), Tag: "comments", Method: "GET", Path: "/comments/:comment_id", Toolset: "public",
			Summary:     "One comment",
			Description: "One comment of a live or upcoming listing, with its replies when it is a top-level comment.",
			Params:      []ops.Param{commentID}, Handler: a.getComment},
		{ID: "post_comment", Output: ops.Out[Comment](), Tag: "comments", Location: "/comments/{id}", Method: "POST", Path: "/listings/:slug/comments", Toolset: "listings",
			Scope: ops.ScopeListingsWrite, Idem: true, Status: 201,
			Summary:     "Comment on a live or upcoming listing",
			Description: "Posts a top-level comment as you (verified email needed). The listing's owners are emailed. Limits: 10 comments per account and 30 per network address in 10 minutes (429 with Retry-After).",
			Params:      []ops.Param{kernel.PathParam("slug", kernel.SlugSchema)}, Body: ops.Obj(body), Handler: a.postComment},
		{ID: "reply_to_comment", Output: ops.Out[Comment](), Tag: "comments", Location: "/comments/{id}", Method: "POST", Path: "/comments/:comment_id/replies", Toolset: "listings",
			Scope: ops.ScopeListingsWrite, Idem: true, Status: 201,
			Summary:     "Reply to a comment",
			Description: "Replies to a top-level comment (replies go one level deep: replying to a reply is a 400 naming the comment to reply to). Replies from the listing's owners carry maker=true. The comment's author is emailed.",
			Params:      []ops.Param{commentID}, Body: ops.Obj(body), Handler: a.replyToComment},
		{ID: "edit_comment", Output: ops.Out[Comment](), Tag: "comments", Method: "PATCH", Path: "/comments/:comment_id", Toolset: "listings",
			Scope: ops.ScopeListingsWrite, Idem: true, Destructive: true,
			Summary:     "Edit your comment (within 15 minutes)",
			Description: "Replaces the text of your comment within 15 minutes of posting; it then shows edited=true. Another person's comment is not found.",
			Params:      []ops.Param{commentID}, Body: ops.Obj(body), Handler: a.editComment},
		{ID: "delete_comment", Output: ops.Out[Comment](), Tag: "comments", Method: "DELETE", Path: "/comments/:comment_id", Toolset: "listings",
			Scope: ops.ScopeListingsWrite, Idem: true, Destructive: true,
			Summary:     "Delete your comment",
			Description: "Removes your comment's text; the thread keeps a deleted placeholder so replies still read in order. Another person's comment is not found.",
			Params:      []ops.Param{commentID}, Handler: a.deleteComment},
		{ID: "pin_comment", Output: ops.Out[Comment](), Tag: "comments", Method: "PUT", Path: "/comments/:comment_id/pin", Toolset: "listings",
			Scope: ops.ScopeListingsWrite, Idem: true, Destructive: true,
			Summary:     "Pin or unpin your maker's comment",
			Description: "For a listing's owners: pinned=true makes your own top-level comment the listing's pinned maker's comment (replacing an earlier pin); pinned=false unpins it.",
			Params:      []ops.Param{commentID}, Body: ops.Obj(ops.R("pinned", ops.Bool())), Handler: a.pinComment},
		{ID: "get_notification_settings", Output: ops.Out[NotificationSettings](), Tag: "account", Method: "GET", Path: "/me/notifications", Toolset: "listings", Scope: ops.ScopeAccountRead,
			Summary:     "Which notification emails you get",
			Description: "Every kind of notification email (new comments and reviews of your listings, replies, scheduled, live, claims, upcoming launches) and whether it is on.",
			Handler:     a.getNotificationSettings},
		{ID: "update_notification_settings", Output: ops.Out[NotificationSettings](), Tag: "account", Method: "PATCH", Path: "/me/notifications", Toolset: "listings",
			Scope: ops.ScopeListingsWrite, Idem: true, Destructive: true,
			Summary:     "Turn notification emails on or off",
			Description: "settings: up to 20 of {kind, on}; kinds from get_notification_settings. Kinds not sent keep their setting.",
			Body:        ops.Obj(ops.R("settings", ops.Arr(ops.Obj(ops.R("kind", ops.Str(40).Min1()), ops.R("on", ops.Bool())), 20))),
			Handler:     a.updateNotificationSettings},
	}
}

func (a *Service) listComments(ctx context.Context, in *ops.Input) (any, error) {
	p, pp := in.Page()
	return a.List(ctx, in.Str("slug"), in.Str("sort"), p, pp, in.UserID())
}

func (a *Service) getComment(ctx context.Context, in *ops.Input) (any, error) {
	return a.Get(ctx, in.Int("comment_id"), in.UserID())
}

func (a *Service) postComment(ctx context.Context, in *ops.Input) (any, error) {
	return a.Post(ctx, in.UserID(), in.Str("slug"), 0, in.Str("body"), kernel.ClientIP(ctx))
}

func (a *Service) replyToComment(ctx context.Context, in *ops.Input) (any, error) {
	slug, err := a.slugOf(ctx, in.Int("comment_id"))
	if err != nil {
		return nil, err
	}
	return a.Post(ctx, in.UserID(), slug, in.Int("comment_id"), in.Str("body"), kernel.ClientIP(ctx))
}

func (a *Service) editComment(ctx context.Context, in *ops.Input) (any, error) {
	return a.Edit(ctx, in.UserID(), in.Int("comment_id"), in.Str("body"))
}

func (a *Service) deleteComment(ctx context.Context, in *ops.Input) (any, error) {
	return a.Delete(ctx, in.UserID(), in.Int("comment_id"))
}

func (a *Service) pinComment(ctx context.Context, in *ops.Input) (any, error) {
	return a.Pin(ctx, in.UserID(), in.Int("comment_id"), in.Bool("pinned"))
}

// NotificationSettings is every kind of notification email and whether
// the person gets it.
type NotificationSettings struct {
	Settings []kernel.NotifySetting `json:"settings"`
}

func (a *Service) getNotificationSettings(ctx context.Context, in *ops.Input) (any, error) {
	s, err := a.NotificationSettings(ctx, in.UserID())
	return NotificationSettings{Settings: s}, err
}

func (a *Service) updateNotificationSettings(ctx context.Context, in *ops.Input) (any, error) {
	var body struct {
		Settings []struct {
			Kind string `json:"kind"`
			On   bool   `json:"on"`
		} `json:"settings"`
	}
	if err := in.Decode(&body); err != nil {
		return nil, err
	}
	changes := map[string]bool{}
	for _, s := range body.Settings {
		changes[s.Kind] = s.On
	}
	out, err := a.setNotifications(ctx, in.UserID(), changes)
	if err != nil {
		return nil, err
	}
	return out, nil
}
