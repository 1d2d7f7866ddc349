package drafting

import (
	"context"
	"database/sql"

	"launchdir/app/media"
	"launchdir/crawl"
	"launchdir/ops"
)

// fetchDraftLogo fetches the logo the drafter found, through the guarded
// client and the media limits, and stores it. A logo that cannot be had
// (blocked address, too large, SVG, not an image) leaves the draft without
// one: the founder can upload one on the draft page.
func (a *Service) fetchDraftLogo(ctx context.Context, draftID string, v crawl.Value) *DraftLogo {
	u, _ := v.Value.(string)
	if u == "" {
		return nil
	}
	page := ""
	if len(v.Evidence) > 0 {
		page = v.Evidence[0].URL
	}
	data, err := a.Media.Fetch(ctx, u)
	if err == nil {
		var p *media.Processed
		if p, err = a.Media.Store(ctx, data, media.KindLogo, media.Source{URL: u, Page: page}); err == nil {
			return &DraftLogo{URL: a.Media.URL(p, "256"), Source: u, Page: page}
		}
	}
	a.Log.Info("draft logo not kept", "draft", draftID, "url", u, "reason", err)
	return nil
}

// SetDraftLogo replaces a draft's logo with an uploaded image (nil data
// removes it) and carries the change to its listing if already submitted.
func (a *Service) SetDraftLogo(ctx context.Context, p *ops.Principal, id string, data []byte) (*Draft, error) {
	var logo *DraftLogo
	if len(data) > 0 {
		proc, err := a.Media.Store(ctx, data, media.KindLogo, media.Source{})
		if err != nil {
			return nil, err
		}
		logo = &DraftLogo{URL: a.Media.URL(proc, "256")}
	}
	var out *Draft
	err := a.DB.Tx(ctx, func(tx *sql.Tx) error {
		r, err := a.access(ctx, tx, p, id)
		if err != nil {
			return err
		}
		r.data.Logo = logo
		if err := a.saveDraft(ctx, tx, r); err != nil {
			return err
		}
		scope := syncScope{fields: map[string]bool{"logo_url": true}}
		if err := a.syncSubmitted(ctx, tx, r, p.UserID, "draft_logo", scope); err != nil {
			return err
		}
		out = a.view(ctx, r)
		return nil
	})
	return out, err
}
