// Package crawl reads a product's website politely and drafts a directory
// profile from it.
//
// The crawler obeys robots.txt (RFC 9309) for the product token
// "launchdirbot", sends one request at a time per host, honours a capped
// Crawl-delay, caps page size and decodes every page to UTF-8. All outbound
// traffic goes through NewHTTPClient, whose dialer refuses private,
// loopback, link-local, metadata and other reserved addresses on every
// connection.
//
// Drafters turn the crawled pages into a Profile in which every value carries
// evidence quotes copied from the site. Guard re-checks any drafter's output
// against the pages and drops what the site does not state, so callers can
// mark those fields not_found.
package crawl
