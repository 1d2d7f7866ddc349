package owning

import (
	"context"
	"database/sql"
	"encoding/json"
	"fmt"
	"maps"
	"reflect"
	"slices"
	"strings"
	"time"

	"launchdir/app/kernel"
	"launchdir/db"
	"launchdir/ops"
)

// OwnerListing is the owner's view: the full profile (paid sections even
// while locked) plus status, plan, launch week and per-site copy.
type OwnerListing struct {
	ListingID int64 `json:"listing_id"`
	*db.Listing
	Headline       string     `json:"headline"`
	SummaryText    string     `json:"summary"`
	SEOTitle       string     `json:"seo_title"`
	SEODescription string     `json:"seo_description"`
	Role           string     `json:"role"`
	SiteCopies     []siteCopy `json:"site_copies"`
	Owners         []Owner    `json:"owners" doc:"Everyone who can edit the listing: the owner (or a verified claimant) first, then co-founders."`
	PublicURL      string     `json:"public_url,omitempty"`
	// ModerationReason says why the site team rejected or archived it.
	ModerationReason string `json:"moderation_reason,omitempty"`
}

type siteCopy struct {
	Site           string `json:"site"`
	Headline       string `json:"headline"`
	Summary        string `json:"summary"`
	SEOTitle       string `json:"seo_title"`
	SEODescription string `json:"seo_description"`
}

func (a *Service) ownerListing(ctx context.Context, userID, id int64) (o *OwnerListing, err error) {
	// One read transaction for the dozen queries (see db.ReadTx).
	err = a.DB.ReadTx(ctx, func(q db.Queries) error {
		o, err = a.readOwnerListing(ctx, q, userID, id, nil)
		return err
	})
	return o, err
}

// readOwnerListing assembles the owner view. edit: inside update_my_listing's
// group transaction, with the owner columns it read and wrote (the
// listing's other rows may come from db's kept copy); nil: read them.
func (a *Service) readOwnerListing(ctx context.Context, q db.Queries, userID, id int64, edit *ownerExtras) (*OwnerListing, error) {
	o := &OwnerListing{ListingID: id, SiteCopies: []siteCopy{}}
	if edit == nil {
		// The owner's columns and role: no row is also the ownership check.
		err := q.QueryRowContext(ctx, `SELECT `+ownerExtrasCols+` FROM listings l
			JOIN listing_owners o ON o.listing_id = l.id AND o.user_id = `+db.IntArg+` WHERE l.id = `+db.IntArg, userID, id).
			Scan(&o.Headline, &o.SummaryText, &o.SEOTitle, &o.SEODescription, &o.Role, &o.ModerationReason)
		if db.IsNoRows(err) {
			return nil, kernel.ErrNotYourListing()
		}
		if err != nil {
			return nil, err
		}
	} else {
		o.Headline, o.SummaryText, o.SEOTitle, o.SEODescription = edit.Headline, edit.SummaryText, edit.SEOTitle, edit.SEODescription
		o.Role, o.ModerationReason = edit.Role, edit.ModerationReason
	}
	var err error
	var rows *ownerRows
	if edit != nil {
		var x any
		o.Listing, x, err = a.DB.GetOwnerListingInEditWith(ctx, q, id, func() (any, error) { return readOwnerRows(ctx, q, a.Cfg.SiteKey, id) })
		rows, _ = x.(*ownerRows)
	} else {
		o.Listing, err = a.DB.GetOwnerListing(ctx, q, id)
	}
	if err != nil {
		return nil, kernel.NotFound(err, "listing")
	}
	if rows == nil {
		if rows, err = readOwnerRows(ctx, q, a.Cfg.SiteKey, id); err != nil {
			return nil, err
		}
	}
	// This site's copy is the listing's own columns (what this site shows),
	// never a stored row that could drift from them; other sites' copies
	// are stored until those sites serve them. rows may be shared with
	// other edits (db's kept entry): copied, never appended to.
	o.SiteCopies = make([]siteCopy, 0, 1+len(rows.copies))
	o.SiteCopies = append(o.SiteCopies, siteCopy{Site: a.Cfg.SiteKey, Headline: o.Headline, Summary: o.SummaryText,
		SEOTitle: o.SEOTitle, SEODescription: o.SEODescription})
	o.SiteCopies = append(o.SiteCopies, rows.copies...)
	o.Owners = rows.owners
	if o.Status == "live" {
		o.PublicURL = a.ListingURL(ctx, o.Slug)
	}
	return o, nil
}

// ownerRows are the owner view's rows of other tables besides the
// profile: other sites' copies and the owners. Only a foreign commit
// changes them, or an edit that writes site copies (which forgets the
// kept entry first), so group edits keep them with the profile's parts.
type ownerRows struct {
	copies []siteCopy
	owners []Owner
}

func readOwnerRows(ctx context.Context, q db.Queries, siteKey string, id int64) (*ownerRows, error) {
	r := &ownerRows{copies: []siteCopy{}}
	rows, err := q.QueryContext(ctx, `SELECT site_key, headline, summary, seo_title, seo_description FROM listing_site_copy
		WHERE listing_id = `+db.IntArg+` AND site_key != `+db.TextArg+` ORDER BY site_key`, id, siteKey)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	for rows.Next() {
		var c siteCopy
		if err := rows.Scan(&c.Site, &c.Headline, &c.Summary, &c.SEOTitle, &c.SEODescription); err != nil {
			return nil, err
		}
		r.copies = append(r.copies, c)
	}
	if err := rows.Err(); err != nil {
		return nil, err
	}
	if r.owners, err = ListingOwners(ctx, q, id); err != nil {
		return nil, err
	}
	return r, nil
}

func (a *Service) listMyListings(ctx context.Context, in *ops.Input) (any, error) {
	off, lim := kernel.Offset(in)
	total, err := a.DB.Count(ctx, `SELECT count(*) FROM listing_owners WHERE user_id = ?`, in.UserID())
	if err != nil {
		return nil, err
	}
	rows, err := a.DB.R.QueryContext(ctx, `SELECT l.id, l.plan FROM listings l JOIN listing_owners o ON o.listing_id = l.id
		WHERE o.user_id = ? ORDER BY l.updated_at DESC, l.id DESC LIMIT ? OFFSET ?`, in.UserID(), lim, off)
	if err != nil {
		return nil, err
	}
	type idPlan struct {
		id   int64
		plan string
	}
	var ids []idPlan
	for rows.Next() {
		var ip idPlan
		if err := rows.Scan(&ip.id, &ip.plan); err != nil {
			rows.Close()
			return nil, err
		}
		ids = append(ids, ip)
	}
	rows.Close()
	items := []MyListing{}
	for _, ip := range ids {
		s, err := a.DB.Summaries(ctx, ` WHERE l.id = ?`, ip.id)
		if err != nil {
			return nil, err
		}
		if len(s) == 0 {
			continue // deleted since the page was read
		}
		items = append(items, MyListing{ListingID: ip.id, Summary: s[0], Plan: ip.plan})
	}
	return kernel.NewPage(in, items, total), nil
}

func (a *Service) getMyListing(ctx context.Context, in *ops.Input) (any, error) {
	return a.ownerListing(ctx, in.UserID(), in.Int("listing_id"))
}

// snapshotCols are the editable listing columns a revision records (with
// "faqs"); list and map columns hold JSON.
var snapshotCols = []string{"tagline", "short_description", "description", "pricing_model", "pricing_summary", "country", "city",
	"founded_year", "demo_video_url", "contact_email", "features", "usps", "keywords", "headline", "summary",
	"seo_title", "seo_description", "socials"}

// ListingSnapshot is the editable state of a listing, for revisions.
func ListingSnapshot(ctx context.Context, tx *sql.Tx, id int64) (map[string]any, error) {
	snap, err := scanSnapshot(snapshotCols, tx.QueryRowContext(ctx, "SELECT "+strings.Join(snapshotCols, ", ")+" FROM listings WHERE id = ?", id))
	if err != nil {
		return nil, err
	}
	faqs, err := faqsTx(ctx, tx, id)
	snap["faqs"] = faqs
	return snap, err
}

// scanSnapshot reads one row of snapshot columns cols into a snapshot.
// lead are destinations of columns selected before cols.
func scanSnapshot(cols []string, row interface{ Scan(...any) error }, lead ...any) (map[string]any, error) {
	vals := make([]any, len(cols))
	ptrs := make([]any, len(cols))
	for i := range vals {
		ptrs[i] = &vals[i]
	}
	if err := row.Scan(append(lead, ptrs...)...); err != nil {
		return nil, err
	}
	snap := make(map[string]any, len(cols)+1)
	for i, c := range cols {
		v := vals[i]
		if s, ok := v.(string); ok && (c == "features" || c == "usps" || c == "keywords" || c == "socials") {
			v = json.RawMessage(s)
		}
		snap[c] = v
	}
	return snap, nil
}

func faqsTx(ctx context.Context, q interface {
	QueryContext(context.Context, string, ...any) (*sql.Rows, error)
}, id int64) ([]db.FAQ, error) {
	rows, err := q.QueryContext(ctx, `SELECT question, answer FROM faqs WHERE listing_id = `+db.IntArg+` ORDER BY position`, id)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	out := []db.FAQ{}
	for rows.Next() {
		var f db.FAQ
		if err := rows.Scan(&f.Question, &f.Answer); err != nil {
			return nil, err
		}
		out = append(out, f)
	}
	return out, rows.Err()
}

// Revise records what an owner edit changed, for the site team. Every owner
// edit calls it inside the editing transaction. Snapshots (maps of fields)
// are stored as the fields that changed only, before and after: the
// revisions page shows those and an admin revert puts those "before" values
// back; other values are stored whole.
func (a *Service) Revise(ctx context.Context, tx kernel.Execer, entity string, entityID, listingID, userID int64, op string, before, after any) error {
	b, aft, changed := ChangedFields(before, after)
	if !changed {
		return nil
	}
	_, err := tx.ExecContext(ctx, `INSERT INTO revisions(entity, entity_id, listing_id, user_id, operation, before, after, created_at)
		VALUES(?,?,?,?,?,?,?,?)`, entity, entityID, listingID, userID, op, b, aft, a.Now().UTC().Format(time.RFC3339Nano))
	return err
}

// ChangedFields encodes before and after for a revision: two snapshots
// (maps) become the fields whose JSON differs; anything else is encoded
// whole. changed is false when nothing differs.
func ChangedFields(before, after any) (b, a string, changed bool) {
	bm, bok := before.(map[string]any)
	am, aok := after.(map[string]any)
	if !bok || !aok {
		b, a = db.EncodeJSON(before), db.EncodeJSON(after)
		return b, a, !reflect.DeepEqual(before, after)
	}
	db2, da := map[string]any{}, map[string]any{}
	for k, bv := range bm {
		av, ok := am[k]
		if bj, aj := db.EncodeJSON(bv), db.EncodeJSON(av); !ok || bj != aj {
			db2[k] = bv
			if ok {
				da[k] = av
			}
		}
	}
	for k, av := range am {
		if _, ok := bm[k]; !ok {
			da[k] = av
		}
	}
	if len(db2) == 0 && len(da) == 0 {
		return "", "", false
	}
	return db.EncodeJSON(db2), db.EncodeJSON(da), true
}

type updateListingInput struct {
	Fields  map[string]any    `json:"fields"`
	ApplyTo []string          `json:"apply_to"`
	Socials map[string]string `json:"socials"`
	FAQs    []db.FAQ          `json:"faqs"`
}

func (a *Service) updateMyListing(ctx context.Context, in *ops.Input) (any, error) {
	var req updateListingInput
	if err := in.Decode(&req); err != nil {
		return nil, err
	}
	id, uid := in.Int("listing_id"), in.UserID()
	sites, err := a.applyToSites(ctx, req.ApplyTo, in.Has("apply_to"))
	if err != nil {
		return nil, err
	}
	// The columns this edit writes: the revision records their values
	// before and after (the rest cannot change), read in the statements that
	// check ownership and write, so the transaction reads nothing twice.
	cols := slices.Sorted(maps.Keys(req.Fields))
	if len(sites) > 0 && !slices.Contains(sites, a.Cfg.SiteKey) {
		// apply_to names other sites only: the headline/summary/SEO fields
		// sent are those sites' copies, not the listing's own (main's).
		cols = slices.DeleteFunc(cols, func(c string) bool { return slices.Contains(kernel.SiteCopyFields, c) })
	}
	if in.Has("socials") {
		cols = append(cols, "socials")
	}
	// Concurrent edits share one commit (db.GroupTx), each in its own
	// savepoint: the commit, not the statements, is most of an edit's cost.
	var out *OwnerListing
	err = a.DB.GroupTx(ctx, func(ctx context.Context, tx *sql.Tx) error {
		q := a.DB.Prepared(tx)
		before, extras, err := ownedSnapshot(ctx, q, uid, id, cols)
		if err != nil {
			return err
		}
		after, err := a.applyListingFields(ctx, q, id, cols, req.Fields, req.Socials)
		if err != nil {
			return err
		}
		extras.edited(after)
		if len(sites) > 0 {
			a.DB.ForgetOwnerParts(id) // other sites' copies are kept with the parts
		}
		if err := a.copyToSites(ctx, q, id, req.Fields, sites); err != nil {
			return err
		}
		if in.Has("faqs") {
			a.DB.ForgetOwnerParts(id)
			if before["faqs"], err = faqsTx(ctx, q, id); err != nil {
				return err
			}
			if err := ReplaceFAQs(ctx, q, id, req.FAQs); err != nil {
				return err
			}
			after["faqs"] = append([]db.FAQ{}, req.FAQs...)
		}
		if err := a.Revise(ctx, q, "listing", id, id, uid, "update_my_listing", before, after); err != nil {
			return err
		}
		if err := a.emitUpdated(ctx, tx, id, after); err != nil {
			return err
		}
		if out, err = a.readOwnerListing(ctx, q, uid, id, extras); err != nil {
			return err
		}
		return kernel.RespondInTx(ctx, q, out)
	})
	if err != nil {
		return nil, err
	}
	return out, nil
}

// ownedSnapshot checks that userID owns listing id and reads the snapshot
// columns cols of it and its owner columns (ownerExtras), in one query.
func ownedSnapshot(ctx context.Context, q db.Queries, userID, id int64, cols []string) (map[string]any, *ownerExtras, error) {
	var sel strings.Builder
	for _, c := range cols {
		sel.WriteString(", l." + c)
	}
	x := &ownerExtras{}
	snap, err := scanSnapshot(cols, q.QueryRowContext(ctx, "SELECT "+ownerExtrasCols+sel.String()+
		" FROM listings l JOIN listing_owners o ON o.listing_id = l.id AND o.user_id = "+db.IntArg+" WHERE l.id = "+db.IntArg, userID, id),
		&x.Headline, &x.SummaryText, &x.SEOTitle, &x.SEODescription, &x.Role, &x.ModerationReason)
	if db.IsNoRows(err) {
		return nil, nil, kernel.ErrNotYourListing()
	}
	return snap, x, err
}

// ownerExtras are the owner view's own columns besides the profile.
type ownerExtras struct {
	Headline, SummaryText, SEOTitle, SEODescription, Role, ModerationReason string
}

const ownerExtrasCols = `l.headline, l.summary, l.seo_title, l.seo_description, o.role, l.moderation_reason`

// edited updates x with the values an edit wrote (after: snapshot columns).
func (x *ownerExtras) edited(after map[string]any) {
	for col, dst := range map[string]*string{"headline": &x.Headline, "summary": &x.SummaryText, "seo_title": &x.SEOTitle, "seo_description": &x.SEODescription} {
		if v, ok := after[col].(string); ok {
			*dst = v
		}
	}
}

// applyToSites resolves apply_to: ['all'] or known site keys.
func (a *Service) applyToSites(ctx context.Context, applyTo []string, given bool) ([]string, error) {
	if !given || len(applyTo) == 0 {
		return nil, nil
	}
	known := a.siteKeys(ctx)
	if len(applyTo) == 1 && applyTo[0] == "all" {
		return known, nil
	}
	var bad []ops.FieldError
	for i, k := range applyTo {
		switch {
		case k == "all":
			bad = append(bad, ops.FieldError{Field: fmt.Sprintf("apply_to[%d]", i), Message: "'all' must be the only entry"})
		case !slices.Contains(known, k):
			bad = append(bad, ops.FieldError{Field: fmt.Sprintf("apply_to[%d]", i), Message: "unknown site key; sites: " + strings.Join(known, ", ")})
		}
	}
	if len(bad) > 0 {
		return nil, ops.InvalidFields(bad)
	}
	return applyTo, nil
}

// siteKeys are the keys of every site this process serves (table sites),
// main first.
func (a *Service) siteKeys(ctx context.Context) []string {
	var keys []string
	for _, site := range a.Sites(ctx) {
		keys = append(keys, site.Key)
	}
	return keys
}

var listCols = map[string]bool{"features": true, "usps": true, "keywords": true}

// applyListingFields writes the given owner fields (already validated) and
// socials (when "socials" is among cols) and returns the snapshot of cols
// as written.
func (a *Service) applyListingFields(ctx context.Context, q db.Queries, id int64, cols []string, fields map[string]any, socials map[string]string) (map[string]any, error) {
	sets, args := []string{"updated_at = ?"}, []any{a.Now().UTC().Format(time.RFC3339)}
	for _, name := range cols {
		v := fields[name]
		switch {
		case name == "socials":
			if socials == nil {
				socials = map[string]string{}
			}
			v = db.EncodeJSON(socials)
		case listCols[name]:
			v = db.EncodeJSON(v)
		case name == "country":
			v = strings.ToUpper(v.(string))
		default:
			if s, ok := v.(string); ok {
				v = kernel.NormalizeText(s) // a form's CRLF is not a change
			}
		}
		sets = append(sets, name+" = ?")
		args = append(args, v)
	}
	query := "UPDATE listings SET " + strings.Join(sets, ", ") + " WHERE id = " + db.IntArg
	if _, err := q.ExecContext(ctx, query, append(args, id)...); err != nil || len(cols) == 0 {
		return map[string]any{}, err
	}
	// Read back rather than RETURNING: measured, RETURNING cost 170 µs more
	// per edit than this point lookup (a prepared statement).
	return scanSnapshot(cols, q.QueryRowContext(ctx, "SELECT "+strings.Join(cols, ", ")+" FROM listings WHERE id = "+db.IntArg, id))
}

// copyToSites upserts only the headline/summary/SEO fields that were sent.
func (a *Service) copyToSites(ctx context.Context, tx kernel.Execer, id int64, fields map[string]any, sites []string) error {
	var cols []string
	var vals []any
	for _, f := range kernel.SiteCopyFields {
		if v, ok := fields[f]; ok {
			cols = append(cols, f)
			vals = append(vals, v)
		}
	}
	if len(cols) == 0 {
		return nil
	}
	updates := make([]string, len(cols))
	for i, c := range cols {
		updates[i] = c + " = excluded." + c
	}
	q := `INSERT INTO listing_site_copy(listing_id, site_key, ` + strings.Join(cols, ", ") + `) VALUES(?, ?` +
		strings.Repeat(", ?", len(cols)) + `) ON CONFLICT(listing_id, site_key) DO UPDATE SET ` + strings.Join(updates, ", ")
	for _, site := range sites {
		if site == a.Cfg.SiteKey {
			continue // this site's copy is the listing itself, written already
		}
		if _, err := tx.ExecContext(ctx, q, append([]any{id, site}, vals...)...); err != nil {
			return err
		}
	}
	return nil
}

func ReplaceFAQs(ctx context.Context, tx kernel.Execer, id int64, faqs []db.FAQ) error {
	if _, err := tx.ExecContext(ctx, `DELETE FROM faqs WHERE listing_id = `+db.IntArg, id); err != nil {
		return err
	}
	for i, f := range faqs {
		if _, err := tx.ExecContext(ctx, `INSERT INTO faqs(listing_id, position, question, answer) VALUES(?,?,?,?)`,
			id, i, f.Question, f.Answer); err != nil {
			return err
		}
	}
	return nil
}
