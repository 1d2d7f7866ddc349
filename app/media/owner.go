package media

import (
	"context"
	"database/sql"
	"encoding/base64"
	"fmt"
	"strings"

	"launchdir/app/kernel"
	"launchdir/db"
	"launchdir/ops"
)

// imageInput reads the image an operation was given: base64 or a URL
// fetched through the guarded client. Exactly one must be present.
// ReadImage reads an upload operation's image (ImageBody): decoded base64,
// or fetched from its URL through the SSRF guard.
func (a *Service) ReadImage(ctx context.Context, in *ops.Input) ([]byte, error) {
	data, _, err := a.imageInput(ctx, in)
	return data, err
}

func (a *Service) imageInput(ctx context.Context, in *ops.Input) ([]byte, Source, error) {
	b64, u := in.Str("image_base64"), in.Str("image_url")
	switch {
	case b64 != "" && u != "":
		return nil, Source{}, ops.Invalid("image_url", "give image_base64 or image_url, not both")
	case b64 != "":
		data, err := base64.StdEncoding.DecodeString(strings.TrimSpace(b64))
		if err != nil {
			return nil, Source{}, ops.Invalid("image_base64", "is not valid base64 (standard alphabet with padding)")
		}
		return data, Source{}, nil
	case u != "":
		data, err := a.Fetch(ctx, u)
		if err != nil {
			return nil, Source{}, err
		}
		return data, Source{URL: u}, nil
	}
	return nil, Source{}, ops.Invalid("image_base64", "give the image: image_base64 (or a file upload) or image_url")
}

// Fetch reads an image URL through the guarded client, refusing more than
// MaxBytes; every refusal is a 400 on image_url.
func (a *Service) Fetch(ctx context.Context, u string) ([]byte, error) {
	if !strings.HasPrefix(u, "http://") && !strings.HasPrefix(u, "https://") {
		return nil, ops.Invalid("image_url", "must be an http or https URL")
	}
	data, err := a.Ext.Images.FetchImage(ctx, u, MaxBytes)
	if err != nil {
		return nil, ops.Invalid("image_url", "could not be fetched: %v", err)
	}
	if len(data) > MaxBytes {
		return nil, bad("is more than %d bytes; the limit is %d bytes (5 MiB)", MaxBytes, MaxBytes)
	}
	return data, nil
}

// ownedUpload checks that the caller owns the listing before anything is
// fetched or decoded, then reads the image (base64, upload or URL) and
// processes it as kind; every owner upload starts here.
func (a *Service) ownedUpload(ctx context.Context, in *ops.Input, uid, id int64, kind Kind) (*Processed, Source, error) {
	if err := a.OwnListing(ctx, a.DB.R, uid, id); err != nil {
		return nil, Source{}, err
	}
	data, src, err := a.imageInput(ctx, in)
	if err != nil {
		return nil, Source{}, err
	}
	p, err := Process(ctx, data, kind)
	return p, src, err
}

func (a *Service) setListingLogo(ctx context.Context, in *ops.Input) (any, error) {
	id, uid := in.Int("listing_id"), in.UserID()
	p, src, err := a.ownedUpload(ctx, in, uid, id, KindLogo)
	if err != nil {
		return nil, err
	}
	url := a.URL(ctx, p, "256")
	img := a.imageOf(ctx, p, "256")
	out := LogoResult{ListingID: id, LogoURL: url, Logo: &img}
	err = a.DB.Tx(ctx, func(tx *sql.Tx) error {
		if err := a.OwnListing(ctx, tx, uid, id); err != nil {
			return err
		}
		if err := a.save(ctx, tx, p, src); err != nil {
			return err
		}
		if err := a.setLogoURL(ctx, tx, id, uid, url); err != nil {
			return err
		}
		return kernel.RespondInTx(ctx, tx, out)
	})
	if err != nil {
		return nil, err
	}
	return out, nil
}

// SetListingLogo attaches a stored logo to a listing inside tx (drafts
// carry the drafter's logo to the listing on submit).
func (a *Service) SetListingLogo(ctx context.Context, tx *sql.Tx, listingID int64, hash string) error {
	_, err := tx.ExecContext(ctx, `UPDATE listings SET logo_url = ? WHERE id = ?`,
		a.Origin(ctx)+Path(hash, "256", "png"), listingID)
	return err
}

// setLogoURL changes the listing's logo and keeps a revision for the team.
func (a *Service) setLogoURL(ctx context.Context, tx *sql.Tx, id, uid int64, url string) error {
	var before string
	if err := tx.QueryRowContext(ctx, `SELECT logo_url FROM listings WHERE id = ?`, id).Scan(&before); err != nil {
		return kernel.NotFound(err, "listing")
	}
	if _, err := tx.ExecContext(ctx, `UPDATE listings SET logo_url = ?, updated_at = ? WHERE id = ?`, url, a.NowText(), id); err != nil {
		return err
	}
	return a.revise(ctx, tx, id, uid, "logo", id, map[string]any{"logo_url": before}, map[string]any{"logo_url": url})
}

func (a *Service) deleteListingLogo(ctx context.Context, in *ops.Input) (any, error) {
	id, uid := in.Int("listing_id"), in.UserID()
	err := a.DB.Tx(ctx, func(tx *sql.Tx) error {
		if err := a.OwnListing(ctx, tx, uid, id); err != nil {
			return err
		}
		if err := a.setLogoURL(ctx, tx, id, uid, ""); err != nil {
			return err
		}
		return kernel.RespondInTx(ctx, tx, LogoResult{ListingID: id})
	})
	if err != nil {
		return nil, err
	}
	return LogoResult{ListingID: id}, nil
}

func (a *Service) addScreenshot(ctx context.Context, in *ops.Input) (any, error) {
	id, uid := in.Int("listing_id"), in.UserID()
	p, src, err := a.ownedUpload(ctx, in, uid, id, KindScreenshot)
	if err != nil {
		return nil, err
	}
	var g Gallery
	err = a.DB.Tx(ctx, func(tx *sql.Tx) error {
		if err := a.OwnListing(ctx, tx, uid, id); err != nil {
			return err
		}
		if err := a.save(ctx, tx, p, src); err != nil {
			return err
		}
		if err := a.AddScreenshot(ctx, tx, id, p.Hash, in.Str("caption")); err != nil {
			return err
		}
		if err := a.revise(ctx, tx, id, uid, "screenshot", id, nil, map[string]any{"added": a.URL(ctx, p, "1600")}); err != nil {
			return err
		}
		if g, err = a.gallery(ctx, tx, id); err != nil {
			return err
		}
		return kernel.RespondInTx(ctx, tx, g)
	})
	if err != nil {
		return nil, err
	}
	return g, nil
}

// AddScreenshot appends a stored screenshot to a listing's gallery inside
// tx; the count is read in the same write transaction, so the limit holds
// under concurrent uploads.
func (a *Service) AddScreenshot(ctx context.Context, tx *sql.Tx, listingID int64, hash, caption string) error {
	var n, next int
	if err := tx.QueryRowContext(ctx, `SELECT count(*), coalesce(max(position), -1) + 1 FROM media WHERE listing_id = ? AND kind = 'image'`,
		listingID).Scan(&n, &next); err != nil {
		return err
	}
	if n >= MaxScreenshots {
		return &ops.Error{Code: ops.CodeConflict, Detail: fmt.Sprintf("the gallery is full: at most %d screenshots per listing; remove one first", MaxScreenshots)}
	}
	_, err := tx.ExecContext(ctx, `INSERT INTO media(listing_id, kind, url, caption, position) VALUES(?, 'image', ?, ?, ?)`,
		listingID, a.Origin(ctx)+Path(hash, "1600", "jpg"), caption, next)
	return err
}

func (a *Service) deleteScreenshot(ctx context.Context, in *ops.Input) (any, error) {
	id, uid, sid := in.Int("listing_id"), in.UserID(), in.Int("screenshot_id")
	var g Gallery
	err := a.DB.Tx(ctx, func(tx *sql.Tx) error {
		if err := a.OwnListing(ctx, tx, uid, id); err != nil {
			return err
		}
		var url string
		err := tx.QueryRowContext(ctx, `DELETE FROM media WHERE id = ? AND listing_id = ? AND kind = 'image' RETURNING url`, sid, id).Scan(&url)
		if db.IsNoRows(err) {
			return &ops.Error{Code: ops.CodeNotFound, Detail: "screenshot not found on this listing",
				Fields: []ops.FieldError{{Field: "screenshot_id", Message: "no screenshot of this listing has this id"}}}
		}
		if err != nil {
			return err
		}
		if err := a.revise(ctx, tx, id, uid, "screenshot", sid, map[string]any{"removed": url}, nil); err != nil {
			return err
		}
		if g, err = a.gallery(ctx, tx, id); err != nil {
			return err
		}
		return kernel.RespondInTx(ctx, tx, g)
	})
	if err != nil {
		return nil, err
	}
	return g, nil
}

func (a *Service) reorderScreenshots(ctx context.Context, in *ops.Input) (any, error) {
	id, uid := in.Int("listing_id"), in.UserID()
	var ids []int64
	for _, v := range in.Args["ids"].([]any) {
		ids = append(ids, v.(int64))
	}
	var g Gallery
	err := a.DB.Tx(ctx, func(tx *sql.Tx) error {
		if err := a.OwnListing(ctx, tx, uid, id); err != nil {
			return err
		}
		cur, err := a.gallery(ctx, tx, id)
		if err != nil {
			return err
		}
		if err := sameSet(cur.Screenshots, ids); err != nil {
			return err
		}
		for pos, sid := range ids {
			if _, err := tx.ExecContext(ctx, `UPDATE media SET position = ? WHERE id = ? AND listing_id = ?`, pos, sid, id); err != nil {
				return err
			}
		}
		if g, err = a.gallery(ctx, tx, id); err != nil {
			return err
		}
		return kernel.RespondInTx(ctx, tx, g)
	})
	if err != nil {
		return nil, err
	}
	return g, nil
}

// sameSet checks that ids name every screenshot exactly once.
func sameSet(have []Screenshot, ids []int64) error {
	want := map[int64]bool{}
	for _, s := range have {
		want[s.ID] = true
	}
	seen := map[int64]bool{}
	for _, id := range ids {
		if !want[id] || seen[id] {
			return ops.Invalid("ids", "must list every screenshot id of this listing exactly once (%d of them)", len(have))
		}
		seen[id] = true
	}
	if len(seen) != len(want) {
		return ops.Invalid("ids", "must list every screenshot id of this listing exactly once (%d of them)", len(have))
	}
	return nil
}

// gallery reads a listing's screenshots in order.
func (a *Service) gallery(ctx context.Context, q kernel.RowsQuerier, id int64) (Gallery, error) {
	g := Gallery{ListingID: id, Screenshots: []Screenshot{}, Public: "first"}
	var unlocked bool
	if err := q.QueryRowContext(ctx, `SELECT unlock_media FROM listings WHERE id = ?`, id).Scan(&unlocked); err != nil {
		return g, kernel.NotFound(err, "listing")
	}
	if unlocked {
		g.Public = "all"
	}
	rows, err := q.QueryContext(ctx, `SELECT id, position, caption, url FROM media WHERE listing_id = ? AND kind = 'image' ORDER BY position, id`, id)
	if err != nil {
		return g, err
	}
	defer rows.Close()
	for rows.Next() {
		var s Screenshot
		if err := rows.Scan(&s.ID, &s.Position, &s.Caption, &s.URL); err != nil {
			return g, err
		}
		g.Screenshots = append(g.Screenshots, s)
	}
	return g, rows.Err()
}

func (a *Service) setFounderAvatar(ctx context.Context, in *ops.Input) (any, error) {
	id, uid, slug := in.Int("listing_id"), in.UserID(), in.Str("founder_slug")
	p, src, err := a.ownedUpload(ctx, in, uid, id, KindAvatar)
	if err != nil {
		return nil, err
	}
	url := a.URL(ctx, p, "128")
	out := AvatarResult{FounderSlug: slug, AvatarURL: url, Avatar: a.imageOf(ctx, p, "128")}
	err = a.DB.Tx(ctx, func(tx *sql.Tx) error {
		if err := a.OwnListing(ctx, tx, uid, id); err != nil {
			return err
		}
		var fid int64
		var before string
		err := tx.QueryRowContext(ctx, `SELECT f.id, f.avatar_url FROM founders f JOIN listing_founders lf ON lf.founder_id = f.id
			WHERE lf.listing_id = ? AND f.slug = ?`, id, slug).Scan(&fid, &before)
		if db.IsNoRows(err) {
			return &ops.Error{Code: ops.CodeNotFound, Detail: "founder not found on this listing",
				Fields: []ops.FieldError{{Field: "founder_slug", Message: "no founder of this listing has this slug"}}}
		}
		if err != nil {
			return err
		}
		if err := a.save(ctx, tx, p, src); err != nil {
			return err
		}
		if _, err := tx.ExecContext(ctx, `UPDATE founders SET avatar_url = ? WHERE id = ?`, url, fid); err != nil {
			return err
		}
		if err := a.revise(ctx, tx, id, uid, "founder", fid, map[string]any{"avatar_url": before}, map[string]any{"avatar_url": url}); err != nil {
			return err
		}
		return kernel.RespondInTx(ctx, tx, out)
	})
	if err != nil {
		return nil, err
	}
	return out, nil
}

// imageOf describes a processed image with def as its default variant.
func (a *Service) imageOf(ctx context.Context, p *Processed, def string) Image {
	img := Image{Hash: p.Hash, URL: a.URL(ctx, p, def), Width: p.Width, Height: p.Height, Variants: []ImageVariant{}}
	for _, v := range p.Variants {
		img.Variants = append(img.Variants, ImageVariant{Name: v.Name, URL: a.Origin(ctx) + Path(p.Hash, v.Name, v.Ext()),
			Width: v.Width, Height: v.Height, ContentType: v.ContentType})
	}
	return img
}

// revise records an image change for the site team, like every owner edit.
func (a *Service) revise(ctx context.Context, tx *sql.Tx, listingID, uid int64, entity string, entityID int64, before, after any) error {
	_, err := tx.ExecContext(ctx, `INSERT INTO revisions(entity, entity_id, listing_id, user_id, operation, before, after, created_at)
		VALUES(?,?,?,?,?,?,?,?)`, entity, entityID, listingID, uid, "media_"+entity, db.EncodeJSON(before), db.EncodeJSON(after), a.NowText())
	return err
}

// MyGallery is a listing's screenshots for its owner (404 for anyone else).
func (a *Service) MyGallery(ctx context.Context, uid, listingID int64) (Gallery, error) {
	if err := a.OwnListing(ctx, a.DB.R, uid, listingID); err != nil {
		return Gallery{}, err
	}
	return a.gallery(ctx, a.DB.R, listingID)
}
