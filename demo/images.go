package demo

import (
	"hash/fnv"
	"image"
	"image/color"
	"runtime"
	"strconv"
	"sync"
	"time"

	lmedia "launchdir/app/media"

	"golang.org/x/image/draw"
	"golang.org/x/image/vector"
)

// The demo's images (issue 21), drawn in Go from each listing's and
// founder's seed, so `go run .` shows a directory with logos on every card,
// galleries and founders' pictures. They are stored like uploads (content
// addressed, re-encoded variants) and written in the demo's transaction.
//
// Cost is kept small because the demo fills on first serve: logos are
// drawn at 128 px (the largest variant a card or page asks for at 1x/2x is
// 128 and 256: the 256 variant is then the 128 drawing, never upscaled),
// avatars at 128, and the galleries share a pool of six screenshots drawn
// at 960×600 instead of one per listing.

const (
	demoLogoSize   = 128
	demoAvatarSize = 128
	demoShotW      = 960
	demoShotH      = 600
	demoShotPool   = 6
)

// demoImages holds the processed images and where they go.
type demoImages struct {
	logos   map[int64]*lmedia.Processed // listing id → logo
	avatars map[int64]*lmedia.Processed // founder id → avatar
	shots   []*lmedia.Processed
	all     []*lmedia.Processed
}

// drawImages draws and processes every demo image on all cores. Drawing
// depends only on names and slugs, so the result is the same every run.
func drawImages(ls []*listing, founders []*founder) *demoImages {
	out := &demoImages{logos: map[int64]*lmedia.Processed{}, avatars: map[int64]*lmedia.Processed{},
		shots: make([]*lmedia.Processed, demoShotPool)}
	type job struct {
		run func() *lmedia.Processed
		put func(*lmedia.Processed)
	}
	var jobs []job
	for _, l := range ls {
		jobs = append(jobs, job{func() *lmedia.Processed { return mustProcess(demoLogo(l.Name, l.Slug), lmedia.KindLogo, l.Slug) },
			func(p *lmedia.Processed) { out.logos[l.ID] = p }})
	}
	for _, f := range founders {
		jobs = append(jobs, job{func() *lmedia.Processed { return mustProcess(demoAvatar(f.Name, f.Slug), lmedia.KindAvatar, f.Slug) },
			func(p *lmedia.Processed) { out.avatars[f.ID] = p }})
	}
	for i := range demoShotPool {
		jobs = append(jobs, job{func() *lmedia.Processed {
			return mustProcess(demoScreenshot(i), lmedia.KindScreenshot, "shot"+strconv.Itoa(i))
		},
			func(p *lmedia.Processed) { out.shots[i] = p }})
	}
	results := make([]*lmedia.Processed, len(jobs))
	var wg sync.WaitGroup
	next := make(chan int)
	for range runtime.GOMAXPROCS(0) {
		wg.Go(func() {
			for i := range next {
				results[i] = jobs[i].run()
			}
		})
	}
	for i := range jobs {
		next <- i
	}
	close(next)
	wg.Wait()
	seen := map[string]bool{}
	for i, p := range results {
		jobs[i].put(p)
		if !seen[p.Hash] {
			seen[p.Hash] = true
			out.all = append(out.all, p)
		}
	}
	return out
}

func mustProcess(img image.Image, kind lmedia.Kind, key string) *lmedia.Processed {
	p, err := lmedia.ProcessImage(img, kind, []byte(key))
	if err != nil {
		panic("demo image " + key + ": " + err.Error()) // drawn images always encode
	}
	return p
}

func seedOf(s string) uint32 {
	h := fnv.New32a()
	h.Write([]byte(s))
	return h.Sum32()
}

// demoLogo is a small geometric mark in the slug's colours: one of six
// motifs (disc with the initial, overlapping discs, peak, stacked bars,
// diamond with the initial, ring) on a light tile, so the cards look like
// a directory of different products rather than a column of letters.
func demoLogo(name, slug string) image.Image {
	const n = demoLogoSize
	img := image.NewRGBA(image.Rect(0, 0, n, n))
	c1 := lmedia.SeedColor(slug)
	c2 := lmedia.SeedColor(slug + "second")
	bg := color.RGBA{uint8(235 + int(c1.R)/17), uint8(235 + int(c1.G)/17), uint8(235 + int(c1.B)/17), 255}
	draw.Draw(img, img.Bounds(), image.NewUniform(bg), image.Point{}, draw.Src)
	f := float32(n)
	shape := func(c color.Color, path func(z *vector.Rasterizer)) {
		z := vector.NewRasterizer(n, n)
		path(z)
		z.Draw(img, img.Bounds(), image.NewUniform(c), image.Point{})
	}
	letter := func() { lmedia.DrawCentred(img, lmedia.Initial(name), float64(n)*0.42, color.White) }
	switch seedOf(slug) % 6 {
	case 0:
		shape(c1, func(z *vector.Rasterizer) { disc(z, f/2, f/2, f*0.36) })
		letter()
	case 1:
		shape(c1, func(z *vector.Rasterizer) { disc(z, f*0.4, f/2, f*0.26) })
		shape(color.RGBA{c2.R, c2.G, c2.B, 200}, func(z *vector.Rasterizer) { disc(z, f*0.6, f/2, f*0.26) })
	case 2:
		shape(c1, func(z *vector.Rasterizer) {
			z.MoveTo(f*0.5, f*0.2)
			z.LineTo(f*0.84, f*0.78)
			z.LineTo(f*0.16, f*0.78)
			z.ClosePath()
		})
		shape(c2, func(z *vector.Rasterizer) {
			z.MoveTo(f*0.66, f*0.46)
			z.LineTo(f*0.84, f*0.78)
			z.LineTo(f*0.48, f*0.78)
			z.ClosePath()
		})
	case 3:
		for i, w := range []float32{0.64, 0.5, 0.36} {
			c := c1
			if i == 1 {
				c = c2
			}
			y := f * (0.26 + float32(i)*0.18)
			shape(c, func(z *vector.Rasterizer) { rect(z, f*0.18, y, f*w, f*0.12) })
		}
	case 4:
		shape(c1, func(z *vector.Rasterizer) {
			z.MoveTo(f*0.5, f*0.12)
			z.LineTo(f*0.88, f*0.5)
			z.LineTo(f*0.5, f*0.88)
			z.LineTo(f*0.12, f*0.5)
			z.ClosePath()
		})
		letter()
	default:
		shape(c1, func(z *vector.Rasterizer) { disc(z, f/2, f/2, f*0.36) })
		shape(bg, func(z *vector.Rasterizer) { disc(z, f/2, f/2, f*0.2) })
		shape(c2, func(z *vector.Rasterizer) { disc(z, f/2, f/2, f*0.1) })
	}
	return img
}

// disc adds a circle to z (four cubic arcs).
func disc(z *vector.Rasterizer, cx, cy, r float32) {
	k := r * 0.5523
	z.MoveTo(cx+r, cy)
	z.CubeTo(cx+r, cy+k, cx+k, cy+r, cx, cy+r)
	z.CubeTo(cx-k, cy+r, cx-r, cy+k, cx-r, cy)
	z.CubeTo(cx-r, cy-k, cx-k, cy-r, cx, cy-r)
	z.CubeTo(cx+k, cy-r, cx+r, cy-k, cx+r, cy)
	z.ClosePath()
}

func rect(z *vector.Rasterizer, x, y, w, h float32) {
	z.MoveTo(x, y)
	z.LineTo(x+w, y)
	z.LineTo(x+w, y+h)
	z.LineTo(x, y+h)
	z.ClosePath()
}

// demoAvatar is the founder's initials on a circle.
func demoAvatar(name, slug string) image.Image {
	img := image.NewRGBA(image.Rect(0, 0, demoAvatarSize, demoAvatarSize))
	bg := lmedia.SeedColor(slug + "avatar")
	draw.Draw(img, img.Bounds(), image.NewUniform(bg), image.Point{}, draw.Src)
	lmedia.DrawCentred(img, initials(name), float64(demoAvatarSize)*0.4, color.White)
	return img
}

func initials(name string) string {
	out := ""
	start := true
	for _, r := range name {
		if r == ' ' || r == '-' {
			start = true
			continue
		}
		if start && len([]rune(out)) < 2 {
			out += string(r)
		}
		start = false
	}
	return out
}

// demoScreenshot is a plain app window: a title bar, a sidebar, cards and
// a bar chart, in one of six colour schemes.
func demoScreenshot(i int) image.Image {
	img := image.NewRGBA(image.Rect(0, 0, demoShotW, demoShotH))
	accent := lmedia.SeedColor("screenshot" + strconv.Itoa(i))
	fill := func(r image.Rectangle, c color.Color) {
		draw.Draw(img, r, image.NewUniform(c), image.Point{}, draw.Src)
	}
	fill(img.Bounds(), color.RGBA{0xf3, 0xf4, 0xf7, 0xff})
	fill(image.Rect(0, 0, demoShotW, 44), accent)
	fill(image.Rect(0, 44, 200, demoShotH), color.RGBA{0xe4, 0xe7, 0xee, 0xff})
	for k := range 6 {
		fill(image.Rect(24, 80+k*44, 170, 100+k*44), color.RGBA{0xc9, 0xcf, 0xdb, 0xff})
	}
	for k := range 3 {
		x := 230 + k*240
		fill(image.Rect(x, 80, x+210, 180), color.White)
		fill(image.Rect(x+20, 100, x+120, 116), color.RGBA{0xc9, 0xcf, 0xdb, 0xff})
		fill(image.Rect(x+20, 130, x+90, 160), accent)
	}
	fill(image.Rect(230, 210, 930, 560), color.White)
	s := seedOf("bars" + strconv.Itoa(i))
	for k := range 12 {
		h := 40 + int((s>>(k%24))%240)
		x := 260 + k*55
		fill(image.Rect(x, 530-h, x+34, 530), accent)
	}
	return img
}

// attach points the listings' logos, galleries and the founders' avatars at
// the drawn images.
func (d *demoImages) attach(base string, ls []*listing, founders []*founder) {
	for _, l := range ls {
		p := d.logos[l.ID]
		l.LogoURL = base + lmedia.Path(p.Hash, "256", "png")
		n := 0
		for i := range l.Media {
			if l.Media[i].Kind == "image" {
				s := d.shots[(int(seedOf(l.Slug))+n)%demoShotPool]
				l.Media[i].URL = base + lmedia.Path(s.Hash, "1600", "jpg")
				n++
			}
		}
	}
	for _, f := range founders {
		f.AvatarURL = base + lmedia.Path(d.avatars[f.ID].Hash, "128", "jpg")
	}
}

// write inserts every image and its variants.
func (d *demoImages) write(w *writer, now time.Time) {
	for _, p := range d.all {
		w.insert("media_images", p.Hash, string(p.Kind), p.Width, p.Height, "", "", stamp(now))
	}
	for _, p := range d.all {
		for _, v := range p.Variants {
			w.insert("media_variants", p.Hash, v.Name, v.ContentType, v.Width, v.Height, v.Bytes)
		}
	}
}
