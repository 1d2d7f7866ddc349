package people

import (
	"context"
	"crypto/hmac"
	"crypto/rand"
	"crypto/sha256"
	"database/sql"
	"encoding/base64"
	"encoding/hex"
	"encoding/json"
	"math/big"
	"net/url"
	"strconv"
	"strings"
	"time"

	"launchdir/ops"
)

// The sign-up challenge is a proof of work in the published ALTCHA scheme
// (altcha.org), served and checked here: no third-party service, no
// cookie, nothing about the person leaves the site. The server picks a
// secret number n up to MaxNumber and sends SHA-256(salt + n) with an HMAC
// of it; the browser tries numbers until the hash matches (about a second
// on a phone) and sends the solution with the form. One solution costs the
// sender MaxNumber/2 hashes on average and the server one HMAC and one
// hash to check; each challenge is spent once and expires.
//
// The official Go library (altcha-lib-go) is not reachable from this
// project's module proxy, so the scheme is implemented here with
// crypto/hmac; the payload and fields are ALTCHA's, so its widget works
// against this server unchanged.
const (
	powAlgorithm = "SHA-256"
	powMaxNumber = 50000
	powTTL       = 20 * time.Minute
)

// SignupChallenge is what the sign-up form carries for the browser.
type SignupChallenge struct {
	Algorithm string `json:"algorithm"`
	Challenge string `json:"challenge"`
	MaxNumber int    `json:"maxnumber"`
	Salt      string `json:"salt"`
	Signature string `json:"signature"`
}

// powSolution is the browser's answer (base64 of this JSON).
type powSolution struct {
	Algorithm string `json:"algorithm"`
	Challenge string `json:"challenge"`
	Number    int    `json:"number"`
	Salt      string `json:"salt"`
	Signature string `json:"signature"`
}

// powKey is the HMAC key (made by migration 0017, same on replicas).
func (a *Service) powKey(ctx context.Context) ([]byte, error) {
	var k []byte
	err := a.DB.R.QueryRowContext(ctx, `SELECT k FROM signup_pow_key LIMIT 1`).Scan(&k)
	return k, err
}

func powHash(salt string, n int) string {
	h := sha256.Sum256([]byte(salt + strconv.Itoa(n)))
	return hex.EncodeToString(h[:])
}

func powSign(key []byte, challenge string) string {
	m := hmac.New(sha256.New, key)
	m.Write([]byte(challenge))
	return hex.EncodeToString(m.Sum(nil))
}

// NewSignupChallenge makes a fresh challenge for the sign-up form.
func (a *Service) NewSignupChallenge(ctx context.Context) (SignupChallenge, error) {
	key, err := a.powKey(ctx)
	if err != nil {
		return SignupChallenge{}, err
	}
	n, err := rand.Int(rand.Reader, big.NewInt(powMaxNumber+1))
	if err != nil {
		return SignupChallenge{}, err
	}
	b := make([]byte, 12)
	rand.Read(b)
	salt := hex.EncodeToString(b) + "?expires=" + strconv.FormatInt(a.Now().Add(powTTL).Unix(), 10)
	c := powHash(salt, int(n.Int64()))
	return SignupChallenge{Algorithm: powAlgorithm, Challenge: c, MaxNumber: powMaxNumber, Salt: salt, Signature: powSign(key, c)}, nil
}

// SolveSignupChallenge finds the number of a challenge, as the browser
// does (tests and command-line clients).
func SolveSignupChallenge(c SignupChallenge) string {
	for n := 0; n <= c.MaxNumber; n++ {
		if powHash(c.Salt, n) == c.Challenge {
			b, _ := json.Marshal(powSolution{Algorithm: c.Algorithm, Challenge: c.Challenge, Number: n, Salt: c.Salt, Signature: c.Signature})
			return base64.StdEncoding.EncodeToString(b)
		}
	}
	return ""
}

var errNoProof = ops.Invalid("altcha", "the anti-robot check did not complete: let the page finish its check (it needs JavaScript, about a second), then send the form again")

// spendProof checks a solution and spends its challenge inside the
// sign-up transaction, so one solution makes at most one account however
// many requests carry it at once.
func (a *Service) spendProof(ctx context.Context, tx *sql.Tx, payload string) error {
	if payload == "" || len(payload) > 2000 {
		return errNoProof
	}
	raw, err := base64.StdEncoding.DecodeString(payload)
	var s powSolution
	if err != nil || json.Unmarshal(raw, &s) != nil || s.Algorithm != powAlgorithm || s.Number < 0 || s.Number > powMaxNumber {
		return errNoProof
	}
	key, err := a.powKey(ctx)
	if err != nil {
		return err
	}
	if !hmac.Equal([]byte(powSign(key, s.Challenge)), []byte(s.Signature)) || powHash(s.Salt, s.Number) != s.Challenge {
		return errNoProof
	}
	_, params, _ := strings.Cut(s.Salt, "?")
	q, _ := url.ParseQuery(params)
	exp, err := strconv.ParseInt(q.Get("expires"), 10, 64)
	now := a.Now()
	if err != nil || now.Unix() > exp {
		return ops.Invalid("altcha", "the anti-robot check expired: reload the page and send the form again")
	}
	if _, err := tx.ExecContext(ctx, `DELETE FROM signup_pow_spent WHERE expires_at < ?`, now.UTC().Format(time.RFC3339)); err != nil {
		return err
	}
	res, err := tx.ExecContext(ctx, `INSERT INTO signup_pow_spent(challenge, expires_at) VALUES(?, ?) ON CONFLICT DO NOTHING`,
		s.Challenge, time.Unix(exp, 0).UTC().Format(time.RFC3339))
	if err != nil {
		return err
	}
	if n, _ := res.RowsAffected(); n == 0 {
		return ops.Invalid("altcha", "this anti-robot check was already used: reload the page and send the form again")
	}
	return nil
}
