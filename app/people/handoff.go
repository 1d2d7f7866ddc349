package people

import (
	"context"
	"database/sql"
	"regexp"
	"time"

	"launchdir/app/kernel"
	"launchdir/db"
	"launchdir/ops"
)

// Cross-host sign-in. One account works on every site of the process, but
// a session cookie belongs to one host. The main site hands a person who
// is signed in there to another site with a handoff code: the other site
// first sets a secret "state" cookie in the browser and sends it to main
// with that state; main issues a code bound to the account, the target
// site and the state; the browser brings the code back, and the target
// site exchanges it, with its state cookie, for a session of its own.
//
// The code works once, for HandoffTTL, only on the site it names and only
// in the browser holding the state (so nobody can sign a victim into
// another account by sending them a link); only its hash is stored.

// HandoffTTL is how long a handoff code is good for.
const HandoffTTL = 60 * time.Second

const handoffPrefix = "ldh_"

// handoffStateRE is the shape of a state: the target site's random secret.
var handoffStateRE = regexp.MustCompile(`^[a-z0-9]{32,128}$`)

// ValidHandoffState reports whether a state has the expected shape.
func ValidHandoffState(state string) bool { return handoffStateRE.MatchString(state) }

// errHandoff is the one answer to a code that cannot be used: unknown,
// used, expired, for another site or another browser look alike, so a
// probe learns nothing.
func errHandoff() error {
	return ops.Invalid("code", "this sign-in link is not valid, was already used or has expired")
}

// IssueHandoff makes a handoff code for the account userID, signed in on
// the main site (ctx's site), to sign in on the site siteKey in the
// browser holding state.
func (a *Service) IssueHandoff(ctx context.Context, userID int64, siteKey, state string) (string, error) {
	if a.SiteKey(ctx) != kernel.MainSite {
		return "", ops.Errorf(ops.CodeForbidden, "sign-in is handed over by the main site only")
	}
	if _, ok := a.SiteByKey(ctx, siteKey); !ok || siteKey == kernel.MainSite {
		return "", ops.Invalid("to", "no other site of this server has this address")
	}
	if !ValidHandoffState(state) {
		return "", ops.Invalid("state", "the sign-in request is malformed; start again from the site")
	}
	code := kernel.NewSecret(handoffPrefix)
	now := a.Now().UTC()
	err := a.DB.Tx(ctx, func(tx *sql.Tx) error {
		// Expired codes go as new ones come: the table holds a minute's worth.
		if _, err := tx.ExecContext(ctx, `DELETE FROM signin_handoffs WHERE expires_at <= ?`, now.Format(time.RFC3339)); err != nil {
			return err
		}
		_, err := tx.ExecContext(ctx, `INSERT INTO signin_handoffs(hash, user_id, site_key, state_hash, created_at, expires_at) VALUES(?,?,?,?,?,?)`,
			kernel.HashSecret(code), userID, siteKey, kernel.HashSecret(state), now.Format(time.RFC3339), now.Add(HandoffTTL).Format(time.RFC3339))
		return err
	})
	if err != nil {
		return "", err
	}
	return code, nil
}

// RedeemHandoff exchanges a handoff code, on the site it names (ctx's) and
// with the state of the browser that asked for it, for a new session of
// its account. The code is spent whatever the outcome.
func (a *Service) RedeemHandoff(ctx context.Context, code, state string) (string, *Person, error) {
	if len(code) < len(handoffPrefix)+10 || len(code) > 200 || code[:len(handoffPrefix)] != handoffPrefix || !ValidHandoffState(state) {
		return "", nil, errHandoff()
	}
	var (
		userID             int64
		siteKey, stateHash string
		expires            string
	)
	err := a.DB.W.QueryRowContext(ctx, `DELETE FROM signin_handoffs WHERE hash = ? RETURNING user_id, site_key, state_hash, expires_at`,
		kernel.HashSecret(code)).Scan(&userID, &siteKey, &stateHash, &expires)
	if db.IsNoRows(err) {
		return "", nil, errHandoff()
	}
	if err != nil {
		return "", nil, err
	}
	if expires <= a.Now().UTC().Format(time.RFC3339) || siteKey != a.SiteKey(ctx) || stateHash != kernel.HashSecret(state) {
		return "", nil, errHandoff()
	}
	session, err := a.StartSession(ctx, userID)
	if err != nil {
		return "", nil, err
	}
	p, err := a.personByID(ctx, a.DB.W, userID)
	return session, p, err
}
