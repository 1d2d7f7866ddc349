package site

import (
	"context"
	"fmt"
	"net/http"
	"net/url"

	"strings"
	"sync"
	"time"

	"launchdir/app/catalog"
	"launchdir/app/kernel"
	"launchdir/app/people"
	"launchdir/db"
	"launchdir/ops"

	"github.com/julienschmidt/httprouter"
)

// list is the paginated body every list operation returns: the
// operations' own type, so that a page takes a handler's page as it is
// (place).
type list[T any] = kernel.Page[T]

// pagerOf is the list's pager; an estimated total (a search, a leaderboard
// or the founders list past 10,000) is a lower bound, so the pager goes on
// while pages come back full.
func pagerOf[T any](r *http.Request, l *kernel.Page[T]) *Pager {
	p := newPager(r, l.Page, l.PerPage, l.Total)
	p.Estimate, p.Full = l.TotalIsEstimate, len(l.Items) >= l.PerPage
	return p
}

// perPage is the page size of site lists (the API's bounds apply).
const perPage = "24"

func pageArgs(r *http.Request, more map[string]string) map[string]string {
	args := query(r, "page")
	args["per_page"] = perPage
	for k, v := range more {
		args[k] = v
	}
	return args
}

type homeData struct {
	Week     string
	Featured []db.Summary
	Today    catalog.LaunchSection
	ThisWeek catalog.LaunchSection
	Upcoming weekData
}

// homeTTL: the anonymous home page is kept this long. It is the busiest
// page and reads four lists; shared caches may keep it 30 s anyway
// (max-age), and signed-in people always get a fresh one.
const homeTTL = 5 * time.Second

func (s *Site) home(w http.ResponseWriter, r *http.Request, _ httprouter.Params) {
	ctx := r.Context()
	anonymous := false
	if p, _ := s.viewer(r); p == nil {
		anonymous = true
		if body, ok := s.homeCache.get(s.cacheKey(ctx, "/"), time.Now()); ok {
			w.Header().Set("Content-Type", "text/html; charset=utf-8")
			s.secureHeaders(w.Header(), r)
			w.Header().Set("Vary", "Cookie")
			writeCached(w, r, body)
			return
		}
	}
	d := homeData{Week: kernel.WeekOf(s.App.Now())}
	section := func(name, n string, dst *catalog.LaunchSection) func() error {
		return func() error {
			return s.call(ctx, "list_launches", map[string]string{"section": name, "per_page": n}, dst)
		}
	}
	// Upcoming on the home page is next week's launches: the week's index
	// answers it at any size (all upcoming launches are one link away).
	next := func() error {
		return s.call(ctx, "get_launch_week", map[string]string{"week": "next", "per_page": "10"}, &d.Upcoming)
	}
	err := parallel(ctx, section("today", "10", &d.Today), section("this-week", "20", &d.ThisWeek), next, func() (err error) {
		d.Featured, err = s.App.Catalog.FeaturedInWeek(ctx, d.Week)
		return err
	})
	if err != nil {
		s.errorPage(w, r, err)
		return
	}
	desc := s.siteDescription(r)
	p := s.page(r, s.App.SiteName(r.Context())+": startup launches ranked by the community", desc, d)
	p.Nav = "home"
	p.OGImage = s.ogURL(ctx, "home", "home", s.homeCard(ctx, desc))
	s.decorateCards(r, p)
	db.Unpin(ctx) // all read: the templates may read more, from the pool
	body, err := s.renderBytes("home", p)
	if err != nil {
		s.errorPage(w, r, err)
		return
	}
	if anonymous && p.Person == nil {
		s.homeCache.put(s.cacheKey(ctx, "/"), body, time.Now())
	}
	s.write(w, r, p, body)
}

func (s *Site) siteDescription(r *http.Request) string {
	return s.App.SiteDescription(r.Context())
}

// doneNotes confirm a listing action after its redirect back.
var doneNotes = map[string]string{
	"voted": "Your vote is in.", "unvoted": "Your vote is withdrawn.",
	"voted-held":      "Your vote is recorded and waits for a review by the site team before it counts: it arrived with votes from several new accounts that share a network or an email domain. If that is a coincidence, the team will count it.",
	"voted-uncounted": "Your vote is recorded but does not count toward boards and awards: owners' votes never count, and an account's votes count once its email is verified and it is old enough.",
	"followed":        "You follow this product: its updates come to your email.", "unfollowed": "You no longer follow this product.",
	"reviewed": "Your review is saved.", "reported": "Thank you: the site team will look at it.",
}

// badgeInfo is the part of get_badges the page shows.
type badgeInfo struct {
	HTML     string `json:"html"`
	ImageURL string `json:"image_url"`
}

type listingData struct {
	L            *db.Listing
	Alternatives list[db.Alternative]
	Badge        badgeInfo
	Viewer       *people.Viewer
	Reviews      []people.Review
	ReviewTotal  int
	Done         string
	Awards       list[db.Award]
	Comments     *commentsData
}

func (s *Site) listing(w http.ResponseWriter, r *http.Request, ps httprouter.Params) {
	s.showListing(w, r, ps.ByName("slug"), nil, http.StatusOK)
}

// showListing renders a listing's page; form is a refused comment form to
// show again (with status), nil otherwise. An upcoming listing has its
// own page.
func (s *Site) showListing(w http.ResponseWriter, r *http.Request, slug string, form *commentForm, status int) {
	ctx := r.Context()
	d := listingData{L: &db.Listing{}}
	if err := s.call(ctx, "get_listing", map[string]string{"slug": slug}, d.L); err != nil {
		if ops.AsError(err).Code != ops.CodeNotFound || !s.upcoming(w, r, slug, form, status) {
			s.errorPage(w, r, err)
		}
		return
	}
	err := parallel(ctx,
		func() error {
			return s.call(ctx, "get_alternatives", map[string]string{"slug": slug, "per_page": "6"}, &d.Alternatives)
		},
		func() error {
			return s.call(ctx, "list_awards", map[string]string{"listing": slug, "per_page": "10"}, &d.Awards)
		},
		func() error { return s.call(ctx, "get_badges", map[string]string{"slug": slug}, &d.Badge) })
	if err != nil {
		s.errorPage(w, r, err)
		return
	}
	p := s.page(r, d.L.Name+": "+d.L.Tagline, firstNonEmpty(d.L.ShortDescription, d.L.Tagline), &d)
	p.OGType = "article"
	p.OGImage = s.ogURL(ctx, "listing", d.L.Slug, s.listingCard(ctx, d.L))
	if s.people != nil {
		reviews, err := s.people.ListingReviews(ctx, slug, 1, 20)
		if err != nil {
			s.errorPage(w, r, err)
			return
		}
		d.Reviews, d.ReviewTotal = reviews.Items, reviews.Total
		if p.Person != nil {
			v, err := s.people.ViewerOf(ctx, p.Person.ID, slug)
			if err != nil {
				s.errorPage(w, r, err)
				return
			}
			d.Viewer = &v
		}
		d.Done = doneNotes[r.URL.Query().Get("done")]
	}
	if d.Comments, err = s.comments(r, slug, d.L.Name, p.Person, derefForm(form)); err != nil {
		s.errorPage(w, r, err)
		return
	}
	p.Status, p.Path = status, "/listings/"+slug
	s.render(w, r, "listing", p)
}

type alternativesData struct {
	L *db.Listing
	list[db.Alternative]
	Pager *Pager
}

// alternatives is the whole paginated list the listing page previews.
func (s *Site) alternatives(w http.ResponseWriter, r *http.Request, ps httprouter.Params) {
	slug := ps.ByName("slug")
	d := alternativesData{L: &db.Listing{}}
	if err := s.call(r.Context(), "get_listing", map[string]string{"slug": slug}, d.L); err != nil {
		s.errorPage(w, r, err)
		return
	}
	if err := s.call(r.Context(), "get_alternatives", pageArgs(r, map[string]string{"slug": slug}), &d.list); err != nil {
		s.errorPage(w, r, err)
		return
	}
	d.Pager = pagerOf(r, &d.list)
	p := s.page(r, "Alternatives to "+d.L.Name, "Products like "+d.L.Name+": owner-approved alternatives first, then the same category by votes.", d)
	s.render(w, r, "alternatives", p)
}

type reviewsData struct {
	L       *db.Listing
	Reviews []people.Review
	Pager   *Pager
}

// reviews lists all of a listing's reviews, a page at a time.
func (s *Site) reviews(w http.ResponseWriter, r *http.Request, ps httprouter.Params) {
	slug := ps.ByName("slug")
	d := reviewsData{L: &db.Listing{}}
	if err := s.call(r.Context(), "get_listing", map[string]string{"slug": slug}, d.L); err != nil {
		s.errorPage(w, r, err)
		return
	}
	page, err := pageParam(r)
	if err != nil {
		s.errorPage(w, r, err)
		return
	}
	list, err := s.people.ListingReviews(r.Context(), slug, page, 24)
	if err != nil {
		s.errorPage(w, r, err)
		return
	}
	d.Reviews, d.Pager = list.Items, newPager(r, page, 24, list.Total)
	p := s.page(r, "Reviews of "+d.L.Name, "What people say about "+d.L.Name+".", d)
	s.render(w, r, "reviews", p)
}

type categoriesData struct {
	Items []db.Category `json:"items"`
	Total int           `json:"total"`
}

func (s *Site) categories(w http.ResponseWriter, r *http.Request, _ httprouter.Params) {
	var d categoriesData
	if err := s.call(r.Context(), "list_categories", nil, &d); err != nil {
		s.errorPage(w, r, err)
		return
	}
	p := s.page(r, "Categories", "Every category of the directory with its live listings.", d)
	p.Nav = "categories"
	s.render(w, r, "categories", p)
}

// categoryData is get_category's output and the page's pager.
type categoryData struct {
	catalog.CategoryListings
	Pager *Pager `json:"-"`
}

func (s *Site) category(w http.ResponseWriter, r *http.Request, ps httprouter.Params) {
	var d categoryData
	if err := s.call(r.Context(), "get_category", pageArgs(r, map[string]string{"slug": ps.ByName("slug")}), &d); err != nil {
		s.errorPage(w, r, err)
		return
	}
	d.Pager = pagerOf(r, &d.Page)
	p := s.page(r, d.Category.Name+" products", firstNonEmpty(d.Category.Description, "Live "+d.Category.Name+" products, most voted first."), d)
	p.Nav = "categories"
	p.OGImage = s.ogURL(r.Context(), "category", d.Category.Slug, s.categoryCard(r.Context(), &d.Category))
	s.render(w, r, "category", p)
}

func (s *Site) launchesIndex(w http.ResponseWriter, r *http.Request, _ httprouter.Params) {
	http.Redirect(w, r, "/launches/this", http.StatusFound)
}

// weekData is get_launch_week's output and what the page adds.
type weekData struct {
	catalog.LaunchWeek
	Pager      *Pager `json:"-"`
	Prev, Next string `json:"-"`
	Current    string `json:"-"`
}

func (s *Site) launchWeek(w http.ResponseWriter, r *http.Request, ps httprouter.Params) {
	var d weekData
	week := ps.ByName("week")
	if week == "pick" { // the "any week" form, without JavaScript
		wk := query(r, "w")["w"]
		if wk == "" {
			wk = "this"
		}
		http.Redirect(w, r, "/launches/"+url.PathEscape(wk), http.StatusFound)
		return
	}
	if err := s.call(r.Context(), "get_launch_week", pageArgs(r, map[string]string{"week": week}), &d); err != nil {
		s.errorPage(w, r, err)
		return
	}
	d.Pager = pagerOf(r, &d.Page)
	start, _ := time.Parse("2006-01-02", d.Week)
	d.Prev, d.Next = start.AddDate(0, 0, -7).Format("2006-01-02"), start.AddDate(0, 0, 7).Format("2006-01-02")
	d.Current = kernel.WeekOf(s.App.Now())
	p := s.page(r, "Launches of the week of "+kernel.HumanDate(d.Starts), fmt.Sprintf("Products launching from %s to %s, ranked by the week's community votes.", kernel.HumanDate(d.Starts), kernel.HumanDate(d.Ends)), d)
	p.Nav = "launches"
	p.OGImage = s.ogURL(r.Context(), "week", d.Week, s.weekCard(r.Context(), &d))
	s.render(w, r, "week", p)
}

var boards = []struct{ Slug, Title, About string }{
	{"community-weekly", "Community votes this week", "Votes cast by people on the site this launch week."},
	{"community-all-time", "Community votes, all time", "Every vote cast by people on the site."},
	{"billboard", "Billboard (paid placement)", "A paid ranking: positions are bought and say nothing about quality."},
	{"domain-rating", "Domain Rating", "Third-party data (Ahrefs Domain Rating), not computed by this directory."},
	{"revenue", "Revenue", "Monthly recurring revenue reported by founders."},
}

func (s *Site) leaderboards(w http.ResponseWriter, r *http.Request, _ httprouter.Params) {
	p := s.page(r, "Leaderboards", "The directory's leaderboards: community votes, billboard (paid), Domain Rating and revenue.", boards)
	p.Nav = "leaderboards"
	s.render(w, r, "leaderboards", p)
}

type boardData struct {
	Board      string `json:"board"`
	Title      string `json:"title"`
	Metric     string `json:"metric"`
	Paid       bool   `json:"paid"`
	Disclosure string `json:"disclosure"`
	Source     string `json:"source"`
	Week       string `json:"week"`
	list[db.BoardItem]
	Pager *Pager `json:"-"`
}

func (s *Site) leaderboard(w http.ResponseWriter, r *http.Request, ps httprouter.Params) {
	var d boardData
	args := pageArgs(r, map[string]string{"board": ps.ByName("board")})
	if wk := query(r, "week")["week"]; wk != "" && ps.ByName("board") == "community-weekly" {
		args["week"] = wk
	}
	if err := s.call(r.Context(), "get_leaderboard", args, &d); err != nil {
		s.errorPage(w, r, err)
		return
	}
	d.Pager = pagerOf(r, &d.list)
	title := d.Title
	if d.Paid {
		title += " (paid placement)"
	}
	p := s.page(r, title, firstNonEmpty(d.Disclosure, d.Source), d)
	p.Nav = "leaderboards"
	s.render(w, r, "board", p)
}

type foundersData struct {
	list[db.Founder]
	Pager   *Pager `json:"-"`
	Q       string `json:"-"`
	Country string `json:"-"`
}

func (s *Site) founders(w http.ResponseWriter, r *http.Request, _ httprouter.Params) {
	var d foundersData
	f := query(r, "q", "country")
	if err := s.call(r.Context(), "list_founders", pageArgs(r, f), &d); err != nil {
		s.errorPage(w, r, err)
		return
	}
	d.Pager, d.Q, d.Country = pagerOf(r, &d.list), f["q"], f["country"]
	p := s.page(r, "Founders", "The founders behind the directory's live products.", d)
	p.Nav = "founders"
	s.render(w, r, "founders", p)
}

func (s *Site) founder(w http.ResponseWriter, r *http.Request, ps httprouter.Params) {
	var d db.Founder
	if err := s.call(r.Context(), "get_founder", map[string]string{"slug": ps.ByName("slug")}, &d); err != nil {
		s.errorPage(w, r, err)
		return
	}
	p := s.page(r, d.Name+", founder", firstNonEmpty(truncate(d.Bio, 160), d.Name+" on "+s.App.SiteName(r.Context())), &d)
	p.OGType = "profile"
	p.Nav = "founders"
	s.render(w, r, "founder", p)
}

type blogData struct {
	list[db.BlogPost]
	Pager *Pager `json:"-"`
	Q     string `json:"-"`
}

func (s *Site) blog(w http.ResponseWriter, r *http.Request, _ httprouter.Params) {
	var d blogData
	f := query(r, "q")
	if err := s.call(r.Context(), "list_blog_posts", pageArgs(r, f), &d); err != nil {
		s.errorPage(w, r, err)
		return
	}
	d.Pager, d.Q = pagerOf(r, &d.list), f["q"]
	p := s.page(r, "Blog", "Articles from "+s.App.SiteName(r.Context())+".", d)
	p.Nav = "blog"
	s.render(w, r, "blog", p)
}

func (s *Site) blogPost(w http.ResponseWriter, r *http.Request, ps httprouter.Params) {
	var d db.BlogPost
	if err := s.call(r.Context(), "get_blog_post", map[string]string{"slug": ps.ByName("slug")}, &d); err != nil {
		s.errorPage(w, r, err)
		return
	}
	p := s.page(r, d.Title, firstNonEmpty(d.Summary, d.Title), &d)
	p.OGType = "article"
	p.Nav = "blog"
	s.render(w, r, "post", p)
}

type awardsData struct {
	list[db.Award]
	Basis string `json:"basis"`
	Pager *Pager `json:"-"`
}

func (s *Site) awards(w http.ResponseWriter, r *http.Request, _ httprouter.Params) {
	var d awardsData
	if err := s.call(r.Context(), "list_awards", pageArgs(r, nil), &d); err != nil {
		s.errorPage(w, r, err)
		return
	}
	d.Pager = pagerOf(r, &d.list)
	p := s.page(r, "Launch of the Week awards", d.Basis, d)
	p.Nav = "awards"
	s.render(w, r, "awards", p)
}

// searchFacets are the filters search_listings takes, shown as a form.
// searchData embeds its list as an exported field so that decorateCards,
// which follows exported and embedded exported fields, finds its cards.
type searchData struct {
	kernel.Page[db.Summary]
	Pager      *Pager            `json:"-"`
	F          map[string]string `json:"-"`
	Categories []db.Category     `json:"-"`
	Stages     []string          `json:"-"`
	Models     []string          `json:"-"`
	Sorts      []string          `json:"-"`
}

// facetCategories is the category tree of the search filters, kept for
// facetTTL: counts in a filter menu need not be exact to the second.
func (s *Site) facetCategories(r *http.Request) ([]db.Category, error) {
	s.facets.mu.Lock()
	defer s.facets.mu.Unlock()
	key := s.App.SiteKey(r.Context())
	if f, ok := s.facets.by[key]; ok && time.Since(f.at) < facetTTL {
		return f.items, nil
	}
	var cats categoriesData
	if err := s.call(r.Context(), "list_categories", map[string]string{"include_empty": "false"}, &cats); err != nil {
		return nil, err
	}
	if s.facets.by == nil {
		s.facets.by = map[string]facetEntry{}
	}
	s.facets.by[key] = facetEntry{cats.Items, time.Now()}
	return cats.Items, nil
}

const facetTTL = 30 * time.Second

var searchFilters = []string{"q", "category", "stage", "country", "pricing_model", "domain", "status", "sort"}

func (s *Site) search(w http.ResponseWriter, r *http.Request, _ httprouter.Params) {
	d := searchData{F: query(r, searchFilters...)}
	var cats []db.Category
	err := parallel(r.Context(),
		func() error { return s.call(r.Context(), "search_listings", pageArgs(r, d.F), &d) },
		func() (err error) { cats, err = s.facetCategories(r); return err })
	if err != nil {
		s.errorPage(w, r, err)
		return
	}
	d.Categories = cats
	d.Stages = []string{"idea", "pre-launch", "beta", "launched", "growth", "profitable"}
	d.Models = []string{"free", "freemium", "subscription", "one-time", "usage-based", "open-source"}
	d.Sorts = []string{"relevance", "newest", "votes", "trending", "most_viewed", "most_followed"}
	d.Pager = pagerOf(r, &d.Page)
	title := "Search"
	if q := d.F["q"]; q != "" {
		title = "Search: " + q
	}
	p := s.page(r, title, "Search the directory's live and upcoming products.", d)
	p.Nav = "search"
	p.NoIndex = len(d.F) > 0
	s.render(w, r, "search", p)
}

type compareData struct {
	A    *db.Summary `json:"a"`
	B    *db.Summary `json:"b"`
	Rows []struct {
		Attribute string `json:"attribute"`
		A         string `json:"a"`
		B         string `json:"b"`
	} `json:"rows"`
	Note  string `json:"note"`
	QA    string `json:"-"`
	QB    string `json:"-"`
	Error *ops.Error
}

func (s *Site) compare(w http.ResponseWriter, r *http.Request, _ httprouter.Params) {
	f := query(r, "a", "b")
	d := compareData{QA: f["a"], QB: f["b"]}
	title := "Compare two products"
	if d.QA != "" || d.QB != "" {
		if err := s.call(r.Context(), "compare_listings", f, &d); err != nil {
			e := ops.AsError(err)
			if e.Code != ops.CodeNotFound && e.Code != ops.CodeInvalid {
				s.errorPage(w, r, err)
				return
			}
			d.Error = e
		} else {
			title = d.A.Name + " vs " + d.B.Name
		}
	}
	p := s.page(r, title, "Compare two products fact by fact.", d)
	if d.Error != nil {
		p.Status, p.NoIndex = d.Error.Code.Status(), true
	}
	s.render(w, r, "compare", p)
}

// parallel runs independent reads at once (SQLite's read pool serves them
// concurrently), so a page costs its slowest read, not their sum. It
// returns the first error in argument order. A page pinned to one read
// transaction (db/pin.go) runs them one after the other: they would share
// its connection anyway, and two sections running the same prepared
// statement on one connection at once would cut each other's rows short.
func parallel(ctx context.Context, fns ...func() error) error {
	if db.Pinned(ctx) {
		for _, f := range fns {
			if err := f(); err != nil {
				return err
			}
		}
		return nil
	}
	errs := make([]error, len(fns))
	var wg sync.WaitGroup
	for i, f := range fns {
		wg.Add(1)
		go func() { defer wg.Done(); errs[i] = f() }()
	}
	wg.Wait()
	for _, err := range errs {
		if err != nil {
			return err
		}
	}
	return nil
}

func firstNonEmpty(v ...string) string {
	for _, s := range v {
		if strings.TrimSpace(s) != "" {
			return s
		}
	}
	return ""
}

// truncate cuts s to at most n runes on a word boundary.
func truncate(s string, n int) string {
	rs := []rune(strings.TrimSpace(s))
	if len(rs) <= n {
		return string(rs)
	}
	cut := string(rs[:n-1])
	if i := strings.LastIndexByte(cut, ' '); i > n/2 {
		cut = cut[:i]
	}
	return cut + "…"
}
