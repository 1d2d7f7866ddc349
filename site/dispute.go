package site

import (
	"net/http"
	"strconv"

	"launchdir/app/owning"
	"launchdir/ops"

	"github.com/julienschmidt/httprouter"
)

// The page an owner reaches from a claim email to dispute the claim
// (issue 22); the rule (who may dispute which claim) is app/owning's.

type disputeData struct {
	CSRF    string
	Token   string // the claim id, in the form's action
	Claim   *owning.ClaimToDispute
	Values  map[string]string
	Errors  map[string]string
	Message string
	Notice  string
}

func (s *Site) mountDispute(handle func(method, path string, h httprouter.Handle)) {
	handle(http.MethodGet, "/claim-disputes/:id", s.disputePage)
	handle(http.MethodPost, "/claim-disputes/:id", s.dispute)
}

func (s *Site) disputeForm(w http.ResponseWriter, r *http.Request, ps httprouter.Params) (*Person, *disputeData, int64) {
	id, _ := strconv.ParseInt(ps.ByName("id"), 10, 64)
	p := s.signedIn(w, r, "/claim-disputes/"+ps.ByName("id"))
	if p == nil {
		return nil, nil, 0
	}
	c, err := s.App.Owning.ClaimForDispute(r.Context(), p.ID, id)
	if err != nil {
		s.errorPage(w, r, err)
		return nil, nil, 0
	}
	return p, &disputeData{Token: strconv.FormatInt(id, 10), Claim: c, Values: map[string]string{}, Errors: map[string]string{}}, id
}

func (s *Site) renderDispute(w http.ResponseWriter, r *http.Request, d *disputeData, status int) {
	d.CSRF = s.formToken(w, r)
	p := s.page(r, "Dispute a claim", "Dispute a claim of your listing", d)
	p.Status, p.NoIndex, p.Narrow, p.private = status, true, true, true
	s.render(w, r, "dispute", p)
}

func (s *Site) disputePage(w http.ResponseWriter, r *http.Request, ps httprouter.Params) {
	if _, d, _ := s.disputeForm(w, r, ps); d != nil {
		s.renderDispute(w, r, d, http.StatusOK)
	}
}

func (s *Site) dispute(w http.ResponseWriter, r *http.Request, ps httprouter.Params) {
	p, d, id := s.disputeForm(w, r, ps)
	if d == nil {
		return
	}
	d.Values["reason"] = r.PostFormValue("reason")
	if err := s.App.Owning.DisputeClaim(r.Context(), p.ID, id, d.Values["reason"]); err != nil {
		e := ops.AsError(err)
		for _, f := range e.Fields {
			d.Errors[f.Field] = f.Message
		}
		d.Message = humanProblem(e)
		s.renderDispute(w, r, d, e.Code.Status())
		return
	}
	d.Notice = "Thank you: the site team will look at this claim and can remove the owner it added."
	s.renderDispute(w, r, d, http.StatusOK)
}
