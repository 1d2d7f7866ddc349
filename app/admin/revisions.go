package admin

import (
	"context"
	"database/sql"
	"encoding/json"
	"fmt"
	"maps"
	"slices"
	"strconv"
	"strings"

	"launchdir/app/kernel"
	"launchdir/app/owning"
	"launchdir/db"
	"launchdir/ops"
)

// Revision is one owner edit as the site team sees it: a before/after copy.
type Revision struct {
	ID          int64           `json:"id"`
	Entity      string          `json:"entity"`
	EntityID    int64           `json:"entity_id"`
	ListingID   int64           `json:"listing_id"`
	ListingName string          `json:"listing_name"`
	ListingSlug string          `json:"listing_slug"`
	UserID      int64           `json:"user_id"`
	UserEmail   string          `json:"user_email"`
	Operation   string          `json:"operation"`
	Before      json.RawMessage `json:"before"`
	After       json.RawMessage `json:"after"`
	Changes     []FieldChange   `json:"changes"`
	Revertible  bool            `json:"revertible"`
	CreatedAt   string          `json:"created_at"`
}

// FieldChange is one top-level field that differs between before and after.
type FieldChange struct {
	Field  string `json:"field"`
	Before string `json:"before"` // JSON text, "" when absent
	After  string `json:"after"`
}

// revertible entities: what an admin revert can put back.
func revertible(entity, _ string) bool {
	switch entity {
	case "listing", "story", "milestone", "listing_update":
		return true
	}
	return false
}

// ListRevisions lists owner edits newest first, optionally of one listing.
func (a *Service) ListRevisions(ctx context.Context, adminID, listingID int64, p AdminPage) (kernel.Page[Revision], error) {
	var out kernel.Page[Revision]
	if err := a.requireAdmin(ctx, adminID); err != nil {
		return out, err
	}
	page, per, off, err := p.norm()
	if err != nil {
		return out, err
	}
	if listingID < 0 {
		return out, ops.Invalid("listing_id", "must be a positive id")
	}
	out = kernel.Page[Revision]{Items: []Revision{}, Page: page, PerPage: per}
	where, args := "", []any{}
	if listingID > 0 {
		where, args = " WHERE r.listing_id = ?", []any{listingID}
	}
	if out.Total, err = a.DB.Count(ctx, `SELECT count(*) FROM revisions r`+where, args...); err != nil {
		return out, err
	}
	rows, err := a.DB.R.QueryContext(ctx, revisionSelect+where+` ORDER BY r.id DESC LIMIT ? OFFSET ?`, append(args, per, off)...)
	if err != nil {
		return out, err
	}
	defer rows.Close()
	for rows.Next() {
		r, err := scanRevision(rows)
		if err != nil {
			return out, err
		}
		out.Items = append(out.Items, *r)
	}
	return out, rows.Err()
}

const revisionSelect = `SELECT r.id, r.entity, r.entity_id, coalesce(r.listing_id,0), coalesce(l.name,''), coalesce(l.slug,''),
	coalesce(r.user_id,0), coalesce(u.email,''), r.operation, r.before, r.after, r.created_at
	FROM revisions r LEFT JOIN listings l ON l.id = r.listing_id LEFT JOIN users u ON u.id = r.user_id`

func scanRevision(sc interface{ Scan(...any) error }) (*Revision, error) {
	var r Revision
	var before, after string
	if err := sc.Scan(&r.ID, &r.Entity, &r.EntityID, &r.ListingID, &r.ListingName, &r.ListingSlug, &r.UserID, &r.UserEmail,
		&r.Operation, &before, &after, &r.CreatedAt); err != nil {
		return nil, err
	}
	r.Before, r.After = json.RawMessage(before), json.RawMessage(after)
	r.Changes = diffJSON(before, after)
	r.Revertible = revertible(r.Entity, r.Operation)
	return &r, nil
}

// GetRevision reads one revision.
func (a *Service) GetRevision(ctx context.Context, adminID, id int64) (*Revision, error) {
	if err := a.requireAdmin(ctx, adminID); err != nil {
		return nil, err
	}
	r, err := scanRevision(a.DB.R.QueryRowContext(ctx, revisionSelect+` WHERE r.id = ?`, id))
	return r, kernel.NotFound(err, "revision")
}

// diffJSON compares two JSON objects key by key; non-objects compare whole.
func diffJSON(before, after string) []FieldChange {
	var b, a map[string]json.RawMessage
	bok := json.Unmarshal([]byte(before), &b) == nil && b != nil
	aok := json.Unmarshal([]byte(after), &a) == nil && a != nil
	if !bok && !aok {
		if before == after {
			return []FieldChange{}
		}
		return []FieldChange{{Field: "value", Before: before, After: after}}
	}
	keys := map[string]bool{}
	for k := range b {
		keys[k] = true
	}
	for k := range a {
		keys[k] = true
	}
	out := []FieldChange{}
	for _, k := range slices.Sorted(maps.Keys(keys)) {
		bv, av := compactJSON(b[k]), compactJSON(a[k])
		if bv != av {
			out = append(out, FieldChange{Field: k, Before: bv, After: av})
		}
	}
	return out
}

func compactJSON(raw json.RawMessage) string {
	if len(raw) == 0 {
		return ""
	}
	var v any
	if json.Unmarshal(raw, &v) != nil {
		return string(raw)
	}
	// Not HTML-escaped: pages escape it; the admin reads the real text.
	var b strings.Builder
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	if enc.Encode(v) != nil {
		return string(raw)
	}
	return strings.TrimSuffix(b.String(), "\n")
}

// RevertRevision puts the "before" of an owner edit back, in one
// transaction, and records the revert as a new revision (by the admin) and
// in the audit log. Only listing fields, stories, milestones and posted
// updates can be reverted; status changes and claims cannot.
func (a *Service) RevertRevision(ctx context.Context, adminID, revisionID int64) (*Revision, error) {
	var newID int64
	err := a.adminTx(ctx, adminID, func(tx *sql.Tx) error {
		r, err := scanRevision(tx.QueryRowContext(ctx, revisionSelect+` WHERE r.id = ?`, revisionID))
		if err != nil {
			return kernel.NotFound(err, "revision")
		}
		if !r.Revertible {
			return ops.Invalid("revision_id", "a %s change (%s) cannot be reverted here", r.Entity, r.Operation)
		}
		var before, after any
		switch r.Entity {
		case "listing":
			before, after, err = revertListing(ctx, tx, a, r)
		case "story":
			before, after, err = revertStory(ctx, tx, a, r)
		case "milestone":
			before, after, err = revertMilestone(ctx, tx, a, r)
		case "listing_update":
			before, after, err = revertUpdate(ctx, tx, r)
		}
		if err != nil {
			return err
		}
		// Like owner edits, a listing revert records the fields it changed.
		rb, ra, changed := owning.ChangedFields(before, after)
		if !changed {
			rb, ra = db.EncodeJSON(before), db.EncodeJSON(after)
		}
		res, err := tx.ExecContext(ctx, `INSERT INTO revisions(entity, entity_id, listing_id, user_id, operation, before, after, created_at)
			VALUES(?,?,?,?,?,?,?,?)`, r.Entity, r.EntityID, r.ListingID, adminID, "admin_revert:"+strconv.FormatInt(r.ID, 10),
			rb, ra, a.NowText())
		if err != nil {
			return err
		}
		if newID, err = res.LastInsertId(); err != nil {
			return err
		}
		return a.audit(ctx, tx, adminID, "revert_revision", fmt.Sprintf("revision %d (listing %d)", r.ID, r.ListingID), before, after)
	})
	if err != nil {
		return nil, err
	}
	return a.GetRevision(ctx, adminID, newID)
}

// listingRevertCols are the snapshot columns revert writes back.
var listingRevertCols = []string{"tagline", "short_description", "description", "pricing_model", "pricing_summary", "country", "city",
	"founded_year", "demo_video_url", "contact_email", "features", "usps", "keywords", "headline", "summary",
	"seo_title", "seo_description", "socials"}

func revertListing(ctx context.Context, tx *sql.Tx, a *Service, r *Revision) (any, any, error) {
	var snap map[string]json.RawMessage
	if err := json.Unmarshal(r.Before, &snap); err != nil || snap == nil {
		return nil, nil, ops.Invalid("revision_id", "this revision has no listing snapshot to restore")
	}
	current, err := owning.ListingSnapshot(ctx, tx, r.ListingID)
	if err != nil {
		return nil, nil, kernel.NotFound(err, "listing")
	}
	sets, args := []string{"updated_at = ?"}, []any{a.NowText()}
	for _, c := range listingRevertCols {
		raw, ok := snap[c]
		if !ok {
			continue
		}
		var v any
		switch c {
		case "features", "usps", "keywords", "socials":
			v = compactJSON(raw)
		case "founded_year":
			var n *int64
			if err := json.Unmarshal(raw, &n); err != nil {
				return nil, nil, err
			}
			if n != nil {
				v = *n
			}
		default:
			var s string
			if err := json.Unmarshal(raw, &s); err != nil {
				return nil, nil, err
			}
			v = s
		}
		sets = append(sets, c+" = ?")
		args = append(args, v)
	}
	if _, err := tx.ExecContext(ctx, "UPDATE listings SET "+strings.Join(sets, ", ")+" WHERE id = ?", append(args, r.ListingID)...); err != nil {
		return nil, nil, err
	}
	if raw, ok := snap["faqs"]; ok {
		var faqs []db.FAQ
		if err := json.Unmarshal(raw, &faqs); err != nil {
			return nil, nil, err
		}
		if err := owning.ReplaceFAQs(ctx, tx, r.ListingID, faqs); err != nil {
			return nil, nil, err
		}
	}
	restored, err := owning.ListingSnapshot(ctx, tx, r.ListingID)
	return current, restored, err
}

func revertStory(ctx context.Context, tx *sql.Tx, a *Service, r *Revision) (any, any, error) {
	var cur db.Story
	err := tx.QueryRowContext(ctx, `SELECT title, story, why_started, problem, journey, challenges, achievements, lessons, whats_next
		FROM stories WHERE listing_id = ?`, r.ListingID).Scan(&cur.Title, &cur.Story, &cur.WhyStarted, &cur.Problem, &cur.Journey,
		&cur.Challenges, &cur.Achievements, &cur.Lessons, &cur.WhatsNext)
	var current any = cur
	if db.IsNoRows(err) {
		current = nil
	} else if err != nil {
		return nil, nil, err
	}
	var s *db.Story
	if err := json.Unmarshal(r.Before, &s); err != nil {
		return nil, nil, err
	}
	if s == nil {
		_, err := tx.ExecContext(ctx, `DELETE FROM stories WHERE listing_id = ?`, r.ListingID)
		return current, nil, err
	}
	_, err = tx.ExecContext(ctx, `INSERT INTO stories(listing_id, title, story, why_started, problem, journey, challenges,
		achievements, lessons, whats_next, updated_at) VALUES(?,?,?,?,?,?,?,?,?,?,?)
		ON CONFLICT(listing_id) DO UPDATE SET title=excluded.title, story=excluded.story, why_started=excluded.why_started,
		problem=excluded.problem, journey=excluded.journey, challenges=excluded.challenges, achievements=excluded.achievements,
		lessons=excluded.lessons, whats_next=excluded.whats_next, updated_at=excluded.updated_at`,
		r.ListingID, s.Title, s.Story, s.WhyStarted, s.Problem, s.Journey, s.Challenges, s.Achievements, s.Lessons, s.WhatsNext, a.NowText())
	s.UpdatedAt = ""
	return current, s, err
}

// revertMilestone deletes an added milestone or puts a deleted one back.
func revertMilestone(ctx context.Context, tx *sql.Tx, a *Service, r *Revision) (any, any, error) {
	var m *db.Milestone
	if err := json.Unmarshal(r.Before, &m); err != nil {
		return nil, nil, err
	}
	if m == nil { // the edit added it: remove it
		var cur db.Milestone
		err := tx.QueryRowContext(ctx, `SELECT id, date, title, description, url FROM milestones WHERE id = ? AND listing_id = ?`,
			r.EntityID, r.ListingID).Scan(&cur.ID, &cur.Date, &cur.Title, &cur.Description, &cur.URL)
		if db.IsNoRows(err) {
			return nil, nil, ops.Errorf(ops.CodeConflict, "the milestone this edit added is already gone")
		}
		if err != nil {
			return nil, nil, err
		}
		_, err = tx.ExecContext(ctx, `DELETE FROM milestones WHERE id = ?`, cur.ID)
		return cur, nil, err
	}
	var n int
	if err := tx.QueryRowContext(ctx, `SELECT count(*) FROM milestones WHERE id = ?`, m.ID).Scan(&n); err != nil {
		return nil, nil, err
	}
	if n > 0 {
		return nil, nil, ops.Errorf(ops.CodeConflict, "the milestone this edit deleted is already back")
	}
	_, err := tx.ExecContext(ctx, `INSERT INTO milestones(id, listing_id, date, title, description, url, created_at) VALUES(?,?,?,?,?,?,?)`,
		m.ID, r.ListingID, m.Date, m.Title, m.Description, m.URL, a.NowText())
	return nil, m, err
}

// revertUpdate removes a posted update (emails already sent stay sent).
func revertUpdate(ctx context.Context, tx *sql.Tx, r *Revision) (any, any, error) {
	var u db.Update
	err := tx.QueryRowContext(ctx, `SELECT id, title, body, created_at FROM listing_updates WHERE id = ? AND listing_id = ?`,
		r.EntityID, r.ListingID).Scan(&u.ID, &u.Title, &u.Body, &u.CreatedAt)
	if db.IsNoRows(err) {
		return nil, nil, ops.Errorf(ops.CodeConflict, "the update this edit posted is already gone")
	}
	if err != nil {
		return nil, nil, err
	}
	_, err = tx.ExecContext(ctx, `DELETE FROM listing_updates WHERE id = ?`, u.ID)
	return u, nil, err
}
