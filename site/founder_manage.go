package site

import (
	"context"
	"net/http"
	"strings"

	"launchdir/ops"
	"launchdir/routes"

	"github.com/julienschmidt/httprouter"
)

// The founder area's forms for the owner operations of issue 23: archive
// or withdraw, edit and delete updates, co-owners and ownership, approved
// alternatives, category attributes, cancel an unpaid order, delete a
// draft. Each runs the same operation as the API (s.op), so its rules and
// refusals are the API's.

// loadManage fills the listing page's approved alternatives and category
// attributes (errors leave them empty: the rest of the page still works).
func (s *Site) loadManage(ctx context.Context, uid int64, d *myListingData) {
	l := d.L
	if l.Listing == nil {
		return
	}
	if l.Status == "live" {
		var alts struct {
			Items []struct {
				Slug     string `json:"slug"`
				Approved bool   `json:"approved"`
			} `json:"items"`
		}
		if err := s.op(ctx, uid, "get_alternatives", map[string]any{"slug": l.Slug, "per_page": 10}, &alts); err == nil {
			var slugs []string
			for _, a := range alts.Items {
				if a.Approved {
					slugs = append(slugs, a.Slug)
				}
			}
			d.Approved = strings.Join(slugs, "\n")
		}
	}
	if l.Category != nil {
		names, _ := s.App.DB.CategoryAttributes(ctx, l.Category.Slug)
		for _, n := range names {
			d.Attributes = append(d.Attributes, factField{Name: n, Label: n, Value: l.Attributes[n]})
		}
	}
}

func (s *Site) mountFounderManage(srv *routes.Server) {
	post := func(path string, h areaHandler) { srv.Handle(http.MethodPost, path, s.guard(false, h)) }
	post("/me/listings/:id/archive", s.myListingArchive)
	post("/me/listings/:id/updates/:uid/edit", s.myListingUpdateEdit)
	post("/me/listings/:id/updates/:uid/delete", s.myListingUpdateDelete)
	post("/me/listings/:id/owners/:user/remove", s.myListingOwnerRemove)
	post("/me/listings/:id/transfer", s.myListingTransfer)
	post("/me/listings/:id/alternatives", s.myListingAlternatives)
	post("/me/listings/:id/attributes", s.myListingAttributes)
	post("/me/orders/:number/cancel", s.myOrderCancel)
	post("/me/drafts/:id/delete", s.myDraftDelete)
}

// confirmed: a destructive form carries a ticked "confirm" box; without
// it the page says what to do (nothing changes).
func confirmed(r *http.Request) error {
	if r.PostFormValue("confirm") == "yes" {
		return nil
	}
	return ops.Invalid("confirm", "tick the box to confirm; nothing was changed")
}

func (s *Site) myListingArchive(w http.ResponseWriter, r *http.Request, ps httprouter.Params, uid int64) {
	err := confirmed(r)
	if err == nil {
		err = s.op(r.Context(), uid, "archive_my_listing", map[string]any{"listing_id": idArg(ps.ByName("id"))}, nil)
	}
	if err != nil {
		s.listingRefusal(w, r, uid, err, nil)
		return
	}
	done(w, r, "/me/listings/"+ps.ByName("id"), "archived", nil)
}

func (s *Site) myListingUpdateEdit(w http.ResponseWriter, r *http.Request, ps httprouter.Params, uid int64) {
	err := s.op(r.Context(), uid, "update_listing_update", map[string]any{"listing_id": idArg(ps.ByName("id")), "update_id": idArg(ps.ByName("uid")),
		"title": r.PostFormValue("title"), "body": r.PostFormValue("body")}, nil)
	if err != nil {
		s.listingRefusal(w, r, uid, err, nil)
		return
	}
	done(w, r, "/me/listings/"+ps.ByName("id"), "update-edited", nil)
}

func (s *Site) myListingUpdateDelete(w http.ResponseWriter, r *http.Request, ps httprouter.Params, uid int64) {
	err := confirmed(r)
	if err == nil {
		err = s.op(r.Context(), uid, "delete_listing_update", map[string]any{"listing_id": idArg(ps.ByName("id")), "update_id": idArg(ps.ByName("uid"))}, nil)
	}
	if err != nil {
		s.listingRefusal(w, r, uid, err, nil)
		return
	}
	done(w, r, "/me/listings/"+ps.ByName("id"), "update-deleted", nil)
}

func (s *Site) myListingOwnerRemove(w http.ResponseWriter, r *http.Request, ps httprouter.Params, uid int64) {
	err := confirmed(r)
	var res struct {
		YouLeft bool `json:"you_left"`
	}
	if err == nil {
		err = s.op(r.Context(), uid, "remove_co_owner", map[string]any{"listing_id": idArg(ps.ByName("id")), "user_id": idArg(ps.ByName("user"))}, &res)
	}
	if err != nil {
		s.listingRefusal(w, r, uid, err, nil)
		return
	}
	if res.YouLeft {
		done(w, r, "/me/listings", "left", nil)
		return
	}
	done(w, r, "/me/listings/"+ps.ByName("id"), "owner-removed", nil)
}

func (s *Site) myListingTransfer(w http.ResponseWriter, r *http.Request, ps httprouter.Params, uid int64) {
	err := confirmed(r)
	if err == nil {
		err = s.op(r.Context(), uid, "transfer_ownership", map[string]any{"listing_id": idArg(ps.ByName("id")), "user_id": idArg(r.PostFormValue("user_id"))}, nil)
	}
	if err != nil {
		s.listingRefusal(w, r, uid, err, nil)
		return
	}
	done(w, r, "/me/listings/"+ps.ByName("id"), "transferred", nil)
}

// myListingAlternatives takes the approved slugs one per line (or
// separated by commas), in order.
func (s *Site) myListingAlternatives(w http.ResponseWriter, r *http.Request, ps httprouter.Params, uid int64) {
	approved := []any{}
	for _, f := range strings.FieldsFunc(r.PostFormValue("approved"), func(r rune) bool { return r == ',' || r == '\n' || r == '\r' || r == ' ' }) {
		approved = append(approved, strings.ToLower(strings.TrimSpace(f)))
	}
	err := s.op(r.Context(), uid, "set_alternatives", map[string]any{"listing_id": idArg(ps.ByName("id")), "approved": approved}, nil)
	if err != nil {
		s.listingRefusal(w, r, uid, err, func(d *myListingData) { d.Approved = r.PostFormValue("approved") })
		return
	}
	done(w, r, "/me/listings/"+ps.ByName("id"), "alternatives", nil)
}

// myListingAttributes sends every attribute box of the form (a-<name>);
// an empty box removes that attribute.
func (s *Site) myListingAttributes(w http.ResponseWriter, r *http.Request, ps httprouter.Params, uid int64) {
	attrs := map[string]any{}
	for k, v := range r.PostForm {
		if name, ok := strings.CutPrefix(k, "a-"); ok && len(v) > 0 {
			attrs[name] = v[0]
		}
	}
	err := s.op(r.Context(), uid, "set_category_attributes", map[string]any{"listing_id": idArg(ps.ByName("id")), "attributes": attrs}, nil)
	if err != nil {
		s.listingRefusal(w, r, uid, err, nil)
		return
	}
	done(w, r, "/me/listings/"+ps.ByName("id"), "attributes", nil)
}

func (s *Site) myOrderCancel(w http.ResponseWriter, r *http.Request, ps httprouter.Params, uid int64) {
	if err := s.op(r.Context(), uid, "cancel_order", map[string]any{"number": ps.ByName("number")}, nil); err != nil {
		s.areaError(w, r, uid, err)
		return
	}
	done(w, r, "/me/orders/"+ps.ByName("number"), "canceled", nil)
}

func (s *Site) myDraftDelete(w http.ResponseWriter, r *http.Request, ps httprouter.Params, uid int64) {
	err := confirmed(r)
	if err == nil {
		err = s.op(r.Context(), uid, "delete_draft", map[string]any{"id": ps.ByName("id")}, nil)
	}
	if err != nil {
		s.areaError(w, r, uid, err)
		return
	}
	done(w, r, "/me/drafts", "draft-deleted", nil)
}
