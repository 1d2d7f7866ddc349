package owning

import (
	"context"
	"database/sql"
	"encoding/json"
	"fmt"
	"slices"
	"strings"

	"launchdir/app/kernel"
	"launchdir/db"
	"launchdir/ops"
)

// The owner's lifecycle operations (issue 23): archive or withdraw a
// listing, edit or delete an update, remove a co-owner, hand the listing to
// a co-owner, approve alternatives and state category attributes. Each
// checks ownership first (another user's listing is a 404) and keeps a
// revision for the site team.

// maxAttributes bounds set_category_attributes (a category tree has a
// handful per category).
const maxAttributes = 30

func (a *Service) lifecycleOperations() []*ops.Operation {
	updateID := kernel.PathParam("update_id", ops.IntMin(1).Desc("Update id (integer >= 1)."))
	attrs := ops.Map(ops.Str(200)).Desc("Attribute name (from the primary category's compare attributes) → value (max 200; empty removes). Only the names sent change.")
	attrs.MaxProps = maxAttributes
	return []*ops.Operation{
		{ID: "archive_my_listing", Output: ops.Out[ArchivedListing](), Method: "POST", Path: "/me/listings/:listing_id/archive", Toolset: "listings",
			Scope: ops.ScopeListingsWrite, Idem: true, Destructive: true,
			Summary:     "Archive a live listing, or withdraw one from its free launch queue",
			Description: "A live listing is archived: it leaves the site (its public page, boards and search answer as for an unknown listing) and keeps its data, votes and awards. A listing queued for a free launch (scheduled on the free plan, or awaiting its badge) is withdrawn back to draft and gives up its week. Only the listing's owner (not a co-founder) can do this; a paid scheduled launch is refused (ask the site team).",
			Params:      []ops.Param{kernel.ListingIDParam}, Handler: a.archiveMyListing},
		{ID: "update_listing_update", Output: ops.Out[PostedUpdate](), Method: "PATCH", Path: "/me/listings/:listing_id/updates/:update_id", Toolset: "listings",
			Scope: ops.ScopeListingsWrite, Idem: true, Destructive: true,
			Summary:     "Edit an update you posted",
			Description: "title (max 200) and body (max 5000), each optional: what is sent changes. Followers are not emailed again.",
			Params:      []ops.Param{kernel.ListingIDParam, updateID},
			Body:        ops.Obj(ops.P("title", ops.Str(200).Min1()), ops.P("body", ops.Str(5000).Min1())),
			Handler:     a.editListingUpdate},
		{ID: "delete_listing_update", Output: ops.Out[PostedUpdate](), Method: "DELETE", Path: "/me/listings/:listing_id/updates/:update_id", Toolset: "listings",
			Scope: ops.ScopeListingsWrite, Idem: true, Destructive: true,
			Summary:     "Delete an update of your listing",
			Description: "Removes the update from the listing and the latest-updates page and returns what was deleted.",
			Params:      []ops.Param{kernel.ListingIDParam, updateID}, Handler: a.deleteListingUpdate},
		{ID: "remove_co_owner", Output: ops.Out[Owners](), Method: "DELETE", Path: "/me/listings/:listing_id/owners/:user_id", Toolset: "listings",
			Scope: ops.ScopeListingsWrite, Idem: true, Destructive: true,
			Summary:     "Remove a co-owner from your listing (or leave it)",
			Description: "The owner removes a co-founder; a co-founder can remove themselves (leave). The owner cannot be removed: transfer_ownership first. user_id from get_my_listing's owners.",
			Params:      []ops.Param{kernel.ListingIDParam, kernel.PathParam("user_id", ops.IntMin(1).Desc("A co-owner's user id (from owners)."))},
			Handler:     a.removeCoOwner},
		{ID: "transfer_ownership", Output: ops.Out[Owners](), Method: "POST", Path: "/me/listings/:listing_id/transfer", Toolset: "listings",
			Scope: ops.ScopeListingsWrite, Idem: true, Destructive: true,
			Summary:     "Hand your listing to one of its co-owners",
			Description: "user_id: a co-owner of the listing (from get_my_listing's owners). They become the owner; you stay on as a co-founder (remove_co_owner to leave).",
			Params:      []ops.Param{kernel.ListingIDParam},
			Body:        ops.Obj(ops.R("user_id", ops.IntMin(1))), Handler: a.transferOwnership},
		{ID: "set_alternatives", Output: ops.Out[ApprovedAlternatives](), Method: "PUT", Path: "/me/listings/:listing_id/alternatives", Toolset: "listings",
			Scope: ops.ScopeListingsWrite, Idem: true, Destructive: true,
			Summary:     "Approve the alternatives shown first on your listing",
			Description: "approved: up to 10 slugs of live listings; replaces the approved list (get_alternatives shows them first, approved=true). An empty list approves none.",
			Params:      []ops.Param{kernel.ListingIDParam},
			Body:        ops.Obj(ops.R("approved", ops.Arr(kernel.SlugSchema, 10))), Handler: a.setAlternatives},
		{ID: "set_category_attributes", Output: ops.Out[CategoryAttributes](), Method: "PATCH", Path: "/me/listings/:listing_id/attributes", Toolset: "listings",
			Scope: ops.ScopeListingsWrite, Idem: true, Destructive: true,
			Summary:     "State your listing's category attributes (open source, SSO, ...) used by compare",
			Description: "attributes: name → value for the compare attributes of the listing's primary category (and its parent); an empty value removes one; names not sent stay. Unknown names are refused with the names allowed.",
			Params:      []ops.Param{kernel.ListingIDParam},
			Body:        ops.Obj(ops.R("attributes", attrs)), Handler: a.setCategoryAttributes},
	}
}

// ArchivedListing is archive_my_listing's body.
type ArchivedListing struct {
	ListingID int64  `json:"listing_id"`
	Before    string `json:"before" enum:"$listing_status"`
	Status    string `json:"status" enum:"$listing_status"`
	Note      string `json:"note"`
}

// Owner is one owner of a listing.
type Owner struct {
	UserID int64  `json:"user_id"`
	Name   string `json:"name"`
	Role   string `json:"role" enum:"owner,claimed,cofounder"`
}

// Owners is the owners of a listing after a change.
type Owners struct {
	ListingID int64   `json:"listing_id"`
	Owners    []Owner `json:"owners"`
	// YouLeft is true when you removed yourself: the listing is no longer yours.
	YouLeft bool `json:"you_left,omitempty"`
}

// ApprovedAlternatives is set_alternatives' body.
type ApprovedAlternatives struct {
	ListingID int64        `json:"listing_id"`
	Approved  []db.Summary `json:"approved"`
}

// CategoryAttributes is set_category_attributes' body.
type CategoryAttributes struct {
	ListingID  int64             `json:"listing_id"`
	Attributes map[string]string `json:"attributes"`
	Allowed    []string          `json:"allowed"`
}

// leadRole: the owner (who submitted) or a verified claimant decide the
// listing's fate; a co-founder added by an invite edits content only.
func leadRole(role string) bool { return role == "owner" || role == "claimed" }

// ownerRole checks that userID owns the listing and returns their role.
func ownerRole(ctx context.Context, q kernel.Querier, userID, listingID int64) (string, error) {
	var role string
	err := q.QueryRowContext(ctx, `SELECT role FROM listing_owners WHERE listing_id = ? AND user_id = ?`, listingID, userID).Scan(&role)
	if db.IsNoRows(err) {
		return "", kernel.ErrNotYourListing()
	}
	return role, err
}

func forbidden(detail string) error {
	return &ops.Error{Code: ops.CodeForbidden, Detail: detail}
}

func (a *Service) archiveMyListing(ctx context.Context, in *ops.Input) (any, error) {
	id, uid := in.Int("listing_id"), in.UserID()
	var out ArchivedListing
	err := a.DB.Tx(ctx, func(tx *sql.Tx) error {
		role, err := ownerRole(ctx, tx, uid, id)
		if err != nil {
			return err
		}
		if !leadRole(role) {
			return forbidden("only the listing's owner can archive or withdraw it; you are a co-founder on it")
		}
		var status, plan string
		if err := tx.QueryRowContext(ctx, `SELECT status, plan FROM listings WHERE id = ?`, id).Scan(&status, &plan); err != nil {
			return err
		}
		out = ArchivedListing{ListingID: id, Before: status}
		now := a.NowText()
		switch {
		case status == "live":
			out.Status, out.Note = "archived", "Archived: the listing is off the site; its data, votes and awards are kept."
			_, err = tx.ExecContext(ctx, `UPDATE listings SET status = 'archived', updated_at = ? WHERE id = ?`, now, id)
		case status == "awaiting_badge" || status == "scheduled" && plan == "free":
			out.Status, out.Note = "draft", "Withdrawn: the listing left the free launch queue and is a draft again; choose the free launch again when ready."
			_, err = tx.ExecContext(ctx, `UPDATE listings SET status = 'draft', launch_week = NULL, updated_at = ? WHERE id = ?`, now, id)
		case status == "scheduled":
			return ops.Invalid("listing_id", "the listing has a paid launch booked for %s; ask the site team to move or cancel it", a.launchWeek(ctx, tx, id))
		default:
			return ops.Invalid("listing_id", "the listing is %s: only a live listing can be archived, or a queued one withdrawn", status)
		}
		if err != nil {
			return err
		}
		if err := db.RecountCategories(ctx, tx); err != nil {
			return err
		}
		if err := a.Revise(ctx, tx, "listing", id, id, uid, "archive_my_listing", map[string]any{"status": status}, map[string]any{"status": out.Status}); err != nil {
			return err
		}
		return kernel.RespondInTx(ctx, tx, out)
	})
	return out, err
}

func (a *Service) launchWeek(ctx context.Context, q kernel.Querier, id int64) string {
	var w sql.NullString
	_ = q.QueryRowContext(ctx, `SELECT launch_week FROM listings WHERE id = ?`, id).Scan(&w)
	return w.String
}

// ownUpdate checks the listing and finds its update.
func (a *Service) ownUpdate(ctx context.Context, tx *sql.Tx, uid, id, updateID int64) (db.Update, error) {
	var u db.Update
	if err := a.OwnListing(ctx, tx, uid, id); err != nil {
		return u, err
	}
	err := tx.QueryRowContext(ctx, `SELECT id, title, body, created_at FROM listing_updates WHERE id = ? AND listing_id = ?`, updateID, id).
		Scan(&u.ID, &u.Title, &u.Body, &u.CreatedAt)
	if db.IsNoRows(err) {
		return u, &ops.Error{Code: ops.CodeNotFound, Detail: "no update with this id on this listing",
			Fields: []ops.FieldError{{Field: "update_id", Message: "no update with this id on this listing"}}}
	}
	return u, err
}

func (a *Service) editListingUpdate(ctx context.Context, in *ops.Input) (any, error) {
	id, uid, updateID := in.Int("listing_id"), in.UserID(), in.Int("update_id")
	var out PostedUpdate
	err := a.DB.Tx(ctx, func(tx *sql.Tx) error {
		before, err := a.ownUpdate(ctx, tx, uid, id, updateID)
		if err != nil {
			return err
		}
		after := before
		if in.Has("title") {
			after.Title = kernel.NormalizeText(in.Str("title"))
		}
		if in.Has("body") {
			after.Body = kernel.NormalizeText(in.Str("body"))
		}
		if _, err := tx.ExecContext(ctx, `UPDATE listing_updates SET title = ?, body = ? WHERE id = ?`, after.Title, after.Body, updateID); err != nil {
			return err
		}
		out = PostedUpdate{Update: after, ListingID: id}
		if err := a.Revise(ctx, tx, "listing_update", updateID, id, uid, "update_listing_update", before, after); err != nil {
			return err
		}
		return kernel.RespondInTx(ctx, tx, out)
	})
	return out, err
}

func (a *Service) deleteListingUpdate(ctx context.Context, in *ops.Input) (any, error) {
	id, uid, updateID := in.Int("listing_id"), in.UserID(), in.Int("update_id")
	var out PostedUpdate
	err := a.DB.Tx(ctx, func(tx *sql.Tx) error {
		before, err := a.ownUpdate(ctx, tx, uid, id, updateID)
		if err != nil {
			return err
		}
		if _, err := tx.ExecContext(ctx, `DELETE FROM listing_updates WHERE id = ?`, updateID); err != nil {
			return err
		}
		out = PostedUpdate{Update: before, ListingID: id}
		if err := a.Revise(ctx, tx, "listing_update", updateID, id, uid, "delete_listing_update", before, nil); err != nil {
			return err
		}
		return kernel.RespondInTx(ctx, tx, out)
	})
	return out, err
}

// ListingOwners lists a listing's owners, the owner first.
func ListingOwners(ctx context.Context, q kernel.RowsQuerier, id int64) ([]Owner, error) {
	rows, err := q.QueryContext(ctx, `SELECT o.user_id, coalesce(nullif(u.name, ''), u.email), o.role FROM listing_owners o JOIN users u ON u.id = o.user_id
		WHERE o.listing_id = `+db.IntArg+` ORDER BY o.role = 'cofounder', o.created_at, o.user_id`, id)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	out := []Owner{}
	for rows.Next() {
		var o Owner
		if err := rows.Scan(&o.UserID, &o.Name, &o.Role); err != nil {
			return nil, err
		}
		out = append(out, o)
	}
	return out, rows.Err()
}

func (a *Service) removeCoOwner(ctx context.Context, in *ops.Input) (any, error) {
	id, uid, target := in.Int("listing_id"), in.UserID(), in.Int("user_id")
	var out Owners
	err := a.DB.Tx(ctx, func(tx *sql.Tx) error {
		role, err := ownerRole(ctx, tx, uid, id)
		if err != nil {
			return err
		}
		var targetRole string
		err = tx.QueryRowContext(ctx, `SELECT role FROM listing_owners WHERE listing_id = ? AND user_id = ?`, id, target).Scan(&targetRole)
		switch {
		case db.IsNoRows(err):
			return &ops.Error{Code: ops.CodeNotFound, Detail: "this user is not an owner of the listing",
				Fields: []ops.FieldError{{Field: "user_id", Message: "not an owner of this listing"}}}
		case err != nil:
			return err
		case leadRole(targetRole):
			return ops.Invalid("user_id", "the listing's owner cannot be removed; transfer_ownership to a co-owner first")
		case target != uid && !leadRole(role):
			return forbidden("only the listing's owner can remove a co-owner; you can remove yourself")
		}
		if _, err := tx.ExecContext(ctx, `DELETE FROM listing_owners WHERE listing_id = ? AND user_id = ?`, id, target); err != nil {
			return err
		}
		if err := a.Revise(ctx, tx, "owners", id, id, uid, "remove_co_owner", map[string]any{"user_id": target, "role": targetRole}, nil); err != nil {
			return err
		}
		out.ListingID, out.YouLeft = id, target == uid
		if out.Owners, err = ListingOwners(ctx, tx, id); err != nil {
			return err
		}
		return kernel.RespondInTx(ctx, tx, out)
	})
	return out, err
}

func (a *Service) transferOwnership(ctx context.Context, in *ops.Input) (any, error) {
	id, uid, target := in.Int("listing_id"), in.UserID(), in.Int("user_id")
	var out Owners
	err := a.DB.Tx(ctx, func(tx *sql.Tx) error {
		role, err := ownerRole(ctx, tx, uid, id)
		if err != nil {
			return err
		}
		if !leadRole(role) {
			return forbidden("only the listing's owner can hand it over; you are a co-founder on it")
		}
		if target == uid {
			return ops.Invalid("user_id", "you are the owner already; choose one of the co-owners")
		}
		var targetRole string
		err = tx.QueryRowContext(ctx, `SELECT role FROM listing_owners WHERE listing_id = ? AND user_id = ?`, id, target).Scan(&targetRole)
		if db.IsNoRows(err) {
			return ops.Invalid("user_id", "is not a co-owner of this listing; invite them to a draft or let them claim it first")
		}
		if err != nil {
			return err
		}
		if _, err := tx.ExecContext(ctx, `UPDATE listing_owners SET role = 'owner' WHERE listing_id = ? AND user_id = ?`, id, target); err != nil {
			return err
		}
		if _, err := tx.ExecContext(ctx, `UPDATE listing_owners SET role = 'cofounder' WHERE listing_id = ? AND user_id = ?`, id, uid); err != nil {
			return err
		}
		if err := a.Revise(ctx, tx, "owners", id, id, uid, "transfer_ownership", map[string]any{"owner": uid}, map[string]any{"owner": target}); err != nil {
			return err
		}
		out.ListingID = id
		if out.Owners, err = ListingOwners(ctx, tx, id); err != nil {
			return err
		}
		return kernel.RespondInTx(ctx, tx, out)
	})
	return out, err
}

func (a *Service) setAlternatives(ctx context.Context, in *ops.Input) (any, error) {
	id, uid := in.Int("listing_id"), in.UserID()
	var req struct {
		Approved []string `json:"approved"`
	}
	if err := in.Decode(&req); err != nil {
		return nil, err
	}
	out := ApprovedAlternatives{ListingID: id, Approved: []db.Summary{}}
	err := a.DB.Tx(ctx, func(tx *sql.Tx) error {
		if err := a.OwnListing(ctx, tx, uid, id); err != nil {
			return err
		}
		var ids []int64
		var bad []ops.FieldError
		for i, slug := range req.Approved {
			var aid int64
			err := tx.QueryRowContext(ctx, `SELECT id FROM listings WHERE slug = ? AND status = 'live'`, slug).Scan(&aid)
			switch {
			case db.IsNoRows(err):
				bad = append(bad, ops.FieldError{Field: fmt.Sprintf("approved[%d]", i), Message: "no live listing has this slug"})
			case err != nil:
				return err
			case aid == id:
				bad = append(bad, ops.FieldError{Field: fmt.Sprintf("approved[%d]", i), Message: "a listing is not its own alternative"})
			case slices.Contains(ids, aid):
				bad = append(bad, ops.FieldError{Field: fmt.Sprintf("approved[%d]", i), Message: "listed twice"})
			default:
				ids = append(ids, aid)
			}
		}
		if len(bad) > 0 {
			return ops.InvalidFields(bad)
		}
		before, err := db.Column[int64](ctx, tx, `SELECT alternative_id FROM alternatives WHERE listing_id = ? AND approved = 1 ORDER BY alternative_id`, id)
		if err != nil {
			return err
		}
		if _, err := tx.ExecContext(ctx, `UPDATE alternatives SET approved = 0 WHERE listing_id = ?`, id); err != nil {
			return err
		}
		for _, aid := range ids {
			if _, err := tx.ExecContext(ctx, `INSERT INTO alternatives(listing_id, alternative_id, approved) VALUES(?,?,1)
				ON CONFLICT(listing_id, alternative_id) DO UPDATE SET approved = 1`, id, aid); err != nil {
				return err
			}
			s, err := a.DB.Summaries(ctx, ` WHERE l.id = ?`, aid)
			if err != nil {
				return err
			}
			out.Approved = append(out.Approved, s...)
		}
		after := slices.Clone(ids)
		slices.Sort(after)
		if err := a.Revise(ctx, tx, "alternatives", id, id, uid, "set_alternatives", map[string]any{"approved": before}, map[string]any{"approved": after}); err != nil {
			return err
		}
		return kernel.RespondInTx(ctx, tx, out)
	})
	return out, err
}

func (a *Service) setCategoryAttributes(ctx context.Context, in *ops.Input) (any, error) {
	id, uid := in.Int("listing_id"), in.UserID()
	var req struct {
		Attributes map[string]string `json:"attributes"`
	}
	if err := in.Decode(&req); err != nil {
		return nil, err
	}
	var out CategoryAttributes
	err := a.DB.Tx(ctx, func(tx *sql.Tx) error {
		if err := a.OwnListing(ctx, tx, uid, id); err != nil {
			return err
		}
		var catSlug, raw string
		if err := tx.QueryRowContext(ctx, `SELECT coalesce(c.slug, ''), l.attributes FROM listings l LEFT JOIN categories c ON c.id = l.primary_category_id
			WHERE l.id = ?`, id).Scan(&catSlug, &raw); err != nil {
			return err
		}
		allowed, err := a.DB.CategoryAttributes(ctx, catSlug)
		if err != nil {
			return err
		}
		var bad []ops.FieldError
		for name := range req.Attributes {
			if !slices.Contains(allowed, name) {
				bad = append(bad, ops.FieldError{Field: "attributes." + name, Message: "not an attribute of the listing's category; allowed: " + strings.Join(allowed, ", ")})
			}
		}
		if len(bad) > 0 {
			slices.SortFunc(bad, func(x, y ops.FieldError) int { return strings.Compare(x.Field, y.Field) })
			return ops.InvalidFields(bad)
		}
		before := map[string]string{}
		_ = json.Unmarshal([]byte(raw), &before) // a malformed value is replaced
		after := map[string]string{}
		for k, v := range before {
			after[k] = v
		}
		for k, v := range req.Attributes {
			if v = strings.TrimSpace(v); v == "" {
				delete(after, k)
			} else {
				after[k] = v
			}
		}
		if _, err := tx.ExecContext(ctx, `UPDATE listings SET attributes = ?, updated_at = ? WHERE id = ?`, db.EncodeJSON(after), a.NowText(), id); err != nil {
			return err
		}
		out = CategoryAttributes{ListingID: id, Attributes: after, Allowed: allowed}
		if err := a.Revise(ctx, tx, "listing", id, id, uid, "set_category_attributes", map[string]any{"attributes": before}, map[string]any{"attributes": after}); err != nil {
			return err
		}
		return kernel.RespondInTx(ctx, tx, out)
	})
	return out, err
}
