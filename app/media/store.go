package media

import (
	"context"
	"database/sql"
	"regexp"
	"strings"

	"launchdir/app/kernel"
)

// Service is the media domain: images stored in the database file, the
// owner operations that attach them to listings and founders, and the
// site's identity images (favicon, site logo) and social cards.
type Service struct {
	*kernel.Kernel
	cards *cardCache
}

// New builds the media domain.
func New(k *kernel.Kernel) *Service { return &Service{Kernel: k, cards: newCardCache(256)} }

// Source says where a fetched image came from (evidence); empty for uploads.
type Source struct{ URL, Page string }

// Store processes data as kind and keeps it with its variants (once: the
// hash is the content address, so a repeat upload writes nothing).
func (a *Service) Store(ctx context.Context, data []byte, kind Kind, src Source) (*Processed, error) {
	p, err := Process(ctx, data, kind)
	if err != nil {
		return nil, err
	}
	err = a.DB.Tx(ctx, func(tx *sql.Tx) error { return a.save(ctx, tx, p, src) })
	return p, err
}

// save writes an image and its variants inside tx (no-op when present).
func (a *Service) save(ctx context.Context, tx *sql.Tx, p *Processed, src Source) error {
	res, err := tx.ExecContext(ctx, `INSERT OR IGNORE INTO media_images(hash, kind, width, height, source_url, source_page, created_at)
		VALUES(?,?,?,?,?,?,?)`, p.Hash, string(p.Kind), p.Width, p.Height, src.URL, src.Page, a.NowText())
	if err != nil {
		return err
	}
	if n, _ := res.RowsAffected(); n == 0 {
		return nil
	}
	for _, v := range p.Variants {
		if _, err := tx.ExecContext(ctx, `INSERT INTO media_variants(hash, variant, content_type, width, height, bytes)
			VALUES(?,?,?,?,?,?)`, p.Hash, v.Name, v.ContentType, v.Width, v.Height, v.Bytes); err != nil {
			return err
		}
	}
	return nil
}

// Blob is one variant as served.
type Blob struct {
	ContentType string
	Bytes       []byte
}

// Get reads a variant by hash and name (sql.ErrNoRows when absent).
func (a *Service) Get(ctx context.Context, hash, variant string) (*Blob, error) {
	var b Blob
	err := a.DB.R.QueryRowContext(ctx, `SELECT content_type, bytes FROM media_variants WHERE hash = ? AND variant = ?`,
		hash, variant).Scan(&b.ContentType, &b.Bytes)
	if err != nil {
		return nil, err
	}
	return &b, nil
}

// mediaPathRe is the shape of every media URL's path.
var mediaPathRe = regexp.MustCompile(`^/media/([0-9a-f]{40})-([0-9]{2,4})\.(png|jpg)$`)

// ParsePath splits /media/<hash>-<variant>.<ext>.
func ParsePath(p string) (hash, variant, ext string, ok bool) {
	m := mediaPathRe.FindStringSubmatch(p)
	if m == nil {
		return "", "", "", false
	}
	return m[1], m[2], m[3], true
}

// Path is the site-relative URL of an image's variant.
func Path(hash, variant, ext string) string { return "/media/" + hash + "-" + variant + "." + ext }

// URL is the absolute URL of the processed image's named variant.
func (a *Service) URL(ctx context.Context, p *Processed, variant string) string {
	for _, v := range p.Variants {
		if v.Name == variant {
			return a.Origin(ctx) + Path(p.Hash, v.Name, v.Ext())
		}
	}
	return ""
}

// OwnPath returns the path of a URL when it names an image of this site
// (its origin, or a bare /media/ path), so pages never load an image from
// anywhere else: a listing's logo_url from before this store, or one an
// owner typed, shows as the letter tile instead of a hotlink.
func OwnPath(base, u string) (string, bool) {
	p := u
	if strings.HasPrefix(u, base+"/") {
		p = strings.TrimPrefix(u, base)
	}
	if _, _, _, ok := ParsePath(p); !ok {
		return "", false
	}
	return p, true
}

// KindVariants lists a kind's variant names and extensions, for srcsets.
func KindVariants(kind Kind) []Variant {
	out := []Variant{}
	for _, s := range variants[kind] {
		v := Variant{Name: s.Name, Width: s.Box, ContentType: "image/png"}
		if s.JPEG {
			v.ContentType = "image/jpeg"
		}
		out = append(out, v)
	}
	return out
}
