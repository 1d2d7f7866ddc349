package site_test

import (
	"context"
	"encoding/json"
	"fmt"
	"net/url"
	"strconv"
	"strings"
	"testing"

	"launchdir/apitest"
)

// A week's launches are read in the order of an index over the listing's
// votes in its own launch week (launch_week_votes, kept by triggers): every
// write that changes a week's ranking, done through the real doors (a vote
// on the site, a ban by the site team, a listing moved to another week, a
// paid relaunch into this week), must leave every page of the API's week
// list exactly what the sorting query over weekly_votes gives.
func TestWeekRankFollowsVotesBansMovesAndRelaunches(t *testing.T) {
	ctx := context.Background()
	e := peopleEnv(t)
	u, err := e.App.People.CreateUser(ctx, "admin@example.com", "Ada Admin", "")
	if err != nil {
		t.Fatal(err)
	}
	e.App.Admin.SetAdmin(ctx, "admin@example.com", true)
	admin := (&areaEnv{Env: e, admin: u.ID}).as(u.ID)
	const this, last = "2026-11-16", "2026-11-09" // apitest.Now's week and the one before
	scalar := func(q string, args ...any) string {
		t.Helper()
		var s string
		if err := e.DB.W.QueryRow(q, args...).Scan(&s); err != nil {
			t.Fatalf("%s: %v", q, err)
		}
		return s
	}
	// apiWeek is the week's list, paged through the API 7 at a time.
	apiWeek := func(week string) []string {
		t.Helper()
		var out []string
		for pg := 1; ; pg++ {
			var b struct {
				Items []struct{ Slug string } `json:"items"`
				Total int                     `json:"total"`
			}
			r := e.Do("GET", fmt.Sprintf("/api/v1/launches/weeks/%s?per_page=7&page=%d", week, pg), nil)
			if err := json.Unmarshal(r.Body, &b); err != nil || r.Status != 200 {
				t.Fatalf("week %s page %d: %d %s", week, pg, r.Status, r.Body)
			}
			if len(b.Items) == 0 {
				return out
			}
			for _, it := range b.Items {
				out = append(out, it.Slug)
			}
		}
	}
	check := func(when string, weeks ...string) {
		t.Helper()
		if n := scalar(`SELECT count(*) FROM launches n WHERE votes !=
			coalesce((SELECT votes FROM weekly_votes w WHERE w.week = n.week AND w.listing_id = n.listing_id), 0)`); n != "0" {
			t.Fatalf("%s: %s launches' counts differ from weekly_votes", when, n)
		}
		for _, week := range weeks {
			rows, err := e.DB.W.Query(`SELECT l.slug FROM listings l LEFT JOIN weekly_votes w ON w.week = ?1 AND w.listing_id = l.id
				WHERE (l.launch_week = ?1 OR l.id IN (SELECT listing_id FROM launches WHERE week = ?1 AND relaunch = 1))
				AND l.status IN ('live','scheduled')
				ORDER BY coalesce(w.votes,0) DESC, l.id`, week)
			if err != nil {
				t.Fatal(err)
			}
			var want []string
			for rows.Next() {
				var s string
				rows.Scan(&s)
				want = append(want, s)
			}
			rows.Close()
			if got := apiWeek(week); strings.Join(got, " ") != strings.Join(want, " ") {
				t.Fatalf("%s: week %s:\n got %v\nwant %v", when, week, got, want)
			}
		}
	}
	pos := func(week, slug string) int {
		for i, s := range apiWeek(week) {
			if s == slug {
				return i
			}
		}
		return -1
	}
	check("demo", this, last)

	// Votes: the week's last live listing climbs; a listing of an earlier
	// week voted this week keeps its place in its week (the vote counts for
	// this week, which is not its launch week).
	bottom := scalar(`SELECT l.slug FROM listings l LEFT JOIN weekly_votes w ON w.week = ?1 AND w.listing_id = l.id
		WHERE l.launch_week = ?1 AND l.status = 'live' ORDER BY coalesce(w.votes,0), l.id DESC LIMIT 1`, this)
	// One of demo@launchdir.local's listings of an earlier week (relaunched below).
	owned, prev, _ := strings.Cut(scalar(`SELECT l.slug || ' ' || l.launch_week FROM listings l JOIN listing_owners o ON o.listing_id = l.id
		JOIN users u ON u.id = o.user_id WHERE u.email = 'demo@launchdir.local' AND l.status = 'live' AND l.launch_week < ?1
		AND EXISTS (SELECT 1 FROM launches n WHERE n.listing_id = l.id AND n.week = l.launch_week AND n.votes > 0)
		ORDER BY l.launch_week DESC, l.id LIMIT 1`, this), " ")
	bottomAt, ownedAt := pos(this, bottom), pos(prev, owned)
	for i := range 3 {
		p := signUp(t, e, "ranker"+strconv.Itoa(i)+"@example.com")
		for _, slug := range []string{bottom, owned} {
			p.get("/listings/" + slug)
			if r := p.post("/listings/"+slug+"/vote", url.Values{}); r.status != 303 {
				t.Fatalf("vote on %s: %d %s", slug, r.status, r.body)
			}
		}
	}
	check("after votes", this, last, prev)
	if pos(this, bottom) >= bottomAt || pos(prev, owned) != ownedAt {
		t.Fatalf("votes: %s at %d (was %d), %s at %d (was %d)", bottom, pos(this, bottom), bottomAt, owned, pos(prev, owned), ownedAt)
	}

	// A ban takes the voter's votes out of the counts (weekly ones too).
	voter := scalar(`SELECT id FROM users WHERE email = 'ranker0@example.com'`)
	if pg := admin.post("/admin/accounts/"+voter+"/ban", "/admin/moderation", url.Values{"reason": {"vote ring"}}); pg.status != 303 {
		t.Fatalf("ban: %d %s", pg.status, pg.body)
	}
	check("after a ban", this, last, prev)

	// The site team moves a scheduled listing to another week.
	var moved, from string
	e.DB.R.QueryRow(`SELECT id, launch_week FROM listings WHERE status = 'scheduled' AND launch_week > ? ORDER BY id LIMIT 1`, this).Scan(&moved, &from)
	to := scalar(`SELECT date(?, '+14 days')`, from)
	if pg := admin.post("/admin/weeks/move", "/admin/weeks", url.Values{"listing_id": {moved}, "week": {to}}); pg.status != 303 || pg.loc != "/admin/weeks?done=moved" {
		t.Fatalf("move %s to %s: %d %s %s", moved, to, pg.status, pg.loc, pg.body)
	}
	check("after a move", from, to)

	// A paid relaunch books the earlier week's listing into next week as
	// well: it stays live (its page answers), keeps its place in its first
	// week and joins next week's list with no votes there yet.
	const next = "2026-11-23"
	key := e.APIKey("demo@launchdir.local")
	id := scalar(`SELECT id FROM listings WHERE slug = ?`, owned)
	r := e.Do("POST", "/api/v1/orders/checkout", apitest.Order(apitest.OrderItem("relaunch", "listing_id", mustAtoi(t, id), "week", next)), apitest.Bearer(key)...)
	if r.Status != 201 {
		t.Fatalf("checkout: %d %s", r.Status, r.Body)
	}
	payURL, _ := r.JSON()["checkout_url"].(string)
	b := newVisitor(t, e)
	if pay := b.get(strings.TrimPrefix(payURL, e.URL)); pay.status != 200 {
		t.Fatalf("checkout page: %d %s", pay.status, pay.body)
	}
	if r := b.post(strings.TrimPrefix(payURL, e.URL), url.Values{"action": {"succeed"}, "method": {"card"}}); r.status != 303 {
		t.Fatalf("pay: %d %s", r.status, r.body)
	}
	if w := scalar(`SELECT status || ' ' || launch_week || ' ' || (SELECT group_concat(week || '/' || relaunch || '/' || votes, ' ')
		FROM (SELECT * FROM launches WHERE listing_id = l.id ORDER BY week)) FROM listings l WHERE id = ?`, id); !strings.HasPrefix(w, "live "+prev+" "+prev+"/0/") || !strings.HasSuffix(w, " "+next+"/1/0") {
		t.Fatalf("relaunched listing: %q, want live, first week %s kept and %s added", w, prev, next)
	}
	check("after a relaunch", this, prev, next)
	if pos(prev, owned) != ownedAt || pos(next, owned) == -1 {
		t.Fatalf("relaunched %s: at %d in %s (was %d), or not in %s", owned, pos(prev, owned), prev, ownedAt, next)
	}
	if r := e.Do("GET", "/api/v1/listings/"+owned, nil); r.Status != 200 {
		t.Fatalf("relaunched listing's public page: %d", r.Status)
	}
}

func mustAtoi(t *testing.T, s string) int {
	t.Helper()
	n, err := strconv.Atoi(s)
	if err != nil {
		t.Fatal(err)
	}
	return n
}
