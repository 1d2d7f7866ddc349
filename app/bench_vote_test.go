package app_test

import (
	"testing"
	"time"

	"launchdir/apitest"
)

// BenchmarkVote is a signed-in person's vote, then its withdrawal, through
// the business layer the site's vote form calls: the vote row, the
// counters and the listing's ready-made profile (db/profiles.go), one
// write transaction each. go test ./app -run XXX -bench Vote
func BenchmarkVote(b *testing.B) {
	e := newPeopleEnv(b)
	fan, _ := e.person("bench-fan@example.com", true, 48*time.Hour)
	now, i := apitest.Now, 0
	for b.Loop() {
		if i++; i%25 == 0 { // past the per-account vote limit's window
			now = now.Add(11 * time.Minute)
			e.at(now)
		}
		if _, err := e.App.People.ToggleVote(bg, fan, "tablely", "10.1.0.1"); err != nil {
			b.Fatal(err)
		}
	}
}
