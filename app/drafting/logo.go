package drafting

import (
	"context"
	"database/sql"

	"launchdir/app/media"
	"launchdir/crawl"
	"launchdir/ops"
)

// fetchDraftLogo fetches the logo the drafter found, through the guarded
// client and the media limits, and stores it. When that logo cannot be had
// (an SVG, blocked, too large, not an image) or none was found, the home
// page's icons are tried (apple-touch-icon first); failing all, the draft
// has no logo and the founder can upload one on the draft page.
func (a *Service) fetchDraftLogo(ctx context.Context, draftID string, v crawl.Value, pages []crawl.Page) *DraftLogo {
	type candidate struct{ url, page string }
	var cands []candidate
	if u, _ := v.Value.(string); u != "" {
		page := ""
		if len(v.Evidence) > 0 {
			page = v.Evidence[0].URL
		}
		cands = append(cands, candidate{u, page})
	}
	if len(pages) > 0 {
		for i, u := range crawl.IconURLs(pages[0]) {
			if i == 3 { // a few requests at most
				break
			}
			cands = append(cands, candidate{u, pages[0].URL})
		}
	}
	for _, c := range cands {
		if ctx.Err() != nil {
			return nil
		}
		data, err := a.Media.Fetch(ctx, c.url)
		if err == nil {
			var p *media.Processed
			if p, err = a.Media.Store(ctx, data, media.KindLogo, media.Source{URL: c.url, Page: c.page}); err == nil {
				return &DraftLogo{URL: a.Media.URL(p, "256"), Source: c.url, Page: c.page}
			}
		}
		a.Log.Info("draft logo candidate not kept", "draft", draftID, "url", c.url, "reason", err)
	}
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
