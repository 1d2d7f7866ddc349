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
	return a.adminTx(ctx, adminID, func(tx *sql.Tx) error {
		after := "default"
		if len(data) == 0 {
			if err := a.Media.ClearSiteImage(ctx, tx, kind); err != nil {
				return err
			}
		} else {
			h, err := a.Media.SetSiteImage(ctx, tx, kind, data)
			if err != nil {
				return err
			}
			after = h
		}
		return a.audit(ctx, tx, adminID, "set_"+string(kind), "settings", nil, map[string]string{string(kind): after})
	})
}
