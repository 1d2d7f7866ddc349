package demo

import (
	"testing"
	"time"
)

// Every listing of the demo has a stored logo, every founder a picture,
// every unlocked gallery its screenshots; the images are the same on every
// run (content addresses from names), and drawing them stays cheap.
func TestDemoImages(t *testing.T) {
	d := generated(t, 7)
	if n := count(t, d, `SELECT count(*) FROM listings WHERE logo_url NOT LIKE 'http://localhost:8080/media/%-256.png'`); n != 0 {
		t.Errorf("%d listings without a stored logo", n)
	}
	if n := count(t, d, `SELECT count(*) FROM listings l WHERE NOT EXISTS (SELECT 1 FROM media_variants v
		WHERE v.hash = substr(l.logo_url, length('http://localhost:8080/media/') + 1, 40) AND v.variant = '64')`); n != 0 {
		t.Errorf("%d logos without their 64 px variant", n)
	}
	if n := count(t, d, `SELECT count(*) FROM founders WHERE avatar_url NOT LIKE 'http://localhost:8080/media/%-128.jpg'`); n != 0 {
		t.Errorf("%d founders without a picture", n)
	}
	if n := count(t, d, `SELECT count(*) FROM media WHERE kind = 'image' AND url NOT LIKE 'http://localhost:8080/media/%-1600.jpg'`); n != 0 {
		t.Errorf("%d gallery images not stored here", n)
	}
	if n := count(t, d, `SELECT count(*) FROM media WHERE kind = 'image'`); n == 0 {
		t.Error("no gallery images")
	}
	again := generated(t, 7)
	a := strs(t, d, `SELECT hash || variant || hex(substr(bytes, 1, 64)) || length(bytes) FROM media_variants ORDER BY hash, variant`)
	b := strs(t, again, `SELECT hash || variant || hex(substr(bytes, 1, 64)) || length(bytes) FROM media_variants ORDER BY hash, variant`)
	if len(a) == 0 || len(a) != len(b) || a[0] != b[0] || a[len(a)-1] != b[len(b)-1] {
		t.Errorf("images differ between runs: %d and %d variants", len(a), len(b))
	}

	g := newGen(1, testNow, DefaultListings)
	ls := g.demoListings(DefaultListings)
	start := time.Now()
	imgs := drawImages(ls, g.pendingFounders)
	t.Logf("drew %d images (%d listings, %d founders, %d screenshots) in %s", len(imgs.all), len(ls), len(g.pendingFounders), demoShotPool, time.Since(start))
}
