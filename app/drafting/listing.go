package drafting

import (
	"context"
	"database/sql"
	"encoding/json"
	"fmt"
	"net/url"
	"slices"
	"strconv"
	"strings"
	"time"
	"unicode"

	"launchdir/app/kernel"
	"launchdir/app/owning"
	"launchdir/db"

	"github.com/gosimple/unidecode"
)

// Slugify makes a URL slug (^[a-z0-9][a-z0-9-]{0,219}$) from a name:
// letters of the Latin, Greek and Cyrillic alphabets are transliterated by
// gosimple/unidecode (ü → u, ø → o, ß → ss, Я → ia), letters of other scripts
// (Japanese, Arabic, …), which have no one romanisation, are left out. A
// name with nothing left gives "": the caller falls back (SlugFor).
func Slugify(name string) string {
	kept := strings.Map(func(r rune) rune {
		if unicode.IsLetter(r) && !unicode.In(r, unicode.Latin, unicode.Greek, unicode.Cyrillic) {
			return ' '
		}
		return r
	}, name)
	s := slugWords(unidecode.Unidecode(kept))
	if len(s) > 200 {
		s = strings.Trim(s[:200], "-")
	}
	return s
}

// slugWords lower-cases ASCII text and joins its runs of letters and digits
// with single hyphens ("&" reads as "and", "@" as "at").
func slugWords(s string) string {
	s = strings.NewReplacer("&", " and ", "@", " at ").Replace(strings.ToLower(s))
	var b strings.Builder
	dash := false
	for _, r := range s {
		if (r >= 'a' && r <= 'z') || (r >= '0' && r <= '9') {
			if dash && b.Len() > 0 {
				b.WriteByte('-')
			}
			b.WriteRune(r)
			dash = false
			continue
		}
		dash = true
	}
	return b.String()
}

// SlugFor is the slug of a listing named name at domain: the name's slug,
// else the domain's ("nihongo.example" → nihongo-example), else "listing".
func SlugFor(name, domain string) string {
	if s := Slugify(name); s != "" {
		return s
	}
	if s := Slugify(strings.ReplaceAll(domain, ".", " ")); s != "" {
		return s
	}
	return "listing"
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
	slug, err := uniqueSlug(ctx, tx, "listings", SlugFor(name, domainOf(r.url)))
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
	parts  map[string]bool     // faqs, founders, company_socials, story, milestones, seo
	keys   map[string][]string // story, seo: the names sent (PATCH: only these change)
}

// sent says whether the sync copies key of an object section (story, seo).
func (s syncScope) sent(part, key string) bool {
	return s.all || (s.parts[part] && slices.Contains(s.keys[part], key))
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
	if scope.sent("seo", "title") {
		sets, args = append(sets, "seo_title = ?"), append(args, d.SEO["title"])
	}
	if scope.sent("seo", "meta") {
		sets, args = append(sets, "seo_description = ?"), append(args, d.SEO["meta"])
	}
	if _, err := tx.ExecContext(ctx, "UPDATE listings SET "+strings.Join(sets, ", ")+" WHERE id = ?", append(args, id)...); err != nil {
		return err
	}
	steps := []struct {
		on   bool
		step func(context.Context, *sql.Tx, int64, *draftData) error
	}{
		{scope.field("categories"), a.syncCategories}, {scope.part("founders"), a.syncFounders},
		{scope.part("faqs"), syncFAQs}, {scope.part("milestones"), a.syncMilestones},
	}
	for _, st := range steps {
		if !st.on {
			continue
		}
		if err := st.step(ctx, tx, id, d); err != nil {
			return err
		}
	}
	if scope.part("story") {
		if err := a.syncStory(ctx, tx, id, d, scope); err != nil {
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

// syncCategories applies the draft's categories through the one category
// rule (kernel.ApplyCategories): the first is the primary, the others are
// added only as far as the listing's plan allows; what is not kept is said
// in the draft's warnings.
func (a *Service) syncCategories(ctx context.Context, tx *sql.Tx, id int64, d *draftData) error {
	names := fieldList(d, "categories")
	if len(names) == 0 {
		return nil // the listing keeps its primary category
	}
	var ids []int64
	var unknown []string
	for _, n := range names {
		var cid int64
		err := tx.QueryRowContext(ctx, `SELECT id FROM categories WHERE name = ? COLLATE NOCASE`, n).Scan(&cid)
		if db.IsNoRows(err) {
			unknown = append(unknown, n) // a category removed since the draft was written
			continue
		}
		if err != nil {
			return err
		}
		ids = append(ids, cid)
	}
	if len(unknown) > 0 {
		d.warnings = append(d.warnings, "Not added: "+strings.Join(unknown, ", ")+" (no longer a category of this directory).")
	}
	if len(ids) == 0 {
		return nil
	}
	notes, err := kernel.ApplyCategories(ctx, tx, id, kernel.CategoryChange{Primary: ids[0], Extras: ids[1:], Why: "the draft"})
	d.warnings = append(d.warnings, notes...)
	return err
}

// syncFounders replaces the listing's founders. Each draft founder is
// matched to a founder profile by identity (matchFounder), so one person
// keeps one profile page whatever the spelling of their name.
func (a *Service) syncFounders(ctx context.Context, tx *sql.Tx, id int64, d *draftData) error {
	linked, err := db.Column[int64](ctx, tx, `SELECT founder_id FROM listing_founders WHERE listing_id = ?`, id)
	if err != nil {
		return err
	}
	if _, err := tx.ExecContext(ctx, `DELETE FROM listing_founders WHERE listing_id = ?`, id); err != nil {
		return err
	}
	for i, f := range d.Founders {
		if strings.TrimSpace(f.Name) == "" {
			continue
		}
		fid, own, err := a.matchFounder(ctx, tx, id, linked, f)
		if err != nil {
			return err
		}
		if fid, err = a.upsertFounder(ctx, tx, fid, own, f); err != nil {
			return err
		}
		if _, err := tx.ExecContext(ctx, `INSERT OR IGNORE INTO listing_founders(listing_id, founder_id, position) VALUES(?,?,?)`, id, fid, i); err != nil {
			return err
		}
	}
	return nil
}

// matchFounder finds the profile of a draft founder, by identity rather
// than by the exact name: (1) a founder already on this listing whose name
// is the same once transliterated ("Inês" is "Ines"); (2) a profile under
// the same transliterated name sharing one of their social links (the same
// LinkedIn or GitHub page is the same person); (3) the profile of one of
// the listing's owners under the same transliterated name. own says the profile is this listing's (its
// values may be replaced, not only completed). 0: a new person.
func (a *Service) matchFounder(ctx context.Context, tx *sql.Tx, listingID int64, linked []int64, f DraftFounder) (int64, bool, error) {
	key := Slugify(f.Name)
	for _, fid := range linked {
		var name string
		if err := tx.QueryRowContext(ctx, `SELECT name FROM founders WHERE id = ?`, fid).Scan(&name); err != nil {
			return 0, false, err
		}
		if key != "" && Slugify(name) == key || strings.EqualFold(name, f.Name) {
			return fid, true, nil
		}
	}
	if fid, err := sameLinks(ctx, tx, key, f.Socials); fid != 0 || err != nil {
		return fid, false, err
	}
	rows, err := tx.QueryContext(ctx, `SELECT f.id, f.name FROM founders f JOIN listing_owners o ON o.user_id = f.user_id
		WHERE o.listing_id = ? ORDER BY f.id`, listingID)
	if err != nil {
		return 0, false, err
	}
	defer rows.Close()
	for rows.Next() {
		var fid int64
		var name string
		if err := rows.Scan(&fid, &name); err != nil {
			return 0, false, err
		}
		if key != "" && Slugify(name) == key {
			return fid, false, nil
		}
	}
	return 0, false, rows.Err()
}

// sameLinks finds a profile under the same transliterated name (its slug,
// or the slug with a -N suffix: one index range) sharing a social link
// with socials. Reading only those keeps the match cheap at any size.
func sameLinks(ctx context.Context, tx *sql.Tx, key string, socials map[string]string) (int64, error) {
	if key == "" || len(socials) == 0 {
		return 0, nil
	}
	want := map[string]bool{}
	for _, link := range socials {
		if k := socialKey(link); k != "" {
			want[k] = true
		}
	}
	rows, err := tx.QueryContext(ctx, `SELECT id, socials FROM founders WHERE slug = ?1 OR slug GLOB ?1 || '-[0-9]*' ORDER BY id LIMIT 50`, key)
	if err != nil {
		return 0, err
	}
	defer rows.Close()
	for rows.Next() {
		var fid int64
		var raw string
		if err := rows.Scan(&fid, &raw); err != nil {
			return 0, err
		}
		var links map[string]string
		_ = json.Unmarshal([]byte(raw), &links) // a malformed row shares nothing
		for _, link := range links {
			if want[socialKey(link)] {
				return fid, nil
			}
		}
	}
	return 0, rows.Err()
}

// socialKey is a social link without scheme, "www." and trailing slash,
// lowercased: two spellings of one profile address compare equal.
func socialKey(link string) string {
	s := strings.ToLower(strings.TrimSpace(link))
	s = strings.TrimPrefix(strings.TrimPrefix(s, "https://"), "http://")
	s = strings.TrimSuffix(strings.TrimPrefix(s, "www."), "/")
	if !strings.Contains(s, "/") {
		return "" // a bare domain names a site, not a person
	}
	return s
}

// upsertFounder writes a founder profile. This listing's own founder takes
// the draft's values; a profile matched from elsewhere (the same person on
// another listing) is completed, never emptied: empty values and links the
// draft lacks are kept.
func (a *Service) upsertFounder(ctx context.Context, tx *sql.Tx, fid int64, own bool, f DraftFounder) (int64, error) {
	if fid != 0 && own {
		_, err := tx.ExecContext(ctx, `UPDATE founders SET name = ?, title = ?, bio = ?, socials = ? WHERE id = ?`,
			f.Name, f.Title, f.Bio, db.EncodeJSON(f.Socials), fid)
		return fid, err
	}
	if fid != 0 {
		_, err := tx.ExecContext(ctx, `UPDATE founders SET title = coalesce(nullif(?, ''), title), bio = coalesce(nullif(?, ''), bio),
			socials = json_patch(CASE WHEN json_valid(socials) THEN socials ELSE '{}' END, ?) WHERE id = ?`, f.Title, f.Bio, db.EncodeJSON(f.Socials), fid)
		return fid, err
	}
	base := Slugify(f.Name)
	if base == "" {
		base = "founder"
	}
	slug, err := uniqueSlug(ctx, tx, "founders", base)
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

// storyColumns are the story sections, as the draft and the stories table
// name them.
var storyColumns = []string{"title", "story", "why_started", "problem", "journey", "challenges", "achievements", "lessons", "whats_next"}

// syncStory copies the story sections in scope onto the listing's story
// (submit: all of them; update_draft: the sections it sent), leaving the
// others as they are, however they were last written.
func (a *Service) syncStory(ctx context.Context, tx *sql.Tx, id int64, d *draftData, scope syncScope) error {
	var cols []string
	var vals []any
	for _, c := range storyColumns {
		if scope.sent("story", c) {
			v := d.Story[c]
			if c == "title" {
				v = clip(v, 200)
			}
			cols, vals = append(cols, c), append(vals, v)
		}
	}
	if len(cols) == 0 {
		return nil
	}
	if scope.all {
		empty := true
		for _, v := range vals {
			empty = empty && strings.TrimSpace(v.(string)) == ""
		}
		if empty {
			return nil
		}
	}
	now := a.Now().UTC().Format(time.RFC3339)
	if _, err := tx.ExecContext(ctx, `INSERT OR IGNORE INTO stories(listing_id, updated_at) VALUES(?, ?)`, id, now); err != nil {
		return err
	}
	set := strings.Join(cols, " = ?, ") + " = ?, updated_at = ?"
	_, err := tx.ExecContext(ctx, `UPDATE stories SET `+set+` WHERE listing_id = ?`, append(vals, now, id)...)
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
