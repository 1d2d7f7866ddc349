// Package site is the website door: server-rendered pages for people,
// beside REST (routes), MCP (mcp) and OAuth (oauth). Like them it only calls
// app/: public pages run the same operations as the API (through the
// operations table's executor) and render the JSON those operations return,
// so a page can never disagree with the API.
package site

import (
	"bytes"
	"context"
	"crypto/sha256"
	"embed"
	"encoding/hex"
	"encoding/json"
	"html/template"
	"io/fs"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"sync"

	"launchdir/app"
	"launchdir/db"
	"launchdir/ops"
	"launchdir/routes"
	"launchdir/site/layout"

	"github.com/julienschmidt/httprouter"
)

//go:embed templates/*.html
var templateFS embed.FS

//go:embed static
var staticFS embed.FS

// Site serves the website.
type Site struct {
	App       *app.App
	pages     map[string]*template.Template
	sitemaps  bodyCache // by site key and file
	homeCache bodyCache // the anonymous home page of each site (see homeTTL)
	facets    struct {
		mu sync.Mutex
		by map[string]facetEntry // by site key
	}
	// people is the accounts layer; nil serves the public pages only.
	people   People
	clientIP func(*http.Request) string
	// area holds the founder and admin pages (area.go).
	area *area
}

// Mount registers every page on the binary's router and makes unknown
// non-API paths a real HTML 404 page.
func Mount(srv *routes.Server, a *app.App, people People) (*Site, error) {
	s := &Site{App: a, people: people, clientIP: srv.ClientIP,
		sitemaps: bodyCache{ttl: sitemapTTL}, homeCache: bodyCache{ttl: homeTTL}}
	if err := s.parse(); err != nil {
		return nil, err
	}
	get := func(path string, h func(http.ResponseWriter, *http.Request, httprouter.Params)) {
		hh := s.pageHandler(h)
		srv.Handle(http.MethodGet, path, hh)
		srv.Handle(http.MethodHead, path, hh)
	}
	// The two pages launch day's votes change (db/pin.go): a listing's page
	// runs a dozen reads; its votes and a week's ranking move with each vote.
	// Pages of parallel sections (the home page) stay unpinned: pinned, their
	// sections run one after another on one connection held meanwhile, and
	// at c=8 beside a writer the home page's p99 went from 21–25 ms to 75–95.
	pinned := func(path string, h func(http.ResponseWriter, *http.Request, httprouter.Params)) {
		get(path, s.pinned(h))
	}
	get("/", s.home)
	pinned("/listings/:slug", s.listing)
	get("/listings/:slug/alternatives", s.alternatives)
	get("/categories", s.categories)
	get("/categories/:slug", s.category)
	get("/launches", s.launchesIndex)
	pinned("/launches/:week", s.launchWeek)
	get("/leaderboards", s.leaderboards)
	get("/leaderboards/:board", s.leaderboard)
	get("/founders", s.founders)
	get("/founders/:slug", s.founder)
	get("/blog", s.blog)
	get("/blog/:slug", s.blogPost)
	get("/awards", s.awards)
	get("/search", s.search)
	get("/compare", s.compare)
	get("/feeds/launches.atom", s.launchFeed)
	get("/feeds/blog.atom", s.blogFeed)
	get("/sitemap.xml", s.sitemap)
	get("/sitemaps/:file", s.sitemapPart)
	get("/robots.txt", s.robots)
	s.mountMedia(get)
	get("/llms.txt", s.llms)
	get("/theme.css", s.theme)
	static, _ := fs.Sub(staticFS, "static")
	fileServer := http.StripPrefix("/static/", http.FileServer(http.FS(static)))
	get("/static/*file", func(w http.ResponseWriter, r *http.Request, _ httprouter.Params) {
		w.Header().Set("Cache-Control", "public, max-age=3600")
		fileServer.ServeHTTP(w, r)
	})
	if people != nil {
		s.mountPeople(srv)
		s.mountConversation(srv)
		s.mountDigest(srv)
	}
	if err := s.mountArea(srv); err != nil {
		return nil, err
	}
	router := srv.Router()
	apiNotFound := router.NotFound
	router.NotFound = http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if routes.IsMachinePath(r.URL.Path) { // problem+json 404s for the machine doors
			apiNotFound.ServeHTTP(w, r)
			return
		}
		s.notFound(w, r, "There is no page at "+r.URL.Path+".")
	})
	return s, nil
}

// pageHandler adapts an httprouter-style page to http.Handler.
func (s *Site) pageHandler(h func(http.ResponseWriter, *http.Request, httprouter.Params)) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		h(w, r, httprouter.ParamsFromContext(r.Context()))
	})
}

// pinned runs a page's reads in one read transaction (db/pin.go): a page
// of a dozen reads pays for the commits since its connection's last read
// once, not once per read, and shows one snapshot of the directory.
func (s *Site) pinned(h func(http.ResponseWriter, *http.Request, httprouter.Params)) func(http.ResponseWriter, *http.Request, httprouter.Params) {
	return func(w http.ResponseWriter, r *http.Request, ps httprouter.Params) {
		ctx, done := s.App.DB.PinReads(r.Context())
		defer done()
		h(w, r.WithContext(ctx), ps)
	}
}

// call runs one operation of the table anonymously, exactly as the REST
// door would for a GET with these query values, and puts its output into
// out: the handler's value itself where out is of its type or embeds it,
// else its JSON body decoded (see place).
func (s *Site) call(ctx context.Context, opID string, args map[string]string, out any) error {
	op := s.App.Table.Get(opID)
	in := map[string]any{}
	var bad []ops.FieldError
	for _, p := range op.AllParams() {
		raw, ok := args[p.Name]
		if !ok || raw == "" {
			continue
		}
		v, good := ops.Coerce(p.Schema, raw)
		if !good {
			bad = append(bad, ops.FieldError{Field: p.Name, Message: "must be a " + p.Schema.Type})
			continue
		}
		in[p.Name] = v
	}
	if len(bad) > 0 {
		return ops.InvalidFields(bad)
	}
	if !op.ReadOnly() {
		res, err := s.App.Exec.Call(ctx, op, nil, in, "", nil)
		if err != nil {
			return pathNotFound(op, in, err)
		}
		return json.Unmarshal(res.Body, out)
	}
	v, err := s.App.Exec.Value(ctx, op, nil, in)
	if err != nil {
		return pathNotFound(op, in, err)
	}
	return place(v, out)
}

// pathNotFound turns a malformed path segment (a slug that cannot exist)
// into a 404: for a page address that is "no such page", not bad input.
func pathNotFound(op *ops.Operation, args map[string]any, err error) error {
	e := ops.AsError(err)
	if e.Code != ops.CodeInvalid || len(e.Fields) == 0 {
		return err
	}
	for _, f := range e.Fields {
		malformed := false
		for _, p := range op.AllParams() {
			if p.Name == f.Field && p.In == "path" {
				// Only a value its schema refuses is "no such page"; a
				// business rule naming the path field (e.g. "the listing
				// is already live") stays a 400 with its reason.
				_, errs := ops.Validate(p.Schema, args[p.Name], p.Name)
				malformed = len(errs) > 0
			}
		}
		if !malformed {
			return err
		}
	}
	return ops.NotFound("page")
}

// Page is what every template gets: the layout's head fields and the
// page's own data.
type Page struct {
	Title       string
	Description string
	Path        string // canonical path and query
	OGType      string
	Site        string
	BaseURL     string
	NoIndex     bool
	Nav         string // highlighted nav item
	Narrow      bool
	OGImage     string // absolute URL of the social card
	Data        any
	Status      int
	Person      *Person // signed in, or nil
	CSRF        string  // the session's form token when signed in
	People      bool    // accounts are available (sign-in links, forms)
	private     bool    // never cached by shared caches
	siteLogo    string  // the site team's logo (media.SiteLogoPath)
	theme       string  // the site's accent stylesheet (layout.ThemePath)
	tagline     string  // the site's tagline
	signUp      string  // SignUpURL's override, "" for /signup
}

// SignUpURL is where the page's "sign up" links go: this site's /signup,
// or on main's handoff sign-in the sign-up of the site the person came
// from (formData.SignUpURL).
func (p *Page) SignUpURL() string {
	if p.signUp != "" {
		return p.signUp
	}
	return "/signup"
}

// SignInURL is the header's sign-in link: back to this page afterwards
// (on a site other than main, through main's sign-in handoff), except
// from the account pages themselves.
func (p *Page) SignInURL() string {
	for _, pre := range []string{"/signin", "/signup", "/reset", "/verify", "/unsubscribe"} {
		if strings.HasPrefix(p.Path, pre) {
			return "/signin"
		}
	}
	if p.Path == "" || p.Path == "/" || p.Status != http.StatusOK {
		return "/signin"
	}
	return "/signin?next=" + url.QueryEscape(p.Path)
}

// Canonical is the page's absolute canonical URL.
func (p *Page) Canonical() string { return p.BaseURL + p.Path }

func (s *Site) page(r *http.Request, title, desc string, data any) *Page {
	p := &Page{Title: title, Description: desc, Path: canonicalPath(r), OGType: "website",
		Site: s.App.SiteName(r.Context()), BaseURL: s.App.Origin(r.Context()), Data: data, Status: http.StatusOK, People: s.people != nil,
		siteLogo: s.App.Media.SiteLogoPath(r.Context()), theme: s.themePath(r.Context()), tagline: s.siteDescription(r)}
	if person, session := s.viewer(r); person != nil {
		p.Person, p.CSRF = person, sessionToken(session)
	}
	return p
}

// canonicalPath keeps only the query parameters a page reads, in a stable
// order, and drops page=1.
func canonicalPath(r *http.Request) string {
	q := r.URL.Query()
	q.Del("done") // the note after a form, not another page
	if q.Get("page") == "1" {
		q.Del("page")
	}
	for k, v := range q {
		if len(v) == 0 || v[0] == "" {
			q.Del(k)
		}
	}
	if len(q) == 0 {
		return r.URL.Path
	}
	return r.URL.Path + "?" + q.Encode()
}

// render executes a page into a buffer, then writes it with a strong ETag
// (answering If-None-Match with 304) and the API's public caching.
func (s *Site) render(w http.ResponseWriter, r *http.Request, name string, p *Page) {
	s.decorateCards(r, p)
	db.Unpin(r.Context()) // all read: the templates may read more, from the pool
	body, err := s.renderBytes(name, p)
	if err != nil {
		s.App.Log.Error("render page", "page", name, "err", err)
		s.errorPage(w, r, &ops.Error{Code: ops.CodeInternal, Detail: "an unexpected error occurred"})
		return
	}
	s.write(w, r, p, body)
}

// renderBytes executes a page's content and account templates inside the shared frame.
func (s *Site) renderBytes(name string, p *Page) ([]byte, error) {
	content, account := pageBuffers.Get().(*bytes.Buffer), pageBuffers.Get().(*bytes.Buffer)
	defer putPageBuffer(content)
	defer putPageBuffer(account)
	err := s.pages[name].ExecuteTemplate(content, "content", p)
	if err == nil {
		err = s.pages[name].ExecuteTemplate(account, "account", p)
	}
	var buf bytes.Buffer
	if err == nil {
		buf.Grow(content.Len() + account.Len() + 8<<10) // the layout's own markup is about 4 KB
		err = layout.Render(&buf, &layout.Head{Title: p.Title, Site: p.Site, Description: p.Description,
			Canonical: p.Canonical(), OGType: p.OGType, NoIndex: p.NoIndex, Nav: p.Nav, Narrow: p.Narrow,
			OGImage: p.OGImage, SiteLogo: p.siteLogo, Theme: p.theme, Tagline: p.tagline,
			Account: template.HTML(account.String()), Body: template.HTML(content.String())})
	}
	return buf.Bytes(), err
}

// pageBuffers hold a page's content while the layout wraps it: grown
// afresh for each page, they were a third of the bytes a home page
// allocated (about 110 of 390 KB), and the collector's work follows them.
var pageBuffers = sync.Pool{New: func() any { return new(bytes.Buffer) }}

// putPageBuffer returns b to the pool unless one huge page grew it.
func putPageBuffer(b *bytes.Buffer) {
	if b.Cap() > 1<<20 {
		return
	}
	b.Reset()
	pageBuffers.Put(b)
}

// write sends a rendered page with the caching its status and viewer allow.
func (s *Site) write(w http.ResponseWriter, r *http.Request, p *Page, body []byte) {
	h := w.Header()
	h.Set("Content-Type", "text/html; charset=utf-8")
	s.secureHeaders(h, r)
	h.Set("Vary", "Cookie")
	if p.Status != http.StatusOK || p.private {
		h.Set("Cache-Control", "no-store")
		w.WriteHeader(p.Status)
		w.Write(body)
		return
	}
	if p.Person != nil {
		writeBody(w, r, body, "private, no-cache")
		return
	}
	writeCached(w, r, body)
}

// writeCached writes a public 200 body with a strong ETag and Cache-Control,
// or 304 when the client already has it.
func writeCached(w http.ResponseWriter, r *http.Request, body []byte) {
	writeBody(w, r, body, "public, max-age=30")
}

// writeBody writes a 200 body with a strong ETag, answering If-None-Match with 304.
func writeBody(w http.ResponseWriter, r *http.Request, body []byte, cacheControl string) {
	sum := sha256.Sum256(body)
	etag := `"` + hex.EncodeToString(sum[:12]) + `"`
	h := w.Header()
	h.Set("ETag", etag)
	h.Set("Cache-Control", cacheControl)
	if etagMatch(r.Header.Get("If-None-Match"), etag) {
		w.WriteHeader(http.StatusNotModified)
		return
	}
	h.Set("Content-Length", strconv.Itoa(len(body)))
	w.Write(body)
}

func etagMatch(header, etag string) bool {
	for _, part := range strings.Split(header, ",") {
		part = strings.TrimPrefix(strings.TrimSpace(part), "W/")
		if part == etag || part == "*" {
			return true
		}
	}
	return false
}

// errorPage shows an operation's error as a page: 404 for unknown slugs,
// 400 naming each bad field, and a plain 500 otherwise.
func (s *Site) errorPage(w http.ResponseWriter, r *http.Request, err error) {
	e := ops.AsError(err)
	if e.Code == ops.CodeNotFound {
		s.notFound(w, r, e.Detail)
		return
	}
	if e.Code == ops.CodeInternal {
		s.App.Log.Error("site page failed", "path", r.URL.Path, "err", err)
	}
	p := s.page(r, e.Code.Title(), e.Code.Title(), e)
	p.Status, p.NoIndex = e.Code.Status(), true
	if e.Code == ops.CodeRateLimited {
		secs := int(e.RetryAfter.Seconds() + 0.999)
		w.Header().Set("Retry-After", strconv.Itoa(max(secs, 1)))
	}
	s.render(w, r, "error", p)
}

func (s *Site) notFound(w http.ResponseWriter, r *http.Request, detail string) {
	p := s.page(r, "Page not found", "This page does not exist.", &ops.Error{Code: ops.CodeNotFound, Detail: detail})
	p.Status, p.NoIndex = http.StatusNotFound, true
	s.render(w, r, "error", p)
}

// query copies the named query parameters of r.
func query(r *http.Request, names ...string) map[string]string {
	q := r.URL.Query()
	out := map[string]string{}
	for _, n := range names {
		if v := strings.TrimSpace(q.Get(n)); v != "" {
			out[n] = v
		}
	}
	return out
}

// Pager links the pages of a list; Path keeps the list's other filters.
type Pager struct {
	Page, PerPage, Total int
	// Estimate: Total is "Total or more" (total_is_estimate); Full: this
	// page holds PerPage items, so there may be a next one.
	Estimate, Full bool
	path           string
	q              url.Values
}

func newPager(r *http.Request, page, perPage, total int) *Pager {
	return &Pager{Page: page, PerPage: perPage, Total: total, path: r.URL.Path, q: r.URL.Query()}
}

// Pages is the number of pages (at least 1).
func (p *Pager) Pages() int {
	if p.PerPage <= 0 || p.Total <= p.PerPage {
		return 1
	}
	n := (p.Total + p.PerPage - 1) / p.PerPage
	if p.Estimate {
		// The count stopped early: the pages go on at least to this one,
		// and one further while pages come back full.
		n = max(n, p.Page)
		if p.Full {
			n = max(n, p.Page+1)
		}
	}
	return min(n, 1000)
}

// URL is the address of page n.
func (p *Pager) URL(n int) string {
	q := url.Values{}
	for k, v := range p.q {
		q[k] = v
	}
	q.Del("page")
	if n > 1 {
		q.Set("page", strconv.Itoa(n))
	}
	if len(q) == 0 {
		return p.path
	}
	return p.path + "?" + q.Encode()
}

// Prev and Next are 0 when there is none.
func (p *Pager) Prev() int {
	if p.Page > 1 {
		return p.Page - 1
	}
	return 0
}

func (p *Pager) Next() int {
	if p.Page < p.Pages() {
		return p.Page + 1
	}
	return 0
}
