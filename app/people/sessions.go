package people

import (
	"context"
	"database/sql"
	"fmt"
	"strings"
	"sync"
	"time"

	"launchdir/app/kernel"
	"launchdir/db"
	"launchdir/ops"
)

// Site sessions: the cookie holds a random secret (prefix lds_); the
// database holds its SHA-256. Sign-in always makes a new session (the site
// rotates the cookie); sign-out and password resets revoke server-side.

const (
	sessionPrefix = "lds_"
	// SessionTTL is how long a site session lasts (the cookie's Max-Age).
	SessionTTL = 30 * 24 * time.Hour
)

// Failed sign-ins (site and OAuth pages share the counters): 5 per
// email+address and 30 per address in 15 minutes.
const (
	signinWindow      = 15 * time.Minute
	maxSigninFailsKey = 5
	maxSigninFailsIP  = 30
)

// Vote rate limits: toggles per account and per address in 10 minutes.
const (
	voteWindow        = 10 * time.Minute
	maxVotesPerUser   = 30
	maxVotesPerIP     = 60
	defaultVoteMinAge = 24 * time.Hour
)

// peopleRuntime holds the in-memory rate-limit windows.
type peopleRuntime struct {
	signins *windowLimiter
	votes   *windowLimiter
}

func newPeopleRuntime() *peopleRuntime {
	return &peopleRuntime{signins: newWindowLimiter(signinWindow), votes: newWindowLimiter(voteWindow)}
}

// windowLimiter counts events per key in fixed windows.
type windowLimiter struct {
	mu     sync.Mutex
	window time.Duration
	m      map[string]*window
}

type window struct {
	n     int
	start time.Time
}

func newWindowLimiter(d time.Duration) *windowLimiter {
	return &windowLimiter{window: d, m: map[string]*window{}}
}

// limitKey is one counter a reservation must fit under.
type limitKey struct {
	key   string
	limit int
}

// reserve counts one event on every key at once, or on none: if any key
// is at its limit it returns how long until that key frees up. Checking
// and counting under one lock is what makes the limit hold when 30
// requests arrive together (checking first and counting after the work
// let 19 of 31 parallel attempts through a limit of 5).
func (l *windowLimiter) reserve(now time.Time, keys ...limitKey) time.Duration {
	l.mu.Lock()
	defer l.mu.Unlock()
	var wait time.Duration
	for _, k := range keys {
		if w := l.m[k.key]; w != nil && now.Sub(w.start) < l.window && w.n >= k.limit {
			wait = max(wait, w.start.Add(l.window).Sub(now))
		}
	}
	if wait > 0 {
		return wait
	}
	if len(l.m) > 100000 { // bounded: drop finished windows
		for k, w := range l.m {
			if now.Sub(w.start) >= l.window {
				delete(l.m, k)
			}
		}
	}
	for _, k := range keys {
		w := l.m[k.key]
		if w == nil || now.Sub(w.start) >= l.window {
			w = &window{start: now}
			l.m[k.key] = w
		}
		w.n++
	}
	return 0
}

// release gives back one reserved event of each key.
func (l *windowLimiter) release(keys ...limitKey) {
	l.mu.Lock()
	defer l.mu.Unlock()
	for _, k := range keys {
		if w := l.m[k.key]; w != nil && w.n > 0 {
			w.n--
		}
	}
}

func (l *windowLimiter) reset(key string) {
	l.mu.Lock()
	defer l.mu.Unlock()
	delete(l.m, key)
}

func rateLimited(wait time.Duration, format string, args ...any) *ops.Error {
	if wait < time.Second {
		wait = time.Second
	}
	mins := int((wait + time.Minute - 1) / time.Minute)
	return &ops.Error{Code: ops.CodeRateLimited, RetryAfter: wait,
		Detail: fmt.Sprintf(format, args...) + fmt.Sprintf(" Try again in %d minute%s.", mins, map[bool]string{true: "", false: "s"}[mins == 1])}
}

// ReserveSignin counts a sign-in attempt for email from ip as failed
// before the password is checked, or refuses it (a rate_limited error with
// the wait) when the email+address or the address is at its limit. Every
// door that checks passwords (the site, the OAuth sign-in page) calls it,
// so they share one set of counters. The caller reports the outcome to
// done: a right password gives the address's count back and clears the
// email+address count; a wrong one stays counted.
func (a *Service) ReserveSignin(email, ip string) (done func(ok bool), err error) {
	email = strings.ToLower(strings.TrimSpace(email))
	ipKey := limitKey{"ip:" + ip, maxSigninFailsIP}
	userKey := limitKey{"user:" + email + "|" + ip, maxSigninFailsKey}
	if wait := a.runtime.signins.reserve(a.Now(), ipKey, userKey); wait > 0 {
		return nil, rateLimited(wait, "Too many failed sign-ins.")
	}
	return func(ok bool) {
		if ok {
			a.runtime.signins.release(ipKey)
			a.runtime.signins.reset(userKey.key)
		}
	}, nil
}

// CheckCredentials returns the account id when the password is right, 0
// when not. Unknown emails cost a bcrypt comparison too.
func (a *Service) CheckCredentials(ctx context.Context, email, password string) (int64, error) {
	var id int64
	var hash sql.NullString
	err := a.DB.R.QueryRowContext(ctx, `SELECT id, password_hash FROM users WHERE email = ?`, strings.ToLower(strings.TrimSpace(email))).Scan(&id, &hash)
	if err != nil && !db.IsNoRows(err) {
		return 0, err
	}
	if !hash.Valid || hash.String == "" {
		CompareDummyPassword(password)
		return 0, nil
	}
	if !PasswordMatches(hash.String, password) {
		return 0, nil
	}
	return id, nil
}

// SignIn checks email and password and starts a new session, returning its
// secret for the cookie. Wrong credentials are one error naming the
// password field (no hint which part was wrong); failures are rate-limited.
func (a *Service) SignIn(ctx context.Context, email, password, ip string) (string, *Person, error) {
	if strings.TrimSpace(email) == "" || password == "" || len(email) > 254 || len(password) > 1024 {
		return "", nil, ops.Invalid("password", "enter your email and password")
	}
	done, err := a.ReserveSignin(email, ip)
	if err != nil {
		return "", nil, err
	}
	id, err := a.CheckCredentials(ctx, email, password)
	done(err == nil && id != 0)
	if err != nil {
		return "", nil, err
	}
	if id == 0 {
		return "", nil, ops.Invalid("password", "the email or password is not correct")
	}
	session, err := a.StartSession(ctx, id)
	if err != nil {
		return "", nil, err
	}
	p, err := a.personByID(ctx, a.DB.W, id)
	return session, p, err
}

// StartSession makes a new session for an account (site and OAuth pages).
func (a *Service) StartSession(ctx context.Context, userID int64) (string, error) {
	secret := kernel.NewSecret(sessionPrefix)
	now := a.Now().UTC()
	_, err := a.DB.W.ExecContext(ctx, `INSERT INTO sessions(hash, user_id, created_at, expires_at) VALUES(?,?,?,?)`,
		kernel.HashSecret(secret), userID, now.Format(time.RFC3339), now.Add(SessionTTL).Format(time.RFC3339))
	if err != nil {
		return "", err
	}
	return secret, nil
}

// SessionPerson returns the account of a live session, or nil, nil when
// the session is absent, expired or revoked.
func (a *Service) SessionPerson(ctx context.Context, session string) (*Person, error) {
	if !strings.HasPrefix(session, sessionPrefix) || len(session) > 200 {
		return nil, nil
	}
	p, err := a.personWhere(ctx, a.DB.R, `u.id = (SELECT s.user_id FROM sessions s WHERE s.hash = ? AND s.revoked_at IS NULL AND s.expires_at > '`+
		a.NowText()+`')`, kernel.HashSecret(session))
	if e := ops.AsError(err); err != nil && e.Code == ops.CodeNotFound {
		return nil, nil
	}
	return p, err
}

// SignOut revokes a session (server-side: the cookie stops working even if
// kept). Unknown sessions are fine.
func (a *Service) SignOut(ctx context.Context, session string) error {
	if session == "" {
		return nil
	}
	_, err := a.DB.W.ExecContext(ctx, `UPDATE sessions SET revoked_at = ? WHERE hash = ? AND revoked_at IS NULL`, a.NowText(), kernel.HashSecret(session))
	return err
}

func revokeSessions(ctx context.Context, tx *sql.Tx, userID int64, now string) error {
	_, err := tx.ExecContext(ctx, `UPDATE sessions SET revoked_at = ? WHERE user_id = ? AND revoked_at IS NULL`, now, userID)
	return err
}

// PurgeSessions deletes expired sessions and tokens (hourly job).
func (a *Service) PurgeSessions(ctx context.Context) error {
	now := a.NowText()
	if _, err := a.DB.W.ExecContext(ctx, `DELETE FROM sessions WHERE expires_at <= ?`, now); err != nil {
		return err
	}
	_, err := a.DB.W.ExecContext(ctx, `DELETE FROM person_tokens WHERE expires_at <= ?`, now)
	return err
}
