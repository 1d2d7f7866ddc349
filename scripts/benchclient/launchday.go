package main

import (
	"context"
	"crypto/sha256"
	"database/sql"
	"encoding/hex"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"sort"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"launchdir/app/kernel"
	"launchdir/db"
)

// The launch-day workload (issue 26): votes from distinct signed-in people
// through the website's vote form, at a fixed rate (open loop: a vote is
// sent every 1/rate whatever the server's pace), while public reads run at
// c=readers. The reads run first alone, then beside the votes; each kind of
// read's p99 beside the votes is compared with its p99 alone (goal: within
// 1.5×). At the end the counters are recounted from the vote rows: no vote
// acknowledged and lost, none counted twice.
//
// People and their sessions are written into the file before the run (as
// sign-up, e-mail confirmation and sign-in would have, long enough ago for
// their votes to count). Each person votes from an address of their own,
// in a network of their own (X-Forwarded-For: the server runs with
// -trust-proxy), as on a real launch day; one address for all would meet
// the per-address vote limit, as it should.

type launchDayOpts struct {
	base    string
	path    string
	d       time.Duration // the voting run (the reads alone run d/3, at least 10 s)
	rate    int           // votes per second
	readers int
}

// launchPerson is a bench account with a live session.
type launchPerson struct {
	id                int64
	session, csrf, ip string
}

// launchTarget is a listing voted for, with its counters before the run.
type launchTarget struct {
	id                          int64
	slug                        string
	votes, weekVotes, launchVts int64
	launched                    bool
}

func launchDay(o launchDayOpts) error {
	ctx := context.Background()
	d, err := db.Open(ctx, o.path)
	if err != nil {
		return err
	}
	defer d.Close()
	n := int(float64(o.rate)*o.d.Seconds()*1.2) + 10 // 20% spare: the dispatcher may run ahead of the second
	people, err := makePeople(ctx, d, n)
	if err != nil {
		return fmt.Errorf("people: %w", err)
	}
	week := kernel.WeekOf(time.Now())
	targets, err := launchTargets(ctx, d, week)
	if err != nil || len(targets) == 0 {
		return fmt.Errorf("no live listings to vote for (%v)", err)
	}
	cold := pick(d.W, `SELECT slug FROM listings WHERE status = 'live' ORDER BY random() LIMIT 20000`)
	reads := launchReads(o.base, targets, cold)
	alone := max(o.d/3, 10*time.Second)
	fmt.Printf("launch day: %d people, %d listings of week %s voted for, reads at c=%d (%s alone, then %s beside %d votes/s)\n",
		len(people), len(targets), week, o.readers, alone, o.d, o.rate)
	before := runReads(reads, o.readers, alone)
	var vs *voteStats
	stop := make(chan struct{})
	var wg sync.WaitGroup
	wg.Add(1)
	go func() { defer wg.Done(); vs = castVotes(o.base, people, targets, o.rate, o.d, stop) }()
	during := runReads(reads, o.readers, o.d)
	close(stop)
	wg.Wait()
	ok := true
	fmt.Printf("%-36s %10s %10s %10s %8s\n", "read (c="+strconv.Itoa(o.readers)+")", "alone p99", "votes p99", "ratio", "errors")
	for i, r := range reads {
		ratio := during[i].p99 / before[i].p99
		mark := ""
		if ratio > 1.5 {
			mark, ok = " over 1.5×", false
		}
		fmt.Printf("%-36s %8.2fms %8.2fms %9.2f× %8d%s\n", r.name, before[i].p99, during[i].p99, ratio, before[i].errors+during[i].errors, mark)
	}
	fmt.Printf("votes: %d sent in %.1f s (%.1f/s), %d acknowledged, %d errors, %d not sent (more than %d in flight), p50 %.2f ms, p99 %.2f ms\n",
		vs.sent, vs.elapsed.Seconds(), float64(vs.sent)/vs.elapsed.Seconds(), vs.acked, vs.errors, vs.dropped, maxInFlight, vs.p50, vs.p99)
	if err := recount(ctx, d, week, people, targets, vs); err != nil {
		fmt.Println("recount: FAILED:", err)
		ok = false
	}
	if !ok {
		return fmt.Errorf("launch-day goals not met")
	}
	return nil
}

// makePeople writes n verified accounts (60 days old) with a session each.
func makePeople(ctx context.Context, d *db.DB, n int) ([]launchPerson, error) {
	run := strconv.FormatInt(time.Now().UnixNano(), 36)
	old := time.Now().UTC().AddDate(0, 0, -60).Format(time.RFC3339)
	expires := time.Now().UTC().Add(24 * time.Hour).Format(time.RFC3339)
	out := make([]launchPerson, 0, n)
	err := d.Tx(ctx, func(tx *sql.Tx) error {
		for i := range n {
			res, err := tx.ExecContext(ctx, `INSERT INTO users(email, name, created_at, verified_at) VALUES(?, ?, ?, ?)`,
				// A public mailbox domain: accounts at one private domain
				// voting together are a suspected ring (app/people/integrity.go).
				fmt.Sprintf("launchday.%s.%d@gmail.com", run, i), fmt.Sprintf("Voter %d", i), old, old)
			if err != nil {
				return err
			}
			id, _ := res.LastInsertId()
			session := kernel.NewSecret("lds_")
			if _, err := tx.ExecContext(ctx, `INSERT INTO sessions(hash, user_id, created_at, expires_at) VALUES(?, ?, ?, ?)`,
				kernel.HashSecret(session), id, old, expires); err != nil {
				return err
			}
			// The site's CSRF token of a signed-in form is derived from the
			// session (site/people.go, sessionToken).
			sum := sha256.Sum256([]byte("launchdir csrf\x00" + session))
			out = append(out, launchPerson{id: id, session: session, csrf: hex.EncodeToString(sum[:16]),
				ip: fmt.Sprintf("10.%d.%d.7", (i>>8)&255, i&255)})
		}
		return nil
	})
	return out, err
}

// launchTargets are up to 20 live listings launched in week (the most
// voted first), else the most voted live listings, with their counters.
func launchTargets(ctx context.Context, d *db.DB, week string) ([]launchTarget, error) {
	rows, err := d.W.QueryContext(ctx, `SELECT l.id, l.slug, l.votes,
		coalesce((SELECT votes FROM weekly_votes w WHERE w.week = ?1 AND w.listing_id = l.id), 0),
		coalesce((SELECT votes FROM launches a WHERE a.week = ?1 AND a.listing_id = l.id), 0),
		EXISTS(SELECT 1 FROM launches a WHERE a.week = ?1 AND a.listing_id = l.id)
		FROM listings l WHERE l.status = 'live' ORDER BY l.launch_week = ?1 DESC, l.votes DESC LIMIT 20`, week)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var out []launchTarget
	for rows.Next() {
		var t launchTarget
		if err := rows.Scan(&t.id, &t.slug, &t.votes, &t.weekVotes, &t.launchVts, &t.launched); err != nil {
			return nil, err
		}
		out = append(out, t)
	}
	return out, rows.Err()
}

type launchRead struct {
	name string
	url  func(i int) string
}

// launchReads are the public reads of a launch day: the voted listings
// (API and page), any listing (API), the home page and this week's page.
func launchReads(base string, targets []launchTarget, cold []string) []launchRead {
	api := base + "/api/v1"
	voted := func(i int) string { return targets[i%len(targets)].slug }
	return []launchRead{
		{"get_listing (voted listings)", func(i int) string { return api + "/listings/" + voted(i) }},
		{"get_listing (any listing)", func(i int) string { return api + "/listings/" + cold[i%len(cold)] }},
		{"page /listings/{voted}", func(i int) string { return base + "/listings/" + voted(i) }},
		{"page /", func(int) string { return base + "/" }},
		{"page /launches/this", func(int) string { return base + "/launches/this" }},
	}
}

// runReads runs c workers for d, each sending the reads in turn, and
// returns each kind's figures.
func runReads(reads []launchRead, c int, d time.Duration) []loadResult {
	var (
		seq  atomic.Int64
		mu   sync.Mutex
		lats = make([][]time.Duration, len(reads))
		errs = make([]atomic.Int64, len(reads))
		wg   sync.WaitGroup
	)
	deadline := time.Now().Add(d)
	for range c {
		wg.Add(1)
		go func() {
			defer wg.Done()
			mine := make([][]time.Duration, len(reads))
			for time.Now().Before(deadline) {
				i := int(seq.Add(1))
				k := i % len(reads)
				t := time.Now()
				resp, err := noRedirect.Get(reads[k].url(i / len(reads)))
				if err != nil {
					errs[k].Add(1)
					continue
				}
				io.Copy(io.Discard, resp.Body)
				resp.Body.Close()
				if resp.StatusCode != http.StatusOK {
					errs[k].Add(1)
				}
				mine[k] = append(mine[k], time.Since(t))
			}
			mu.Lock()
			for k := range mine {
				lats[k] = append(lats[k], mine[k]...)
			}
			mu.Unlock()
		}()
	}
	wg.Wait()
	out := make([]loadResult, len(reads))
	for k, lat := range lats {
		sort.Slice(lat, func(i, j int) bool { return lat[i] < lat[j] })
		out[k] = loadResult{op: reads[k].name, c: c, n: len(lat), errors: errs[k].Load(), rps: float64(len(lat)) / d.Seconds()}
		if len(lat) > 0 {
			out[k].p50, out[k].p99 = ms(lat, 0.5), ms(lat, 0.99)
		}
	}
	return out
}

// noRedirect is the client of the workload: a vote answers with a
// redirect, which is the answer looked at.
var noRedirect = &http.Client{
	Transport:     &http.Transport{MaxIdleConnsPerHost: 512, MaxConnsPerHost: 512},
	Timeout:       30 * time.Second,
	CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse },
}

type voteStats struct {
	sent, acked, errors, dropped int64
	elapsed                      time.Duration
	p50, p99                     float64
	votedBy                      map[int64][]int64 // the people whose vote was acknowledged, by listing
}

// maxInFlight bounds the votes waiting for an answer; beyond it a vote is
// not sent (and reported), so a stalled server does not pile up goroutines.
const maxInFlight = 512

// castVotes sends one vote every 1/rate for d, person i voting for target
// i mod len(targets) (each person votes once).
func castVotes(base string, people []launchPerson, targets []launchTarget, rate int, d time.Duration, stop <-chan struct{}) *voteStats {
	vs := &voteStats{votedBy: map[int64][]int64{}}
	var (
		inFlight atomic.Int64
		mu       sync.Mutex
		lat      []time.Duration
		wg       sync.WaitGroup
	)
	// Vote i is due at start + i/rate; one behind its time is sent at once
	// (a ticker drops the ticks a busy sender misses: 183 a second, not 200).
	interval := time.Second / time.Duration(rate)
	start := time.Now()
	end := start.Add(d)
	for i := 0; time.Now().Before(end) && i < len(people); i++ {
		if wait := time.Until(start.Add(time.Duration(i) * interval)); wait > 0 {
			select {
			case <-stop:
				end = time.Now()
				continue
			case <-time.After(wait):
			}
		}
		if inFlight.Load() >= maxInFlight {
			vs.dropped++
			continue
		}
		vs.sent++
		inFlight.Add(1)
		wg.Add(1)
		go func(p launchPerson, t launchTarget) {
			defer wg.Done()
			defer inFlight.Add(-1)
			form := url.Values{"csrf": {p.csrf}}
			req, _ := http.NewRequest(http.MethodPost, base+"/listings/"+t.slug+"/vote", strings.NewReader(form.Encode()))
			req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
			req.Header.Set("X-Forwarded-For", p.ip)
			req.AddCookie(&http.Cookie{Name: "ld_session", Value: p.session})
			s := time.Now()
			resp, err := noRedirect.Do(req)
			el := time.Since(s)
			ok := false
			if err == nil {
				io.Copy(io.Discard, resp.Body)
				resp.Body.Close()
				// Cast: back to the listing with the note "voted".
				ok = resp.StatusCode == http.StatusSeeOther && strings.HasSuffix(resp.Header.Get("Location"), "?done=voted")
			}
			mu.Lock()
			lat = append(lat, el)
			if ok {
				vs.acked++
				vs.votedBy[t.id] = append(vs.votedBy[t.id], p.id)
			} else {
				vs.errors++
			}
			mu.Unlock()
		}(people[i], targets[i%len(targets)])
	}
	vs.elapsed = time.Since(start)
	wg.Wait()
	sort.Slice(lat, func(i, j int) bool { return lat[i] < lat[j] })
	if len(lat) > 0 {
		vs.p50, vs.p99 = ms(lat, 0.5), ms(lat, 0.99)
	}
	return vs
}

// recount checks every voted listing: one counted vote row per
// acknowledged vote of the run's people, and the listing's all-time count,
// its week's count and its launch's count each moved by exactly that many.
func recount(ctx context.Context, d *db.DB, week string, people []launchPerson, targets []launchTarget, vs *voteStats) error {
	var rows int64
	if err := d.W.QueryRowContext(ctx, `SELECT count(*) FROM votes WHERE week = ? AND counted = 1
		AND CAST(voter AS INTEGER) BETWEEN ? AND ?`, week, people[0].id, people[len(people)-1].id).Scan(&rows); err != nil {
		return err
	}
	var problems []string
	if rows != vs.acked {
		problems = append(problems, fmt.Sprintf("%d counted vote rows of this run's people, %d votes acknowledged", rows, vs.acked))
	}
	for _, t := range targets {
		want := int64(len(vs.votedBy[t.id]))
		var votes, weekVotes, launchVotes, rowsT int64
		err := d.W.QueryRowContext(ctx, `SELECT l.votes,
			coalesce((SELECT votes FROM weekly_votes w WHERE w.week = ?1 AND w.listing_id = l.id), 0),
			coalesce((SELECT votes FROM launches a WHERE a.week = ?1 AND a.listing_id = l.id), 0),
			(SELECT count(*) FROM votes v WHERE v.listing_id = l.id AND v.week = ?1 AND v.counted = 1
				AND CAST(v.voter AS INTEGER) BETWEEN ?3 AND ?4)
			FROM listings l WHERE l.id = ?2`, week, t.id, people[0].id, people[len(people)-1].id).
			Scan(&votes, &weekVotes, &launchVotes, &rowsT)
		if err != nil {
			return err
		}
		check := func(what string, got int64) {
			if got != want {
				problems = append(problems, fmt.Sprintf("%s: %s moved by %d, %d votes acknowledged", t.slug, what, got, want))
			}
		}
		check("counted vote rows", rowsT)
		check("all-time votes", votes-t.votes)
		check("this week's votes", weekVotes-t.weekVotes)
		if t.launched {
			check("its launch's votes", launchVotes-t.launchVts)
		}
	}
	if len(problems) > 0 {
		return fmt.Errorf("%s", strings.Join(problems, "; "))
	}
	fmt.Printf("recount: %d votes acknowledged = %d counted vote rows; all-time, weekly and launch counts of the %d listings moved by exactly their votes\n",
		vs.acked, rows, len(targets))
	return nil
}
