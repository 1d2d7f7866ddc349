package site

import (
	"net/http"
	"strconv"

	"launchdir/app/people"
	"launchdir/ops"
	"launchdir/routes"

	"github.com/julienschmidt/httprouter"
)

// The founder area's credentials pages: API keys (made here, the secret
// shown once) and the OAuth grants given to MCP clients.

func (s *Site) mountFounder(srv *routes.Server) {
	get, post := s.areaRoutes(srv, false)
	get("/me/keys", s.founderKeys)
	post("/me/keys", s.founderCreateKey)
	post("/me/keys/:id/revoke", s.founderRevokeKey)
	get("/me/grants", s.founderGrants)
	post("/me/grants/:id/revoke", s.founderRevokeGrant)
	s.mountWebhooks(srv)
}

type keysData struct {
	Keys    []people.APIKey
	Scopes  []string
	Chosen  []string
	Name    string
	Secret  string
	Created *people.APIKey
	APIURL  string
}

func (s *Site) keysPage(w http.ResponseWriter, r *http.Request, uid int64, status int, d keysData, errMsg string) {
	keys, err := s.App.People.UserAPIKeys(r.Context(), uid)
	if err != nil {
		s.areaError(w, r, uid, err)
		return
	}
	d.Keys, d.Scopes, d.APIURL = keys, ops.AllScopes, s.App.APIURL(r.Context())
	s.renderArea(w, r, "founder_keys", "API keys", status, uid, d, errMsg)
}

func (s *Site) founderKeys(w http.ResponseWriter, r *http.Request, _ httprouter.Params, uid int64) {
	s.keysPage(w, r, uid, http.StatusOK, keysData{Chosen: []string{ops.ScopeAccountRead}}, "")
}

// founderCreateKey answers with the page itself (not a redirect): the
// secret exists only in this response.
func (s *Site) founderCreateKey(w http.ResponseWriter, r *http.Request, _ httprouter.Params, uid int64) {
	scopes := r.PostForm["scopes"]
	secret, k, err := s.App.People.CreateUserAPIKey(r.Context(), uid, r.PostFormValue("name"), scopes)
	if err != nil {
		e := ops.AsError(err)
		if e.Code != ops.CodeInvalid {
			s.areaError(w, r, uid, err)
			return
		}
		s.keysPage(w, r, uid, http.StatusBadRequest, keysData{Name: r.PostFormValue("name"), Chosen: scopes}, e.Error())
		return
	}
	s.keysPage(w, r, uid, http.StatusOK, keysData{Secret: secret, Created: k, Chosen: []string{ops.ScopeAccountRead}}, "")
}

func (s *Site) founderRevokeKey(w http.ResponseWriter, r *http.Request, ps httprouter.Params, uid int64) {
	id, _ := strconv.ParseInt(ps.ByName("id"), 10, 64)
	if err := s.App.People.RevokeUserAPIKey(r.Context(), uid, id); err != nil {
		s.areaError(w, r, uid, err)
		return
	}
	done(w, r, "/me/keys", "revoked", nil)
}

func (s *Site) founderGrants(w http.ResponseWriter, r *http.Request, _ httprouter.Params, uid int64) {
	grants, err := s.App.People.UserOAuthGrants(r.Context(), uid)
	if err != nil {
		s.areaError(w, r, uid, err)
		return
	}
	s.renderArea(w, r, "founder_grants", "Connected apps", http.StatusOK, uid, grants, "")
}

func (s *Site) founderRevokeGrant(w http.ResponseWriter, r *http.Request, ps httprouter.Params, uid int64) {
	id, _ := strconv.ParseInt(ps.ByName("id"), 10, 64)
	if err := s.App.People.RevokeOAuthGrant(r.Context(), uid, id); err != nil {
		s.areaError(w, r, uid, err)
		return
	}
	done(w, r, "/me/grants", "revoked", nil)
}
