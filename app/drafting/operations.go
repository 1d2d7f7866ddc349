package drafting

import (
	"strings"

	"launchdir/app/kernel"
	"launchdir/ops"
)

var draftID = kernel.PathParam("id", ops.Str(36).Fmt("uuid").Desc("Draft id (UUID)."))

// draftFieldChecks are the format rules of draft fields beyond length,
// the same rules the owner listing fields apply.
var draftFieldChecks = map[string]func(*ops.Schema) *ops.Schema{
	"logo_url": func(s *ops.Schema) *ops.Schema {
		return s.Checked(kernel.HTTPLink).Desc("An absolute http(s) URL of the logo image.")
	},
	"demo_video_url": func(s *ops.Schema) *ops.Schema {
		return s.Checked(kernel.HTTPLink).Desc("An absolute http(s) URL of a demo video.")
	},
	"contact_email": func(s *ops.Schema) *ops.Schema { return s.Fmt("email") },
	"country":       func(s *ops.Schema) *ops.Schema { return s.Checked(kernel.ISOCountry).Desc("ISO 3166-1 alpha-2.") },
	"founded_year": func(s *ops.Schema) *ops.Schema {
		return ops.Int(1800, 2100).Desc("A year, 1800 to 2100: an integer, as on listings.")
	},
	"categories": func(s *ops.Schema) *ops.Schema {
		return s.Desc("Categories by name as list_categories shows them (e.g. Developer Tools) or by slug (developer-tools); stored and shown as names. Up to 20.")
	},
}

// draftFieldsSchema: every draft profile field, nullable (null removes).
func draftFieldsSchema() *ops.Schema {
	var props []ops.Prop
	for _, f := range profileFields {
		s := ops.Str(f.Max)
		if f.List {
			s = ops.Arr(ops.Str(f.Max), 20)
		}
		if check := draftFieldChecks[f.Name]; check != nil {
			s = check(s)
		}
		props = append(props, ops.P(f.Name, s.OrNull()))
	}
	return ops.Obj(props...)
}

func fieldNameList(max int, what string) *ops.Schema {
	return ops.Arr(ops.Enum(profileFieldNames()...), max).Desc(what)
}

// Operations: the submit-by-URL flow of spec section 4.
func (a *Service) Operations() []*ops.Operation {
	founder := ops.Obj(ops.R("name", ops.Str(160).Min1()), ops.P("title", ops.Str(160)), ops.P("bio", ops.Str(3000)),
		ops.P("socials", kernel.SocialsSchema))
	return []*ops.Operation{
		{ID: "submit_listing", Output: ops.Out[Draft](), Location: "/drafts/{id}", Method: "POST", Path: "/drafts", Toolset: "drafts", Scope: ops.ScopeListingsWrite, Idem: true, Status: 201,
			OpenWorld:   true,
			Summary:     "Submit a product by its website URL",
			Description: "Stores a draft (status crawling) and returns at once; the service reads the site (respecting robots.txt) and drafts a profile where every value carries evidence quotes from the site. Poll get_draft until status is ready (or failed, with a reason). Nothing is published or charged. Fair use: at most 5 drafts per user being read at once and 30 per rolling hour; beyond either the answer is 429 rate_limited with Retry-After. Each draft has a 90-second reading budget; a site that does not answer in time fails only its own draft (failure_kind timeout).",
			Body:        ops.Obj(ops.R("url", ops.Str(2048).Min1().Desc("The product's website (http or https, no credentials)."))),
			Handler:     a.submitListing},
		{ID: "list_my_drafts", Output: ops.Out[kernel.Page[Draft]](), Method: "GET", Path: "/drafts", Toolset: "drafts", Scope: ops.ScopeAccountRead, Paginated: true,
			Summary:     "Your drafts (and drafts you were invited to), newest first",
			Description: "Drafts you submitted and drafts you were invited to co-edit, newest first, each with fields, evidence, completeness and status.", Handler: a.listMyDrafts},
		{ID: "get_draft", Output: ops.Out[Draft](), Method: "GET", Path: "/drafts/:id", Toolset: "drafts", Scope: ops.ScopeAccountRead,
			Summary:     "A draft with its fields, evidence, completeness and what is missing",
			Description: "Statuses: crawling, drafting, ready, failed (failure.kind and failure.reason say why). Each field has value, state (ai, not_found, edited, manual, override, deleted) and evidence quotes with page URLs.",
			Params:      []ops.Param{draftID}, Handler: a.getDraft},
		{ID: "update_draft", Output: ops.Out[Draft](), Destructive: true, Method: "PATCH", Path: "/drafts/:id", Toolset: "drafts", Scope: ops.ScopeListingsWrite, Idem: true,
			Summary: "Edit a draft; after submission also updates its listing",
			Description: "All optional. fields: profile fields (null removes; typed values become edited or manual). lock_fields: keep values from AI changes (override). regenerate: up to 5 fields redrafted from the stored pages (asynchronous; status drafting until done; locked fields untouched). restore: back to the AI value (this also unlocks the field). faqs (max 5, replaces), founders (max 6, first is primary, replaces; a founder sent without socials keeps the links the draft had for the same name, socials {} clears them), company_socials / founder_socials (14 platform keys, replace), story (only the sections sent change; an empty string clears one), milestones (max 50, replaces), competitor_url (empty clears), seo {title max 70, meta max 170} (only the keys sent change). After submit, the listing changes exactly as the draft: what is not sent stays. Field names: " +
				strings.Join(profileFieldNames(), ", ") + ".",
			Params: []ops.Param{draftID},
			Body: ops.Obj(
				ops.P("fields", draftFieldsSchema()),
				ops.P("lock_fields", fieldNameList(20, "Fields to lock (state override).")),
				ops.P("regenerate", fieldNameList(5, "Fields to redraft from the stored evidence pages.")),
				ops.P("restore", fieldNameList(20, "Fields to restore to the AI value.")),
				ops.P("faqs", ops.Arr(kernel.FAQSchema, 5).Desc("Replaces all FAQs; max 5.")),
				ops.P("company_socials", kernel.SocialsSchema),
				ops.P("founder_socials", kernel.SocialsSchema.Desc("The primary founder's links; same 14 platform keys.")),
				ops.P("founders", ops.Arr(founder, 6).Desc("Replaces all founders; the first is primary. A founder without socials keeps the links the draft had for the same name.")),
				ops.P("story", kernel.StorySchema(8000)),
				ops.P("milestones", ops.Arr(ops.Obj(kernel.MilestoneProps...), 50).Desc("Replaces all milestones.")),
				ops.P("competitor_url", ops.Str(2048).Checked(kernel.HTTPLink).Desc("A competitor's website, an absolute http(s) URL; empty clears.")),
				ops.P("seo", ops.Obj(ops.P("title", ops.Str(70)), ops.P("meta", ops.Str(170)))),
			),
			Handler: a.updateDraft},
		{ID: "invite_cofounder", Output: ops.Out[Invite](), Location: "/drafts/{draft_id}", Method: "POST", Path: "/drafts/:id/invites", Toolset: "drafts", Scope: ops.ScopeListingsWrite, Idem: true, Status: 201,
			Summary:     "Invite a co-founder to the draft by email (up to 10)",
			Description: "Emails the invitee; when they sign in with that address the draft is theirs to edit too, and they become an owner of the listing.",
			Params:      []ops.Param{draftID},
			Body:        ops.Obj(ops.R("email", kernel.EmailSchema.Min1())),
			Handler:     a.inviteCofounder},
		{ID: "submit_draft", Output: ops.Out[SubmittedDraft](), Method: "POST", Path: "/drafts/:id/submit", Toolset: "drafts", Scope: ops.ScopeListingsWrite, Idem: true,
			Summary:     "Save a ready draft as your (unpublished) listing",
			Description: "Returns listing_id. Takes a ready draft, or a failed one (its site could not be read) once filled in by hand with update_draft (at least a name); it becomes ready. Re-running after edits updates the same listing; after submission every update_draft also updates it. Then publish with choose_free_listing or create_checkout.",
			Params:      []ops.Param{draftID}, Handler: a.submitDraft},
		{ID: "delete_draft", Output: ops.Out[DeletedDraft](), Method: "DELETE", Path: "/drafts/:id", Toolset: "drafts", Scope: ops.ScopeListingsWrite, Idem: true, Destructive: true,
			Summary:     "Delete one of your drafts",
			Description: "Deletes the draft, its pages and invites, whatever its status (a draft still being read stops). Only its creator can delete it (an invited co-founder gets 403). A listing already submitted from it stays yours, with what it holds; it is simply no longer updated from the draft.",
			Params:      []ops.Param{draftID}, Handler: a.deleteDraft},
	}
}
