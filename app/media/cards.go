package media

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"image"
	"image/color"
	"image/png"

	"golang.org/x/image/draw"
)

// Social cards are the og:image of listings, launch weeks, categories and
// the home page: 1200×630 PNG drawn in Go from what the page shows.
const (
	CardWidth  = 1200
	CardHeight = 630
)

// Card is what a social card shows.
type Card struct {
	Kicker   string // above the title: "#2 of the week · Launched on 16 Nov 2026"
	Title    string
	Subtitle string // the tagline or a description
	LogoURL  string // a /media/ URL of this site, or "" for a letter tile
	Seed     string // colours the letter tile
	Site     string // the site's name, bottom left
	Footer   string // bottom right: votes, counts
}

// Key is the hash of everything the card shows: the cache key, and the
// version in the card's URL, so a changed card gets a new URL.
func (c Card) Key() string {
	h := sha256.New()
	for _, s := range []string{c.Kicker, c.Title, c.Subtitle, c.LogoURL, c.Seed, c.Site, c.Footer} {
		h.Write([]byte(s))
		h.Write([]byte{0})
	}
	return hex.EncodeToString(h.Sum(nil))[:20]
}

// SocialCard returns the card's PNG, drawn once per Key.
func (a *Service) SocialCard(ctx context.Context, c Card) ([]byte, error) {
	key := c.Key()
	if b, ok := a.cards.get(key); ok {
		return b, nil
	}
	logo := a.logoImage(ctx, c.LogoURL)
	b := drawCard(c, logo)
	a.cards.put(key, b)
	return b, nil
}

// logoImage decodes a stored logo's largest variant (nil when none).
func (a *Service) logoImage(ctx context.Context, u string) image.Image {
	p, ok := a.ownPath(ctx, u)
	if !ok {
		return nil
	}
	hash, _, _, _ := ParsePath(p)
	b, err := a.Get(ctx, hash, "256")
	if err != nil {
		return nil
	}
	img, _, err := image.Decode(bytes.NewReader(b.Bytes))
	if err != nil {
		return nil
	}
	return img
}

// drawCard lays out the card: a white panel on the accent colour, the
// logo (or letter tile) left, the kicker, title and subtitle right, the
// site's name and the footer along the bottom.
func drawCard(c Card, logo image.Image) []byte {
	img := image.NewNRGBA(image.Rect(0, 0, CardWidth, CardHeight))
	draw.Draw(img, img.Bounds(), image.NewUniform(Accent), image.Point{}, draw.Src)
	panel := image.Rect(40, 40, CardWidth-40, CardHeight-40)
	fillRounded(img, panel, 28, color.White)
	box := image.Rect(100, 110, 320, 330)
	if logo != nil {
		draw.CatmullRom.Scale(img, fitRect(logo.Bounds(), box), logo, logo.Bounds(), draw.Over, nil)
	} else {
		tile := LetterTile(Initial(c.Title), c.Seed+c.Title, box.Dx())
		draw.Draw(img, box, tile, image.Point{}, draw.Over)
	}
	faceMu.Lock()
	defer faceMu.Unlock()
	x, w := 370, CardWidth-370-100
	y := 140
	if c.Kicker != "" {
		y = drawLines(img, face(true, 30), c.Kicker, x, y, w, 1, 46, Accent)
	}
	y = drawLines(img, face(true, 68), c.Title, x, y+46, w, 2, 78, Ink)
	drawLines(img, face(false, 36), c.Subtitle, x, y+10, w, 3, 48, Muted)
	drawLines(img, face(true, 30), c.Site, 100, CardHeight-90, 600, 1, 36, Ink)
	if c.Footer != "" {
		f := face(false, 28)
		drawLines(img, f, c.Footer, CardWidth-100-measure(f, c.Footer), CardHeight-90, 600, 1, 36, Muted)
	}
	var buf bytes.Buffer
	(&png.Encoder{CompressionLevel: png.BestSpeed}).Encode(&buf, img)
	return buf.Bytes()
}

// fitRect is the largest rectangle of src's aspect centred in box.
func fitRect(src, box image.Rectangle) image.Rectangle {
	w, h := box.Dx(), box.Dy()
	if src.Dx()*h > src.Dy()*w {
		h = src.Dy() * w / src.Dx()
	} else {
		w = src.Dx() * h / src.Dy()
	}
	x := box.Min.X + (box.Dx()-w)/2
	y := box.Min.Y + (box.Dy()-h)/2
	return image.Rect(x, y, x+w, y+h)
}
