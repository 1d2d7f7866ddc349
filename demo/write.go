package demo

import (
	"context"
	"database/sql"
	"fmt"
	"strings"
	"time"

	"launchdir/db"
)

// columns lists, per table, the columns the generator inserts.
var columns = map[string]string{
	"settings":            "key, value",
	"users":               "id, email, name, is_admin, created_at",
	"categories":          "id, slug, name, parent_id, description, position, attributes",
	"products":            "code, name, description, price_cents, currency, needs_listing, options, weekly_capacity, position",
	"interview_questions": "id, position, question, hint",
	"blog_posts":          "id, slug, title, summary, body_md, author, tags, faqs, published_at",
	"founders":            "id, slug, name, title, bio, country, socials, user_id, created_at, avatar_url",
	"media_images":        "hash, kind, width, height, source_url, source_page, created_at",
	"media_variants":      "hash, variant, content_type, width, height, bytes",
	"listings": `id, slug, name, url, domain, tagline, short_description, description, stage, pricing_model,
		pricing_summary, country, city, founded_year, contact_email, demo_video_url, logo_url, features, usps,
		keywords, tags, headline, summary, seo_title, seo_description, socials, not_found, attributes, status, plan,
		launch_week, launched_at, primary_category_id, unlock_story, unlock_milestones, unlock_media, votes, views,
		follows, trending, rating_sum, rating_count, domain_rating, billboard_cents, created_at, updated_at`,
	"launches":                "week, listing_id, votes",
	"listing_categories":      "listing_id, category_id, is_primary, live, votes",
	"listing_owners":          "listing_id, user_id, role, created_at",
	"listing_founders":        "listing_id, founder_id, position",
	"faqs":                    "listing_id, position, question, answer",
	"listing_updates":         "listing_id, user_id, title, body, created_at",
	"reviews":                 "listing_id, author_name, rating, body, genuine, created_at",
	"votes":                   "listing_id, voter, week, created_at",
	"weekly_votes":            "week, listing_id, votes",
	"daily_views":             "listing_id, day, views",
	"follows":                 "listing_id, user_id, created_at",
	"domain_ratings":          "listing_id, measured_on, rating",
	"revenue":                 "listing_id, mrr_cents, currency, verified, source, updated_at",
	"billboard_contributions": "listing_id, amount_cents, created_at",
	"stories":                 "listing_id, title, story, why_started, problem, journey, challenges, achievements, lessons, whats_next, updated_at",
	"milestones":              "listing_id, date, title, description, url, created_at",
	"media":                   "listing_id, kind, url, caption, position",
	"alternatives":            "listing_id, alternative_id, approved",
	"awards":                  "week, rank, listing_id, votes",
	"featured_slots":          "listing_id, week, order_id",
}

// verbs overrides "INSERT" for tables that migrations may already fill:
// the migrated product catalogue is canonical, demo settings win.
var verbs = map[string]string{
	"products": "INSERT OR IGNORE",
	"settings": "INSERT OR REPLACE",
}

// conflicts are the ON CONFLICT clauses of tables a trigger may already
// have written: the listings insert trigger adds the first launch
// (without its votes, written later) unless the seed dropped it. An
// upsert, not a REPLACE: a REPLACE deletes without firing delete triggers,
// and the week's launch count (migration 0033) would count the launch twice.
var conflicts = map[string]string{
	"launches": " ON CONFLICT(week, listing_id) DO UPDATE SET votes = excluded.votes",
}

// rowSet buffers rows by table for a writer: one slice of arguments per
// table, kept in the order of each table's first row, so parents are
// written before their children. The seed's generator fills one per chunk
// in its own goroutine (turning a listing into arguments, its JSON columns
// included, was a sixth of the writer's time at 1M listings), and the
// writer only binds and steps.
type rowSet struct {
	bufs  map[string]*rowBuf
	order []string // tables in the order of their first row
}

type rowBuf struct {
	cols int
	args []any
}

// insert buffers one row of table; a writer's write stores it.
func (rs *rowSet) insert(table string, args ...any) {
	if rs.bufs == nil {
		rs.bufs = map[string]*rowBuf{}
	}
	b := rs.bufs[table]
	if b == nil {
		b = &rowBuf{cols: len(args)}
		rs.bufs[table] = b
		rs.order = append(rs.order, table)
	}
	b.args = append(b.args, args...)
}

// writer writes row sets, table by table in multi-row INSERTs (VALUES
// (…),(…),…) prepared once per transaction: one statement per 64 rows
// instead of one per row, which is most of the cost of a row in
// database/sql and the driver. It has a row set of its own (insert,
// flush) for the rows written outside the seed's chunks. The first error
// sticks and later writes are skipped, which keeps the many insert calls
// free of error plumbing.
type writer struct {
	rowSet
	ctx   context.Context
	tx    *sql.Tx
	stmts map[stmtKey]*sql.Stmt
	err   error
}

type stmtKey struct {
	table string
	rows  int
}

// maxRowsPerInsert rows go in one statement; a remainder is written in
// halving steps (32, 16, … 1), so each table needs at most 7 statements.
const maxRowsPerInsert = 64

func newWriter(ctx context.Context, tx *sql.Tx) *writer {
	return &writer{ctx: ctx, tx: tx, stmts: map[stmtKey]*sql.Stmt{}}
}

// flush writes the writer's own buffered rows and returns the first error.
func (w *writer) flush() error { return w.write(&w.rowSet) }

// write stores every row of rs, empties it (keeping its buffers) and
// returns the first error.
func (w *writer) write(rs *rowSet) error {
	for _, table := range rs.order {
		b := rs.bufs[table]
		for rest := b.args; len(rest) > 0 && w.err == nil; {
			k := maxRowsPerInsert
			for k*b.cols > len(rest) {
				k /= 2
			}
			if st := w.stmt(table, k); st != nil {
				if _, err := st.ExecContext(w.ctx, rest[:k*b.cols]...); err != nil {
					w.err = fmt.Errorf("insert into %s: %w", table, err)
				}
			}
			rest = rest[k*b.cols:]
		}
		clear(b.args) // let the written values go, keep the buffer
		b.args = b.args[:0]
	}
	return w.err
}

// stmt returns the prepared INSERT of rows rows into table.
func (w *writer) stmt(table string, rows int) *sql.Stmt {
	key := stmtKey{table, rows}
	if st := w.stmts[key]; st != nil {
		return st
	}
	cols := columns[table]
	row := "(" + strings.TrimSuffix(strings.Repeat("?,", strings.Count(cols, ",")+1), ",") + ")"
	verb := verbs[table]
	if verb == "" {
		verb = "INSERT"
	}
	q := verb + " INTO " + table + "(" + cols + ") VALUES" + strings.TrimSuffix(strings.Repeat(row+",", rows), ",") + conflicts[table]
	st, err := w.tx.PrepareContext(w.ctx, q)
	if err != nil {
		w.err = fmt.Errorf("prepare %s: %w", table, err)
		return nil
	}
	w.stmts[key] = st
	return st
}

// Conversions for nullable and JSON columns.

func jsonOf(v any) string {
	switch x := v.(type) {
	case []string:
		if x == nil {
			return "[]"
		}
	case map[string]string:
		if x == nil {
			return "{}"
		}
	}
	return db.EncodeJSON(v)
}

func nullTime(t time.Time, format func(time.Time) string) any {
	if t.IsZero() {
		return nil
	}
	return format(t)
}

func nullInt[T int | int64](n T, null T) any {
	if n == null {
		return nil
	}
	return n
}

func flag(b bool) int {
	if b {
		return 1
	}
	return 0
}

// writeBase writes what every demo database shares: settings (except
// first_week, known only at the end), products, categories, users, the
// founder interview and the blog.
func (g *gen) writeBase(w *writer) {
	for _, kv := range [][2]string{
		{"site_name", "launchdir demo"},
		{"site_description", "A weekly launch directory for new startups and indie products: vote, review and compare what founders ship."},
		{"free_queue_weeks", "4"},
		{"free_weekly_capacity", "10"},
	} {
		w.insert("settings", kv[0], kv[1])
	}
	for i, p := range products {
		opts := "{}"
		if p.Options != nil {
			opts = db.EncodeJSON(p.Options)
		}
		w.insert("products", p.Code, p.Name, p.Description, p.PriceCents, "USD", 1, opts, nullInt(p.WeeklyCapacity, 0), i+1)
	}
	for _, c := range g.cats {
		names := make([]string, len(c.Top.Attributes))
		for i, a := range c.Top.Attributes {
			names[i] = a.Name
		}
		w.insert("categories", c.ID, c.Slug, c.Name, nullInt(c.ParentID, 0), c.Description, c.Position, jsonOf(names))
	}
	g.writeUsers(w)
	for i, q := range interviewQuestions {
		w.insert("interview_questions", i+1, i+1, q.Question, q.Hint)
	}
	for i, p := range blogPosts {
		at := g.today.AddDate(0, 0, -p.DaysAgo).Add(time.Duration(8+i%5) * time.Hour)
		w.insert("blog_posts", i+1, p.Slug, p.Title, p.Summary, p.Body, p.Author, jsonOf(p.Tags), db.EncodeJSON(p.FAQs), stamp(at))
	}
}

func (g *gen) writeUsers(w *writer) {
	joined := g.now.AddDate(-1, 0, 0)
	for _, u := range namedUsers {
		w.insert("users", u.ID, u.Email, u.Name, flag(u.IsAdmin), stamp(joined))
	}
	for i := range visitors {
		at := joined.Add(time.Duration(i) * 97 * time.Hour)
		w.insert("users", firstVisitorID+i, fmt.Sprintf("user%d@example.com", i+1), fmt.Sprintf("Visitor %d", i+1), 0, stamp(at))
	}
}

// writePendingFounders writes founders created since the last call; they
// must exist before the listings that link to them.
func (g *gen) writePendingFounders(w *writer) {
	for _, f := range g.pendingFounders {
		writeFounder(&w.rowSet, f)
	}
	g.pendingFounders = g.pendingFounders[:0]
}

func writeFounder(w *rowSet, f *founder) {
	w.insert("founders", f.ID, f.Slug, f.Name, f.Title, f.Bio, f.Country, jsonOf(f.Socials), nullInt(f.UserID, 0), stamp(f.CreatedAt), f.AvatarURL)
}

// writeListing writes a listing with all its rows; counters come from the
// same slices that are inserted.
func writeListing(w *rowSet, l *listing) {
	ratingSum, ratingCount := l.rating()
	w.insert("listings", l.ID, l.Slug, l.Name, l.URL, l.Domain, l.Tagline, l.Short, l.Description, l.Stage, l.PricingModel,
		l.PricingNote, l.Country, l.City, nullInt(l.FoundedYear, 0), l.Email, l.VideoURL, l.LogoURL, jsonOf(l.Features), jsonOf(l.USPs),
		jsonOf(l.Keywords), jsonOf(l.Tags), l.Headline, l.Summary, l.SEOTitle, l.SEODescription, jsonOf(l.Socials), jsonOf(l.NotFound),
		jsonOf(l.Attributes), l.Status, l.Plan, nullTime(l.Week, date), nullTime(l.LaunchedAt, stamp), l.Category.ID,
		flag(l.UnlockStory), flag(l.UnlockMiles), flag(l.UnlockMedia), len(l.Votes), l.views(), len(l.Follows), l.Trending,
		ratingSum, ratingCount, nullInt(l.DomainRating, -1), l.billboardCents(), stamp(l.CreatedAt), stamp(l.UpdatedAt))
	if !l.Week.IsZero() {
		w.insert("launches", date(l.Week), l.ID, l.launchWeekVotes())
	}
	live := flag(l.Status == "live")
	w.insert("listing_categories", l.ID, l.Category.ID, 1, live, len(l.Votes))
	for _, c := range l.Extra {
		w.insert("listing_categories", l.ID, c.ID, 0, live, len(l.Votes))
	}
	for _, o := range l.Owners {
		w.insert("listing_owners", l.ID, o.UserID, o.Role, stamp(l.CreatedAt))
	}
	for i, f := range l.Founders {
		w.insert("listing_founders", l.ID, f.ID, i)
	}
	writeListingContent(w, l)
	writeListingActivity(w, l)
}

// launchWeekVotes is the listing's count in its own launch week, which the
// weekly_votes and listings triggers would set (the seed drops them: see
// dropDerived).
func (l *listing) launchWeekVotes() int {
	if l.Week.IsZero() {
		return 0
	}
	week := date(l.Week)
	for _, wc := range l.Weekly {
		if wc.Week == week {
			return wc.Votes
		}
	}
	return 0
}

func writeListingContent(w *rowSet, l *listing) {
	for i, q := range l.FAQs {
		w.insert("faqs", l.ID, i+1, q.Question, q.Answer)
	}
	var author any
	if len(l.Owners) > 0 {
		author = l.Owners[0].UserID
	}
	for _, u := range l.Updates {
		w.insert("listing_updates", l.ID, author, u.Title, u.Body, stamp(u.At))
	}
	if s := l.Story; s != nil {
		w.insert("stories", l.ID, s.Title, s.Story, s.WhyStarted, s.Problem, s.Journey, s.Challenges, s.Achievements, s.Lessons, s.Next, stamp(l.UpdatedAt))
	}
	for _, m := range l.Milestones {
		w.insert("milestones", l.ID, m.Date, m.Title, m.Description, m.URL, stamp(l.UpdatedAt))
	}
	for i, m := range l.Media {
		w.insert("media", l.ID, m.Kind, m.URL, m.Caption, i)
	}
}

func writeListingActivity(w *rowSet, l *listing) {
	for _, r := range l.Reviews {
		w.insert("reviews", l.ID, r.Author, r.Rating, r.Body, flag(r.Genuine), stamp(r.At))
	}
	for _, v := range l.Votes {
		w.insert("votes", l.ID, v.Voter, date(monday(v.At)), stamp(v.At))
	}
	for _, wc := range l.Weekly {
		w.insert("weekly_votes", wc.Week, l.ID, wc.Votes)
	}
	for _, d := range l.Views {
		w.insert("daily_views", l.ID, d.Day, d.Views)
	}
	for _, f := range l.Follows {
		w.insert("follows", l.ID, f.UserID, stamp(f.At))
	}
	for _, p := range l.DR {
		w.insert("domain_ratings", l.ID, p.On, p.Rating)
	}
	if r := l.Revenue; r != nil {
		w.insert("revenue", l.ID, r.MRRCents, "USD", flag(r.Verified), r.Source, stamp(r.At))
	}
	for _, c := range l.Billboard {
		w.insert("billboard_contributions", l.ID, c.Cents, stamp(c.At))
	}
	if l.Featured { // given by the demo, not bought: no order
		w.insert("featured_slots", l.ID, date(l.Week), nil)
	}
}

// finish writes the rows that depend on every listing: awards and the
// first_week setting. The category counts are the caller's.
func (g *gen) finish(w *writer) error {
	for _, a := range computeAwards(g.weekly, date(g.week0)) {
		w.insert("awards", a.Week, a.Rank, a.ListingID, a.Votes)
	}
	first := g.week0
	if !g.earliestWeek.IsZero() {
		first = g.earliestWeek
	}
	w.insert("settings", "first_week", date(first))
	return w.flush()
}
