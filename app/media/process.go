package media

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"image"
	"image/color"
	"image/gif"
	"image/jpeg"
	"image/png"
	"time"

	"launchdir/ops"

	"golang.org/x/image/draw"
	_ "golang.org/x/image/webp" // registers the WebP decoder
)

// The limits every accepted image meets, whatever door it came through
// (REST upload, MCP base64 or URL, the drafter's fetch). Each refusal is a
// 400 naming the limit.
const (
	MaxBytes      = 5 << 20              // 5 MiB of encoded file
	MaxSide       = 8192                 // pixels, either side
	MinSide       = 16                   // pixels, either side
	MaxPixels     = 24_000_000           // width × height, checked from the header before decoding
	DecodeTimeout = 3 * time.Second      // a decode still running then is abandoned
	jpegQuality   = 82                   // screenshots and avatars
	maxBase64Len  = (MaxBytes/3 + 2) * 4 // image_base64 strings up to just past MaxBytes
)

// Kind is what an image is for; it fixes the variants made from it.
type Kind string

// The kinds of image.
const (
	KindLogo       Kind = "logo"
	KindScreenshot Kind = "screenshot"
	KindAvatar     Kind = "avatar"
	KindSiteLogo   Kind = "site_logo"
	KindFavicon    Kind = "favicon"
)

// variantSpec is one re-encoded size of an image.
type variantSpec struct {
	Name   string // in the URL: <hash>-<name>.<ext>
	Box    int    // fits within Box×Box (logos) or Box wide (screenshots)
	Square bool   // centre-cropped to a square (avatars, favicons)
	JPEG   bool   // photos and screenshots; PNG otherwise (keeps transparency)
}

// variants per kind. Logos are drawn at 48 px on cards and 96 px on the
// listing page, so 64/128/256 cover 1x to 2.5x screens.
var variants = map[Kind][]variantSpec{
	KindLogo:       {{Name: "64", Box: 64}, {Name: "128", Box: 128}, {Name: "256", Box: 256}},
	KindSiteLogo:   {{Name: "64", Box: 64}, {Name: "128", Box: 128}, {Name: "256", Box: 256}},
	KindScreenshot: {{Name: "480", Box: 480, JPEG: true}, {Name: "960", Box: 960, JPEG: true}, {Name: "1600", Box: 1600, JPEG: true}},
	KindAvatar:     {{Name: "64", Box: 64, Square: true, JPEG: true}, {Name: "128", Box: 128, Square: true, JPEG: true}},
	KindFavicon:    {{Name: "32", Box: 32, Square: true}, {Name: "180", Box: 180, Square: true}},
}

// Variant is one stored encoding of an image.
type Variant struct {
	Name        string
	ContentType string
	Width       int
	Height      int
	Bytes       []byte
}

// Ext is the file extension of the variant's URL.
func (v Variant) Ext() string {
	if v.ContentType == "image/jpeg" {
		return "jpg"
	}
	return "png"
}

// Processed is an accepted image: its content hash, size and variants.
type Processed struct {
	Hash          string
	Kind          Kind
	Width, Height int
	Variants      []Variant
}

// bad is the one shape of a refusal: a 400 on the image field.
func bad(format string, args ...any) error { return ops.Invalid("image", format, args...) }

// Process checks data against every limit, decodes it and re-encodes every
// variant of kind. Re-encoding from pixels is what strips metadata (EXIF,
// ICC, comments) and anything smuggled after or inside the file.
func Process(ctx context.Context, data []byte, kind Kind) (*Processed, error) {
	specs, ok := variants[kind]
	if !ok {
		return nil, fmt.Errorf("media: unknown kind %q", kind)
	}
	if err := checkBytes(data); err != nil {
		return nil, err
	}
	cfg, format, err := image.DecodeConfig(bytes.NewReader(data))
	if err != nil {
		if knownMagic(data) {
			return nil, bad("could not be decoded: the file is damaged or truncated")
		}
		return nil, bad("is not a PNG, JPEG, GIF or WebP image (the file's content decides, not its name)")
	}
	if err := checkSize(cfg.Width, cfg.Height); err != nil {
		return nil, err
	}
	img, err := decodeWithin(ctx, data, format)
	if err != nil {
		return nil, err
	}
	p, err := encodeAll(preshrink(img, specs), kind, hashOf(kind, data))
	if err != nil {
		return nil, err
	}
	p.Width, p.Height = cfg.Width, cfg.Height
	return p, nil
}

// ProcessImage makes the variants of an image drawn in Go (the demo's),
// content-addressed by key instead of file bytes.
func ProcessImage(img image.Image, kind Kind, key []byte) (*Processed, error) {
	if _, ok := variants[kind]; !ok {
		return nil, fmt.Errorf("media: unknown kind %q", kind)
	}
	return encodeAll(img, kind, hashOf(kind, key))
}

// encodeAll encodes every variant of kind from img.
func encodeAll(img image.Image, kind Kind, hash string) (*Processed, error) {
	specs := variants[kind]
	b := img.Bounds()
	p := &Processed{Hash: hash, Kind: kind, Width: b.Dx(), Height: b.Dy()}
	// Largest first, each drawn from the one before: the good filter then
	// reads the big source once.
	p.Variants = make([]Variant, len(specs))
	src := img
	for i := len(specs) - 1; i >= 0; i-- {
		v, drawn, err := encodeVariant(src, specs[i])
		if err != nil {
			return nil, err
		}
		p.Variants[i], src = v, drawn
	}
	return p, nil
}

// checkBytes refuses empty, oversized, SVG and polyglot files before any
// decoding.
func checkBytes(data []byte) error {
	switch {
	case len(data) == 0:
		return bad("is empty")
	case len(data) > MaxBytes:
		return bad("is %d bytes; the limit is %d bytes (5 MiB)", len(data), MaxBytes)
	case looksLikeSVG(data):
		return bad("is SVG or other markup, which is refused (it can carry script); upload a PNG, JPEG, GIF or WebP")
	}
	if why := polyglot(data); why != "" {
		return bad("is refused: %s", why)
	}
	return nil
}

// checkSize applies the dimension limits to the header's width and height,
// so a decompression bomb (a small file declaring a huge canvas) is refused
// before a single pixel is allocated.
func checkSize(w, h int) error {
	switch {
	case w > MaxSide || h > MaxSide:
		return bad("is %d×%d pixels; the limit is %d pixels on either side", w, h, MaxSide)
	case w < MinSide || h < MinSide:
		return bad("is %d×%d pixels; the minimum is %d pixels on either side", w, h, MinSide)
	case int64(w)*int64(h) > MaxPixels:
		return bad("is %d×%d = %d pixels; the limit is %d pixels (24 megapixels)", w, h, int64(w)*int64(h), MaxPixels)
	}
	return nil
}

// decodeWithin decodes the image, giving up after DecodeTimeout. The pixel
// limit bounds the work, so an abandoned decode ends on its own soon after.
func decodeWithin(ctx context.Context, data []byte, format string) (image.Image, error) {
	type result struct {
		img image.Image
		err error
	}
	ch := make(chan result, 1)
	go func() {
		defer func() {
			if r := recover(); r != nil {
				ch <- result{err: fmt.Errorf("decoder panic: %v", r)}
			}
		}()
		var img image.Image
		var err error
		if format == "gif" {
			img, err = gif.Decode(bytes.NewReader(data)) // the first frame
		} else {
			img, _, err = image.Decode(bytes.NewReader(data))
		}
		ch <- result{img, err}
	}()
	t := time.NewTimer(decodeTimeout)
	defer t.Stop()
	select {
	case r := <-ch:
		if r.err != nil {
			return nil, bad("could not be decoded: the file is damaged or truncated")
		}
		return r.img, nil
	case <-t.C:
		return nil, bad("took longer than the %s decode limit", decodeTimeout)
	case <-ctx.Done():
		return nil, ctx.Err()
	}
}

// decodeTimeout is DecodeTimeout; tests shorten it to see the refusal.
var decodeTimeout = DecodeTimeout

// preshrink scales a large image down with a fast filter to twice what
// the largest variant needs, so the good filter of each variant works on a
// few hundred thousand pixels, not 24 million.
func preshrink(img image.Image, specs []variantSpec) image.Image {
	b := img.Bounds()
	need := 0.0 // the largest scale any variant is drawn at
	for _, s := range specs {
		side := max(b.Dx(), b.Dy())
		switch {
		case s.Square:
			side = min(b.Dx(), b.Dy())
		case s.JPEG:
			side = b.Dx()
		}
		need = max(need, float64(s.Box)/float64(side))
	}
	scale := 2 * need
	if scale >= 1 {
		return img
	}
	w, h := max(1, int(float64(b.Dx())*scale)), max(1, int(float64(b.Dy())*scale))
	dst := image.NewRGBA(image.Rect(0, 0, w, h))
	draw.ApproxBiLinear.Scale(dst, dst.Bounds(), img, b, draw.Src, nil)
	return dst
}

// hashOf is the image's content address: the uploaded bytes and the kind
// (which fixes the variants), so the same file uploaded twice is stored once.
func hashOf(kind Kind, data []byte) string {
	h := sha256.New()
	h.Write([]byte(kind))
	h.Write([]byte{0})
	h.Write(data)
	return hex.EncodeToString(h.Sum(nil))[:40]
}

// encodeVariant scales img into the spec's box (never up) and encodes it.
func encodeVariant(img image.Image, s variantSpec) (Variant, image.Image, error) {
	src := img.Bounds()
	if s.Square {
		src = squareCentre(src)
	}
	w, h := fit(src.Dx(), src.Dy(), s)
	dst := image.NewRGBA(image.Rect(0, 0, w, h))
	if s.JPEG { // JPEG has no alpha: flatten onto white
		draw.Draw(dst, dst.Bounds(), image.NewUniform(color.White), image.Point{}, draw.Src)
	}
	if src.Dx() == w && src.Dy() == h {
		draw.Draw(dst, dst.Bounds(), img, src.Min, draw.Over) // same size: a copy, not a resample
	} else {
		draw.CatmullRom.Scale(dst, dst.Bounds(), img, src, draw.Over, nil)
	}
	var buf bytes.Buffer
	v := Variant{Name: s.Name, Width: w, Height: h}
	if s.JPEG {
		v.ContentType = "image/jpeg"
		if err := jpeg.Encode(&buf, dst, &jpeg.Options{Quality: jpegQuality}); err != nil {
			return v, nil, err
		}
	} else {
		v.ContentType = "image/png"
		enc := png.Encoder{CompressionLevel: png.DefaultCompression}
		if err := enc.Encode(&buf, dst); err != nil {
			return v, nil, err
		}
	}
	v.Bytes = buf.Bytes()
	return v, dst, nil
}

// fit is the variant's size: within Box×Box, keeping the aspect ratio,
// never larger than the source.
func fit(w, h int, s variantSpec) (int, int) {
	scale := min(1, float64(s.Box)/float64(max(w, h)))
	if !s.Square && s.JPEG { // screenshots: Box is the width
		scale = min(1, float64(s.Box)/float64(w))
	}
	return max(1, int(float64(w)*scale+0.5)), max(1, int(float64(h)*scale+0.5))
}

func squareCentre(r image.Rectangle) image.Rectangle {
	side := min(r.Dx(), r.Dy())
	x := r.Min.X + (r.Dx()-side)/2
	y := r.Min.Y + (r.Dy()-side)/2
	return image.Rect(x, y, x+side, y+side)
}

// knownMagic reports a file that starts like a PNG, JPEG, GIF or WebP.
func knownMagic(b []byte) bool {
	return bytes.HasPrefix(b, []byte("\x89PNG")) || bytes.HasPrefix(b, []byte{0xFF, 0xD8, 0xFF}) ||
		bytes.HasPrefix(b, []byte("GIF8")) || (len(b) >= 12 && string(b[:4]) == "RIFF" && string(b[8:12]) == "WEBP")
}
