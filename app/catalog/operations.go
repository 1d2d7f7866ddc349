package catalog

import (
	"fmt"

	"launchdir/app/kernel"
	"launchdir/db"
	"launchdir/ops"
)

// relevanceDesc states the search order (db.rankCandidates): what a
// client sees changes for words too common to weigh.
var relevanceDesc = fmt.Sprintf("Sort order; relevance applies when q is given, otherwise votes. "+
	"Relevance ranks the newest %d matches (name weighted highest), then older matches newest first; "+
	"a word estimated in more than %d live listings is too common to weigh: the other words rank the matches, and with none left those newest %[1]d come most voted first, then newest.",
	db.FTSCandidates, db.FrequentWordListings)

func (a *Service) Operations() []*ops.Operation {
	return []*ops.Operation{
		{ID: "get_site_info", Output: ops.Out[SiteInfo](), Method: "GET", Path: "/site", Toolset: "public",
			Summary:     "Describe this directory",
			Description: "Site name, API and MCP addresses, counts, the current launch week, launch sections, leaderboards and scopes.",
			Handler:     a.getSiteInfo},
		{ID: "search_listings", Output: ops.Out[kernel.Page[db.Summary]](), Method: "GET", Path: "/listings", Toolset: "public", Paginated: true,
			Summary:     "Search live or upcoming listings",
			Description: "Full-text search (name weighted highest) with filters. Items are summaries with slug, name, url, tagline, votes and primary category.",
			Params: []ops.Param{
				kernel.QueryParam("q", ops.Str(200).Desc("Search words; the last word matches as a prefix.")),
				kernel.QueryParam("category", kernel.CatSlugSchema.Desc("Category slug; includes its subcategories.")),
				kernel.QueryParam("stage", kernel.CatSlugSchema.Desc("Stage slug, e.g. beta, launched, growth.")),
				kernel.QueryParam("country", kernel.Country2),
				kernel.QueryParam("pricing_model", ops.Str(40).Desc("Pricing model, e.g. free, freemium, subscription.")),
				kernel.QueryParam("domain", ops.Str(253).Desc("Website domain, e.g. example.com.")),
				kernel.QueryParam("status", ops.Enum("live", "upcoming").Def("live").Desc("live (default) or upcoming (scheduled launches).")),
				kernel.QueryParam("sort", ops.Enum("relevance", "newest", "votes", "trending", "most_viewed", "most_followed").Def("relevance").
					Desc(relevanceDesc)),
			},
			Handler: a.searchListings},
		{ID: "get_listing", Output: ops.Out[db.Listing](), Method: "GET", Path: "/listings/:slug", Toolset: "public",
			Summary:     "Get a live listing's full profile",
			Description: "Description, features, pricing, categories, founders, FAQs, socials, latest updates, community rating (genuine reviews only), Domain Rating with trend, links and not_found_on_website. Story, milestones and media appear only when unlocked.",
			Params:      []ops.Param{kernel.PathParam("slug", kernel.SlugSchema)}, Handler: a.getListing},
		{ID: "get_alternatives", Output: ops.Out[kernel.Page[db.Alternative]](), Method: "GET", Path: "/listings/:slug/alternatives", Toolset: "public", Paginated: true,
			Summary:     "Alternatives to a listing",
			Description: "Owner-approved alternatives first (approved=true), then other live listings in the same primary category by votes.",
			Params:      []ops.Param{kernel.PathParam("slug", kernel.SlugSchema)}, Handler: a.getAlternatives},
		{ID: "compare_listings", Output: ops.Out[Comparison](), Method: "GET", Path: "/compare", Toolset: "public",
			Summary:     "Compare two listings side by side",
			Description: "Rows of category attributes with each listing's value; an empty cell means neither listing states the fact.",
			Params:      []ops.Param{kernel.QueryParamReq("a", kernel.SlugSchema), kernel.QueryParamReq("b", kernel.SlugSchema)}, Handler: a.compareListings},
		{ID: "list_categories", Output: ops.Out[kernel.Page[db.Category]](), Method: "GET", Path: "/categories", Toolset: "public", Paginated: true,
			Summary:     "Category tree with live counts",
			Description: "Top-level categories with their subcategories; a parent's live_count includes its subcategories.",
			Params:      []ops.Param{kernel.QueryParam("include_empty", ops.Bool().Def(true).Desc("Include categories without live listings."))},
			Handler:     a.listCategories},
		{ID: "get_category", Output: ops.Out[CategoryListings](), Method: "GET", Path: "/categories/:slug", Toolset: "public", Paginated: true,
			Summary:     "A category and its live listings, most voted first",
			Description: "The category (slug, name, description, live_count, compare attributes, subcategories) and a page of its live listings, including those of its subcategories, most voted first.",
			Params:      []ops.Param{kernel.PathParam("slug", kernel.CatSlugSchema)}, Handler: a.getCategory},
		{ID: "get_launch_week", Output: ops.Out[LaunchWeek](), Method: "GET", Path: "/launches/weeks/:week", Toolset: "public", Paginated: true,
			Summary:     "Launches of one week (Monday to Sunday)",
			Description: "week is this, next, last or a date (snapped to its Monday). Live launches ranked by the week's votes, then scheduled ones for a future week.",
			Params:      []ops.Param{kernel.PathParam("week", weekSchema)}, Handler: a.getLaunchWeek},
		{ID: "list_launches", Output: ops.Out[LaunchSection](), Method: "GET", Path: "/launches", Toolset: "public", Paginated: true,
			Summary:     "Launch sections",
			Description: "One launch section as a page of listing summaries: today, this-week (default, ranked by the week's votes), trending, most-voted, recent, most-viewed, most-followed or upcoming (scheduled launches).",
			Params: []ops.Param{kernel.QueryParam("section", ops.Enum(launchSections...).Def("this-week").
				Desc("today, this-week (default), trending, most-voted, recent, most-viewed, most-followed or upcoming."))},
			Handler: a.listLaunches},
		{ID: "get_leaderboard", Output: ops.Out[Leaderboard](), Method: "GET", Path: "/leaderboards/:board", Toolset: "public", Paginated: true,
			Summary:     "A leaderboard: items have rank, listing and metric",
			Description: "Boards are separate systems: community-weekly and community-all-time (votes), billboard (a PAID ranking by money contributed), domain-rating (third-party data) and revenue.",
			Params: []ops.Param{
				kernel.PathParam("board", ops.Pattern(`^[a-z][a-z-]{0,39}$`, 40).Desc("community-weekly, community-all-time, billboard, domain-rating or revenue.")),
				kernel.QueryParam("week", boardWeekSchema.Desc("community-weekly only: this (default), last, or a date YYYY-MM-DD (snapped to its Monday; not before the first launch week).")),
			},
			Handler: a.getLeaderboard},
		{ID: "list_founders", Output: ops.Out[kernel.Page[db.Founder]](), Method: "GET", Path: "/founders", Toolset: "public", Paginated: true,
			Summary:     "Founders of live listings",
			Description: "Founders with at least one live listing, by name; filter by part of the name (q) or country.",
			Params:      []ops.Param{kernel.QueryParam("q", ops.Str(120).Desc("Part of the founder's name.")), kernel.QueryParam("country", kernel.Country2)},
			Handler:     a.listFounders},
		{ID: "get_founder", Output: ops.Out[db.Founder](), Method: "GET", Path: "/founders/:slug", Toolset: "public",
			Summary:     "A founder: bio, socials, companies, stories",
			Description: "A founder's profile: name, title, bio, country, social links, their live companies and the founder stories told on them.",
			Params:      []ops.Param{kernel.PathParam("slug", kernel.SlugSchema.Desc("Founder slug."))}, Handler: a.getFounder},
		{ID: "list_blog_posts", Output: ops.Out[kernel.Page[db.BlogPost]](), Method: "GET", Path: "/blog", Toolset: "public", Paginated: true,
			Summary:     "Blog posts, newest first",
			Description: "Published blog posts, newest first, without their text; q searches titles, summaries and text.",
			Params:      []ops.Param{kernel.QueryParam("q", ops.Str(200).Desc("Words in the title, summary or text."))}, Handler: a.listBlogPosts},
		{ID: "get_blog_post", Output: ops.Out[db.BlogPost](), Method: "GET", Path: "/blog/:slug", Toolset: "public",
			Summary:     "A blog post in Markdown with its FAQs",
			Description: "One blog post: title, summary, author, tags, publication date, the text in Markdown and its FAQs.",
			Params:      []ops.Param{kernel.PathParam("slug", kernel.SlugSchema.Desc("Blog post slug."))}, Handler: a.getBlogPost},
		{ID: "list_awards", Output: ops.Out[AwardPage](), Method: "GET", Path: "/awards", Toolset: "public", Paginated: true,
			Summary:     "Launch of the Week awards",
			Description: "Launch of the Week #1, #2, #3 per completed week, newest week first, from community votes only.",
			Params:      []ops.Param{kernel.QueryParam("listing", kernel.SlugSchema.Desc("Only awards of this listing."))}, Handler: a.listAwards},
		{ID: "get_badges", Output: ops.Out[Badges](), Method: "GET", Path: "/listings/:slug/badges", Toolset: "public",
			Summary:     "Badge embed code and SVG image URLs",
			Description: "HTML embed code linking back to the listing, and SVG URLs served by this service showing the live weekly rank or votes.",
			Params: []ops.Param{kernel.PathParam("slug", kernel.SlugSchema),
				kernel.QueryParam("shape", ops.Enum(badgeShapes...).Def("standard")),
				kernel.QueryParam("mode", ops.Enum(badgeModes...).Def("auto").Desc("auto follows the viewer's colour scheme.")),
				kernel.QueryParam("size", ops.Enum(badgeSizes...).Def("m"))},
			Handler: a.getBadges},
		{ID: "list_interview_questions", Output: ops.Out[InterviewQuestions](), Method: "GET", Path: "/interview-questions", Toolset: "public",
			Summary:     "Founder interview questions",
			Description: "The active founder interview questions in order, with ids to answer through answer_interview, and the limits on answers.", Handler: a.listInterviewQuestions},
	}
}
