package demo

// Word lists the generator combines into names, people, places and prose.
// Slices, never maps, so that picking from them is deterministic.

// nameRoots start product names ("Ledger" + "ly" → "Ledgerly").
var nameRoots = []string{
	"Ledger", "Pixel", "Nimbus", "Orbit", "Quill", "Sprout", "Beacon", "Cobalt", "Pulse", "Harbor",
	"Atlas", "Echo", "Fable", "Glide", "Kite", "Lumen", "Maple", "Nova", "Prism", "Relay",
	"Signal", "Tandem", "Vault", "Zephyr", "Cipher", "Drift", "Ember", "Forge", "Grove", "Halo",
	"Iris", "Juniper", "Koala", "Lark", "Mosaic", "Nectar", "Otter", "Pebble", "Quartz", "Ripple",
	"Saffron", "Thistle", "Umber", "Vela", "Willow", "Yarrow", "Zinc", "Anchor", "Bramble", "Cinder",
	"Dapple", "Flint", "Gable", "Hearth", "Indigo", "Jolt", "Kelp", "Lattice", "Meadow", "Nook",
	"Onyx", "Pilot", "Quest", "Rook", "Slate", "Tidal", "Upward", "Vivid", "Wren", "Yonder",
	"Acorn", "Birch", "Canopy", "Delta", "Fern", "Gusto", "Hatch", "Inkwell", "Jasper", "Keystone",
	"Loom", "Magnet", "North", "Oak", "Paper", "Quiet", "Radar", "Sable", "Timber", "Verve",
	"Whisk", "Axis", "Bolt", "Crisp", "Dune", "Fathom", "Glow", "Hive", "Ivy", "Jade",
	"Lime", "Mint", "Orca", "Plume", "Rally", "Spruce", "Tally", "Vista", "Wisp", "Copper",
	"Lantern", "Marble", "Sonar", "Tether", "Cairn", "Scribe", "Folio", "Pocket", "Cove", "Ridge",
	"Summit", "Bloom", "Spark", "Cargo", "Parcel", "Fluent", "Tempo", "Cadence", "Chorus", "Sketch",
	"Canvas", "Frame", "Pivot", "Lucid", "Beam", "Cedar", "Dawn", "Falcon", "Gravel", "Heron",
}

// nameSecondWords make two-word names ("Quiet Studio").
var nameSecondWords = []string{"Labs", "HQ", "Studio", "Works", "Cloud", "AI", "App", "Systems", "Club", "Co"}

// nameSuffixes end product names; they are appended in lower case.
var nameSuffixes = []string{
	"ly", "ify", "io", "hq", "base", "flow", "kit", "stack", "hub", "lab",
	"desk", "wise", "loop", "nest", "note", "pad", "dock", "mint", "craft", "sync",
	"ops", "bay", "works", "spot", "sense", "scope", "board", "cast", "mate", "bit",
	"box", "grid", "ware", "path", "line", "beam", "form", "deck", "ai", "able",
}

var tlds = []string{".com", ".io", ".app", ".dev", ".co", ".ai", ".so", ".xyz"}

// domainPrefixes make a taken domain available again ("getledgerly.com").
var domainPrefixes = []string{"", "get", "use", "try", "join", "hello"}

var adjectives = []string{
	"simple", "fast", "friendly", "privacy-first", "open", "lightweight", "modern", "calm",
	"no-nonsense", "AI-assisted", "collaborative", "delightful", "opinionated", "affordable",
}

var firstNames = []string{
	"Maya", "Liam", "Sofia", "Noah", "Aisha", "Lucas", "Chloe", "Mateo", "Priya", "Elias",
	"Hannah", "Kenji", "Amara", "Jonas", "Isabel", "Ravi", "Freya", "Tomás", "Leila", "Oscar",
	"Nadia", "Felix", "Yuki", "Daniel", "Zara", "Henrik", "Camille", "Arjun", "Elena", "Marcus",
	"Ingrid", "Diego", "Aaliyah", "Sebastian", "Mei", "Omar", "Clara", "Theo", "Ananya", "Lukas",
	"Fatima", "Julien", "Sara", "Kwame", "Olivia", "Matteo", "Nora", "Samuel", "Lina", "Ethan",
	"Ada", "Rafael", "Emma", "Tariq", "Greta", "Hugo", "Ines", "Jakub", "Kira", "Leon",
	"Marta", "Nikhil", "Paula", "Quentin", "Rosa", "Stefan", "Tara", "Victor", "Wanjiru", "Ximena",
	"Yara", "Zoe", "Bruno", "Carmen", "Dev", "Astrid", "Chidi", "Emil", "Farah", "Gabriel",
}

var lastNames = []string{
	"Chen", "Okafor", "Müller", "Silva", "Patel", "Johansson", "García", "Kim", "Novak", "Rossi",
	"Dubois", "Nakamura", "Andersen", "Khan", "Schmidt", "Fernandes", "O'Brien", "Kowalski", "Haddad", "Larsen",
	"Moreau", "Tanaka", "Ivanova", "Mensah", "Bergström", "Costa", "Walsh", "Reddy", "Lindqvist", "Romero",
	"Weber", "Sato", "Nguyen", "Fischer", "Adeyemi", "Martin", "Hughes", "Sharma", "Visser", "Bianchi",
	"Jensen", "Lopez", "Meyer", "Park", "Singh", "de Vries", "Murphy", "Rahman", "Santos", "Keller",
	"Ito", "Wagner", "Ortiz", "Cohen", "Eriksson", "Mbeki", "Laurent", "Brennan", "Takahashi", "Varga",
	"Hoffmann", "Alves", "Byrne", "Iyer", "Nilsson", "Torres", "Becker", "Yamamoto", "Kaur", "Petrov",
}

var founderTitles = []string{
	"Co-founder & CEO", "Co-founder & CTO", "Founder", "Co-founder, Product", "Founder & Designer",
	"Co-founder & COO", "Solo founder", "Founder & Engineer", "Co-founder, Growth", "Co-founder & Head of Design",
}

var formerEmployers = []string{
	"Stripe", "Shopify", "Spotify", "Atlassian", "a Series B fintech", "Google", "Booking.com", "Zalando",
	"a YC-backed startup", "Monzo", "Canva", "Intercom", "Deliveroo", "Figma", "Twilio", "HubSpot",
	"Klarna", "SAP", "Microsoft", "a design agency", "a university research lab", "a hospital IT team",
	"a national newspaper", "an e-commerce scale-up",
}

var formerRoles = []string{
	"a staff engineer", "a product manager", "a product designer", "a data scientist", "head of growth",
	"a support lead", "an engineering manager", "a management consultant", "a freelance developer", "a UX researcher",
}

var founderHobbies = []string{
	"Runs a small newsletter about bootstrapping.", "Writes about remote teams and async work.",
	"Mentors first-time founders at a local accelerator.", "Spends weekends climbing and fixing old bikes.",
	"Speaks at meetups about pragmatic software design.", "Believes good tools should feel calm.",
	"Has shipped three side projects before this one.", "Bakes sourdough between releases.",
	"Organises a monthly indie hackers breakfast.", "Contributes to open source on weekends.",
}

// place is a country with cities; weight makes the US and Europe common.
type place struct {
	Code   string
	Cities []string
	Weight int
}

var places = []place{
	{"US", []string{"San Francisco", "New York", "Austin", "Seattle", "Boston", "Denver", "Chicago", "Los Angeles", "Miami"}, 30},
	{"GB", []string{"London", "Manchester", "Edinburgh", "Bristol", "Cambridge"}, 9},
	{"DE", []string{"Berlin", "Munich", "Hamburg", "Cologne"}, 7},
	{"FR", []string{"Paris", "Lyon", "Nantes", "Bordeaux"}, 6},
	{"NL", []string{"Amsterdam", "Rotterdam", "Utrecht"}, 4},
	{"ES", []string{"Barcelona", "Madrid", "Valencia"}, 4},
	{"IN", []string{"Bengaluru", "Mumbai", "Pune", "Hyderabad", "Delhi"}, 7},
	{"CA", []string{"Toronto", "Vancouver", "Montreal"}, 5},
	{"AU", []string{"Sydney", "Melbourne", "Brisbane"}, 4},
	{"SE", []string{"Stockholm", "Gothenburg", "Malmö"}, 3},
	{"BR", []string{"São Paulo", "Rio de Janeiro", "Florianópolis"}, 3},
	{"PT", []string{"Lisbon", "Porto"}, 2},
	{"IE", []string{"Dublin", "Cork"}, 2},
	{"PL", []string{"Warsaw", "Kraków"}, 2},
	{"EE", []string{"Tallinn"}, 1},
	{"SG", []string{"Singapore"}, 2},
	{"JP", []string{"Tokyo", "Osaka"}, 2},
	{"NG", []string{"Lagos", "Abuja"}, 2},
	{"KE", []string{"Nairobi"}, 1},
	{"MX", []string{"Mexico City", "Guadalajara"}, 2},
	{"AR", []string{"Buenos Aires"}, 1},
	{"IL", []string{"Tel Aviv"}, 2},
	{"CH", []string{"Zurich", "Geneva"}, 1},
	{"DK", []string{"Copenhagen"}, 1},
	{"FI", []string{"Helsinki"}, 1},
	{"NZ", []string{"Auckland", "Wellington"}, 1},
}

// socialKeys are the only keys a socials object may hold, in the order the
// generator considers them.
var socialKeys = []string{
	"linkedin", "x", "facebook", "instagram", "youtube", "tiktok", "github",
	"reddit", "medium", "substack", "producthunt", "discord", "website", "custom",
}

// socialOdds is the percentage chance a listing has each of socialKeys.
var socialOdds = []int{70, 75, 25, 30, 20, 8, 30, 10, 12, 10, 35, 20, 15, 8}

var emailLocals = []string{"hello", "team", "support", "founders", "hi", "contact"}

var taglineTemplates = []string{
	"{Verb} {noun} without the busywork",
	"The {adj} {kind} for {audience}",
	"{Verb} {noun} in minutes, not days",
	"{Verb} and {verb2} {noun} in one place",
	"{A_adj} {kind} built for {audience}",
	"Stop {pain}",
	"Helps {audience} {verb} {noun}",
	"{Verb} {noun} on autopilot",
	"Your {adj} home for {noun}",
	"{Verb} {noun} like the best teams do",
}

var shortTemplates = []string{
	"{Name} helps {audience} {verb} {noun} with {f1}.",
	"{Name} is {a_adj} {kind} for {audience}. It brings {f1} and {f2} together.",
	"{A_adj} {kind}: {verb} {noun}, get {f1} and stop {pain}.",
}

var introTemplates = []string{
	"{Name} is {a_adj} {kind} that helps {audience} {verb} {noun}. Instead of {pain}, you get one place where {noun2} stay organised and up to date.",
	"We built {Name} because {pain} was eating hours of our week. It is {a_adj} {kind} for {audience} who want to {verb} {noun} without stitching five tools together.",
	"{Name} gives {audience} a calm, fast way to {verb} {noun}. It started as an internal tool and grew into {a_adj} {kind} used by teams of every size.",
}

var howTemplates = []string{
	"Setup takes a few minutes: connect {integration}, invite your team and {Name} starts to {verb2} {noun2} automatically. Everything is searchable, and nothing is locked away in someone's inbox.",
	"Under the hood, {Name} watches for changes and keeps {noun2} in sync with {integration} and {integration2}. When something needs attention, you get one clear notification instead of ten noisy ones.",
	"The core workflow is deliberately small. You {verb} {noun}, {Name} suggests what to do next, and a weekly summary shows what changed. Power users can script everything through the API.",
}

var featureTemplates = []string{
	"Highlights include {f1}, {f2} and {f3}. Each feature was shaped by interviews with {audience2}, so the defaults are sensible and settings stay out of the way.",
	"Teams pick {Name} for {f1} and {f2}; they stay for the small things, like {f3} and keyboard shortcuts for every action.",
}

var teamTemplates = []string{
	"{Name} is made by a small, independent team based in {city}. We ship improvements every week and read every piece of feedback ourselves.",
	"Today {Name} is used by {count} {audience} across {ncountries} countries. The roadmap is public, and the next big release focuses on {f4}.",
	"Pricing is simple: {pricing}. There is no sales call, no lock-in, and your data can be exported at any time.",
}

var uspTemplates = []string{
	"Set up in under {n} minutes",
	"No credit card required to start",
	"GDPR-compliant with EU data hosting",
	"Human support from the founders",
	"Export all your data at any time",
	"Works with {integration} out of the box",
	"Built specifically for {audience}",
	"Saves teams about {n} hours a month",
	"Transparent, public roadmap",
	"Keyboard-first, fast interface",
}

var updateTemplates = []struct{ Title, Body string }{
	{"Shipped: {f1}", "{F1} is now available on every plan. Thanks to everyone who asked for it during launch week."},
	{"{Name} now integrates with {integration}", "Connect {integration} from the settings page and {noun} sync both ways within seconds."},
	{"We just crossed {count} users", "A huge thank you to the {audience} who trusted us early. Next up: {f2}."},
	{"Simpler pricing", "We merged our plans into two tiers. Existing customers keep their current price for life."},
	{"Dark mode is here", "The most requested feature of the year. It follows your system setting automatically."},
	{"Our public roadmap is live", "You can now vote on what we build next. The top item right now is {f3}."},
	{"Thank you for an amazing launch week", "We met hundreds of new {audience} and fixed 40 small bugs. Keep the feedback coming."},
}

var reviewBodies = [6][]string{
	{"Spam"},
	{"Could not get it to work with our setup and support was slow to reply.", "Too expensive for what it does right now."},
	{"Promising, but still missing {f2}. Will check back in a few months.", "Onboarding was confusing, though the core idea is good."},
	{"Solid tool. Does what it says, a few rough edges in the UI.", "Good value; the {f1} saves us time every week."},
	{"We moved our whole team over in a day. Love the {f1}.", "Clean, fast and the founders actually listen. Recommended for {audience}.", "Replaced two tools for us. Setup took minutes."},
	{"Best {kind} we have tried, and we tried many. The {f1} alone is worth it.", "Exactly what {audience} need. Support answered within the hour.", "Genuinely delightful to use. Our team opens it every morning."},
}

// spamReviews are the kind of review moderation flags as not genuine.
var spamReviews = []string{
	"Great product!!! Check out my site for cheap followers",
	"Amazing amazing amazing best app ever 10/10",
	"Terrible. (Posted by a competitor, flagged by moderation.)",
	"Use my referral code for free credits!!!",
}

var storyTitles = []string{
	"From a weekend script to a real business", "Why we quit our jobs to build {Name}",
	"Building {Name} in public", "The long road to product-market fit",
}

var milestoneTitles = []string{
	"Wrote the first line of code", "First prototype shared with friends", "First paying customer",
	"Hired our first engineer", "Raised a pre-seed round", "Reached $10k MRR", "Launched on launchdir",
	"Passed 1,000 users", "Opened our public API", "Became profitable",
}

var mediaCaptions = []string{
	"Dashboard overview", "Onboarding in three steps", "Weekly report", "Settings and integrations",
	"Mobile view", "Team workspace", "Search across everything", "Dark mode",
}

var reviewerNames = []string{
	"Alex", "Sam", "Jordan", "Taylor", "Robin", "Casey", "Morgan", "Jamie", "Riley", "Avery",
	"Charlie", "Drew", "Emerson", "Finley", "Harper", "Kai", "Logan", "Parker", "Quinn", "Rowan",
}

var revenueSources = []string{"stripe", "paddle", "lemonsqueezy", "self-reported"}
