package routes

import (
	"net/http"
	"strconv"

	"launchdir/app/media"
	"launchdir/db"
	"launchdir/ops"

	"github.com/julienschmidt/httprouter"
)

// Images are served from the service's own origin, under content-hashed
// URLs that never change meaning, so they are cached for a year. The
// headers make a stored file inert even if a browser is pointed at it
// directly: nosniff pins the declared type, and the sandbox CSP gives any
// document a browser might still build from it an opaque origin and no
// script.
const mediaCacheControl = "public, max-age=31536000, immutable"

// SetImageHeaders sets the headers of every image response (also the
// site's favicon and social cards).
func SetImageHeaders(h http.Header, contentType string) {
	h.Set("Content-Type", contentType)
	h.Set("X-Content-Type-Options", "nosniff")
	h.Set("Content-Security-Policy", "sandbox; default-src 'none'")
	h.Set("Cross-Origin-Resource-Policy", "same-site")
}

// mediaFile serves one stored variant: /media/<hash>-<variant>.<ext>.
func (s *Server) mediaFile(w http.ResponseWriter, r *http.Request, ps httprouter.Params) {
	hash, variant, ext, ok := media.ParsePath("/media/" + ps.ByName("file"))
	if !ok {
		writeProblem(w, r, ops.NotFound("image"))
		return
	}
	b, err := s.App.Media.Get(r.Context(), hash, variant)
	if err != nil || (ext == "jpg") != (b.ContentType == "image/jpeg") {
		if err != nil && !db.IsNoRows(err) {
			s.App.Log.Error("media read", "path", r.URL.Path, "err", err)
		}
		writeProblem(w, r, ops.NotFound("image"))
		return
	}
	SetImageHeaders(w.Header(), b.ContentType)
	etag := `"` + hash + "-" + variant + `"`
	w.Header().Set("ETag", etag)
	w.Header().Set("Cache-Control", mediaCacheControl)
	if etagMatch(r.Header.Get("If-None-Match"), etag) {
		w.WriteHeader(http.StatusNotModified)
		return
	}
	w.Header().Set("Content-Length", strconv.Itoa(len(b.Bytes)))
	w.Write(b.Bytes)
}
