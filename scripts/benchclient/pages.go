package main

import (
	"math/rand/v2"
	"net/url"
)

// sitePages are the website's public pages (goal: p99 under 20 ms at 100k
// listings), measured like the API operations. Kept in its own file so the
// API list in main.go can change without touching this one.
func sitePages(base string, slugs, founders []string, word string, r *rand.Rand) []struct {
	name string
	url  func() string
} {
	slug := func() string { return slugs[r.IntN(len(slugs))] }
	fixed := func(p string) func() string { return func() string { return base + p } }
	return []struct {
		name string
		url  func() string
	}{
		{"page /", fixed("/")},
		{"page /listings/{slug}", func() string { return base + "/listings/" + slug() }},
		{"page /categories", fixed("/categories")},
		{"page /categories/{slug}", fixed("/categories/developer-tools?page=2")},
		{"page /launches/last", fixed("/launches/last")},
		{"page /leaderboards/community-weekly", fixed("/leaderboards/community-weekly?week=last")},
		{"page /leaderboards/billboard", fixed("/leaderboards/billboard")},
		{"page /founders", fixed("/founders?page=3")},
		{"page /founders/{slug}", func() string { return base + "/founders/" + founders[r.IntN(len(founders))] }},
		{"page /blog", fixed("/blog")},
		{"page /awards", fixed("/awards")},
		{"page /search?q=", fixed("/search?q=" + url.QueryEscape(word))},
		{"page /compare", func() string { return base + "/compare?a=" + slug() + "&b=" + slug() }},
		{"page /feeds/launches.atom", fixed("/feeds/launches.atom")},
		{"page /sitemaps/listings-1.xml", fixed("/sitemaps/listings-1.xml")},
	}
}
