package media_test

import (
	"bytes"
	"context"
	"image"
	"image/png"
	"strings"
	"testing"
	"time"

	"launchdir/apitest"
	"launchdir/app/media"
	"launchdir/ops"
)

// refused asserts that Process refuses data with a 400 on the image field
// whose message contains want.
func refused(t *testing.T, name string, data []byte, kind media.Kind, want string) {
	t.Helper()
	_, err := media.Process(context.Background(), data, kind)
	if err == nil {
		t.Errorf("%s: accepted", name)
		return
	}
	e := ops.AsError(err)
	if e.Code != ops.CodeInvalid || len(e.Fields) != 1 || e.Fields[0].Field != "image" || !strings.Contains(e.Fields[0].Message, want) {
		t.Errorf("%s: %v %v, want a 400 on image containing %q", name, e.Code, e.Fields, want)
	}
}

func accepted(t *testing.T, name string, data []byte, kind media.Kind) *media.Processed {
	t.Helper()
	p, err := media.Process(context.Background(), data, kind)
	if err != nil {
		t.Fatalf("%s: refused: %v", name, err)
	}
	return p
}

// Every limit at its edge and one past it.
func TestLimits(t *testing.T) {
	accepted(t, "exactly 5 MiB", apitest.PaddedPNG(media.MaxBytes), media.KindLogo)
	refused(t, "5 MiB + 1 byte", apitest.PaddedPNG(media.MaxBytes+1), media.KindLogo, "the limit is 5242880 bytes")
	refused(t, "empty", nil, media.KindLogo, "is empty")

	accepted(t, "8192 wide", apitest.GrayPNG(media.MaxSide, 16), media.KindScreenshot)
	refused(t, "8193 wide", apitest.GrayPNG(media.MaxSide+1, 16), media.KindScreenshot, "the limit is 8192 pixels on either side")
	accepted(t, "8192 high", apitest.GrayPNG(16, media.MaxSide), media.KindLogo)
	refused(t, "8193 high", apitest.GrayPNG(16, media.MaxSide+1), media.KindLogo, "the limit is 8192 pixels on either side")

	accepted(t, "16×16", apitest.PNG(media.MinSide, media.MinSide), media.KindLogo)
	refused(t, "15×16", apitest.PNG(media.MinSide-1, media.MinSide), media.KindLogo, "the minimum is 16 pixels")
	refused(t, "16×15", apitest.PNG(media.MinSide, media.MinSide-1), media.KindLogo, "the minimum is 16 pixels")

	// 4000×6000 is exactly 24 megapixels; 4000×6001 is one row past.
	start := time.Now()
	p := accepted(t, "24 megapixels", apitest.GrayPNG(4000, 6000), media.KindScreenshot)
	t.Logf("24 MP screenshot processed in %s", time.Since(start))
	if p.Variants[2].Width != 1600 || p.Variants[2].Height != 2400 {
		t.Errorf("1600 variant is %d×%d", p.Variants[2].Width, p.Variants[2].Height)
	}
	refused(t, "24 megapixels + 1 row", apitest.BombPNG(4000, 6001), media.KindScreenshot, "the limit is 24000000 pixels")
}

func TestDecodeTimeout(t *testing.T) {
	defer media.SetDecodeTimeout(time.Nanosecond)()
	refused(t, "slow decode", apitest.PNG(1500, 1500), media.KindLogo, "decode limit")
}

// Hostile files: each is refused with a reason, before or instead of being
// served.
func TestHostileFiles(t *testing.T) {
	svg := []byte(`<svg xmlns="http://www.w3.org/2000/svg" onload="alert(1)"><script>alert(document.domain)</script></svg>`)
	refused(t, "SVG with script", svg, media.KindLogo, "SVG or other markup")
	refused(t, "SVG after a BOM and blank lines", append([]byte("\xef\xbb\xbf\n\n"), svg...), media.KindLogo, "SVG or other markup")
	refused(t, "HTML named logo.png", []byte("<!doctype html><script>alert(1)</script>"), media.KindLogo, "SVG or other markup")

	pngScript := append(apitest.PNG(32, 32), []byte("<script>alert(1)</script>")...)
	refused(t, "PNG + script polyglot", pngScript, media.KindLogo, "markup (<script)")
	zip := append(apitest.PNG(32, 32), append([]byte("PK\x03\x04"), make([]byte, 200)...)...)
	refused(t, "PNG + zip polyglot", zip, media.KindLogo, "data after the end of the image")
	jpg := apitest.JPEG(32, 32)
	comment := []byte("<html><body onload=alert(1)>")
	jpgHTML := append(append([]byte{}, jpg[:2]...), 0xFF, 0xFE, 0, byte(len(comment)+2))
	jpgHTML = append(append(jpgHTML, comment...), jpg[2:]...)
	refused(t, "JPEG with HTML in a comment", jpgHTML, media.KindLogo, "markup")

	start := time.Now()
	refused(t, "decompression bomb 100000×100000", apitest.BombPNG(100000, 100000), media.KindLogo, "the limit is 8192 pixels")
	refused(t, "bomb within the sides (8000×8000)", apitest.BombPNG(8000, 8000), media.KindLogo, "the limit is 24000000 pixels")
	if d := time.Since(start); d > time.Second {
		t.Errorf("bombs took %s: the header check should refuse them at once", d)
	}
	refused(t, "1×100000", apitest.BombPNG(1, 100000), media.KindScreenshot, "the limit is 8192 pixels on either side")
	full := apitest.PNG(200, 200)
	refused(t, "truncated PNG", full[:len(full)/2], media.KindLogo, "damaged or truncated")
	refused(t, "truncated JPEG", jpg[:len(jpg)/2], media.KindLogo, "damaged or truncated")
	refused(t, "text named logo.jpg", []byte("just some text, not an image"), media.KindLogo, "not a PNG, JPEG, GIF or WebP")
}

// Re-encoding strips what the file carried besides pixels: a text chunk
// (metadata) is gone from every variant, which decode as the right size.
func TestReencodeStripsMetadata(t *testing.T) {
	base := apitest.PNG(300, 150)
	withText := append(append(append([]byte{}, base[:33]...), apitest.Chunk("tEXt", []byte("Author\x00secret-gps-51.5,-0.1"))...), base[33:]...)
	p := accepted(t, "PNG with metadata", withText, media.KindLogo)
	want := map[string][2]int{"64": {64, 32}, "128": {128, 64}, "256": {256, 128}}
	for _, v := range p.Variants {
		if bytes.Contains(v.Bytes, []byte("secret-gps")) {
			t.Errorf("variant %s kept the metadata", v.Name)
		}
		img, err := png.Decode(bytes.NewReader(v.Bytes))
		if err != nil {
			t.Fatalf("variant %s: %v", v.Name, err)
		}
		if got := img.Bounds().Size(); got != (image.Point{want[v.Name][0], want[v.Name][1]}) || v.Width != got.X {
			t.Errorf("variant %s is %v, want %v", v.Name, got, want[v.Name])
		}
	}
	// The same file is the same content address; another kind is another.
	if q := accepted(t, "again", withText, media.KindLogo); q.Hash != p.Hash {
		t.Errorf("hash changed: %s %s", p.Hash, q.Hash)
	}
	if q := accepted(t, "as avatar", withText, media.KindAvatar); q.Hash == p.Hash {
		t.Errorf("avatar and logo share a hash")
	}
}

// Social cards are 1200×630 PNGs.
func TestSocialCardSize(t *testing.T) {
	e := apitest.New(t, apitest.Options{})
	b, err := e.App.Media.SocialCard(context.Background(), media.Card{Kicker: "#1 of the week · Launched on 16 Nov 2026",
		Title: "A product with a rather long name that wraps", Subtitle: strings.Repeat("A tagline that goes on. ", 10), Site: "Test", Seed: "x"})
	if err != nil {
		t.Fatal(err)
	}
	cfg, err := png.DecodeConfig(bytes.NewReader(b))
	if err != nil || cfg.Width != 1200 || cfg.Height != 630 {
		t.Fatalf("card %v %d×%d", err, cfg.Width, cfg.Height)
	}
}
