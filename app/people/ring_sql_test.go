package people

import (
	"context"
	"database/sql"
	"fmt"
	"math/rand/v2"
	"path/filepath"
	"slices"
	"testing"
	"time"

	"launchdir/db"
)

// ringScanSQL is the rule as it was written before migration 0028: every
// vote on the listing in the window, each voter's account tried. It is the
// oracle ringPeersSQL must agree with.
const ringScanSQL = `SELECT u.id, v.counted, coalesce(v.ring_id, 0) FROM votes v JOIN users u ON u.id = v.voter
	WHERE v.listing_id = ?1 AND v.week = ?2 AND v.voter <> ?3 AND v.created_at >= ?4
	AND ((v.net <> '' AND v.net = ?5) OR (u.signup_net <> '' AND u.signup_net IN (?5, ?6)) OR lower(substr(u.email, instr(u.email, '@') + 1)) = ?7)
	AND (abs(julianday(u.created_at) - julianday(?8)) * 86400 <= ?9
		OR (u.verified_at IS NOT NULL AND ?10 <> '' AND abs(julianday(u.verified_at) - julianday(?10)) * 86400 <= ?11))`

// The indexed lookups find exactly the accounts the scan of the listing's
// votes finds, for every account of a random population built to sit on
// the rule's edges: accounts made exactly 7 days apart and one second more,
// confirmed exactly an hour apart and one second more, votes exactly at
// the window's start and one second before, times written with an offset
// or a space, catch-all and public mail domains, visitors' votes.
func TestRingPeersMatchTheScan(t *testing.T) {
	d, ctx := ringDB(t)
	now := time.Date(2026, 11, 26, 12, 0, 0, 0, time.UTC)
	base := now.Add(-10 * 24 * time.Hour)
	r := rand.New(rand.NewPCG(7, 26))
	nets := []string{"203.0.113.0/24", "198.51.100.0/24", "192.0.2.0/24", ""}
	domains := []string{"gmail.com", "catchall.example", "Other.Example", "outlook.com"}
	// Offsets from base on the rule's edges, in seconds.
	edges := []int64{0, 7 * 86400, 7*86400 + 1, 3600, 3601, 86400, 8 * 86400, 8*86400 + 1}
	format := func(t time.Time) string {
		switch r.IntN(6) {
		case 0:
			return t.In(time.FixedZone("", 2*3600)).Format(time.RFC3339)
		case 1:
			return t.UTC().Format("2006-01-02 15:04:05")
		default:
			return t.UTC().Format(time.RFC3339)
		}
	}
	const users, week = 160, "2026-11-23"
	for id := 1; id <= users; id++ {
		created := base.Add(time.Duration(edges[r.IntN(len(edges))]+r.Int64N(4)*86400) * time.Second)
		var verified any
		if r.IntN(3) > 0 {
			verified = format(base.Add(time.Duration(edges[r.IntN(len(edges))]) * time.Second))
		}
		email := fmt.Sprintf("u%d@%s", id, domains[r.IntN(len(domains))])
		if _, err := d.W.ExecContext(ctx, `INSERT INTO users(id, email, created_at, verified_at, signup_net) VALUES(?,?,?,?,?)`,
			id, email, format(created), verified, nets[r.IntN(len(nets))]); err != nil {
			t.Fatal(err)
		}
	}
	votesAt := []time.Duration{-ringWindow, -ringWindow - time.Second, -time.Minute, -2 * time.Hour, 0}
	for listing := int64(1); listing <= 3; listing++ {
		for id := 1; id <= users; id++ {
			if r.IntN(2) == 0 {
				continue
			}
			voter := fmt.Sprint(id)
			if r.IntN(10) == 0 {
				voter = fmt.Sprintf("visitor-%x", r.Uint64())
			}
			at := now.Add(votesAt[r.IntN(len(votesAt))]).UTC().Format(time.RFC3339)
			if _, err := d.W.ExecContext(ctx, `INSERT INTO votes(listing_id, voter, week, created_at, counted, net) VALUES(?,?,?,?,?,?)`,
				listing, voter, week, at, r.IntN(4) > 0, nets[r.IntN(len(nets))]); err != nil {
				t.Fatal(err)
			}
		}
	}
	found := 0
	for id := int64(1); id <= users; id++ {
		var u ringVoter
		if err := d.W.QueryRowContext(ctx, `SELECT email, created_at, verified_at, signup_net FROM users WHERE id = ?`, id).
			Scan(&u.email, &u.created, &u.verified, &u.signupNet); err != nil {
			t.Fatal(err)
		}
		for listing := int64(1); listing <= 3; listing++ {
			network := nets[int(id+listing)%len(nets)]
			args := ringArgs(u, id, listing, week, network, now)
			want := peersOf(t, d.W, ringScanSQL, args[:11])
			got := peersOf(t, d.W, ringPeersSQL, args)
			if !slices.Equal(got, want) {
				t.Fatalf("user %d, listing %d: indexed lookups found %v, the scan %v", id, listing, got, want)
			}
			found += len(want)
		}
	}
	if found < 100 {
		t.Fatalf("only %d peers in the population: it does not exercise the rule", found)
	}
	t.Logf("%d peers found alike", found)
}

// ringDB is a fresh database whose votes and accounts need no listings
// (foreign keys off on the writer, the one connection the tests write on).
func ringDB(tb testing.TB) (*db.DB, context.Context) {
	tb.Helper()
	ctx := context.Background()
	d, err := db.Open(ctx, filepath.Join(tb.TempDir(), "ring.db"))
	if err != nil {
		tb.Fatal(err)
	}
	tb.Cleanup(func() { d.Close() })
	if _, err := d.W.ExecContext(ctx, `PRAGMA foreign_keys = OFF`); err != nil {
		tb.Fatal(err)
	}
	return d, ctx
}

func peersOf(t *testing.T, q *sql.DB, query string, args []any) []ringPeer {
	t.Helper()
	rows, err := q.Query(query, args...)
	if err != nil {
		t.Fatal(err)
	}
	defer rows.Close()
	var out []ringPeer
	for rows.Next() {
		var p ringPeer
		if err := rows.Scan(&p.userID, &p.counted, &p.ringID); err != nil {
			t.Fatal(err)
		}
		out = append(out, p)
	}
	if err := rows.Err(); err != nil {
		t.Fatal(err)
	}
	slices.SortFunc(out, func(a, b ringPeer) int { return int(a.userID - b.userID) })
	return out
}

// A launch-day listing: 5,000 votes in the last hour from accounts of
// their own networks at a public mail provider (no ring). The scan reads
// every vote and account; the lookups read the few rows each link names.
func BenchmarkRingPeers(b *testing.B) {
	d, ctx := ringDB(b)
	now := time.Date(2026, 11, 26, 12, 0, 0, 0, time.UTC)
	tx, err := d.W.BeginTx(ctx, nil)
	if err != nil {
		b.Fatal(err)
	}
	const voters = 5000
	for id := 1; id <= voters; id++ {
		net := fmt.Sprintf("10.%d.%d.0/24", id/256, id%256)
		at := now.Add(-time.Duration(id%3600) * time.Second).Format(time.RFC3339)
		if _, err := tx.ExecContext(ctx, `INSERT INTO users(id, email, created_at, verified_at, signup_net) VALUES(?,?,?,?,?)`,
			id, fmt.Sprintf("v%d@gmail.com", id), now.AddDate(0, -1, 0).Format(time.RFC3339), at, net); err != nil {
			b.Fatal(err)
		}
		if _, err := tx.ExecContext(ctx, `INSERT INTO votes(listing_id, voter, week, created_at, counted, net) VALUES(1,?,?,?,1,?)`,
			fmt.Sprint(id), "2026-11-23", at, net); err != nil {
			b.Fatal(err)
		}
	}
	if err := tx.Commit(); err != nil {
		b.Fatal(err)
	}
	if err := d.Analyze(ctx); err != nil {
		b.Fatal(err)
	}
	u := ringVoter{email: "me@gmail.com", created: now.AddDate(0, -1, 0).Format(time.RFC3339), signupNet: "10.200.1.0/24",
		verified: sql.NullString{String: now.Format(time.RFC3339), Valid: true}}
	args := ringArgs(u, voters+1, 1, "2026-11-23", "10.200.1.0/24", now)
	for _, c := range []struct {
		name, query string
		args        []any
	}{{"scan", ringScanSQL, args[:11]}, {"lookups", ringPeersSQL, args}} {
		b.Run(c.name, func(b *testing.B) {
			stmt, err := d.W.PrepareContext(ctx, c.query)
			if err != nil {
				b.Fatal(err)
			}
			defer stmt.Close()
			for b.Loop() {
				rows, err := stmt.QueryContext(ctx, c.args...)
				if err != nil {
					b.Fatal(err)
				}
				for rows.Next() {
				}
				rows.Close()
			}
		})
	}
}
