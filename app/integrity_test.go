package app_test

import (
	"fmt"
	"sync"
	"testing"
	"time"

	"launchdir/apitest"
	"launchdir/app/people"
	"launchdir/ops"
)

// ringEnv is the people stack with every vote-integrity rule at its
// default (rings of 3, the 24 h account age).
func ringEnv(t *testing.T) *peopleEnv {
	t.Helper()
	return &peopleEnv{Env: apitest.New(t, apitest.Options{Fixture: true}), t: t}
}

// account makes a verified account as if it had signed up from ip at
// created (verified an hour later) and returns its id.
func (e *peopleEnv) account(email, ip string, created time.Time) int64 {
	e.t.Helper()
	u, err := e.App.People.CreateUser(bg, email, "Voter", "long enough password")
	if err != nil {
		e.t.Fatal(err)
	}
	e.exec(`UPDATE users SET signup_ip = ?, signup_net = ?, created_at = ?, verified_at = ? WHERE id = ?`, ip, people.Network(ip),
		created.UTC().Format(time.RFC3339), created.Add(time.Hour).UTC().Format(time.RFC3339), u.ID)
	return u.ID
}

// The goal of issue 25: a ring of 40 verified accounts older than 24 h,
// made from 3 addresses over three days, votes for one listing within an
// hour. At most 3 of its votes count (here none: once a ring forms, its
// earlier votes are held too); the ring shows in the site team's view;
// ordinary voters at the same addresses (one older account each, voting
// for the same listing in the same hour) still count; one action
// discounts the ring; the counters always equal a recount.
func TestVoteRingSimulation(t *testing.T) {
	e := ringEnv(t)
	e.exec(`UPDATE listings SET votes = 0, trending = 0 WHERE id = 3`)
	e.exec(`DELETE FROM weekly_votes WHERE listing_id = 3`)
	start := apitest.Now
	addrs := []string{"203.0.113.10", "198.51.100.20", "192.0.2.30"}
	var ring []int64
	var ringIP []string
	for i := range 40 {
		created := start.Add(-72*time.Hour + time.Duration(i)*time.Hour) // three days, one an hour
		ring = append(ring, e.account(fmt.Sprintf("puppet%02d@gmail.com", i), addrs[i%3], created))
		ringIP = append(ringIP, addrs[i%3])
	}
	ordinary := map[int64]string{}
	for i, ip := range addrs {
		ordinary[e.account(fmt.Sprintf("neighbour%d@outlook.com", i), ip, start.AddDate(0, 0, -60-i*20))] = ip
	}
	admin := e.account("team@launchdir.test", "10.9.9.9", start.AddDate(-1, 0, 0))
	if _, err := e.App.Admin.SetAdmin(bg, "team@launchdir.test", true); err != nil {
		t.Fatal(err)
	}

	minute := 0
	vote := func(uid int64, ip string) people.VoteState {
		t.Helper()
		e.App.Now = func() time.Time { return start.Add(time.Duration(minute) * time.Minute) }
		minute++
		st, err := e.App.People.ToggleVote(bg, uid, "tablely", ip)
		if err != nil || !st.Voted {
			t.Fatalf("vote of %d: %+v %v", uid, st, err)
		}
		return st
	}
	var neighbours []int64
	for uid := range ordinary {
		neighbours = append(neighbours, uid)
	}
	for i, uid := range ring {
		vote(uid, ringIP[i])
		if i%13 == 6 { // the neighbours vote in the same hour
			n := neighbours[0]
			neighbours = neighbours[1:]
			if st := vote(n, ordinary[n]); !st.Counted || st.Held {
				t.Errorf("ordinary voter at %s: %+v", ordinary[n], st)
			}
		}
	}
	if minute > 60 {
		t.Fatalf("the votes took %d minutes, want within an hour", minute)
	}
	countedRing := e.count(`SELECT count(*) FROM votes WHERE listing_id = 3 AND counted AND voter IN (SELECT id FROM users WHERE email LIKE 'puppet%')`)
	countedOrdinary := e.count(`SELECT count(*) FROM votes WHERE listing_id = 3 AND counted AND voter IN (SELECT id FROM users WHERE email LIKE 'neighbour%')`)
	held := e.count(`SELECT count(*) FROM votes WHERE listing_id = 3 AND ring_id IS NOT NULL`)
	t.Logf("ring votes counted %d, held %d; ordinary counted %d", countedRing, held, countedOrdinary)
	if countedRing > 3 {
		t.Errorf("%d ring votes count, want at most 3", countedRing)
	}
	if countedOrdinary != 3 {
		t.Errorf("%d of 3 ordinary voters count", countedOrdinary)
	}
	if got, re := e.counters(3), e.recount(3); got != re || got.week != countedRing+countedOrdinary {
		t.Errorf("counters %+v, recount %+v", got, re)
	}

	rings, err := e.App.Admin.SuspectedRings(bg, admin)
	if err != nil {
		t.Fatal(err)
	}
	members := 0
	for _, r := range rings {
		if r.ListingSlug != "tablely" || r.Status != "open" {
			t.Errorf("ring %+v", r)
		}
		members += r.Members
	}
	if len(rings) == 0 || members != held || members < 37 {
		t.Fatalf("%d rings with %d members listed, %d votes held", len(rings), members, held)
	}
	if _, err := e.App.Admin.SuspectedRings(bg, ring[0]); ops.AsError(err).Code != ops.CodeForbidden && ops.AsError(err).Code != ops.CodeNotFound {
		t.Errorf("a non-admin sees the rings: %v", err)
	}
	// One action per ring discounts it: the votes stay out of the counts.
	before := e.counters(3)
	for _, r := range rings {
		if err := e.App.Admin.ReviewRing(bg, admin, r.ID, "discount"); err != nil {
			t.Fatal(err)
		}
		if err := e.App.Admin.ReviewRing(bg, admin, r.ID, "count"); ops.AsError(err).Code != ops.CodeConflict {
			t.Errorf("second review: %v", err)
		}
	}
	if after := e.counters(3); after != before || after != e.recount(3) {
		t.Errorf("after discounting: %+v, before %+v, recount %+v", after, before, e.recount(3))
	}
}

// The edge of the ring rule: two new accounts from one network voting
// together both count; the third makes a ring and all three are held.
// Counting the ring afterwards puts all three votes on the board.
func TestVoteRingEdgeAndCount(t *testing.T) {
	e := ringEnv(t)
	start := apitest.Now
	e.App.Now = func() time.Time { return start }
	admin := e.account("team@launchdir.test", "10.9.9.9", start.AddDate(-1, 0, 0))
	e.App.Admin.SetAdmin(bg, "team@launchdir.test", true)
	e.exec(`UPDATE listings SET votes = 0, trending = 0 WHERE id = 3`)
	e.exec(`DELETE FROM weekly_votes WHERE listing_id = 3`)
	before := e.counters(3)
	var ids []int64
	for i := range 3 {
		ids = append(ids, e.account(fmt.Sprintf("pair%d@gmail.com", i), "203.0.113.7", start.Add(-48*time.Hour+time.Duration(i)*time.Minute)))
	}
	for i, uid := range ids {
		st, err := e.App.People.ToggleVote(bg, uid, "tablely", "203.0.113."+fmt.Sprint(7+i))
		if err != nil {
			t.Fatal(err)
		}
		if wantHeld := i == 2; st.Held != wantHeld || st.Counted == wantHeld {
			t.Fatalf("vote %d: %+v", i+1, st)
		}
	}
	if got := e.counters(3); got != before || got != e.recount(3) {
		t.Fatalf("after the ring formed: %+v, before %+v", got, before)
	}
	rings, _ := e.App.Admin.SuspectedRings(bg, admin)
	if len(rings) != 1 || rings[0].Members != 3 {
		t.Fatalf("rings %+v", rings)
	}
	if err := e.App.Admin.ReviewRing(bg, admin, rings[0].ID, "count"); err != nil {
		t.Fatal(err)
	}
	if got := e.counters(3); got.week != before.week+3 || got != e.recount(3) {
		t.Errorf("after counting: %+v, before %+v", got, before)
	}
}

// A vote from an account at a disposable mail service is held for review
// on its own.
func TestDisposableDomainVoteHeld(t *testing.T) {
	e := ringEnv(t)
	uid := e.account("throwaway@mailinator.com", "203.0.113.50", apitest.Now.AddDate(0, 0, -10))
	st, err := e.App.People.ToggleVote(bg, uid, "tablely", "203.0.113.50")
	if err != nil || !st.Held || st.Counted {
		t.Fatalf("%+v %v", st, err)
	}
}

// Sign-up limits hold under 30 parallel sign-ups from one address:
// exactly 5 accounts are made, the rest are refused with a wait; a sixth
// address in the same /24 network is refused once the network has 20.
func TestSignupLimitsParallel(t *testing.T) {
	e := ringEnv(t)
	proofs := make([]string, 30)
	for i := range proofs {
		c, err := e.App.People.NewSignupChallenge(bg)
		if err != nil {
			t.Fatal(err)
		}
		proofs[i] = people.SolveSignupChallenge(c)
	}
	var wg sync.WaitGroup
	var mu sync.Mutex
	made, limited := 0, 0
	for i := range 30 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			p, err := e.App.People.SignUp(bg, people.SignupRequest{Email: fmt.Sprintf("p%d@gmail.com", i), Password: "long enough password",
				IP: "198.51.100.77", Proof: proofs[i]})
			mu.Lock()
			defer mu.Unlock()
			switch {
			case err == nil && p != nil:
				made++
			case ops.AsError(err).Code == ops.CodeRateLimited && ops.AsError(err).RetryAfter > 0:
				limited++
			default:
				t.Errorf("sign-up %d: %v", i, err)
			}
		}()
	}
	wg.Wait()
	if made != 5 || limited != 25 {
		t.Fatalf("30 parallel sign-ups from one address: %d made, %d limited; want 5 and 25", made, limited)
	}
	// The network: 3 more addresses of 198.51.100.0/24 bring it to 20.
	signup := func(email, ip string) error {
		c, _ := e.App.People.NewSignupChallenge(bg)
		_, err := e.App.People.SignUp(bg, people.SignupRequest{Email: email, Password: "long enough password", IP: ip, Proof: people.SolveSignupChallenge(c)})
		return err
	}
	for i := range 15 {
		if err := signup(fmt.Sprintf("n%d@gmail.com", i), fmt.Sprintf("198.51.100.%d", 1+i/5)); err != nil {
			t.Fatalf("network sign-up %d: %v", i, err)
		}
	}
	if err := signup("n20@gmail.com", "198.51.100.200"); ops.AsError(err).Code != ops.CodeRateLimited {
		t.Errorf("21st sign-up from one network: %v", err)
	}
	if err := signup("other@gmail.com", "198.51.101.1"); err != nil {
		t.Errorf("another network: %v", err)
	}
	// A day later the address may sign up again.
	e.App.Now = func() time.Time { return apitest.Now.Add(25 * time.Hour) }
	if err := signup("later@gmail.com", "198.51.100.77"); err != nil {
		t.Errorf("a day later: %v", err)
	}
}

// The proof of work: a missing, forged, replayed or expired solution is
// refused naming the field; the right one is spent once even when 30
// sign-ups carry it at once.
func TestSignupProofOfWork(t *testing.T) {
	e := ringEnv(t)
	c, _ := e.App.People.NewSignupChallenge(bg)
	good := people.SolveSignupChallenge(c)
	req := func(email, proof string) error {
		_, err := e.App.People.SignUp(bg, people.SignupRequest{Email: email, Password: "long enough password", IP: fmt.Sprintf("10.7.%d.1", len(email)), Proof: proof})
		return err
	}
	forged := c
	forged.Signature = "00" + forged.Signature[2:]
	for name, proof := range map[string]string{"missing": "", "garbage": "bm90IGpzb24=", "forged": people.SolveSignupChallenge(forged)} {
		if err := req("x"+name+"@gmail.com", proof); ops.AsError(err).Code != ops.CodeInvalid || ops.AsError(err).Fields[0].Field != "altcha" {
			t.Errorf("%s proof: %v", name, err)
		}
	}
	var wg sync.WaitGroup
	var mu sync.Mutex
	ok := 0
	for i := range 30 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			if err := req(fmt.Sprintf("r%02d@gmail.com", i), good); err == nil {
				mu.Lock()
				ok++
				mu.Unlock()
			}
		}()
	}
	wg.Wait()
	if ok != 1 {
		t.Errorf("one solution made %d accounts, want 1", ok)
	}
	c2, _ := e.App.People.NewSignupChallenge(bg)
	e.App.Now = func() time.Time { return apitest.Now.Add(21 * time.Minute) }
	if err := req("late@gmail.com", people.SolveSignupChallenge(c2)); ops.AsError(err).Code != ops.CodeInvalid {
		t.Errorf("expired proof: %v", err)
	}
}
