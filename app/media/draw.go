package media

import (
	"bytes"
	"hash/fnv"
	"image"
	"image/color"
	"image/png"
	"strings"
	"sync"
	"unicode"

	"golang.org/x/image/draw"
	"golang.org/x/image/font"
	"golang.org/x/image/font/gofont/gobold"
	"golang.org/x/image/font/gofont/goregular"
	"golang.org/x/image/font/opentype"
	"golang.org/x/image/math/fixed"
)

// Drawing in Go: the letter tiles that stand in for a missing logo or
// favicon, and the text of social cards. The Go fonts ship inside
// golang.org/x/image, so no font file is read at run time.

var (
	fontsOnce       sync.Once
	boldTTF, regTTF *opentype.Font
	faceMu          sync.Mutex
	faces           = map[faceKey]font.Face{}
)

type faceKey struct {
	bold bool
	size float64
}

func loadFonts() {
	boldTTF, _ = opentype.Parse(gobold.TTF)
	regTTF, _ = opentype.Parse(goregular.TTF)
}

// face returns a cached font face (faces are not safe for concurrent use,
// so callers hold faceMu while drawing with one).
func face(bold bool, size float64) font.Face {
	fontsOnce.Do(loadFonts)
	k := faceKey{bold, size}
	if f, ok := faces[k]; ok {
		return f
	}
	src := regTTF
	if bold {
		src = boldTTF
	}
	f, _ := opentype.NewFace(src, &opentype.FaceOptions{Size: size, DPI: 72, Hinting: font.HintingFull})
	faces[k] = f
	return f
}

// Palette is the site's colours, shared with site.css.
var (
	Accent = color.RGBA{0x0a, 0x58, 0xca, 0xff}
	Ink    = color.RGBA{0x1d, 0x1d, 0x1f, 0xff}
	Muted  = color.RGBA{0x59, 0x59, 0x59, 0xff}
	Paper  = color.RGBA{0xf6, 0xf6, 0xf8, 0xff}
)

// SeedColor is a pleasant, readable-on-white colour picked from seed.
func SeedColor(seed string) color.RGBA {
	h := fnv.New32a()
	h.Write([]byte(seed))
	return hsl(float64(h.Sum32()%360), 0.55, 0.42)
}

func hsl(h, s, l float64) color.RGBA {
	c := (1 - abs(2*l-1)) * s
	x := c * (1 - abs(mod(h/60, 2)-1))
	m := l - c/2
	var r, g, b float64
	switch {
	case h < 60:
		r, g, b = c, x, 0
	case h < 120:
		r, g, b = x, c, 0
	case h < 180:
		r, g, b = 0, c, x
	case h < 240:
		r, g, b = 0, x, c
	case h < 300:
		r, g, b = x, 0, c
	default:
		r, g, b = c, 0, x
	}
	return color.RGBA{uint8((r + m) * 255), uint8((g + m) * 255), uint8((b + m) * 255), 255}
}

func abs(f float64) float64 {
	if f < 0 {
		return -f
	}
	return f
}

func mod(a, b float64) float64 { return a - b*float64(int(a/b)) }

// Initial is the first letter or digit of name, upper-cased ("?" if none).
func Initial(name string) string {
	for _, r := range name {
		if unicode.IsLetter(r) || unicode.IsDigit(r) {
			return strings.ToUpper(string(r))
		}
	}
	return "?"
}

// LetterTile draws text (one or two letters) on a rounded square of the
// seed's colour: the default favicon and site logo, and the demo's logos.
func LetterTile(text, seed string, size int) *image.NRGBA {
	img := image.NewNRGBA(image.Rect(0, 0, size, size))
	fillRounded(img, img.Bounds(), size/6, SeedColor(seed))
	faceMu.Lock()
	defer faceMu.Unlock()
	f := face(true, float64(size)*0.55)
	centreText(img, f, text, img.Bounds(), color.White)
	return img
}

// fillRounded fills r with c, corners rounded by radius.
func fillRounded(img draw.Image, r image.Rectangle, radius int, c color.Color) {
	src := image.NewUniform(c)
	// The straight middle band in one call, then the corner rows a span at
	// a time.
	draw.Draw(img, image.Rect(r.Min.X, r.Min.Y+radius, r.Max.X, r.Max.Y-radius), src, image.Point{}, draw.Src)
	for y := 0; y < radius; y++ {
		dy := radius - y
		dx := 0 // the corner's edge on this row, from the side
		for (radius-dx)*(radius-dx)+dy*dy > radius*radius {
			dx++
		}
		left, right := r.Min.X+dx, r.Max.X-dx
		draw.Draw(img, image.Rect(left, r.Min.Y+y, right, r.Min.Y+y+1), src, image.Point{}, draw.Src)
		draw.Draw(img, image.Rect(left, r.Max.Y-1-y, right, r.Max.Y-y), src, image.Point{}, draw.Src)
	}
}

// centreText draws one line centred in r.
func centreText(img draw.Image, f font.Face, text string, r image.Rectangle, c color.Color) {
	d := &font.Drawer{Dst: img, Src: image.NewUniform(c), Face: f}
	w := d.MeasureString(text).Ceil()
	m := f.Metrics()
	asc, desc := m.Ascent.Ceil(), m.Descent.Ceil()
	x := r.Min.X + (r.Dx()-w)/2
	y := r.Min.Y + (r.Dy()+asc-desc)/2
	d.Dot = fixed.P(x, y)
	d.DrawString(text)
}

// drawLines wraps text to width and draws at most maxLines lines from
// (x, y) (baseline of the first line), ending a cut line with "…". It
// returns the baseline after the last line drawn.
func drawLines(img draw.Image, f font.Face, text string, x, y, width, maxLines int, lineHeight int, c color.Color) int {
	d := &font.Drawer{Dst: img, Src: image.NewUniform(c), Face: f}
	lines := wrap(d, text, width)
	for i, line := range lines {
		if i == maxLines {
			break
		}
		if i == maxLines-1 && len(lines) > maxLines {
			line = ellipsis(d, line, width)
		}
		d.Dot = fixed.P(x, y)
		d.DrawString(line)
		y += lineHeight
	}
	return y
}

func wrap(d *font.Drawer, text string, width int) []string {
	var lines []string
	cur := ""
	for _, w := range strings.Fields(text) {
		next := strings.TrimSpace(cur + " " + w)
		if cur != "" && d.MeasureString(next).Ceil() > width {
			lines = append(lines, cur)
			cur = w
			continue
		}
		cur = next
	}
	if cur != "" {
		lines = append(lines, cur)
	}
	return lines
}

func ellipsis(d *font.Drawer, line string, width int) string {
	r := []rune(line)
	for len(r) > 0 && d.MeasureString(string(r)+" …").Ceil() > width {
		r = r[:len(r)-1]
	}
	return strings.TrimSpace(string(r)) + "…"
}

// EncodePNG encodes img (best compression: drawn images are flat colour).
func EncodePNG(img image.Image) []byte {
	var buf bytes.Buffer
	enc := png.Encoder{CompressionLevel: png.DefaultCompression}
	enc.Encode(&buf, img)
	return buf.Bytes()
}

func measure(f font.Face, s string) int { return (&font.Drawer{Face: f}).MeasureString(s).Ceil() }

// DrawCentred draws one line of bold text of size centred on img.
func DrawCentred(img draw.Image, text string, size float64, c color.Color) {
	faceMu.Lock()
	defer faceMu.Unlock()
	centreText(img, face(true, size), text, img.Bounds(), c)
}
