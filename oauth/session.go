package oauth

import (
	"crypto/subtle"
	"net/http"
	"strconv"
	"strings"
	"time"

	"launchdir/app/kernel"
	"launchdir/app/people"
	"launchdir/db"
)

// sessionUser is the signed-in user of the authorization pages.
type sessionUser struct {
	ID    int64
	Email string
	Name  string
}

func (s *Server) cookieName(r *http.Request, base string) string {
	if s.secure(r) {
		return "__Host-" + base
	}
	return base
}

// setCookie writes an HttpOnly SameSite=Lax cookie; maxAge < 0 deletes it.
func (s *Server) setCookie(w http.ResponseWriter, r *http.Request, name, value string, maxAge int) {
	c := &http.Cookie{Name: s.cookieName(r, name), Value: value, Path: "/oauth", HttpOnly: true,
		SameSite: http.SameSiteLaxMode, MaxAge: maxAge}
	if s.secure(r) {
		c.Secure, c.Path = true, "/" // __Host- requires Path=/ and Secure
	}
	http.SetCookie(w, c)
}

func (s *Server) cookie(r *http.Request, name string) string {
	c, err := r.Cookie(s.cookieName(r, name))
	if err != nil {
		return ""
	}
	return c.Value
}

const (
	sessionCookie = "ld_oauth_session"
	csrfCookie    = "ld_oauth_csrf"
)

// sessionUser returns the user of a live session cookie, or nil.
func (s *Server) sessionUser(r *http.Request) (*sessionUser, error) {
	v := s.cookie(r, sessionCookie)
	if v == "" || !strings.HasPrefix(v, sessionPrefix) || len(v) > 200 {
		return s.siteSessionUser(r)
	}
	u := &sessionUser{}
	err := s.App.DB.R.QueryRowContext(r.Context(), `SELECT u.id, u.email, u.name FROM oauth_sessions s JOIN users u ON u.id = s.user_id
		WHERE s.hash = ? AND s.expires_at > ?`, kernel.HashSecret(v), ts(s.now())).Scan(&u.ID, &u.Email, &u.Name)
	if db.IsNoRows(err) {
		return s.siteSessionUser(r)
	}
	if err != nil {
		return nil, err
	}
	return u, nil
}

// siteSessionCookie is the website's session (app sessions): a person
// signed in on the site goes straight to the consent page, and signing in
// here signs in on the site too.
const siteSessionCookie = "ld_session"

func (s *Server) siteSessionUser(r *http.Request) (*sessionUser, error) {
	c, err := r.Cookie(siteSessionCookie)
	if err != nil || c.Value == "" {
		return nil, nil
	}
	p, err := s.App.People.SessionPerson(r.Context(), c.Value)
	if err != nil || p == nil {
		return nil, err
	}
	return &sessionUser{ID: p.ID, Email: p.Email, Name: p.Name}, nil
}

func (s *Server) setSiteCookie(w http.ResponseWriter, r *http.Request, value string, maxAge int) {
	http.SetCookie(w, &http.Cookie{Name: siteSessionCookie, Value: value, Path: "/", HttpOnly: true,
		SameSite: http.SameSiteLaxMode, Secure: s.secure(r), MaxAge: maxAge})
}

// startSession signs the user in (here and on the site) and renews the
// CSRF token.
func (s *Server) startSession(w http.ResponseWriter, r *http.Request, userID int64) error {
	v := kernel.NewSecret(sessionPrefix)
	now := s.now()
	_, err := s.App.DB.W.ExecContext(r.Context(), `INSERT INTO oauth_sessions(hash, user_id, created_at, expires_at) VALUES(?,?,?,?)`,
		kernel.HashSecret(v), userID, ts(now), ts(now.Add(sessionTTL)))
	if err != nil {
		return err
	}
	if old := s.cookie(r, sessionCookie); old != "" {
		s.App.DB.W.ExecContext(r.Context(), `DELETE FROM oauth_sessions WHERE hash = ?`, kernel.HashSecret(old))
	}
	s.setCookie(w, r, sessionCookie, v, int(sessionTTL/time.Second))
	s.setCookie(w, r, csrfCookie, kernel.NewSecret(""), 0)
	if c, err := r.Cookie(siteSessionCookie); err == nil {
		s.App.People.SignOut(r.Context(), c.Value) // rotated
	}
	site, err := s.App.People.StartSession(r.Context(), userID)
	if err != nil {
		return err
	}
	s.setSiteCookie(w, r, site, int(people.SessionTTL/time.Second))
	return nil
}

// endSession signs out.
func (s *Server) endSession(w http.ResponseWriter, r *http.Request) {
	if v := s.cookie(r, sessionCookie); v != "" {
		if _, err := s.App.DB.W.ExecContext(r.Context(), `DELETE FROM oauth_sessions WHERE hash = ?`, kernel.HashSecret(v)); err != nil {
			s.App.Log.Warn("oauth sign-out", "err", err)
		}
	}
	s.setCookie(w, r, sessionCookie, "", -1)
	if c, err := r.Cookie(siteSessionCookie); err == nil {
		if err := s.App.People.SignOut(r.Context(), c.Value); err != nil {
			s.App.Log.Warn("oauth sign-out (site session)", "err", err)
		}
		s.setSiteCookie(w, r, "", -1)
	}
}

// csrfToken returns the double-submit token for a form, setting the cookie
// when the browser has none. (startSession may have just replaced it: the
// pages it leads to are rendered on a new request.)
func (s *Server) csrfToken(w http.ResponseWriter, r *http.Request) string {
	if v := s.cookie(r, csrfCookie); len(v) >= 32 && len(v) <= 128 {
		return v
	}
	v := kernel.NewSecret("")
	s.setCookie(w, r, csrfCookie, v, 0)
	return v
}

func (s *Server) validCSRF(r *http.Request, token string) bool {
	c := s.cookie(r, csrfCookie)
	return c != "" && token != "" && subtle.ConstantTimeCompare([]byte(c), []byte(token)) == 1
}

func retryAfter(d time.Duration) string {
	sec := int(d.Seconds() + 0.999)
	if sec < 1 {
		sec = 1
	}
	return strconv.Itoa(sec)
}
