package site

import (
	"encoding/base64"
	"fmt"
	"net/http"
	"strconv"
	"strings"

	"launchdir/app/kernel"
	"launchdir/app/media"
	"launchdir/app/sites"
	"launchdir/ops"
	"launchdir/routes"

	"github.com/julienschmidt/httprouter"
)

// The site team's Sites pages (issue 24): every directory this server
// runs, a form to add one and a form to edit each (address, host names,
// name, look, categories, calendar, email sender, prices). The rules are
// in app/sites; a refused form is shown again with what was typed and the
// field named.

func (s *Site) mountAdminSites(srv *routes.Server) {
	get, post := s.areaRoutes(srv, true)
	get("/admin/sites", s.adminSites)
	post("/admin/sites", s.adminCreateSite)
	get("/admin/sites/:key", s.adminSite)
	post("/admin/sites/:key", s.adminSaveSite)
	post("/admin/sites/:key/delete", s.adminDeleteSite)
	post("/admin/sites/:key/images", s.adminSiteImage)
}

func init() {
	doneMessages["site_created"] = "The site was created. Fill in the rest of its settings below, then put listings on it."
	doneMessages["site_saved"] = "The site's settings were saved."
	doneMessages["site_deleted"] = "The site was deleted; its listings stay on the other sites."
	doneMessages["site_image"] = "The site's image was changed."
}

// adminSiteImage sets a site's favicon or logo (or goes back to the drawn
// default): the admin domain's SetSiteImage with that site in the context,
// so the image is the site's own (site_settings).
func (s *Site) adminSiteImage(w http.ResponseWriter, r *http.Request, ps httprouter.Params, uid int64) {
	site, ok := s.App.SiteByKey(r.Context(), ps.ByName("key"))
	if !ok {
		s.privateNotFound(w, r)
		return
	}
	kind := media.KindFavicon
	if r.PostFormValue("which") == "site_logo" {
		kind = media.KindSiteLogo
	}
	var data []byte
	err := error(nil)
	if r.PostFormValue("do") != "reset" {
		var b64 string
		if b64, err = formFile(r); err == nil && b64 == "" {
			err = ops.Invalid("file", "choose an image file")
		}
		data, _ = base64.StdEncoding.DecodeString(b64)
	}
	if err == nil {
		err = s.App.Admin.SetSiteImage(kernel.WithSite(r.Context(), site), uid, kind, data)
	}
	if err != nil {
		e := ops.AsError(err)
		if e.Code != ops.CodeInvalid {
			s.areaError(w, r, uid, err)
			return
		}
		stored, gerr := s.App.Network.Get(r.Context(), uid, site.Key)
		if gerr != nil {
			s.areaError(w, r, uid, gerr)
			return
		}
		form, ferr := s.siteFormOf(r, stored)
		if ferr != nil {
			s.areaError(w, r, uid, ferr)
			return
		}
		s.renderArea(w, r, "admin_site", stored.Name, http.StatusBadRequest, uid, form, "Image: "+e.Detail)
		return
	}
	done(w, r, "/admin/sites/"+site.Key, "site_image", nil)
}

// sitesData is the Sites page: every site, and the add form as typed.
type sitesData struct {
	Sites []sites.Site
	New   siteForm
}

// siteForm is a site's form as shown (or as typed, after a refusal).
type siteForm struct {
	Key, Origin, Hosts, Name, Tagline, AccentColor, EmailFromName string
	Capacity, QueueWeeks                                          string
	Main                                                          bool
	LogoPath                                                      string // the site's logo, "" when none was set
	Listings                                                      int
	Categories                                                    []categoryChoice
	Prices                                                        []priceChoice
}

type categoryChoice struct {
	Slug, Name string
	Sub        bool
	Checked    bool
}

type priceChoice struct {
	Code, Name, Own, Value string
}

func (s *Site) adminSites(w http.ResponseWriter, r *http.Request, _ httprouter.Params, uid int64) {
	s.renderSites(w, r, uid, siteForm{}, http.StatusOK, "")
}

func (s *Site) renderSites(w http.ResponseWriter, r *http.Request, uid int64, form siteForm, status int, msg string) {
	list, err := s.App.Network.List(r.Context(), uid)
	if err != nil {
		s.areaError(w, r, uid, err)
		return
	}
	s.renderArea(w, r, "admin_sites", "Sites", status, uid, sitesData{Sites: list, New: form}, msg)
}

func (s *Site) adminCreateSite(w http.ResponseWriter, r *http.Request, _ httprouter.Params, uid int64) {
	form := siteForm{Key: r.PostFormValue("key"), Origin: r.PostFormValue("origin"), Name: r.PostFormValue("name")}
	in := sites.Input{Key: strings.TrimSpace(form.Key), Origin: &form.Origin}
	if strings.TrimSpace(form.Name) != "" {
		in.Name = &form.Name
	}
	if _, err := s.App.Network.Create(r.Context(), uid, in); err != nil {
		if e := ops.AsError(err); e.Code == ops.CodeInvalid || e.Code == ops.CodeConflict {
			s.renderSites(w, r, uid, form, e.Code.Status(), siteFieldMessage(e))
			return
		}
		s.areaError(w, r, uid, err)
		return
	}
	done(w, r, "/admin/sites/"+in.Key, "site_created", nil)
}

func (s *Site) adminSite(w http.ResponseWriter, r *http.Request, ps httprouter.Params, uid int64) {
	site, err := s.App.Network.Get(r.Context(), uid, ps.ByName("key"))
	if err != nil {
		s.areaError(w, r, uid, err)
		return
	}
	form, err := s.siteFormOf(r, site)
	if err != nil {
		s.areaError(w, r, uid, err)
		return
	}
	s.renderArea(w, r, "admin_site", site.Name, http.StatusOK, uid, form, "")
}

// siteFormOf fills the edit form from a stored site, with every category
// and product to choose from.
func (s *Site) siteFormOf(r *http.Request, site *sites.Site) (siteForm, error) {
	f := siteForm{Key: site.Key, Origin: site.Origin, Hosts: strings.Join(site.Hosts, "\n"), Name: site.Name, Tagline: site.Tagline,
		AccentColor: site.AccentColor, EmailFromName: site.EmailFromName, Capacity: strconv.Itoa(site.FreeWeeklyCapacity),
		QueueWeeks: strconv.Itoa(site.FreeQueueWeeks), Main: site.Main, Listings: site.Listings}
	if ks, ok := s.App.SiteByKey(r.Context(), site.Key); ok {
		f.LogoPath = s.App.Media.SiteLogoPath(kernel.WithSite(r.Context(), ks))
	}
	prices := map[string]string{}
	for code, c := range site.Prices {
		prices[code] = fmt.Sprintf("%d.%02d", c/100, c%100) // as parseMoney reads it
	}
	return f, s.fillChoices(r, &f, site.Categories, prices)
}

// fillChoices lists every category (checked: chosen) and product (value:
// the site's own price) on the form.
func (s *Site) fillChoices(r *http.Request, f *siteForm, chosen []string, prices map[string]string) error {
	ctx := kernel.WholeNetwork(r.Context()) // every category, whichever host the page is on
	tree, err := s.App.DB.Categories(ctx)
	if err != nil {
		return err
	}
	has := map[string]bool{}
	for _, c := range chosen {
		has[c] = true
	}
	f.Categories = nil
	for _, c := range tree {
		f.Categories = append(f.Categories, categoryChoice{Slug: c.Slug, Name: c.Name, Checked: has[c.Slug]})
		for _, sub := range c.Subcategories {
			f.Categories = append(f.Categories, categoryChoice{Slug: sub.Slug, Name: sub.Name, Sub: true, Checked: has[sub.Slug]})
		}
	}
	if main, ok := s.App.SiteByKey(ctx, kernel.MainSite); ok {
		ctx = kernel.WithSite(ctx, main) // the products' own prices
	}
	products, err := s.App.Commerce.AdminProducts(ctx)
	if err != nil {
		return err
	}
	f.Prices = nil
	for _, p := range products {
		f.Prices = append(f.Prices, priceChoice{Code: p.Code, Name: p.Name, Own: money(p.PriceCents), Value: prices[p.Code]})
	}
	return nil
}

func (s *Site) adminSaveSite(w http.ResponseWriter, r *http.Request, ps httprouter.Params, uid int64) {
	key := ps.ByName("key")
	f := siteForm{Key: key, Origin: r.PostFormValue("origin"), Hosts: r.PostFormValue("hosts"), Name: r.PostFormValue("name"),
		Tagline: r.PostFormValue("tagline"), AccentColor: r.PostFormValue("accent_color"), EmailFromName: r.PostFormValue("email_from_name"),
		Capacity: r.PostFormValue("free_weekly_capacity"), QueueWeeks: r.PostFormValue("free_queue_weeks"), Main: key == kernel.MainSite}
	chosen := r.PostForm["categories"]
	typed := map[string]string{}
	in := sites.Input{Key: key, Name: &f.Name, Tagline: &f.Tagline, AccentColor: &f.AccentColor, EmailFromName: &f.EmailFromName}
	cats := append([]string{}, chosen...)
	in.Categories = &cats
	var bad []ops.FieldError
	if !f.Main {
		in.Origin = &f.Origin
		hosts := strings.Fields(f.Hosts)
		if hosts == nil {
			hosts = []string{}
		}
		in.Hosts = &hosts
		prices := map[string]int64{}
		for k, v := range r.PostForm {
			code, ok := strings.CutPrefix(k, "price_")
			if !ok || strings.TrimSpace(v[0]) == "" {
				continue
			}
			typed[code] = v[0]
			cents, err := parseMoney(v[0])
			if err != nil {
				bad = append(bad, ops.FieldError{Field: "prices." + code, Message: "must be an amount like 19 or 19.50"})
			}
			prices[code] = cents
		}
		in.Prices = &prices
	}
	for name, dst := range map[string]**int{"free_weekly_capacity": &in.FreeWeeklyCapacity, "free_queue_weeks": &in.FreeQueueWeeks} {
		n, err := strconv.Atoi(strings.TrimSpace(r.PostFormValue(name)))
		if err != nil {
			bad = append(bad, ops.FieldError{Field: name, Message: "must be a whole number"})
		}
		*dst = &n
	}
	err := error(nil)
	if len(bad) > 0 {
		err = ops.InvalidFields(bad)
	} else {
		_, err = s.App.Network.Update(r.Context(), uid, in)
	}
	if err != nil {
		e := ops.AsError(err)
		if e.Code != ops.CodeInvalid && e.Code != ops.CodeConflict {
			s.areaError(w, r, uid, err)
			return
		}
		if ferr := s.fillChoices(r, &f, chosen, typed); ferr != nil {
			s.areaError(w, r, uid, ferr)
			return
		}
		s.renderArea(w, r, "admin_site", f.Key, e.Code.Status(), uid, f, siteFieldMessage(e))
		return
	}
	done(w, r, "/admin/sites/"+key, "site_saved", nil)
}

func (s *Site) adminDeleteSite(w http.ResponseWriter, r *http.Request, ps httprouter.Params, uid int64) {
	if err := s.App.Network.Delete(r.Context(), uid, ps.ByName("key"), r.PostFormValue("force") == "1"); err != nil {
		s.areaError(w, r, uid, err)
		return
	}
	done(w, r, "/admin/sites", "site_deleted", nil)
}

// fieldLabels are the human names of a site's fields, for refusals.
var fieldLabels = map[string]string{"key": "Key", "origin": "Address", "hosts": "Other host names", "name": "Name",
	"tagline": "Tagline", "accent_color": "Accent colour", "email_from_name": "Email sender name", "categories": "Categories",
	"free_weekly_capacity": "Free launches per week", "free_queue_weeks": "Free queue: weeks ahead", "force": "Delete anyway"}

// siteFieldMessage says what was refused in people's words, naming the field.
func siteFieldMessage(e *ops.Error) string {
	if len(e.Fields) == 0 {
		return e.Detail
	}
	var parts []string
	for _, f := range e.Fields {
		name := f.Field
		base, _, _ := strings.Cut(name, "[")
		base, code, _ := strings.Cut(base, ".")
		if l, ok := fieldLabels[base]; ok {
			name = l
		}
		if base == "prices" {
			name = "Price of " + code
		}
		if strings.HasPrefix(f.Field, "hosts[") {
			name = "Other host names (" + f.Field[len("hosts"):] + ")"
		}
		parts = append(parts, name+": "+f.Message)
	}
	return strings.Join(parts, "; ")
}
