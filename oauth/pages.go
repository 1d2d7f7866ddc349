package oauth

import (
	"bytes"
	"html/template"
	"net/http"
	"net/url"

	"launchdir/ops"
	"launchdir/site/layout"
)

// scopeText explains each scope on the consent page.
var scopeText = map[string]string{
	ops.ScopeAccountRead:   "See your account, drafts, listings, claims and orders",
	ops.ScopeListingsWrite: "Submit and edit drafts and your listings, post updates and milestones, claim listings",
	ops.ScopeOrdersWrite:   "Get quotes and create checkouts for orders (payment still happens on the checkout page)",
}

// pages hold the content of each OAuth page; the shared frame (header,
// footer, stylesheet) comes from site/layout.
var pages = template.Must(template.New("content").Parse(`{{if eq .Page "signin"}}{{template "signin" .}}{{else if eq .Page "consent"}}{{template "consent" .}}{{else}}{{template "error" .}}{{end}}
{{define "error"}}<h1>{{.Title}}</h1><p>{{.Detail}}</p>{{end}}
{{define "signin"}}<h1>Sign in to {{.Site}}</h1>
{{if .Error}}<p class="error" role="alert">{{.Error}}</p>{{end}}
<form method="post" action="/oauth/signin">
<input type="hidden" name="csrf" value="{{.CSRF}}">
<input type="hidden" name="request" value="{{.Request}}">
<label for="email">Email</label><input id="email" type="email" name="email" value="{{.Email}}" autocomplete="username" required autofocus>
<label for="password">Password</label><input id="password" type="password" name="password" autocomplete="current-password" required>
<button type="submit">Sign in</button>
</form>
<p class="muted">An application asked to access your {{.Site}} account. After signing in you can allow or deny it.</p>{{end}}
{{define "consent"}}<h1>Allow {{.ClientName}} to access your {{.Site}} account?</h1>
{{if .ClientHost}}<p class="muted">Application identified by <code>{{.ClientID}}</code></p>{{else}}<p class="muted">This application registered itself; its name is not verified.</p>{{end}}
<p>Signed in as <strong>{{.Email}}</strong>. It will be able to:</p>
<ul>{{range .Scopes}}<li><strong>{{.Name}}</strong>: {{.Text}}</li>{{end}}</ul>
<p class="muted">You will be sent back to <code>{{.RedirectHost}}</code>. Allow only applications you trust.</p>
<form method="post" action="/oauth/authorize">
<input type="hidden" name="csrf" value="{{.CSRF}}">
<input type="hidden" name="request" value="{{.Request}}">
<button type="submit" name="action" value="allow">Allow access</button>
<button type="submit" name="action" value="deny" class="secondary">Deny</button>
<p><button type="submit" name="action" value="switch" class="link">Not you? Use another account</button></p>
</form>{{end}}
`))

type scopeLine struct{ Name, Text string }

type pageData struct {
	Page, Title, Site, Detail string
	Error, Email, CSRF        string
	Request                   string
	ClientName, ClientID      string
	ClientHost                string
	RedirectHost              string
	Scopes                    []scopeLine
}

func (s *Server) render(w http.ResponseWriter, r *http.Request, status int, d *pageData) {
	ctx := r.Context()
	d.Site = s.App.SiteName(ctx)
	var content, buf bytes.Buffer
	err := pages.Execute(&content, d)
	if err == nil {
		err = layout.Render(&buf, &layout.Head{Title: d.Title, Site: d.Site, NoIndex: true, NoReferrer: true, Narrow: true,
			Theme: layout.ThemePath(s.App.Setting(ctx, "accent_color", "")), Body: template.HTML(content.String())})
	}
	if err != nil {
		s.App.Log.Error("oauth page", "err", err)
		http.Error(w, "internal error", http.StatusInternalServerError)
		return
	}
	h := w.Header()
	h.Set("Content-Type", "text/html; charset=utf-8")
	h.Set("Cache-Control", "no-store")
	h.Set("X-Frame-Options", "DENY")
	h.Set("X-Content-Type-Options", "nosniff")
	h.Set("Referrer-Policy", "no-referrer")
	// No form-action: browsers apply it to the redirect back to the client.
	h.Set("Content-Security-Policy", "default-src 'none'; "+layout.StyleSrc+"; frame-ancestors 'none'; base-uri 'none'")
	w.WriteHeader(status)
	w.Write(buf.Bytes())
}

func (s *Server) errorPage(w http.ResponseWriter, r *http.Request, e *pageError) {
	s.render(w, r, e.Status, &pageData{Page: "error", Title: e.Title, Detail: e.Detail})
}

func (s *Server) internalErrorPage(w http.ResponseWriter, r *http.Request, err error) {
	s.App.Log.Error("oauth", "path", r.URL.Path, "err", err)
	s.errorPage(w, r, &pageError{Status: http.StatusInternalServerError, Title: "Something went wrong", Detail: "Please try again in a moment."})
}

func (s *Server) signInPage(w http.ResponseWriter, r *http.Request, request, email, msg string, status int) {
	s.render(w, r, status, &pageData{Page: "signin", Title: "Sign in", Request: request, Email: email, Error: msg,
		CSRF: s.csrfToken(w, r)})
}

func (s *Server) consentPage(w http.ResponseWriter, r *http.Request, req *authRequest, u *sessionUser) {
	d := &pageData{Page: "consent", Title: "Allow access", Request: req.encoded, Email: u.Email, CSRF: s.csrfToken(w, r),
		ClientName: req.Client.DisplayName(), ClientID: req.Client.ID}
	if req.Client.FromDocument {
		if cu, err := url.Parse(req.Client.ID); err == nil {
			d.ClientHost = cu.Host
		}
	}
	if ru, err := url.Parse(req.RedirectURI); err == nil {
		d.RedirectHost = ru.Scheme + "://" + ru.Host
	}
	for _, sc := range req.Scopes {
		d.Scopes = append(d.Scopes, scopeLine{Name: sc, Text: scopeText[sc]})
	}
	s.render(w, r, http.StatusOK, d)
}
