package site

import (
	"context"
	"encoding/json"
	"net/http"
	"net/url"
	"strings"

	"launchdir/app/catalog"
	"launchdir/app/commerce"
	"launchdir/app/kernel"
	"launchdir/app/media"
	"launchdir/app/owning"
	"launchdir/ops"
	"launchdir/routes"

	"github.com/julienschmidt/httprouter"
)

// The founder's listings, orders and claims. Each page runs the API's own
// operations (through the operations table, with the signed-in person as
// principal), so the validation, bounds and ownership rules are the API's:
// another founder's listing, order or claim is the same 404 page as a
// missing one.

// op runs one operation as the signed-in person and decodes its body.
func (s *Site) op(ctx context.Context, uid int64, opID string, args map[string]any, out any) error {
	p, err := s.App.People.SessionPrincipal(ctx, uid)
	if err != nil {
		return err
	}
	op := s.App.Table.Get(opID)
	res, err := s.App.Exec.Call(ctx, op, p, args, "", nil)
	if err != nil {
		return pathNotFound(op, args, err)
	}
	if out == nil {
		return nil
	}
	return json.Unmarshal(res.Body, out)
}

func (s *Site) mountFounderWork(srv *routes.Server) {
	get, post := s.areaRoutes(srv, false)
	get("/me/listings", s.myListings)
	get("/me/listings/:id", s.myListing)
	post("/me/listings/:id/facts", s.myListingFacts)
	post("/me/listings/:id/updates", s.myListingUpdate)
	post("/me/listings/:id/free", s.myListingFree)
	post("/me/listings/:id/buy", s.myListingBuy)
	post("/me/listings/:id/story", s.myListingStory)
	post("/me/listings/:id/milestones", s.myListingMilestone)
	post("/me/listings/:id/interview", s.myListingInterview)
	post("/me/listings/:id/socials", s.myListingSocials)
	post("/me/listings/:id/milestones/:mid/delete", s.myListingMilestoneDelete)
	get("/me/orders", s.myOrders)
	get("/me/orders/:number", s.myOrder)
	s.mountInvoice(srv)
	get("/me/claims", s.myClaims)
	post("/me/claims", s.myClaimNew)
	post("/me/claims/:id/verify", s.myClaimVerify)
}

type myListingsData struct {
	kernel.Page[owning.MyListing]
	Pager *Pager
}

func (s *Site) myListings(w http.ResponseWriter, r *http.Request, _ httprouter.Params, uid int64) {
	var d myListingsData
	if err := s.op(r.Context(), uid, "list_my_listings", pageArgsAny(r), &d.Page); err != nil {
		s.areaError(w, r, uid, err)
		return
	}
	d.Pager = newPager(r, d.Page.Page, d.PerPage, d.Total)
	s.renderArea(w, r, "founder_listings", "Your listings", http.StatusOK, uid, d, "")
}

// idArg turns a path id into the integer operations take; anything else
// stays a string and fails their validation as a 404.
func idArg(v string) any {
	if n, ok := ops.Coerce(ops.IntMin(1), v); ok {
		return n
	}
	return v
}

// pageArgsAny passes the page query through to an operation.
func pageArgsAny(r *http.Request) map[string]any {
	args := map[string]any{}
	for _, k := range []string{"page", "per_page"} {
		if v := r.URL.Query().Get(k); v != "" {
			if n, ok := ops.Coerce(ops.IntMin(1), v); ok {
				args[k] = n
			} else {
				args[k] = v
			}
		}
	}
	return args
}

// ownerFactFields are the facts the listing page edits (the owner listing
// fields of PATCH /me/listings, text ones).
var ownerFactFields = []struct{ Name, Label string }{
	{"tagline", "Tagline (max 200)"}, {"short_description", "Short description (max 300)"}, {"description", "Description (max 20,000)"},
	{"pricing_model", "Pricing model"}, {"pricing_summary", "Pricing summary"}, {"country", "Country (ISO code)"}, {"city", "City"},
	{"contact_email", "Contact email"}, {"demo_video_url", "Demo video URL"},
}

type myListingData struct {
	L        *owning.OwnerListing
	Facts    []factField
	Products []commerce.ProductView
	Weeks    []string
	Quote    *commerce.Quote
	Buy      url.Values
	Free     *owning.FreeLaunch
	Missing  []ops.FieldError
	Story    []storyPart
	Badge    *catalog.Badges // embed code for the free launch's badge rule
	// Interview is every question with the person's answer (answers
	// belong to the person, not the listing).
	Interview []interviewQ
	Socials   []socialLink // the company's links
	// Categories are offered for extra_categories.
	Categories []buyCategory
	// Gallery is the listing's screenshots with their ids (issue 21).
	Gallery media.Gallery
	// Approved are the approved alternatives' slugs, one per line.
	Approved string
	// Attributes are the primary category's compare attributes with the
	// listing's values.
	Attributes []factField
}

type factField struct {
	Name, Label, Value string
	Long               bool
}

func (s *Site) loadMyListing(ctx context.Context, uid int64, id string) (*myListingData, error) {
	var l owning.OwnerListing
	if err := s.op(ctx, uid, "get_my_listing", map[string]any{"listing_id": idArg(id)}, &l); err != nil {
		return nil, err
	}
	d := &myListingData{L: &l}
	raw, _ := json.Marshal(l)
	var m map[string]any
	json.Unmarshal(raw, &m)
	// The profile nests pricing ({"pricing": {"model", "summary"}}) while
	// the PATCH fields are flat: read both forms.
	if pr, ok := m["pricing"].(map[string]any); ok {
		for _, k := range []string{"model", "summary"} {
			if _, flat := m["pricing_"+k]; !flat {
				m["pricing_"+k] = pr[k]
			}
		}
	}
	for _, f := range ownerFactFields {
		v, _ := m[f.Name].(string)
		d.Facts = append(d.Facts, factField{Name: f.Name, Label: f.Label, Value: v, Long: f.Name == "description"})
	}
	d.Story = append(d.Story, storyPart{Name: "title", Value: storyValue(l.Story, "title")})
	for _, sec := range kernel.StorySections() {
		d.Story = append(d.Story, storyPart{Name: sec, Value: storyValue(l.Story, sec), Long: true})
	}
	d.Socials = socialRows("s-", l.Socials)
	iv, err := s.loadInterview(ctx, uid)
	if err != nil {
		return nil, err
	}
	d.Interview = iv
	d.Categories = s.loadBuyCategories(ctx, uid)
	if lid, ok := idArg(id).(int64); ok {
		d.Gallery, _ = s.App.Media.MyGallery(ctx, uid, lid)
	}
	s.loadManage(ctx, uid, d)
	if l.Listing != nil && (l.Status == "draft" || l.Status == "awaiting_badge") {
		var b catalog.Badges
		if err := s.op(ctx, uid, "get_badges", map[string]any{"slug": l.Slug}, &b); err == nil {
			d.Badge = &b
		}
	}
	var prods commerce.Products
	if err := s.op(ctx, uid, "list_products", nil, &prods); err == nil {
		d.Products = prods.Products
		d.Weeks = prods.BookableWeeks
	}
	return d, nil
}

func (s *Site) myListing(w http.ResponseWriter, r *http.Request, ps httprouter.Params, uid int64) {
	d, err := s.loadMyListing(r.Context(), uid, ps.ByName("id"))
	if err != nil {
		s.areaError(w, r, uid, err)
		return
	}
	s.renderArea(w, r, "founder_listing", d.L.Name, http.StatusOK, uid, d, "")
}

// listingRefusal shows the listing page again with why a change was refused.
func (s *Site) listingRefusal(w http.ResponseWriter, r *http.Request, uid int64, err error, edit func(*myListingData)) {
	e := ops.AsError(err)
	if e.Code == ops.CodeNotFound || e.Code == ops.CodeInternal {
		s.areaError(w, r, uid, err)
		return
	}
	d, lerr := s.loadMyListing(r.Context(), uid, httprouter.ParamsFromContext(r.Context()).ByName("id"))
	if lerr != nil {
		s.areaError(w, r, uid, lerr)
		return
	}
	if edit != nil {
		edit(d)
	}
	msg := e.Detail
	for _, f := range e.Fields {
		if !strings.Contains(msg, f.Message) {
			msg += "; " + f.Field + ": " + f.Message
		}
	}
	s.renderArea(w, r, "founder_listing", d.L.Name, e.Code.Status(), uid, d, msg)
}

func (s *Site) myListingFacts(w http.ResponseWriter, r *http.Request, ps httprouter.Params, uid int64) {
	d, err := s.loadMyListing(r.Context(), uid, ps.ByName("id"))
	if err != nil {
		s.areaError(w, r, uid, err)
		return
	}
	fields := map[string]any{}
	for _, f := range d.Facts {
		if v, ok := r.PostForm[f.Name]; ok && v[0] != f.Value {
			fields[f.Name] = v[0]
		}
	}
	if len(fields) > 0 {
		err = s.op(r.Context(), uid, "update_my_listing", map[string]any{"listing_id": idArg(ps.ByName("id")), "fields": fields}, nil)
	}
	if err != nil {
		s.listingRefusal(w, r, uid, err, func(d *myListingData) {
			for i := range d.Facts {
				if v, ok := fields[d.Facts[i].Name]; ok {
					d.Facts[i].Value = v.(string)
				}
			}
		})
		return
	}
	done(w, r, "/me/listings/"+ps.ByName("id"), "facts", nil)
}

func (s *Site) myListingUpdate(w http.ResponseWriter, r *http.Request, ps httprouter.Params, uid int64) {
	err := s.op(r.Context(), uid, "post_listing_update", map[string]any{"listing_id": idArg(ps.ByName("id")),
		"title": r.PostFormValue("title"), "body": r.PostFormValue("body")}, nil)
	if err != nil {
		s.listingRefusal(w, r, uid, err, nil)
		return
	}
	done(w, r, "/me/listings/"+ps.ByName("id"), "posted", nil)
}

func (s *Site) myListingFree(w http.ResponseWriter, r *http.Request, ps httprouter.Params, uid int64) {
	var f owning.FreeLaunch
	err := s.op(r.Context(), uid, "choose_free_listing", map[string]any{"listing_id": idArg(ps.ByName("id"))}, &f)
	if err != nil {
		s.listingRefusal(w, r, uid, err, func(d *myListingData) { d.Missing = ops.AsError(err).Fields })
		return
	}
	done(w, r, "/me/listings/"+ps.ByName("id"), "free", nil)
}

// myListingBuy quotes one product for the listing (action quote) or
// builds the order and sends the person to the hosted checkout page.
func (s *Site) myListingBuy(w http.ResponseWriter, r *http.Request, ps httprouter.Params, uid int64) {
	item := map[string]any{"product": r.PostFormValue("product"), "listing_id": idArg(ps.ByName("id"))}
	if wk := r.PostFormValue("week"); wk != "" {
		item["week"] = wk
	}
	keep := func(d *myListingData) { d.Buy = r.PostForm }
	if err := buyItemExtras(r, item); err != nil {
		s.listingRefusal(w, r, uid, err, keep)
		return
	}
	args := map[string]any{"items": []any{item}, "billing_country": strings.ToUpper(strings.TrimSpace(r.PostFormValue("billing_country")))}
	if v := strings.TrimSpace(r.PostFormValue("vat_number")); v != "" {
		args["vat_number"] = v
	}
	if v := strings.TrimSpace(r.PostFormValue("promo_code")); v != "" {
		args["promo_code"] = v
	}
	if r.PostFormValue("action") == "checkout" {
		var o commerce.Order
		if err := s.op(r.Context(), uid, "create_checkout", args, &o); err != nil {
			s.listingRefusal(w, r, uid, err, keep)
			return
		}
		http.Redirect(w, r, o.CheckoutURL, http.StatusSeeOther)
		return
	}
	var q commerce.QuoteResult
	if err := s.op(r.Context(), uid, "quote_order", args, &q); err != nil {
		s.listingRefusal(w, r, uid, err, keep)
		return
	}
	d, err := s.loadMyListing(r.Context(), uid, ps.ByName("id"))
	if err != nil {
		s.areaError(w, r, uid, err)
		return
	}
	d.Quote, d.Buy = &q.Quote, r.PostForm
	s.renderArea(w, r, "founder_listing", d.L.Name, http.StatusOK, uid, d, "")
}

type myOrdersData struct {
	kernel.Page[commerce.Order]
	Pager *Pager
}

func (s *Site) myOrders(w http.ResponseWriter, r *http.Request, _ httprouter.Params, uid int64) {
	var d myOrdersData
	if err := s.op(r.Context(), uid, "list_my_orders", pageArgsAny(r), &d.Page); err != nil {
		s.areaError(w, r, uid, err)
		return
	}
	d.Pager = newPager(r, d.Page.Page, d.PerPage, d.Total)
	s.renderArea(w, r, "founder_orders", "Your orders", http.StatusOK, uid, d, "")
}

func (s *Site) myOrder(w http.ResponseWriter, r *http.Request, ps httprouter.Params, uid int64) {
	var o commerce.Order
	if err := s.op(r.Context(), uid, "get_order", map[string]any{"number": ps.ByName("number")}, &o); err != nil {
		s.areaError(w, r, uid, err)
		return
	}
	s.renderArea(w, r, "founder_order", "Order "+o.Number, http.StatusOK, uid, &o, "")
}

type myClaimsData struct {
	kernel.Page[owning.Claim]
	Pager *Pager
	Form  url.Values
}

func (s *Site) claimsPage(w http.ResponseWriter, r *http.Request, uid int64, status int, form url.Values, errMsg string) {
	var d myClaimsData
	if err := s.op(r.Context(), uid, "list_my_claims", pageArgsAny(r), &d.Page); err != nil {
		s.areaError(w, r, uid, err)
		return
	}
	d.Pager, d.Form = newPager(r, d.Page.Page, d.PerPage, d.Total), form
	s.renderArea(w, r, "founder_claims", "Your claims", status, uid, d, errMsg)
}

func (s *Site) myClaims(w http.ResponseWriter, r *http.Request, _ httprouter.Params, uid int64) {
	var form url.Values // "Claim this listing" on a listing page names it
	if slug := r.URL.Query().Get("slug"); slug != "" {
		form = url.Values{"slug": {slug}}
	}
	s.claimsPage(w, r, uid, http.StatusOK, form, "")
}

func (s *Site) claimRefusal(w http.ResponseWriter, r *http.Request, uid int64, err error) {
	e := ops.AsError(err)
	if e.Code == ops.CodeNotFound || e.Code == ops.CodeInternal {
		s.areaError(w, r, uid, err)
		return
	}
	s.claimsPage(w, r, uid, e.Code.Status(), r.PostForm, e.Detail)
}

func (s *Site) myClaimNew(w http.ResponseWriter, r *http.Request, _ httprouter.Params, uid int64) {
	args := map[string]any{"slug": strings.TrimSpace(r.PostFormValue("slug")), "method": r.PostFormValue("method")}
	if v := strings.TrimSpace(r.PostFormValue("email")); v != "" {
		args["email"] = v
	}
	if err := s.op(r.Context(), uid, "claim_listing", args, nil); err != nil {
		s.claimRefusal(w, r, uid, err)
		return
	}
	done(w, r, "/me/claims", "claimed", nil)
}

func (s *Site) myClaimVerify(w http.ResponseWriter, r *http.Request, ps httprouter.Params, uid int64) {
	var c owning.Claim
	if err := s.op(r.Context(), uid, "verify_claim", map[string]any{"claim_id": idArg(ps.ByName("id"))}, &c); err != nil {
		s.claimRefusal(w, r, uid, err)
		return
	}
	if c.Status != "verified" {
		s.claimsPage(w, r, uid, http.StatusOK, nil, "Not verified yet: "+c.LastError)
		return
	}
	done(w, r, "/me/claims", "verified", nil)
}

// storyValue reads one part of a listing's story (nil: none yet).
func storyValue(st any, name string) string {
	raw, _ := json.Marshal(st)
	var m map[string]any
	json.Unmarshal(raw, &m)
	v, _ := m[name].(string)
	return v
}

// myListingStory replaces the founder story (set_founder_story; shown
// publicly once the story is unlocked).
func (s *Site) myListingStory(w http.ResponseWriter, r *http.Request, ps httprouter.Params, uid int64) {
	args := map[string]any{"listing_id": idArg(ps.ByName("id")), "title": r.PostFormValue("title")}
	for _, sec := range kernel.StorySections() {
		args[sec] = r.PostFormValue(sec)
	}
	if err := s.op(r.Context(), uid, "set_founder_story", args, nil); err != nil {
		s.listingRefusal(w, r, uid, err, nil)
		return
	}
	done(w, r, "/me/listings/"+ps.ByName("id"), "facts", nil)
}

func (s *Site) myListingMilestone(w http.ResponseWriter, r *http.Request, ps httprouter.Params, uid int64) {
	args := map[string]any{"listing_id": idArg(ps.ByName("id")), "date": r.PostFormValue("date"), "title": r.PostFormValue("title")}
	for _, k := range []string{"description", "url"} {
		if v := strings.TrimSpace(r.PostFormValue(k)); v != "" {
			args[k] = v
		}
	}
	if err := s.op(r.Context(), uid, "add_milestone", args, nil); err != nil {
		s.listingRefusal(w, r, uid, err, nil)
		return
	}
	done(w, r, "/me/listings/"+ps.ByName("id"), "facts", nil)
}

func (s *Site) myListingMilestoneDelete(w http.ResponseWriter, r *http.Request, ps httprouter.Params, uid int64) {
	args := map[string]any{"listing_id": idArg(ps.ByName("id")), "milestone_id": idArg(ps.ByName("mid"))}
	if err := s.op(r.Context(), uid, "delete_milestone", args, nil); err != nil {
		s.listingRefusal(w, r, uid, err, nil)
		return
	}
	done(w, r, "/me/listings/"+ps.ByName("id"), "facts", nil)
}

// Chosen says whether the buy form had this category selected.
func (d *myListingData) Chosen(slug string) bool {
	for _, c := range d.Buy["categories"] {
		if c == slug {
			return true
		}
	}
	return false
}
