package admin

import (
	"context"
	"database/sql"

	"launchdir/app/media"
)

// SetSiteImage makes an uploaded image the site's favicon or logo
// (kind media.KindFavicon or media.KindSiteLogo); empty data goes back to
// the default drawn from the site's name. Audited like every setting.
func (a *Service) SetSiteImage(ctx context.Context, adminID int64, kind media.Kind, data []byte) error {
	if err := a.requireAdmin(ctx, adminID); err != nil {
		return err
	}
	var p *media.Processed
	if len(data) > 0 { // decoded before the write transaction, not holding it
		var err error
		if p, err = media.Process(ctx, data, kind); err != nil {
			return err
		}
	}
	return a.adminTx(ctx, adminID, func(tx *sql.Tx) error {
		after := "default"
		if p == nil {
			if err := a.Media.ClearSiteImage(ctx, tx, kind); err != nil {
				return err
			}
		} else {
			if err := a.Media.SetSiteImage(ctx, tx, p); err != nil {
				return err
			}
			after = p.Hash
		}
		return a.audit(ctx, tx, adminID, "set_"+string(kind), "settings", nil, map[string]string{string(kind): after})
	})
}
