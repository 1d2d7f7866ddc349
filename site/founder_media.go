package site

import (
	"encoding/base64"
	"io"
	"net/http"
	"net/url"

	"launchdir/app/media"
	"launchdir/ops"
	"launchdir/routes"

	"github.com/julienschmidt/httprouter"
)

// The founder's image forms (issue 21): each form posts one file as
// multipart/form-data and runs the same operation as REST and MCP.
func (s *Site) mountFounderMedia(srv *routes.Server) {
	post := func(path string, h areaHandler) { srv.Handle(http.MethodPost, path, s.guard(false, h)) }
	post("/me/listings/:id/logo", s.myListingLogo)
	post("/me/listings/:id/screenshots", s.myListingScreenshot)
	post("/me/listings/:id/screenshots/:sid", s.myListingScreenshotEdit)
	post("/me/listings/:id/founders/:slug/avatar", s.myFounderAvatar)
	post("/me/drafts/:id/logo", s.myDraftLogo)
	srv.Handle(http.MethodPost, "/admin/settings/images", s.guard(true, s.adminSiteImages))
}

// adminSiteImages sets or resets the favicon or the site logo.
func (s *Site) adminSiteImages(w http.ResponseWriter, r *http.Request, _ httprouter.Params, uid int64) {
	kind := media.KindFavicon
	if r.PostFormValue("which") == "site_logo" {
		kind = media.KindSiteLogo
	}
	var data []byte
	if r.PostFormValue("do") != "reset" {
		b64, err := formFile(r)
		if err == nil && b64 == "" {
			err = ops.Invalid("file", "choose an image file")
		}
		if err != nil {
			s.renderArea(w, r, "admin_settings", "Settings", http.StatusBadRequest, uid, s.App.Admin.Settings(r.Context()), ops.AsError(err).Error())
			return
		}
		data, _ = base64.StdEncoding.DecodeString(b64)
	}
	if err := s.App.Admin.SetSiteImage(r.Context(), uid, kind, data); err != nil {
		e := ops.AsError(err)
		if e.Code != ops.CodeInvalid {
			s.areaError(w, r, uid, err)
			return
		}
		s.renderArea(w, r, "admin_settings", "Settings", http.StatusBadRequest, uid, s.App.Admin.Settings(r.Context()), e.Error())
		return
	}
	done(w, r, "/admin/settings", "settings", nil)
}

func init() {
	for k, v := range map[string]string{
		"logo":        "The logo is saved; it shows on every card and on the listing page.",
		"logoremoved": "The logo is removed; the listing shows its initial.",
		"screenshot":  "The gallery is saved.",
		"avatar":      "The founder's picture is saved.",
	} {
		doneMessages[k] = v
	}
}

// formFile reads the form's image file as base64 (the operations' input),
// or "" when no file was chosen.
func formFile(r *http.Request) (string, error) {
	f, _, err := r.FormFile("file")
	if err == http.ErrMissingFile {
		return "", nil
	}
	if err != nil {
		return "", ops.Invalid("file", "could not be read")
	}
	defer f.Close()
	b, err := io.ReadAll(io.LimitReader(f, media.MaxBytes+1))
	if err != nil {
		return "", ops.Invalid("file", "could not be read")
	}
	return base64.StdEncoding.EncodeToString(b), nil
}

// imageArgs are the operation's image inputs from the form: the file, else
// the URL box.
func imageArgs(r *http.Request, args map[string]any) error {
	b64, err := formFile(r)
	if err != nil {
		return err
	}
	if b64 != "" {
		args["image_base64"] = b64
	} else if u := r.PostFormValue("image_url"); u != "" {
		args["image_url"] = u
	}
	return nil
}

func (s *Site) myListingLogo(w http.ResponseWriter, r *http.Request, ps httprouter.Params, uid int64) {
	id := ps.ByName("id")
	args := map[string]any{"listing_id": idArg(id)}
	op, key := "set_listing_logo", "logo"
	if r.PostFormValue("do") == "remove" {
		op, key = "delete_listing_logo", "logoremoved"
	} else if err := imageArgs(r, args); err != nil {
		s.listingRefusal(w, r, uid, err, nil)
		return
	}
	if err := s.op(r.Context(), uid, op, args, nil); err != nil {
		s.listingRefusal(w, r, uid, err, nil)
		return
	}
	done(w, r, "/me/listings/"+url.PathEscape(id), key, nil)
}

func (s *Site) myListingScreenshot(w http.ResponseWriter, r *http.Request, ps httprouter.Params, uid int64) {
	id := ps.ByName("id")
	args := map[string]any{"listing_id": idArg(id), "caption": r.PostFormValue("caption")}
	if err := imageArgs(r, args); err != nil {
		s.listingRefusal(w, r, uid, err, nil)
		return
	}
	if err := s.op(r.Context(), uid, "add_screenshot", args, nil); err != nil {
		s.listingRefusal(w, r, uid, err, nil)
		return
	}
	done(w, r, "/me/listings/"+url.PathEscape(id), "screenshot", nil)
}

// myListingScreenshotEdit removes a screenshot or moves it one place.
func (s *Site) myListingScreenshotEdit(w http.ResponseWriter, r *http.Request, ps httprouter.Params, uid int64) {
	id, sid := ps.ByName("id"), idArg(ps.ByName("sid"))
	lid, _ := idArg(id).(int64)
	var err error
	switch do := r.PostFormValue("do"); do {
	case "remove":
		err = s.op(r.Context(), uid, "delete_screenshot", map[string]any{"listing_id": idArg(id), "screenshot_id": sid}, nil)
	case "up", "down":
		var g media.Gallery
		if g, err = s.App.Media.MyGallery(r.Context(), uid, lid); err == nil {
			err = s.op(r.Context(), uid, "reorder_screenshots", map[string]any{"listing_id": idArg(id), "ids": moved(g, sid, do == "up")}, nil)
		}
	default:
		err = ops.Invalid("do", "must be remove, up or down")
	}
	if err != nil {
		s.listingRefusal(w, r, uid, err, nil)
		return
	}
	done(w, r, "/me/listings/"+url.PathEscape(id), "screenshot", nil)
}

// moved is the gallery's ids with sid moved one place up or down.
func moved(g media.Gallery, sid any, up bool) []any {
	ids := []any{}
	at := -1
	for i, s := range g.Screenshots {
		ids = append(ids, s.ID)
		if s.ID == sid {
			at = i
		}
	}
	to := at + 1
	if up {
		to = at - 1
	}
	if at >= 0 && to >= 0 && to < len(ids) {
		ids[at], ids[to] = ids[to], ids[at]
	}
	return ids
}

func (s *Site) myFounderAvatar(w http.ResponseWriter, r *http.Request, ps httprouter.Params, uid int64) {
	id := ps.ByName("id")
	args := map[string]any{"listing_id": idArg(id), "founder_slug": ps.ByName("slug")}
	if err := imageArgs(r, args); err != nil {
		s.listingRefusal(w, r, uid, err, nil)
		return
	}
	if err := s.op(r.Context(), uid, "set_founder_avatar", args, nil); err != nil {
		s.listingRefusal(w, r, uid, err, nil)
		return
	}
	done(w, r, "/me/listings/"+url.PathEscape(id), "avatar", nil)
}

// myDraftLogo replaces (a file) or removes the draft's logo.
func (s *Site) myDraftLogo(w http.ResponseWriter, r *http.Request, ps httprouter.Params, uid int64) {
	id := ps.ByName("id")
	var data []byte
	if r.PostFormValue("do") != "remove" {
		b64, err := formFile(r)
		if err == nil && b64 == "" {
			err = ops.Invalid("file", "choose an image file")
		}
		if err != nil {
			s.areaError(w, r, uid, err)
			return
		}
		data, _ = base64.StdEncoding.DecodeString(b64)
	}
	p, err := s.App.People.SessionPrincipal(r.Context(), uid)
	if err == nil {
		_, err = s.App.Drafting.SetDraftLogo(r.Context(), p, id, data)
	}
	if err != nil {
		s.areaError(w, r, uid, err)
		return
	}
	done(w, r, "/me/drafts/"+url.PathEscape(id), "draft", nil)
}
