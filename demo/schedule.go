package demo

import "time"

// Launch scheduling: plans, launch weeks and the timestamps around them.

const (
	freeWeeklyCapacity = 10 // mirrors the free_weekly_capacity setting
	paidWeeklyCapacity = 20 // mirrors the launch product's weekly capacity
)

// weekLoad counts launches per week (keyed by weeks from now's week) so the
// demo never shows a week fuller than the site would allow.
type weekLoad struct{ free, paid map[int]int }

func newWeekLoad() *weekLoad { return &weekLoad{free: map[int]int{}, paid: map[int]int{}} }

// fits reports whether a launch fits week w, and books it if so.
func (wl *weekLoad) fits(w int, paid bool) bool {
	if wl == nil {
		return true
	}
	if paid {
		if wl.paid[w] >= paidWeeklyCapacity {
			return false
		}
		wl.paid[w]++
		return true
	}
	if wl.free[w] >= freeWeeklyCapacity {
		return false
	}
	wl.free[w]++
	return true
}

// liveOpts steers one live launch; the zero value means "anything goes".
type liveOpts struct {
	thisWeek, today, paid bool
	maxWeeksBack          int // 0 = the demo's default spread
}

// launchLive makes l a live listing launched in a past or the current week.
func (g *gen) launchLive(l *listing, load *weekLoad, o liveOpts) {
	paid := o.paid || g.chance(35)
	back := 0
	for try := 0; try < 60; try++ {
		if !o.thisWeek {
			back = g.weeksBack(o.maxWeeksBack)
		}
		if load.fits(-back, paid) {
			break
		}
	}
	l.Status, l.Plan = "live", planName(paid)
	l.Week = g.week0.AddDate(0, 0, -7*back)
	end := l.Week.AddDate(0, 0, 7)
	if end.After(g.now) {
		end = g.now
	}
	l.LaunchedAt = g.between(l.Week, end)
	if o.today {
		l.LaunchedAt = g.between(g.today, g.now)
	}
	l.CreatedAt = l.LaunchedAt.Add(-time.Duration(1+g.r.IntN(40*24)) * time.Hour)
	l.UpdatedAt = g.between(l.LaunchedAt, g.now)
	g.noteWeek(l.Week)
	if paid {
		g.paidExtras(l, 45)
	}
	// The first paid launches of this week hold its featured slots (the
	// product's weekly capacity), so the demo's home page shows the paid
	// placement. No random draw: the rest of the data stays as it was.
	if paid && back == 0 && g.featured < featuredSlots {
		l.Featured = true
		g.featured++
	}
}

// featuredSlots is the featured product's weekly capacity (migration 0002).
const featuredSlots = 3

// weeksBack spreads launches over the last 16 weeks, with a tail of older
// ones; maxBack > 0 spreads them evenly instead (benchmark data).
func (g *gen) weeksBack(maxBack int) int {
	if maxBack > 0 {
		return g.r.IntN(maxBack + 1)
	}
	if g.chance(80) {
		return g.r.IntN(16)
	}
	return 16 + g.r.IntN(12)
}

// schedule makes l a scheduled listing in one of the next eight weeks.
func (g *gen) schedule(l *listing, load *weekLoad) {
	paid := g.chance(40)
	ahead := 1
	for try := 0; try < 60; try++ {
		ahead = 1 + g.r.IntN(8)
		if load.fits(ahead, paid) {
			break
		}
	}
	l.Status, l.Plan = "scheduled", planName(paid)
	l.Week = g.week0.AddDate(0, 0, 7*ahead)
	l.CreatedAt = g.now.Add(-time.Duration(1+g.r.IntN(30*24)) * time.Hour)
	l.UpdatedAt = g.between(l.CreatedAt, g.now)
	g.noteWeek(l.Week)
	if paid {
		g.paidExtras(l, 0)
	}
}

// unlaunched covers draft, awaiting_badge and rejected listings (no week)
// and archived ones (launched long ago, then taken down).
func (g *gen) unlaunched(l *listing, status string) {
	l.Status = status
	switch status {
	case "draft":
		l.Plan = "none"
	case "awaiting_badge", "rejected":
		l.Plan = "free"
	case "archived":
		paid := g.chance(30)
		l.Plan = planName(paid)
		l.Week = g.week0.AddDate(0, 0, -7*(30+g.r.IntN(20)))
		l.LaunchedAt = g.between(l.Week, l.Week.AddDate(0, 0, 7))
		l.CreatedAt = l.LaunchedAt.Add(-time.Duration(1+g.r.IntN(40*24)) * time.Hour)
		l.UpdatedAt = g.between(l.LaunchedAt, g.now)
		g.noteWeek(l.Week)
		return
	}
	l.CreatedAt = g.now.Add(-time.Duration(1+g.r.IntN(20*24)) * time.Hour)
	l.UpdatedAt = g.between(l.CreatedAt, g.now)
}

func planName(paid bool) string {
	if paid {
		return "paid"
	}
	return "free"
}

func (g *gen) noteWeek(w time.Time) {
	if g.earliestWeek.IsZero() || w.Before(g.earliestWeek) {
		g.earliestWeek = w
	}
}

// paidExtras adds up to three extra categories and, with unlockPercent
// chance, unlocks some of the trophy-cabinet sections.
func (g *gen) paidExtras(l *listing, unlockPercent int) {
	for _, c := range sample(g, g.leaves, g.r.IntN(4)) {
		if c != l.Category {
			l.Extra = append(l.Extra, c)
		}
	}
	if g.chance(unlockPercent) {
		l.UnlockStory, l.UnlockMiles, l.UnlockMedia = g.chance(70), g.chance(70), g.chance(70)
		if !l.UnlockStory && !l.UnlockMiles && !l.UnlockMedia {
			l.UnlockStory = true
		}
	}
}
