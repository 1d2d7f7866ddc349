package drafting

import (
	"context"
	"crypto/rand"
	"database/sql"
	"fmt"
	"time"

	"launchdir/app/kernel"
	"launchdir/crawl"
	"launchdir/db"
	"launchdir/ops"
)

func newUUID() string {
	b := make([]byte, 16)
	rand.Read(b)
	b[6] = b[6]&0x0f | 0x40
	b[8] = b[8]&0x3f | 0x80
	return fmt.Sprintf("%x-%x-%x-%x-%x", b[0:4], b[4:6], b[6:8], b[8:10], b[10:16])
}

func (a *Service) submitListing(ctx context.Context, in *ops.Input) (any, error) {
	u, err := crawl.ValidateSubmitURL(in.Str("url"))
	if err != nil {
		return nil, ops.Invalid("url", "%s", err.Error())
	}
	if a.drafts == nil {
		return nil, &ops.Error{Code: ops.CodeUnavailable, Detail: "submitting by URL is not enabled on this server"}
	}
	a.drafts.submitMu.Lock()
	if err := a.checkDraftQuota(ctx, in.UserID()); err != nil {
		a.drafts.submitMu.Unlock()
		return nil, err
	}
	now := a.Now().UTC().Format(time.RFC3339Nano)
	r := &draftRow{id: newUUID(), owner: in.UserID(), url: u, status: draftCrawling, data: newDraftData(), createdAt: now, updatedAt: now}
	var out *Draft
	// In a transaction (db.Tx), so an idempotent request's key records the
	// effect and a retry after a crash never inserts a second draft.
	err = a.DB.Tx(ctx, func(tx *sql.Tx) error {
		if _, err := tx.ExecContext(ctx, `INSERT INTO drafts(id, user_id, url, status, data, created_at, updated_at) VALUES(?,?,?,?,?,?,?)`,
			r.id, r.owner, r.url, r.status, db.EncodeJSON(r.data), now, now); err != nil {
			return err
		}
		if in.Progress != nil {
			// A client that asked for progress gets the draft as the
			// crawl leaves it, known only after this commit: its response
			// is stored after the handler (a crash in between answers
			// the effect_committed conflict).
			return nil
		}
		// Otherwise the answer is the new draft, crawling: the crawl
		// queued after the commit does not change it.
		out = a.view(ctx, r)
		return kernel.RespondInTx(ctx, tx, out)
	})
	a.drafts.submitMu.Unlock()
	if err != nil {
		return nil, err
	}
	a.enqueueDraft(draftJob{id: r.id, user: r.owner})
	if in.Progress != nil {
		return a.waitWithProgress(ctx, in, r.id)
	}
	return out, nil
}

// waitWithProgress serves clients that asked for progress (MCP progress
// tokens): it reports pages read while the crawl runs, for up to a minute,
// then returns the draft as it stands.
func (a *Service) waitWithProgress(ctx context.Context, in *ops.Input, id string) (any, error) {
	deadline := time.Now().Add(time.Minute)
	tick := time.NewTicker(300 * time.Millisecond)
	defer tick.Stop()
	for {
		r, err := loadDraft(ctx, a.DB.R, id)
		if err != nil {
			return nil, err
		}
		done, planned := a.DraftProgress(id)
		if r.status == draftReady || r.status == draftFailed || time.Now().After(deadline) {
			in.Progress(float64(max(done, planned)), float64(max(planned, 1)), "draft "+r.status)
			return a.view(ctx, r), nil
		}
		in.Progress(float64(done), float64(max(planned, 1)), r.status+": read "+fmt.Sprint(done)+" pages")
		select {
		case <-ctx.Done():
			return nil, ctx.Err()
		case <-tick.C:
		}
	}
}

func (a *Service) listMyDrafts(ctx context.Context, in *ops.Input) (any, error) {
	off, lim := kernel.Offset(in)
	p := in.Principal
	const mine = `FROM drafts WHERE user_id = ?1 OR id IN (SELECT draft_id FROM draft_invites WHERE email = ?2)`
	total, err := a.DB.Count(ctx, `SELECT count(*) `+mine, p.UserID, p.Email)
	if err != nil {
		return nil, err
	}
	ids, err := db.Column[string](ctx, a.DB.R, `SELECT id `+mine+` ORDER BY created_at DESC, id LIMIT ?3 OFFSET ?4`, p.UserID, p.Email, lim, off)
	if err != nil {
		return nil, err
	}
	items := []*Draft{}
	for _, id := range ids {
		r, err := loadDraft(ctx, a.DB.R, id)
		if err != nil {
			return nil, err
		}
		items = append(items, a.view(ctx, r))
	}
	return kernel.NewPage(in, items, total), nil
}

func (a *Service) getDraft(ctx context.Context, in *ops.Input) (any, error) {
	r, err := a.access(ctx, a.DB.R, in.Principal, in.Str("id"))
	if err != nil {
		return nil, err
	}
	return a.view(ctx, r), nil
}

func (a *Service) inviteCofounder(ctx context.Context, in *ops.Input) (any, error) {
	email, err := kernel.NormEmail(in.Str("email"))
	if err != nil {
		return nil, err
	}
	if email == in.Principal.Email {
		return nil, ops.Invalid("email", "you cannot invite yourself")
	}
	var out Invite
	err = a.DB.Tx(ctx, func(tx *sql.Tx) error {
		r, err := a.access(ctx, tx, in.Principal, in.Str("id"))
		if err != nil {
			return err
		}
		var n int
		if err := tx.QueryRowContext(ctx, `SELECT count(*) FROM draft_invites WHERE draft_id = ?`, r.id).Scan(&n); err != nil {
			return err
		}
		if n >= 10 {
			return ops.Invalid("email", "a draft takes up to 10 invites")
		}
		now := a.Now().UTC().Format(time.RFC3339)
		if _, err := tx.ExecContext(ctx, `INSERT INTO draft_invites(draft_id, email, invited_by, created_at) VALUES(?,?,?,?)`,
			r.id, email, in.UserID(), now); err != nil {
			if db.IsUnique(err) {
				return &ops.Error{Code: ops.CodeConflict, Detail: email + " is already invited to this draft"}
			}
			return err
		}
		name, _ := r.data.Fields["name"].Value.(string)
		if name == "" {
			name = r.url
		}
		body := fmt.Sprintf("%s invited you to co-edit the %s listing draft on %s.\n\nSign in with this address (%s) to get access: the draft appears in your drafts.\n\n%s",
			in.Principal.Email, name, a.SiteName(ctx), email, a.Origin(ctx))
		if err := a.EnqueueMail(ctx, tx, "cofounder_invite", email, "You are invited to co-edit "+name, body); err != nil {
			return err
		}
		out = Invite{DraftID: r.id, Email: email, InvitedAt: now, InvitesUsed: n + 1, InvitesLeft: 9 - n}
		return kernel.RespondInTx(ctx, tx, out)
	})
	return out, err
}

func (a *Service) submitDraft(ctx context.Context, in *ops.Input) (any, error) {
	var out SubmittedDraft
	err := a.DB.Tx(ctx, func(tx *sql.Tx) error {
		r, err := a.access(ctx, tx, in.Principal, in.Str("id"))
		if err != nil {
			return err
		}
		if r.status != draftReady && r.status != draftFailed {
			return ops.Invalid("id", "the draft is %s; submit it once its status is ready", r.status)
		}
		if name, _ := r.data.Fields["name"].Value.(string); name == "" {
			return ops.Invalid("fields.name", "the draft needs a name before it can be submitted")
		}
		if r.status == draftFailed {
			// The site could not be read: the founder filled the profile in
			// by hand (every value manual, no evidence); it is theirs now.
			r.status = draftReady
			if err := a.saveDraft(ctx, tx, r); err != nil {
				return err
			}
		}
		if !r.listingID.Valid {
			id, err := a.createListingFromDraft(ctx, tx, r)
			if err != nil {
				return err
			}
			r.listingID = sql.NullInt64{Int64: id, Valid: true}
		}
		if err := a.syncListing(ctx, tx, r, in.UserID(), "submit_draft", syncAll); err != nil {
			return err
		}
		// Submitted on another site's host: that site shows it too (when
		// its categories fit the site's).
		if _, err := a.PlaceOnSite(ctx, tx, tx, r.listingID.Int64); err != nil {
			return err
		}
		out = SubmittedDraft{ListingID: r.listingID.Int64, Status: "draft", Draft: *a.view(ctx, r),
			Next: "Publish with choose_free_listing or create_checkout (product launch). Later edits to the draft update this listing."}
		return kernel.RespondInTx(ctx, tx, out)
	})
	return out, err
}

func (a *Service) deleteDraft(ctx context.Context, in *ops.Input) (any, error) {
	var out DeletedDraft
	err := a.DB.Tx(ctx, func(tx *sql.Tx) error {
		r, err := a.access(ctx, tx, in.Principal, in.Str("id"))
		if err != nil {
			return err
		}
		if r.owner != in.UserID() {
			return &ops.Error{Code: ops.CodeForbidden, Detail: "only the person who started the draft can delete it; you were invited to it"}
		}
		if _, err := tx.ExecContext(ctx, `DELETE FROM drafts WHERE id = ?`, r.id); err != nil {
			return err
		}
		out = DeletedDraft{Deleted: true, ID: r.id, URL: r.url, Note: "The draft is deleted."}
		if r.listingID.Valid {
			id := r.listingID.Int64
			out.ListingID = &id
			out.Note = fmt.Sprintf("The draft is deleted; listing %d submitted from it stays yours (edit it under your listings).", id)
		}
		return kernel.RespondInTx(ctx, tx, out)
	})
	return out, err
}
