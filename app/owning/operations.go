package owning

import (
	"launchdir/app/kernel"
	"launchdir/ops"
)

// Operations are the owner's operations: my listings, owner content, the
// free launch, then claims.
func (a *Service) Operations() []*ops.Operation {
	return append(append(a.myListingOperations(), a.lifecycleOperations()...), a.claimOperations()...)
}

func (a *Service) myListingOperations() []*ops.Operation {
	return []*ops.Operation{
		{ID: "list_my_listings", Output: ops.Out[kernel.Page[MyListing]](), Method: "GET", Path: "/me/listings", Toolset: "listings", Scope: ops.ScopeAccountRead, Paginated: true,
			Summary:     "Your listings, any status",
			Description: "Every listing you own, in any status (draft, scheduled, live, ...), most recently updated first, as summaries with listing_id and plan.", Handler: a.listMyListings},
		{ID: "get_my_listing", Output: ops.Out[OwnerListing](), Method: "GET", Path: "/me/listings/:listing_id", Toolset: "listings", Scope: ops.ScopeAccountRead,
			Summary:     "One of your listings with status, plan, launch week and paid sections",
			Description: "The owner view: the full profile including paid sections (shown publicly only when unlocked), status, plan, launch_week, unlocked_sections and per-site copy.",
			Params:      []ops.Param{kernel.ListingIDParam}, Handler: a.getMyListing},
		{ID: "update_my_listing", Output: ops.Out[OwnerListing](), Destructive: true, Method: "PATCH", Path: "/me/listings/:listing_id", Toolset: "listings", Scope: ops.ScopeListingsWrite, Idem: true,
			Summary:     "Edit your listing; publishes at once and is versioned",
			Description: "fields: the owner listing fields (each optional). apply_to: ['all'] or site keys (max 60) to copy the headline/summary/SEO fields sent to other sites; default this site only. This site's copy in site_copies is always the listing itself (what this site shows). socials replaces all links (14 platform keys). faqs replaces all (max 10). Every edit keeps a before/after revision for the site team.",
			Params:      []ops.Param{kernel.ListingIDParam},
			Body: ops.Obj(
				ops.P("fields", kernel.OwnerFieldsSchema),
				ops.P("apply_to", ops.Arr(ops.Str(40).Min1(), 60).Desc("['all'] or site keys.")),
				ops.P("socials", kernel.SocialsSchema),
				ops.P("faqs", ops.Arr(kernel.FAQSchema, 10).Desc("Replaces all FAQs; max 10.")),
			),
			Handler: a.updateMyListing},
		{ID: "post_listing_update", Output: ops.Out[PostedUpdate](), Location: "/me/listings/{listing_id}", Method: "POST", Path: "/me/listings/:listing_id/updates", Toolset: "listings", Scope: ops.ScopeListingsWrite,
			Idem: true, Status: 201,
			Summary:     "Post an update to your listing",
			Description: "Feeds the latest-updates page and emails the listing's followers. body is plain text.",
			Params:      []ops.Param{kernel.ListingIDParam},
			Body:        ops.Obj(ops.R("title", ops.Str(200).Min1()), ops.R("body", ops.Str(5000).Min1())),
			Handler:     a.postListingUpdate},
		{ID: "add_milestone", Output: ops.Out[MilestoneResult](), Location: "/me/listings/{listing_id}", Method: "POST", Path: "/me/listings/:listing_id/milestones", Toolset: "listings", Scope: ops.ScopeListingsWrite,
			Idem: true, Status: 201,
			Summary:     "Add a milestone (shown publicly when milestones are unlocked)",
			Description: "Adds a dated milestone (title, optional description and https link) to your listing. It is stored at once and shown publicly when the milestones section is unlocked (visible says which).",
			Params:      []ops.Param{kernel.ListingIDParam},
			Body:        ops.Obj(kernel.MilestoneProps...),
			Handler:     a.addMilestone},
		{ID: "delete_milestone", Output: ops.Out[DeletedMilestone](), Method: "DELETE", Path: "/me/listings/:listing_id/milestones/:milestone_id", Toolset: "listings",
			Scope: ops.ScopeListingsWrite, Idem: true, Destructive: true,
			Summary:     "Delete a milestone of your listing",
			Description: "Deletes one milestone of your listing and returns what was deleted. Another listing's milestone is not found.",
			Params:      []ops.Param{kernel.ListingIDParam, kernel.PathParam("milestone_id", ops.IntMin(1).Desc("Milestone id (integer >= 1)."))},
			Handler:     a.deleteMilestone},
		{ID: "set_founder_story", Output: ops.Out[StoryResult](), Destructive: true, Method: "PUT", Path: "/me/listings/:listing_id/story", Toolset: "listings", Scope: ops.ScopeListingsWrite, Idem: true,
			Summary:     "Write or replace the founder story",
			Description: "Replaces the whole story: title (max 200) and sections story, why_started, problem, journey, challenges, achievements, lessons, whats_next (max 8000 each); omitted sections become empty. Shown publicly when the story section is unlocked.",
			Params:      []ops.Param{kernel.ListingIDParam}, Body: kernel.StorySchema(200), Handler: a.setFounderStory},
		{ID: "answer_interview", Output: ops.Out[InterviewAnswers](), Tag: "account", Destructive: true, Method: "PUT", Path: "/me/interview", Toolset: "listings", Scope: ops.ScopeListingsWrite, Idem: true,
			Summary:     "Answer founder interview questions",
			Description: "answers: up to 30 of {question_id, answer (max 4000)}; ids from list_interview_questions. Answers given replace earlier answers to the same questions.",
			Body: ops.Obj(ops.R("answers", ops.Arr(ops.Obj(
				ops.R("question_id", ops.IntMin(1)), ops.R("answer", ops.Str(4000))), kernel.MaxInterviewAnswers))),
			Handler: a.answerInterview},
		{ID: "choose_free_listing", Output: ops.Out[FreeLaunch](), Method: "POST", Path: "/me/listings/:listing_id/free", Toolset: "listings", Scope: ops.ScopeListingsWrite,
			Idem: true, OpenWorld: true,
			Summary:     "Publish for free: queue the listing for a launch week",
			Description: "Checks that the badge (or a link to the listing) is on the homepage and that the founder profile is complete (name, bio, a social link). On success the listing is scheduled for the first week with a free slot at least free_queue_weeks ahead and goes live that week; otherwise a 400 lists exactly what is missing and nothing changes.",
			Params:      []ops.Param{kernel.ListingIDParam}, Handler: a.chooseFreeListing},
	}
}

func (a *Service) claimOperations() []*ops.Operation {
	return []*ops.Operation{
		{ID: "claim_listing", Output: ops.Out[Claim](), Location: "/claims", Method: "POST", Path: "/claims", Toolset: "claims", Scope: ops.ScopeListingsWrite, Idem: true, Status: 201,
			Summary:     "Claim an existing live listing",
			Description: "method dns (TXT record), meta (tag on the homepage), file (file on the site) or email (link mailed to an address at the listing's domain). Returns what to publish; then call verify_claim. One pending claim per listing.",
			Body: ops.Obj(
				ops.R("slug", kernel.SlugSchema),
				ops.R("method", ops.Enum("dns", "meta", "file", "email")),
				ops.P("email", kernel.EmailSchema.Desc("For method email: an address at the listing's domain.")),
			),
			Handler: a.claimListing},
		{ID: "verify_claim", Output: ops.Out[Claim](), Method: "POST", Path: "/claims/:claim_id/verify", Toolset: "claims", Scope: ops.ScopeListingsWrite, Idem: true, OpenWorld: true,
			Summary:     "Check a claim's DNS record, meta tag or file",
			Description: "On success the claim is verified and you become an owner. When the artefact is not found yet the claim stays pending and last_error says why. Email claims verify when the emailed link is opened. Verified is not the same as paid.",
			Params:      []ops.Param{kernel.PathParam("claim_id", ops.IntMin(1).Desc("Claim id (integer >= 1)."))},
			Handler:     a.verifyClaim},
		{ID: "list_my_claims", Output: ops.Out[kernel.Page[Claim]](), Method: "GET", Path: "/claims", Toolset: "claims", Scope: ops.ScopeAccountRead, Paginated: true,
			Summary:     "Your claims, newest first",
			Description: "Your claims of existing listings, newest first, with their status (pending or verified), method, instructions and last_error.", Handler: a.listMyClaims},
	}
}
