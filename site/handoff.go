package site

import (
	"net/http"
	"net/url"
	"strings"

	"launchdir/app/kernel"
	"launchdir/app/people"
	"launchdir/ops"
	"launchdir/routes"

	"github.com/julienschmidt/httprouter"
)

// Cross-host sign-in (the rules and the codes are app/people's handoff).
// On a site other than main, "Sign in" and a vote that needs it send the
// browser to main's /signin/handoff with a secret state it keeps in a
// cookie here; main, once the person is signed in there (its own sign-in
// form first if not), sends it back to /signin/handoff/complete with a
// code, which this site exchanges for its own session.

// handoffCookie holds the state of a handoff under way (and the listing a
// pressed vote is for): only a browser that started a handoff here can
// finish one, and only a vote pressed here is cast after it.
const handoffCookie = "ld_handoff"

// mountHandoff registers the two ends of the handoff.
func (s *Site) mountHandoff(srv *routes.Server) {
	srv.Handle(http.MethodGet, "/signin/handoff", s.pageHandler(s.handoff))
	srv.Handle(http.MethodGet, "/signin/handoff/complete", s.pageHandler(s.handoffComplete))
}

// onMain reports whether the request is for the main site.
func (s *Site) onMain(r *http.Request) bool { return s.App.SiteKey(r.Context()) == kernel.MainSite }

// startHandoff sends the browser to main to sign in for this site, then
// back to next (a local path). vote names the listing whose vote button
// was pressed (a POST through the cross-origin check), "" for none.
func (s *Site) startHandoff(w http.ResponseWriter, r *http.Request, next, vote string) {
	main, ok := s.App.SiteByKey(r.Context(), kernel.MainSite)
	if !ok {
		s.errorPage(w, r, ops.Errorf(ops.CodeInternal, "no main site"))
		return
	}
	state := kernel.NewSecret("")
	http.SetCookie(w, &http.Cookie{Name: handoffCookie, Value: state + "." + vote, Path: "/signin/handoff", HttpOnly: true,
		Secure: s.secure(r), SameSite: http.SameSiteLaxMode, MaxAge: 600})
	to := s.App.Origin(r.Context()) + routes.LocalPath(next)
	http.Redirect(w, r, main.Origin+"/signin/handoff?"+url.Values{"to": {to}, "state": {state}}.Encode(), http.StatusSeeOther)
}

// handoff runs on main: it checks where the browser is to be sent, signs
// the person in here first if needed, then sends it there with a code.
func (s *Site) handoff(w http.ResponseWriter, r *http.Request, _ httprouter.Params) {
	if !s.onMain(r) || s.people == nil {
		s.notFound(w, r, "There is no page at "+r.URL.Path+".")
		return
	}
	q := r.URL.Query()
	site, next, ok := s.handoffTarget(r, q.Get("to"))
	state := q.Get("state")
	if !ok || !people.ValidHandoffState(state) {
		d := &formData{Values: map[string]string{}, Message: "This sign-in link is not valid: it does not lead to a site of this directory. Sign in here, or start again from the site you came from."}
		s.form(w, r, "signin", "Sign in", http.StatusBadRequest, d)
		return
	}
	p, _ := s.viewer(r)
	if p == nil {
		here := "/signin/handoff?" + url.Values{"to": {q.Get("to")}, "state": {state}}.Encode()
		d := &formData{Values: map[string]string{}, Next: routes.LocalPath(here),
			Notice:    "Sign in to continue to " + s.siteName(r, site) + ". Your account works on every site of this directory.",
			SignUpURL: site.Origin + "/signup?" + url.Values{"next": {next}}.Encode()}
		s.form(w, r, "signin", "Sign in", http.StatusOK, d)
		return
	}
	code, err := s.App.People.IssueHandoff(r.Context(), p.ID, site.Key, state)
	if err != nil {
		s.errorPage(w, r, err)
		return
	}
	w.Header().Set("Cache-Control", "no-store")
	w.Header().Set("Referrer-Policy", "no-referrer")
	http.Redirect(w, r, site.Origin+"/signin/handoff/complete?"+url.Values{"code": {code}, "next": {next}}.Encode(), http.StatusSeeOther)
}

// handoffTarget reads to=<origin><path>: the origin must be another site
// of this process (never an arbitrary address) and the path a local one.
func (s *Site) handoffTarget(r *http.Request, to string) (*kernel.Site, string, bool) {
	u, err := url.Parse(to)
	if err != nil || u.Scheme == "" || u.Host == "" || u.User != nil || len(to) > 2200 {
		return nil, "", false
	}
	origin := strings.ToLower(u.Scheme + "://" + u.Host)
	for _, site := range s.App.Sites(r.Context()) {
		if site.Key != kernel.MainSite && strings.ToLower(site.Origin) == origin {
			next := routes.LocalPath(u.RequestURI())
			return site, next, true
		}
	}
	return nil, "", false
}

// siteName is the name of another site (its own setting).
func (s *Site) siteName(r *http.Request, site *kernel.Site) string {
	return s.App.SiteName(kernel.WithSite(r.Context(), site))
}

// handoffComplete runs on the target site: the code and this browser's
// state become a session here, then the browser goes on to next (casting
// the vote it pressed here, if that is what it was doing).
func (s *Site) handoffComplete(w http.ResponseWriter, r *http.Request, _ httprouter.Params) {
	if s.people == nil {
		s.notFound(w, r, "There is no page at "+r.URL.Path+".")
		return
	}
	state, vote := "", ""
	if c, err := r.Cookie(handoffCookie); err == nil {
		state, vote, _ = strings.Cut(c.Value, ".")
	}
	http.SetCookie(w, &http.Cookie{Name: handoffCookie, Value: "", Path: "/signin/handoff", HttpOnly: true,
		Secure: s.secure(r), SameSite: http.SameSiteLaxMode, MaxAge: -1})
	w.Header().Set("Referrer-Policy", "no-referrer")
	session, person, err := s.App.People.RedeemHandoff(r.Context(), r.URL.Query().Get("code"), state)
	if err != nil {
		e := ops.AsError(err)
		if e.Code == ops.CodeInternal {
			s.errorPage(w, r, err)
			return
		}
		d := &formData{Values: map[string]string{}, Next: routes.LocalPath(r.URL.Query().Get("next")),
			Message: "Signing in from " + s.siteName(r, s.mainSite(r)) + " did not work: " + fieldMessage(e) + ". Sign in here with your email and password."}
		s.form(w, r, "signin", "Sign in", e.Code.Status(), d)
		return
	}
	if _, old := s.viewer(r); old != "" {
		s.people.SignOut(r.Context(), old)
	}
	http.SetCookie(w, &http.Cookie{Name: sessionCookie, Value: session, Path: "/", HttpOnly: true, Secure: s.secure(r),
		SameSite: http.SameSiteLaxMode, MaxAge: int(people.SessionTTL.Seconds())})
	next := routes.LocalPath(r.URL.Query().Get("next"))
	if slug, back, ok := pendingVoteBack(next); ok {
		if vote == slug {
			s.castPendingVote(w, r, person, slug, back)
			return
		}
		next = "/listings/" + slug // a vote not pressed in this browser is not cast
	}
	http.Redirect(w, r, next, http.StatusSeeOther)
}

// mainSite is the main site.
func (s *Site) mainSite(r *http.Request) *kernel.Site {
	m, _ := s.App.SiteByKey(r.Context(), kernel.MainSite)
	return m
}
