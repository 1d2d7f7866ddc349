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

// demoLogo is a letter on a shape: the shape (rounded square, circle or
// squircle) and colour come from the slug.
func demoLogo(name, slug string) image.Image {
	return lmedia.LetterTile(lmedia.Initial(name), slug, demoLogoSize)
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
