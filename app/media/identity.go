package media

import (
	"bytes"
	"context"
	"database/sql"
	"encoding/binary"
	"image"
	"sync"
)

// The site's identity images: a favicon and a site logo, set by the site
// team (settings favicon_hash and site_logo_hash) or, by default, drawn
// from the site's name.

const (
	settingFavicon  = "favicon_hash"
	settingSiteLogo = "site_logo_hash"
)

// SetSiteImage stores a processed favicon or site logo (Process with
// KindFavicon or KindSiteLogo, outside the transaction) and makes it the
// site's, inside tx (the admin domain wraps it with its check and audit).
func (a *Service) SetSiteImage(ctx context.Context, tx *sql.Tx, p *Processed) error {
	key := settingSiteLogo
	if p.Kind == KindFavicon {
		key = settingFavicon
	}
	if err := a.save(ctx, tx, p, Source{}); err != nil {
		return err
	}
	return a.PutSetting(ctx, tx, key, p.Hash) // the ctx site's image
}

// ClearSiteImage goes back to the drawn default.
func (a *Service) ClearSiteImage(ctx context.Context, tx *sql.Tx, kind Kind) error {
	key := settingSiteLogo
	if kind == KindFavicon {
		key = settingFavicon
	}
	return a.DeleteSetting(ctx, tx, key)
}

// SiteLogoPath is the site logo's /media/ path, or "" when none was set
// (the header then shows the site's name only).
func (a *Service) SiteLogoPath(ctx context.Context) string {
	if h := a.Setting(ctx, settingSiteLogo, ""); h != "" {
		return Path(h, "64", "png")
	}
	return ""
}

// drawnIcons caches the default favicons by site name.
var drawnIcons sync.Map // name + size → []byte

// FaviconPNG is the favicon at size (32 or 180) as PNG: the uploaded one,
// else a letter tile of the site's name.
func (a *Service) FaviconPNG(ctx context.Context, size int) []byte {
	variant := "32"
	if size > 32 {
		variant = "180"
	}
	if h := a.Setting(ctx, settingFavicon, ""); h != "" {
		if b, err := a.Get(ctx, h, variant); err == nil {
			return b.Bytes
		}
	}
	name := a.SiteName(ctx)
	key := name + "\x00" + variant
	if b, ok := drawnIcons.Load(key); ok {
		return b.([]byte)
	}
	n := 32
	if variant == "180" {
		n = 180
	}
	b := EncodePNG(LetterTile(Initial(name), name, n))
	drawnIcons.Store(key, b)
	return b
}

// FaviconICO wraps the 32 px PNG in an ICO container (one PNG entry, which
// every browser since 2007 reads), for /favicon.ico.
func (a *Service) FaviconICO(ctx context.Context) []byte {
	pngBytes := a.FaviconPNG(ctx, 32)
	w, h := 32, 32
	if cfg, _, err := image.DecodeConfig(bytes.NewReader(pngBytes)); err == nil {
		w, h = cfg.Width, cfg.Height
	}
	var buf bytes.Buffer
	binary.Write(&buf, binary.LittleEndian, [3]uint16{0, 1, 1}) // reserved, type icon, one image
	buf.Write([]byte{byte(w % 256), byte(h % 256), 0, 0})       // 256 is written as 0
	binary.Write(&buf, binary.LittleEndian, [2]uint16{1, 32})   // planes, bits per pixel
	binary.Write(&buf, binary.LittleEndian, [2]uint32{uint32(len(pngBytes)), 22})
	buf.Write(pngBytes)
	return buf.Bytes()
}
