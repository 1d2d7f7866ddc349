package site

import (
	"html/template"
	"net/http"

	"launchdir/app/digest"
	"launchdir/app/kernel"
	"launchdir/ops"
	"launchdir/routes"

	"github.com/julienschmidt/httprouter"
)

// The weekly digest's pages (issue 22): subscribe (double opt-in: the
// emailed link opens a page whose button confirms, so a mail scanner
// that follows links confirms nothing), one-click unsubscribe, and the
// archive of sent digests. The rules are app/digest's.

type digestData struct {
	CSRF    string
	Issues  []digest.Issue
	Issue   *digest.Issue
	Body    template.HTML // the issue as sent (built and escaped by app/digest)
	Values  map[string]string
	Errors  map[string]string
	Message string
	Notice  string
	Token   string
	Action  string // confirm or unsubscribe
}

func (s *Site) mountDigest(srv *routes.Server) {
	cop := http.NewCrossOriginProtection()
	// One-click unsubscribe (RFC 8058) is a cross-site POST by the mail
	// client; the secret in the path authorises it.
	cop.AddInsecureBypassPattern("POST /digest/unsubscribe/{token}")
	get := func(path string, h httprouter.Handle) {
		srv.Handle(http.MethodGet, path, s.pageHandler(func(w http.ResponseWriter, r *http.Request, ps httprouter.Params) {
			if !s.toMainDigest(w, r) {
				h(w, r, ps)
			}
		}))
	}
	post := func(path string, h httprouter.Handle, token bool) {
		srv.Handle(http.MethodPost, path, cop.Handler(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			if s.toMainDigest(w, r) {
				return
			}
			if token && !s.tokenOK(r) {
				s.forbidden(w, r, "The form's security token is missing or expired. Go back, reload the page and try again.")
				return
			}
			h(w, r, httprouter.ParamsFromContext(r.Context()))
		})))
	}
	get("/digests", s.digestIndex)
	post("/digests", s.digestSubscribe, true)
	get("/digests/:week", s.digestIssue)
	get("/digest/confirm/:token", s.digestConfirmPage)
	post("/digest/confirm/:token", s.digestConfirm, true)
	get("/digest/unsubscribe/:token", s.digestUnsubscribePage)
	post("/digest/unsubscribe/:token", s.digestUnsubscribe, false)
}

// toMainDigest sends a request for the digest on another site than main
// to main's address, reporting whether it did: the digest is the
// network's (built from main's ranks and links), so another site's host
// must not show it as its own, with listings it does not show.
func (s *Site) toMainDigest(w http.ResponseWriter, r *http.Request) bool {
	if s.App.SiteKey(r.Context()) == kernel.MainSite {
		return false
	}
	main, _ := s.App.SiteByKey(r.Context(), kernel.MainSite)
	http.Redirect(w, r, main.Origin+r.URL.Path, http.StatusSeeOther)
	return true
}

func (s *Site) renderDigest(w http.ResponseWriter, r *http.Request, name, title string, status int, d *digestData) {
	d.CSRF = s.formToken(w, r)
	if d.Values == nil {
		d.Values = map[string]string{}
	}
	p := s.page(r, title, "The weekly digest of "+s.App.SiteName(r.Context())+": last week's top launches, awards and this week's launches.", d)
	p.Status = status
	if name != "digest" || status != http.StatusOK {
		p.NoIndex = true
	}
	if d.Token != "" || d.Notice != "" {
		p.private = true
	}
	s.render(w, r, name, p)
}

func (s *Site) digestIndex(w http.ResponseWriter, r *http.Request, _ httprouter.Params) {
	issues, err := s.App.Digest.Archive(r.Context())
	if err != nil {
		s.errorPage(w, r, err)
		return
	}
	s.renderDigest(w, r, "digest", "Weekly digest", http.StatusOK, &digestData{Issues: issues})
}

func (s *Site) digestSubscribe(w http.ResponseWriter, r *http.Request, _ httprouter.Params) {
	d := &digestData{Values: map[string]string{"email": r.PostFormValue("email")}, Errors: map[string]string{}}
	status := http.StatusOK
	if err := s.App.Digest.Subscribe(r.Context(), d.Values["email"]); err != nil {
		e := ops.AsError(err)
		if e.Code == ops.CodeInternal {
			s.errorPage(w, r, err)
			return
		}
		for _, f := range e.Fields {
			d.Errors[f.Field] = f.Message
		}
		d.Message, status = humanProblem(e), e.Code.Status()
	} else {
		d.Notice = "Check your inbox: the digest starts once you confirm the address with the link we sent."
		d.Values = nil
	}
	d.Issues, _ = s.App.Digest.Archive(r.Context())
	s.renderDigest(w, r, "digest", "Weekly digest", status, d)
}

func (s *Site) digestIssue(w http.ResponseWriter, r *http.Request, ps httprouter.Params) {
	is, err := s.App.Digest.Get(r.Context(), ps.ByName("week"))
	if err != nil {
		s.errorPage(w, r, err)
		return
	}
	s.renderDigest(w, r, "digest_issue", is.Subject, http.StatusOK, &digestData{Issue: is, Body: template.HTML(is.HTML)})
}

func (s *Site) digestConfirmPage(w http.ResponseWriter, r *http.Request, ps httprouter.Params) {
	s.renderDigest(w, r, "digest_link", "Confirm the digest", http.StatusOK, &digestData{Token: ps.ByName("token"), Action: "confirm"})
}

func (s *Site) digestConfirm(w http.ResponseWriter, r *http.Request, ps httprouter.Params) {
	d := &digestData{Token: ps.ByName("token"), Action: "confirm"}
	if _, err := s.App.Digest.Confirm(r.Context(), d.Token); err != nil {
		d.Message = humanProblem(ops.AsError(err))
		s.renderDigest(w, r, "digest_link", "Confirm the digest", http.StatusBadRequest, d)
		return
	}
	d.Notice = "Confirmed: the digest comes every Monday morning. Every issue has a one-click unsubscribe link."
	s.renderDigest(w, r, "digest_link", "Confirm the digest", http.StatusOK, d)
}

func (s *Site) digestUnsubscribePage(w http.ResponseWriter, r *http.Request, ps httprouter.Params) {
	s.renderDigest(w, r, "digest_link", "Unsubscribe from the digest", http.StatusOK, &digestData{Token: ps.ByName("token"), Action: "unsubscribe"})
}

func (s *Site) digestUnsubscribe(w http.ResponseWriter, r *http.Request, ps httprouter.Params) {
	d := &digestData{Token: ps.ByName("token"), Action: "unsubscribe"}
	if err := s.App.Digest.Unsubscribe(r.Context(), d.Token); err != nil {
		d.Message = "This unsubscribe link is not valid."
		s.renderDigest(w, r, "digest_link", "Unsubscribe from the digest", http.StatusNotFound, d)
		return
	}
	d.Notice = "Done: no more digests will be sent to this address."
	s.renderDigest(w, r, "digest_link", "Unsubscribe from the digest", http.StatusOK, d)
}
