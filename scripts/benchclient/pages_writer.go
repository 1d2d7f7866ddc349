package main

import (
	"context"
	"net/http"
	"net/url"
	"strconv"

	"launchdir/db"
)

// pageInputs are what the site-page rows draw from: categories with live
// listings and a signed-in reader's session (the home page is built fresh
// for a signed-in person; anonymous visitors get a copy up to 5 s old).
type pageInputs struct {
	cats    []string
	session string
}

func readPageInputs(d *db.DB) (pageInputs, error) {
	in := pageInputs{cats: pick(d.W, `SELECT slug FROM categories WHERE live_count > 0 ORDER BY id`)}
	people, err := makePeople(context.Background(), d, 1)
	if err != nil {
		return in, err
	}
	in.session = people[0].session
	return in, nil
}

// sitePageOps are the website's pages the goals name (home, listing,
// launch week, search, category) built fresh at every request: distinct
// listings and words (no URL twice in a cell), a week's first five pages,
// each category's first ten pages; each alone and beside the c=1 owner
// PATCH writer (patch), which retires the read cache at every commit.
func sitePageOps(base string, in pageInputs, coldSlugs, coldWords []string, patch *loadOp) []loadOp {
	signedIn := http.Header{"Cookie": {"ld_session=" + in.session}}
	pages := []loadOp{
		{name: "page / (signed in)", method: "GET", url: func(int) string { return base + "/" }, header: signedIn},
		{name: "page /listings/{slug}", method: "GET", url: func(i int) string { return base + "/listings/" + coldSlugs[i%len(coldSlugs)] }},
		{name: "page /launches/{week}", method: "GET", url: func(i int) string {
			return base + "/launches/" + []string{"this", "last"}[i%2] + "?page=" + strconv.Itoa(1+(i/2)%5)
		}},
		{name: "page /search?q=", method: "GET", url: func(i int) string { return base + "/search?q=" + url.QueryEscape(coldWords[i%len(coldWords)]) }},
		{name: "page /categories/{slug}", method: "GET", url: func(i int) string {
			return base + "/categories/" + in.cats[i%len(in.cats)] + "?page=" + strconv.Itoa(1+(i/len(in.cats))%10)
		}},
	}
	out := pages
	if patch != nil {
		for _, p := range pages {
			w := *patch
			p.name, p.writer = p.name+" + writer", &w
			out = append(out, p)
		}
	}
	return out
}

// patchOf is the owner PATCH of the sweep, if it has one.
func patchOf(ops []loadOp) *loadOp {
	for i := range ops {
		if ops[i].name == "owner PATCH" {
			return &ops[i]
		}
	}
	return nil
}
