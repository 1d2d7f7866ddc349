package db

import (
	"context"
	"database/sql"
	"fmt"
	"strings"
)

// ListingIDBySlug finds a live listing's id.
func (d *DB) ListingIDBySlug(ctx context.Context, slug string) (int64, error) {
	var id int64
	err := d.R.QueryRowContext(ctx, `SELECT id FROM listings WHERE slug = ? AND status = 'live'`, slug).Scan(&id)
	return id, err
}

// Alternative is a listing suggested in place of another.
type Alternative struct {
	Summary
	Approved bool `json:"approved"`
}

// Alternatives returns owner-approved alternatives first, then other live
// listings of the same primary category by votes. The two parts are read
// separately, each in its index order, so a page costs its own rows, not a
// sort of the whole category (25,000 listings each at 1M).
func (d *DB) Alternatives(ctx context.Context, id int64, offset, limit int) ([]Alternative, int, error) {
	approved, err := querySummaries(ctx, d.R, `SELECT `+summaryCols+summaryFrom+`
		JOIN alternatives a ON a.alternative_id = l.id AND a.listing_id = ?1 AND a.approved = 1
		WHERE l.status = 'live' AND l.id != ?1 ORDER BY l.votes DESC, l.id`, id)
	if err != nil {
		return nil, 0, err
	}
	const rest = ` WHERE l.primary_category_id = (SELECT primary_category_id FROM listings WHERE id = ?1) AND l.status = 'live' AND l.id != ?1
		AND l.id NOT IN (SELECT alternative_id FROM alternatives WHERE listing_id = ?1 AND approved = 1)`
	n, err := d.otherAlternatives(ctx, id, approved)
	if err != nil {
		return nil, 0, err
	}
	parts := []segment{
		{len(approved), func(off, lim int) ([]Summary, error) { return approved[off : off+lim], nil }},
		{n, func(off, lim int) ([]Summary, error) {
			return querySummaries(ctx, d.R, `SELECT `+summaryCols+summaryFrom+rest+` ORDER BY l.votes DESC, l.id LIMIT ?2 OFFSET ?3`, id, lim, off)
		}},
	}
	items, err := pageSegments(parts, offset, limit)
	if err != nil {
		return nil, 0, err
	}
	out := make([]Alternative, len(items))
	for i, it := range items {
		out[i] = Alternative{Summary: it, Approved: offset+i < len(approved)}
	}
	return out, len(approved) + n, nil
}

// otherAlternatives is the number of live listings of listing id's primary
// category other than itself and its approved alternatives: the category's
// live count (counted once per category and cached like other big totals,
// where a count per listing was a fifth of a listing page's CPU, issue 26)
// less the listing and its approved alternatives in that category.
func (d *DB) otherAlternatives(ctx context.Context, id int64, approved []Summary) (int, error) {
	var (
		cat     sql.NullInt64
		catSlug string
		live    bool
	)
	err := d.R.QueryRowContext(ctx, `SELECT l.primary_category_id, coalesce(c.slug, ''), l.status = 'live'
		FROM listings l LEFT JOIN categories c ON c.id = l.primary_category_id WHERE l.id = ?`, id).Scan(&cat, &catSlug, &live)
	if IsNoRows(err) || err == nil && !cat.Valid {
		return 0, nil
	}
	if err != nil {
		return 0, err
	}
	n, err := d.PublicCount(ctx, `SELECT count(*) FROM listings WHERE primary_category_id = ? AND status = 'live'`, cat.Int64)
	if err != nil {
		return 0, err
	}
	if live {
		n--
	}
	for _, a := range approved { // live, approved, not the listing itself
		if a.Category != nil && a.Category.Slug == catSlug {
			n--
		}
	}
	return max(n, 0), nil
}

// segment is one ordered part of a list that is paged across parts.
type segment struct {
	n     int                                        // rows in the part
	fetch func(offset, limit int) ([]Summary, error) // a window of it
}

// pageSegments returns the window [offset, offset+limit) of the parts laid
// end to end, reading only the parts it overlaps.
func pageSegments(parts []segment, offset, limit int) ([]Summary, error) {
	out := []Summary{}
	for _, p := range parts {
		if limit <= 0 {
			break
		}
		if offset >= p.n {
			offset -= p.n
			continue
		}
		items, err := p.fetch(offset, min(limit, p.n-offset))
		if err != nil {
			return nil, err
		}
		out = append(out, items...)
		limit -= len(items)
		offset = 0
	}
	return out, nil
}

// CategoryAttributes returns the compare attributes of a category, its
// parent's first (a subcategory inherits what its parent compares).
func (d *DB) CategoryAttributes(ctx context.Context, slug string) ([]string, error) {
	rows, err := d.R.QueryContext(ctx, `SELECT p.attributes FROM categories c JOIN categories p ON p.id = c.parent_id WHERE c.slug = ?1
		UNION ALL SELECT attributes FROM categories WHERE slug = ?1`, slug)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	out := []string{}
	for rows.Next() {
		var at string
		if err := rows.Scan(&at); err != nil {
			return nil, err
		}
		out = append(out, decodeJSON[[]string](at)...)
	}
	return out, rows.Err()
}

// Category is a node of the category tree.
type Category struct {
	ID            int64      `json:"-"`
	ParentID      int64      `json:"-"`
	Slug          string     `json:"slug"`
	Name          string     `json:"name"`
	Description   string     `json:"description"`
	LiveCount     int64      `json:"live_count"`
	Attributes    []string   `json:"attributes"`
	Parent        string     `json:"parent,omitempty"`
	ParentName    string     `json:"parent_name,omitempty" doc:"The parent category's name (subcategories only)."`
	Subcategories []Category `json:"subcategories"`
}

// Categories returns the whole tree; live_count of a parent includes its subcategories.
func (d *DB) Categories(ctx context.Context) ([]Category, error) {
	rows, err := d.R.QueryContext(ctx, `SELECT c.id, coalesce(c.parent_id,0), c.slug, c.name, c.description, c.live_count,
		c.attributes, coalesce(p.slug,''), coalesce(p.name,'') FROM categories c LEFT JOIN categories p ON p.id = c.parent_id ORDER BY c.position, c.name`)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var all []Category
	for rows.Next() {
		var c Category
		var at string
		if err := rows.Scan(&c.ID, &c.ParentID, &c.Slug, &c.Name, &c.Description, &c.LiveCount, &at, &c.Parent, &c.ParentName); err != nil {
			return nil, err
		}
		c.Attributes = orEmpty(decodeJSON[[]string](at))
		c.Subcategories = []Category{}
		all = append(all, c)
	}
	if err := rows.Err(); err != nil {
		return nil, err
	}
	return buildTree(all), nil
}

func buildTree(all []Category) []Category {
	children := map[int64][]Category{}
	for _, c := range all {
		if c.ParentID != 0 {
			children[c.ParentID] = append(children[c.ParentID], c)
		}
	}
	top := []Category{}
	for _, c := range all {
		if c.ParentID == 0 {
			if kids := children[c.ID]; kids != nil {
				c.Subcategories = kids
			}
			top = append(top, c)
		}
	}
	return top
}

// CategoryBySlug returns one category with its subcategories: the same
// value as its place in Categories' tree (a top-level category or one of
// their subcategories; subcategories list none), read with the category's
// own rows instead of the whole tree (all 68 rows with their attributes
// decoded were a fifth of the category page's CPU under writes).
func (d *DB) CategoryBySlug(ctx context.Context, slug string) (*Category, error) {
	rows, err := d.Prepared(d.R).QueryContext(ctx, `SELECT * FROM (
		SELECT c.id, coalesce(c.parent_id,0), c.slug, c.name, c.description, c.live_count, c.attributes,
			coalesce(p.slug,''), coalesce(p.name,''), c.position
		FROM categories c LEFT JOIN categories p ON p.id = c.parent_id
		WHERE c.slug = ?1 AND (p.id IS NULL OR p.parent_id IS NULL)
		UNION ALL
		SELECT c.id, c.parent_id, c.slug, c.name, c.description, c.live_count, c.attributes, p.slug, p.name, c.position
		FROM categories p JOIN categories c ON c.parent_id = p.id
		WHERE p.slug = ?1 AND p.parent_id IS NULL)
		ORDER BY 10, 4`, slug)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var found *Category
	kids := []Category{}
	for rows.Next() {
		var c Category
		var at string
		var pos int64
		if err := rows.Scan(&c.ID, &c.ParentID, &c.Slug, &c.Name, &c.Description, &c.LiveCount, &at, &c.Parent, &c.ParentName, &pos); err != nil {
			return nil, err
		}
		c.Attributes = orEmpty(decodeJSON[[]string](at))
		c.Subcategories = []Category{}
		if c.Slug == slug {
			found = &c
		} else {
			kids = append(kids, c)
		}
	}
	if err := rows.Err(); err != nil {
		return nil, err
	}
	if found == nil {
		return nil, sql.ErrNoRows
	}
	if found.ParentID == 0 && len(kids) > 0 {
		found.Subcategories = kids
	}
	return found, nil
}

// RecountCategories refreshes the maintained live counts (parents include
// their subcategories; a listing counts once per category).
func RecountCategories(ctx context.Context, tx *sql.Tx) error {
	_, err := tx.ExecContext(ctx, `UPDATE categories SET live_count = (
		SELECT count(DISTINCT lc.listing_id) FROM listing_categories lc JOIN listings l ON l.id = lc.listing_id
		JOIN categories k ON k.id = lc.category_id
		WHERE l.status = 'live' AND (k.id = categories.id OR k.parent_id = categories.id))`)
	return err
}

// The one ranking of a week's launches (issue 23), read by the week page,
// the home page, the weekly community board, the badge and the Launch of
// the Week awards: the listings launched (or relaunched) in that week, live
// or scheduled, by their counted votes in that week, ties to the lower
// listing id (the older listing). WeekRankFrom binds the week as ?1; the
// order is the launches_rank index's, so a page reads offset+limit index
// entries.
const (
	WeekRankFrom  = ` FROM launches n JOIN listings l ON l.id = n.listing_id WHERE n.week = ?1 AND l.status IN ('live','scheduled')`
	WeekRankOrder = ` ORDER BY n.votes DESC, n.listing_id`
)

// LaunchedBetween pages the live listings launched in [from, to) by votes
// (the home page's "today"). The page's ids are ranked from two narrow
// indexes, launch time (listings_newest) then votes (listings_status_by_id),
// and only the page's rows are read: sorting the day's listings by their
// wide rows read a page per listing (147 on a day at 100k), 85% of the
// signed-in home page's CPU beside a writer, whose commits empty the
// readers' page caches.
//
// The page's ids are kept under change counter launch_days (migration
// 0030): ranking a day's launches sorts all of them by votes (176 on a day
// at 100k), 21% of the server's CPU serving signed-in home pages beside
// an owner's edits, which do not change it. Votes do, so on launch day it is ranked again.
func (d *DB) LaunchedBetween(ctx context.Context, from, to string, offset, limit int) ([]Summary, error) {
	key := fmt.Sprintf("%s %s %d %d", from, to, offset, limit)
	ids, err := atVersion(ctx, d, "launch_days", key, func(q Queries) ([]int64, error) {
		return Column[int64](ctx, q, `SELECT n.id FROM listings n INDEXED BY listings_newest
		JOIN listings v INDEXED BY listings_status_by_id ON v.id = n.id
		WHERE n.status = 'live' AND n.launched_at >= `+TextArg+` AND n.launched_at < `+TextArg+`
		ORDER BY v.votes DESC, n.id LIMIT `+IntArg+` OFFSET `+IntArg, from, to, limit, offset)
	})
	if err != nil {
		return nil, err
	}
	return d.summariesByID(ctx, ids)
}

// WeekLaunches pages a week's launches in the week's ranking; each summary
// carries its rank and its votes in that week. The summaries are read for
// the page alone. Pages are kept in the read cache like search pages
// (until the next write; the items are shared: do not modify).
func (d *DB) WeekLaunches(ctx context.Context, week string, offset, limit int) ([]Summary, int, error) {
	r, err := memo(ctx, d, fmt.Sprintf("week %s %d %d", week, offset, limit), func(ctx context.Context) (searchResult, error) {
		items, total, err := d.weekLaunches(ctx, week, offset, limit)
		return searchResult{items: items, total: Total{N: total}}, err
	})
	return r.items, r.total.N, err
}

// weekLaunches is WeekLaunches without the read cache. The page query is a
// prepared statement, with the week bound as TextArg so that planner
// statistics do not re-prepare it for each week.
func (d *DB) weekLaunches(ctx context.Context, week string, offset, limit int) ([]Summary, int, error) {
	total, err := d.weekLaunchCount(ctx, week)
	if err != nil {
		return nil, 0, err
	}
	rows, err := d.Prepared(d.R).QueryContext(ctx, `SELECT `+summaryCols+`, p.wv FROM (
		SELECT n.listing_id AS id, n.votes AS wv FROM launches n INDEXED BY launches_rank JOIN listings l ON l.id = n.listing_id
		WHERE n.week = `+TextArg+` AND l.status IN ('live','scheduled') ORDER BY n.votes DESC, n.listing_id LIMIT `+IntArg+` OFFSET `+IntArg+`) p
		JOIN listings l ON l.id = p.id LEFT JOIN categories c ON c.id = l.primary_category_id
		ORDER BY p.wv DESC, p.id`, week, limit, offset)
	if err != nil {
		return nil, 0, err
	}
	defer rows.Close()
	items := []Summary{}
	for rows.Next() {
		var wv int64
		s, err := scanSummary(rows, &wv)
		if err != nil {
			return nil, 0, err
		}
		s.WeekVotes, s.Rank = &wv, offset+len(items)+1
		items = append(items, s)
	}
	return items, total, rows.Err()
}

// weekLaunchCount is the number of the week's launches whose listing is
// live or scheduled: on main, kept by triggers (migration 0033), one row
// read; another site's launches are a view, counted.
func (d *DB) weekLaunchCount(ctx context.Context, week string) (int, error) {
	var n int
	q := d.Prepared(d.R)
	if SiteOf(ctx) != MainSite {
		err := q.QueryRowContext(ctx, `SELECT count(*)`+WeekRankFrom, week).Scan(&n)
		return n, err
	}
	err := q.QueryRowContext(ctx, `SELECT coalesce((SELECT n FROM week_launch_counts WHERE week = `+TextArg+`), 0)`, week).Scan(&n)
	return n, err
}

// WeekRank is a listing's place in a week's ranking and its votes there;
// ok is false when the listing has no launch in that week.
func (d *DB) WeekRank(ctx context.Context, listingID int64, week string) (rank int, votes int64, ok bool, err error) {
	q := d.R
	err = q.QueryRowContext(ctx, `SELECT n.votes FROM launches n WHERE n.week = ? AND n.listing_id = ?`, week, listingID).Scan(&votes)
	if IsNoRows(err) {
		return 0, 0, false, nil
	}
	if err != nil {
		return 0, 0, false, err
	}
	err = q.QueryRowContext(ctx, `SELECT 1 + count(*)`+WeekRankFrom+` AND (n.votes > ?2 OR (n.votes = ?2 AND n.listing_id < ?3))`,
		week, votes, listingID).Scan(&rank)
	return rank, votes, err == nil, err
}

// Count runs a count query on the read pool.
func (d *DB) Count(ctx context.Context, query string, args ...any) (int, error) {
	var n int
	err := d.R.QueryRowContext(ctx, query, args...).Scan(&n)
	return n, err
}

// RevenueFrom drives the revenue board from its ranking index.
const RevenueFrom = ` FROM revenue m CROSS JOIN listings l ON l.id = m.listing_id LEFT JOIN categories c ON c.id = l.primary_category_id `

// Summaries runs a summary query; cond follows FROM listings l JOIN categories c.
func (d *DB) Summaries(ctx context.Context, tail string, args ...any) ([]Summary, error) {
	return querySummaries(ctx, d.R, "SELECT "+summaryCols+summaryFrom+tail, args...)
}

// BoardItem is one leaderboard row.
type BoardItem struct {
	Rank    int         `json:"rank"`
	Listing Summary     `json:"listing"`
	Metric  BoardMetric `json:"metric"`
}

// BoardMetric is what a board ranks by; revenue adds whether the figure
// was checked, its currency and where it came from.
type BoardMetric struct {
	Name     string `json:"name" enum:"votes_in_week,votes,contributed_cents,domain_rating,mrr_cents"`
	Value    int64  `json:"value"`
	Verified *bool  `json:"verified,omitempty" doc:"revenue only: checked against a payment provider."`
	Currency string `json:"currency,omitempty" doc:"revenue only."`
	Source   string `json:"source,omitempty" doc:"revenue and domain-rating: where the figure came from."`
	AsOf     string `json:"as_of,omitempty" doc:"revenue and domain-rating: when the figure was measured or reported (date or date-time)."`
}

// Board runs a leaderboard query; value is the SQL expression of the
// metric and from replaces the default FROM clause when not empty.
func (d *DB) Board(ctx context.Context, metric, value, from string, offset int, query string, args ...any) ([]BoardItem, error) {
	if from == "" {
		from = summaryFrom
	}
	rows, err := d.R.QueryContext(ctx, "SELECT "+summaryCols+", "+value+" "+from+query, args...)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	out := []BoardItem{}
	for rows.Next() {
		var v int64
		s, err := scanSummary(rows, &v)
		if err != nil {
			return nil, err
		}
		out = append(out, BoardItem{Rank: offset + len(out) + 1, Listing: s, Metric: BoardMetric{Name: metric, Value: v}})
	}
	return out, rows.Err()
}

// Founder is a founder profile.
type Founder struct {
	ID        int64             `json:"-"`
	Slug      string            `json:"slug"`
	Name      string            `json:"name"`
	Title     string            `json:"title"`
	Bio       string            `json:"bio"`
	Country   string            `json:"country"`
	Socials   Socials           `json:"socials"`
	AvatarURL string            `json:"avatar_url,omitempty" format:"uri" doc:"The founder's picture, an image of this site."`
	Companies []Summary         `json:"companies,omitempty"`
	Stories   []FounderStory    `json:"stories,omitempty"`
	Interview []InterviewAnswer `json:"interview,omitempty" doc:"Their published answers to the founder interview, when the profile is their account's."`
}

// FounderStory is a story a founder told on one of their listings.
type FounderStory struct {
	Listing string `json:"listing"`
	Story
}

// Founders lists founders by name.
//
// The total is bounded like a search's (boundedCount): whether a founder is
// public depends on their listings, so an exact count reads every founder
// (1.5M at 1M listings: 1.6 to 3 s), and the first request would wait for it.
func (d *DB) Founders(ctx context.Context, q, country string, offset, limit int) ([]Founder, Total, error) {
	where, args := []string{"1=1"}, []any{}
	if q != "" {
		where = append(where, "f.name LIKE ? ESCAPE '\\'")
		args = append(args, "%"+likeEscape(q)+"%")
	}
	if country != "" {
		where = append(where, "f.country = ?")
		args = append(args, country)
	}
	// Only founders with at least one live company are public.
	where = append(where, `EXISTS (SELECT 1 FROM listing_founders lf JOIN listings l ON l.id = lf.listing_id
		WHERE lf.founder_id = f.id AND l.status = 'live')`)
	cond := strings.Join(where, " AND ")
	total, err := d.boundedCount(ctx, "SELECT 1 FROM founders f WHERE "+cond, args, nil)
	if err != nil {
		return nil, Total{}, err
	}
	rows, err := d.R.QueryContext(ctx, `SELECT f.id, f.slug, f.name, f.title, f.bio, f.country, f.socials, f.avatar_url FROM founders f
		WHERE `+cond+` ORDER BY f.name COLLATE NOCASE, f.id LIMIT ? OFFSET ?`, append(args, limit, offset)...)
	if err != nil {
		return nil, Total{}, err
	}
	defer rows.Close()
	out := []Founder{}
	for rows.Next() {
		f, err := scanFounder(rows)
		if err != nil {
			return nil, Total{}, err
		}
		out = append(out, f)
	}
	return out, total, rows.Err()
}

func scanFounder(sc interface{ Scan(...any) error }) (Founder, error) {
	var f Founder
	var soc string
	err := sc.Scan(&f.ID, &f.Slug, &f.Name, &f.Title, &f.Bio, &f.Country, &soc, &f.AvatarURL)
	f.Socials = orEmptyMap(decodeJSON[map[string]string](soc))
	return f, err
}

func likeEscape(s string) string {
	return strings.NewReplacer(`\`, `\\`, `%`, `\%`, `_`, `\_`).Replace(s)
}

// FounderBySlug returns a founder with live companies and unlocked stories.
func (d *DB) FounderBySlug(ctx context.Context, slug string) (*Founder, error) {
	f, err := scanFounder(d.R.QueryRowContext(ctx, `SELECT id, slug, name, title, bio, country, socials, avatar_url FROM founders WHERE slug = ?`, slug))
	if err != nil {
		return nil, err
	}
	if f.Companies, err = d.Summaries(ctx, ` JOIN listing_founders lf ON lf.listing_id = l.id
		WHERE lf.founder_id = ? AND l.status = 'live' ORDER BY l.votes DESC, l.id`, f.ID); err != nil {
		return nil, err
	}
	if len(f.Companies) == 0 {
		return nil, sql.ErrNoRows
	}
	var uid sql.NullInt64
	if err := d.R.QueryRowContext(ctx, `SELECT user_id FROM founders WHERE id = ?`, f.ID).Scan(&uid); err != nil {
		return nil, err
	}
	if f.Interview, err = interviewOf(ctx, d.R, uid.Int64); err != nil {
		return nil, err
	}
	f.Stories = []FounderStory{}
	for _, c := range f.Companies {
		var unlocked bool
		if err := d.R.QueryRowContext(ctx, `SELECT unlock_story FROM listings WHERE id = ?`, c.ID).Scan(&unlocked); err != nil {
			return nil, err
		}
		if !unlocked {
			continue
		}
		s, err := loadStory(ctx, d.R, c.ID)
		if err != nil {
			return nil, err
		}
		if s.Title != "" || s.Story != "" {
			f.Stories = append(f.Stories, FounderStory{Listing: c.Slug, Story: *s})
		}
	}
	return &f, nil
}

// BlogPost is an article.
type BlogPost struct {
	Slug        string   `json:"slug"`
	Title       string   `json:"title"`
	Summary     string   `json:"summary"`
	Author      string   `json:"author"`
	Tags        []string `json:"tags"`
	PublishedAt string   `json:"published_at" format:"date-time"`
	Markdown    string   `json:"markdown,omitempty"`
	FAQs        []FAQ    `json:"faqs,omitempty"`
}

// BlogPosts lists posts newest first; q matches title, summary or body.
func (d *DB) BlogPosts(ctx context.Context, q string, offset, limit int) ([]BlogPost, int, error) {
	cond, args := "1=1", []any{}
	if q != "" {
		cond = `(title LIKE ?1 ESCAPE '\' OR summary LIKE ?1 ESCAPE '\' OR body_md LIKE ?1 ESCAPE '\')`
		args = append(args, "%"+likeEscape(q)+"%")
	}
	total, err := d.PublicCount(ctx, "SELECT count(*) FROM blog_posts WHERE "+cond, args...)
	if err != nil {
		return nil, 0, err
	}
	n := len(args)
	rows, err := d.R.QueryContext(ctx, `SELECT slug, title, summary, author, tags, published_at FROM blog_posts WHERE `+cond+
		` ORDER BY published_at DESC, id DESC LIMIT ?`+itoa(n+1)+` OFFSET ?`+itoa(n+2), append(args, limit, offset)...)
	if err != nil {
		return nil, 0, err
	}
	defer rows.Close()
	out := []BlogPost{}
	for rows.Next() {
		var p BlogPost
		var tags string
		if err := rows.Scan(&p.Slug, &p.Title, &p.Summary, &p.Author, &tags, &p.PublishedAt); err != nil {
			return nil, 0, err
		}
		p.Tags = orEmpty(decodeJSON[[]string](tags))
		out = append(out, p)
	}
	return out, total, rows.Err()
}

func itoa(n int) string {
	const digits = "0123456789"
	if n < 10 {
		return digits[n : n+1]
	}
	return itoa(n/10) + digits[n%10:n%10+1]
}

// BlogPostBySlug returns one post with its Markdown and FAQs.
func (d *DB) BlogPostBySlug(ctx context.Context, slug string) (*BlogPost, error) {
	var p BlogPost
	var tags, faqs string
	err := d.R.QueryRowContext(ctx, `SELECT slug, title, summary, author, tags, published_at, body_md, faqs FROM blog_posts
		WHERE slug = ?`, slug).Scan(&p.Slug, &p.Title, &p.Summary, &p.Author, &tags, &p.PublishedAt, &p.Markdown, &faqs)
	if err != nil {
		return nil, err
	}
	p.Tags = orEmpty(decodeJSON[[]string](tags))
	p.FAQs = decodeJSON[[]FAQ](faqs)
	if p.FAQs == nil {
		p.FAQs = []FAQ{}
	}
	return &p, nil
}

// Award is a Launch of the Week placing.
type Award struct {
	Week    string  `json:"week" format:"date"`
	Rank    int     `json:"rank"`
	Title   string  `json:"title"`
	Votes   int64   `json:"votes"`
	Listing Summary `json:"listing"`
}

// Awards lists awards newest week first, optionally for one listing.
func (d *DB) Awards(ctx context.Context, listingSlug string, offset, limit int) ([]Award, int, error) {
	cond, args := "l.status = 'live'", []any{}
	if listingSlug != "" {
		cond += " AND l.slug = ?"
		args = append(args, listingSlug)
	}
	total, err := d.PublicCount(ctx, "SELECT count(*) FROM awards a JOIN listings l ON l.id = a.listing_id WHERE "+cond, args...)
	if err != nil {
		return nil, 0, err
	}
	rows, err := d.R.QueryContext(ctx, "SELECT "+summaryCols+", a.week, a.rank, a.votes"+summaryFrom+
		" JOIN awards a ON a.listing_id = l.id WHERE "+cond+" ORDER BY a.week DESC, a.rank LIMIT ? OFFSET ?", append(args, limit, offset)...)
	if err != nil {
		return nil, 0, err
	}
	defer rows.Close()
	out := []Award{}
	for rows.Next() {
		var a Award
		s, err := scanSummary(rows, &a.Week, &a.Rank, &a.Votes)
		if err != nil {
			return nil, 0, err
		}
		a.Listing = s
		a.Title = "Launch of the Week #" + itoa(a.Rank)
		out = append(out, a)
	}
	return out, total, rows.Err()
}

// InterviewQuestion is one founder interview question.
type InterviewQuestion struct {
	ID       int64  `json:"id"`
	Position int    `json:"position"`
	Question string `json:"question"`
	Hint     string `json:"hint"`
}

// InterviewQuestions lists the active questions.
func (d *DB) InterviewQuestions(ctx context.Context) ([]InterviewQuestion, error) {
	rows, err := d.R.QueryContext(ctx, `SELECT id, position, question, hint FROM interview_questions WHERE active = 1 ORDER BY position, id`)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	out := []InterviewQuestion{}
	for rows.Next() {
		var q InterviewQuestion
		if err := rows.Scan(&q.ID, &q.Position, &q.Question, &q.Hint); err != nil {
			return nil, err
		}
		out = append(out, q)
	}
	return out, rows.Err()
}

// Settings returns all settings.
func (d *DB) Settings(ctx context.Context) (map[string]string, error) {
	rows, err := d.R.QueryContext(ctx, `SELECT key, value FROM settings`)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	out := map[string]string{}
	for rows.Next() {
		var k, v string
		if err := rows.Scan(&k, &v); err != nil {
			return nil, err
		}
		out[k] = v
	}
	return out, rows.Err()
}

// SetSetting writes one setting.
func (d *DB) SetSetting(ctx context.Context, key, value string) error {
	_, err := d.W.ExecContext(ctx, `INSERT INTO settings(key,value) VALUES(?,?) ON CONFLICT(key) DO UPDATE SET value = excluded.value`, key, value)
	return mapErr(err)
}
