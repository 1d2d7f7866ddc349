package drafting

import (
	"context"
	"database/sql"
	"fmt"
	"net/url"
	"strconv"
	"strings"
	"time"
	"unicode"

	"launchdir/app/kernel"
	"launchdir/app/owning"
	"launchdir/db"
)

// Slugify makes a URL slug (^[a-z0-9][a-z0-9-]{0,219}$) from a name.
func Slugify(name string) string {
	var b strings.Builder
	dash := false
	for _, r := range strings.ToLower(name) {
		switch {
		case r < 128 && (unicode.IsLetter(r) || unicode.IsDigit(r)):
			b.WriteRune(r)
			dash = false
		case !dash && b.Len() > 0:
			b.WriteByte('-')
			dash = true
		}
	}
	s := strings.Trim(b.String(), "-")
	if len(s) > 200 {
		s = strings.Trim(s[:200], "-")
	}
	if s == "" {
		s = "listing"
	}
	return s
}

// uniqueSlug appends -2, -3, ... until the slug is free in table.
func uniqueSlug(ctx context.Context, tx *sql.Tx, table, base string) (string, error) {
	slug := base
	for i := 2; ; i++ {
		var one int
		err := tx.QueryRowContext(ctx, `SELECT 1 FROM `+table+` WHERE slug = ?`, slug).Scan(&one)
		if db.IsNoRows(err) {
			return slug, nil
		}
		if err != nil {
			return "", err
		}
		slug = fmt.Sprintf("%s-%d", base, i)
	}
}

func domainOf(raw string) string {
	u, err := url.Parse(raw)
	if err != nil {
		return ""
	}
	return strings.TrimPrefix(strings.ToLower(u.Hostname()), "www.")
}

// createListingFromDraft inserts the owner's unpublished listing.
func (a *Service) createListingFromDraft(ctx context.Context, tx *sql.Tx, r *draftRow) (int64, error) {
	name, _ := r.data.Fields["name"].Value.(string)
	slug, err := uniqueSlug(ctx, tx, "listings", Slugify(name))
	if err != nil {
		return 0, err
	}
	now := a.Now().UTC().Format(time.RFC3339)
	res, err := tx.ExecContext(ctx, `INSERT INTO listings(slug, name, url, domain, status, plan, created_at, updated_at)
		VALUES(?,?,?,?,'draft','none',?,?)`, slug, name, r.url, domainOf(r.url), now, now)
	if err != nil {
		return 0, err
	}
	id, err := res.LastInsertId()
	if err != nil {
		return 0, err
	}
	if _, err := tx.ExecContext(ctx, `INSERT INTO listing_owners(listing_id, user_id, role, created_at) VALUES(?,?,'owner',?)`, id, r.owner, now); err != nil {
		return 0, err
	}
	// Invited co-founders who already have accounts become owners too.
	if _, err := tx.ExecContext(ctx, `INSERT OR IGNORE INTO listing_owners(listing_id, user_id, role, created_at)
		SELECT ?, u.id, 'cofounder', ? FROM draft_invites i JOIN users u ON u.email = i.email WHERE i.draft_id = ?`, id, now, r.id); err != nil {
		return 0, err
	}
	_, err = tx.ExecContext(ctx, `UPDATE drafts SET listing_id = ? WHERE id = ?`, id, r.id)
	return id, err
}

// syncScope says which parts of a draft a sync copies onto its listing.
// submit_draft copies everything; a later update_draft copies only what it
// changed, so edits the owner made on the listing itself are never lost.
type syncScope struct {
	all    bool
	fields map[string]bool
	parts  map[string]bool // faqs, founders, company_socials, story, milestones, seo
}

var syncAll = syncScope{all: true}

func (s syncScope) field(n string) bool { return s.all || s.fields[n] }
func (s syncScope) part(n string) bool  { return s.all || s.parts[n] }
func (s syncScope) empty() bool         { return !s.all && len(s.fields) == 0 && len(s.parts) == 0 }

// syncSubmitted updates the listing of an already submitted draft.
func (a *Service) syncSubmitted(ctx context.Context, tx *sql.Tx, r *draftRow, userID int64, op string, scope syncScope) error {
	if !r.listingID.Valid || scope.empty() {
		return nil
	}
	return a.syncListing(ctx, tx, r, userID, op, scope)
}

func fieldStr(d *draftData, name string) string {
	s, _ := d.Fields[name].Value.(string)
	return s
}

func fieldList(d *draftData, name string) []string {
	out := []string{}
	if list, ok := d.Fields[name].Value.([]any); ok {
		for _, v := range list {
			if s, ok := v.(string); ok {
				out = append(out, s)
			}
		}
	}
	return out
}

// listingColumn maps a draft field to its listing column value.
func listingColumn(d *draftData, name string) (string, any, bool) {
	switch name {
	case "name":
		v := fieldStr(d, "name")
		return "name", v, v != "" // a listing always keeps a name
	case "founded_year":
		if y, err := strconv.Atoi(strings.TrimSpace(fieldStr(d, name))); err == nil && y >= 1800 && y <= 2100 {
			return name, y, true
		}
		return name, nil, true
	case "country":
		c := strings.ToUpper(fieldStr(d, name))
		if !kernel.IsCountry(c) {
			c = ""
		}
		return name, c, true
	case "features", "usps", "keywords", "tags":
		return name, db.EncodeJSON(fieldList(d, name)), true
	case "categories":
		return "", nil, false // handled by syncCategories
	case "logo_url":
		// Only a logo stored on this site: pages never load another
		// site's image, and the drafter's find was fetched into the store.
		if d.Logo != nil {
			return name, d.Logo.URL, true
		}
		return name, "", true
	}
	limits := map[string]int{"tagline": 200, "short_description": 300, "pricing_model": 40, "pricing_summary": 300, "city": 120}
	v := fieldStr(d, name)
	if n, ok := limits[name]; ok {
		v = clip(v, n)
	}
	return name, v, true
}

// syncListing copies the draft (or the parts in scope) onto its listing in
// the same transaction and keeps a revision for the site team.
func (a *Service) syncListing(ctx context.Context, tx *sql.Tx, r *draftRow, userID int64, op string, scope syncScope) error {
	id, d := r.listingID.Int64, r.data
	before, err := owning.ListingSnapshot(ctx, tx, id)
	if err != nil {
		return err
	}
	sets, args := []string{"not_found = ?", "updated_at = ?"}, []any{db.EncodeJSON(notFoundFields(d)), a.Now().UTC().Format(time.RFC3339)}
	for _, f := range profileFields {
		if !scope.field(f.Name) {
			continue
		}
		if col, v, ok := listingColumn(d, f.Name); ok {
			sets, args = append(sets, col+" = ?"), append(args, v)
		}
	}
	if scope.part("company_socials") {
		sets, args = append(sets, "socials = ?"), append(args, db.EncodeJSON(d.CompanySocials))
	}
	if scope.part("seo") {
		sets, args = append(sets, "seo_title = ?", "seo_description = ?"), append(args, d.SEO["title"], d.SEO["meta"])
	}
	if _, err := tx.ExecContext(ctx, "UPDATE listings SET "+strings.Join(sets, ", ")+" WHERE id = ?", append(args, id)...); err != nil {
		return err
	}
	steps := []struct {
		on   bool
		step func(context.Context, *sql.Tx, int64, *draftData) error
	}{
		{scope.field("categories"), a.syncCategories}, {scope.part("founders"), a.syncFounders},
		{scope.part("faqs"), syncFAQs}, {scope.part("story"), a.syncStory}, {scope.part("milestones"), a.syncMilestones},
	}
	for _, st := range steps {
		if !st.on {
			continue
		}
		if err := st.step(ctx, tx, id, d); err != nil {
			return err
		}
	}
	after, err := owning.ListingSnapshot(ctx, tx, id)
	if err != nil {
		return err
	}
	return a.Owning.Revise(ctx, tx, "listing", id, id, userID, op, before, after)
}

func clip(s string, n int) string {
	r := []rune(s)
	if len(r) <= n {
		return s
	}
	return string(r[:n])
}

// syncCategories sets the primary category from the draft's first
// category. Extra categories are bought (extra_categories) and never
// touched here.
func (a *Service) syncCategories(ctx context.Context, tx *sql.Tx, id int64, d *draftData) error {
	names := fieldList(d, "categories")
	if len(names) == 0 {
		return nil // the listing keeps its primary category
	}
	var cid int64
	err := tx.QueryRowContext(ctx, `SELECT id FROM categories WHERE name = ? COLLATE NOCASE`, names[0]).Scan(&cid)
	if db.IsNoRows(err) {
		return nil // a category removed since the draft was written
	}
	if err != nil {
		return err
	}
	if _, err := tx.ExecContext(ctx, `DELETE FROM listing_categories WHERE listing_id = ? AND is_primary = 1`, id); err != nil {
		return err
	}
	if _, err := tx.ExecContext(ctx, `INSERT INTO listing_categories(listing_id, category_id, is_primary) VALUES(?,?,1)
		ON CONFLICT(listing_id, category_id) DO UPDATE SET is_primary = 1`, id, cid); err != nil {
		return err
	}
	if _, err := tx.ExecContext(ctx, `UPDATE listings SET primary_category_id = ? WHERE id = ?`, cid, id); err != nil {
		return err
	}
	return db.RecountCategories(ctx, tx)
}

// syncFounders replaces the listing's founders, reusing founder rows
// previously linked under the same name so profile pages keep their slugs.
func (a *Service) syncFounders(ctx context.Context, tx *sql.Tx, id int64, d *draftData) error {
	old := map[string]int64{}
	rows, err := tx.QueryContext(ctx, `SELECT f.id, f.name FROM founders f JOIN listing_founders lf ON lf.founder_id = f.id WHERE lf.listing_id = ?`, id)
	if err != nil {
		return err
	}
	for rows.Next() {
		var fid int64
		var name string
		if err := rows.Scan(&fid, &name); err != nil {
			rows.Close()
			return err
		}
		old[strings.ToLower(name)] = fid
	}
	rows.Close()
	if _, err := tx.ExecContext(ctx, `DELETE FROM listing_founders WHERE listing_id = ?`, id); err != nil {
		return err
	}
	for i, f := range d.Founders {
		if strings.TrimSpace(f.Name) == "" {
			continue
		}
		fid, err := a.upsertFounder(ctx, tx, old[strings.ToLower(f.Name)], f)
		if err != nil {
			return err
		}
		if _, err := tx.ExecContext(ctx, `INSERT OR IGNORE INTO listing_founders(listing_id, founder_id, position) VALUES(?,?,?)`, id, fid, i); err != nil {
			return err
		}
	}
	return nil
}

func (a *Service) upsertFounder(ctx context.Context, tx *sql.Tx, fid int64, f DraftFounder) (int64, error) {
	if fid != 0 {
		_, err := tx.ExecContext(ctx, `UPDATE founders SET name = ?, title = ?, bio = ?, socials = ? WHERE id = ?`,
			f.Name, f.Title, f.Bio, db.EncodeJSON(f.Socials), fid)
		return fid, err
	}
	slug, err := uniqueSlug(ctx, tx, "founders", Slugify(f.Name))
	if err != nil {
		return 0, err
	}
	res, err := tx.ExecContext(ctx, `INSERT INTO founders(slug, name, title, bio, socials, created_at) VALUES(?,?,?,?,?,?)`,
		slug, f.Name, f.Title, f.Bio, db.EncodeJSON(f.Socials), a.Now().UTC().Format(time.RFC3339))
	if err != nil {
		return 0, err
	}
	return res.LastInsertId()
}

func syncFAQs(ctx context.Context, tx *sql.Tx, id int64, d *draftData) error {
	faqs := make([]db.FAQ, 0, len(d.FAQs))
	for _, f := range d.FAQs {
		faqs = append(faqs, db.FAQ{Question: f.Question, Answer: f.Answer})
	}
	return owning.ReplaceFAQs(ctx, tx, id, faqs)
}

func (a *Service) syncStory(ctx context.Context, tx *sql.Tx, id int64, d *draftData) error {
	empty := true
	for _, v := range d.Story {
		empty = empty && strings.TrimSpace(v) == ""
	}
	if empty {
		return nil
	}
	s := d.Story
	_, err := tx.ExecContext(ctx, `INSERT INTO stories(listing_id, title, story, why_started, problem, journey, challenges,
		achievements, lessons, whats_next, updated_at) VALUES(?,?,?,?,?,?,?,?,?,?,?)
		ON CONFLICT(listing_id) DO UPDATE SET title=excluded.title, story=excluded.story, why_started=excluded.why_started,
		problem=excluded.problem, journey=excluded.journey, challenges=excluded.challenges, achievements=excluded.achievements,
		lessons=excluded.lessons, whats_next=excluded.whats_next, updated_at=excluded.updated_at`,
		id, clip(s["title"], 200), s["story"], s["why_started"], s["problem"], s["journey"], s["challenges"], s["achievements"],
		s["lessons"], s["whats_next"], a.Now().UTC().Format(time.RFC3339))
	return err
}

func (a *Service) syncMilestones(ctx context.Context, tx *sql.Tx, id int64, d *draftData) error {
	if _, err := tx.ExecContext(ctx, `DELETE FROM milestones WHERE listing_id = ?`, id); err != nil {
		return err
	}
	for _, m := range d.Milestones {
		if _, err := tx.ExecContext(ctx, `INSERT INTO milestones(listing_id, date, title, description, url, created_at) VALUES(?,?,?,?,?,?)`,
			id, m.Date, m.Title, m.Description, m.URL, a.Now().UTC().Format(time.RFC3339)); err != nil {
			return err
		}
	}
	return nil
}
