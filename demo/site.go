package demo

// Site-wide rows: products on sale, the founder interview and users.

type product struct {
	Code, Name, Description string
	PriceCents              int
	Options                 map[string][]string
	WeeklyCapacity          int // 0 = not week-bound (NULL)
}

// products are listed in display order; every one applies to a listing.
// They match the catalogue migration 0002 installs, which wins when present.
var products = []product{
	{"launch", "Paid launch", "Skip the free queue: go live now or in a chosen launch week. Upgrades a free listing to paid and unlocks story, milestones and media.", 4900, nil, 20},
	{"featured", "Featured placement", "Pin your listing above the weekly board for one booked week, on the homepage or in your category.", 9900,
		map[string][]string{"placement": {"homepage", "category"}}, 3},
	{"done_for_you", "Done-for-you listing", "Our team writes your listing, FAQs and founder story from your website and a short call.", 19900, nil, 0},
	{"launch_bundle", "Launch bundle", "Paid launch in the booked week, featured placement on the homepage that week and an AI listing review, at a discount.", 12900, nil, 0},
	{"extra_categories", "Extra categories", "Appear in up to three more categories and their compare tables. Priced per category.", 1900, nil, 0},
	{"relaunch", "Relaunch", "Launch again in a booked week after a major release; your listing returns to that week's board.", 2900, nil, 10},
	{"ai_review", "AI listing review", "A detailed review of your listing copy, positioning and SEO, checked by a human editor.", 3900, nil, 0},
	{"billboard_min", "Billboard contribution", "Add to your billboard total to climb the paid billboard ranking. The price is the minimum contribution; pay more with amount_cents.", 500, nil, 0},
	{"trophy_cabinet", "Trophy cabinet", "Unlock the story, milestones and media sections of your listing.", 2900, nil, 0},
	{"trophy_plaque", "Award plaque", "A physical plaque engraved with your launch award, shipped worldwide.", 7900,
		map[string][]string{"finish": {"oak", "walnut", "black"}, "size": {"small", "large"}}, 0},
}

type question struct{ Question, Hint string }

var interviewQuestions = []question{
	{"What are you building, in one sentence?", "Say it the way you would to a friend, not an investor."},
	{"What problem made you start?", "A specific moment or frustration works better than a market size."},
	{"Who is it for?", "Describe the person who gets the most out of it."},
	{"What did you do before this?", "Jobs, projects or studies that led you here."},
	{"How did you find your first ten users?", "Channels, communities, cold emails: what actually worked."},
	{"What was the hardest part so far?", "Technical, personal or commercial; be honest."},
	{"What would you do differently if you started again?", "One or two lessons are plenty."},
	{"How do you make money?", "Pricing, plans and what surprised you about it."},
	{"What does a normal working day look like?", "Tools, rituals, time zones."},
	{"Which tools could you not work without?", "Three to five favourites."},
	{"What are you most proud of?", "A metric, a customer message or a shipped feature."},
	{"What is next for your product?", "The next milestone or release."},
	{"What advice would you give someone launching this week?", "Something practical they can do today."},
	{"Where can people follow your journey?", "Newsletter, social profiles or a public roadmap."},
}

type user struct {
	ID      int64
	Email   string
	Name    string
	IsAdmin bool
}

// Fixed users. The demo owner comes first so its id is always 1.
const (
	demoUserID  = 1
	adminUserID = 2
	visitors    = 60 // user1..user60@example.com, who follow listings
)

var namedUsers = []user{
	{demoUserID, "demo@launchdir.local", "Demo Founder", false},
	{adminUserID, "admin@launchdir.local", "Site Admin", true},
	{3, "maya@orbitly.example", "Maya Chen", false},
	{4, "jonas@example.com", "Jonas Andersen", false},
	{5, "priya@example.com", "Priya Patel", false},
	{6, "kwame@example.com", "Kwame Mensah", false},
	{7, "camille@example.com", "Camille Moreau", false},
}

// firstVisitorID is the id of user1@example.com.
const firstVisitorID = 8
