package demo

import "time"

// The in-memory rows of one listing. Everything about a listing is built
// first and written afterwards, so maintained counters are exact by
// construction: they are computed from the very rows that get inserted.

type category struct {
	ID, ParentID int64 // ParentID 0 = top level
	Slug, Name   string
	Description  string
	Position     int
	Top          *topCategory
	Sub          *subcategory // nil for a top-level category
}

type founder struct {
	ID                int64
	Slug, Name, Title string
	Bio, Country      string
	Socials           map[string]string
	UserID            int64 // 0 = not linked to a user
	AvatarURL         string
	CreatedAt         time.Time
}

type listing struct {
	ID                                    int64
	Slug, Name, URL, Domain               string
	Tagline, Short, Description           string
	Stage, PricingModel, PricingNote      string
	Country, City                         string
	FoundedYear                           int // 0 = unknown (NULL)
	Email, VideoURL, LogoURL              string
	Features, USPs, Keywords, Tags        []string
	Headline, Summary                     string
	SEOTitle, SEODescription              string
	Socials                               map[string]string
	NotFound                              []string
	Attributes                            map[string]string
	Status, Plan                          string
	Week                                  time.Time // zero = no launch week
	LaunchedAt                            time.Time // zero = not launched
	Category                              *category
	Extra                                 []*category
	UnlockStory, UnlockMiles, UnlockMedia bool
	Trending                              float64
	Featured                              bool // holds a featured slot in its launch week (see launchLive)
	DomainRating                          int  // -1 = never measured (NULL)
	CreatedAt, UpdatedAt                  time.Time

	Founders   []*founder
	Owners     []owner
	FAQs       []faq
	Updates    []update
	Reviews    []review
	Votes      []vote
	Weekly     []weekCount
	Views      []dayViews
	Follows    []follow
	DR         []drPoint
	Revenue    *revenue
	Billboard  []contribution
	Story      *story
	Milestones []milestone
	Media      []media

	words *vocab // the words its prose was built from, reused by activity
}

type owner struct {
	UserID int64
	Role   string
}

type update struct {
	Title, Body string
	At          time.Time
}

type review struct {
	Author, Body string
	Rating       int
	Genuine      bool
	At           time.Time
}

type vote struct {
	Voter string
	At    time.Time
}

type weekCount struct {
	Week      string
	ListingID int64
	Votes     int
}

type dayViews struct {
	Day   string
	Views int
}

type follow struct {
	UserID int64
	At     time.Time
}

type drPoint struct {
	On     string
	Rating int
}

type revenue struct {
	MRRCents int
	Verified bool
	Source   string
	At       time.Time
}

type contribution struct {
	Cents int
	At    time.Time
}

type story struct {
	Title, Story, WhyStarted, Problem, Journey string
	Challenges, Achievements, Lessons, Next    string
}

type milestone struct {
	Date               string
	Title, Description string
	URL                string
}

type media struct {
	Kind, URL, Caption string
}

// Totals the listings row stores as maintained counters.

func (l *listing) views() int {
	n := 0
	for _, v := range l.Views {
		n += v.Views
	}
	return n
}

func (l *listing) rating() (sum, count int) {
	for _, r := range l.Reviews {
		if r.Genuine {
			sum += r.Rating
			count++
		}
	}
	return sum, count
}

func (l *listing) billboardCents() int {
	n := 0
	for _, c := range l.Billboard {
		n += c.Cents
	}
	return n
}
