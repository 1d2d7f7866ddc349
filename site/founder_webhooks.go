package site

import (
	"net/http"
	"strconv"

	"launchdir/app/kernel"
	"launchdir/app/webhooks"
	"launchdir/ops"
	"launchdir/routes"

	"github.com/julienschmidt/httprouter"
)

// The founder area's webhooks page (issue 22): register endpoints, read
// the delivery log, redeliver, rotate the secret (shown once, like an API
// key), turn on or off, delete. The site team sees the same page with a
// "site-wide" choice. Rules are app/webhooks'.

func init() {
	doneMessages["webhook-deleted"] = "The endpoint is deleted."
	doneMessages["webhook-updated"] = "The endpoint is saved."
	doneMessages["redelivered"] = "The event was sent again; the log shows the answer."
}

type webhooksData struct {
	Endpoints  []webhooks.Endpoint
	EventTypes []string
	Secret     string // a new or rotated secret, shown once
	SecretFor  int64
	Log        *kernel.Page[webhooks.Delivery]
	LogFor     int64
	Values     map[string]string
	Chosen     []string
}

func (s *Site) mountWebhooks(srv *routes.Server) {
	srv.Handle(http.MethodGet, "/me/webhooks", s.guard(false, s.myWebhooks))
	for path, h := range map[string]areaHandler{
		"/me/webhooks":                                    s.myWebhookCreate,
		"/me/webhooks/:id/update":                         s.myWebhookUpdate,
		"/me/webhooks/:id/delete":                         s.myWebhookDelete,
		"/me/webhooks/:id/rotate":                         s.myWebhookRotate,
		"/me/webhooks/:id/deliveries/:delivery/redeliver": s.myWebhookRedeliver,
	} {
		srv.Handle(http.MethodPost, path, s.guard(false, h))
	}
}

func (s *Site) webhooksPage(w http.ResponseWriter, r *http.Request, uid int64, status int, d webhooksData, errMsg string) {
	list, err := s.App.Webhooks.List(r.Context(), uid)
	if err != nil {
		s.areaError(w, r, uid, err)
		return
	}
	d.Endpoints, d.EventTypes = list, kernel.EventTypes
	if d.Values == nil {
		d.Values = map[string]string{}
	}
	if log := queryInt(r, "log"); log > 0 && d.Log == nil {
		page, err := s.App.Webhooks.Deliveries(r.Context(), uid, int64(log), 1, 20)
		if err != nil {
			s.areaError(w, r, uid, err)
			return
		}
		d.Log, d.LogFor = &page, int64(log)
	}
	s.renderArea(w, r, "founder_webhooks", "Webhooks", status, uid, d, errMsg)
}

func (s *Site) myWebhooks(w http.ResponseWriter, r *http.Request, _ httprouter.Params, uid int64) {
	s.webhooksPage(w, r, uid, http.StatusOK, webhooksData{}, "")
}

// myWebhookCreate answers with the page itself: the secret exists only in
// this response.
func (s *Site) myWebhookCreate(w http.ResponseWriter, r *http.Request, _ httprouter.Params, uid int64) {
	url, desc := r.PostFormValue("url"), r.PostFormValue("description")
	in := webhooks.EndpointInput{URL: &url, Description: &desc, Events: r.PostForm["events"], SiteWide: r.PostFormValue("site_wide") == "on"}
	e, err := s.App.Webhooks.Create(r.Context(), uid, in)
	if err != nil {
		pe := ops.AsError(err)
		if pe.Code != ops.CodeInvalid && pe.Code != ops.CodeForbidden {
			s.areaError(w, r, uid, err)
			return
		}
		s.webhooksPage(w, r, uid, pe.Code.Status(), webhooksData{Values: map[string]string{"url": url, "description": desc}, Chosen: in.Events}, humanProblem(pe))
		return
	}
	s.webhooksPage(w, r, uid, http.StatusOK, webhooksData{Secret: e.Secret, SecretFor: e.ID}, "")
}

func webhookID(ps httprouter.Params) int64 {
	id, _ := strconv.ParseInt(ps.ByName("id"), 10, 64)
	return id
}

func (s *Site) myWebhookUpdate(w http.ResponseWriter, r *http.Request, ps httprouter.Params, uid int64) {
	on := r.PostFormValue("enabled") == "1"
	if _, err := s.App.Webhooks.Update(r.Context(), uid, webhookID(ps), webhooks.EndpointInput{Enabled: &on}); err != nil {
		s.areaError(w, r, uid, err)
		return
	}
	done(w, r, "/me/webhooks", "webhook-updated", nil)
}

func (s *Site) myWebhookDelete(w http.ResponseWriter, r *http.Request, ps httprouter.Params, uid int64) {
	if _, err := s.App.Webhooks.Delete(r.Context(), uid, webhookID(ps)); err != nil {
		s.areaError(w, r, uid, err)
		return
	}
	done(w, r, "/me/webhooks", "webhook-deleted", nil)
}

func (s *Site) myWebhookRotate(w http.ResponseWriter, r *http.Request, ps httprouter.Params, uid int64) {
	e, err := s.App.Webhooks.Rotate(r.Context(), uid, webhookID(ps))
	if err != nil {
		s.areaError(w, r, uid, err)
		return
	}
	s.webhooksPage(w, r, uid, http.StatusOK, webhooksData{Secret: e.Secret, SecretFor: e.ID}, "")
}

func (s *Site) myWebhookRedeliver(w http.ResponseWriter, r *http.Request, ps httprouter.Params, uid int64) {
	did, _ := strconv.ParseInt(ps.ByName("delivery"), 10, 64)
	if _, err := s.App.Webhooks.Redeliver(r.Context(), uid, webhookID(ps), did); err != nil {
		s.areaError(w, r, uid, err)
		return
	}
	http.Redirect(w, r, "/me/webhooks?done=redelivered&log="+ps.ByName("id")+"#log", http.StatusSeeOther)
}
