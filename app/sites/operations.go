package sites

import (
	"context"

	"launchdir/app/kernel"
	"launchdir/ops"
)

// The site team's operations need an account with the admin flag (anyone
// else gets 404, as in the admin area): reads with account:read, changes
// with listings:write. The owner's operation checks ownership.

const teamOnly = "Site team only (an account with the admin flag; others get 404). "

var keyParam = kernel.PathParam("key", ops.Pattern(`^[a-z0-9-]+$`, MaxKeyLen).Desc("The site's key."))

// siteFields are the editable fields of a site (create and update).
func siteFields() []ops.Prop {
	return []ops.Prop{
		ops.P("origin", ops.Str(MaxOriginLen).Desc("The site's public origin: http(s)://host[:port], nothing after it. Required on create; main's is the server's -base-url and cannot be set.")),
		ops.P("hosts", ops.Arr(ops.Str(MaxHostLen), MaxHosts).Desc("Other host names (host[:port]) routed to the site, at most 10; each belongs to one site. Replaces the list.")),
		ops.P("name", ops.Str(MaxName).Desc("The directory's name, 1..80 characters.")),
		ops.P("tagline", ops.Str(MaxTagline).Desc("One line under the name, at most 300 characters.")),
		ops.P("accent_color", ops.Str(7).Desc("The accent colour, #rrggbb; empty for the default look.")),
		ops.P("email_from_name", ops.Str(MaxEmailFrom).Desc("The sender name of the site's emails; empty for the site's name.")),
		ops.P("categories", ops.Arr(ops.Str(80), MaxCategories).Desc("Category slugs the site shows, each with its subcategories (at most 50); empty: every category. Listings put on the site must have a category among them.")),
		ops.P("free_weekly_capacity", ops.Int(1, MaxFreeCapacity).Desc("Free launches a week holds on the site, 1..1000.")),
		ops.P("free_queue_weeks", ops.Int(0, MaxQueueWeeks).Desc("How many weeks ahead the free queue starts, 0..52.")),
		ops.P("prices", ops.Map(ops.Int(0, MaxPriceCents)).Desc("Product code -> price in cents on this site; replaces the site's prices (products not named sell at their own price). Not for main.")),
	}
}

// Operations are the sites operations.
func (a *Service) Operations() []*ops.Operation {
	return append([]*ops.Operation{
		{ID: "list_sites", Output: ops.Out[[]Site](), Method: "GET", Path: "/sites", Toolset: "sites", Scope: ops.ScopeAccountRead,
			Summary: "List the directories this server runs", Description: teamOnly + "Every site, main first, with its settings, prices and how many live listings it shows.",
			Handler: a.listSites},
		{ID: "get_site", Output: ops.Out[Site](), Method: "GET", Path: "/sites/:key", Toolset: "sites", Scope: ops.ScopeAccountRead,
			Summary: "Get one directory's settings", Description: teamOnly,
			Params: []ops.Param{keyParam}, Handler: a.getSite},
		{ID: "create_site", Output: ops.Out[Site](), Method: "POST", Path: "/sites", Toolset: "sites", Scope: ops.ScopeListingsWrite, Status: 201, Location: "/sites/{key}",
			Summary:     "Create another directory on this server",
			Description: teamOnly + "key: 2..40 of a-z, 0-9 and '-', fixed once made ('main' is the default site). origin is required. Fields not given take main's values. The site starts with no listings: owners and the site team put listings on it.",
			Body:        ops.Obj(append([]ops.Prop{ops.R("key", ops.Str(MaxKeyLen+1).Desc("The site's key, 2..40 of a-z, 0-9, '-'."))}, siteFields()...)...), Handler: a.createSite},
		{ID: "update_site", Output: ops.Out[Site](), Destructive: true, Method: "PATCH", Path: "/sites/:key", Toolset: "sites", Scope: ops.ScopeListingsWrite,
			Summary: "Change a directory's settings", Description: teamOnly + "Only the fields sent change; an empty tagline, accent colour or sender name goes back to main's.",
			Params: []ops.Param{keyParam}, Body: ops.Obj(siteFields()...), Handler: a.updateSite},
		{ID: "delete_site", Output: ops.Out[DeletedSite](), Destructive: true, Method: "DELETE", Path: "/sites/:key", Toolset: "sites", Scope: ops.ScopeListingsWrite,
			Summary:     "Delete a directory",
			Description: teamOnly + "Removes the site with its settings, host names, prices, copies, votes, launches and awards there; listings and accounts stay (they are shared). Main cannot be deleted. A site that still shows listings is refused (409) unless force is true.",
			Params:      []ops.Param{keyParam, kernel.QueryParam("force", ops.Bool().Desc("Delete even though the site still shows listings."))}, Handler: a.deleteSite},
		{ID: "change_site_listings", Output: ops.Out[SiteListingsChange](), Destructive: true, Method: "POST", Path: "/sites/:key/listings", Toolset: "sites", Scope: ops.ScopeListingsWrite,
			Summary:     "Put listings on a directory or take them off",
			Description: teamOnly + "add and remove: listing ids (at most 100 each). The site's category rule applies (a refused listing is named). Not for main, which shows every live listing.",
			Params:      []ops.Param{keyParam},
			Body: ops.Obj(ops.P("add", ops.Arr(ops.IntMin(1), MaxListingBatch)),
				ops.P("remove", ops.Arr(ops.IntMin(1), MaxListingBatch))), Handler: a.changeSiteListings},
		{ID: "get_my_listing_sites", Output: ops.Out[ListingSites](), Method: "GET", Path: "/me/listings/:listing_id/sites", Toolset: "listings", Scope: ops.ScopeListingsWrite,
			Summary:     "See which directories show your listing",
			Description: kernel.SignedIn + "listings:write.",
			Params:      []ops.Param{kernel.ListingIDParam}, Handler: a.getMyListingSites},
		{ID: "set_my_listing_sites", Output: ops.Out[ListingSites](), Destructive: true, Method: "PUT", Path: "/me/listings/:listing_id/sites", Toolset: "listings", Scope: ops.ScopeListingsWrite,
			Summary:     "Choose the other directories that show your listing",
			Description: kernel.SignedIn + "listings:write. sites: other sites' keys (main shows every live listing); a site's category rule applies.",
			Params:      []ops.Param{kernel.ListingIDParam},
			Body:        ops.Obj(ops.R("sites", ops.Arr(ops.Str(MaxKeyLen), MaxHosts*5))), Handler: a.setMyListingSites},
	}, a.imageOperations()...)
}

// DeletedSite confirms a deletion.
type DeletedSite struct {
	Key     string `json:"key"`
	Deleted bool   `json:"deleted"`
}

func (a *Service) listSites(ctx context.Context, in *ops.Input) (any, error) {
	return a.List(ctx, in.UserID())
}

func (a *Service) getSite(ctx context.Context, in *ops.Input) (any, error) {
	return a.Get(ctx, in.UserID(), in.Str("key"))
}

func (a *Service) createSite(ctx context.Context, in *ops.Input) (any, error) {
	var req Input
	if err := in.Decode(&req); err != nil {
		return nil, err
	}
	return a.Create(ctx, in.UserID(), req)
}

func (a *Service) updateSite(ctx context.Context, in *ops.Input) (any, error) {
	var req Input
	if err := in.Decode(&req); err != nil {
		return nil, err
	}
	return a.Update(ctx, in.UserID(), req)
}

func (a *Service) deleteSite(ctx context.Context, in *ops.Input) (any, error) {
	if err := a.Delete(ctx, in.UserID(), in.Str("key"), in.Bool("force")); err != nil {
		return nil, err
	}
	return DeletedSite{Key: in.Str("key"), Deleted: true}, nil
}

func (a *Service) changeSiteListings(ctx context.Context, in *ops.Input) (any, error) {
	var req struct{ Add, Remove []int64 }
	if err := in.Decode(&req); err != nil {
		return nil, err
	}
	return a.ChangeSiteListings(ctx, in.UserID(), in.Str("key"), req.Add, req.Remove)
}

func (a *Service) getMyListingSites(ctx context.Context, in *ops.Input) (any, error) {
	return a.MyListingSites(ctx, in.UserID(), in.Int("listing_id"))
}

func (a *Service) setMyListingSites(ctx context.Context, in *ops.Input) (any, error) {
	var req struct {
		Sites []string `json:"sites"`
	}
	if err := in.Decode(&req); err != nil {
		return nil, err
	}
	return a.SetMyListingSites(ctx, in.UserID(), in.Int("listing_id"), req.Sites)
}
