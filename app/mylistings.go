package app

import (
	"context"
	"database/sql"
	"encoding/json"
	"fmt"
	"reflect"
	"strings"
	"time"

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

func (a *App) ownerListing(ctx context.Context, q *sql.DB, userID, id int64) (*OwnerListing, error) {
	if err := a.OwnListing(ctx, q, userID, id); err != nil {
		return nil, err
	}
	l, err := a.DB.GetOwnerListing(ctx, q, id)
	if err != nil {
		return nil, notFound(err, "listing")
	}
	o := &OwnerListing{ListingID: id, Listing: l, SiteCopies: []siteCopy{}}
	err = q.QueryRowContext(ctx, `SELECT l.headline, l.summary, l.seo_title, l.seo_description, o.role, l.moderation_reason FROM listings l
		JOIN listing_owners o ON o.listing_id = l.id AND o.user_id = ? WHERE l.id = ?`, userID, id).
		Scan(&o.Headline, &o.SummaryText, &o.SEOTitle, &o.SEODescription, &o.Role, &o.ModerationReason)
	if err != nil {
		return nil, err
	}
	rows, err := q.QueryContext(ctx, `SELECT site_key, headline, summary, seo_title, seo_description FROM listing_site_copy
		WHERE listing_id = ? ORDER BY site_key`, id)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	for rows.Next() {
		var c siteCopy
		if err := rows.Scan(&c.Site, &c.Headline, &c.Summary, &c.SEOTitle, &c.SEODescription); err != nil {
			return nil, err
		}
		o.SiteCopies = append(o.SiteCopies, c)
	}
	if l.Status == "live" {
		o.PublicURL = a.ListingURL(l.Slug)
	}
	return o, rows.Err()
}

func (a *App) listMyListings(ctx context.Context, in *ops.Input) (any, error) {
	off, lim := offset(in)
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
	return page(in, items, total), nil
}

func (a *App) getMyListing(ctx context.Context, in *ops.Input) (any, error) {
	return a.ownerListing(ctx, a.DB.R, in.UserID(), in.Int("listing_id"))
}

// listingSnapshot is the editable state of a listing, for revisions.
func listingSnapshot(ctx context.Context, tx *sql.Tx, id int64) (map[string]any, error) {
	cols := []string{"tagline", "short_description", "description", "pricing_model", "pricing_summary", "country", "city",
		"founded_year", "demo_video_url", "contact_email", "features", "usps", "keywords", "headline", "summary",
		"seo_title", "seo_description", "socials"}
	vals := make([]any, len(cols))
	ptrs := make([]any, len(cols))
	for i := range vals {
		ptrs[i] = &vals[i]
	}
	if err := tx.QueryRowContext(ctx, "SELECT "+strings.Join(cols, ", ")+" FROM listings WHERE id = ?", id).Scan(ptrs...); err != nil {
		return nil, err
	}
	snap := map[string]any{}
	for i, c := range cols {
		v := vals[i]
		if s, ok := v.(string); ok && (c == "features" || c == "usps" || c == "keywords" || c == "socials") {
			v = json.RawMessage(s)
		}
		snap[c] = v
	}
	faqs, err := faqsTx(ctx, tx, id)
	snap["faqs"] = faqs
	return snap, err
}

func faqsTx(ctx context.Context, tx *sql.Tx, id int64) ([]db.FAQ, error) {
	rows, err := tx.QueryContext(ctx, `SELECT question, answer FROM faqs WHERE listing_id = ? ORDER BY position`, id)
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

// revise records a before/after copy for the site team. Every owner edit
// calls it inside the editing transaction.
func (a *App) revise(ctx context.Context, tx *sql.Tx, entity string, entityID, listingID, userID int64, op string, before, after any) error {
	if reflect.DeepEqual(before, after) {
		return nil
	}
	_, err := tx.ExecContext(ctx, `INSERT INTO revisions(entity, entity_id, listing_id, user_id, operation, before, after, created_at)
		VALUES(?,?,?,?,?,?,?,?)`, entity, entityID, listingID, userID, op, db.EncodeJSON(before), db.EncodeJSON(after),
		a.Now().UTC().Format(time.RFC3339Nano))
	return err
}

type updateListingInput struct {
	Fields  map[string]any    `json:"fields"`
	ApplyTo []string          `json:"apply_to"`
	Socials map[string]string `json:"socials"`
	FAQs    []db.FAQ          `json:"faqs"`
}

func (a *App) updateMyListing(ctx context.Context, in *ops.Input) (any, error) {
	var req updateListingInput
	if err := in.Decode(&req); err != nil {
		return nil, err
	}
	id, uid := in.Int("listing_id"), in.UserID()
	sites, err := a.applyToSites(ctx, req.ApplyTo, in.Has("apply_to"))
	if err != nil {
		return nil, err
	}
	err = a.DB.Tx(ctx, func(tx *sql.Tx) error {
		if err := a.OwnListing(ctx, tx, uid, id); err != nil {
			return err
		}
		before, err := listingSnapshot(ctx, tx, id)
		if err != nil {
			return err
		}
		if err := a.applyListingFields(ctx, tx, id, req.Fields, in.Has("socials"), req.Socials); err != nil {
			return err
		}
		if err := a.copyToSites(ctx, tx, id, req.Fields, sites); err != nil {
			return err
		}
		if in.Has("faqs") {
			if err := replaceFAQs(ctx, tx, id, req.FAQs); err != nil {
				return err
			}
		}
		after, err := listingSnapshot(ctx, tx, id)
		if err != nil {
			return err
		}
		return a.revise(ctx, tx, "listing", id, id, uid, "update_my_listing", before, after)
	})
	if err != nil {
		return nil, err
	}
	// The response is read on the read pool: the commit above is visible to
	// any read that starts after it, and the single writer is left free for
	// the next write instead of assembling a dozen tables.
	return a.ownerListing(ctx, a.DB.R, uid, id)
}

// applyToSites resolves apply_to: ['all'] or known site keys.
func (a *App) applyToSites(ctx context.Context, applyTo []string, given bool) ([]string, error) {
	known := a.siteKeys(ctx)
	if !given || len(applyTo) == 0 {
		return nil, nil
	}
	if len(applyTo) == 1 && applyTo[0] == "all" {
		return known, nil
	}
	var bad []ops.FieldError
	for i, k := range applyTo {
		switch {
		case k == "all":
			bad = append(bad, ops.FieldError{Field: fmt.Sprintf("apply_to[%d]", i), Message: "'all' must be the only entry"})
		case !contains(known, k):
			bad = append(bad, ops.FieldError{Field: fmt.Sprintf("apply_to[%d]", i), Message: "unknown site key; sites: " + strings.Join(known, ", ")})
		}
	}
	if len(bad) > 0 {
		return nil, ops.InvalidFields(bad)
	}
	return applyTo, nil
}

// siteKeys are the directory sites of this network (setting "sites", a
// JSON list); a single-site install has just its own key.
func (a *App) siteKeys(ctx context.Context) []string {
	var keys []string
	if err := json.Unmarshal([]byte(a.setting(ctx, "sites", "[]")), &keys); err != nil || len(keys) == 0 {
		keys = []string{a.Cfg.SiteKey}
	}
	if !contains(keys, a.Cfg.SiteKey) {
		keys = append([]string{a.Cfg.SiteKey}, keys...)
	}
	return keys
}

var listCols = map[string]bool{"features": true, "usps": true, "keywords": true}

// applyListingFields writes the given owner fields (already validated).
func (a *App) applyListingFields(ctx context.Context, tx *sql.Tx, id int64, fields map[string]any, setSocials bool, socials map[string]string) error {
	sets, args := []string{"updated_at = ?"}, []any{a.Now().UTC().Format(time.RFC3339)}
	for _, name := range sortedKeys(fields) {
		v := fields[name]
		switch {
		case listCols[name]:
			v = db.EncodeJSON(v)
		case name == "country":
			v = strings.ToUpper(v.(string))
		}
		sets = append(sets, name+" = ?")
		args = append(args, v)
	}
	if setSocials {
		if socials == nil {
			socials = map[string]string{}
		}
		sets = append(sets, "socials = ?")
		args = append(args, db.EncodeJSON(socials))
	}
	_, err := tx.ExecContext(ctx, "UPDATE listings SET "+strings.Join(sets, ", ")+" WHERE id = ?", append(args, id)...)
	return err
}

// copyToSites upserts only the headline/summary/SEO fields that were sent.
func (a *App) copyToSites(ctx context.Context, tx *sql.Tx, id int64, fields map[string]any, sites []string) error {
	var cols []string
	var vals []any
	for _, f := range siteCopyFields {
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
		if _, err := tx.ExecContext(ctx, q, append([]any{id, site}, vals...)...); err != nil {
			return err
		}
	}
	return nil
}

func replaceFAQs(ctx context.Context, tx *sql.Tx, id int64, faqs []db.FAQ) error {
	if _, err := tx.ExecContext(ctx, `DELETE FROM faqs WHERE listing_id = ?`, id); err != nil {
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
