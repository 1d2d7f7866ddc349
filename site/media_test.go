package site_test

import (
	"bytes"
	"image/png"
	"net/http"
	"regexp"
	"strings"
	"testing"
	"time"

	"launchdir/apitest"
	"launchdir/testsite"
)

// postImage sends an image form of the founder area (multipart, with the
// person's CSRF token from tokenPage).
func (p *person) postImage(path, tokenPage string, fields map[string]string, file []byte) page {
	p.e.T.Helper()
	if fields == nil {
		fields = map[string]string{}
	}
	fields["csrf"] = p.csrf(tokenPage)
	ctype, body := multipartForm(p.e.T.(*testing.T), fields, string(file))
	return p.do("POST", path, ctype, body)
}

var shotIDs = regexp.MustCompile(`action="/me/listings/1/screenshots/(\d+)"`)

// A founder sets the logo, adds, reorders and removes screenshots and sets
// a founder's picture from the listing page; another founder cannot.
func TestFounderImageForms(t *testing.T) {
	e := newAreaEnv(t)
	owner, other := e.as(1), e.as(2)
	mustExec(t, e, `DELETE FROM media WHERE listing_id = 1`)
	pg := owner.postImage("/me/listings/1/logo", "/me/listings/1", nil, apitest.PNG(200, 200))
	if pg.status != 303 || pg.loc != "/me/listings/1?done=logo" {
		t.Fatalf("logo: %d %s", pg.status, pg.body)
	}
	if pg := owner.get("/listings/quickbase"); !strings.Contains(pg.body, `<img class="logo big" src="/media/`) {
		t.Errorf("the public page lacks the logo")
	}
	// A refusal names the limit on the page, which keeps the forms.
	pg = owner.postImage("/me/listings/1/logo", "/me/listings/1", nil, apitest.BombPNG(1, 100000))
	if pg.status != 400 || !strings.Contains(pg.body, "the limit is 8192 pixels") || !strings.Contains(pg.body, "Upload logo") {
		t.Errorf("refused logo: %d", pg.status)
	}
	for i, caption := range []string{"First", "Second", "Third"} {
		pg := owner.postImage("/me/listings/1/screenshots", "/me/listings/1", map[string]string{"caption": caption}, apitest.PNG(400+i, 250))
		if pg.status != 303 {
			t.Fatalf("screenshot %s: %d %s", caption, pg.status, pg.body)
		}
	}
	ids := shotIDs.FindAllStringSubmatch(owner.get("/me/listings/1").body, -1)
	if len(ids) != 3 {
		t.Fatalf("listing page shows %d screenshots", len(ids))
	}
	// Move the third earlier, remove the first.
	if pg := owner.postImage("/me/listings/1/screenshots/"+ids[2][1], "/me/listings/1", map[string]string{"do": "up"}, nil); pg.status != 303 {
		t.Fatalf("move: %d %s", pg.status, pg.body)
	}
	if pg := owner.postImage("/me/listings/1/screenshots/"+ids[0][1], "/me/listings/1", map[string]string{"do": "remove"}, nil); pg.status != 303 {
		t.Fatalf("remove: %d %s", pg.status, pg.body)
	}
	var captions []string
	rows, _ := e.DB.R.Query(`SELECT caption FROM media WHERE listing_id = 1 ORDER BY position, id`)
	for rows.Next() {
		var c string
		rows.Scan(&c)
		captions = append(captions, c)
	}
	rows.Close()
	if strings.Join(captions, ",") != "Third,Second" {
		t.Errorf("gallery order %v, want Third,Second", captions)
	}
	if pg := owner.postImage("/me/listings/1/founders/ada-lovelace/avatar", "/me/listings/1", nil, apitest.JPEG(300, 300)); pg.status != 303 {
		t.Fatalf("avatar: %d %s", pg.status, pg.body)
	}
	if pg := owner.get("/listings/quickbase"); !strings.Contains(pg.body, `<img class="avatar" src="/media/`) || !strings.Contains(pg.body, `class="gallery"`) {
		t.Errorf("the public page lacks the avatar or the gallery")
	}
	// Another founder: 404 on every image form of listing 1.
	for _, path := range []string{"/me/listings/1/logo", "/me/listings/1/screenshots", "/me/listings/1/screenshots/" + ids[1][1], "/me/listings/1/founders/ada-lovelace/avatar"} {
		if pg := other.postImage(path, "/me/keys", map[string]string{"do": "remove"}, apitest.PNG(20, 20)); pg.status != 404 {
			t.Errorf("other founder %s: %d", path, pg.status)
		}
	}
}

// The site team sets the favicon and the site logo; the defaults are drawn
// from the site's name; /favicon.ico is an icon with inert headers.
func TestSiteIdentityImages(t *testing.T) {
	e := newAreaEnv(t)
	anon := e.as(0)
	def := anon.get("/favicon.ico")
	if def.status != 200 || def.header.Get("Content-Type") != "image/x-icon" || !strings.HasPrefix(def.body, "\x00\x00\x01\x00") ||
		def.header.Get("X-Content-Type-Options") != "nosniff" || !strings.HasPrefix(def.header.Get("Content-Security-Policy"), "sandbox") {
		t.Fatalf("default favicon: %d %v", def.status, def.header)
	}
	if pg := anon.get("/"); !strings.Contains(pg.body, `<link rel="icon" href="/favicon.ico"`) {
		t.Error("pages lack the favicon link")
	}
	admin := e.as(e.admin)
	pg := admin.postImage("/admin/settings/images", "/admin/settings", map[string]string{"which": "favicon"}, apitest.PNG(64, 64))
	if pg.status != 303 {
		t.Fatalf("favicon upload: %d %s", pg.status, pg.body)
	}
	if up := anon.get("/favicon.ico"); up.body == def.body {
		t.Error("the favicon did not change")
	}
	pg = admin.postImage("/admin/settings/images", "/admin/settings", map[string]string{"which": "site_logo"}, apitest.PNG(120, 60))
	if pg.status != 303 {
		t.Fatalf("site logo upload: %d %s", pg.status, pg.body)
	}
	if pg := anon.get("/categories"); !regexp.MustCompile(`class="brand" href="/"><img src="/media/[0-9a-f]{40}-64.png"`).MatchString(pg.body) {
		t.Error("the header lacks the site logo")
	}
	if pg := admin.postImage("/admin/settings/images", "/admin/settings", map[string]string{"which": "favicon"}, []byte("<svg onload=alert(1)>")); pg.status != 400 || !strings.Contains(pg.body, "SVG") {
		t.Errorf("SVG favicon: %d", pg.status)
	}
	if pg := admin.postImage("/admin/settings/images", "/admin/settings", map[string]string{"which": "favicon", "do": "reset"}, nil); pg.status != 303 {
		t.Fatalf("reset: %d", pg.status)
	}
	if again := anon.get("/favicon.ico"); again.body != def.body {
		t.Error("reset did not bring the drawn favicon back")
	}
	if pg := e.as(1).postImage("/admin/settings/images", "/me/keys", map[string]string{"which": "favicon"}, apitest.PNG(64, 64)); pg.status != 404 {
		t.Errorf("a founder sets the favicon: %d", pg.status)
	}
}

var ogImage = regexp.MustCompile(`<meta property="og:image" content="([^"]+)">`)

// Listing, week, category and home pages carry a 1200×630 og:image whose
// URL changes when what the card shows changes.
func TestSocialCards(t *testing.T) {
	e := newAreaEnv(t)
	anon := e.as(0)
	for _, p := range []string{"/", "/listings/quickbase", "/launches/this", "/categories/databases"} {
		pg := anon.get(p)
		m := ogImage.FindStringSubmatch(pg.body)
		if m == nil || !strings.Contains(pg.body, `<meta name="twitter:card" content="summary_large_image">`) {
			t.Errorf("%s: no og:image or large card", p)
			continue
		}
		card := anon.get(strings.TrimPrefix(strings.ReplaceAll(m[1], "&amp;", "&"), e.URL))
		cfg, err := png.DecodeConfig(bytes.NewReader([]byte(card.body)))
		if card.status != 200 || err != nil || cfg.Width != 1200 || cfg.Height != 630 || card.header.Get("Content-Type") != "image/png" {
			t.Errorf("%s card: %d %v %dx%d", p, card.status, err, cfg.Width, cfg.Height)
		}
	}
	before := ogImage.FindStringSubmatch(anon.get("/listings/quickbase").body)[1]
	mustExec(t, e, `UPDATE listings SET tagline = 'A new tagline' WHERE id = 1`)
	if after := ogImage.FindStringSubmatch(anon.get("/listings/quickbase").body)[1]; after == before {
		t.Error("the card's URL did not change with the tagline")
	}
	for _, p := range []string{"/og/listing/no-such.png", "/og/nope/home.png", "/og/home/x.png", "/og/listing/quickbase.gif"} {
		if pg := anon.get(p); pg.status != 404 {
			t.Errorf("%s: %d", p, pg.status)
		}
	}
}

// The draft page shows the drafter's logo with where it was found, and
// lets the founder remove or replace it.
func TestDraftPageLogo(t *testing.T) {
	e := newAreaEnvWith(t, apitest.Options{Fixture: true, Background: true})
	site := testsite.Serve(t, "cartelier", nil)
	site.Overrides["/images/cartelier-logo.png"] = func(w http.ResponseWriter, r *http.Request) { w.Write(apitest.PNG(180, 180)) }
	key := apitest.Bearer(e.APIKey("owner@example.com"))
	id, _ := e.Do("POST", "/api/v1/drafts", map[string]any{"url": site.URL + "/"}, key...).JSON()["id"].(string)
	deadline := time.Now().Add(20 * time.Second)
	for e.Do("GET", "/api/v1/drafts/"+id, nil, key...).JSON()["status"] != "ready" {
		if time.Now().After(deadline) {
			t.Fatal("draft not ready")
		}
		time.Sleep(50 * time.Millisecond)
	}
	owner := e.as(1)
	pg := owner.get("/me/drafts/" + id)
	if !strings.Contains(pg.body, `<img class="logo big" src="/media/`) || !strings.Contains(pg.body, "Found at") || !strings.Contains(pg.body, "/images/cartelier-logo.png") {
		t.Fatalf("draft page lacks the logo and its source: %d", pg.status)
	}
	if pg := owner.postImage("/me/drafts/"+id+"/logo", "/me/drafts/"+id, map[string]string{"do": "remove"}, nil); pg.status != 303 {
		t.Fatalf("remove: %d %s", pg.status, pg.body)
	}
	if pg := owner.get("/me/drafts/" + id); !strings.Contains(pg.body, "No logo was found") {
		t.Error("the removed logo is still shown")
	}
	if pg := owner.postImage("/me/drafts/"+id+"/logo", "/me/drafts/"+id, nil, apitest.PNG(64, 64)); pg.status != 303 {
		t.Fatalf("replace: %d %s", pg.status, pg.body)
	}
	if got := e.Do("GET", "/api/v1/drafts/"+id, nil, key...).JSON()["logo"].(map[string]any); got["source"] != nil || !strings.Contains(got["url"].(string), "/media/") {
		t.Errorf("uploaded draft logo: %v", got)
	}
	if pg := e.as(2).postImage("/me/drafts/"+id+"/logo", "/me/keys", map[string]string{"do": "remove"}, nil); pg.status != 404 {
		t.Errorf("another founder: %d", pg.status)
	}
}
