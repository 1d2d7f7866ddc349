package site_test

import (
	"context"
	"encoding/json"
	"fmt"
	"net/url"
	"regexp"
	"strconv"
	"strings"
	"testing"
)

// placed is one listing in a week's ranking: its slug and its votes there.
type placed struct {
	Slug  string
	Votes int64
}

// TestOneRankingOnEverySurface computes a week's ranking from the votes
// table alone (counted votes cast in the week on listings launched in it,
// ties to the lower id) and checks that the home page, the week page, the
// API's week list and this-week section, the weekly community board (API
// and page), the badges and the Launch of the Week awards (the demo's and
// the service's own) all say the same, after a tie is made through the site.
func TestOneRankingOnEverySurface(t *testing.T) {
	ctx := context.Background()
	e := peopleEnv(t)
	const this, last = "2026-11-16", "2026-11-09"
	fromVotes := func(week string) []placed {
		t.Helper()
		rows, err := e.DB.W.Query(`SELECT l.slug, count(v.listing_id) FROM listings l
			JOIN (SELECT id FROM listings WHERE launch_week = ?1 UNION SELECT listing_id FROM launches WHERE week = ?1 AND relaunch = 1) k ON k.id = l.id
			LEFT JOIN votes v ON v.listing_id = l.id AND v.week = ?1 AND v.counted
			WHERE l.status IN ('live','scheduled') GROUP BY l.id ORDER BY count(v.listing_id) DESC, l.id`, week)
		if err != nil {
			t.Fatal(err)
		}
		defer rows.Close()
		var out []placed
		for rows.Next() {
			var p placed
			if err := rows.Scan(&p.Slug, &p.Votes); err != nil {
				t.Fatal(err)
			}
			out = append(out, p)
		}
		return out
	}
	// Make a tie in this week: the closest pair of neighbours, the lower
	// one voted up to the upper one's count through the site. The tie then
	// puts the older listing (lower id) first.
	want := fromVotes(this)
	best := -1
	for i := 0; i+1 < len(want); i++ {
		if d := want[i].Votes - want[i+1].Votes; d > 0 && (best < 0 || d < want[best].Votes-want[best+1].Votes) {
			best = i
		}
	}
	if best < 0 || want[best].Votes-want[best+1].Votes > 6 {
		t.Fatalf("no close pair to tie in %v", want)
	}
	for i := int64(0); i < want[best].Votes-want[best+1].Votes; i++ {
		p := signUp(t, e, fmt.Sprintf("tie%d@example.com", i))
		p.get("/listings/" + want[best+1].Slug)
		if r := p.post("/listings/"+want[best+1].Slug+"/vote", url.Values{}); r.status != 303 {
			t.Fatalf("vote: %d %s", r.status, r.body)
		}
	}
	want = fromVotes(this)
	ties := 0
	for i := 0; i+1 < len(want); i++ {
		if want[i].Votes == want[i+1].Votes && want[i].Votes > 0 {
			ties++
		}
	}
	if ties == 0 {
		t.Fatalf("no tie among voted listings: %v", want)
	}

	apiWeek := func(path string) []placed {
		t.Helper()
		var out []placed
		for pg := 1; ; pg++ {
			var b struct {
				Items []struct {
					Slug      string `json:"slug"`
					Rank      int    `json:"rank"`
					WeekVotes *int64 `json:"week_votes"`
				} `json:"items"`
			}
			r := e.Do("GET", fmt.Sprintf("%s&per_page=9&page=%d", path, pg), nil)
			if err := json.Unmarshal(r.Body, &b); err != nil || r.Status != 200 {
				t.Fatalf("%s page %d: %d %s", path, pg, r.Status, r.Body)
			}
			if len(b.Items) == 0 {
				return out
			}
			for _, it := range b.Items {
				if it.WeekVotes == nil || it.Rank != len(out)+1 {
					t.Fatalf("%s: %s has rank %d (want %d) and week votes %v", path, it.Slug, it.Rank, len(out)+1, it.WeekVotes)
				}
				out = append(out, placed{it.Slug, *it.WeekVotes})
			}
		}
	}
	apiBoard := func(week string) []placed {
		t.Helper()
		var out []placed
		for pg := 1; ; pg++ {
			var b struct {
				Items []struct {
					Rank    int
					Listing struct{ Slug string }
					Metric  struct{ Value int64 }
				} `json:"items"`
			}
			r := e.Do("GET", fmt.Sprintf("/api/v1/leaderboards/community-weekly?week=%s&per_page=9&page=%d", week, pg), nil)
			if err := json.Unmarshal(r.Body, &b); err != nil || r.Status != 200 {
				t.Fatalf("board page %d: %d %s", pg, r.Status, r.Body)
			}
			if len(b.Items) == 0 {
				return out
			}
			for _, it := range b.Items {
				if it.Rank != len(out)+1 {
					t.Fatalf("board: %s ranked %d, want %d", it.Listing.Slug, it.Rank, len(out)+1)
				}
				out = append(out, placed{it.Listing.Slug, it.Metric.Value})
			}
		}
	}
	voted := func(ps []placed) []placed {
		var out []placed
		for _, p := range ps {
			if p.Votes > 0 {
				out = append(out, p)
			}
		}
		return out
	}
	same := func(surface string, got, want []placed) {
		t.Helper()
		if fmt.Sprint(got) != fmt.Sprint(want) {
			t.Fatalf("%s disagrees with the votes table:\n got %v\nwant %v", surface, got, want)
		}
	}
	slugs := func(ps []placed) []string {
		var out []string
		for _, p := range ps {
			out = append(out, p.Slug)
		}
		return out
	}
	for _, week := range []string{this, last} {
		w := fromVotes(week)
		same("API week "+week, apiWeek("/api/v1/launches/weeks/"+week+"?x=1"), w)
		same("API board "+week, apiBoard(week), voted(w))
		// The week page (first page of 20 cards).
		v := newVisitor(t, e)
		pg := v.get("/launches/" + week)
		if got, n := cardSlugs(pg.body), min(20, len(w)); strings.Join(got, " ") != strings.Join(slugs(w[:n]), " ") {
			t.Fatalf("week page %s:\n got %v\nwant %v", week, got, slugs(w[:n]))
		}
		if !strings.Contains(pg.body, countText(w[0].Votes)+" in the week") {
			t.Fatalf("week page %s does not show the week's votes (%d) of %s", week, w[0].Votes, w[0].Slug)
		}
	}
	w := fromVotes(this)
	same("API this-week section", apiWeek("/api/v1/launches?section=this-week"), w)
	home := newVisitor(t, e).get("/")
	section := home.body[strings.Index(home.body, `id="week"`):]
	section = section[:strings.Index(section, "</section>")]
	if got, n := cardSlugs(section), min(20, len(w)); strings.Join(got, " ") != strings.Join(slugs(w[:n]), " ") {
		t.Fatalf("home page's week:\n got %v\nwant %v", got, slugs(w[:n]))
	}
	board := newVisitor(t, e).get("/leaderboards/community-weekly")
	var rows []string
	for _, m := range boardRow.FindAllStringSubmatch(board.body, -1) {
		rows = append(rows, m[1]+" "+m[2])
	}
	var wantRows []string
	for i, p := range voted(w)[:min(20, len(voted(w)))] {
		wantRows = append(wantRows, fmt.Sprintf("%d %s", i+1, p.Slug))
	}
	if strings.Join(rows, ", ") != strings.Join(wantRows, ", ") {
		t.Fatalf("board page:\n got %v\nwant %v", rows, wantRows)
	}
	// Badges: the first ten and both sides of the tie.
	for i, p := range w {
		if i >= 10 && !(i > 0 && w[i-1].Votes == p.Votes) {
			continue
		}
		svg := e.Do("GET", "/badges/"+p.Slug+".svg?shape=standard&mode=light&size=m", nil)
		if want := fmt.Sprintf("#%d this week", i+1); svg.Status != 200 || !strings.Contains(string(svg.Body), want) {
			t.Fatalf("badge of %s (place %d): %d, no %q in %s", p.Slug, i+1, svg.Status, want, svg.Body)
		}
	}

	// Awards: the demo's for last week, then the service's own, are the
	// first three of last week's ranking; nobody won in several weeks.
	awards := func() []placed {
		t.Helper()
		rows, err := e.DB.W.Query(`SELECT l.slug, a.votes FROM awards a JOIN listings l ON l.id = a.listing_id WHERE a.week = ? ORDER BY a.rank`, last)
		if err != nil {
			t.Fatal(err)
		}
		defer rows.Close()
		var out []placed
		for rows.Next() {
			var p placed
			rows.Scan(&p.Slug, &p.Votes)
			out = append(out, p)
		}
		return out
	}
	lw := voted(fromVotes(last))
	same("demo awards", awards(), lw[:3])
	if _, err := e.DB.W.Exec(`DELETE FROM awards WHERE week = ?`, last); err != nil {
		t.Fatal(err)
	}
	if err := e.App.Catalog.AwardWeeks(ctx); err != nil {
		t.Fatal(err)
	}
	same("service awards", awards(), lw[:3])
	r := e.Do("GET", "/api/v1/awards?listing="+lw[0].Slug, nil)
	if r.Status != 200 || !strings.Contains(string(r.Body), `"week":"`+last+`"`) {
		t.Fatalf("list_awards for %s: %d %s", lw[0].Slug, r.Status, r.Body)
	}
	var twice int
	e.DB.W.QueryRow(`SELECT count(*) FROM (SELECT listing_id FROM awards GROUP BY listing_id HAVING count(*) > 1)`).Scan(&twice)
	var outside int
	e.DB.W.QueryRow(`SELECT count(*) FROM awards a WHERE NOT EXISTS (SELECT 1 FROM launches n WHERE n.week = a.week AND n.listing_id = a.listing_id)`).Scan(&outside)
	if twice > 0 || outside > 0 {
		t.Fatalf("%d listings won in several weeks, %d awards went to listings that did not launch that week", twice, outside)
	}
}

var boardRow = regexp.MustCompile(`<tr><td>#(\d+)</td><td><a href="/listings/([a-z0-9-]+)"`)

var cardName = regexp.MustCompile(`<a class="name" href="/listings/([a-z0-9-]+)"`)

// cardSlugs lists the listings of the cards in a piece of a page, in order.
func cardSlugs(body string) []string {
	var out []string
	for _, m := range cardName.FindAllStringSubmatch(body, -1) {
		out = append(out, m[1])
	}
	return out
}

func countText(n int64) string {
	if n == 1 {
		return "1 vote"
	}
	return strconv.FormatInt(n, 10) + " votes"
}
