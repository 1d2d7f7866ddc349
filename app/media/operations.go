package media

import (
	"launchdir/app/kernel"
	"launchdir/ops"
)

// MaxScreenshots is the size of a listing's gallery.
const MaxScreenshots = 8

// imageProps are the two ways an image arrives: inline or by URL. REST also
// takes a multipart/form-data upload whose file part becomes image_base64.
var imageProps = []ops.Prop{
	ops.P("image_base64", ops.Str(maxBase64Len).Desc("The image file, base64-encoded (standard alphabet): PNG, JPEG, GIF or WebP, at most 5 MiB, 16 to 8192 pixels a side, at most 24 megapixels. SVG is refused. Give this or image_url. Over REST you may instead upload the file as multipart/form-data (part name file).")),
	ops.P("image_url", ops.Str(2000).Fmt("uri").Desc("An http(s) URL to fetch the image from, through the service's SSRF-guarded client, with the same limits. Give this or image_base64.")),
}

// ImageBody is the body of an upload operation elsewhere (a site's logo):
// the image inline or by URL.
func ImageBody() *ops.Schema { return withImage() }

func withImage(props ...ops.Prop) *ops.Schema {
	return ops.Obj(append(append([]ops.Prop{}, imageProps...), props...)...)
}

var screenshotIDParam = kernel.PathParam("screenshot_id", ops.IntMin(1).Desc("Screenshot id (integer >= 1)."))

// Operations are the owner's image operations.
func (a *Service) Operations() []*ops.Operation {
	return []*ops.Operation{
		{ID: "set_listing_logo", Output: ops.Out[LogoResult](), Destructive: true, Method: "PUT", Path: "/me/listings/:listing_id/logo", Toolset: "listings", Scope: ops.ScopeListingsWrite, Idem: true, OpenWorld: true, Upload: "image_base64",
			Summary:     "Set your listing's logo from an upload or a URL",
			Description: "Replaces the logo. The image is decoded, checked against the limits (5 MiB, 16..8192 px a side, 24 megapixels; SVG refused) and re-encoded as PNG at 64, 128 and 256 px (metadata stripped); logo_url then points at this site. Shown on every listing, free or paid.",
			Params:      []ops.Param{kernel.ListingIDParam}, Body: withImage(), Handler: a.setListingLogo},
		{ID: "delete_listing_logo", Output: ops.Out[LogoResult](), Destructive: true, Method: "DELETE", Path: "/me/listings/:listing_id/logo", Toolset: "listings", Scope: ops.ScopeListingsWrite, Idem: true,
			Summary:     "Remove your listing's logo",
			Description: "The listing shows its initial instead.",
			Params:      []ops.Param{kernel.ListingIDParam}, Handler: a.deleteListingLogo},
		{ID: "add_screenshot", Output: ops.Out[Gallery](), Location: "/me/listings/{listing_id}", Method: "POST", Path: "/me/listings/:listing_id/screenshots", Toolset: "listings", Scope: ops.ScopeListingsWrite, Idem: true, OpenWorld: true, Status: 201, Upload: "image_base64",
			Summary:     "Add a screenshot to your listing's gallery",
			Description: "Appends a screenshot (at most 8 per listing) with an optional caption (alt text, max 200). Same limits as set_listing_logo; re-encoded as JPEG 480, 960 and 1600 px wide. Every listing shows its first screenshot; the whole gallery is the paid media section (shown once unlocked).",
			Params:      []ops.Param{kernel.ListingIDParam}, Body: withImage(ops.P("caption", ops.Str(200).Desc("What the screenshot shows (used as alt text)."))), Handler: a.addScreenshot},
		{ID: "delete_screenshot", Output: ops.Out[Gallery](), Destructive: true, Method: "DELETE", Path: "/me/listings/:listing_id/screenshots/:screenshot_id", Toolset: "listings", Scope: ops.ScopeListingsWrite, Idem: true,
			Summary:     "Remove a screenshot from your listing's gallery",
			Description: "Returns the gallery after the removal. Another listing's screenshot is not found.",
			Params:      []ops.Param{kernel.ListingIDParam, screenshotIDParam}, Handler: a.deleteScreenshot},
		{ID: "reorder_screenshots", Output: ops.Out[Gallery](), Destructive: true, Method: "PUT", Path: "/me/listings/:listing_id/screenshots", Toolset: "listings", Scope: ops.ScopeListingsWrite, Idem: true,
			Summary:     "Put your listing's screenshots in a new order",
			Description: "ids: every screenshot id of the listing, each once, in the order to show them.",
			Params:      []ops.Param{kernel.ListingIDParam},
			Body:        ops.Obj(ops.R("ids", ops.Arr(ops.IntMin(1), MaxScreenshots).Min1())), Handler: a.reorderScreenshots},
		{ID: "set_founder_avatar", Output: ops.Out[AvatarResult](), Destructive: true, Method: "PUT", Path: "/me/listings/:listing_id/founders/:founder_slug/avatar", Toolset: "listings", Scope: ops.ScopeListingsWrite, Idem: true, OpenWorld: true, Upload: "image_base64",
			Summary:     "Set the avatar of one of your listing's founders",
			Description: "Same limits as set_listing_logo; cropped to a square and re-encoded as JPEG at 64 and 128 px. Shown wherever the founder appears.",
			Params:      []ops.Param{kernel.ListingIDParam, kernel.PathParam("founder_slug", kernel.SlugSchema.Desc("The founder's slug, as in the listing's founders."))},
			Body:        withImage(), Handler: a.setFounderAvatar},
	}
}

// Image is a stored image as operations return it.
type Image struct {
	Hash     string         `json:"hash" doc:"Content address of the image."`
	URL      string         `json:"url" format:"uri" doc:"The default variant."`
	Width    int            `json:"width" doc:"Width of the accepted original, pixels."`
	Height   int            `json:"height" doc:"Height of the accepted original, pixels."`
	Variants []ImageVariant `json:"variants"`
}

// ImageVariant is one re-encoded size.
type ImageVariant struct {
	Name        string `json:"name"`
	URL         string `json:"url" format:"uri"`
	Width       int    `json:"width"`
	Height      int    `json:"height"`
	ContentType string `json:"content_type"`
}

// LogoResult is a listing's logo after a change.
type LogoResult struct {
	ListingID int64  `json:"listing_id"`
	LogoURL   string `json:"logo_url" doc:"Empty when the listing has no logo."`
	Logo      *Image `json:"logo,omitempty"`
}

// Screenshot is one image of a listing's gallery.
type Screenshot struct {
	ID       int64  `json:"id"`
	Position int    `json:"position"`
	Caption  string `json:"caption"`
	URL      string `json:"url" format:"uri"`
}

// Gallery is a listing's screenshots in order.
type Gallery struct {
	ListingID   int64        `json:"listing_id"`
	Screenshots []Screenshot `json:"screenshots"`
	Public      string       `json:"public" doc:"What visitors see: all (media section unlocked) or first (the first screenshot only)."`
}

// AvatarResult is a founder's avatar after a change.
type AvatarResult struct {
	FounderSlug string `json:"founder_slug"`
	AvatarURL   string `json:"avatar_url" format:"uri"`
	Avatar      Image  `json:"avatar"`
}
