package kernel

import "launchdir/ops"

// ListingStatuses are every status a listing can have, documented in the README.
//   - draft: submitted from a draft, not published
//   - awaiting_badge: the owner chose the free launch but the badge is not on the homepage yet
//   - scheduled: queued for a launch week; goes live when that week starts
//   - live: public
//   - rejected: refused by the site team (spam, broken site, rules)
//   - archived: withdrawn by the owner or the site team; not public
var ListingStatuses = []string{"draft", "awaiting_badge", "scheduled", "live", "rejected", "archived"}

func init() { ops.RegisterEnum("listing_status", ListingStatuses) }
