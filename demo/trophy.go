package demo

import (
	"sort"
	"strconv"
	"time"
)

// trophyCabinet fills the paid sections (story, milestones, media) that a
// listing has unlocked.
func (g *gen) trophyCabinet(l *listing) {
	if l.UnlockStory {
		l.Story = g.story(l)
	}
	if l.UnlockMiles {
		l.Milestones = g.milestones(l)
	}
	if l.UnlockMedia {
		l.Media = g.media(l)
	}
}

func (g *gen) story(l *listing) *story {
	v := l.words
	return &story{
		Title: v.fill(pick(g, storyTitles)),
		Story: v.fill("{Name} began as a side project to stop {pain}. A few friends started using it, then their friends did, " +
			"and within a year it had become our full-time job."),
		WhyStarted: v.fill("We were {audience} ourselves and kept {pain}. Every tool we tried was either too complex or did not care about {noun}."),
		Problem:    v.fill("{Audience} spend hours every week trying to {verb} {noun} with spreadsheets and chat threads. Important details get lost and nobody trusts the numbers."),
		Journey: v.fill("The first version took six weekends and one very patient beta tester. We rewrote it twice, added {f1} after dozens of interviews, " +
			"and grew mostly by word of mouth."),
		Challenges:   v.fill("Saying no. Every customer wanted a different feature, and keeping {Name} simple meant turning down good ideas."),
		Achievements: v.fill("Thousands of {audience} rely on {Name} every week, our churn is below 3% a month, and we are profitable without outside funding."),
		Lessons:      "Talk to users before writing code, charge from day one, and write down every decision so future you knows why.",
		Next:         v.fill("Next we are building {f2} and {f3}, and opening a public API."),
	}
}

// milestones picks a few of the standard milestones, in order, on dates
// between the founding and now.
func (g *gen) milestones(l *listing) []milestone {
	start := l.CreatedAt.AddDate(-1, 0, 0)
	if l.FoundedYear > 0 {
		start = time.Date(l.FoundedYear, 1, 1, 0, 0, 0, 0, time.UTC)
	}
	n := 3 + g.r.IntN(4)
	idx := g.r.Perm(len(milestoneTitles))[:n]
	sort.Ints(idx)
	dates := make([]time.Time, n)
	for i := range dates {
		dates[i] = g.between(start, g.now)
	}
	sort.Slice(dates, func(i, j int) bool { return dates[i].Before(dates[j]) })
	out := make([]milestone, n)
	for i, k := range idx {
		m := milestone{Date: date(dates[i]), Title: milestoneTitles[k], Description: "A moment the whole team will remember."}
		if g.chance(40) {
			m.URL = "https://" + l.Domain + "/blog/" + slugify(m.Title)
		}
		out[i] = m
	}
	return out
}

func (g *gen) media(l *listing) []media {
	var out []media
	for i, c := range sample(g, mediaCaptions, 2+g.r.IntN(4)) {
		out = append(out, media{Kind: "image", URL: "https://" + l.Domain + "/media/screenshot-" + strconv.Itoa(i+1) + ".png", Caption: c})
	}
	if g.chance(30) {
		out = append(out, media{Kind: "video", URL: "https://www.youtube.com/watch?v=" + g.randomToken(11, alnum), Caption: "Product demo"})
	}
	return out
}
