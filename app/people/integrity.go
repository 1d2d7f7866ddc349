package people

import (
	"context"
	"database/sql"
	"fmt"
	"net/netip"
	"strconv"
	"strings"
	"time"

	"launchdir/app/kernel"
	"launchdir/ops"
)

// Vote integrity: the rules that keep sock-puppet accounts from moving the
// boards (README, "Votes that count").
//
//   - Sign-up: at most signupsPerAddress accounts per address and
//     signupsPerNetwork per network (IPv4 /24, IPv6 /48) in 24 hours,
//     counted inside the sign-up's write transaction (so they hold under
//     parallel requests), and a proof of work on the form (pow.go).
//   - A vote is held (stored, not counted) when the account's email
//     domain is a known disposable-mail domain, or when the account is
//     one of a suspected ring: ringSize or more accounts voting for the
//     same listing within ringWindow that share a network (of the vote or
//     of the sign-up) or a private email domain (a catch-all domain) AND
//     were created within ringCreated of each other (or verified within
//     ringVerified). When a ring forms, the votes its members already
//     cast on the listing that week are held too.
//   - Held votes wait for the site team (Admin → Suspected rings): one
//     action discounts the ring (the votes stay uncounted), another counts
//     its votes after all.
const (
	signupsPerAddress = 5
	signupsPerNetwork = 20
	signupWindow      = 24 * time.Hour
	ringSize          = 3
	ringWindow        = time.Hour
	ringCreated       = 7 * 24 * time.Hour
	ringVerified      = time.Hour
)

// Network is the network an address belongs to for the limits: its IPv4
// /24 or IPv6 /48 ("" when ip is not an address).
func Network(ip string) string {
	a, err := netip.ParseAddr(ip)
	if err != nil {
		return ""
	}
	a = a.Unmap()
	bits := 48
	if a.Is4() {
		bits = 24
	}
	p, _ := a.Prefix(bits)
	return p.String()
}

// limit returns a configured bound: 0 means def, negative means off.
func limit(configured, def int) int {
	if configured == 0 {
		return def
	}
	return configured
}

// checkSignupLimits refuses a sign-up from an address or network that made
// its share of accounts in the last 24 hours. It runs inside the sign-up's
// write transaction: SQLite runs one at a time, so the count and the new
// row cannot interleave with another sign-up's.
func (a *Service) checkSignupLimits(ctx context.Context, tx *sql.Tx, ip, network string) error {
	since := a.Now().UTC().Add(-signupWindow).Format(time.RFC3339)
	checks := []struct {
		col, val string
		max      int
		what     string
	}{
		{"signup_ip", ip, limit(a.Cfg.SignupsPerAddress, signupsPerAddress), "your network address"},
		{"signup_net", network, limit(a.Cfg.SignupsPerNetwork, signupsPerNetwork), "your network"},
	}
	for _, c := range checks {
		if c.val == "" || c.max < 0 {
			continue
		}
		var n int
		var oldest string
		if err := tx.QueryRowContext(ctx, `SELECT count(*), coalesce(min(created_at), '') FROM users WHERE `+c.col+` = ? AND created_at > ?`,
			c.val, since).Scan(&n, &oldest); err != nil {
			return err
		}
		if n >= c.max {
			wait := time.Hour
			if t, err := time.Parse(time.RFC3339, oldest); err == nil {
				wait = t.Add(signupWindow).Sub(a.Now())
			}
			e := rateLimited(wait, "%d accounts were made from %s in the last 24 hours, the most we allow.", n, c.what)
			e.Fields = []ops.FieldError{{Field: "email", Message: "too many new accounts from " + c.what + " today"}}
			return e
		}
	}
	return nil
}

// emailDomain is the part after the @, lower case.
func emailDomain(email string) string {
	_, d, _ := strings.Cut(strings.ToLower(email), "@")
	return d
}

// ringFor decides whether a vote being cast by userID on listingID joins a
// suspected ring, and returns the ring's id (0: the vote counts). It runs
// in the vote's transaction; holding the votes the ring's members cast
// before it formed is part of it.
func (a *Service) ringFor(ctx context.Context, tx *sql.Tx, userID, listingID int64, week, network string) (int64, error) {
	var u ringVoter
	if err := a.DB.Prepared(tx).QueryRowContext(ctx, `SELECT email, created_at, verified_at, signup_net FROM users WHERE id = ?`, userID).
		Scan(&u.email, &u.created, &u.verified, &u.signupNet); err != nil {
		return 0, err
	}
	domain := emailDomain(u.email)
	if disposableDomains[domain] {
		return a.ring(ctx, tx, listingID, week, "accounts at the disposable email domain "+domain, nil)
	}
	size := limit(a.Cfg.VoteRingSize, ringSize)
	if size < 0 {
		return 0, nil
	}
	rows, err := a.DB.Prepared(tx).QueryContext(ctx, ringPeersSQL, ringArgs(u, userID, listingID, week, network, a.Now())...)
	if err != nil {
		return 0, err
	}
	var peers []ringPeer
	for rows.Next() {
		var p ringPeer
		if err := rows.Scan(&p.userID, &p.counted, &p.ringID); err != nil {
			rows.Close()
			return 0, err
		}
		peers = append(peers, p)
	}
	rows.Close()
	if err := rows.Err(); err != nil || len(peers)+1 < size {
		return 0, err
	}
	signal := fmt.Sprintf("%d or more accounts created within %d days of each other voting within %d minutes, sharing a network (%s) or an email domain (%s)",
		size, int(ringCreated.Hours()/24), int(ringWindow.Minutes()), firstNonEmpty(network, u.signupNet), domain)
	return a.ring(ctx, tx, listingID, week, signal, peers)
}

// ringVoter is what ringFor reads of the account casting a vote.
type ringVoter struct {
	email, created, signupNet string
	verified                  sql.NullString
}

// ringArgs are ringPeersSQL's values for a vote by u (userID) on
// listingID in week from network, at now.
func ringArgs(u ringVoter, userID, listingID int64, week, network string, now time.Time) []any {
	// A private domain links accounts (one catch-all domain makes any
	// number of addresses); a public mailbox provider does not.
	linkDomain := emailDomain(u.email)
	if publicMailDomains[linkDomain] {
		linkDomain = "\x00"
	}
	cLo, cHi := aroundText(u.created, ringCreated)
	vLo, vHi := aroundText(u.verified.String, ringVerified)
	return []any{listingID, week, strconv.FormatInt(userID, 10), now.UTC().Add(-ringWindow).Format(time.RFC3339), network, u.signupNet, linkDomain,
		u.created, ringCreated.Seconds(), u.verified.String, ringVerified.Seconds(), cLo, cHi, vLo, vHi}
}

// ringPeersSQL finds the accounts a vote on listing ?1 in week ?2 by ?3
// would form a ring with: accounts other than ?3 that voted for the
// listing that week since ?4, linked to ?3 by the vote's network ?5, a
// sign-up network (?5 or ?3's own, ?6) or the private email domain ?7,
// and made within ?9 seconds of ?3 (made at ?8) or confirmed within ?11
// seconds of ?3 (confirmed at ?10).
//
// Each link is looked up through an index of its own (migration 0028):
// the vote's network among the listing's votes, the sign-up network and
// the email domain among accounts made (?12..?13) or confirmed
// (?14..?15) in a window a day wider than the rule's, compared as text.
// The rule itself is the final WHERE, exactly as written: the windows only
// choose which accounts it is tried on, so a timestamp in another format
// cannot change the answer, only be tried. Values compared with indexed
// columns are CASTs: a plain "?" there makes SQLite plan the statement
// again for each value (db.IntArg); the domain is a subquery instead, as
// an expression index has no affinity and a CAST's would keep the index
// from being used. CROSS JOIN keeps the candidates the outer loop: left
// to itself the planner scanned the listing's votes again.
const ringPeersSQL = `WITH cand(id) AS (
		SELECT voter FROM votes INDEXED BY votes_listing_net
			WHERE listing_id = CAST(?1 AS INTEGER) AND week = CAST(?2 AS TEXT) AND net = CAST(?5 AS TEXT) AND net <> ''
			AND created_at >= CAST(?4 AS TEXT)
		UNION SELECT CAST(id AS TEXT) FROM users INDEXED BY users_signup_net
			WHERE signup_net IN (CAST(?5 AS TEXT), CAST(?6 AS TEXT)) AND signup_net <> ''
			AND created_at BETWEEN CAST(?12 AS TEXT) AND CAST(?13 AS TEXT)
		UNION SELECT CAST(id AS TEXT) FROM users INDEXED BY users_signup_net_verified
			WHERE signup_net IN (CAST(?5 AS TEXT), CAST(?6 AS TEXT)) AND signup_net <> '' AND verified_at IS NOT NULL
			AND verified_at BETWEEN CAST(?14 AS TEXT) AND CAST(?15 AS TEXT)
		UNION SELECT CAST(id AS TEXT) FROM users INDEXED BY users_email_domain
			WHERE lower(substr(email, instr(email, '@') + 1)) = (SELECT ?7)
			AND created_at BETWEEN CAST(?12 AS TEXT) AND CAST(?13 AS TEXT)
		UNION SELECT CAST(id AS TEXT) FROM users INDEXED BY users_email_domain_verified
			WHERE lower(substr(email, instr(email, '@') + 1)) = (SELECT ?7) AND verified_at IS NOT NULL
			AND verified_at BETWEEN CAST(?14 AS TEXT) AND CAST(?15 AS TEXT))
	SELECT u.id, v.counted, coalesce(v.ring_id, 0) FROM cand c
		CROSS JOIN votes v ON v.listing_id = CAST(?1 AS INTEGER) AND v.voter = c.id AND v.week = CAST(?2 AS TEXT)
		CROSS JOIN users u ON u.id = v.voter
	WHERE v.voter <> ?3 AND v.created_at >= ?4
		AND ((v.net <> '' AND v.net = ?5) OR (u.signup_net <> '' AND u.signup_net IN (?5, ?6)) OR lower(substr(u.email, instr(u.email, '@') + 1)) = ?7)
		AND (abs(julianday(u.created_at) - julianday(?8)) * 86400 <= ?9
			OR (u.verified_at IS NOT NULL AND ?10 <> '' AND abs(julianday(u.verified_at) - julianday(?10)) * 86400 <= ?11))`

// aroundText is the text range of RFC 3339 times within d and a day of
// at: a day wider than d, so times written with another offset or
// separator still fall inside. An empty at gives an empty range; one
// that does not parse gives every time.
func aroundText(at string, d time.Duration) (lo, hi string) {
	if at == "" {
		return "~", ""
	}
	t, err := time.Parse(time.RFC3339, at)
	if err != nil {
		return "", "~"
	}
	d += 24 * time.Hour
	return t.Add(-d).UTC().Format(time.RFC3339), t.Add(d).UTC().Format(time.RFC3339)
}

type ringPeer struct {
	userID, ringID int64
	counted        bool
}

func firstNonEmpty(s ...string) string {
	for _, v := range s {
		if v != "" {
			return v
		}
	}
	return "unknown"
}

// ring finds the open ring of the listing and week the peers are held in
// (or one with the same signal), or opens one, and holds the peers' votes
// in it.
func (a *Service) ring(ctx context.Context, tx *sql.Tx, listingID int64, week, signal string, peers []ringPeer) (int64, error) {
	var id int64
	for _, p := range peers {
		if p.ringID != 0 {
			id = p.ringID
			break
		}
	}
	if id == 0 {
		err := tx.QueryRowContext(ctx, `SELECT id FROM vote_rings WHERE listing_id = ? AND week = ? AND signal = ? AND status = 'open'`,
			listingID, week, signal).Scan(&id)
		if err != nil && err != sql.ErrNoRows {
			return 0, err
		}
	}
	if id == 0 {
		res, err := tx.ExecContext(ctx, `INSERT INTO vote_rings(listing_id, week, signal, created_at) VALUES(?,?,?,?)`, listingID, week, signal, a.NowText())
		if err != nil {
			return 0, err
		}
		if id, err = res.LastInsertId(); err != nil {
			return 0, err
		}
	}
	for _, p := range peers {
		if p.ringID == id || !p.counted {
			continue // already held here, or never counted (too new, unverified)
		}
		if _, err := tx.ExecContext(ctx, `UPDATE votes SET counted = 0, ring_id = ? WHERE listing_id = ? AND week = ? AND voter = ?`,
			id, listingID, week, strconv.FormatInt(p.userID, 10)); err != nil {
			return 0, err
		}
		if p.counted {
			if err := countVote(ctx, tx, listingID, week, -1); err != nil {
				return 0, err
			}
		}
	}
	return id, nil
}

// Ring is a suspected ring as the site team sees it.
type Ring struct {
	ID          int64
	ListingID   int64
	ListingName string
	ListingSlug string
	Week        string
	Signal      string
	Status      string
	Members     int
	Addresses   int // distinct vote addresses
	FirstVote   string
	LastVote    string
	CreatedAt   string
}

// Rings lists suspected rings, open ones first, newest first.
func (a *Service) Rings(ctx context.Context, limit int) ([]Ring, error) {
	rows, err := a.DB.R.QueryContext(ctx, `SELECT r.id, r.listing_id, l.name, l.slug, r.week, r.signal, r.status, r.created_at,
		count(v.voter), count(DISTINCT v.ip), coalesce(min(v.created_at), ''), coalesce(max(v.created_at), '')
		FROM vote_rings r JOIN listings l ON l.id = r.listing_id LEFT JOIN votes v ON v.ring_id = r.id
		GROUP BY r.id ORDER BY r.status = 'open' DESC, r.id DESC LIMIT ?`, limit)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var out []Ring
	for rows.Next() {
		var r Ring
		if err := rows.Scan(&r.ID, &r.ListingID, &r.ListingName, &r.ListingSlug, &r.Week, &r.Signal, &r.Status, &r.CreatedAt,
			&r.Members, &r.Addresses, &r.FirstVote, &r.LastVote); err != nil {
			return nil, err
		}
		out = append(out, r)
	}
	return out, rows.Err()
}

// ReviewRingTx settles an open ring inside the caller's transaction (the
// admin domain's, with its audit entry): "discount" keeps its votes
// uncounted for good; "count" counts them after all. It returns how many
// votes the ring holds.
func (a *Service) ReviewRingTx(ctx context.Context, tx *sql.Tx, adminID, ringID int64, action string) (int, error) {
	if action != "discount" && action != "count" {
		return 0, ops.Invalid("action", "must be discount or count")
	}
	var listingID int64
	var status string
	err := tx.QueryRowContext(ctx, `SELECT listing_id, status FROM vote_rings WHERE id = ?`, ringID).Scan(&listingID, &status)
	if err != nil {
		return 0, kernel.NotFound(err, "ring")
	}
	if status != "open" {
		return 0, &ops.Error{Code: ops.CodeConflict, Detail: "this ring was already reviewed (" + status + ")"}
	}
	newStatus := map[string]string{"discount": "discounted", "count": "counted"}[action]
	if _, err := tx.ExecContext(ctx, `UPDATE vote_rings SET status = ?, reviewed_by = ?, reviewed_at = ? WHERE id = ?`,
		newStatus, adminID, a.NowText(), ringID); err != nil {
		return 0, err
	}
	rows, err := tx.QueryContext(ctx, `SELECT week FROM votes WHERE ring_id = ? AND NOT counted`, ringID)
	if err != nil {
		return 0, err
	}
	var weeks []string
	for rows.Next() {
		var w string
		if err := rows.Scan(&w); err != nil {
			rows.Close()
			return 0, err
		}
		weeks = append(weeks, w)
	}
	rows.Close()
	if action == "discount" {
		return len(weeks), rows.Err()
	}
	// Counting: each held vote counts in the week it was cast.
	if _, err := tx.ExecContext(ctx, `UPDATE votes SET counted = 1 WHERE ring_id = ? AND NOT counted`, ringID); err != nil {
		return 0, err
	}
	for _, w := range weeks {
		if err := countVote(ctx, tx, listingID, w, +1); err != nil {
			return 0, err
		}
	}
	return len(weeks), nil
}
