package site

import (
	"context"
	"crypto/rand"
	"crypto/sha256"
	"crypto/subtle"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"net/http"
	"net/url"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"time"

	"launchdir/app/kernel"
	"launchdir/app/people"
	"launchdir/db"
	"launchdir/ops"
	"launchdir/routes"

	"github.com/julienschmidt/httprouter"
)

// The people types are the business layer's (app/people).
type (
	Person = people.Person
	Viewer = people.Viewer
	Review = people.Review
)

// People is the business layer for people (app/people): accounts, sessions,
// votes, follows, reviews and reports. The site only calls it; every rule
// (who may vote, what counts, limits) lives behind it. Mount takes nil to
// serve the public pages only.
type People interface {
	SignUp(ctx context.Context, req people.SignupRequest) (*people.Person, error)
	NewSignupChallenge(ctx context.Context) (people.SignupChallenge, error)
	VerifyEmail(ctx context.Context, token string) (*people.Person, error)
	SignIn(ctx context.Context, email, password, ip string) (string, *people.Person, error)
	SessionPerson(ctx context.Context, session string) (*people.Person, error)
	SignOut(ctx context.Context, session string) error
	RequestPasswordReset(ctx context.Context, email string) error
	ResetPassword(ctx context.Context, token, password string) error
	CheckResetLink(ctx context.Context, token string) error
	ToggleVote(ctx context.Context, userID int64, slug, ip string) (people.VoteState, error)
	ToggleFollow(ctx context.Context, userID int64, slug string) (bool, error)
	Following(ctx context.Context, userID int64, page, perPage int) (kernel.Page[db.Summary], error)
	Unsubscribe(ctx context.Context, token string) error
	SaveReview(ctx context.Context, userID int64, slug string, rating int, body string) (*people.Review, error)
	ListingReviews(ctx context.Context, slug string, page, perPage int) (kernel.Page[people.Review], error)
	Report(ctx context.Context, userID int64, kind, target, reason string) error
	ViewerOf(ctx context.Context, userID int64, slug string) (people.Viewer, error)
	VotedAmong(ctx context.Context, userID int64, ids []int64) (map[int64]bool, error)
}

var _ People = (*people.Service)(nil)

const (
	sessionCookie = "ld_session"
	csrfCookie    = "ld_csrf"
)

// mountPeople registers the people pages. Every POST goes through Go's
// cross-origin protection and then a per-session (or, before sign-in, a
// double-submit cookie) token check.
func (s *Site) mountPeople(srv *routes.Server) {
	s.clientIP = srv.ClientIP
	cop := http.NewCrossOriginProtection()
	// One-click unsubscribe (RFC 8058) is a cross-site POST by the mail
	// client; the secret token in the path is what authorises it.
	cop.AddInsecureBypassPattern("POST /unsubscribe/{token}")
	cop.SetDenyHandler(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		s.forbidden(w, r, "This form was sent from another site, so it was refused.")
	}))
	handle := func(method, path string, h func(http.ResponseWriter, *http.Request, httprouter.Params), checkToken bool) {
		var hh http.Handler = http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			if checkToken && !s.tokenOK(r) {
				s.forbidden(w, r, "The form's security token is missing or expired. Go back, reload the page and try again.")
				return
			}
			h(w, r, httprouter.ParamsFromContext(r.Context()))
		})
		if method == http.MethodPost {
			hh = cop.Handler(hh)
		}
		srv.Handle(method, path, hh)
	}
	handle("GET", "/signup", s.signUpPage, false)
	handle("POST", "/signup", s.signUp, true)
	handle("GET", "/verify/:token", s.verify, false)
	s.mountHandoff(srv)
	handle("GET", "/signin", s.signInPage, false)
	handle("POST", "/signin", s.signIn, true)
	handle("POST", "/signout", s.signOut, true)
	handle("GET", "/reset", s.resetRequestPage, false)
	handle("POST", "/reset", s.resetRequest, true)
	handle("GET", "/reset/:token", s.resetPage, false)
	handle("POST", "/reset/:token", s.reset, true)
	handle("GET", "/following", s.following, false)
	srv.Handle("GET", "/listings/:slug/reviews", s.pageHandler(s.reviews))
	handle("GET", "/unsubscribe/:token", s.unsubscribePage, false)
	handle("POST", "/unsubscribe/:token", s.unsubscribe, false)
	// Listing actions check the token after sign-in: an anonymous click is
	// sent to the sign-in page, not refused.
	handle("POST", "/listings/:slug/vote", s.vote, false)
	handle("POST", "/listings/:slug/follow", s.follow, false)
	handle("POST", "/listings/:slug/review", s.review, false)
	handle("POST", "/listings/:slug/report", s.report, false)
}

// viewer is the signed-in person of the request, or nil.
func (s *Site) viewer(r *http.Request) (*Person, string) {
	if s.people == nil {
		return nil, ""
	}
	c, err := r.Cookie(sessionCookie)
	if err != nil || c.Value == "" {
		return nil, ""
	}
	p, err := s.people.SessionPerson(r.Context(), c.Value)
	if err != nil || p == nil {
		return nil, ""
	}
	return p, c.Value
}

// sessionToken is the CSRF token of a session: a hash of the session
// secret, so it changes when the session rotates at sign-in.
func sessionToken(session string) string {
	sum := sha256.Sum256([]byte("launchdir csrf\x00" + session))
	return hex.EncodeToString(sum[:16])
}

// formToken is the token forms carry: the session's when signed in,
// otherwise a random double-submit cookie set here.
func (s *Site) formToken(w http.ResponseWriter, r *http.Request) string {
	if _, session := s.viewer(r); session != "" {
		return sessionToken(session)
	}
	if c, err := r.Cookie(csrfCookie); err == nil && len(c.Value) == 32 {
		return c.Value
	}
	b := make([]byte, 16)
	rand.Read(b)
	v := hex.EncodeToString(b)
	http.SetCookie(w, &http.Cookie{Name: csrfCookie, Value: v, Path: "/", HttpOnly: true, Secure: s.secure(r), SameSite: http.SameSiteLaxMode})
	return v
}

// tokenOK checks the form's csrf field against the session (signed in) or
// the double-submit cookie (anonymous forms).
func (s *Site) tokenOK(r *http.Request) bool {
	got := r.PostFormValue("csrf")
	if got == "" {
		return false
	}
	want := ""
	if _, session := s.viewer(r); session != "" {
		want = sessionToken(session)
	} else if c, err := r.Cookie(csrfCookie); err == nil {
		want = c.Value
	}
	return want != "" && subtle.ConstantTimeCompare([]byte(got), []byte(want)) == 1
}

func (s *Site) forbidden(w http.ResponseWriter, r *http.Request, detail string) {
	p := s.page(r, "Forbidden", "Forbidden", &ops.Error{Code: ops.CodeForbidden, Detail: detail})
	p.Status, p.NoIndex = http.StatusForbidden, true
	s.render(w, r, "error", p)
}

// formData is what every people form page gets.
type formData struct {
	CSRF    string
	Values  map[string]string
	Errors  map[string]string // field -> message
	Message string            // a general error
	Notice  string            // a success note
	Next    string
	Token   string
	Items   []db.Summary
	Pager   *Pager
	// Challenge is the sign-up form's proof of work (JSON for the script).
	Challenge string
	// SignUpURL replaces the page's "create an account" links: on main's
	// handoff sign-in, the sign-up of the site the person came from, so a
	// newcomer is not stranded on main.
	SignUpURL string
}

func (s *Site) form(w http.ResponseWriter, r *http.Request, name, title string, status int, d *formData) {
	if d.CSRF == "" {
		d.CSRF = s.formToken(w, r)
	}
	p := s.page(r, title, title+" on "+s.App.SiteName(r.Context()), d)
	p.Status, p.NoIndex, p.Narrow = status, true, true
	p.private, p.signUp = true, d.SignUpURL
	s.render(w, r, name, p)
}

// failed shows an operation error on the form: each field's message next
// to the field, anything else at the top.
func (s *Site) failed(w http.ResponseWriter, r *http.Request, name, title string, d *formData, err error) {
	e := ops.AsError(err)
	if e.Code == ops.CodeInternal {
		s.App.Log.Error("people form", "form", name, "err", err)
	}
	d.Errors = map[string]string{}
	for _, f := range e.Fields {
		d.Errors[f.Field] = f.Message
	}
	d.Message = e.Detail
	if len(e.Fields) > 0 {
		// Each message also sits beside its field; the summary reads as
		// prose, without the API's "field: " prefixes.
		var msgs []string
		for _, f := range e.Fields {
			if !slices.Contains(msgs, f.Message) {
				msgs = append(msgs, f.Message)
			}
		}
		d.Message = strings.Join(msgs, "; ")
		if d.Message != "" {
			d.Message = strings.ToUpper(d.Message[:1]) + d.Message[1:] + "."
		}
	}
	if e.Code == ops.CodeRateLimited {
		secs := int(e.RetryAfter.Seconds() + 0.999)
		w.Header().Set("Retry-After", strconv.Itoa(max(secs, 1)))
	}
	s.form(w, r, name, title, e.Code.Status(), d)
}

func values(r *http.Request, names ...string) map[string]string {
	out := map[string]string{}
	for _, n := range names {
		out[n] = strings.TrimSpace(r.PostFormValue(n))
	}
	return out
}

// safeNext keeps redirects after sign-in on this site.
func safeNext(next string) string { return routes.LocalPath(next) }

func (s *Site) signUpPage(w http.ResponseWriter, r *http.Request, _ httprouter.Params) {
	s.signUpForm(w, r, http.StatusOK, &formData{Values: map[string]string{}}, nil)
}

// signUpForm shows the sign-up form (after err, when not nil) with a fresh
// proof-of-work challenge: each is spent by one sign-up.
func (s *Site) signUpForm(w http.ResponseWriter, r *http.Request, status int, d *formData, err error) {
	c, cerr := s.people.NewSignupChallenge(r.Context())
	if cerr != nil {
		s.errorPage(w, r, cerr)
		return
	}
	b, _ := json.Marshal(c)
	d.Challenge = string(b)
	if err != nil {
		s.failed(w, r, "signup", "Create an account", d, err)
		return
	}
	s.form(w, r, "signup", "Create an account", status, d)
}

func (s *Site) signUp(w http.ResponseWriter, r *http.Request, _ httprouter.Params) {
	v := values(r, "email", "name")
	d := &formData{Values: v}
	req := people.SignupRequest{Email: v["email"], Password: r.PostFormValue("password"), Name: v["name"],
		IP: s.clientIP(r), Proof: r.PostFormValue("altcha")}
	if _, err := s.people.SignUp(r.Context(), req); err != nil {
		s.signUpForm(w, r, 0, d, err)
		return
	}
	d.Notice = "Almost there: we sent a link to " + v["email"] + ". Open it to verify your address, then sign in."
	s.form(w, r, "signin", "Sign in", http.StatusOK, d)
}

func (s *Site) verify(w http.ResponseWriter, r *http.Request, ps httprouter.Params) {
	d := &formData{Values: map[string]string{}}
	if _, err := s.people.VerifyEmail(r.Context(), ps.ByName("token")); err != nil {
		d.Message = "This verification link is not valid or has expired. To get a new one, ask for a password reset link on the password reset page: using it confirms your email address too."
		s.form(w, r, "signin", "Sign in", ops.AsError(err).Code.Status(), d)
		return
	}
	d.Notice = "Your email address is verified. " + s.whenVotesCount()
	s.form(w, r, "signin", "Sign in", http.StatusOK, d)
}

func (s *Site) signInPage(w http.ResponseWriter, r *http.Request, _ httprouter.Params) {
	if !s.onMain(r) { // one account: sign in on main, then come back (handoff.go)
		s.startHandoff(w, r, safeNext(r.URL.Query().Get("next")), "")
		return
	}
	s.form(w, r, "signin", "Sign in", http.StatusOK, &formData{Values: map[string]string{}, Next: safeNext(r.URL.Query().Get("next"))})
}

func (s *Site) signIn(w http.ResponseWriter, r *http.Request, _ httprouter.Params) {
	v := values(r, "email")
	d := &formData{Values: v, Next: safeNext(r.PostFormValue("next"))}
	// Signing in replaces any old session: a fresh secret every time.
	if _, old := s.viewer(r); old != "" {
		s.people.SignOut(r.Context(), old)
	}
	session, person, err := s.people.SignIn(r.Context(), v["email"], r.PostFormValue("password"), s.clientIP(r))
	if err != nil {
		s.failed(w, r, "signin", "Sign in", d, err)
		return
	}
	http.SetCookie(w, &http.Cookie{Name: sessionCookie, Value: session, Path: "/", HttpOnly: true, Secure: s.secure(r),
		SameSite: http.SameSiteLaxMode, MaxAge: int(people.SessionTTL.Seconds())})
	if slug, back, ok := pendingVoteBack(d.Next); ok {
		s.castPendingVote(w, r, person, slug, back)
		return
	}
	http.Redirect(w, r, d.Next, http.StatusSeeOther)
}

// pendingVoteRE is where a vote pressed before signing in returns to: the
// listing, with the intent to vote.
// A vote pressed on a card also names the page to return to (back).
var pendingVoteRE = regexp.MustCompile(`^/listings/([a-z0-9][a-z0-9-]{0,219})\?cast=vote(?:&back=([^&#]+))?$`)

// pendingVoteBack reads a vote waiting in next: the listing and the card's
// page ("" when none).
func pendingVoteBack(next string) (slug, back string, ok bool) {
	m := pendingVoteRE.FindStringSubmatch(next)
	if m == nil {
		return "", "", false
	}
	if b, err := url.QueryUnescape(m[2]); err == nil {
		back = voteReturn(b)
	}
	return m[1], back, true
}

// castFrom is where a vote waits while its voter signs in.
func castFrom(slug, back string) string {
	next := "/listings/" + slug + "?cast=vote"
	if back != "" {
		next += "&back=" + url.QueryEscape(back)
	}
	return next
}

// castPendingVote casts the vote a visitor pressed before signing in, once
// they have (the sign-in form carries the CSRF token, and the intent was
// their click): never a second press that would withdraw it.
func (s *Site) castPendingVote(w http.ResponseWriter, r *http.Request, p *Person, slug, back string) {
	v, err := s.people.ViewerOf(r.Context(), p.ID, slug)
	if err != nil || v.Voted {
		http.Redirect(w, r, firstNonEmpty(back, "/listings/"+slug), http.StatusSeeOther)
		return
	}
	st, err := s.people.ToggleVote(r.Context(), p.ID, slug, s.clientIP(r))
	note := "voted"
	if err == nil && !st.Counted {
		note = "voted-uncounted"
	}
	s.afterVote(w, r, slug, back, note, err)
}

// whenVotesCount says when a newly verified account's votes count.
func (s *Site) whenVotesCount() string {
	age := s.App.Cfg.VoteMinAccountAge
	if age <= 0 {
		return "Your votes and reviews now count."
	}
	return fmt.Sprintf("Your reviews now count; your votes count once your account is %s old (earlier votes are kept but not counted).", humanDuration(age))
}

// humanDuration says a duration in hours or days.
func humanDuration(d time.Duration) string {
	if h := int(d.Hours()); h%24 == 0 && h >= 48 {
		return fmt.Sprintf("%d days", h/24)
	} else if h >= 1 {
		return countOf(h, "hour", "hours")
	}
	return countOf(int(d.Minutes()), "minute", "minutes")
}

func (s *Site) signOut(w http.ResponseWriter, r *http.Request, _ httprouter.Params) {
	if _, session := s.viewer(r); session != "" {
		if err := s.people.SignOut(r.Context(), session); err != nil {
			s.errorPage(w, r, err)
			return
		}
	}
	http.SetCookie(w, &http.Cookie{Name: sessionCookie, Value: "", Path: "/", HttpOnly: true, Secure: s.secure(r),
		SameSite: http.SameSiteLaxMode, MaxAge: -1})
	http.Redirect(w, r, "/", http.StatusSeeOther)
}

func (s *Site) resetRequestPage(w http.ResponseWriter, r *http.Request, _ httprouter.Params) {
	s.form(w, r, "reset-request", "Reset your password", http.StatusOK, &formData{Values: map[string]string{}})
}

func (s *Site) resetRequest(w http.ResponseWriter, r *http.Request, _ httprouter.Params) {
	v := values(r, "email")
	d := &formData{Values: v}
	if err := s.people.RequestPasswordReset(r.Context(), v["email"]); err != nil {
		s.failed(w, r, "reset-request", "Reset your password", d, err)
		return
	}
	// The same answer whether or not the address has an account.
	d.Notice = "If " + v["email"] + " has an account, we sent it a link to choose a new password. The link works once, for a limited time."
	s.form(w, r, "reset-request", "Reset your password", http.StatusOK, d)
}

// resetPage says a used or expired link is so before the form (and offers
// a new link instead of a form that cannot work).
func (s *Site) resetPage(w http.ResponseWriter, r *http.Request, ps httprouter.Params) {
	if err := s.people.CheckResetLink(r.Context(), ps.ByName("token")); err != nil {
		e := ops.AsError(err)
		if e.Code == ops.CodeInternal {
			s.errorPage(w, r, err)
			return
		}
		d := &formData{Values: map[string]string{}, Message: "Sorry: " + fieldMessage(e) + "."}
		s.form(w, r, "reset-request", "Reset your password", e.Code.Status(), d)
		return
	}
	s.form(w, r, "reset", "Choose a new password", http.StatusOK, &formData{Token: ps.ByName("token"), Values: map[string]string{}})
}

// fieldMessage is a refusal's first field message, else its detail.
func fieldMessage(e *ops.Error) string {
	if len(e.Fields) > 0 {
		return e.Fields[0].Message
	}
	return e.Detail
}

func (s *Site) reset(w http.ResponseWriter, r *http.Request, ps httprouter.Params) {
	d := &formData{Token: ps.ByName("token"), Values: map[string]string{}}
	if err := s.people.ResetPassword(r.Context(), d.Token, r.PostFormValue("password")); err != nil {
		s.failed(w, r, "reset", "Choose a new password", d, err)
		return
	}
	d.Notice = "Your password is changed and your other sessions are signed out. Sign in with the new password."
	s.form(w, r, "signin", "Sign in", http.StatusOK, d)
}

// signedIn returns the viewer or sends the browser to sign in first.
func (s *Site) signedIn(w http.ResponseWriter, r *http.Request, back string) *Person {
	p, _ := s.viewer(r)
	if p == nil && r.Method == http.MethodPost && !s.onMain(r) {
		// A pressed vote is cast once signed in; other actions wait for
		// the next press. The POST passed the cross-origin check.
		vote := ""
		if slug, _, ok := pendingVoteBack(back); ok {
			vote = slug
		}
		s.startHandoff(w, r, back, vote)
		return nil
	}
	if p == nil {
		http.Redirect(w, r, "/signin?next="+url.QueryEscape(back), http.StatusSeeOther)
		return nil
	}
	if r.Method == http.MethodPost && !s.tokenOK(r) {
		s.forbidden(w, r, "The form's security token is missing or expired. Go back, reload the page and try again.")
		return nil
	}
	return p
}

// afterAction returns to the listing with a note, or shows the error.
func (s *Site) afterAction(w http.ResponseWriter, r *http.Request, slug, note string, err error) {
	if err != nil {
		e := ops.AsError(err)
		if e.Code == ops.CodeNotFound {
			s.notFound(w, r, e.Detail)
			return
		}
		s.errorPage(w, r, err)
		return
	}
	http.Redirect(w, r, "/listings/"+slug+"?done="+url.QueryEscape(note), http.StatusSeeOther)
}

func (s *Site) vote(w http.ResponseWriter, r *http.Request, ps httprouter.Params) {
	slug := ps.ByName("slug")
	// Signed out, the vote is cast once they have signed in (castPendingVote).
	back := voteReturn(r.PostFormValue("next"))
	p := s.signedIn(w, r, castFrom(slug, back))
	if p == nil {
		return
	}
	st, err := s.people.ToggleVote(r.Context(), p.ID, slug, s.clientIP(r))
	note := "unvoted"
	if st.Voted {
		note = "voted"
		if !st.Counted {
			note = "voted-uncounted"
		}
		if st.Held {
			note = "voted-held"
		}
	}
	s.afterVote(w, r, slug, back, note, err)
}

// afterVote returns a vote pressed on a card to the card's page; a vote that
// needs explaining (not counted yet, held) goes to the listing, whose note
// says why its count did not move.
func (s *Site) afterVote(w http.ResponseWriter, r *http.Request, slug, back, note string, err error) {
	if err == nil && back != "" && (note == "voted" || note == "unvoted") {
		http.Redirect(w, r, back, http.StatusSeeOther)
		return
	}
	s.afterAction(w, r, slug, note, err)
}

func (s *Site) follow(w http.ResponseWriter, r *http.Request, ps httprouter.Params) {
	slug := ps.ByName("slug")
	p := s.signedIn(w, r, "/listings/"+slug)
	if p == nil {
		return
	}
	on, err := s.people.ToggleFollow(r.Context(), p.ID, slug)
	s.afterAction(w, r, slug, map[bool]string{true: "followed", false: "unfollowed"}[on], err)
}

func (s *Site) review(w http.ResponseWriter, r *http.Request, ps httprouter.Params) {
	slug := ps.ByName("slug")
	p := s.signedIn(w, r, "/listings/"+slug+"#review")
	if p == nil {
		return
	}
	stars, _ := strconv.Atoi(r.PostFormValue("stars"))
	_, err := s.people.SaveReview(r.Context(), p.ID, slug, stars, r.PostFormValue("text"))
	if e := ops.AsError(err); err != nil && e.Code == ops.CodeInvalid {
		s.reviewRetry(w, r, slug, stars, e)
		return
	}
	s.afterAction(w, r, slug, "reviewed", err)
}

// reviewRetry shows the review form again with what was typed and what to
// fix, instead of a bare error page.
func (s *Site) reviewRetry(w http.ResponseWriter, r *http.Request, slug string, stars int, e *ops.Error) {
	var l struct {
		Name string `json:"name"`
	}
	if err := s.call(r.Context(), "get_listing", map[string]string{"slug": slug}, &l); err != nil {
		s.errorPage(w, r, err)
		return
	}
	words := map[string]string{"stars": "Stars", "rating": "Stars", "text": "Your review", "body": "Your review"}
	var problems []string
	for _, f := range e.Fields {
		name := words[f.Field]
		if name == "" {
			name = f.Field
		}
		problems = append(problems, name+": "+f.Message)
	}
	if len(problems) == 0 {
		problems = []string{e.Detail}
	}
	d := struct {
		Slug, Name, Text string
		Stars            int
		Problems         []string
	}{slug, l.Name, r.PostFormValue("text"), stars, problems}
	p := s.page(r, "Your review is not saved yet", "", d)
	p.Status, p.NoIndex = e.Code.Status(), true
	s.render(w, r, "review-retry", p)
}

func (s *Site) report(w http.ResponseWriter, r *http.Request, ps httprouter.Params) {
	slug := ps.ByName("slug")
	p := s.signedIn(w, r, "/listings/"+slug)
	if p == nil {
		return
	}
	kind, target := "listing", slug
	if review := r.PostFormValue("review"); review != "" {
		kind, target = "review", review
	}
	err := s.people.Report(r.Context(), p.ID, kind, target, r.PostFormValue("reason"))
	s.afterAction(w, r, slug, "reported", err)
}

func (s *Site) following(w http.ResponseWriter, r *http.Request, _ httprouter.Params) {
	p := s.signedIn(w, r, "/following")
	if p == nil {
		return
	}
	page, err := pageParam(r)
	if err != nil {
		s.errorPage(w, r, err)
		return
	}
	list, err := s.people.Following(r.Context(), p.ID, page, 24)
	if err != nil {
		s.errorPage(w, r, err)
		return
	}
	d := &formData{Items: list.Items, Pager: newPager(r, page, 24, list.Total)}
	pg := s.page(r, "Following", "Products you follow", d)
	pg.NoIndex, pg.private = true, true
	s.render(w, r, "following", pg)
}

func (s *Site) unsubscribePage(w http.ResponseWriter, r *http.Request, ps httprouter.Params) {
	s.form(w, r, "unsubscribe", "Unsubscribe", http.StatusOK, &formData{Token: ps.ByName("token")})
}

func (s *Site) unsubscribe(w http.ResponseWriter, r *http.Request, ps httprouter.Params) {
	d := &formData{Token: ps.ByName("token")}
	if err := s.people.Unsubscribe(r.Context(), d.Token); err != nil {
		if ops.AsError(err).Code == ops.CodeNotFound {
			d.Message = "This unsubscribe link is not valid."
			s.form(w, r, "unsubscribe", "Unsubscribe", http.StatusNotFound, d)
			return
		}
		s.failed(w, r, "unsubscribe", "Unsubscribe", d, err)
		return
	}
	d.Notice = "Done: you will get no more of these emails."
	s.form(w, r, "unsubscribe", "Unsubscribe", http.StatusOK, d)
}
