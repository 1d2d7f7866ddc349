package routes_test

import (
	"bytes"
	"encoding/base64"
	"fmt"
	"mime/multipart"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"

	"launchdir/apitest"
	"launchdir/app"
	"launchdir/app/kernel"
	"launchdir/app/media"
)

// newMediaEnv is the owner environment with the test crawler fetching
// image URLs (SSRF guard off for the local image server).
func newMediaEnv(t *testing.T) *ownerEnv {
	e := newOwnerEnv(t)
	e.App.SetExternals(kernel.Externals{Fetcher: e.web, Resolver: e.dns, Images: apitest.TestCrawler()})
	return e
}

// upload sends a multipart/form-data request with the file part and extra
// fields.
func upload(e *ownerEnv, method, path, filename string, file []byte, fields ...string) *apitest.Response {
	var buf bytes.Buffer
	mw := multipart.NewWriter(&buf)
	fw, _ := mw.CreateFormFile("file", filename)
	fw.Write(file)
	for i := 0; i+1 < len(fields); i += 2 {
		mw.WriteField(fields[i], fields[i+1])
	}
	mw.Close()
	return e.Do(method, "/api/v1"+path, buf.Bytes(), append(append([]string{}, e.owner...), "Content-Type", mw.FormDataContentType())...)
}

func b64(b []byte) string { return base64.StdEncoding.EncodeToString(b) }

func TestLogoUploadAndServe(t *testing.T) {
	e := newMediaEnv(t)
	// A PNG named .jpg: the content decides.
	r := upload(e, "PUT", "/me/listings/1/logo", "logo.jpg", apitest.PNG(300, 300))
	if r.Status != 200 {
		t.Fatalf("upload: %d %s", r.Status, r.Body)
	}
	logo := r.JSON()["logo_url"].(string)
	if !strings.HasPrefix(logo, e.URL+"/media/") || !strings.HasSuffix(logo, "-256.png") {
		t.Fatalf("logo_url %s", logo)
	}
	// The public listing and its summaries carry it.
	var slug string
	e.DB.R.QueryRow(`SELECT slug FROM listings WHERE id = 1`).Scan(&slug)
	if p := e.Do("GET", "/api/v1/listings/"+slug, nil); !strings.Contains(string(p.Body), logo) {
		t.Errorf("public listing lacks the logo: %.300s", p.Body)
	}
	// Served from our origin with the headers that make it inert.
	g := e.Do("GET", strings.TrimPrefix(logo, e.URL), nil)
	h := g.Header
	for k, want := range map[string]string{"Content-Type": "image/png", "X-Content-Type-Options": "nosniff",
		"Cache-Control": "public, max-age=31536000, immutable"} {
		if h.Get(k) != want {
			t.Errorf("%s: %q, want %q", k, h.Get(k), want)
		}
	}
	if !strings.HasPrefix(h.Get("Content-Security-Policy"), "sandbox") || h.Get("ETag") == "" || g.Status != 200 {
		t.Errorf("status %d CSP %q ETag %q", g.Status, h.Get("Content-Security-Policy"), h.Get("ETag"))
	}
	if !bytes.HasPrefix(g.Body, []byte("\x89PNG")) {
		t.Errorf("body is not a PNG")
	}
	if nm := e.Do("GET", strings.TrimPrefix(logo, e.URL), nil, "If-None-Match", h.Get("ETag")); nm.Status != 304 {
		t.Errorf("If-None-Match: %d", nm.Status)
	}
	// Wrong extension or unknown variant: 404.
	for _, p := range []string{strings.Replace(strings.TrimPrefix(logo, e.URL), ".png", ".jpg", 1),
		strings.Replace(strings.TrimPrefix(logo, e.URL), "-256.png", "-999.png", 1), "/media/../etc/passwd", "/media/x.svg"} {
		if r := e.Do("GET", p, nil); r.Status != 404 {
			t.Errorf("%s: %d", p, r.Status)
		}
	}
	if d := e.Do("DELETE", "/api/v1/me/listings/1/logo", nil, e.owner...); d.Status != 200 || d.JSON()["logo_url"] != "" {
		t.Errorf("delete: %d %s", d.Status, d.Body)
	}
}

// The byte limit through REST at its edge and one past, as multipart and
// as base64; the refusal names the limit.
func TestUploadByteLimit(t *testing.T) {
	e := newMediaEnv(t)
	at, past := apitest.PaddedPNG(media.MaxBytes), apitest.PaddedPNG(media.MaxBytes+1)
	if r := upload(e, "PUT", "/me/listings/1/logo", "a.png", at); r.Status != 200 {
		t.Errorf("multipart at 5 MiB: %d %.300s", r.Status, r.Body)
	}
	r := upload(e, "PUT", "/me/listings/1/logo", "a.png", past)
	if r.Status != 400 || !strings.Contains(string(r.Body), "the limit is 5242880 bytes") || !strings.Contains(string(r.Body), `"field":"image"`) {
		t.Errorf("multipart 5 MiB + 1: %d %.300s", r.Status, r.Body)
	}
	if r := e.Do("PUT", "/api/v1/me/listings/1/logo", map[string]any{"image_base64": b64(at)}, e.owner...); r.Status != 200 {
		t.Errorf("base64 at 5 MiB: %d %.300s", r.Status, r.Body)
	}
	if r := e.Do("PUT", "/api/v1/me/listings/1/logo", map[string]any{"image_base64": b64(past)}, e.owner...); r.Status != 400 || !strings.Contains(string(r.Body), "the limit is 5242880 bytes") {
		t.Errorf("base64 5 MiB + 1: %d %.300s", r.Status, r.Body)
	}
	// Far past: the body cap answers 413 before anything is decoded.
	if r := upload(e, "PUT", "/me/listings/1/logo", "a.png", make([]byte, 9<<20)); r.Status != 413 {
		t.Errorf("9 MiB: %d %.200s", r.Status, r.Body)
	}
}

// Hostile files through the door: each a 400 naming why.
func TestUploadHostileFiles(t *testing.T) {
	e := newMediaEnv(t)
	for _, c := range []struct {
		name, file string
		data       []byte
		want       string
	}{
		{"svg with script", "logo.svg", []byte(`<svg xmlns="http://www.w3.org/2000/svg"><script>alert(1)</script></svg>`), "SVG"},
		{"html as png", "logo.png", []byte(`<html><script>alert(1)</script>`), "markup"},
		{"polyglot", "logo.png", append(apitest.PNG(40, 40), "<script>alert(1)</script>"...), "markup"},
		{"bomb", "logo.png", apitest.BombPNG(60000, 60000), "the limit is 8192 pixels"},
		{"1x100000", "logo.png", apitest.BombPNG(1, 100000), "the limit is 8192 pixels"},
		{"truncated", "logo.png", apitest.PNG(100, 100)[:200], "damaged or truncated"},
		{"not an image", "logo.gif", []byte("GIF? no, a text file"), "not a PNG, JPEG, GIF or WebP"},
	} {
		r := upload(e, "PUT", "/me/listings/1/logo", c.file, c.data)
		if r.Status != 400 || !strings.Contains(string(r.Body), c.want) {
			t.Errorf("%s: %d %.300s", c.name, r.Status, r.Body)
		}
	}
	// Bad input shapes.
	for _, c := range []struct {
		body any
		want string
	}{
		{map[string]any{}, "give the image"},
		{map[string]any{"image_base64": "!!!"}, "not valid base64"},
		{map[string]any{"image_base64": b64(apitest.PNG(20, 20)), "image_url": "https://example.com/a.png"}, "not both"},
		{map[string]any{"image_url": "ftp://example.com/a.png"}, "image_url"},
	} {
		r := e.Do("PUT", "/api/v1/me/listings/1/logo", c.body, e.owner...)
		if r.Status != 400 || !strings.Contains(string(r.Body), c.want) {
			t.Errorf("%v: %d %.300s", c.body, r.Status, r.Body)
		}
	}
	if r := upload(e, "PUT", "/me/listings/1/logo", "a.png", apitest.PNG(20, 20), "colour", "red"); r.Status != 400 || !strings.Contains(string(r.Body), "unknown form field") {
		t.Errorf("unknown form field: %d %s", r.Status, r.Body)
	}
}

func TestGalleryAddReorderDeleteAndLimit(t *testing.T) {
	e := newMediaEnv(t)
	e.DB.W.Exec(`DELETE FROM media WHERE listing_id = 1`) // the fixture's external image
	var ids []float64
	for i := range media.MaxScreenshots {
		r := e.Do("POST", "/api/v1/me/listings/1/screenshots", map[string]any{"image_base64": b64(apitest.PNG(640+i, 400)), "caption": fmt.Sprintf("Screen %d", i)}, e.owner...)
		if r.Status != 201 {
			t.Fatalf("screenshot %d: %d %s", i, r.Status, r.Body)
		}
		shots := r.JSON()["screenshots"].([]any)
		ids = append(ids, shots[len(shots)-1].(map[string]any)["id"].(float64))
	}
	// The ninth is refused: the gallery holds 8.
	r := e.Do("POST", "/api/v1/me/listings/1/screenshots", map[string]any{"image_base64": b64(apitest.PNG(700, 400))}, e.owner...)
	if r.Status != 409 || !strings.Contains(string(r.Body), "at most 8 screenshots") {
		t.Errorf("ninth: %d %s", r.Status, r.Body)
	}
	// Reverse the order.
	rev := []any{}
	for i := len(ids) - 1; i >= 0; i-- {
		rev = append(rev, ids[i])
	}
	r = e.Do("PUT", "/api/v1/me/listings/1/screenshots", map[string]any{"ids": rev}, e.owner...)
	if r.Status != 200 || r.JSON()["screenshots"].([]any)[0].(map[string]any)["caption"] != "Screen 7" {
		t.Fatalf("reorder: %d %.300s", r.Status, r.Body)
	}
	for _, bad := range [][]any{rev[:3], append(rev[:7:7], rev[0]), append(append([]any{}, rev[:7]...), 99999)} {
		if r := e.Do("PUT", "/api/v1/me/listings/1/screenshots", map[string]any{"ids": bad}, e.owner...); r.Status != 400 {
			t.Errorf("reorder %v: %d %s", bad, r.Status, r.Body)
		}
	}
	// Without the media section a listing shows its first screenshot;
	// unlocked, the whole gallery.
	var slug string
	e.DB.R.QueryRow(`SELECT slug FROM listings WHERE id = 1`).Scan(&slug)
	for unlocked, want := range []int{1, media.MaxScreenshots} {
		e.DB.W.Exec(`UPDATE listings SET unlock_media = ? WHERE id = 1`, unlocked)
		pub := e.Do("GET", "/api/v1/listings/"+slug, nil)
		if n := strings.Count(string(pub.Body), "/media/"); n != want || !strings.Contains(string(pub.Body), "Screen 7") {
			t.Errorf("unlocked %d: public listing shows %d images, want %d", unlocked, n, want)
		}
	}
	r = e.Do("DELETE", fmt.Sprintf("/api/v1/me/listings/1/screenshots/%d", int(ids[0])), nil, e.owner...)
	if r.Status != 200 || len(r.JSON()["screenshots"].([]any)) != 7 {
		t.Errorf("delete: %d %.200s", r.Status, r.Body)
	}
	if r := e.Do("DELETE", fmt.Sprintf("/api/v1/me/listings/1/screenshots/%d", int(ids[0])), nil, e.owner...); r.Status != 404 {
		t.Errorf("delete again: %d", r.Status)
	}
}

// The gallery limit holds under 30 parallel uploads.
func TestGalleryLimitConcurrent(t *testing.T) {
	e := newMediaEnv(t)
	e.DB.W.Exec(`DELETE FROM media WHERE listing_id = 1`)
	body := map[string]any{"image_base64": b64(apitest.PNG(64, 64))}
	var wg sync.WaitGroup
	var mu sync.Mutex
	codes := map[int]int{}
	for range 30 {
		wg.Go(func() {
			r := e.Do("POST", "/api/v1/me/listings/1/screenshots", body, e.owner...)
			mu.Lock()
			codes[r.Status]++
			mu.Unlock()
		})
	}
	wg.Wait()
	var n int
	e.DB.R.QueryRow(`SELECT count(*) FROM media WHERE listing_id = 1 AND kind = 'image'`).Scan(&n)
	if n != media.MaxScreenshots || codes[201] != media.MaxScreenshots || codes[409] != 30-media.MaxScreenshots {
		t.Errorf("stored %d, answers %v", n, codes)
	}
}

func TestImageOperationsOwnership(t *testing.T) {
	e := newMediaEnv(t)
	png := b64(apitest.PNG(40, 40))
	for _, id := range []string{"2", "999"} {
		for _, c := range []struct {
			method, path string
			body         any
		}{
			{"PUT", "/me/listings/" + id + "/logo", map[string]any{"image_base64": png}},
			{"DELETE", "/me/listings/" + id + "/logo", nil},
			{"POST", "/me/listings/" + id + "/screenshots", map[string]any{"image_base64": png}},
			{"PUT", "/me/listings/" + id + "/screenshots", map[string]any{"ids": []any{1}}},
			{"DELETE", "/me/listings/" + id + "/screenshots/1", nil},
			{"PUT", "/me/listings/" + id + "/founders/bob-builder/avatar", map[string]any{"image_base64": png}},
		} {
			if r := e.Do(c.method, "/api/v1"+c.path, c.body, e.owner...); r.Status != 404 {
				t.Errorf("%s %s: %d %s", c.method, c.path, r.Status, r.Body)
			}
		}
	}
	// Another listing's founder is not found on mine.
	if r := e.Do("PUT", "/api/v1/me/listings/1/founders/bob-builder/avatar", map[string]any{"image_base64": png}, e.owner...); r.Status != 404 || !strings.Contains(string(r.Body), "founder_slug") {
		t.Errorf("other founder: %d %s", r.Status, r.Body)
	}
	r := e.Do("PUT", "/api/v1/me/listings/1/founders/ada-lovelace/avatar", map[string]any{"image_base64": b64(apitest.JPEG(300, 200))}, e.owner...)
	if r.Status != 200 || !strings.HasSuffix(r.JSON()["avatar_url"].(string), "-128.jpg") {
		t.Fatalf("avatar: %d %s", r.Status, r.Body)
	}
	var slug string
	e.DB.R.QueryRow(`SELECT slug FROM listings WHERE id = 1`).Scan(&slug)
	if p := e.Do("GET", "/api/v1/listings/"+slug, nil); !strings.Contains(string(p.Body), `"avatar_url":"`+r.JSON()["avatar_url"].(string)) {
		t.Errorf("founder avatar not on the listing: %.400s", p.Body)
	}
}

// image_url goes through the crawler: a local server's image is fetched;
// an oversized body is refused with the limit.
func TestImageFromURL(t *testing.T) {
	e := newMediaEnv(t)
	img := apitest.PNG(120, 120)
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		switch r.URL.Path {
		case "/robots.txt":
			http.NotFound(w, r)
		case "/big.png":
			w.Write(apitest.PaddedPNG(media.MaxBytes + 1))
		default:
			w.Header().Set("Content-Type", "text/html") // a lying type changes nothing
			w.Write(img)
		}
	}))
	defer srv.Close()
	r := e.Do("PUT", "/api/v1/me/listings/1/logo", map[string]any{"image_url": srv.URL + "/logo.png"}, e.owner...)
	if r.Status != 200 {
		t.Fatalf("by URL: %d %s", r.Status, r.Body)
	}
	var src string
	e.DB.R.QueryRow(`SELECT source_url FROM media_images WHERE kind = 'logo'`).Scan(&src)
	if src != srv.URL+"/logo.png" {
		t.Errorf("source %q", src)
	}
	if r := e.Do("PUT", "/api/v1/me/listings/1/logo", map[string]any{"image_url": srv.URL + "/big.png"}, e.owner...); r.Status != 400 || !strings.Contains(string(r.Body), "5242880") {
		t.Errorf("big by URL: %d %s", r.Status, r.Body)
	}
}

// Without a configured fetcher (the offline default) a URL is refused
// plainly.
func TestImageURLOffline(t *testing.T) {
	e := apitest.New(t, apitest.Options{Fixture: true, Setup: func(a *app.App) { a.SetExternals(kernel.Externals{}) }})
	key := apitest.Bearer(e.APIKey("owner@example.com"))
	r := e.Do("PUT", "/api/v1/me/listings/1/logo", map[string]any{"image_url": "https://example.com/logo.png"}, key...)
	if r.Status != 400 || !strings.Contains(string(r.Body), "no web fetcher configured") {
		t.Errorf("offline: %d %s", r.Status, r.Body)
	}
}
