package kernel

import (
	"net/url"
	"strings"

	"launchdir/ops"
)

// SocialPlatforms are the fourteen platform keys of spec section 2:
// professional, short-post, photo, video, code-hosting, forum, blog and
// launch-site networks, plus website and custom.
var SocialPlatforms = []string{"linkedin", "x", "facebook", "instagram", "youtube", "tiktok", "github",
	"reddit", "discord", "medium", "substack", "producthunt", "website", "custom"}

// HTTPLink checks a value is an absolute http(s) URL.
func HTTPLink(v any) string {
	s, _ := v.(string)
	if s == "" {
		return ""
	}
	u, err := url.Parse(s)
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		return "must be an http(s) link"
	}
	return ""
}

// HTTPSLink checks a value is an absolute https URL.
func HTTPSLink(v any) string {
	s, _ := v.(string)
	if s == "" {
		return ""
	}
	u, err := url.Parse(s)
	if err != nil || u.Scheme != "https" || u.Host == "" {
		return "must be an https link"
	}
	return ""
}

// ISOCountry accepts ISO 3166-1 alpha-2 codes in either case; empty clears.
func ISOCountry(v any) string {
	s, _ := v.(string)
	if s == "" {
		return ""
	}
	if !IsCountry(s) {
		return "must be an ISO 3166-1 alpha-2 country code"
	}
	return ""
}

var (
	SocialsSchema = ops.Map(ops.Str(500).Checked(HTTPLink), SocialPlatforms...).
			Desc("Platform → link (http/https, max 500). Keys: " + strings.Join(SocialPlatforms, ", ") + ". Replaces all.")
	FAQSchema      = ops.Obj(ops.R("question", ops.Str(300).Min1()), ops.R("answer", ops.Str(1500).Min1()))
	StrList        = ops.Arr(ops.Str(200), 20).Desc("Up to 20 items of at most 200 characters.")
	EmailSchema    = ops.Str(254).Fmt("email")
	ListingIDParam = PathParam("listing_id", ops.IntMin(1).Desc("Your listing's id (integer >= 1)."))
)

// OwnerFieldsSchema is the "Owner listing fields" table of spec section 2.
var OwnerFieldsSchema = ops.Obj(
	ops.P("tagline", ops.Str(200)),
	ops.P("short_description", ops.Str(300)),
	ops.P("description", ops.Str(20000)),
	ops.P("pricing_model", ops.Str(40)),
	ops.P("pricing_summary", ops.Str(300)),
	ops.P("country", ops.Str(2).Checked(ISOCountry).Desc("ISO 3166-1 alpha-2.")),
	ops.P("city", ops.Str(120)),
	ops.P("founded_year", ops.Int(1800, 2100).OrNull().Desc("1800..2100 or null.")),
	ops.P("demo_video_url", ops.Str(500).Checked(HTTPLink).Desc("An absolute http(s) URL of a demo video; empty clears.")),
	ops.P("contact_email", EmailSchema),
	ops.P("features", StrList),
	ops.P("usps", StrList),
	ops.P("keywords", StrList),
	ops.P("headline", ops.Str(200)),
	ops.P("summary", ops.Str(20000)),
	ops.P("seo_title", ops.Str(200)),
	ops.P("seo_description", ops.Str(320)),
)

// SiteCopyFields are the fields apply_to copies to other sites.
var SiteCopyFields = []string{"headline", "summary", "seo_title", "seo_description"}

var storySections = []string{"story", "why_started", "problem", "journey", "challenges", "achievements", "lessons", "whats_next"}

// StorySchema: title max titleMax, each section max 8000.
func StorySchema(titleMax int) *ops.Schema {
	props := []ops.Prop{ops.P("title", ops.Str(titleMax))}
	for _, s := range storySections {
		props = append(props, ops.P(s, ops.Str(8000)))
	}
	return ops.Obj(props...)
}

// MilestoneProps are a milestone's fields (spec section 4).
var MilestoneProps = []ops.Prop{
	ops.R("date", ops.Str(10).Min1().Fmt("date").Desc("YYYY-MM-DD.")),
	ops.R("title", ops.Str(200).Min1()),
	ops.P("description", ops.Str(2000)),
	ops.P("url", ops.Str(500).Checked(HTTPSLink).Desc("An absolute https URL.")),
}

// Shared input schemas (spec sections 2, 4 and 8).
var (
	SlugSchema    = ops.Pattern(`^[a-z0-9][a-z0-9-]{0,219}$`, 220).Desc("Listing slug: lowercase letters, digits and hyphens.")
	CatSlugSchema = ops.Pattern(`^[a-z0-9][a-z0-9-]{0,219}$`, 220).Desc("Category slug.")
	Country2      = ops.Pattern(`^[A-Za-z]{2}$`, 2).Desc("ISO 3166-1 alpha-2 country code.")
)

// PathParam is a required path parameter.
func PathParam(name string, s *ops.Schema) ops.Param {
	return ops.Param{Name: name, In: "path", Required: true, Schema: s}
}

// QueryParam is an optional query parameter.
func QueryParam(name string, s *ops.Schema) ops.Param {
	return ops.Param{Name: name, In: "query", Schema: s}
}

// QueryParamReq is a required query parameter.
func QueryParamReq(name string, s *ops.Schema) ops.Param {
	return ops.Param{Name: name, In: "query", Required: true, Schema: s}
}

// StorySections are the founder story's sections besides its title, in order.
func StorySections() []string { return append([]string(nil), storySections...) }
