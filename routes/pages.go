package routes

import (
	"encoding/json"
	"fmt"
	"html"
	"net/http"
	"strings"

	"launchdir/app/kernel"
	"launchdir/ops"
	"launchdir/site/layout"

	"github.com/julienschmidt/httprouter"
)

// healthz answers 200 once the database is open and migrated (New is only
// reached after migration) and still answers queries.
func (s *Server) healthz(w http.ResponseWriter, r *http.Request, _ httprouter.Params) {
	if err := s.App.DB.R.PingContext(r.Context()); err != nil {
		writeProblem(w, r, &ops.Error{Code: ops.CodeUnavailable, Detail: "database not reachable"})
		return
	}
	w.Header().Set("Content-Type", "application/json")
	w.Header().Set("Cache-Control", "no-store")
	var rep any
	if s.Opts.Replication != nil {
		rep = s.Opts.Replication()
	}
	if rep == nil && s.admit == nil {
		fmt.Fprintf(w, `{"status":"ok","version":%q}`, kernel.Version)
		return
	}
	// Replication trouble is reported, not failed: the server keeps serving.
	m := map[string]any{"status": "ok", "version": kernel.Version}
	if rep != nil {
		m["replication"] = rep
	}
	if s.admit != nil { // requests running handlers and waiting in line
		m["requests"] = s.admit.status()
	}
	b, _ := json.Marshal(m)
	w.Write(b)
}

// badge serves /badges/{slug}.svg as image/svg+xml.
func (s *Server) badge(w http.ResponseWriter, r *http.Request, ps httprouter.Params) {
	slug, ok := strings.CutSuffix(ps.ByName("file"), ".svg")
	if !ok {
		writeProblem(w, r, ops.NotFound("badge (use /badges/{slug}.svg)"))
		return
	}
	q := r.URL.Query()
	get := func(k, def string) string {
		if v := q.Get(k); v != "" {
			return v
		}
		return def
	}
	svg, err := s.App.Catalog.BadgeSVG(r.Context(), slug, get("shape", "standard"), get("mode", "auto"), get("size", "m"))
	if err != nil {
		writeProblem(w, r, err)
		return
	}
	w.Header().Set("Content-Type", "image/svg+xml")
	w.Header().Set("Cache-Control", "public, max-age=300")
	// Opened on its own, an SVG is a document: no scripts, nothing loaded,
	// and the browser must not guess another type.
	w.Header().Set("X-Content-Type-Options", "nosniff")
	w.Header().Set("Content-Security-Policy", "default-src 'none'; style-src 'unsafe-inline'; sandbox")
	w.Write([]byte(svg))
}

// problemDoc documents each problem type URI.
func (s *Server) problemDoc(w http.ResponseWriter, r *http.Request, ps httprouter.Params) {
	c := ops.Code(ps.ByName("code"))
	if c.Title() == "Internal error" && c != ops.CodeInternal {
		writeProblem(w, r, ops.NotFound("problem type"))
		return
	}
	w.Header().Set("Content-Type", "text/html; charset=utf-8")
	layout.SecureHeaders(w.Header())
	fmt.Fprintf(w, "<!doctype html><title>%s</title><h1>%s</h1><p>HTTP status %d. The problem's <code>errors</code> list names each bad field.</p>",
		html.EscapeString(c.Title()), html.EscapeString(c.Title()), c.Status())
}

func (s *Server) botPage(w http.ResponseWriter, r *http.Request, _ httprouter.Params) {
	w.Header().Set("Content-Type", "text/html; charset=utf-8")
	layout.SecureHeaders(w.Header())
	fmt.Fprint(w, `<!doctype html><title>launchdirbot</title><h1>launchdirbot</h1>
<p>launchdirbot reads a product's own website when its founder submits it to this directory, to draft a profile with evidence quotes.</p>
<p>It obeys robots.txt (product token <code>launchdirbot</code>, including Crawl-delay), reads at most a dozen pages, one request at a time per host.</p>`)
}

// claimEmail shows a confirmation form for an emailed claim link. Only the
// POST grants ownership: mail scanners that open links must not claim.
func (s *Server) claimEmail(w http.ResponseWriter, r *http.Request, ps httprouter.Params) {
	w.Header().Set("Content-Type", "text/html; charset=utf-8")
	layout.SecureHeaders(w.Header())
	w.Header().Set("Cache-Control", "no-store")
	w.Header().Set("Referrer-Policy", "no-referrer")
	token := ps.ByName("token")
	slug, err := s.App.Owning.ClaimEmailPending(r.Context(), token)
	if err != nil {
		w.WriteHeader(http.StatusNotFound)
		fmt.Fprint(w, "<!doctype html><title>Claim link</title><h1>This claim link is not valid</h1><p>It may have been used already.</p>")
		return
	}
	fmt.Fprintf(w, `<!doctype html><title>Confirm your claim</title><h1>Confirm your claim of %s</h1>
<form method="post"><button type="submit">Yes, I own %s: confirm</button></form>`, html.EscapeString(slug), html.EscapeString(slug))
}

// claimEmailConfirm grants the claim (the token in the path authenticates).
func (s *Server) claimEmailConfirm(w http.ResponseWriter, r *http.Request, ps httprouter.Params) {
	slug, err := s.App.Owning.VerifyClaimEmail(r.Context(), ps.ByName("token"))
	w.Header().Set("Content-Type", "text/html; charset=utf-8")
	layout.SecureHeaders(w.Header())
	w.Header().Set("Cache-Control", "no-store")
	if err != nil {
		w.WriteHeader(ops.AsError(err).Code.Status())
		fmt.Fprint(w, "<!doctype html><title>Claim link</title><h1>This claim link is not valid</h1><p>It may have been used already.</p>")
		return
	}
	fmt.Fprintf(w, "<!doctype html><title>Claim verified</title><h1>Claim verified</h1><p>You are now an owner of <a href=\"%s\">%s</a>.</p>",
		html.EscapeString(s.App.ListingURL(r.Context(), slug)), html.EscapeString(slug))
}
