package site

import (
	"net/http"
	"strconv"

	"launchdir/app/admin"
	"launchdir/app/kernel"
	"launchdir/routes"

	"github.com/julienschmidt/httprouter"
)

// The site team's comment moderation: hide and restore (issue 22). The
// rules are app/admin's (comments.go); reports of comments arrive in the
// moderation page's reports queue.

func init() {
	doneMessages["comment-hidden"] = "The comment is hidden from every page and the API."
	doneMessages["comment-restored"] = "The comment is shown again."
}

func (s *Site) mountAdminComments(srv *routes.Server) {
	srv.Handle(http.MethodPost, "/admin/comments/:id/hide", s.guard(true, s.adminHideComment))
	srv.Handle(http.MethodPost, "/admin/comments/:id/restore", s.guard(true, s.adminRestoreComment))
}

func (s *Site) adminHideComment(w http.ResponseWriter, r *http.Request, ps httprouter.Params, uid int64) {
	id, _ := strconv.ParseInt(ps.ByName("id"), 10, 64)
	if err := s.App.Admin.HideComment(r.Context(), uid, id, r.PostFormValue("reason")); err != nil {
		s.areaError(w, r, uid, err)
		return
	}
	done(w, r, "/admin/moderation", "comment-hidden", nil)
}

func (s *Site) adminRestoreComment(w http.ResponseWriter, r *http.Request, ps httprouter.Params, uid int64) {
	id, _ := strconv.ParseInt(ps.ByName("id"), 10, 64)
	if err := s.App.Admin.RestoreComment(r.Context(), uid, id); err != nil {
		s.areaError(w, r, uid, err)
		return
	}
	done(w, r, "/admin/moderation", "comment-restored", nil)
}

// hiddenComments is the moderation page's restore list.
func (s *Site) hiddenComments(r *http.Request, uid int64) (kernel.Page[admin.HiddenComment], error) {
	return s.App.Admin.HiddenComments(r.Context(), uid, admin.AdminPage{PerPage: 20})
}
