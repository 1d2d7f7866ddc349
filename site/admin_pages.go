package site

import (
	"io"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"time"

	"launchdir/app/admin"
	"launchdir/app/commerce"
	"launchdir/app/kernel"
	"launchdir/ops"
	"launchdir/routes"

	"github.com/julienschmidt/httprouter"
)

// The site team's admin pages. Every rule is in app/ (admin_*.go); these
// handlers read forms, call one app function and redirect with a
// confirmation, or show the refusal.

func (s *Site) mountAdmin(srv *routes.Server) {
	get, post := s.areaRoutes(srv, true)
	get("/admin", s.adminHome)
	get("/admin/revisions", s.adminRevisions)
	post("/admin/revisions/:id/revert", s.adminRevert)
	get("/admin/moderation", s.adminModeration)
	post("/admin/listings/moderate", s.adminModerate)
	post("/admin/reviews/:id/hide", s.adminHideReview)
	post("/admin/accounts/:id/ban", s.adminBan)
	get("/admin/rings", s.adminRings)
	post("/admin/rings/:id/review", s.adminReviewRing)
	post("/admin/reports/:id/dismiss", s.adminDismissReport)
	get("/admin/weeks", s.adminWeeks)
	post("/admin/weeks/capacity", s.adminWeekCapacity)
	post("/admin/weeks/move", s.adminMoveListing)
	get("/admin/commerce", s.adminCommerce)
	post("/admin/products/:code", s.adminSetPrice)
	post("/admin/promos", s.adminCreatePromo)
	post("/admin/promos/:code/pause", s.adminPausePromo)
	post("/admin/orders/:number/refund", s.adminRefund)
	get("/admin/data", s.adminData)
	post("/admin/data/preview", s.adminDataPreview)
	post("/admin/data/apply", s.adminDataApply)
	get("/admin/outbox", s.adminOutbox)
	post("/admin/outbox/:id/retry", s.adminRetry)
	get("/admin/settings", s.adminSettings)
	post("/admin/settings", s.adminSaveSettings)
	get("/admin/audit", s.adminAudit)
	s.mountAdminComments(srv)
	s.mountAdminSites(srv)
}

func pageOf(r *http.Request) admin.AdminPage {
	return admin.AdminPage{Page: queryInt(r, "page"), PerPage: queryInt(r, "per_page")}
}

func (s *Site) adminHome(w http.ResponseWriter, r *http.Request, _ httprouter.Params, uid int64) {
	s.renderArea(w, r, "admin_home", "Admin", http.StatusOK, uid, nil, "")
}

type revisionsData struct {
	kernel.Page[admin.Revision]
	Listing int64
	Pager   *Pager
}

func (s *Site) adminRevisions(w http.ResponseWriter, r *http.Request, _ httprouter.Params, uid int64) {
	listing, _ := strconv.ParseInt(r.URL.Query().Get("listing"), 10, 64)
	revs, err := s.App.Admin.ListRevisions(r.Context(), uid, listing, pageOf(r))
	if err != nil {
		s.areaError(w, r, uid, err)
		return
	}
	d := revisionsData{Page: revs, Listing: listing, Pager: newPager(r, revs.Page, revs.PerPage, revs.Total)}
	s.renderArea(w, r, "admin_revisions", "Revisions", http.StatusOK, uid, d, "")
}

func (s *Site) adminRevert(w http.ResponseWriter, r *http.Request, ps httprouter.Params, uid int64) {
	id, _ := strconv.ParseInt(ps.ByName("id"), 10, 64)
	if err := confirmed(r); err != nil { // a revert rewrites a live listing
		s.areaError(w, r, uid, err)
		return
	}
	rev, err := s.App.Admin.RevertRevision(r.Context(), uid, id)
	if err != nil {
		s.areaError(w, r, uid, err)
		return
	}
	done(w, r, "/admin/revisions", "reverted", url.Values{"listing": {strconv.FormatInt(rev.ListingID, 10)}})
}

type moderationData struct {
	Reports  kernel.Page[admin.Report]
	Reviews  kernel.Page[admin.AdminReview]
	Accounts kernel.Page[admin.AdminUser]
	Q        string
	Hidden   kernel.Page[admin.HiddenComment]
}

func (s *Site) adminModeration(w http.ResponseWriter, r *http.Request, _ httprouter.Params, uid int64) {
	ctx := r.Context()
	q := r.URL.Query().Get("q")
	reports, err := s.App.Admin.ListReports(ctx, uid, "open", admin.AdminPage{PerPage: 100})
	if err != nil {
		s.areaError(w, r, uid, err)
		return
	}
	reviews, err := s.App.Admin.ListReviews(ctx, uid, 0, pageOf(r))
	if err != nil {
		s.areaError(w, r, uid, err)
		return
	}
	accounts, err := s.App.Admin.ListAccounts(ctx, uid, q, admin.AdminPage{PerPage: 50})
	if err != nil {
		s.areaError(w, r, uid, err)
		return
	}
	hidden, err := s.hiddenComments(r, uid)
	if err != nil {
		s.areaError(w, r, uid, err)
		return
	}
	s.renderArea(w, r, "admin_moderation", "Moderation", http.StatusOK, uid, moderationData{Reports: reports, Reviews: reviews, Accounts: accounts, Q: q, Hidden: hidden}, "")
}

func (s *Site) adminModerate(w http.ResponseWriter, r *http.Request, _ httprouter.Params, uid int64) {
	err := s.App.Admin.ModerateListing(r.Context(), uid, formInt(r, "listing_id"), r.PostFormValue("status"), r.PostFormValue("reason"))
	if err != nil {
		s.areaError(w, r, uid, err)
		return
	}
	done(w, r, "/admin/moderation", "moderated", nil)
}

func (s *Site) adminHideReview(w http.ResponseWriter, r *http.Request, ps httprouter.Params, uid int64) {
	id, _ := strconv.ParseInt(ps.ByName("id"), 10, 64)
	if err := s.App.Admin.HideReview(r.Context(), uid, id, r.PostFormValue("reason")); err != nil {
		s.areaError(w, r, uid, err)
		return
	}
	done(w, r, "/admin/moderation", "hidden", nil)
}

func (s *Site) adminBan(w http.ResponseWriter, r *http.Request, ps httprouter.Params, uid int64) {
	id, _ := strconv.ParseInt(ps.ByName("id"), 10, 64)
	if err := s.App.Admin.BanUser(r.Context(), uid, id, r.PostFormValue("reason")); err != nil {
		s.areaError(w, r, uid, err)
		return
	}
	done(w, r, "/admin/moderation", "banned", nil)
}

func (s *Site) adminRings(w http.ResponseWriter, r *http.Request, _ httprouter.Params, uid int64) {
	rings, err := s.App.Admin.SuspectedRings(r.Context(), uid)
	if err != nil {
		s.areaError(w, r, uid, err)
		return
	}
	s.renderArea(w, r, "admin_rings", "Suspected vote rings", http.StatusOK, uid, rings, "")
}

func (s *Site) adminReviewRing(w http.ResponseWriter, r *http.Request, ps httprouter.Params, uid int64) {
	id, _ := strconv.ParseInt(ps.ByName("id"), 10, 64)
	action := r.PostFormValue("action")
	if err := s.App.Admin.ReviewRing(r.Context(), uid, id, action); err != nil {
		s.areaError(w, r, uid, err)
		return
	}
	done(w, r, "/admin/rings", map[string]string{"discount": "ring-discounted", "count": "ring-counted"}[action], nil)
}

func (s *Site) adminDismissReport(w http.ResponseWriter, r *http.Request, ps httprouter.Params, uid int64) {
	id, _ := strconv.ParseInt(ps.ByName("id"), 10, 64)
	if err := s.App.Admin.DismissReport(r.Context(), uid, id); err != nil {
		s.areaError(w, r, uid, err)
		return
	}
	done(w, r, "/admin/moderation", "dismissed", nil)
}

type weeksData struct {
	Weeks []admin.WeekPlan
	Queue kernel.Page[admin.QueuedListing]
	Pager *Pager
}

func (s *Site) adminWeeks(w http.ResponseWriter, r *http.Request, _ httprouter.Params, uid int64) {
	weeks, err := s.App.Admin.LaunchWeeks(r.Context(), uid, 12)
	if err != nil {
		s.areaError(w, r, uid, err)
		return
	}
	q, err := s.App.Admin.FreeQueue(r.Context(), uid, pageOf(r))
	if err != nil {
		s.areaError(w, r, uid, err)
		return
	}
	s.renderArea(w, r, "admin_weeks", "Launch weeks", http.StatusOK, uid, weeksData{Weeks: weeks, Queue: q,
		Pager: newPager(r, q.Page, q.PerPage, q.Total)}, "")
}

func (s *Site) adminWeekCapacity(w http.ResponseWriter, r *http.Request, _ httprouter.Params, uid int64) {
	capacity := -1 // empty: back to the default
	if v := strings.TrimSpace(r.PostFormValue("capacity")); v != "" {
		n, err := strconv.Atoi(v)
		if err != nil || n < 0 {
			s.areaError(w, r, uid, ops.Invalid("capacity", "must be a whole number 0..1000, or empty for the default"))
			return
		}
		capacity = n
	}
	if err := s.App.Admin.SetWeekCapacity(r.Context(), uid, r.PostFormValue("week"), capacity); err != nil {
		s.areaError(w, r, uid, err)
		return
	}
	done(w, r, "/admin/weeks", "capacity", nil)
}

func (s *Site) adminMoveListing(w http.ResponseWriter, r *http.Request, _ httprouter.Params, uid int64) {
	ref := r.PostFormValue("listing")
	if ref == "" {
		ref = r.PostFormValue("listing_id")
	}
	id, err := s.App.Admin.ScheduledListingRef(r.Context(), ref)
	if err != nil {
		s.areaError(w, r, uid, err)
		return
	}
	if _, err := s.App.Admin.MoveListingWeek(r.Context(), uid, id, r.PostFormValue("week")); err != nil {
		s.areaError(w, r, uid, err)
		return
	}
	done(w, r, "/admin/weeks", "moved", nil)
}

type commerceData struct {
	Products []commerce.Product
	Promos   []admin.PromoUsage
	Orders   kernel.Page[admin.AdminOrder]
	Pager    *Pager
}

func (s *Site) adminCommerce(w http.ResponseWriter, r *http.Request, _ httprouter.Params, uid int64) {
	ctx := r.Context()
	if err := s.adminCheck(r, uid); err != nil {
		s.areaError(w, r, uid, err)
		return
	}
	products, err := s.App.Commerce.AdminProducts(ctx)
	if err != nil {
		s.areaError(w, r, uid, err)
		return
	}
	promos, err := s.App.Admin.PromoCodes(ctx, uid)
	if err != nil {
		s.areaError(w, r, uid, err)
		return
	}
	orders, err := s.App.Admin.AdminOrders(ctx, uid, r.URL.Query().Get("status"), pageOf(r))
	if err != nil {
		s.areaError(w, r, uid, err)
		return
	}
	s.renderArea(w, r, "admin_commerce", "Prices, promo codes and orders", http.StatusOK, uid,
		commerceData{Products: products, Promos: promos, Orders: orders, Pager: newPager(r, orders.Page, orders.PerPage, orders.Total)}, "")
}

// adminCheck re-checks admin rights for pages that read through non-admin
// app functions.
func (s *Site) adminCheck(r *http.Request, uid int64) error {
	if !s.App.Admin.IsAdmin(r.Context(), uid) {
		return ops.NotFound("page")
	}
	return nil
}

func (s *Site) adminSetPrice(w http.ResponseWriter, r *http.Request, ps httprouter.Params, uid int64) {
	price, err := parseMoney(r.PostFormValue("price"))
	if err != nil {
		s.areaError(w, r, uid, err)
		return
	}
	var capacity *int64
	if r.PostForm.Has("capacity") {
		c := int64(-1) // empty: unlimited
		if v := strings.TrimSpace(r.PostFormValue("capacity")); v != "" {
			n, err := strconv.ParseInt(v, 10, 64)
			if err != nil || n < 0 {
				s.areaError(w, r, uid, ops.Invalid("weekly_capacity", "must be a whole number 0..1000, or empty for unlimited"))
				return
			}
			c = n
		}
		capacity = &c
	}
	if err := s.App.Admin.AdminSetPrice(r.Context(), uid, ps.ByName("code"), price, capacity); err != nil {
		s.areaError(w, r, uid, err)
		return
	}
	done(w, r, "/admin/commerce", "price", nil)
}

// parseMoney reads "49", "49.5" or "49.00" as cents.
func parseMoney(v string) (int64, error) {
	v = strings.TrimSpace(v)
	whole, frac, _ := strings.Cut(v, ".")
	if len(frac) > 2 || whole == "" {
		return 0, ops.Invalid("price", "must be an amount such as 49 or 49.00")
	}
	for len(frac) < 2 {
		frac += "0"
	}
	n, err := strconv.ParseInt(whole+frac, 10, 64)
	if err != nil || n < 0 {
		return 0, ops.Invalid("price", "must be an amount such as 49 or 49.00")
	}
	return n, nil
}

// formTime reads a datetime-local field (YYYY-MM-DDTHH:MM, with optional
// seconds), which the form labels as UTC, as RFC 3339; anything else
// (RFC 3339 typed by hand, or a bad value) goes to app/ as typed, which
// validates it.
func formTime(r *http.Request, name string) string {
	v := strings.TrimSpace(r.PostFormValue(name))
	for _, layout := range []string{"2006-01-02T15:04", "2006-01-02T15:04:05"} {
		if t, err := time.Parse(layout, v); err == nil {
			return t.UTC().Format(time.RFC3339)
		}
	}
	return v
}

func (s *Site) adminCreatePromo(w http.ResponseWriter, r *http.Request, _ httprouter.Params, uid int64) {
	p := commerce.PromoCode{Code: r.PostFormValue("code"), Kind: r.PostFormValue("kind"), Value: formInt(r, "value"),
		ValidFrom: formTime(r, "from"), ValidUntil: formTime(r, "until")}
	if p.Kind == "fixed" { // typed in money ("5" or "5.00"), kept in cents
		cents, err := parseMoney(r.PostFormValue("value"))
		if err != nil {
			s.areaError(w, r, uid, ops.Invalid("value", "a fixed discount is an amount such as 5 or 5.00"))
			return
		}
		p.Value = cents
	}
	if v := strings.TrimSpace(r.PostFormValue("max")); v != "" {
		n, err := strconv.ParseInt(v, 10, 64)
		if err != nil {
			s.areaError(w, r, uid, ops.Invalid("max", "must be a whole number"))
			return
		}
		p.MaxRedemptions = &n
	}
	for _, c := range strings.FieldsFunc(r.PostFormValue("products"), func(r rune) bool { return r == ',' || r == ' ' }) {
		p.Products = append(p.Products, c)
	}
	p.Sites = strings.FieldsFunc(r.PostFormValue("sites"), func(r rune) bool { return r == ',' || r == ' ' }) // issue 24
	if err := s.App.Admin.AdminCreatePromo(r.Context(), uid, p); err != nil {
		s.areaError(w, r, uid, err)
		return
	}
	done(w, r, "/admin/commerce", "promo", nil)
}

func (s *Site) adminPausePromo(w http.ResponseWriter, r *http.Request, ps httprouter.Params, uid int64) {
	if err := s.App.Admin.SetPromoPaused(r.Context(), uid, ps.ByName("code"), r.PostFormValue("paused") == "true"); err != nil {
		s.areaError(w, r, uid, err)
		return
	}
	done(w, r, "/admin/commerce", "promo", nil)
}

func (s *Site) adminRefund(w http.ResponseWriter, r *http.Request, ps httprouter.Params, uid int64) {
	if err := s.App.Admin.AdminRefund(r.Context(), uid, ps.ByName("number"), r.PostFormValue("note")); err != nil {
		s.areaError(w, r, uid, err)
		return
	}
	done(w, r, "/admin/commerce", "refunded", nil)
}

type dataForm struct {
	Kind, Source, AsOf, CSV string
	Preview                 *admin.ImportPreview
	Applied                 bool
}

func (s *Site) adminData(w http.ResponseWriter, r *http.Request, _ httprouter.Params, uid int64) {
	if err := s.adminCheck(r, uid); err != nil {
		s.areaError(w, r, uid, err)
		return
	}
	s.renderArea(w, r, "admin_data", "Data boards", http.StatusOK, uid, dataForm{Kind: admin.ImportDomainRating}, "")
}

// importRequest reads the import form: an uploaded file or pasted CSV.
func importRequest(r *http.Request) (admin.ImportRequest, error) {
	req := admin.ImportRequest{Kind: r.PostFormValue("kind"), Source: r.PostFormValue("source"), AsOf: r.PostFormValue("as_of"),
		CSV: []byte(r.PostFormValue("csv"))}
	if f, _, err := r.FormFile("file"); err == nil {
		defer f.Close()
		b, err := io.ReadAll(io.LimitReader(f, admin.MaxImportBytes+1))
		if err != nil {
			return req, err
		}
		if len(b) > 0 {
			req.CSV = b
		}
	}
	return req, nil
}

func (s *Site) adminDataPreview(w http.ResponseWriter, r *http.Request, _ httprouter.Params, uid int64) {
	s.adminImport(w, r, uid, false)
}

func (s *Site) adminDataApply(w http.ResponseWriter, r *http.Request, _ httprouter.Params, uid int64) {
	s.adminImport(w, r, uid, true)
}

func (s *Site) adminImport(w http.ResponseWriter, r *http.Request, uid int64, apply bool) {
	req, err := importRequest(r)
	if err != nil {
		s.areaError(w, r, uid, err)
		return
	}
	d := dataForm{Kind: req.Kind, Source: req.Source, AsOf: req.AsOf, CSV: string(req.CSV)}
	var p *admin.ImportPreview
	if apply {
		p, err = s.App.Admin.ApplyImport(r.Context(), uid, req)
	} else {
		p, err = s.App.Admin.PreviewImport(r.Context(), uid, req)
	}
	if err != nil && (p == nil || len(p.Errors) == 0) {
		e := ops.AsError(err)
		if e.Code == ops.CodeNotFound || e.Code == ops.CodeInternal {
			s.areaError(w, r, uid, err)
			return
		}
		s.renderArea(w, r, "admin_data", "Data boards", e.Code.Status(), uid, d, e.Error())
		return
	}
	d.Preview, d.Applied = p, apply && err == nil
	status := http.StatusOK
	if len(p.Errors) > 0 {
		status = http.StatusBadRequest
	}
	s.renderArea(w, r, "admin_data", "Data boards", status, uid, d, "")
}

type outboxData struct {
	Status string
	kernel.Page[admin.OutboxEmail]
	Pager *Pager
}

func (s *Site) adminOutbox(w http.ResponseWriter, r *http.Request, _ httprouter.Params, uid int64) {
	status := r.URL.Query().Get("status")
	if status == "" {
		status = "failed"
	}
	list, err := s.App.Admin.ListOutbox(r.Context(), uid, status, pageOf(r))
	if err != nil {
		s.areaError(w, r, uid, err)
		return
	}
	s.renderArea(w, r, "admin_outbox", "Outbox", http.StatusOK, uid, outboxData{Status: status, Page: list,
		Pager: newPager(r, list.Page, list.PerPage, list.Total)}, "")
}

func (s *Site) adminRetry(w http.ResponseWriter, r *http.Request, ps httprouter.Params, uid int64) {
	id, _ := strconv.ParseInt(ps.ByName("id"), 10, 64)
	if err := s.App.Admin.RetryOutbox(r.Context(), uid, id); err != nil {
		s.areaError(w, r, uid, err)
		return
	}
	done(w, r, "/admin/outbox", "retried", url.Values{"status": {"pending"}})
}

func (s *Site) adminSettings(w http.ResponseWriter, r *http.Request, _ httprouter.Params, uid int64) {
	if err := s.adminCheck(r, uid); err != nil {
		s.areaError(w, r, uid, err)
		return
	}
	s.renderArea(w, r, "admin_settings", "Settings", http.StatusOK, uid, s.App.Admin.Settings(r.Context()), "")
}

func (s *Site) adminSaveSettings(w http.ResponseWriter, r *http.Request, _ httprouter.Params, uid int64) {
	in := admin.SiteSettings{SiteName: r.PostFormValue("site_name"), SiteDescription: r.PostFormValue("site_description")}
	var bad []ops.FieldError
	for name, dst := range map[string]*int{"free_queue_weeks": &in.FreeQueueWeeks, "free_weekly_capacity": &in.FreeWeeklyCapacity} {
		n, err := strconv.Atoi(strings.TrimSpace(r.PostFormValue(name)))
		if err != nil {
			bad = append(bad, ops.FieldError{Field: name, Message: "must be a whole number"})
		}
		*dst = n
	}
	err := error(nil)
	if len(bad) > 0 {
		err = ops.InvalidFields(bad)
	} else {
		err = s.App.Admin.UpdateSettings(r.Context(), uid, in)
	}
	if err != nil {
		e := ops.AsError(err)
		if e.Code != ops.CodeInvalid {
			s.areaError(w, r, uid, err)
			return
		}
		s.renderArea(w, r, "admin_settings", "Settings", http.StatusBadRequest, uid, in, e.Error())
		return
	}
	done(w, r, "/admin/settings", "settings", nil)
}

type auditData struct {
	kernel.Page[admin.AuditEntry]
	Pager *Pager
}

func (s *Site) adminAudit(w http.ResponseWriter, r *http.Request, _ httprouter.Params, uid int64) {
	list, err := s.App.Admin.ListAudit(r.Context(), uid, pageOf(r))
	if err != nil {
		s.areaError(w, r, uid, err)
		return
	}
	s.renderArea(w, r, "admin_audit", "Audit log", http.StatusOK, uid, auditData{Page: list,
		Pager: newPager(r, list.Page, list.PerPage, list.Total)}, "")
}
