package app_test

import (
	"encoding/json"
	"fmt"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"launchdir/apitest"
	"launchdir/ops"
)

// voteCounters are the maintained figures of a listing this week.
type voteCounters struct{ all, week int }

func (e *peopleEnv) counters(id int) voteCounters {
	return voteCounters{e.count(`SELECT votes FROM listings WHERE id = ?`, id),
		e.count(`SELECT coalesce((SELECT votes FROM weekly_votes WHERE listing_id = ? AND week = '2026-11-16'), 0)`, id)}
}

// recount is what the counted vote rows say.
func (e *peopleEnv) recount(id int) voteCounters {
	return voteCounters{e.count(`SELECT count(*) FROM votes WHERE listing_id = ? AND counted`, id),
		e.count(`SELECT count(*) FROM votes WHERE listing_id = ? AND counted AND week = '2026-11-16'`, id)}
}

func TestVotes(t *testing.T) {
	e := newPeopleEnv(t)
	// Start from counters that agree with the (empty) vote rows.
	e.exec(`UPDATE listings SET votes = 0, trending = 0 WHERE id = 3`)
	e.exec(`DELETE FROM weekly_votes WHERE listing_id = 3`)
	check := func(what string, want voteCounters) {
		t.Helper()
		if got, re := e.counters(3), e.recount(3); got != want || got != re {
			t.Fatalf("%s: counters %+v, recount %+v, want %+v", what, got, re, want)
		}
	}
	fan, _ := e.person("fan1@example.com", true, 48*time.Hour)
	st, err := e.App.People.ToggleVote(bg, fan, "tablely", "10.1.0.1")
	if err != nil || !st.Voted || !st.Counted || st.Votes != 1 {
		t.Fatalf("vote: %+v %v", st, err)
	}
	check("after vote", voteCounters{1, 1})
	if tr := e.count(`SELECT trending FROM listings WHERE id = 3`); tr != 1 {
		t.Fatalf("trending %d", tr)
	}
	// The weekly board, the all-time board and the badge read the counters.
	r := e.Do("GET", "/api/v1/leaderboards/community-weekly", nil)
	var board struct {
		Items []struct {
			Listing struct{ Slug string }
			Metric  struct{ Value int }
		}
	}
	json.Unmarshal(r.Body, &board)
	found := false
	for _, it := range board.Items {
		if it.Listing.Slug == "tablely" {
			found = it.Metric.Value == 1
		}
	}
	if !found {
		t.Fatalf("weekly board: %s", r.Body)
	}
	if r := e.Do("GET", "/badges/tablely.svg?shape=standard&mode=light&size=m", nil); !strings.Contains(string(r.Body), "this week") {
		t.Fatalf("badge: %s", r.Body)
	}
	// Voting again withdraws (toggle), and everything returns to zero.
	st, err = e.App.People.ToggleVote(bg, fan, "tablely", "10.1.0.1")
	if err != nil || st.Voted || st.Votes != 0 {
		t.Fatalf("unvote: %+v %v", st, err)
	}
	check("after unvote", voteCounters{0, 0})
	if tr := e.count(`SELECT trending FROM listings WHERE id = 3`); tr != 0 {
		t.Fatalf("trending after unvote %d", tr)
	}
	e.App.People.ToggleVote(bg, fan, "tablely", "10.1.0.1")

	// Stored but not counted: unverified, too new (24 h at the edge), owner.
	unverified, _ := e.person("unverified@example.com", false, 48*time.Hour)
	young, _ := e.person("young@example.com", true, 24*time.Hour-time.Second)
	aged, _ := e.person("aged@example.com", true, 24*time.Hour)
	e.exec(`UPDATE users SET verified_at = created_at WHERE id = 1`)
	for _, c := range []struct {
		user    int64
		counted bool
	}{{unverified, false}, {young, false}, {aged, true}, {1, false}} {
		st, err := e.App.People.ToggleVote(bg, c.user, "tablely", "10.1.0.2")
		if err != nil || !st.Voted || st.Counted != c.counted {
			t.Fatalf("user %d: %+v %v, want counted %v", c.user, st, err, c.counted)
		}
	}
	check("mixed voters", voteCounters{2, 2})
	if n := e.count(`SELECT count(*) FROM votes WHERE listing_id = 3`); n != 5 {
		t.Fatalf("%d vote rows, want 5 (uncounted ones are stored)", n)
	}
	if v, _ := e.App.People.ViewerOf(bg, 1, "tablely"); !v.Voted || !v.IsOwner {
		t.Fatalf("owner viewer %+v", v)
	}
	// Withdrawing an uncounted vote leaves the counters alone.
	e.App.People.ToggleVote(bg, young, "tablely", "10.1.0.2")
	check("uncounted withdrawn", voteCounters{2, 2})

	// Next week the same person may vote again; last week's vote stays.
	e.at(apitest.Now.AddDate(0, 0, 7))
	if st, err := e.App.People.ToggleVote(bg, fan, "tablely", "10.1.0.1"); err != nil || !st.Voted || st.Votes != 1 {
		t.Fatalf("next week: %+v %v", st, err)
	}
	if all := e.count(`SELECT votes FROM listings WHERE id = 3`); all != 3 {
		t.Fatalf("all-time %d, want 3", all)
	}
	e.at(apitest.Now)

	// Only live listings: scheduled is refused with a reason, drafts are 404.
	_, err = e.App.People.ToggleVote(bg, fan, "soonapp", "10.1.0.1")
	wantErr(t, "scheduled", err, ops.CodeInvalid, "listing")
	_, err = e.App.People.ToggleVote(bg, fan, "secretdraft", "10.1.0.1")
	wantErr(t, "draft", err, ops.CodeNotFound, "")
	_, err = e.App.People.ToggleVote(bg, fan, "nope", "10.1.0.1")
	wantErr(t, "unknown", err, ops.CodeNotFound, "")
}

func TestBannedAccountVotesUncounted(t *testing.T) {
	e := newPeopleEnv(t)
	e.exec(`UPDATE listings SET votes = 0 WHERE id = 3`)
	e.exec(`DELETE FROM weekly_votes WHERE listing_id = 3`)
	fan, _ := e.person("ban@example.com", true, 48*time.Hour)
	owner, _ := e.person("owner2@example.com", true, 48*time.Hour)
	e.exec(`INSERT INTO listing_owners(listing_id, user_id, created_at) VALUES(3, ?, '2026-01-01T00:00:00Z')`, owner)
	e.App.People.ToggleVote(bg, fan, "tablely", "10.2.0.1")
	e.App.People.ToggleVote(bg, owner, "tablely", "10.2.0.1") // not counted
	if got := e.counters(3); got != (voteCounters{1, 1}) {
		t.Fatalf("%+v", got)
	}
	admin, _ := e.App.People.CreateUser(bg, "boss@example.com", "Boss", "")
	e.App.Admin.SetAdmin(bg, "boss@example.com", true)
	if err := e.App.Admin.BanUser(bg, admin.ID, owner, "sock puppets"); err != nil {
		t.Fatal(err)
	}
	if got := e.counters(3); got != (voteCounters{1, 1}) {
		t.Fatalf("banning an uncounted voter moved the counters: %+v", got)
	}
	if err := e.App.Admin.BanUser(bg, admin.ID, fan, "sock puppets"); err != nil {
		t.Fatal(err)
	}
	if got, re := e.counters(3), e.recount(3); got != (voteCounters{0, 0}) || re != got {
		t.Fatalf("after ban %+v recount %+v", got, re)
	}
	_, err := e.App.People.ToggleVote(bg, fan, "tablely", "10.2.0.1")
	wantErr(t, "banned", err, ops.CodeForbidden, "")
}

func TestVoteRateLimits(t *testing.T) {
	e := newPeopleEnv(t)
	u, _ := e.person("fast@example.com", true, 48*time.Hour)
	for i := 0; i < 30; i++ {
		if _, err := e.App.People.ToggleVote(bg, u, "quickbase", "10.3.0.1"); err != nil {
			t.Fatalf("toggle %d: %v", i+1, err)
		}
	}
	_, err := e.App.People.ToggleVote(bg, u, "quickbase", "10.3.0.1")
	wantErr(t, "31st toggle", err, ops.CodeRateLimited, "")
	if e := ops.AsError(err); e.RetryAfter <= 0 || !strings.Contains(e.Detail, "Try again in 10 minutes") {
		t.Fatalf("%+v", e)
	}
	e.at(apitest.Now.Add(10 * time.Minute))
	if _, err := e.App.People.ToggleVote(bg, u, "quickbase", "10.3.0.1"); err != nil {
		t.Fatalf("after the window: %v", err)
	}
	// 60 per address, whoever votes.
	a, _ := e.person("a1@example.com", true, 48*time.Hour)
	b, _ := e.person("b1@example.com", true, 48*time.Hour)
	for i := 0; i < 60; i++ {
		if _, err := e.App.People.ToggleVote(bg, []int64{a, b}[i%2], "rankrocket", "10.3.0.9"); err != nil {
			t.Fatalf("toggle %d: %v", i+1, err)
		}
	}
	_, err = e.App.People.ToggleVote(bg, a, "rankrocket", "10.3.0.9")
	wantErr(t, "61st from one address", err, ops.CodeRateLimited, "")
}

func TestAwardWeeks(t *testing.T) {
	e := newPeopleEnv(t)
	e.at(apitest.Now.AddDate(0, 0, 7)) // week 2026-11-16 is over
	if err := e.App.Catalog.AwardWeeks(bg); err != nil {
		t.Fatal(err)
	}
	rows, _ := e.DB.R.Query(`SELECT rank, listing_id, votes FROM awards WHERE week = '2026-11-16' ORDER BY rank`)
	var got []int
	for rows.Next() {
		var r, l, v int
		rows.Scan(&r, &l, &v)
		got = append(got, r, l, v)
	}
	rows.Close()
	if want := []int{1, 3, 45, 2, 1, 30}; fmt.Sprint(got) != fmt.Sprint(want) {
		t.Fatalf("awards %v, want %v", got, want)
	}
	if err := e.App.Catalog.AwardWeeks(bg); err != nil || e.count(`SELECT count(*) FROM awards WHERE week = '2026-11-16'`) != 2 {
		t.Fatal("not idempotent", err)
	}
}

func TestFollowsAndUpdateEmails(t *testing.T) {
	e := newPeopleEnv(t)
	fan, _ := e.person("follower@example.com", true, 0)
	quiet, _ := e.person("quiet@example.com", true, 0)
	follows := e.count(`SELECT follows FROM listings WHERE id = 1`)
	for _, u := range []int64{fan, quiet} {
		if on, err := e.App.People.ToggleFollow(bg, u, "quickbase"); err != nil || !on {
			t.Fatalf("follow: %v %v", on, err)
		}
	}
	if n := e.count(`SELECT follows FROM listings WHERE id = 1`); n != follows+2 {
		t.Fatalf("follows %d, want %d", n, follows+2)
	}
	_, err := e.App.People.ToggleFollow(bg, fan, "soonapp")
	wantErr(t, "follow scheduled", err, ops.CodeInvalid, "listing")
	pg, err := e.App.People.Following(bg, fan, 1, 20)
	if err != nil || pg.Total != 1 || len(pg.Items) != 1 || pg.Items[0].Slug != "quickbase" {
		t.Fatalf("following: %+v %v", pg, err)
	}
	_, err = e.App.People.Following(bg, fan, 1, 101)
	wantErr(t, "per_page 101", err, ops.CodeInvalid, "per_page")

	owner := apitest.Bearer(e.APIKey("owner@example.com"))
	post := func(title string) int {
		r := e.Do("POST", "/api/v1/me/listings/1/updates", map[string]any{"title": title, "body": "Grüße: faster sync."}, owner...)
		if r.Status != 201 && r.Status != 200 {
			t.Fatalf("post update: %d %s", r.Status, r.Body)
		}
		return int(r.JSON()["followers_notified"].(float64))
	}
	if n := post("v3 is out"); n != 2 {
		t.Fatalf("notified %d, want 2", n)
	}
	var text, html, headers string
	if err := e.DB.R.QueryRow(`SELECT body, html, headers FROM outbox WHERE kind = 'follower_update' AND to_addr = 'follower@example.com'`).
		Scan(&text, &html, &headers); err != nil {
		t.Fatal(err)
	}
	tok := e.lastLink("follower@example.com", "unsubscribe")
	var h map[string]string
	json.Unmarshal([]byte(headers), &h)
	if !strings.Contains(h["List-Unsubscribe"], "/unsubscribe/"+tok) || h["List-Unsubscribe-Post"] != "List-Unsubscribe=One-Click" ||
		!strings.Contains(html, "/unsubscribe/"+tok) || !strings.Contains(text, "v3 is out") {
		t.Fatalf("email: %q %q %q", text, html, headers)
	}
	if err := e.App.People.Unsubscribe(bg, e.lastLink("quiet@example.com", "unsubscribe")); err != nil {
		t.Fatal(err)
	}
	wantErr(t, "bad unsubscribe", e.App.People.Unsubscribe(bg, "nope"), ops.CodeInvalid, "token")
	if n := post("v3.1"); n != 1 {
		t.Fatalf("after unsubscribe notified %d, want 1", n)
	}
	if v, _ := e.App.People.ViewerOf(bg, quiet, "quickbase"); !v.Following {
		t.Fatal("unsubscribing unfollowed")
	}
	if on, _ := e.App.People.ToggleFollow(bg, fan, "quickbase"); on {
		t.Fatal("second toggle did not unfollow")
	}
	if n := e.count(`SELECT follows FROM listings WHERE id = 1`); n != follows+1 {
		t.Fatalf("follows %d after unfollow", n)
	}
}

// rating is the maintained community rating and the recount of genuine reviews.
func (e *peopleEnv) rating(id int) (sum, count, reSum, reCount int) {
	e.t.Helper()
	e.DB.R.QueryRow(`SELECT rating_sum, rating_count FROM listings WHERE id = ?`, id).Scan(&sum, &count)
	e.DB.R.QueryRow(`SELECT coalesce(sum(rating),0), count(*) FROM reviews WHERE listing_id = ? AND genuine`, id).Scan(&reSum, &reCount)
	return
}

func TestReviews(t *testing.T) {
	e := newPeopleEnv(t)
	check := func(what string, wantSum, wantCount int) {
		t.Helper()
		s, c, rs, rc := e.rating(1)
		if s != wantSum || c != wantCount || s != rs || c != rc {
			t.Fatalf("%s: rating %d/%d recount %d/%d, want %d/%d", what, s, c, rs, rc, wantSum, wantCount)
		}
	}
	check("fixture", 9, 2)
	u, _ := e.person("critic@example.com", true, 0)
	for _, c := range []struct {
		stars int
		body  string
		field string
	}{{0, "ok", "rating"}, {6, "ok", "rating"}, {5, strings.Repeat("a", 2001), "body"}, {5, "   ", "body"}} {
		_, err := e.App.People.SaveReview(bg, u, "quickbase", c.stars, c.body)
		wantErr(t, "review", err, ops.CodeInvalid, c.field)
	}
	r, err := e.App.People.SaveReview(bg, u, "quickbase", 1, strings.Repeat("ü", 2000))
	if err != nil || !r.Genuine || r.Rating != 1 || r.ListingSlug != "quickbase" || r.AuthorName != "Pat critic" {
		t.Fatalf("%+v %v", r, err)
	}
	check("first review", 10, 3)
	// Reviewing again edits the same review.
	r2, err := e.App.People.SaveReview(bg, u, "quickbase", 5, "Changed my mind.")
	if err != nil || r2.ID != r.ID || r2.Rating != 5 {
		t.Fatalf("%+v %v", r2, err)
	}
	check("edited", 14, 3)
	if n := e.count(`SELECT count(*) FROM reviews WHERE user_id = ?`, u); n != 1 {
		t.Fatalf("%d reviews", n)
	}
	// Unverified: shown, not counted, until the email is confirmed.
	nv, _ := e.person("unverified-critic@example.com", false, 0)
	if r, _ := e.App.People.SaveReview(bg, nv, "quickbase", 2, "Meh."); r.Genuine {
		t.Fatal("unverified review genuine")
	}
	check("unverified", 14, 3)
	if _, err := e.App.People.VerifyEmail(bg, e.lastLink("unverified-critic@example.com", "verify")); err != nil {
		t.Fatal(err)
	}
	check("verified later", 16, 4)
	// The owner's review never counts.
	e.exec(`UPDATE users SET verified_at = created_at WHERE id = 1`)
	if r, _ := e.App.People.SaveReview(bg, 1, "quickbase", 5, "We are great."); r.Genuine {
		t.Fatal("owner review genuine")
	}
	check("owner", 16, 4)
	_, err = e.App.People.SaveReview(bg, u, "soonapp", 5, "x")
	wantErr(t, "scheduled", err, ops.CodeInvalid, "listing")

	pg, err := e.App.People.ListingReviews(bg, "quickbase", 1, 2)
	if err != nil || pg.Total != 6 || len(pg.Items) != 2 {
		t.Fatalf("%+v %v", pg, err)
	}
	v, err := e.App.People.ViewerOf(bg, u, "quickbase")
	if err != nil || v.MyReview == nil || v.MyReview.ID != r.ID || v.IsOwner || v.Voted {
		t.Fatalf("viewer %+v %v", v, err)
	}
	_, err = e.App.People.ViewerOf(bg, u, "secretdraft")
	wantErr(t, "viewer of a draft", err, ops.CodeNotFound, "")
	// Hidden by the site team: out of the rating and off the page.
	admin, _ := e.App.People.CreateUser(bg, "boss@example.com", "Boss", "")
	e.App.Admin.SetAdmin(bg, "boss@example.com", true)
	if err := e.App.Admin.HideReview(bg, admin.ID, r.ID, "fake"); err != nil {
		t.Fatal(err)
	}
	check("hidden", 11, 3)
	if r, _ := e.App.People.SaveReview(bg, u, "quickbase", 4, "Edited after hiding."); r.Genuine {
		t.Fatal("editing a hidden review made it count")
	}
	check("hidden then edited", 11, 3)
}

func TestReports(t *testing.T) {
	e := newPeopleEnv(t)
	u, _ := e.person("reporter@example.com", true, 0)
	if err := e.App.People.Report(bg, u, "listing", "quickbase", "Spam listing"); err != nil {
		t.Fatal(err)
	}
	if err := e.App.People.Report(bg, u, "listing", "quickbase", "Spam listing again"); err != nil {
		t.Fatal(err)
	}
	var rid int64
	e.DB.R.QueryRow(`SELECT id FROM reviews WHERE listing_id = 1 ORDER BY id LIMIT 1`).Scan(&rid)
	if err := e.App.People.Report(bg, u, "review", itoa(rid), "Fake review"); err != nil {
		t.Fatal(err)
	}
	if n := e.count(`SELECT count(*) FROM reports WHERE status = 'open'`); n != 2 {
		t.Fatalf("%d open reports, want 2", n)
	}
	wantErr(t, "empty reason", e.App.People.Report(bg, u, "listing", "quickbase", " "), ops.CodeInvalid, "reason")
	wantErr(t, "501 reason", e.App.People.Report(bg, u, "listing", "quickbase", strings.Repeat("r", 501)), ops.CodeInvalid, "reason")
	if err := e.App.People.Report(bg, u, "listing", "rankrocket", strings.Repeat("r", 500)); err != nil {
		t.Fatal(err)
	}
	wantErr(t, "bad kind", e.App.People.Report(bg, u, "founder", "x", "why"), ops.CodeInvalid, "kind")
	wantErr(t, "draft", e.App.People.Report(bg, u, "listing", "secretdraft", "why"), ops.CodeNotFound, "")
	wantErr(t, "bad review", e.App.People.Report(bg, u, "review", "abc", "why"), ops.CodeNotFound, "")
}

// Many people voting and withdrawing at once leave the counters equal to
// a recount of the rows.
func TestVotesConcurrent(t *testing.T) {
	e := newPeopleEnv(t)
	e.exec(`UPDATE listings SET votes = 0, trending = 0 WHERE id = 3`)
	e.exec(`DELETE FROM weekly_votes WHERE listing_id = 3`)
	var users []int64
	for i := 0; i < 8; i++ {
		u, _ := e.person("c"+strconv.Itoa(i)+"@example.com", true, 48*time.Hour)
		users = append(users, u)
	}
	var wg sync.WaitGroup
	for i, u := range users {
		wg.Add(1)
		go func(i int, u int64) {
			defer wg.Done()
			for k := 0; k < 3+i%2; k++ { // odd users end with a vote
				if _, err := e.App.People.ToggleVote(bg, u, "tablely", "10.5.0."+strconv.Itoa(i)); err != nil {
					t.Error(err)
				}
			}
		}(i, u)
	}
	wg.Wait()
	if got, re := e.counters(3), e.recount(3); got != re || got != (voteCounters{4, 4}) {
		t.Fatalf("counters %+v recount %+v, want 4/4", got, re)
	}
}
