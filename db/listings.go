package db

import (
	"cmp"
	"context"
	"database/sql"
	"encoding/json"
	"fmt"
	"slices"
	"strconv"
	"strings"
)

// CategoryRef names a category.
type CategoryRef struct {
	Slug string `json:"slug"`
	Name string `json:"name"`
}

// Summary is a listing in lists and search results.
type Summary struct {
	ID         int64        `json:"-"`
	Slug       string       `json:"slug"`
	Name       string       `json:"name"`
	URL        string       `json:"url" format:"uri"`
	Tagline    string       `json:"tagline"`
	LogoURL    string       `json:"logo_url,omitempty" format:"uri"`
	Votes      int64        `json:"votes"`
	Views      int64        `json:"views"`
	Follows    int64        `json:"follows"`
	Status     string       `json:"status" enum:"$listing_status"`
	LaunchWeek string       `json:"launch_week,omitempty" format:"date" doc:"Monday of the launch week."`
	LaunchedAt string       `json:"launched_at,omitempty" format:"date-time"`
	Category   *CategoryRef `json:"primary_category"`
	Rank       int          `json:"rank,omitempty" doc:"Week lists only: the place in that week's ranking (votes in the week, ties to the older listing)."`
	WeekVotes  *int64       `json:"week_votes,omitempty" doc:"Week lists only: counted votes cast in that launch week, which the ranking follows."`
	// Card holds what the website adds to a card for one page view (its vote
	// button, thumbnail); never serialised.
	Card any `json:"-"`
}

// summaryCols selects a Summary from listings l joined with categories c.
const summaryCols = `l.id, l.slug, l.name, l.url, l.tagline, l.logo_url, l.votes, l.views, l.follows, l.status,
	coalesce(l.launch_week,''), coalesce(l.launched_at,''), coalesce(c.slug,''), coalesce(c.name,'')`

const summaryFrom = ` FROM listings l LEFT JOIN categories c ON c.id = l.primary_category_id `

func scanSummary(sc interface{ Scan(...any) error }, extra ...any) (Summary, error) {
	var s Summary
	var cslug, cname string
	dest := append([]any{&s.ID, &s.Slug, &s.Name, &s.URL, &s.Tagline, &s.LogoURL, &s.Votes, &s.Views, &s.Follows,
		&s.Status, &s.LaunchWeek, &s.LaunchedAt, &cslug, &cname}, extra...)
	if err := sc.Scan(dest...); err != nil {
		return s, err
	}
	if cslug != "" {
		s.Category = &CategoryRef{Slug: cslug, Name: cname}
	}
	return s, nil
}

func querySummaries(ctx context.Context, q querier, query string, args ...any) ([]Summary, error) {
	rows, err := q.QueryContext(ctx, query, args...)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	out := []Summary{}
	for rows.Next() {
		s, err := scanSummary(rows)
		if err != nil {
			return nil, err
		}
		out = append(out, s)
	}
	return out, rows.Err()
}

type querier interface {
	QueryContext(ctx context.Context, query string, args ...any) (*sql.Rows, error)
	QueryRowContext(ctx context.Context, query string, args ...any) *sql.Row
}

// SearchFilter is the input of SearchListings.
type SearchFilter struct {
	Q, Category, Stage, Country, PricingModel, Domain string
	Upcoming                                          bool
	Sort                                              string
	Offset, Limit                                     int
}

// ftsCandidates bounds how many matches bm25 ranks. bm25 scores every row it
// is asked about, so ranking all matches of a common word costs 100+ ms at
// 100k listings; ranking the newest N matches keeps it to a few ms. Words
// with fewer matches (nearly every real query) are ranked completely.
const ftsCandidates = 500

// FTSCandidates is ftsCandidates for the API's description of relevance.
const FTSCandidates = ftsCandidates

// candidatesLimit is ftsCandidates written into the SQL: a bound LIMIT is
// handed to the full-text table's planner too (see ftsArg).
var candidatesLimit = strconv.Itoa(ftsCandidates)

// sortOrder maps sort names to ORDER BY clauses backed by indexes.
var sortOrder = map[string]string{
	"newest":        "l.launched_at DESC, l.id DESC",
	"votes":         "l.votes DESC, l.id",
	"trending":      "l.trending DESC, l.id",
	"most_viewed":   "l.views DESC, l.id",
	"most_followed": "l.follows DESC, l.id",
}

// FTSQuery turns user text into a safe FTS5 query: each word quoted (so
// operators in input are literal); with prefix the last word also matches
// as a prefix.
func FTSQuery(q string, prefix bool) string {
	var parts []string
	for _, w := range strings.FieldsFunc(strings.ToLower(q), func(r rune) bool {
		return !(r == '-' || r == '\'' || r == '.' || r == '+' || r == '#' || r == '_' || isWordRune(r))
	}) {
		w = strings.ReplaceAll(w, `"`, "")
		if w != "" {
			parts = append(parts, `"`+w+`"`)
		}
	}
	if len(parts) == 0 {
		return ""
	}
	if prefix {
		parts[len(parts)-1] += "*"
	}
	return strings.Join(parts, " ")
}

func isWordRune(r rune) bool {
	return r >= 'a' && r <= 'z' || r >= '0' && r <= '9' || r > 127
}

// SearchListings lists live (or upcoming) listings matching f with an
// exact total (use SearchListingsTotal where an estimate may be reported).
func (d *DB) SearchListings(ctx context.Context, f SearchFilter) ([]Summary, int, error) {
	items, t, err := d.SearchListingsTotal(ctx, f)
	return items, t.N, err
}

// SearchListingsTotal lists live (or upcoming) listings matching f. The
// total is exact from maintained counters when only the status or only a
// category filters; otherwise it is counted up to countCap (see counts.go).
// A text search may first join a group commit (searchable, fts.go): never
// call it inside a write transaction's function, which holds the writer.
func (d *DB) SearchListingsTotal(ctx context.Context, f SearchFilter) ([]Summary, Total, error) {
	where, args := []string{}, []any{}
	status := "live"
	if f.Upcoming {
		status = "scheduled"
	}
	where = append(where, "l.status = '"+status+"'")
	// counter is the exact total when nothing but the status (or, for live
	// listings, a category) filters: -1 when it has to be counted.
	counter := -1
	var catIDs []any // a category (and its subcategories) is all that filters live listings
	if f.Category != "" {
		cond, cargs, size, err := d.categoryCond(ctx, f.Category, f.Offset+f.Limit)
		if err != nil {
			return nil, Total{}, err
		}
		if !f.Upcoming && len(cargs) > 0 {
			catIDs = cargs
		}
		where, args = append(where, cond), append(args, cargs...)
		if !f.Upcoming {
			counter = size
		}
	} else {
		n, err := d.StatusCount(ctx, status)
		if err != nil {
			return nil, Total{}, err
		}
		counter = n
	}
	if f.Stage != "" || f.Country != "" || f.PricingModel != "" || f.Domain != "" || f.Q != "" {
		counter, catIDs = -1, nil
	}
	for _, fl := range []struct{ col, val string }{{"l.stage", f.Stage}, {"l.country", f.Country}, {"l.pricing_model", f.PricingModel}, {"l.domain", f.Domain}} {
		if fl.val != "" {
			where = append(where, fl.col+" = ?")
			args = append(args, fl.val)
		}
	}
	exact := FTSQuery(f.Q, false)
	if f.Q != "" && exact == "" {
		return []Summary{}, Total{}, nil
	}
	if exact == "" {
		if catIDs != nil && (f.Sort == "votes" || f.Sort == "") && SiteOf(ctx) == MainSite {
			return d.membersByVotes(ctx, catIDs, f, counter)
		}
		return d.filteredList(ctx, where, args, f, counter)
	}
	// Whole words first; only when they match nothing is the last word
	// tried as a prefix ("quick" finds "quickbase"). Expanding a short,
	// common prefix is what makes full-text queries slow.
	r := liveFTS
	if f.Upcoming {
		r = hiddenFTS
	}
	ctx, err := d.searchable(ctx)
	if err != nil {
		return nil, Total{}, err
	}
	items, total, err := d.textSearch(ctx, exact, r, where, args, f)
	if err != nil || total.N > 0 {
		return items, total, err
	}
	return d.textSearch(ctx, FTSQuery(f.Q, true), r, where, args, f)
}

// textSearch is a search of the full-text index's range r (liveFTS or
// hiddenFTS: see hiddenRowid).
func (d *DB) textSearch(ctx context.Context, fts string, r ftsRange, where []string, args []any, f SearchFilter) ([]Summary, Total, error) {
	if f.Sort == "relevance" || f.Sort == "" {
		return d.rankedSearch(ctx, fts, r, where, args, f)
	}
	where = append(where, "l.id IN (SELECT "+r.id+" FROM listings_fts WHERE listings_fts MATCH "+ftsArg+" AND "+r.rng+")")
	args = append(args, fts)
	return d.filteredList(ctx, where, args, f, -1)
}

// bigCategory is the live count above which a category filter may read the
// sort index and check membership row by row, instead of sorting every
// member: a big category fills its first pages after a few dozen index
// entries.
const bigCategory = 2000

// categoryCond is the filter for a category and its subcategories, with a
// plan chosen by the category's size and how deep the page is (depth:
// offset + limit). Walking the sort index reads about depth × live/size
// entries (members are spread evenly over the order), sorting the members
// reads size entries: the walk is taken only when it is the shorter. Page
// 10 of a category of 2,700 (of 90,000 live) walked 7,200 entries: 6 ms in
// SQLite's own shell, 12 ms here; sorting its members takes 1.4 ms.
func (d *DB) categoryCond(ctx context.Context, slug string, depth int) (string, []any, int, error) {
	rows, err := d.R.QueryContext(ctx, `SELECT id, live_count FROM categories WHERE slug = ?1
		OR parent_id = (SELECT id FROM categories WHERE slug = ?1) ORDER BY parent_id IS NOT NULL`, slug)
	if err != nil {
		return "", nil, 0, err
	}
	defer rows.Close()
	var ids []any
	size := 0
	for rows.Next() {
		var id int64
		var n int
		if err := rows.Scan(&id, &n); err != nil {
			return "", nil, 0, err
		}
		if len(ids) == 0 {
			size = n // the first row is the category itself; its count includes subcategories
		}
		ids = append(ids, id)
	}
	if err := rows.Err(); err != nil {
		return "", nil, 0, err
	}
	if len(ids) == 0 {
		return "0", nil, 0, nil // unknown category: nothing matches
	}
	marks := strings.TrimSuffix(strings.Repeat("?,", len(ids)), ",")
	walk := size > bigCategory
	if walk {
		live, err := d.StatusCount(ctx, "live")
		if err != nil {
			return "", nil, 0, err
		}
		walk = depth*live < size*size
	}
	if walk {
		return `EXISTS (SELECT 1 FROM listing_categories lc WHERE lc.listing_id = l.id AND lc.category_id IN (` + marks + `))`, ids, size, nil
	}
	return `l.id IN (SELECT listing_id FROM listing_categories WHERE category_id IN (` + marks + `))`, ids, size, nil
}

// filteredList pages through listings matching where; counter is the
// exact total when known (>= 0), else the total is a bounded count.
func (d *DB) filteredList(ctx context.Context, where []string, args []any, f SearchFilter, counter int) ([]Summary, Total, error) {
	order, ok := sortOrder[f.Sort]
	if !ok {
		order = sortOrder["votes"]
		if f.Upcoming {
			order = "l.launch_week, l.id"
		}
	}
	cond := strings.Join(where, " AND ")
	total := Total{N: counter}
	if counter < 0 {
		var err error
		if total, err = d.boundedCount(ctx, "SELECT 1 FROM listings l WHERE "+cond, args, nil); err != nil {
			return nil, Total{}, ftsErr(err)
		}
	}
	items, err := querySummaries(ctx, d.R, "SELECT "+summaryCols+summaryFrom+" WHERE "+cond+
		" ORDER BY "+order+" LIMIT ? OFFSET ?", append(args, f.Limit, f.Offset)...)
	return items, total, err
}

// membersByVotes is filteredList for a category's members by votes when
// nothing else filters. On main each membership row carries its listing's
// live flag and votes (migration 0025), so the index listing_categories_rank
// holds each category in page order: the page's ids come from index
// entries alone and only the page's summaries read the wide listing rows.
// Only main's: another site ranks by its own votes (its listings view,
// filteredList).
func (d *DB) membersByVotes(ctx context.Context, catIDs []any, f SearchFilter, counter int) ([]Summary, Total, error) {
	ids, err := d.rankMembers(ctx, catIDs, f.Offset, f.Limit)
	if err != nil {
		return nil, Total{}, err
	}
	items, err := d.summariesByID(ctx, ids)
	return items, Total{N: counter}, err
}

// rankMembers is the page [offset, offset+limit) of the live members of
// the categories by votes DESC, id. A category with subcategories merges
// each one's first offset+limit entries, a listing in several once: every
// listing of the page is within those of its own category (those ahead of
// it there are ahead of it in the merge too). Sorting all the members in
// one query instead (GROUP BY, ORDER BY) was two thirds of the page's cost.
func (d *DB) rankMembers(ctx context.Context, catIDs []any, offset, limit int) ([]int64, error) {
	type member struct{ id, votes int64 }
	var all []member
	q := d.Prepared(d.R)
	for _, c := range catIDs {
		rows, err := q.QueryContext(ctx, `SELECT listing_id, votes FROM listing_categories INDEXED BY listing_categories_rank
			WHERE category_id = `+IntArg+` AND live = 1 ORDER BY votes DESC, listing_id LIMIT `+IntArg, c, offset+limit)
		if err != nil {
			return nil, err
		}
		for rows.Next() {
			var m member
			if err := rows.Scan(&m.id, &m.votes); err != nil {
				rows.Close()
				return nil, err
			}
			all = append(all, m)
		}
		rows.Close()
		if err := rows.Err(); err != nil {
			return nil, err
		}
	}
	if len(catIDs) > 1 {
		slices.SortFunc(all, func(a, b member) int {
			if a.votes != b.votes {
				return cmp.Compare(b.votes, a.votes)
			}
			return cmp.Compare(a.id, b.id)
		})
		all = slices.CompactFunc(all, func(a, b member) bool { return a.id == b.id })
	}
	ids := make([]int64, 0, limit)
	for i := offset; i < len(all) && len(ids) < limit; i++ {
		ids = append(ids, all[i].id)
	}
	return ids, nil
}

// rankedSearch orders matches as one stable sequence, so every page agrees:
// first the newest ftsCandidates matches ranked by bm25 (name weighted
// highest), then any older matches, newest first. A word with fewer
// matches than that (nearly every real query) is ranked completely.
func (d *DB) rankedSearch(ctx context.Context, fts string, r ftsRange, where []string, args []any, f SearchFilter) ([]Summary, Total, error) {
	cond := strings.Join(where, " AND ")
	// CROSS JOIN keeps the FTS match as the outer loop: a rare word then
	// costs a few lookups instead of a scan of every live listing. When
	// only "live" filters, each match is checked in the small index of live
	// ids instead of the wide table rows (migration 0018): counting was
	// three quarters of a frequent word's search.
	l := "listings l"
	if cond == liveOnly {
		l = "listings l INDEXED BY listings_live_ids"
	}
	ranked, oldest, newest, err := d.rankCandidates(ctx, fts, r, l, cond, args)
	if err != nil {
		return nil, Total{}, ftsErr(err)
	}
	// When every match was ranked (fewer than ftsCandidates: nearly every
	// word), the ranked matches that pass the filters are the exact total:
	// no count query (unless past countCap, where totals are estimates).
	total := Total{N: len(ranked)}
	if oldest > 0 || len(ranked) > countCap {
		var estimate func(context.Context) (int, error)
		if len(where) == 1 && r == liveFTS && !strings.ContainsAny(fts, " *") {
			estimate = func(ctx context.Context) (int, error) { return d.termEstimate(ctx, len(ranked), oldest, newest) }
		}
		count, countArgs := `SELECT 1 FROM listings_fts CROSS JOIN `+l+` ON l.id = `+r.id+`
			WHERE listings_fts MATCH `+ftsArg+` AND `+r.rng+` AND `+cond, append([]any{fts}, args...)
		if cond == liveOnly && r == liveFTS && SiteOf(ctx) == MainSite {
			// Every match in the live range is a live listing: the count
			// walks the index alone. (A site's listings are a view over
			// main's, so there the join stays.)
			count, countArgs = `SELECT 1 FROM listings_fts WHERE listings_fts MATCH `+ftsArg+` AND `+r.rng, []any{fts}
		}
		total, err = d.boundedCount(ctx, count, countArgs, estimate)
		if err != nil {
			return nil, Total{}, ftsErr(err)
		}
	}
	if total.N == 0 {
		return []Summary{}, total, nil
	}
	var ids []int64
	if f.Offset < len(ranked) {
		ids = ranked[f.Offset:min(len(ranked), f.Offset+f.Limit)]
	}
	if rest := f.Limit - len(ids); rest > 0 && oldest > 0 {
		more, err := d.olderMatches(ctx, fts, r, l, cond, args, oldest, max(0, f.Offset-len(ranked)), rest)
		if err != nil {
			return nil, Total{}, ftsErr(err)
		}
		ids = append(ids, more...)
	}
	items, err := d.summariesByID(ctx, ids)
	return items, total, err
}

// ftsArg is the bound full-text query. As a plain "?" (or a CAST of one)
// SQLite may hand its value to the full-text table's planner, and so
// prepare the statement again whenever another word is bound (the ranking
// query did: 7% of an uncached search); a scalar subquery is the same
// value, planned once.
const ftsArg = "(SELECT ?)"

// liveOnly is the condition of an unfiltered search of live listings.
const liveOnly = "l.status = 'live'"

// termEstimate estimates the live listings containing one term from its
// newest ftsCandidates live matches, which span the listing ids
// oldest..newest: that share of the ids, applied to every live listing.
// One counter read, whatever the size: reading the term's document count
// from the full-text vocabulary walked the term's whole list of documents
// (every listing for "and" at 1M). With every match ranked (oldest 0) the
// ranked matches are the count.
func (d *DB) termEstimate(ctx context.Context, ranked int, oldest, newest int64) (int, error) {
	if SiteOf(ctx) != MainSite {
		// The full-text index holds the whole network's listings, not a
		// site's: no estimate there (the total stays countCap, "at least").
		return 0, nil
	}
	if oldest == 0 || newest < oldest {
		return ranked, nil
	}
	live, err := d.StatusCount(ctx, "live")
	if err != nil {
		return 0, err
	}
	return spanEstimate(live, oldest, newest), nil
}

// spanEstimateSQL is spanEstimate in SQL, over a row of min(id) and
// max(id) of the newest matches, with the live listings from their counter.
var spanEstimateSQL = `min(coalesce((SELECT n FROM listing_status_counts WHERE status = 'live'), 0),
	` + candidatesLimit + ` * coalesce((SELECT n FROM listing_status_counts WHERE status = 'live'), 0) / max(1, max(id) - min(id) + 1))`

// spanEstimate is the live listings estimated to match from the span of
// the newest ftsCandidates matches (listing ids oldest..newest): that share
// of the ids, applied to every live listing.
func spanEstimate(live int, oldest, newest int64) int {
	return int(min(int64(live), int64(ftsCandidates)*int64(live)/max(1, newest-oldest+1)))
}

// FrequentWordListings is the estimated number of live listings above
// which a word carries no weight in a search's relevance. bm25 weighs each
// word by counting every listing that contains it (FTS5 walks the word's
// whole list of documents once a query), so a word in every listing cost
// O(listings) however few candidates were scored: 50-60 ms for "and" at
// 1M. Past this bound a word is left out of bm25: the other words rank the
// candidates, and with none left the newest ftsCandidates matches come by
// votes, then newest. Such words say little about relevance anyway (bm25's
// weight for a word in half of all listings or more is floored to almost
// nothing), and the cost no longer grows with the word's listings.
const FrequentWordListings = 10000

// frequentMatches is FrequentWordListings as a variable, so tests can
// reach the bound with a small database.
var frequentMatches = FrequentWordListings

// rankScore is the relevance of a match: bm25 with the name weighted
// highest (then tagline, keywords, features, description).
const rankScore = "bm25(listings_fts, 10.0, 5.0, 1.0, 2.0, 3.0)"

// rankCandidates returns the ids of the newest candidates that pass the
// filters, best first, and, when older matches exist, the oldest and newest
// candidate ids (0 otherwise). The candidates are read first by id alone
// (O(ftsCandidates)); the span of each word's newest matches tells how
// common it is (see FrequentWordListings), which decides what ranks them.
// l is the listings table as "listings l", with the index to read it by.
func (d *DB) rankCandidates(ctx context.Context, fts string, r ftsRange, l, cond string, args []any) (ids []int64, oldest, newest int64, err error) {
	if !strings.Contains(fts, " ") {
		return d.rankWord(ctx, fts, r, l, cond, args)
	}
	// One read transaction: each read finds the words' pages in the
	// connection's cache where an earlier one left them, and all see the
	// same commit.
	err = d.ReadTx(ctx, func(q Queries) error {
		ids, oldest, newest, err = d.rankIn(ctx, q, fts, r, l, cond, args)
		return err
	})
	return ids, oldest, newest, err
}

// rankWord is rankIn for one word in one statement, as most searches are:
// the newest matches' span is read first (w, s), and bm25 is called only
// when the word weighs (a CASE evaluates one branch; bm25 walks the word's
// documents at its first call). One statement reads the word's pages once
// into the connection's cache for both reads, with no transaction around.
func (d *DB) rankWord(ctx context.Context, fts string, r ftsRange, l, cond string, args []any) (ids []int64, oldest, newest int64, err error) {
	rows, err := d.Prepared(d.R).QueryContext(ctx, `WITH w AS (SELECT rowid AS id FROM listings_fts WHERE listings_fts MATCH `+ftsArg+` AND `+r.rng+`
			ORDER BY rowid DESC LIMIT `+candidatesLimit+`),
		s AS MATERIALIZED (SELECT count(*) AS n, coalesce(min(id), 0) AS lo, coalesce(max(id), 0) AS hi, count(*) >= `+candidatesLimit+`
			AND `+spanEstimateSQL+` > `+strconv.Itoa(frequentMatches)+` AS frequent FROM w)
		SELECT m.id, s.n, s.lo, s.hi FROM s, (SELECT `+r.id+` AS id, CASE WHEN (SELECT frequent FROM s) THEN 0 ELSE `+rankScore+` END AS score
			FROM listings_fts WHERE listings_fts MATCH `+ftsArg+` AND `+r.rng+` ORDER BY rowid DESC LIMIT `+candidatesLimit+`) m JOIN `+l+` ON l.id = m.id WHERE `+cond+`
		ORDER BY m.score, l.votes DESC, l.id DESC`, append([]any{fts, fts}, args...)...)
	if err != nil {
		return nil, 0, 0, err
	}
	defer rows.Close()
	n := -1 // matches up to ftsCandidates in the range (unknown while no row passed the filters)
	for rows.Next() {
		var id int64
		if err := rows.Scan(&id, &n, &oldest, &newest); err != nil {
			return nil, 0, 0, err
		}
		ids = append(ids, id)
	}
	if err := rows.Err(); err != nil {
		return nil, 0, 0, err
	}
	if n < 0 { // every candidate was filtered out (or nothing matches)
		if n, oldest, newest, err = newestMatches(ctx, d.Prepared(d.R), fts, r); err != nil {
			return nil, 0, 0, err
		}
	}
	if n < ftsCandidates {
		return ids, 0, 0, nil // every match was ranked
	}
	return ids, oldest, newest, nil
}

// rankIn is rankCandidates for a query of several words, on q (a read
// transaction): the query's newest matches, then each word's, decide which
// words bm25 weighs (weighedWords).
func (d *DB) rankIn(ctx context.Context, q Queries, fts string, r ftsRange, l, cond string, args []any) (ids []int64, oldest, newest int64, err error) {
	n, oldest, newest, err := newestMatches(ctx, q, fts, r)
	if err != nil || n == 0 {
		return nil, 0, 0, err
	}
	weigh, err := d.weighedWords(ctx, q, fts, r, n, oldest, newest)
	if err != nil {
		return nil, 0, 0, err
	}
	switch weigh {
	case fts: // every word weighs: bm25 over the matches themselves
		ids, err = Column[int64](ctx, q, `SELECT m.id FROM (SELECT `+r.id+` AS id, `+rankScore+` AS score
			FROM listings_fts WHERE listings_fts MATCH `+ftsArg+` AND rowid >= (SELECT ?) AND `+r.rng+`) m JOIN `+l+` ON l.id = m.id WHERE `+cond+`
			ORDER BY m.score, l.votes DESC, l.id DESC`, append([]any{fts, oldest}, args...)...)
	case "": // no word weighs: by votes, then newest
		ids, err = Column[int64](ctx, q, `SELECT m.id FROM (SELECT `+r.id+` AS id
			FROM listings_fts WHERE listings_fts MATCH `+ftsArg+` AND rowid >= (SELECT ?) AND `+r.rng+`) m JOIN `+l+` ON l.id = m.id WHERE `+cond+`
			ORDER BY l.votes DESC, l.id DESC`, append([]any{fts, oldest}, args...)...)
	default: // bm25 over the words that weigh, for the matches of all of them
		ids, err = Column[int64](ctx, q, `SELECT m.id FROM (SELECT `+r.id+` AS id, `+rankScore+` AS score
			FROM listings_fts WHERE listings_fts MATCH `+ftsArg+` AND rowid >= (SELECT ?) AND `+r.rng+`) m JOIN `+l+` ON l.id = m.id
			WHERE m.id IN (SELECT `+r.id+` FROM listings_fts WHERE listings_fts MATCH `+ftsArg+` AND rowid >= (SELECT ?) AND `+r.rng+`) AND `+cond+`
			ORDER BY m.score, l.votes DESC, l.id DESC`, append([]any{weigh, oldest, fts, oldest}, args...)...)
	}
	if n < ftsCandidates {
		return ids, 0, 0, err // every match was ranked
	}
	return ids, oldest, newest, err
}

// newestMatches reads the newest ftsCandidates matches of fts in the range
// r by rowid alone: how many (up to ftsCandidates) and their span (rowids).
func newestMatches(ctx context.Context, q Queries, fts string, r ftsRange) (n int, oldest, newest int64, err error) {
	err = q.QueryRowContext(ctx, `SELECT count(*), coalesce(min(id), 0), coalesce(max(id), 0) FROM (SELECT rowid AS id
		FROM listings_fts WHERE listings_fts MATCH `+ftsArg+` AND `+r.rng+` ORDER BY rowid DESC LIMIT `+candidatesLimit+`)`, fts).Scan(&n, &oldest, &newest)
	return n, oldest, newest, err
}

// weighedWords is the part of fts (its words, as FTSQuery writes them)
// whose words are estimated in at most frequentMatches live listings:
// fts itself when every word weighs, "" when none does. A word with fewer
// than ftsCandidates matches always weighs. n, oldest and newest describe
// fts's own newest matches: a one-word query needs no other read.
func (d *DB) weighedWords(ctx context.Context, q Queries, fts string, r ftsRange, n int, oldest, newest int64) (string, error) {
	words := strings.Fields(fts)
	if len(words) == 1 && n < ftsCandidates {
		return fts, nil
	}
	live, err := statusCountIn(ctx, q, "live") // on q: see statusCountIn
	if err != nil {
		return "", err
	}
	if len(words) == 1 {
		if spanEstimate(live, oldest, newest) > frequentMatches {
			return "", nil
		}
		return fts, nil
	}
	var keep []string
	for _, w := range words {
		n, oldest, newest, err := newestMatches(ctx, q, w, r)
		if err != nil {
			return "", err
		}
		if n < ftsCandidates || spanEstimate(live, oldest, newest) <= frequentMatches {
			keep = append(keep, w)
		}
	}
	if len(keep) == len(words) {
		return fts, nil
	}
	return strings.Join(keep, " "), nil
}

// olderMatches pages through matches older than the ranked candidates.
func (d *DB) olderMatches(ctx context.Context, fts string, r ftsRange, l, cond string, args []any, below int64, offset, limit int) ([]int64, error) {
	return Column[int64](ctx, d.Prepared(d.R), `SELECT l.id FROM listings_fts CROSS JOIN `+l+` ON l.id = `+r.id+`
		WHERE listings_fts MATCH `+ftsArg+` AND listings_fts.rowid < ? AND `+r.rng+` AND `+cond+` ORDER BY listings_fts.rowid DESC LIMIT ? OFFSET ?`,
		append(append([]any{fts, below}, args...), limit, offset)...)
}

// summariesByID loads summaries keeping the order of ids.
func (d *DB) summariesByID(ctx context.Context, ids []int64) ([]Summary, error) {
	out := make([]Summary, 0, len(ids))
	if len(ids) == 0 {
		return out, nil
	}
	marks := strings.TrimSuffix(strings.Repeat("?,", len(ids)), ",")
	args := make([]any, len(ids))
	for i, id := range ids {
		args[i] = id
	}
	list, err := querySummaries(ctx, d.Prepared(d.R), "SELECT "+summaryCols+summaryFrom+" WHERE l.id IN ("+marks+")", args...)
	if err != nil {
		return nil, err
	}
	byID := make(map[int64]Summary, len(list))
	for _, s := range list {
		byID[s.ID] = s
	}
	for _, id := range ids {
		if s, ok := byID[id]; ok {
			out = append(out, s)
		}
	}
	return out, nil
}

func ftsErr(err error) error {
	if err != nil && strings.Contains(err.Error(), "fts5") {
		return fmt.Errorf("search syntax: %w", err)
	}
	return err
}

// decodeJSON decodes a JSON column, tolerating empty text.
func decodeJSON[T any](s string) T {
	var v T
	if s != "" {
		_ = json.Unmarshal([]byte(s), &v)
	}
	return v
}

// EncodeJSON encodes a value for a JSON column.
func EncodeJSON(v any) string {
	b, err := json.Marshal(v)
	if err != nil {
		return "null"
	}
	return string(b)
}
