package oauth

import (
	"context"
	"net/http"
	"net/url"
	"regexp"
	"slices"
	"strings"

	"launchdir/app/kernel"
	"launchdir/ops"
)

// authRequest is a validated authorization request.
type authRequest struct {
	Client        *Client
	RedirectURI   string
	RedirectGiven bool
	State         string
	Scopes        []string
	Resource      string
	Challenge     string
	Prompt        string
	encoded       string // the request's parameters, carried by the forms
	issuer        string
}

// authParams are the parameters an authorization request may carry; others
// are dropped before the request is carried through the forms.
var authParams = []string{"client_id", "redirect_uri", "response_type", "code_challenge",
	"code_challenge_method", "state", "scope", "resource", "prompt"}

// codeChallengeRe is a base64url SHA-256 (RFC 7636 section 4.2, S256).
var codeChallengeRe = regexp.MustCompile(`^[A-Za-z0-9_-]{43}$`)

// pageError is an error shown to the user instead of redirecting, because
// the redirect URI cannot be trusted (RFC 6749 section 4.1.2.1).
type pageError struct {
	Status int
	Title  string
	Detail string
}

// parseAuthRequest validates q. A page error means the client or redirect
// URI is not valid; a redirect error goes back to the (valid) redirect URI.
func (s *Server) parseAuthRequest(ctx context.Context, q url.Values) (*authRequest, *pageError, *oauthError) {
	kept := url.Values{}
	for _, k := range authParams {
		if v, ok := q[k]; ok {
			kept[k] = v
		}
	}
	req := &authRequest{encoded: kept.Encode(), issuer: s.Issuer(ctx)}
	bad := func(detail string) (*authRequest, *pageError, *oauthError) {
		return nil, &pageError{Status: http.StatusBadRequest, Title: "This sign-in link is not valid", Detail: detail}, nil
	}
	if len(q["client_id"]) != 1 || len(q["redirect_uri"]) > 1 {
		return bad("The request must name exactly one client_id and at most one redirect_uri.")
	}
	c, err := s.lookupClient(ctx, q.Get("client_id"))
	if cp, ok := err.(*clientProblem); ok {
		return bad("The application could not be identified: " + cp.msg + ".")
	}
	if err != nil {
		s.App.Log.Error("oauth client lookup", "err", err)
		return nil, &pageError{Status: http.StatusInternalServerError, Title: "Something went wrong", Detail: "Please try again."}, nil
	}
	req.Client = c
	if ru, given := q["redirect_uri"]; given {
		if !matchRedirectURI(c.RedirectURIs, ru[0]) {
			return bad("The redirect_uri is not one the application registered.")
		}
		req.RedirectURI, req.RedirectGiven = ru[0], true
	} else {
		// OAuth 2.1: optional only when exactly one (non-loopback) URI is registered.
		if len(c.RedirectURIs) != 1 || isLoopbackHTTP(c.RedirectURIs[0]) {
			return bad("The request must include a redirect_uri.")
		}
		req.RedirectURI = c.RedirectURIs[0]
	}
	// From here on, errors are returned to the client.
	redirectErr := func(code, desc string) (*authRequest, *pageError, *oauthError) {
		return req, nil, badRequest(code, desc)
	}
	for _, k := range authParams {
		if len(q[k]) > 1 {
			if k == "resource" {
				return redirectErr("invalid_target", "only the resource "+s.Resource(ctx)+" is served here")
			}
			return redirectErr("invalid_request", "parameter "+k+" is repeated")
		}
	}
	req.State = q.Get("state")
	if len(req.State) > 1000 {
		req.State = ""
		return redirectErr("invalid_request", "state is longer than 1000 characters")
	}
	if rt := q.Get("response_type"); rt != "code" {
		return redirectErr("unsupported_response_type", "response_type must be code")
	}
	if !c.allowsGrant("authorization_code") {
		return redirectErr("unauthorized_client", "the client is not registered for the authorization_code grant")
	}
	req.Challenge = q.Get("code_challenge")
	if req.Challenge == "" {
		return redirectErr("invalid_request", "code_challenge is required (PKCE with S256)")
	}
	if q.Get("code_challenge_method") != "S256" {
		return redirectErr("invalid_request", "code_challenge_method must be S256; plain is not supported")
	}
	if !codeChallengeRe.MatchString(req.Challenge) {
		return redirectErr("invalid_request", "code_challenge must be the base64url SHA-256 of the code verifier (43 characters)")
	}
	if raw := strings.TrimSpace(q.Get("scope")); raw == "" {
		req.Scopes = c.Scopes
	} else {
		var scopes []string
		for _, sc := range strings.Fields(raw) {
			if !slices.Contains(ops.AllScopes, sc) {
				return redirectErr("invalid_scope", "unknown scope "+truncate(sc, 60)+"; supported: "+strings.Join(ops.AllScopes, " "))
			}
			if !slices.Contains(c.Scopes, sc) {
				return redirectErr("invalid_scope", "the client is not registered for scope "+sc)
			}
			scopes = append(scopes, sc)
		}
		req.Scopes = orderScopes(scopes)
	}
	req.Resource = s.Resource(ctx)
	if res, ok := q["resource"]; ok && !s.isResource(ctx, res[0]) {
		return redirectErr("invalid_target", "only the resource "+s.Resource(ctx)+" is served here")
	}
	req.Prompt = q.Get("prompt")
	if req.Prompt == "none" {
		return redirectErr("consent_required", "this server always asks the user to approve access")
	}
	return req, nil, nil
}

// isResource reports whether a resource indicator names the MCP endpoint
// (scheme and host case and a trailing slash are forgiven).
func (s *Server) isResource(ctx context.Context, v string) bool {
	norm := func(x string) string {
		u, err := url.Parse(x)
		if err != nil {
			return ""
		}
		return strings.ToLower(u.Scheme) + "://" + strings.ToLower(u.Host) + strings.TrimRight(u.EscapedPath(), "/") + "?" + u.RawQuery + "#" + u.Fragment
	}
	n := norm(v)
	return n != "" && n == norm(s.Resource(ctx))
}

func isLoopbackHTTP(raw string) bool {
	u, err := url.Parse(raw)
	return err == nil && u.Scheme == "http" && isLoopback(u.Hostname())
}

func truncate(s string, n int) string {
	if len(s) > n {
		return s[:n] + "…"
	}
	return s
}

// redirectTo builds the redirect back to the client with params, state and
// iss (RFC 9207).
func (a *authRequest) redirectTo(params url.Values) string {
	u, err := url.Parse(a.RedirectURI)
	if err != nil {
		return a.RedirectURI
	}
	q := u.Query()
	for k, v := range params {
		q[k] = v
	}
	if a.State != "" {
		q.Set("state", a.State)
	}
	q.Set("iss", a.issuer)
	u.RawQuery = q.Encode()
	return u.String()
}

func (a *authRequest) errorRedirect(e *oauthError) string {
	p := url.Values{"error": {e.Code}}
	if e.Description != "" {
		p.Set("error_description", e.Description)
	}
	return a.redirectTo(p)
}

// requestAndUser validates an authorization request and finds the signed-in
// user, answering the request itself (error page, error redirect with
// redirectStatus, or the sign-in page with note) when it cannot go on.
func (s *Server) requestAndUser(w http.ResponseWriter, r *http.Request, q url.Values, redirectStatus int, note string) (*authRequest, *sessionUser, bool) {
	req, perr, rerr := s.parseAuthRequest(r.Context(), q)
	if perr != nil {
		s.errorPage(w, r, perr)
		return nil, nil, false
	}
	if rerr != nil {
		http.Redirect(w, r, req.errorRedirect(rerr), redirectStatus)
		return nil, nil, false
	}
	u, err := s.sessionUser(r)
	if err != nil {
		s.internalErrorPage(w, r, err)
		return nil, nil, false
	}
	if u == nil {
		s.signInPage(w, r, req.encoded, "", note, http.StatusOK)
		return nil, nil, false
	}
	return req, u, true
}

// authorize is GET /oauth/authorize: validate, then sign-in or consent.
func (s *Server) authorize(w http.ResponseWriter, r *http.Request) {
	req, u, ok := s.requestAndUser(w, r, r.URL.Query(), http.StatusFound, "")
	if !ok {
		return
	}
	s.consentPage(w, r, req, u)
}

// authorizeDecision is POST /oauth/authorize: the consent form.
func (s *Server) authorizeDecision(w http.ResponseWriter, r *http.Request) {
	form, ok := s.checkForm(w, r)
	if !ok {
		return
	}
	q, err := url.ParseQuery(form.Get("request"))
	if err != nil {
		s.errorPage(w, r, &pageError{Status: http.StatusBadRequest, Title: "This form is not valid", Detail: "Start again from the application."})
		return
	}
	req, u, ok := s.requestAndUser(w, r, q, http.StatusSeeOther, "Your sign-in has expired. Sign in again.")
	if !ok {
		return
	}
	switch form.Get("action") {
	case "deny":
		http.Redirect(w, r, req.errorRedirect(&oauthError{Code: "access_denied", Description: "the user denied access"}), http.StatusSeeOther)
	case "allow":
		code, err := s.issueCode(r.Context(), req, u.ID)
		if err != nil {
			s.internalErrorPage(w, r, err)
			return
		}
		http.Redirect(w, r, req.redirectTo(url.Values{"code": {code}}), http.StatusSeeOther)
	case "switch":
		s.endSession(w, r)
		http.Redirect(w, r, "/oauth/authorize?"+req.encoded, http.StatusSeeOther)
	default:
		s.errorPage(w, r, &pageError{Status: http.StatusBadRequest, Title: "This form is not valid", Detail: "Choose Allow or Deny."})
	}
}

// issueCode stores a new single-use authorization code.
func (s *Server) issueCode(ctx context.Context, req *authRequest, userID int64) (string, error) {
	code := kernel.NewSecret(codePrefix)
	now := s.now()
	_, err := s.App.DB.W.ExecContext(ctx, `INSERT INTO oauth_codes(hash, client_id, user_id, redirect_uri, redirect_given, scope,
		resource, code_challenge, created_at, expires_at) VALUES(?,?,?,?,?,?,?,?,?,?)`,
		kernel.HashSecret(code), req.Client.ID, userID, req.RedirectURI, req.RedirectGiven, strings.Join(req.Scopes, " "),
		req.Resource, req.Challenge, ts(now), ts(now.Add(codeTTL)))
	return code, err
}

// signIn is POST /oauth/signin: email and password, then back to the
// authorization request.
func (s *Server) signIn(w http.ResponseWriter, r *http.Request) {
	form, ok := s.checkForm(w, r)
	if !ok {
		return
	}
	q, err := url.ParseQuery(form.Get("request"))
	if err != nil || q.Get("client_id") == "" {
		s.errorPage(w, r, &pageError{Status: http.StatusBadRequest, Title: "This form is not valid", Detail: "Start again from the application."})
		return
	}
	request := q.Encode()
	email := strings.ToLower(strings.TrimSpace(form.Get("email")))
	password := form.Get("password")
	if email == "" || password == "" || len(email) > 254 || len(password) > 1024 {
		s.signInPage(w, r, request, email, "Enter your email and password.", http.StatusBadRequest)
		return
	}
	// The site's limiter: failures here and on the site's sign-in page
	// count together, reserved before the password is checked.
	done, err := s.App.People.ReserveSignin(email, s.clientIP(r))
	if err != nil {
		w.Header().Set("Retry-After", retryAfter(ops.AsError(err).RetryAfter))
		s.signInPage(w, r, request, email, "Too many failed sign-ins. Wait a few minutes and try again.", http.StatusTooManyRequests)
		return
	}
	userID, err := s.App.People.CheckCredentials(r.Context(), email, password)
	done(err == nil && userID != 0)
	if err != nil {
		s.internalErrorPage(w, r, err)
		return
	}
	if userID == 0 {
		s.signInPage(w, r, request, email, "The email or password is not correct.", http.StatusUnauthorized)
		return
	}
	if err := s.startSession(w, r, userID); err != nil {
		s.internalErrorPage(w, r, err)
		return
	}
	http.Redirect(w, r, "/oauth/authorize?"+request, http.StatusSeeOther)
}

// checkForm parses a page form and checks its origin and CSRF token. On
// failure it has answered.
func (s *Server) checkForm(w http.ResponseWriter, r *http.Request) (url.Values, bool) {
	form, oe := parseForm(w, r)
	if oe != nil {
		s.errorPage(w, r, &pageError{Status: http.StatusBadRequest, Title: "This form is not valid", Detail: oe.Description})
		return nil, false
	}
	if o := r.Header.Get("Origin"); o != "" && !strings.EqualFold(o, s.origin(r.Context())) {
		s.errorPage(w, r, &pageError{Status: http.StatusForbidden, Title: "This form came from another site", Detail: "Start again from the application."})
		return nil, false
	}
	if !s.validCSRF(r, form.Get("csrf")) {
		s.errorPage(w, r, &pageError{Status: http.StatusForbidden, Title: "This form has expired", Detail: "Go back, reload the page and try again."})
		return nil, false
	}
	return form, true
}
