package people

import (
	"context"
	"crypto/sha256"
	"database/sql"
	"encoding/base64"
	"strings"
	"sync"
	"time"
	"unicode/utf8"

	"launchdir/app/kernel"
	"launchdir/db"
	"launchdir/ops"

	"golang.org/x/crypto/bcrypt"
)

// People on the site: accounts made on the site and from the command line
// are the same users rows. Every link emailed to a person carries a random
// token of which only the SHA-256 is stored (HashSecret).

// Person is an account as the site sees it.
type Person struct {
	ID        int64
	Email     string
	Name      string
	Verified  bool // email confirmed by link
	Admin     bool
	Banned    bool
	CreatedAt time.Time
}

const (
	minPassword   = 10  // characters
	maxPassword   = 200 // characters
	maxPersonName = 100
	verifyTTL     = 24 * time.Hour
	resetTTL      = time.Hour
	unsubTTL      = 365 * 24 * time.Hour
	// resetMailsPerHour bounds reset emails per address, so the form
	// cannot be used to flood someone's inbox.
	resetMailsPerHour = 3
)

// prehashed marks password hashes of bcrypt over base64(SHA-256(password)):
// bcrypt reads only 72 bytes, and passwords may have 200 characters.
// Hashes without the mark (older command-line accounts) are plain bcrypt.
const prehashed = "sha256+"

func prehash(password string) []byte {
	sum := sha256.Sum256([]byte(password))
	return []byte(base64.StdEncoding.EncodeToString(sum[:]))
}

// CheckPasswordRule applies the password rule of every door (site, CLI).
func CheckPasswordRule(password string) error {
	if n := utf8.RuneCountInString(password); n < minPassword || n > maxPassword {
		return ops.Invalid("password", "must be %d to %d characters", minPassword, maxPassword)
	}
	return nil
}

// HashPassword returns the stored form of a password (bcrypt).
func HashPassword(password string) (string, error) {
	h, err := bcrypt.GenerateFromPassword(prehash(password), bcrypt.DefaultCost)
	if err != nil {
		return "", err
	}
	return prehashed + string(h), nil
}

// PasswordMatches compares a password with a stored hash.
func PasswordMatches(hash, password string) bool {
	if h, ok := strings.CutPrefix(hash, prehashed); ok {
		return bcrypt.CompareHashAndPassword([]byte(h), prehash(password)) == nil
	}
	return bcrypt.CompareHashAndPassword([]byte(hash), []byte(password)) == nil
}

var (
	dummyOnce sync.Once
	dummyHash string
)

// CompareDummyPassword spends one bcrypt comparison, so a sign-in for an
// email without an account takes as long as one with a wrong password.
func CompareDummyPassword(password string) {
	dummyOnce.Do(func() { dummyHash, _ = HashPassword("launchdir dummy password") })
	PasswordMatches(dummyHash, password)
}

func checkName(name string) (string, error) {
	name = strings.TrimSpace(name)
	if utf8.RuneCountInString(name) > maxPersonName || strings.ContainsAny(name, "\r\n<>") {
		return "", ops.Invalid("name", "must be at most %d characters, without line breaks or < >", maxPersonName)
	}
	return name, nil
}

// newPersonToken stores a fresh emailed token and returns its secret.
func (a *Service) newPersonToken(ctx context.Context, tx *sql.Tx, kind string, userID, listingID int64, ttl time.Duration) (string, error) {
	secret := kernel.NewSecret("")
	var listing any
	if listingID > 0 {
		listing = listingID
	}
	now := a.Now().UTC()
	_, err := tx.ExecContext(ctx, `INSERT INTO person_tokens(hash, kind, user_id, listing_id, created_at, expires_at) VALUES(?,?,?,?,?,?)`,
		kernel.HashSecret(secret), kind, userID, listing, now.Format(time.RFC3339), now.Add(ttl).Format(time.RFC3339))
	return secret, err
}

// SignupRequest is a sign-up as a door receives it.
type SignupRequest struct {
	Email, Password, Name string
	IP                    string // the client's address (limits per address and network)
	Proof                 string // the solved sign-up challenge (pow.go)
}

// SignUp creates an account with a password and emails a verification link.
// When the email already has an account (made on the site, or by
// `apikey create`), nothing changes: that address is emailed a password
// reset link instead and (nil, nil) is returned, so the page shows the same
// "check your email" answer and sign-up cannot tell who has an account.
// Every sign-up spends a solved challenge and counts against its address's
// and network's daily limits, both inside the write transaction.
func (a *Service) SignUp(ctx context.Context, req SignupRequest) (*Person, error) {
	var errs []ops.FieldError
	email, err := kernel.NormEmail(req.Email)
	if err != nil {
		errs = append(errs, ops.FieldError{Field: "email", Message: "must be an email address of at most 254 characters"})
	}
	if err := CheckPasswordRule(req.Password); err != nil {
		errs = append(errs, ops.AsError(err).Fields...)
	}
	name, err := checkName(req.Name)
	if err != nil {
		errs = append(errs, ops.AsError(err).Fields...)
	}
	if len(errs) > 0 {
		return nil, ops.InvalidFields(errs)
	}
	hash, err := HashPassword(req.Password)
	if err != nil {
		return nil, err
	}
	network := Network(req.IP)
	var p *Person
	err = a.DB.Tx(ctx, func(tx *sql.Tx) error {
		if err := a.spendProof(ctx, tx, req.Proof); err != nil {
			return err
		}
		var id int64
		err := tx.QueryRowContext(ctx, `SELECT id FROM users WHERE email = ?`, email).Scan(&id)
		if err == nil {
			return a.mailReset(ctx, tx, id, email)
		}
		if !db.IsNoRows(err) {
			return err
		}
		if err := a.checkSignupLimits(ctx, tx, req.IP, network); err != nil {
			return err
		}
		now := a.Now().UTC()
		res, err := tx.ExecContext(ctx, `INSERT INTO users(email, name, password_hash, created_at, signup_ip, signup_net) VALUES(?,?,?,?,?,?)`,
			email, name, hash, now.Format(time.RFC3339), req.IP, network)
		if err != nil {
			return err
		}
		if id, err = res.LastInsertId(); err != nil {
			return err
		}
		p = &Person{ID: id, Email: email, Name: name, CreatedAt: now.Truncate(time.Second)}
		return a.mailVerify(ctx, tx, id, email)
	})
	return p, err
}

// ResendVerification emails a new verification link to an unverified account.
func (a *Service) ResendVerification(ctx context.Context, userID int64) error {
	return a.DB.Tx(ctx, func(tx *sql.Tx) error {
		var email string
		var verified sql.NullString
		if err := tx.QueryRowContext(ctx, `SELECT email, verified_at FROM users WHERE id = ?`, userID).Scan(&email, &verified); err != nil {
			return kernel.NotFound(err, "account")
		}
		if verified.Valid {
			return nil
		}
		return a.mailVerify(ctx, tx, userID, email)
	})
}

func (a *Service) mailVerify(ctx context.Context, tx *sql.Tx, userID int64, email string) error {
	tok, err := a.newPersonToken(ctx, tx, "verify", userID, 0, verifyTTL)
	if err != nil {
		return err
	}
	link := a.Origin(ctx) + "/verify/" + tok
	return a.EnqueueMessage(ctx, tx, a.LinkEmail(ctx, "verify_email", email, "Confirm your email for "+a.SiteName(ctx),
		"Welcome to "+a.SiteName(ctx)+". Confirm your email address so your votes and reviews count:",
		link, "Confirm my email", "The link works for 24 hours. If you did not sign up, ignore this email."))
}

func (a *Service) mailReset(ctx context.Context, tx *sql.Tx, userID int64, email string) error {
	var recent int
	err := tx.QueryRowContext(ctx, `SELECT count(*) FROM person_tokens WHERE user_id = ? AND kind = 'reset' AND created_at > ?`,
		userID, a.Now().UTC().Add(-time.Hour).Format(time.RFC3339)).Scan(&recent)
	if err != nil || recent >= resetMailsPerHour {
		return err // silently nothing: the answer must look the same
	}
	tok, err := a.newPersonToken(ctx, tx, "reset", userID, 0, resetTTL)
	if err != nil {
		return err
	}
	link := a.Origin(ctx) + "/reset/" + tok
	return a.EnqueueMessage(ctx, tx, a.LinkEmail(ctx, "password_reset", email, "Reset your "+a.SiteName(ctx)+" password",
		"Someone (hopefully you) asked to set a new password for your "+a.SiteName(ctx)+" account. Choose a new password here:",
		link, "Choose a new password", "The link works once, for 1 hour. If you did not ask for it, ignore this email: your password is unchanged."))
}

// useToken checks an emailed token of kind and marks it used (single use
// unless reusable). It returns the user and listing of the token.
func (a *Service) useToken(ctx context.Context, tx *sql.Tx, kind, token, field string, reusable bool) (userID, listingID int64, err error) {
	what := map[string]string{"verify": "verification link", "reset": "password reset link", "unsubscribe": "unsubscribe link"}[kind]
	if token == "" || len(token) > 200 {
		return 0, 0, ops.Invalid(field, "this %s is not valid", what)
	}
	var expires string
	var used sql.NullString
	var listing sql.NullInt64
	err = tx.QueryRowContext(ctx, `SELECT user_id, listing_id, expires_at, used_at FROM person_tokens WHERE hash = ? AND kind = ?`,
		kernel.HashSecret(token), kind).Scan(&userID, &listing, &expires, &used)
	if db.IsNoRows(err) {
		return 0, 0, ops.Invalid(field, "this %s is not valid", what)
	}
	if err != nil {
		return 0, 0, err
	}
	if used.Valid && !reusable {
		return 0, 0, ops.Invalid(field, "this %s was already used", what)
	}
	if expires <= a.NowText() {
		return 0, 0, ops.Invalid(field, "this %s has expired: ask for a new one", what)
	}
	if _, err := tx.ExecContext(ctx, `UPDATE person_tokens SET used_at = coalesce(used_at, ?) WHERE hash = ?`, a.NowText(), kernel.HashSecret(token)); err != nil {
		return 0, 0, err
	}
	return userID, listing.Int64, nil
}

// VerifyEmail confirms the address of a verification link (valid 24 h;
// opening it again after success is fine). Reviews the person already
// wrote become genuine unless they own the listing or were hidden.
func (a *Service) VerifyEmail(ctx context.Context, token string) (*Person, error) {
	var uid int64
	err := a.DB.Tx(ctx, func(tx *sql.Tx) error {
		var err error
		if uid, _, err = a.useToken(ctx, tx, "verify", token, "token", true); err != nil {
			return err
		}
		res, err := tx.ExecContext(ctx, `UPDATE users SET verified_at = ? WHERE id = ? AND verified_at IS NULL`, a.NowText(), uid)
		if err != nil {
			return err
		}
		if n, _ := res.RowsAffected(); n == 0 {
			return nil
		}
		return a.regenuineReviews(ctx, tx, uid)
	})
	if err != nil {
		return nil, err
	}
	return a.personByID(ctx, a.DB.R, uid)
}

// RequestPasswordReset emails a reset link (valid 1 h, single use). Unknown
// emails get nil too, so the form cannot tell who has an account; at most
// 3 links per account per hour are sent.
func (a *Service) RequestPasswordReset(ctx context.Context, email string) error {
	email, err := kernel.NormEmail(email)
	if err != nil {
		return err
	}
	return a.DB.Tx(ctx, func(tx *sql.Tx) error {
		var id int64
		err := tx.QueryRowContext(ctx, `SELECT id FROM users WHERE email = ?`, email).Scan(&id)
		if db.IsNoRows(err) {
			return nil
		}
		if err != nil {
			return err
		}
		return a.mailReset(ctx, tx, id, email)
	})
}

// ResetPassword sets a new password from a reset link, uses the link up and
// revokes every session of the account (and its other reset links). It
// also confirms the email: the link proves the person reads it.
func (a *Service) ResetPassword(ctx context.Context, token, newPassword string) error {
	if err := CheckPasswordRule(newPassword); err != nil {
		return err
	}
	hash, err := HashPassword(newPassword)
	if err != nil {
		return err
	}
	return a.DB.Tx(ctx, func(tx *sql.Tx) error {
		uid, _, err := a.useToken(ctx, tx, "reset", token, "token", false)
		if err != nil {
			return err
		}
		now := a.NowText()
		if _, err := tx.ExecContext(ctx, `UPDATE users SET password_hash = ? WHERE id = ?`, hash, uid); err != nil {
			return err
		}
		if _, err := tx.ExecContext(ctx, `UPDATE person_tokens SET used_at = ? WHERE user_id = ? AND kind = 'reset' AND used_at IS NULL`, now, uid); err != nil {
			return err
		}
		if err := revokeSessions(ctx, tx, uid, now); err != nil {
			return err
		}
		res, err := tx.ExecContext(ctx, `UPDATE users SET verified_at = ? WHERE id = ? AND verified_at IS NULL`, now, uid)
		if err != nil {
			return err
		}
		if n, _ := res.RowsAffected(); n > 0 {
			return a.regenuineReviews(ctx, tx, uid)
		}
		return nil
	})
}

func (a *Service) personByID(ctx context.Context, q kernel.Querier, id int64) (*Person, error) {
	return a.personWhere(ctx, q, "u.id = ?", id)
}

func (a *Service) personWhere(ctx context.Context, q kernel.Querier, where string, arg any) (*Person, error) {
	var p Person
	var verified sql.NullString
	var created string
	err := q.QueryRowContext(ctx, `SELECT u.id, u.email, u.name, u.is_admin, u.verified_at, u.created_at,
		EXISTS(SELECT 1 FROM account_bans b WHERE b.user_id = u.id) FROM users u WHERE `+where, arg).
		Scan(&p.ID, &p.Email, &p.Name, &p.Admin, &verified, &created, &p.Banned)
	if err != nil {
		return nil, kernel.NotFound(err, "account")
	}
	p.Verified = verified.Valid
	p.CreatedAt, _ = time.Parse(time.RFC3339, created)
	return &p, nil
}
