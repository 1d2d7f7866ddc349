package app

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

// httpLink checks a value is an absolute http(s) URL.
func httpLink(v any) string {
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

// httpsLink checks a value is an absolute https URL.
func httpsLink(v any) string {
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

// isoCountry accepts ISO 3166-1 alpha-2 codes in either case; empty clears.
func isoCountry(v any) string {
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
	socialsSchema = ops.Map(ops.Str(500).Checked(httpLink), SocialPlatforms...).
			Desc("Platform → link (http/https, max 500). Keys: " + strings.Join(SocialPlatforms, ", ") + ". Replaces all.")
	faqSchema = ops.Obj(ops.R("question", ops.Str(300).Min1()), ops.R("answer", ops.Str(1500).Min1()))
	strList   = ops.Arr(ops.Str(200), 20).Desc("Up to 20 items of at most 200 characters.")
	emailSch  = ops.Str(254).Fmt("email")
	listingID = path("listing_id", ops.IntMin(1).Desc("Your listing's id (integer >= 1)."))
)

// ownerFieldsSchema is the "Owner listing fields" table of spec section 2.
var ownerFieldsSchema = ops.Obj(
	ops.P("tagline", ops.Str(200)),
	ops.P("short_description", ops.Str(300)),
	ops.P("description", ops.Str(20000)),
	ops.P("pricing_model", ops.Str(40)),
	ops.P("pricing_summary", ops.Str(300)),
	ops.P("country", ops.Str(2).Checked(isoCountry).Desc("ISO 3166-1 alpha-2.")),
	ops.P("city", ops.Str(120)),
	ops.P("founded_year", ops.Int(1800, 2100).OrNull().Desc("1800..2100 or null.")),
	ops.P("demo_video_url", ops.Str(500).Checked(httpLink).Desc("An absolute http(s) URL of a demo video; empty clears.")),
	ops.P("contact_email", emailSch),
	ops.P("features", strList),
	ops.P("usps", strList),
	ops.P("keywords", strList),
	ops.P("headline", ops.Str(200)),
	ops.P("summary", ops.Str(20000)),
	ops.P("seo_title", ops.Str(200)),
	ops.P("seo_description", ops.Str(320)),
)

// siteCopyFields are the fields apply_to copies to other sites.
var siteCopyFields = []string{"headline", "summary", "seo_title", "seo_description"}

var storySections = []string{"story", "why_started", "problem", "journey", "challenges", "achievements", "lessons", "whats_next"}

// storySchema: title max titleMax, each section max 8000.
func storySchema(titleMax int) *ops.Schema {
	props := []ops.Prop{ops.P("title", ops.Str(titleMax))}
	for _, s := range storySections {
		props = append(props, ops.P(s, ops.Str(8000)))
	}
	return ops.Obj(props...)
}

var milestoneProps = []ops.Prop{
	ops.R("date", ops.Str(10).Min1().Fmt("date").Desc("YYYY-MM-DD.")),
	ops.R("title", ops.Str(200).Min1()),
	ops.P("description", ops.Str(2000)),
	ops.P("url", ops.Str(500).Checked(httpsLink).Desc("An absolute https URL.")),
}
