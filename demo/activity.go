package demo

import (
	"math"
	"sort"
	"strconv"
	"time"
)

// Community activity around a listing: votes, views, follows, reviews,
// updates, FAQs, Domain Rating and revenue.

const (
	voteWindowWeeks = 16    // votes exist for the last 16 weeks only
	voterPool       = 50000 // visitor ids v1..v50000
)

// level sets how much activity a listing gets: the demo is rich, the
// benchmark seed lighter.
type level struct {
	rich       bool
	voteScale  float64
	viewDays   int
	drPoints   func(g *gen) int
	faqPercent int
}

var demoLevel = level{rich: true, voteScale: 1, viewDays: 60, drPoints: func(g *gen) int { return 6 + g.r.IntN(7) }, faqPercent: 75}
var seedLevel = level{rich: false, voteScale: 0.4, viewDays: 3, drPoints: func(*gen) int { return 3 }, faqPercent: 30}

func (g *gen) activity(l *listing, lv level) {
	if l.Status != "draft" && g.chance(lv.faqPercent) {
		g.faqs(l, 2+g.r.IntN(5))
	}
	switch l.Status {
	case "live":
		g.castVotes(l, lv)
		g.dailyViews(l, lv.viewDays)
		g.follows(l, l.LaunchedAt, len(l.Votes)/6+g.r.IntN(4))
		g.reviews(l, lv.rich)
		g.updates(l, lv.rich)
		g.revenue(l)
		g.trophyCabinet(l)
	case "scheduled":
		g.previewViews(l)
		g.follows(l, l.CreatedAt, g.r.IntN(5))
	case "archived":
		g.reviews(l, false)
	}
	if l.Status == "live" || l.Status == "scheduled" || l.Status == "archived" {
		g.domainRatings(l, lv.drPoints(g))
	}
}

// castVotes spreads votes mostly over the first days after launch, as on
// a real weekly board; listings older than the vote window get a trickle.
func (g *gen) castVotes(l *listing, lv level) {
	windowStart := g.now.AddDate(0, 0, -7*voteWindowWeeks)
	from, old := l.LaunchedAt, l.LaunchedAt.Before(windowStart)
	n := 0
	if old {
		from, n = windowStart, g.r.IntN(7)
	} else {
		x := g.r.Float64()
		n = 3 + int(140*x*x*x)
		if l.Plan == "paid" {
			n = n * 14 / 10
		}
	}
	n = int(float64(n) * lv.voteScale)
	start := g.r.IntN(voterPool)
	perWeek := map[string]int{}
	var weeks []string
	for k := 0; k < n; k++ {
		t := g.voteTime(from, old)
		l.Votes = append(l.Votes, vote{Voter: "v" + strconv.Itoa((start+k)%voterPool+1), At: t})
		w := date(monday(t))
		if perWeek[w] == 0 {
			weeks = append(weeks, w)
		}
		perWeek[w]++
	}
	sort.Strings(weeks)
	for _, w := range weeks {
		wc := weekCount{Week: w, ListingID: l.ID, Votes: perWeek[w]}
		l.Weekly = append(l.Weekly, wc)
		// Award candidates are launches: only the listing's count in its
		// own launch week can win that week (votes in later weeks count
		// toward all-time votes, not toward another week's awards).
		if !l.Week.IsZero() && w == date(l.Week) {
			g.weekly = append(g.weekly, wc)
		}
	}
	if len(g.weekly) > 2*g.weeklyKept+100000 {
		g.pruneWeekly()
	}
	l.Trending = g.trendingScore(l.Votes)
}

func (g *gen) voteTime(from time.Time, old bool) time.Time {
	if !old && g.chance(75) {
		t := from.Add(time.Duration(g.r.ExpFloat64() * 2 * 24 * float64(time.Hour))).Truncate(time.Second)
		if t.Before(g.now) {
			return t
		}
	}
	return g.between(from, g.now)
}

// trendingScore counts each vote of the last 7 days fully and decays older
// votes with a one-week half-life-like exponential.
func (g *gen) trendingScore(votes []vote) float64 {
	s := 0.0
	for _, v := range votes {
		age := g.now.Sub(v.At).Hours() / 24
		if age <= 7 {
			s++
		} else {
			s += math.Exp(-(age - 7) / 7)
		}
	}
	return math.Round(s*1000) / 1000
}

// dailyViews peaks on launch day and settles to a steady trickle.
func (g *gen) dailyViews(l *listing, days int) {
	launchDay := dayStart(l.LaunchedAt)
	first := launchDay
	if lim := g.today.AddDate(0, 0, -(days - 1)); first.Before(lim) {
		first = lim
	}
	base := 10 + g.r.IntN(150)
	if l.Plan == "paid" {
		base = base * 3 / 2
	}
	for d := first; !d.After(g.today); d = d.AddDate(0, 0, 1) {
		since := d.Sub(launchDay).Hours() / 24
		v := float64(base) * (1 + 4*math.Exp(-since/2)) / (1 + since/20) * (0.6 + 0.8*g.r.Float64())
		l.Views = append(l.Views, dayViews{Day: date(d), Views: int(v)})
	}
}

// previewViews are the few visits an upcoming launch gets.
func (g *gen) previewViews(l *listing) {
	first := dayStart(l.CreatedAt)
	if lim := g.today.AddDate(0, 0, -6); first.Before(lim) {
		first = lim
	}
	for d := first; !d.After(g.today); d = d.AddDate(0, 0, 1) {
		l.Views = append(l.Views, dayViews{Day: date(d), Views: 1 + g.r.IntN(15)})
	}
}

func (g *gen) follows(l *listing, since time.Time, n int) {
	for _, i := range g.r.Perm(visitors)[:min(n, visitors)] {
		l.Follows = append(l.Follows, follow{UserID: int64(firstVisitorID + i), At: g.between(since, g.now)})
	}
}

// reviews are mostly positive; about one in ten is flagged as not genuine
// and must not count towards the rating.
func (g *gen) reviews(l *listing, rich bool) {
	counts := []int{0, 0, 1, 1, 2, 2, 3, 4, 5, 7}
	if !rich {
		counts = []int{0, 0, 0, 1, 2}
	}
	for range pick(g, counts) {
		rv := review{Genuine: !g.chance(10), At: g.between(l.LaunchedAt, g.now)}
		rv.Author = pick(g, reviewerNames) + " " + pick(g, lastNames)[:1] + "."
		if rv.Genuine {
			rv.Rating = 5 - g.weighted([]int{40, 32, 14, 8, 6})
			rv.Body = l.words.fill(pick(g, reviewBodies[rv.Rating]))
		} else {
			rv.Rating = pick(g, []int{1, 5})
			rv.Body = pick(g, spamReviews)
		}
		l.Reviews = append(l.Reviews, rv)
	}
	sort.SliceStable(l.Reviews, func(i, j int) bool { return l.Reviews[i].At.Before(l.Reviews[j].At) })
}

func (g *gen) updates(l *listing, rich bool) {
	n := g.r.IntN(2)
	if rich {
		n = g.r.IntN(5)
	}
	for _, u := range sample(g, updateTemplates, n) {
		l.Updates = append(l.Updates, update{Title: l.words.fill(u.Title), Body: l.words.fill(u.Body), At: g.between(l.LaunchedAt, g.now)})
	}
	sort.SliceStable(l.Updates, func(i, j int) bool { return l.Updates[i].At.Before(l.Updates[j].At) })
}

func (g *gen) faqs(l *listing, n int) {
	region := pick(g, []string{"EU (Frankfurt)", "US (Virginia)", "EU (Dublin)", "UK (London)"})
	candidates := []faq{
		{"Who is {Name} for?", "{Name} is built for {audience} and {audience2} who want to {verb} {noun} without {pain}."},
		{"Is there a free plan?", freePlanAnswer(l)},
		{"How long does setup take?", "Most teams are up and running in under {n} minutes: connect {integration}, invite your team and you are done."},
		{"Does {Name} integrate with other tools?", "Yes. {Name} works with {integration} and {integration2} today, and the API covers everything else."},
		{"Where is my data stored?", "Data is encrypted at rest and stored in " + region + " data centres. You can export or delete it at any time."},
		{"Can I cancel at any time?", "Yes. Plans are month to month and you keep access until the end of the billing period."},
		{"What makes {Name} different?", "{F1}. Most alternatives treat it as an add-on; for us it is the core of the product."},
		{"Can I import my existing {noun}?", "Yes. Import from a CSV file or directly from {integration}; most imports finish in a few minutes."},
	}
	for _, q := range sample(g, candidates, n) {
		l.FAQs = append(l.FAQs, faq{Question: l.words.fill(q.Question), Answer: l.words.fill(q.Answer)})
	}
}

func freePlanAnswer(l *listing) string {
	switch l.PricingModel {
	case "free":
		return "Yes, {Name} is completely free."
	case "freemium":
		return "Yes. The free plan covers the basics for small teams; paid plans add more seats and automation."
	case "open-source":
		return "Yes. {Name} is open source and free to self-host; the hosted plan saves you the maintenance."
	default:
		if l.PricingNote != "" {
			return "There is no free plan, but you can try it first. Pricing: " + pricingPhrase(l) + "."
		}
		return "There is no free plan, but every plan starts with a free trial."
	}
}

// domainRatings records one measurement a month with a gentle trend; the
// listing's current value is the latest one.
func (g *gen) domainRatings(l *listing, points int) {
	v := 5 + g.r.IntN(60)
	slope := g.r.IntN(7) - 2
	month := time.Date(g.now.Year(), g.now.Month(), 1, 0, 0, 0, 0, time.UTC)
	for k := points - 1; k >= 0; k-- {
		r := min(max(v+g.r.IntN(5)-2, 0), 100)
		l.DR = append(l.DR, drPoint{On: date(month.AddDate(0, -k, 0)), Rating: r})
		l.DomainRating = r
		v = min(max(v+slope, 0), 100)
	}
}

// revenue goes to about 40% of live listings, those past the beta stage.
func (g *gen) revenue(l *listing) {
	if l.Stage != "launched" && l.Stage != "growth" && l.Stage != "profitable" || !g.chance(55) {
		return
	}
	lo, hi := math.Log(5_000), math.Log(8_000_000)
	if l.Stage == "profitable" {
		lo = math.Log(500_000)
	}
	cents := int(math.Exp(lo+g.r.Float64()*(hi-lo))) / 100 * 100
	rv := &revenue{MRRCents: max(cents, 100), Source: "self-reported", At: g.now.AddDate(0, 0, -g.r.IntN(20))}
	if g.chance(45) {
		rv.Verified, rv.Source = true, pick(g, revenueSources[:3])
	}
	l.Revenue = rv
}

// billboard adds one to four contributions of at least the minimum.
func (g *gen) billboard(l *listing) {
	since := g.now.AddDate(0, 0, -56)
	if l.LaunchedAt.After(since) {
		since = l.LaunchedAt
	}
	for range 1 + g.r.IntN(4) {
		c := contribution{Cents: pick(g, []int{500, 1000, 1500, 2500, 5000, 10000}), At: g.between(since, g.now)}
		l.Billboard = append(l.Billboard, c)
	}
	sort.SliceStable(l.Billboard, func(i, j int) bool { return l.Billboard[i].At.Before(l.Billboard[j].At) })
}
