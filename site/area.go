package site

import (
	"bytes"
	"crypto/hmac"
	"crypto/rand"
	"crypto/sha256"
	"embed"
	"encoding/hex"
	"fmt"
	"html/template"
	"net/http"
	"net/url"
	"strconv"

	"launchdir/app/kernel"
	"launchdir/ops"
	"launchdir/routes"
	"launchdir/site/layout"

	"github.com/julienschmidt/httprouter"
)

// The signed-in areas: the founder area (/me/...) and the site team's admin
// (/admin/...). Pages are private (no-store, noindex), every form carries a
// CSRF token bound to the person and is also refused cross-origin, and the
// admin pages exist only for admin accounts: anyone else, signed in or not,
// gets the same 404 page as an unknown address. API keys and OAuth tokens
// never open these pages: only the site's session does.

//go:embed templates/admin_*.html templates/founder_*.html
var areaFS embed.FS

type area struct {
	pages   map[string]*template.Template
	csrfKey []byte
	cop     *http.CrossOriginProtection
}

func (s *Site) mountArea(srv *routes.Server) error {
	key := make([]byte, 32)
	if _, err := rand.Read(key); err != nil {
		return err
	}
	s.area = &area{pages: map[string]*template.Template{}, csrfKey: key, cop: http.NewCrossOriginProtection()}
	entries, err := areaFS.ReadDir("templates")
	if err != nil {
		return err
	}
	for _, e := range entries {
		name := e.Name()[:len(e.Name())-len(".html")]
		if name == "admin_parts" {
			continue
		}
		t, err := template.New(name).Funcs(funcs).Funcs(areaFuncs).Funcs(s.mediaFuncs()).ParseFS(templateFS, "templates/parts.html", "templates/area_media.html")
		if err == nil {
			t, err = t.ParseFS(areaFS, "templates/admin_parts.html", "templates/"+e.Name())
		}
		if err != nil {
			return fmt.Errorf("site template %s: %w", name, err)
		}
		s.area.pages[name] = t
	}
	s.mountAdmin(srv)
	s.mountFounder(srv)
	s.mountFounderWork(srv)
	s.mountFounderDrafts(srv)
	s.mountFounderMedia(srv)
	s.mountFounderManage(srv)
	return nil
}

var areaFuncs = template.FuncMap{
	"add":        func(a, b int) int { return a + b },
	"textDiff":   textDiff,
	"filled":     filledLinks,
	"foundOn":    foundOn,
	"storyLabel": func(key string) string { return storyLabels[key] },
	"human":      kernel.HumanTime,
	"date":       kernel.HumanDate,
	"cents":      centsText,
	"amount":     func(c int64) string { return fmt.Sprintf("%d.%02d", c/100, c%100) }, // form values: no separators
	"deref": func(p *int64) string {
		if p == nil {
			return ""
		}
		return strconv.FormatInt(*p, 10)
	},
}

// centsText shows an amount in cents with thousands separators:
// 7098300 → "70,983.00".
func centsText(c int64) string {
	sign := ""
	if c < 0 {
		sign, c = "-", -c
	}
	return sign + grouped(c/100) + fmt.Sprintf(".%02d", c%100)
}

// person is the signed-in user of the request, if any: the website's
// session (people.go).
func (s *Site) person(r *http.Request) (int64, bool) {
	if s.people != nil {
		if p, _ := s.viewer(r); p != nil {
			return p.ID, true
		}
		return 0, false
	}
	// Without the people pages mounted, the same session cookie and store.
	c, err := r.Cookie(sessionCookie)
	if err != nil || c.Value == "" {
		return 0, false
	}
	if p, err := s.App.People.SessionPerson(r.Context(), c.Value); err == nil && p != nil {
		return p.ID, true
	}
	return 0, false
}

// csrfToken binds the area's forms to the signed-in session: the same
// token as the people pages, so it changes when the session rotates.
// (Without a session cookie there is no person and no form.)
func (s *Site) csrfToken(r *http.Request, userID int64) string {
	if c, err := r.Cookie(sessionCookie); err == nil && c.Value != "" {
		return sessionToken(c.Value)
	}
	m := hmac.New(sha256.New, s.area.csrfKey)
	fmt.Fprintf(m, "area-csrf|%d", userID)
	return hex.EncodeToString(m.Sum(nil))
}

// areaHandler is a page of a signed-in area; uid is the person.
type areaHandler func(w http.ResponseWriter, r *http.Request, ps httprouter.Params, uid int64)

// guard resolves the person, checks admin rights when needed and, for
// POSTs, the origin and the CSRF token.
func (s *Site) guard(admin bool, h areaHandler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		uid, ok := s.person(r)
		if admin && (!ok || !s.App.Admin.IsAdmin(r.Context(), uid)) {
			s.privateNotFound(w, r)
			return
		}
		if !ok {
			s.signInFirst(w, r)
			return
		}
		if r.Method == http.MethodPost {
			// 6 MiB: an image form carries a file of up to 5 MiB.
			r.Body = http.MaxBytesReader(w, r.Body, 6<<20)
			if err := s.area.cop.Check(r); err != nil {
				s.areaError(w, r, uid, &ops.Error{Code: ops.CodeForbidden, Detail: "cross-origin form refused"})
				return
			}
			if err := r.ParseMultipartForm(6 << 20); err != nil && err != http.ErrNotMultipart {
				s.areaError(w, r, uid, &ops.Error{Code: ops.CodeInvalid, Detail: "the form could not be read"})
				return
			}
			if !hmac.Equal([]byte(r.PostFormValue("csrf")), []byte(s.csrfToken(r, uid))) {
				s.areaError(w, r, uid, &ops.Error{Code: ops.CodeForbidden,
					Detail: "this form is not valid any more (security check failed); reload the page and try again"})
				return
			}
		}
		// The signed-in areas work on the network's shared data (an owner's
		// listings, orders, the site team's queues) on every site's host.
		r = r.WithContext(kernel.WholeNetwork(r.Context()))
		h(w, r, httprouter.ParamsFromContext(r.Context()), uid)
	})
}

// areaPage is what area templates get besides the layout.
type areaPage struct {
	CSRF  string
	Done  string // message after a successful change
	Error string // message after a refused change
	Admin bool
	Data  any
}

// renderArea writes a private page (never cached, not indexed).
func (s *Site) renderArea(w http.ResponseWriter, r *http.Request, name, title string, status int, uid int64, data any, errMsg string) {
	p := areaPage{CSRF: s.csrfToken(r, uid), Error: errMsg, Admin: s.App.Admin.IsAdmin(r.Context(), uid), Data: data}
	if d := r.URL.Query().Get("done"); d != "" && errMsg == "" {
		p.Done = doneMessages[d]
	}
	var content, account, buf bytes.Buffer
	err := s.area.pages[name].ExecuteTemplate(&content, "content", p)
	if err == nil { // the header's signed-in person, as on every site page
		err = s.area.pages[name].ExecuteTemplate(&account, "account", s.page(r, title, "", nil))
	}
	if err == nil {
		err = layout.Render(&buf, &layout.Head{Title: title, Site: s.App.SiteName(r.Context()), NoIndex: true, NoReferrer: true,
			SiteLogo: s.App.Media.SiteLogoPath(r.Context()), Theme: s.themePath(r.Context()), Tagline: s.siteDescription(r),
			Account: template.HTML(account.String()), Body: template.HTML(content.String())})
	}
	if err != nil {
		s.App.Log.Error("render area page", "page", name, "err", err)
		http.Error(w, "internal error", http.StatusInternalServerError)
		return
	}
	h := w.Header()
	h.Set("Content-Type", "text/html; charset=utf-8")
	h.Set("Cache-Control", "no-store")
	h.Set("X-Content-Type-Options", "nosniff")
	h.Set("X-Frame-Options", "DENY")
	h.Set("Content-Security-Policy", "default-src 'self'; script-src 'self'; "+layout.StyleSrc+"; form-action 'self'; frame-ancestors 'none'")
	w.WriteHeader(status)
	w.Write(buf.Bytes())
}

// doneMessages are the confirmations a redirect may name (?done=key).
var doneMessages = map[string]string{
	"reverted":        "The revision was reverted; the listing shows the earlier value again.",
	"moderated":       "The listing's status was changed and its owners were told why.",
	"hidden":          "The review is hidden and no longer counts.",
	"banned":          "The account is banned; its votes no longer count.",
	"ring-discounted": "The ring is discounted: its votes stay uncounted.",
	"ring-counted":    "The ring's votes count now; the boards include them.",
	"capacity":        "The week's capacity was saved.",
	"moved":           "The listing was moved to the new week.",
	"price":           "The price was saved.",
	"promo":           "The promo code was saved.",
	"refunded":        "The order is marked refunded.",
	"imported":        "The figures were imported.",
	"retried":         "The email is queued again.",
	"settings":        "The settings were saved.",
	"revoked":         "Access revoked.",
	"facts":           "Saved: the listing shows the new facts (the site team sees a before/after copy).",
	"posted":          "The update is posted; followers are emailed.",
	"interview":       "Your interview answers are saved.",
	"free":            "The listing is queued for its free launch week.",
	"claimed":         "Claim started: publish what the instructions say, then press Verify.",
	"verified":        "Verified: you are now an owner of the listing.",
	"draft":           "The draft was updated.",
	"dismissed":       "The report was dismissed.",
	"invited":         "Invitation sent.",
	"submitted":       "Submitted: this is your listing now (not published yet). Choose the free launch or buy a launch below.",
	// Owner operations (issue 23).
	"archived":       "Done: a live listing is archived (off the site, data kept); a queued one is back to draft. Its status below says which.",
	"update-edited":  "The update is saved (followers are not emailed again).",
	"update-deleted": "The update is deleted.",
	"owner-removed":  "The co-owner is removed from this listing.",
	"left":           "You left that listing; it is no longer among yours.",
	"transferred":    "The listing has a new owner; you stay on as a co-founder.",
	"alternatives":   "Your approved alternatives are saved: they are shown first on your listing's alternatives.",
	"attributes":     "The category attributes are saved: compare tables show them.",
	"canceled":       "The order is canceled; its checkout link no longer works.",
	"draft-deleted":  "The draft is deleted.",
	"unchanged":      "Nothing to save: no value was changed.",
}

// done redirects (303) to a page of the area with a confirmation.
func done(w http.ResponseWriter, r *http.Request, path, key string, q url.Values) {
	if q == nil {
		q = url.Values{}
	}
	q.Set("done", key)
	http.Redirect(w, r, path+"?"+q.Encode(), http.StatusSeeOther)
}

// areaError shows a refused change or a failed lookup; not found is the
// plain 404 page.
func (s *Site) areaError(w http.ResponseWriter, r *http.Request, uid int64, err error) {
	e := ops.AsError(err)
	if e.Code == ops.CodeNotFound {
		s.privateNotFound(w, r)
		return
	}
	if e.Code == ops.CodeInternal {
		s.App.Log.Error("area page failed", "path", r.URL.Path, "err", err)
	}
	s.renderArea(w, r, "admin_error", e.Code.Title(), e.Code.Status(), uid, e, "")
}

func (s *Site) privateNotFound(w http.ResponseWriter, r *http.Request) {
	w.Header().Set("Cache-Control", "no-store")
	s.notFound(w, r, "There is no page at "+r.URL.Path+".")
}

// signInFirst answers a founder page without a session.
func (s *Site) signInFirst(w http.ResponseWriter, r *http.Request) {
	w.Header().Set("Cache-Control", "no-store")
	if s.people != nil {
		http.Redirect(w, r, "/signin?next="+url.QueryEscape(r.URL.Path), http.StatusSeeOther)
		return
	}
	p := s.page(r, "Sign in", "Sign in to see this page.", &ops.Error{Code: ops.CodeUnauthorized,
		Detail: "Sign in to see this page."})
	p.Status, p.NoIndex = http.StatusUnauthorized, true
	s.render(w, r, "error", p)
}

// formInt reads a whole number from a form; "" and junk are 0.
func formInt(r *http.Request, name string) int64 {
	n, _ := strconv.ParseInt(r.PostFormValue(name), 10, 64)
	return n
}

// queryInt reads a whole number from the query; "" and junk are 0.
func queryInt(r *http.Request, name string) int {
	n, _ := strconv.Atoi(r.URL.Query().Get(name))
	return n
}

// areaRoutes mounts signed-in area pages behind the guard (the site team's
// when admin): get also answers HEAD; post takes the forms.
func (s *Site) areaRoutes(srv *routes.Server, admin bool) (get, post func(path string, h areaHandler)) {
	get = func(path string, h areaHandler) {
		srv.Handle(http.MethodGet, path, s.guard(admin, h))
		srv.Handle(http.MethodHead, path, s.guard(admin, h))
	}
	post = func(path string, h areaHandler) { srv.Handle(http.MethodPost, path, s.guard(admin, h)) }
	return get, post
}
