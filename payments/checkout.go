package payments

import (
	"bytes"
	"context"
	"crypto/hmac"
	"crypto/rand"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"html/template"
	"net/http"
	"net/url"
	"strings"

	"launchdir/app"
	"launchdir/app/commerce"
	"launchdir/app/kernel"
	"launchdir/ops"
	"launchdir/site/layout"

	"github.com/julienschmidt/httprouter"
)

// TestProvider is the zero-dependency provider: the checkout page served by
// this binary, clearly marked TEST MODE, where payment is simulated.
type TestProvider struct{ App *app.App }

// Name is stored on orders.
func (*TestProvider) Name() string { return "test" }

// CreateSession points at the built-in page; nothing external is called.
func (t *TestProvider) CreateSession(ctx context.Context, o *commerce.Order) (string, string, error) {
	return t.App.Commerce.TestCheckoutURL(ctx, o.CheckoutToken), "test_" + o.Number, nil
}

// PaymentMethods are the simulated choices on the test page.
var PaymentMethods = []string{"card", "wallet", "paypal", "crypto"}

const csrfCookie = "ld_checkout_csrf"

// CheckoutPage serves /checkout/{token}: GET shows the order, POST (test
// provider only) simulates succeed, fail or abandon. POSTs are protected by
// a double-submit token: a random SameSite=Strict cookie plus a hidden field
// holding HMAC(secret, order token | cookie), so another site cannot forge
// the form even if it knows the link.
type CheckoutPage struct {
	App    *app.App
	secret []byte
}

// NewCheckoutPage makes the page handler with a fresh HMAC secret (pages
// rendered before a restart need a reload).
func NewCheckoutPage(a *app.App) *CheckoutPage {
	s := make([]byte, 32)
	if _, err := rand.Read(s); err != nil {
		panic(err)
	}
	return &CheckoutPage{App: a, secret: s}
}

func (c *CheckoutPage) csrfFor(token, cookie string) string {
	m := hmac.New(sha256.New, c.secret)
	m.Write([]byte(token + "|" + cookie))
	return hex.EncodeToString(m.Sum(nil))
}

func (c *CheckoutPage) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	token := httprouter.ParamsFromContext(r.Context()).ByName("token")
	o, err := c.App.Commerce.OrderByToken(r.Context(), token)
	if err != nil {
		status := http.StatusNotFound
		if e := ops.AsError(err); e.Code != ops.CodeNotFound {
			status = http.StatusInternalServerError
		}
		c.render(w, r, status, pageData{Title: "Checkout not found", Error: "This checkout link is unknown."})
		return
	}
	w.Header().Set("Cache-Control", "no-store")
	w.Header().Set("X-Frame-Options", "DENY")
	w.Header().Set("Referrer-Policy", "no-referrer")
	if r.Method == http.MethodPost {
		c.post(w, r, o)
		return
	}
	cookie := ""
	if ck, err := r.Cookie(csrfCookie); err == nil && len(ck.Value) >= 32 && len(ck.Value) <= 128 {
		cookie = ck.Value
	} else {
		b := make([]byte, 24)
		rand.Read(b)
		cookie = hex.EncodeToString(b)
		http.SetCookie(w, &http.Cookie{Name: csrfCookie, Value: cookie, Path: "/checkout/", HttpOnly: true,
			SameSite: http.SameSiteStrictMode, Secure: strings.HasPrefix(c.App.Origin(r.Context()), "https://")})
	}
	d := c.data(r.Context(), o)
	d.CSRF = c.csrfFor(token, cookie)
	// The message follows the order's real status, never the query
	// string alone: ?result=paid on an unpaid order says nothing.
	switch result := r.URL.Query().Get("result"); {
	case o.Status == "paid" && result == "paid":
		d.Message = "Payment received. Thank you!"
	case o.Status == "failed" && result == "failed":
		d.Message = "The payment failed. Nothing was charged."
	case o.Status == "canceled" && result == "canceled":
		d.Message = "You left the checkout. Nothing was charged."
	case o.Status == "pending" && result == "repriced":
		d.Message = "Billing country updated: VAT " + o.VAT.Rate + "% (" + o.VAT.Note + "). The new total is " + d.Total + "."
	}
	switch {
	case r.URL.Query().Get("stripe") == "canceled" && o.Status == "pending":
		d.Message = "You left Stripe's page. Nothing was charged; you can continue below."
	case r.URL.Query().Get("stripe") == "success" && o.Status == "pending":
		d.Message = "Thank you! Stripe is confirming your payment; this page shows paid once it arrives (reload in a few seconds)."
		d.Payable = false
	}
	c.render(w, r, http.StatusOK, d)
}

func (c *CheckoutPage) post(w http.ResponseWriter, r *http.Request, o *commerce.Order) {
	r.Body = http.MaxBytesReader(w, r.Body, 64<<10)
	if err := r.ParseForm(); err != nil {
		c.render(w, r, http.StatusBadRequest, pageData{Title: "Bad request", Error: "The form could not be read."})
		return
	}
	ck, err := r.Cookie(csrfCookie)
	if err != nil || !hmac.Equal([]byte(r.PostForm.Get("csrf")), []byte(c.csrfFor(o.CheckoutToken, ck.Value))) {
		c.render(w, r, http.StatusForbidden, pageData{Title: "Form expired", Error: "This form is not valid any more (security check failed). Reload the page and try again."})
		return
	}
	if o.Provider != "test" {
		c.render(w, r, http.StatusConflict, c.withError(r.Context(), o, "This order is paid on the provider's page, not here."))
		return
	}
	method := r.PostForm.Get("method")
	action := r.PostForm.Get("action")
	ctx := r.Context()
	if action == "billing" {
		c.reprice(w, r, o)
		return
	}
	if action == "succeed" && o.Status == "pending" {
		// The VAT country is changed with its own button (it re-prices);
		// a different country sent with the payment is refused, never ignored.
		if cc := strings.ToUpper(strings.TrimSpace(r.PostForm.Get("billing_country"))); cc != "" && cc != o.VAT.Country {
			c.render(w, r, http.StatusBadRequest, c.withError(r.Context(), o, "The billing country changed: use “Update billing country” first, the VAT and total depend on it."))
			return
		}
		err := c.App.Commerce.SetOrderBilling(ctx, o.CheckoutToken, commerce.OrderBilling{Name: r.PostForm.Get("billing_name"),
			Email: r.PostForm.Get("billing_email"), Address: r.PostForm.Get("billing_address")})
		if e := ops.AsError(err); err != nil && e.Code == ops.CodeInvalid {
			c.render(w, r, http.StatusBadRequest, c.withError(r.Context(), o, fieldMessage(e)))
			return
		}
	}
	var result string
	switch action {
	case "succeed":
		if !inList(PaymentMethods, method) {
			c.render(w, r, http.StatusBadRequest, c.withError(r.Context(), o, "Choose a payment method."))
			return
		}
		if _, err := c.App.Commerce.ConfirmPayment(ctx, o.Number, "test", "test_"+method+"_"+o.Number); err != nil {
			e := ops.AsError(err)
			status := e.Code.Status()
			if o2, err2 := c.App.Commerce.OrderByToken(ctx, o.CheckoutToken); err2 == nil {
				o = o2
			}
			c.render(w, r, status, c.withError(r.Context(), o, e.Detail))
			return
		}
		result = "paid"
	case "fail", "abandon":
		change, note := c.App.Commerce.FailPayment, "payment declined (test mode, "+method+")"
		result = "failed"
		if action == "abandon" {
			change, note, result = c.App.Commerce.CancelOrder, "abandoned at checkout", "canceled"
		}
		changed, err := change(ctx, o.Number, note)
		if err != nil {
			c.render(w, r, http.StatusInternalServerError, c.withError(r.Context(), o, "Something went wrong."))
			return
		}
		if !changed { // paid or closed by a parallel request meanwhile
			if o2, err := c.App.Commerce.OrderByToken(ctx, o.CheckoutToken); err == nil {
				o = o2
			}
			c.render(w, r, http.StatusConflict, c.withError(r.Context(), o, "This order is already "+o.Status+"; nothing was changed."))
			return
		}
	default:
		c.render(w, r, http.StatusBadRequest, c.withError(r.Context(), o, "Unknown action."))
		return
	}
	http.Redirect(w, r, "/checkout/"+url.PathEscape(o.CheckoutToken)+"?result="+result, http.StatusSeeOther)
}

// fieldMessage turns a validation problem into one sentence for the page.
func fieldMessage(e *ops.Error) string {
	if len(e.Fields) == 0 {
		return e.Detail
	}
	names := map[string]string{"billing_country": "Billing country", "vat_number": "VAT number", "billing_name": "Name",
		"billing_email": "Email", "billing_address": "Address"}
	var parts []string
	for _, f := range e.Fields {
		n := names[f.Field]
		if n == "" {
			n = f.Field
		}
		parts = append(parts, n+": "+f.Message+".")
	}
	return strings.Join(parts, " ")
}

// reprice changes the billing country and VAT number of a pending order:
// the VAT is worked out again and the page shows the new total before any
// payment.
func (c *CheckoutPage) reprice(w http.ResponseWriter, r *http.Request, o *commerce.Order) {
	o2, err := c.App.Commerce.RepriceOrderVAT(r.Context(), o.CheckoutToken, r.PostForm.Get("billing_country"), r.PostForm.Get("vat_number"))
	if err != nil {
		e := ops.AsError(err)
		status := e.Code.Status()
		if status >= 500 {
			c.App.Log.Error("checkout reprice", "order", o.Number, "err", err)
			c.render(w, r, status, c.withError(r.Context(), o, "Something went wrong."))
			return
		}
		d := c.withError(r.Context(), o, fieldMessage(e))
		d.CSRF = r.PostForm.Get("csrf")
		d.FormCountry, d.FormVATNumber = r.PostForm.Get("billing_country"), r.PostForm.Get("vat_number")
		c.render(w, r, status, d)
		return
	}
	http.Redirect(w, r, "/checkout/"+url.PathEscape(o2.CheckoutToken)+"?result=repriced", http.StatusSeeOther)
}

func inList(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}

type pageLine struct {
	Name, Listing, Week, Detail string
	Net, Discount, VATRate, VAT string
	Total                       string
	HasDiscount                 bool
}

type pageData struct {
	Title                                   string
	Site                                    string
	Error                                   string
	Message                                 string
	TestMode                                bool
	Order                                   *commerce.Order
	Lines                                   []pageLine
	Subtotal, Discount, Taxable, VAT, Total string
	CSRF                                    string
	Methods                                 []string
	Payable                                 bool
	Stripe                                  bool
	Email                                   string
	Countries                               []string
	PaidOn                                  string // human date, e.g. 18 November 2026, 12:00 UTC
	Listings                                []commerce.OrderListingLink
	Home                                    string
	FormCountry, FormVATNumber              string // what was typed into the billing country form
}

func money(cents int64, cur string) string {
	sign := ""
	if cents < 0 {
		sign, cents = "-", -cents
	}
	return fmt.Sprintf("%s%d.%02d %s", sign, cents/100, cents%100, cur)
}

func (c *CheckoutPage) data(ctx context.Context, o *commerce.Order) pageData {
	d := pageData{Title: "Checkout " + o.Number, Order: o, TestMode: o.Provider == "test",
		Methods: PaymentMethods, Email: o.UserEmail,
		Subtotal: money(o.SubtotalCents, o.Currency), Discount: money(o.DiscountCents, o.Currency),
		Taxable: money(o.TaxableCents, o.Currency), VAT: money(o.VATCents, o.Currency), Total: money(o.TotalCents, o.Currency),
		Payable: o.Status == "pending", Stripe: o.Provider == "stripe",
		FormCountry: o.VAT.Country, FormVATNumber: o.VAT.VATNumber}
	if o.PaidAt != nil {
		d.PaidOn = kernel.HumanTime(*o.PaidAt)
	}
	if links, err := c.App.Commerce.OrderListings(ctx, o); err == nil {
		d.Listings = links
	}
	for _, l := range o.Lines {
		pl := pageLine{Name: l.Name, Listing: l.ListingName, Net: money(l.NetCents, o.Currency), Discount: money(l.DiscountCents, o.Currency),
			VATRate: l.VATRate + "%", VAT: money(l.VATCents, o.Currency), Total: money(l.TotalCents, o.Currency), HasDiscount: l.DiscountCents > 0}
		if l.Week != nil {
			pl.Week = "week of " + *l.Week
		} else if l.Details.LiveNow {
			pl.Week = "live now"
		}
		var det []string
		if l.Quantity > 1 {
			det = append(det, fmt.Sprintf("%d × %s", l.Quantity, money(l.UnitPriceCents, o.Currency)))
		}
		if len(l.Details.Categories) > 0 {
			det = append(det, "categories: "+strings.Join(l.Details.Categories, ", "))
		}
		for k, v := range l.Details.Options {
			det = append(det, k+": "+v)
		}
		if len(l.Details.Includes) > 0 {
			det = append(det, "includes: "+strings.Join(l.Details.Includes, ", "))
		}
		pl.Detail = strings.Join(det, "; ")
		d.Lines = append(d.Lines, pl)
	}
	return d
}

func (c *CheckoutPage) withError(ctx context.Context, o *commerce.Order, msg string) pageData {
	d := c.data(ctx, o)
	d.Error = msg
	return d
}

// render shows the page in the frame of the request's site: its name,
// colour and home.
func (c *CheckoutPage) render(w http.ResponseWriter, r *http.Request, status int, d pageData) {
	ctx := r.Context()
	d.Site, d.Home = c.App.SiteName(ctx), c.App.Origin(ctx)+"/"
	w.Header().Set("Content-Type", "text/html; charset=utf-8")
	w.Header().Set("Content-Security-Policy", "default-src 'none'; "+layout.StyleSrc+"; form-action 'self'; frame-ancestors 'none'")
	var content, page bytes.Buffer
	err := pageTmpl.Execute(&content, d)
	if err == nil {
		err = layout.Render(&page, &layout.Head{Title: d.Title, Site: d.Site, NoIndex: true,
			Theme: layout.ThemePath(c.App.Setting(ctx, "accent_color", "")), Body: template.HTML(content.String())})
	}
	if err != nil {
		c.App.Log.Error("checkout page", "err", err)
		http.Error(w, "internal error", http.StatusInternalServerError)
		return
	}
	w.WriteHeader(status)
	w.Write(page.Bytes())
}

// pageTmpl is the checkout page's content; the shared frame (header,
// footer, stylesheet) comes from site/layout.
var pageTmpl = template.Must(template.New("checkout").Parse(`{{if .TestMode}}<div class="test">TEST MODE — no real payment is taken; choose an outcome below</div>{{end}}
<h1>{{.Site}} checkout</h1>
{{if .Error}}<p class="err">{{.Error}}</p>{{end}}
{{if .Message}}<p class="msg">{{.Message}}</p>{{end}}
{{with .Order}}
<p>Order <strong>{{.Number}}</strong> · status <strong id="status">{{.Status}}</strong>{{if .StatusNote}} <small>({{.StatusNote}})</small>{{end}}</p>
<table><thead><tr><th>Item</th><th class="n">Net</th><th class="n">Discount</th><th class="n">VAT</th><th class="n">Total</th></tr></thead><tbody>
{{range $.Lines}}<tr><td>{{.Name}}{{if .Listing}} — {{.Listing}}{{end}}{{if .Week}} <small>({{.Week}})</small>{{end}}{{if .Detail}}<br><small>{{.Detail}}</small>{{end}}</td>
<td class="n">{{.Net}}</td><td class="n">{{if .HasDiscount}}-{{.Discount}}{{else}}—{{end}}</td><td class="n">{{.VAT}} <small>({{.VATRate}})</small></td><td class="n">{{.Total}}</td></tr>
{{end}}</tbody><tfoot>
<tr><td>Subtotal</td><td class="n" colspan="4">{{$.Subtotal}}</td></tr>
{{if .PromoCode}}<tr><td>Promo {{.PromoCode}} (before VAT)</td><td class="n" colspan="4">-{{$.Discount}}</td></tr>{{end}}
<tr><td>VAT {{.VAT.Rate}}%{{if .VAT.Country}} ({{.VAT.Country}}){{end}}<br><small>{{.VAT.Note}}</small></td><td class="n" colspan="4">{{$.VAT}}</td></tr>
<tr><th>Total</th><th class="n" colspan="4" id="total">{{$.Total}}</th></tr>
</tfoot></table>
{{if $.Payable}}
{{if $.TestMode}}
<form method="post">
<input type="hidden" name="csrf" value="{{$.CSRF}}">
<fieldset><legend>Billing country and VAT</legend>
<p><small>The VAT above is worked out from these. Changing them recalculates the VAT and the total before you pay.</small></p>
<label>Country (ISO code, e.g. DE) <input name="billing_country" value="{{$.FormCountry}}" maxlength="2" size="3" required autocomplete="country"></label>
<label>EU business VAT number (optional) <input name="vat_number" value="{{$.FormVATNumber}}" maxlength="32"></label>
<button name="action" value="billing">Update billing country</button>
</fieldset>
</form>
<form method="post">
<input type="hidden" name="csrf" value="{{$.CSRF}}">
<fieldset><legend>Billing details</legend>
<p>Billing country <strong id="billing-country">{{if .VAT.Country}}{{.VAT.Country}}{{else}}none{{end}}</strong>{{if .VAT.VATNumber}}, VAT number <strong>{{.VAT.VATNumber}}</strong>{{end}} <small>(change it above)</small></p>
<label>Name <input name="billing_name" autocomplete="name" maxlength="500"></label>
<label>Email <input name="billing_email" type="email" value="{{$.Email}}" autocomplete="email" maxlength="500"></label>
<label>Address <input name="billing_address" autocomplete="street-address" maxlength="500"></label>
</fieldset>
<fieldset><legend>Payment method (simulated)</legend>
{{range $i, $m := $.Methods}}<label><input type="radio" name="method" value="{{$m}}"{{if eq $i 0}} checked{{end}}> {{$m}}</label>{{end}}
</fieldset>
<button name="action" value="succeed">Pay {{$.Total}} (simulate success)</button>
<button name="action" value="fail">Simulate failed payment</button>
<button name="action" value="abandon">Abandon checkout</button>
</form>
{{else if $.Stripe}}
<p><a href="{{.CheckoutURL}}">Continue to the secure payment page</a> (card, wallet, PayPal and more).</p>
{{end}}
{{else if eq .Status "paid"}}<p class="msg">Paid{{if $.PaidOn}} on <time datetime="{{.PaidAt}}">{{$.PaidOn}}</time>{{end}}. Your purchase is active.</p>
{{if .Billing.Name}}<p><small>Billed to {{.Billing.Name}}{{if .Billing.Address}}, {{.Billing.Address}}{{end}}{{if .Billing.Country}}, {{.Billing.Country}}{{end}}</small></p>{{end}}
{{else if eq .Status "pending"}}<p>Waiting for the payment confirmation.</p>
{{else}}<p>This order is {{.Status}} and cannot be paid. Start a new checkout to buy again.</p>{{end}}
{{end}}
<nav aria-label="Next steps"><h2>Next</h2><ul>
{{range .Listings}}<li>{{if .URL}}<a href="{{.URL}}">See {{.Name}} on the site</a>{{else}}{{.Name}}: {{.Status}}{{if .Week}}, launch week of {{.Week}}{{end}}{{end}}</li>
{{end}}<li><a href="{{.Home}}">Back to {{.Site}}</a></li></ul></nav>
`))
