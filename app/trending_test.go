package app_test

import (
	"context"
	"math"
	"testing"
	"time"

	"launchdir/apitest"
)

// Trending decays as time passes: RefreshTrending scores each counted vote
// 1 within 7 days, exp(-(age-7)/7) after, nothing past 8 weeks, and the
// API's trending section follows the new order.
func TestRefreshTrendingDecays(t *testing.T) {
	e := newPeopleEnv(t)
	now := apitest.Now
	e.exec(`DELETE FROM votes`)
	e.exec(`UPDATE listings SET trending = 0`)
	e.exec(`UPDATE listings SET trending = 42 WHERE id = 1`) // a score with no votes behind it
	vote := func(listing int, voter string, age time.Duration, counted bool) {
		t.Helper()
		at := now.Add(-age)
		e.exec(`INSERT INTO votes(listing_id, voter, week, created_at, counted) VALUES(?,?,?,?,?)`,
			listing, voter, at.Format("2006-01-02"), at.UTC().Format(time.RFC3339), counted)
	}
	day := 24 * time.Hour
	// Listing 2: two fresh votes, one at the 7-day edge, one 14 days old.
	vote(2, "a", time.Hour, true)
	vote(2, "b", 3*day, true)
	vote(2, "c", 7*day, true)
	vote(2, "d", 14*day, true)
	// Listing 3: one fresh vote that does not count, and one 9 weeks old.
	vote(3, "e", time.Hour, false)
	vote(3, "f", 63*day, true)
	// Listing 4: one vote just inside the 8-week window.
	vote(4, "g", 56*day-time.Hour, true)
	if err := e.App.Catalog.RefreshTrending(context.Background()); err != nil {
		t.Fatal(err)
	}
	score := func(id int) float64 {
		var s float64
		if err := e.DB.R.QueryRow(`SELECT trending FROM listings WHERE id = ?`, id).Scan(&s); err != nil {
			t.Fatal(err)
		}
		return s
	}
	round := func(x float64) float64 { return math.Round(x*1000) / 1000 }
	for id, want := range map[int]float64{
		1: 0,
		2: round(3 + math.Exp(-1)),
		3: 0,
		4: round(math.Exp(-(56 - 1.0/24 - 7) / 7)),
	} {
		if got := score(id); math.Abs(got-want) > 0.0015 {
			t.Errorf("listing %d: trending %v, want %v", id, got, want)
		}
	}
	// A week later listing 2's fresh votes have aged too.
	e.at(now.Add(7 * day))
	if err := e.App.Catalog.RefreshTrending(context.Background()); err != nil {
		t.Fatal(err)
	}
	want := round(math.Exp(-(1.0/24)/7) + math.Exp(-3.0/7) + math.Exp(-1) + math.Exp(-2))
	if got := score(2); math.Abs(got-want) > 0.0015 {
		t.Errorf("a week later: trending %v, want %v", got, want)
	}
	// The trending section ranks by the refreshed scores.
	r := e.Do("GET", "/api/v1/launches?section=trending&per_page=1", nil)
	var slug string
	if err := e.DB.R.QueryRow(`SELECT slug FROM listings WHERE id = 2`).Scan(&slug); err != nil {
		t.Fatal(err)
	}
	items, _ := r.JSON()["items"].([]any)
	if len(items) != 1 || items[0].(map[string]any)["slug"] != slug {
		t.Errorf("trending first: %v, want %s", items, slug)
	}
}
