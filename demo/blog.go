package demo

// blogPost is a handwritten article; DaysAgo places it before Now so the
// posts spread over several months, newest first in this list.
type blogPost struct {
	Slug, Title, Summary, Author string
	Tags                         []string
	FAQs                         []faq
	DaysAgo                      int
	Body                         string
}

type faq struct {
	Question string `json:"question"`
	Answer   string `json:"answer"`
}

var blogPosts = []blogPost{
	{
		Slug: "how-to-prepare-for-launch-week", Title: "How to prepare for launch week",
		Summary: "A practical checklist for the two weeks before your product goes live on launchdir.",
		Author:  "Maya Chen", Tags: []string{"launch", "guide", "checklist"}, DaysAgo: 3,
		FAQs: []faq{
			{"When should I schedule my launch?", "Pick a week at least two weeks away so you have time to prepare assets and tell your audience."},
			{"Do I need a paid launch?", "No. Free launches join the queue; a paid launch lets you pick the exact week."},
		},
		Body: `Launch week rewards preparation far more than luck. The products that finish in the top three rarely have the biggest audiences; they have a clear story, a listing that answers questions before anyone asks them, and a plan for the days after launch.

## Two weeks before

- **Finish your listing.** Write a tagline that says what the product does, not how it feels. "Invoices that chase themselves" beats "The future of finance".
- **Add three to five FAQs.** Pricing, data storage and integrations are the questions every visitor has.
- **Record a short demo.** Ninety seconds is enough. Show the product doing the one thing it does best.
- **Check your website** for the basics the directory looks for: a pricing page, a contact address and links to your social profiles.

## The week before

Tell the people who already like you. Your newsletter, your community and your early users are the ones who will visit on day one. Do not ask for votes; ask for honest feedback. Votes follow when people care.

Prepare a short launch post for each channel you use. Reuse the same story, but adapt the format: a thread for X, a longer note for LinkedIn, a personal email to customers.

## On launch day

1. Post an update on your listing explaining what you shipped and why.
2. Reply to every comment and review within a few hours.
3. Share one concrete number at the end of the day, even if it is small.

## After launch week

The weekly board resets every Monday, but your listing stays. Keep posting updates, add milestones as you hit them and answer new reviews. Listings that stay active keep getting found through search, categories and [alternatives pages](/alternatives).

Launching is not a single day. It is the first public chapter of a story you will keep telling for years, so make the first page a good one.`,
	},
	{
		Slug: "writing-a-tagline-that-converts", Title: "Writing a tagline that converts",
		Summary: "Seven patterns for taglines that tell visitors what your product does in under ten words.",
		Author:  "Jonas Andersen", Tags: []string{"copywriting", "marketing"}, DaysAgo: 27,
		FAQs: []faq{
			{"How long should a tagline be?", "Aim for six to ten words. Anything longer belongs in the short description."},
			{"Should I mention AI?", "Only if it changes what the user gets. Describe the outcome first."},
		},
		Body: `Your tagline is the most-read sentence you will ever write. It appears on the weekly board, in search results, in category pages and in every share preview. Most visitors decide whether to click based on it alone.

## The job of a tagline

A good tagline answers one question: **what does this do for me?** It does not need to be clever. Clever taglines make people think, and people scrolling a list do not want to think.

## Seven patterns that work

1. **Outcome + audience**: "Bookkeeping for freelancers who hate bookkeeping".
2. **Verb + object + twist**: "Track time without starting a timer".
3. **The replacement**: "Your spreadsheet CRM, grown up".
4. **The number**: "Ship preview environments in 30 seconds".
5. **The enemy**: "Stop chasing late invoices".
6. **The category, sharpened**: "The privacy-first analytics tool for indie sites".
7. **The promise**: "Launch your waitlist page before lunch".

## Common mistakes

- Using words like *revolutionary*, *next-generation* or *all-in-one*. They say nothing.
- Describing the technology instead of the result: "Powered by graph neural networks".
- Trying to list every feature. Pick the one that matters most.

## Test it

Read your tagline to someone who has never heard of your product and ask them to explain what it does. If they cannot, rewrite it. You can also compare variants in your own channels: post two versions a week apart and see which gets more clicks.

## Where the tagline appears

Remember that the same sentence is read in very different places: a crowded weekly board, a small search result, a link preview in a group chat. Write it so it still makes sense when the logo, the description and the screenshots are missing, because most of the time they will be.

Finally, make sure your tagline, your homepage headline and your listing agree. Consistency builds trust, and trust is what turns a visit into a signup. For more examples, browse the [top launches of the month](/awards) and notice how short the winning taglines are.`,
	},
	{
		Slug: "what-we-learned-from-1000-launches", Title: "What we learned from 1,000 launches",
		Summary: "Patterns from a thousand product launches: timing, categories, pricing and what the winners did differently.",
		Author:  "Priya Patel", Tags: []string{"data", "launch", "research"}, DaysAgo: 55,
		FAQs: []faq{
			{"Which day is best to launch?", "Listings that go live early in the week collect votes for longer, so Monday and Tuesday do best."},
			{"Does pricing affect votes?", "Free and freemium products get more votes, but paid products get more follows and reviews."},
		},
		Body: `We looked at the first thousand launches on launchdir to understand what separates a quiet launch from a week at the top of the board. Some findings confirmed what we expected; others surprised us.

## Timing matters less than you think

Launches early in the week collect votes for longer, so they do slightly better. But the effect is small compared with preparation. A well-prepared Thursday launch beats an unprepared Monday launch almost every time.

## Complete listings win

Listings with **FAQs, a demo video and at least one founder profile** received about twice as many votes as listings without them. Visitors trust products when they can see who built them and how they work.

| Listing has | Median votes |
| --- | --- |
| Tagline and description only | 11 |
| Plus FAQs | 17 |
| Plus founder and demo video | 24 |

## Categories with room to stand out

Developer tools and AI are the busiest categories. Health, education and finance have fewer launches per week, which makes the top three more reachable. Choose the category your customers would browse, not the one with the most traffic.

## What winners did differently

- They posted an update on launch day.
- They answered reviews, including critical ones, politely and quickly.
- They told a specific story about why they built the product.
- They kept shipping after launch week and posted more updates.

## What did not matter

Logo polish, the length of the description and the number of tags had little measurable effect. Spend that time talking to users instead.

We will repeat this analysis every few months. If you want your launch included in the next report, make sure your listing is complete and your [founder interview](/founders) is filled in.`,
	},
	{
		Slug: "pricing-your-first-saas", Title: "Pricing your first SaaS product",
		Summary: "How to pick a pricing model, set your first price and avoid the most common early mistakes.",
		Author:  "Kwame Mensah", Tags: []string{"pricing", "saas", "business"}, DaysAgo: 83,
		FAQs: []faq{
			{"Should I offer a free plan?", "Offer one only if free users help you grow, for example through sharing or collaboration."},
			{"How often can I change prices?", "As often as you learn something new. Keep early customers on their old price to stay fair."},
		},
		Body: `Pricing feels permanent, but it is one of the easiest things to change. The biggest mistake first-time founders make is not picking the wrong price; it is charging too little for too long because changing feels scary.

## Pick a model first

- **Subscription** works when customers get ongoing value, such as a tool they open every week.
- **Usage-based** fits products whose cost grows with use: APIs, sending email, AI generation.
- **One-time** suits desktop apps, templates and assets.
- **Freemium** works when free users bring paying ones, through collaboration or word of mouth.
- **Open source** with a hosted plan builds trust with developers and still earns revenue.

## Set a first price

Start by asking what the problem costs your customer today: hours lost, a tool they pay for, a person they would hire. Price at a fraction of that cost. For most B2B tools that lands between **$15 and $50 per month** for small teams.

Then talk to ten customers. If nobody hesitates, your price is too low. If everybody hesitates, explain the value better before lowering it.

## Keep it simple

Two or three plans are enough. Name them after who they are for, not after metals or planets. Put the price on your website: a missing pricing page is one of the facts our listing crawler most often reports as *not found*.

## Raise prices with care

1. Announce the change at least a month ahead.
2. Keep existing customers on their current price for a while, or for life.
3. Add something valuable to the plan at the same time.

## Show the price everywhere

Once you have a price, repeat it: on the homepage, in your listing's pricing summary and in the FAQ. Visitors who have to hunt for the price assume it is expensive, and many of them simply leave without asking.

Pricing is a conversation with your market. Start it early, revisit it often and let your customers tell you what the product is worth. Read more in our [guide to revenue milestones](/blog/celebrating-revenue-milestones).`,
	},
	{
		Slug: "building-in-public-without-burning-out", Title: "Building in public without burning out",
		Summary: "How to share your journey openly while protecting your time, focus and mental health.",
		Author:  "Camille Moreau", Tags: []string{"building-in-public", "founders", "wellbeing"}, DaysAgo: 112,
		FAQs: []faq{
			{"Do I have to share revenue numbers?", "No. Share what you are comfortable with; lessons and decisions are just as interesting."},
			{"How often should I post?", "A weekly rhythm is sustainable for most founders."},
		},
		Body: `Building in public can bring your first users, your first investors and a community that cheers you on. It can also turn into a second job that eats the time you meant to spend building. Here is how to get the benefits without the burnout.

## Decide what you will share

Make a short list before you start:

- **Always share**: what you shipped, what you learned, questions you are stuck on.
- **Sometimes share**: metrics, revenue, failures, hiring decisions.
- **Never share**: customer data, anything about your team they have not agreed to, personal details you would regret.

Having the list means you do not make the same decision every day.

## Pick a rhythm

Daily posting works for a few people. For most, a **weekly update** is plenty. Write it on the same day each week, reuse it across channels and post a shorter version as a listing update so visitors see the product is alive.

## Batch the replies

Comments and messages arrive all day. Set two short windows to answer them and turn notifications off the rest of the time. Nobody expects a founder to reply within minutes.

## Watch for warning signs

1. You check numbers more often than you talk to users.
2. You ship features because they make a good post.
3. You feel anxious when you skip a week.

If any of these sound familiar, take a week off posting. Your audience will still be there.

## Share the people, not just the product

Some of the best public posts are about the customers who shaped a feature or the peer who gave you honest advice. Ask before you name anyone, and credit them generously.

## Keep a private log too

Write down the things you cannot share yet. When you look back after a year, the private log is usually the more useful one, and the best material for your [founder story](/founders) when you are ready to tell it.`,
	},
	{
		Slug: "choosing-the-right-category", Title: "Choosing the right category for your listing",
		Summary: "Where your listing appears decides who finds it. How to pick a primary category and when extra categories help.",
		Author:  "Maya Chen", Tags: []string{"guide", "listings", "seo"}, DaysAgo: 140,
		FAQs: []faq{
			{"Can I change my category later?", "Yes. Edit your listing at any time; the change appears immediately."},
			{"How many categories can a listing have?", "One primary category, plus up to three extra categories on paid plans."},
		},
		Body: `Every listing on launchdir has one primary category. It decides which compare table you appear in, which category page lists you and which alternatives visitors see next to you. Choosing well is one of the cheapest ways to get found.

## Think like your customer

Ask where your customer would start looking. A tool that schedules social posts might be built with AI, but a social media manager browses **Marketing → Social Media**, not **AI & Machine Learning**. Pick the category that matches the job your product does, not the technology inside it.

## Use subcategories

Top-level categories are broad. Subcategories such as *CI/CD*, *Invoicing* or *Knowledge Base* are where comparison happens. Listings in a subcategory also appear on the parent category page, so you lose nothing by being specific.

## Fill in the attributes

Each category has attributes that appear side by side in compare tables: for developer tools that means open source, self-hosting, API and CLI; for finance it is currencies, bank sync and regions. Empty cells make visitors assume the answer is no. If your product supports something, say so.

## When extra categories help

Paid listings can add up to three extra categories. They help when your product genuinely serves two audiences:

- A form builder that takes payments fits *Forms & Surveys* and *Payments*.
- An AI support agent fits *Chatbots & Agents* and *Help Desk*.

They do not help when the fit is a stretch. Visitors who arrive from an unrelated category rarely convert, and they leave quickly.

## Keep it current

Products change. If you add a major feature that serves a new audience, revisit your categories, update the attributes and post an update explaining what changed, so returning visitors understand why you now appear somewhere new.

## Check your neighbours

Open your category and look at the top listings. If they solve a very different problem, you may be in the wrong place. Browse the [category directory](/categories) and compare two or three options before you decide.`,
	},
	{
		Slug: "celebrating-revenue-milestones", Title: "Celebrating revenue milestones",
		Summary: "Why sharing verified revenue builds trust, and how to turn milestones into stories people remember.",
		Author:  "Kwame Mensah", Tags: []string{"revenue", "milestones", "founders"}, DaysAgo: 171,
		FAQs: []faq{
			{"What does verified revenue mean?", "The figure comes directly from a payment provider connection rather than being typed in by the founder."},
			{"Can I hide my revenue?", "Yes. Revenue is optional and you can remove it at any time."},
		},
		Body: `Revenue is the least ambiguous signal a young product can share. Votes and followers show interest; revenue shows that people value the product enough to pay. That is why the revenue leaderboard is one of the most visited pages on launchdir.

## Verified beats self-reported

Anyone can type a number. A **verified** figure, pulled from a payment provider, carries more weight with visitors, journalists and investors. If you use Stripe, Paddle or Lemon Squeezy, connect it once and the number stays current.

## Milestones worth marking

- Your first paying customer, even at $5.
- $1,000 in monthly recurring revenue: proof the model works.
- $10,000 MRR: often the point where a side project becomes a job.
- Profitability: the moment you control your own timeline.

Add each one to your listing's milestones with the date and a sentence about what made it possible.

## Tell the story behind the number

A number alone is forgettable. "We reached $10k MRR" is news for a day. "We reached $10k MRR after our third pricing change, and here is what we learned" is useful for years. Share:

1. What changed just before the milestone.
2. What did not work on the way.
3. What you will do differently next.

## Share the setbacks too

Revenue rarely grows in a straight line. A month where churn spiked or a big customer left is worth writing about as well. Founders who share the dips alongside the peaks are trusted more, and their next milestone means more to the people following along.

## Stay honest

Do not round up, do not count one-off payments as recurring revenue and do not compare yourself with companies at a different stage. Honest numbers attract the right customers and the right peers.

Ready to share yours? Open your listing, add your revenue and post an update. Then browse the [revenue leaderboard](/leaderboards/revenue) to see how other founders tell their stories.`,
	},
	{
		Slug: "getting-your-first-100-users", Title: "Getting your first 100 users",
		Summary: "Unscalable, reliable ways to find your first hundred users before and after launch.",
		Author:  "Jonas Andersen", Tags: []string{"growth", "early-stage", "guide"}, DaysAgo: 204,
		FAQs: []faq{
			{"Is launching on directories worth it?", "Yes, as one channel among several. It brings early feedback, backlinks and a permanent listing."},
			{"Should I pay for ads early on?", "Usually not. Talk to users directly until you know exactly who converts."},
		},
		Body: `Your first hundred users will not come from a growth hack. They come from dozens of small, unscalable actions, repeated until something starts to work. The good news: these actions are free, and each one teaches you something about your market.

## Start with people you can name

Write down twenty people who have the problem your product solves. Former colleagues, people in communities you belong to, strangers who complained about the problem online. Message each of them personally. Not a template; a real note explaining why you thought of them.

## Go where the problem is discussed

- Forums and subreddits where your audience asks for help.
- Slack and Discord communities for your niche.
- Comment sections of newsletters your customers read.

Answer questions generously. Mention your product only when it genuinely solves the question asked.

## Launch in several places

A launch is a reason to talk about your product. Use that reason more than once:

1. Launch on **launchdir** and ask early users for honest reviews.
2. Post a write-up about how you built it on your blog.
3. Share a demo video in the communities you joined.

## Make onboarding personal

For the first hundred users, onboard each one yourself. Send a welcome email from your own address, offer a fifteen-minute call and write down every question they ask. Those questions become your FAQs, your docs and your next features.

## Ask for introductions

Every happy early user knows two or three people with the same problem. After a user tells you the product helped, ask whether anyone else should see it. A warm introduction converts far better than any cold message you could write yourself.

## Measure what matters

At this stage, count conversations rather than visits. Ten users who use the product every week are worth more than a thousand who signed up and never returned.

When you reach a hundred, celebrate it with an update on your listing. Then [read how other founders did it](/blog) and start on the next hundred.`,
	},
}
