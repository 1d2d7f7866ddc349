package app_test

import (
	"fmt"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"

	"launchdir/apitest"
	"launchdir/app"
	"launchdir/app/kernel"
	"launchdir/app/people"
	"launchdir/ops"
)

// People rules on a real temporary SQLite file with the test fixture:
// quickbase (1, owner user 1) and tablely (3, owner user 1) live this week
// (2026-11-16), rankrocket (2, owner user 2) live, soonapp (5) scheduled,
// secretdraft (6) a draft. "Now" is Wednesday 2026-11-18 12:00 UTC.

type peopleEnv struct {
	*apitest.Env
	t       testing.TB
	signups int
}

// newPeopleEnv is the stack for the people rules. Its many test accounts
// at one domain voting together would be a suspected ring: ring detection
// is off here and on in the ring tests (integrity_test.go).
func newPeopleEnv(t testing.TB) *peopleEnv {
	t.Helper()
	return &peopleEnv{Env: apitest.New(t, apitest.Options{Fixture: true, Setup: func(a *app.App) { a.Cfg.VoteRingSize = -1 }}), t: t}
}

func (e *peopleEnv) count(q string, args ...any) int {
	e.t.Helper()
	var n int
	if err := e.DB.R.QueryRow(q, args...).Scan(&n); err != nil {
		e.t.Fatal(q, err)
	}
	return n
}

func (e *peopleEnv) exec(q string, args ...any) {
	e.t.Helper()
	if _, err := e.DB.W.Exec(q, args...); err != nil {
		e.t.Fatal(q, err)
	}
}

// at moves the app's clock.
func (e *peopleEnv) at(t time.Time) { e.App.Now = func() time.Time { return t } }

var linkRE = regexp.MustCompile(`/(verify|reset|unsubscribe)/([a-z0-9]+)`)

// lastLink returns the token of the newest emailed link of kind to addr.
func (e *peopleEnv) lastLink(to, kind string) string {
	e.t.Helper()
	var body string
	if err := e.DB.R.QueryRow(`SELECT body FROM outbox WHERE to_addr = ? AND body LIKE '%/' || ? || '/%' ORDER BY id DESC LIMIT 1`, to, kind).Scan(&body); err != nil {
		e.t.Fatalf("no %s email to %s: %v", kind, to, err)
	}
	for _, m := range linkRE.FindAllStringSubmatch(body, -1) {
		if m[1] == kind {
			return m[2]
		}
	}
	e.t.Fatalf("no %s link in %q", kind, body)
	return ""
}

// signUp signs up through the business layer as a door does: a solved
// sign-up challenge, and an address of its own (the per-address limits
// have their own tests).
func (e *peopleEnv) signUp(email, password, name string) (*people.Person, error) {
	e.t.Helper()
	c, err := e.App.People.NewSignupChallenge(bg)
	if err != nil {
		e.t.Fatal(err)
	}
	e.signups++
	ip := fmt.Sprintf("10.%d.%d.1", e.signups/200, e.signups%200)
	return e.App.People.SignUp(bg, people.SignupRequest{Email: email, Password: password, Name: name, IP: ip, Proof: people.SolveSignupChallenge(c)})
}

// person signs up, verifies and (aged) returns the account id and a session.
func (e *peopleEnv) person(email string, verified bool, age time.Duration) (int64, string) {
	e.t.Helper()
	p, err := e.signUp(email, "long enough password", "Pat "+strings.Split(email, "@")[0])
	if err != nil || p == nil {
		e.t.Fatalf("sign up %s: %v %v", email, p, err)
	}
	if verified {
		if _, err := e.App.People.VerifyEmail(bg, e.lastLink(email, "verify")); err != nil {
			e.t.Fatal(err)
		}
	}
	e.exec(`UPDATE users SET created_at = ? WHERE id = ?`, apitest.Now.Add(-age).Format(time.RFC3339), p.ID)
	s, _, err := e.App.People.SignIn(bg, email, "long enough password", "10.0.0.1")
	if err != nil {
		e.t.Fatal(err)
	}
	return p.ID, s
}

func wantErr(t *testing.T, what string, err error, c ops.Code, field string) {
	t.Helper()
	if err == nil {
		t.Fatalf("%s: no error, want %s", what, c)
	}
	e := ops.AsError(err)
	if e.Code != c {
		t.Fatalf("%s: %v, want %s", what, err, c)
	}
	if field != "" && (len(e.Fields) == 0 || e.Fields[0].Field != field) {
		t.Fatalf("%s: fields %+v, want %s", what, e.Fields, field)
	}
}

func TestSignUpBounds(t *testing.T) {
	e := newPeopleEnv(t)
	for _, c := range []struct {
		email, password, field string
	}{
		{"a@example.com", strings.Repeat("p", 9), "password"},
		{"b@example.com", strings.Repeat("p", 201), "password"},
		{"not an email", "long enough password", "email"},
		{"c@example.com", "long enough password\x00", ""},
	} {
		_, err := e.signUp(c.email, c.password, "")
		if c.field == "" {
			if err != nil {
				t.Errorf("%q: %v", c.password, err)
			}
			continue
		}
		wantErr(t, c.email+" "+c.password, err, ops.CodeInvalid, c.field)
	}
	for _, pw := range []string{strings.Repeat("p", 10), strings.Repeat("é", 200)} {
		email := "ok" + strconv.Itoa(len(pw)) + "@example.com"
		if _, err := e.signUp(email, pw, "Ok"); err != nil {
			t.Fatalf("%d chars: %v", len(pw), err)
		}
		// 200 two-byte characters are past bcrypt's 72 bytes: all of them count.
		if _, _, err := e.App.People.SignIn(bg, email, pw, "10.0.0.9"); err != nil {
			t.Fatalf("sign in %d chars: %v", len(pw), err)
		}
		if _, _, err := e.App.People.SignIn(bg, email, pw[:len(pw)-2]+"x", "10.0.0.9"); err == nil {
			t.Fatal("a password differing in its last character signed in")
		}
	}
	if _, err := e.signUp("n@example.com", "long enough password", strings.Repeat("n", 101)); err == nil {
		t.Fatal("101-character name accepted")
	}
}

func TestSignUpVerifySignInOut(t *testing.T) {
	e := newPeopleEnv(t)
	p, err := e.signUp("New@Example.com", "long enough password", "Nina New")
	if err != nil || p == nil || p.Verified || p.Email != "new@example.com" {
		t.Fatalf("%+v %v", p, err)
	}
	tok := e.lastLink("new@example.com", "verify")
	if n := e.count(`SELECT count(*) FROM person_tokens WHERE hash = ?`, tok); n != 0 {
		t.Fatal("raw token stored")
	}
	var html, headers string
	e.DB.R.QueryRow(`SELECT html, headers FROM outbox WHERE kind = 'verify_email'`).Scan(&html, &headers)
	if !strings.Contains(html, "/verify/"+tok) || headers != "{}" {
		t.Fatalf("html part %q headers %q", html, headers)
	}
	// The link expires after 24 hours.
	e.at(apitest.Now.Add(24*time.Hour + time.Second))
	_, err = e.App.People.VerifyEmail(bg, tok)
	wantErr(t, "expired verification", err, ops.CodeInvalid, "token")
	e.at(apitest.Now.Add(24*time.Hour - time.Second))
	if p, err = e.App.People.VerifyEmail(bg, tok); err != nil || !p.Verified {
		t.Fatalf("verify: %+v %v", p, err)
	}
	if _, err = e.App.People.VerifyEmail(bg, tok); err != nil {
		t.Fatalf("opening the link again: %v", err)
	}
	_, err = e.App.People.VerifyEmail(bg, tok+"x")
	wantErr(t, "unknown verification", err, ops.CodeInvalid, "token")

	_, _, err = e.App.People.SignIn(bg, "new@example.com", "wrong password!", "10.0.0.1")
	wantErr(t, "wrong password", err, ops.CodeInvalid, "password")
	s1, who, err := e.App.People.SignIn(bg, "NEW@example.com", "long enough password", "10.0.0.1")
	if err != nil || who.ID != p.ID || !strings.HasPrefix(s1, "lds_") {
		t.Fatalf("sign in: %q %+v %v", s1, who, err)
	}
	s2, _, _ := e.App.People.SignIn(bg, "new@example.com", "long enough password", "10.0.0.1")
	if s1 == s2 {
		t.Fatal("sign-in did not make a new session")
	}
	if n := e.count(`SELECT count(*) FROM sessions WHERE hash = ?`, kernel.HashSecret(s1)); n != 1 {
		t.Fatal("session not stored as a hash")
	}
	if got, err := e.App.People.SessionPerson(bg, s1); err != nil || got == nil || got.ID != p.ID || !got.Verified {
		t.Fatalf("session person: %+v %v", got, err)
	}
	if err := e.App.People.SignOut(bg, s1); err != nil {
		t.Fatal(err)
	}
	if got, err := e.App.People.SessionPerson(bg, s1); got != nil || err != nil {
		t.Fatalf("revoked session still works: %+v %v", got, err)
	}
	if got, _ := e.App.People.SessionPerson(bg, s2); got == nil {
		t.Fatal("signing out one session ended another")
	}
	// Sessions end after 30 days.
	e.at(apitest.Now.Add(people.SessionTTL + 48*time.Hour))
	if got, _ := e.App.People.SessionPerson(bg, s2); got != nil {
		t.Fatal("expired session still works")
	}
	for _, s := range []string{"", "lds_nothing", "garbage", strings.Repeat("x", 300)} {
		if got, err := e.App.People.SessionPerson(bg, s); got != nil || err != nil {
			t.Fatalf("%q: %+v %v", s, got, err)
		}
	}
}

// An email that already has an account (here from `apikey create`) is not
// revealed: sign-up answers the same and mails a reset link, through which
// the key holder gets a password for the same account.
func TestSignUpExistingEmail(t *testing.T) {
	e := newPeopleEnv(t)
	key := e.APIKey("keys@example.com")
	p, err := e.signUp("keys@example.com", "attacker password", "Mallory")
	if p != nil || err != nil {
		t.Fatalf("%+v %v", p, err)
	}
	if _, _, err := e.App.People.SignIn(bg, "keys@example.com", "attacker password", "10.0.0.1"); err == nil {
		t.Fatal("sign-up set a password on an existing account")
	}
	if err := e.App.People.ResetPassword(bg, e.lastLink("keys@example.com", "reset"), "owner's new password"); err != nil {
		t.Fatal(err)
	}
	_, who, err := e.App.People.SignIn(bg, "keys@example.com", "owner's new password", "10.0.0.1")
	if err != nil || !who.Verified {
		t.Fatalf("%+v %v", who, err)
	}
	if r := e.Do("GET", "/api/v1/me", nil, apitest.Bearer(key)...); r.Status != 200 || !strings.Contains(string(r.Body), `"id":`+itoa(who.ID)+`,"email":"keys@example.com"`) {
		t.Fatalf("same account: %d %s", r.Status, r.Body)
	}
}

func TestSignInRateLimit(t *testing.T) {
	e := newPeopleEnv(t)
	e.person("rl@example.com", true, 0)
	for i := 0; i < 5; i++ {
		_, _, err := e.App.People.SignIn(bg, "rl@example.com", "wrong password", "10.0.0.2")
		wantErr(t, "wrong", err, ops.CodeInvalid, "password")
	}
	_, _, err := e.App.People.SignIn(bg, "rl@example.com", "long enough password", "10.0.0.2")
	wantErr(t, "6th attempt", err, ops.CodeRateLimited, "")
	if ra := ops.AsError(err).RetryAfter; ra <= 0 || ra > 15*time.Minute {
		t.Fatalf("retry after %v", ra)
	}
	if _, _, err := e.App.People.SignIn(bg, "rl@example.com", "long enough password", "10.0.0.3"); err != nil {
		t.Fatalf("another address: %v", err)
	}
	e.at(apitest.Now.Add(15 * time.Minute))
	if _, _, err := e.App.People.SignIn(bg, "rl@example.com", "long enough password", "10.0.0.2"); err != nil {
		t.Fatalf("after the window: %v", err)
	}
	// 30 failures per address over any emails.
	for i := 0; i < 30; i++ {
		e.App.People.SignIn(bg, "x"+string(rune('a'+i%26))+string(rune('a'+i/26))+"@example.com", "wrong password", "10.0.0.4")
	}
	_, _, err = e.App.People.SignIn(bg, "rl@example.com", "long enough password", "10.0.0.4")
	wantErr(t, "31st from one address", err, ops.CodeRateLimited, "")
}

func TestPasswordReset(t *testing.T) {
	e := newPeopleEnv(t)
	_, s := e.person("reset@example.com", true, 0)
	before := e.count(`SELECT count(*) FROM outbox`)
	if err := e.App.People.RequestPasswordReset(bg, "nobody@example.com"); err != nil {
		t.Fatal(err)
	}
	if e.count(`SELECT count(*) FROM outbox`) != before {
		t.Fatal("email sent for an unknown address")
	}
	if err := e.App.People.RequestPasswordReset(bg, "reset@example.com"); err != nil {
		t.Fatal(err)
	}
	tok := e.lastLink("reset@example.com", "reset")
	// Expired after one hour.
	e.at(apitest.Now.Add(time.Hour + time.Second))
	wantErr(t, "expired reset", e.App.People.ResetPassword(bg, tok, "a new password 1"), ops.CodeInvalid, "token")
	e.at(apitest.Now.Add(time.Hour - time.Second))
	wantErr(t, "short password", e.App.People.ResetPassword(bg, tok, "short"), ops.CodeInvalid, "password")
	if err := e.App.People.ResetPassword(bg, tok, "a new password 1"); err != nil {
		t.Fatal(err)
	}
	wantErr(t, "reused reset", e.App.People.ResetPassword(bg, tok, "a new password 2"), ops.CodeInvalid, "token")
	if p, _ := e.App.People.SessionPerson(bg, s); p != nil {
		t.Fatal("session survived a password reset")
	}
	if _, _, err := e.App.People.SignIn(bg, "reset@example.com", "long enough password", "10.0.0.5"); err == nil {
		t.Fatal("old password still works")
	}
	if _, _, err := e.App.People.SignIn(bg, "reset@example.com", "a new password 1", "10.0.0.5"); err != nil {
		t.Fatal(err)
	}
	// At most 3 reset emails per account per hour.
	for i := 0; i < 5; i++ {
		e.App.People.RequestPasswordReset(bg, "reset@example.com")
	}
	if n := e.count(`SELECT count(*) FROM outbox WHERE kind = 'password_reset' AND to_addr = 'reset@example.com'`); n != 3 {
		t.Fatalf("%d reset emails in an hour", n)
	}
}

func itoa(n int64) string { return strconv.FormatInt(n, 10) }
