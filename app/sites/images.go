package sites

import (
	"context"
	"database/sql"

	"launchdir/app/kernel"
	"launchdir/app/media"
	"launchdir/ops"
)

// A directory's logo and favicon through the operations table (the admin
// area's Sites page does the same): the image goes through the media
// domain's checks and re-encoding, and becomes that site's own setting
// (site_logo_hash, favicon_hash), so the other sites keep theirs.

var imageKindParam = kernel.PathParam("kind", ops.Enum("logo", "favicon").Desc("logo: the header's logo; favicon: the browser tab's icon."))

// SiteImage is a directory's logo or favicon after a change.
type SiteImage struct {
	Site string `json:"site" doc:"The site's key."`
	Kind string `json:"kind" enum:"logo,favicon" doc:"Which image."`
	// URL is empty when the site went back to its default (for a favicon,
	// a letter tile drawn from its name; for a logo, its name in text).
	URL string `json:"url" doc:"Where the image is served on that site; empty after a delete (the default: the site's name)."`
}

func (a *Service) imageOperations() []*ops.Operation {
	return []*ops.Operation{
		{ID: "set_site_image", Output: ops.Out[SiteImage](), Destructive: true, Method: "PUT", Path: "/sites/:key/images/:kind", Toolset: "sites", Scope: ops.ScopeListingsWrite, OpenWorld: true, Upload: "image_base64",
			Summary:     "Set a directory's logo or favicon",
			Description: teamOnly + "Same limits as set_listing_logo (5 MiB, 16..8192 px a side, 24 megapixels; SVG refused); a logo is re-encoded as PNG 64 px high, a favicon cropped square at 32 and 180 px. Only that site changes.",
			Params:      []ops.Param{keyParam, imageKindParam}, Body: media.ImageBody(), Handler: a.setSiteImage},
		{ID: "delete_site_image", Output: ops.Out[SiteImage](), Destructive: true, Method: "DELETE", Path: "/sites/:key/images/:kind", Toolset: "sites", Scope: ops.ScopeListingsWrite,
			Summary:     "Put a directory's logo or favicon back to the default",
			Description: teamOnly + "Another site than main goes back to main's image; main to the default drawn from its name.",
			Params:      []ops.Param{keyParam, imageKindParam}, Handler: a.deleteSiteImage},
	}
}

func mediaKind(kind string) media.Kind {
	if kind == "favicon" {
		return media.KindFavicon
	}
	return media.KindSiteLogo
}

// imageSite checks the caller (site team, else 404 before any fetch or
// decode) and finds the site.
func (a *Service) imageSite(ctx context.Context, in *ops.Input) (*kernel.Site, error) {
	if err := a.requireTeam(ctx, a.DB.R, in.UserID()); err != nil {
		return nil, err
	}
	a.ReloadSites() // a site made a moment ago on another connection
	site, ok := a.SiteByKey(ctx, in.Str("key"))
	if !ok {
		return nil, kernel.WithField(ops.NotFound("site"), "key")
	}
	return site, nil
}

func (a *Service) setSiteImage(ctx context.Context, in *ops.Input) (any, error) {
	site, err := a.imageSite(ctx, in)
	if err != nil {
		return nil, err
	}
	data, err := a.media.ReadImage(ctx, in)
	if err != nil {
		return nil, err
	}
	p, err := media.Process(ctx, data, mediaKind(in.Str("kind")))
	if err != nil {
		return nil, err
	}
	sctx := kernel.WithSite(ctx, site) // the setting is that site's own
	out := SiteImage{Site: site.Key, Kind: in.Str("kind"), URL: a.media.URL(sctx, p, p.Variants[0].Name)}
	err = a.DB.Tx(ctx, func(tx *sql.Tx) error {
		if err := a.requireTeam(ctx, tx, in.UserID()); err != nil {
			return err
		}
		if err := a.media.SetSiteImage(sctx, tx, p); err != nil {
			return err
		}
		return a.audit(ctx, tx, in.UserID(), "set_site_"+out.Kind, site.Key, nil, map[string]string{out.Kind: p.Hash})
	})
	return out, err
}

func (a *Service) deleteSiteImage(ctx context.Context, in *ops.Input) (any, error) {
	site, err := a.imageSite(ctx, in)
	if err != nil {
		return nil, err
	}
	out := SiteImage{Site: site.Key, Kind: in.Str("kind")}
	err = a.DB.Tx(ctx, func(tx *sql.Tx) error {
		if err := a.requireTeam(ctx, tx, in.UserID()); err != nil {
			return err
		}
		if err := a.media.ClearSiteImage(kernel.WithSite(ctx, site), tx, mediaKind(out.Kind)); err != nil {
			return err
		}
		return a.audit(ctx, tx, in.UserID(), "delete_site_"+out.Kind, site.Key, nil, map[string]string{out.Kind: "default"})
	})
	return out, err
}
