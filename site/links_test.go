package site_test

import (
	"regexp"
	"testing"
)

// TestListingLinksResolve: every listing link on the pages that mix live and
// upcoming launches answers 200 (scheduled listings have no public page, so
// their cards must not link to one), and a changed site name reaches the
// pages.
func TestListingLinksResolve(t *testing.T) {
	e := newEnv(t)
	link := regexp.MustCompile(`href="(/listings/[a-z0-9-]+)"`)
	checked := 0
	for _, p := range []string{"/", "/launches/next", "/search?status=upcoming"} {
		r := e.Do("GET", p, nil)
		if r.Status != 200 {
			t.Fatalf("%s: %d", p, r.Status)
		}
		for _, m := range link.FindAllStringSubmatch(string(r.Body), -1) {
			if got := e.Do("GET", m[1], nil); got.Status != 200 {
				t.Errorf("%s links %s, which answers %d", p, m[1], got.Status)
			}
			checked++
		}
	}
	if checked == 0 {
		t.Fatal("no listing links found")
	}
	if _, err := e.App.DB.W.Exec(`INSERT INTO settings(key, value) VALUES ('site_name', 'Acme Launches')
		ON CONFLICT(key) DO UPDATE SET value = excluded.value`); err != nil {
		t.Fatal(err)
	}
	if r := e.Do("GET", "/blog", nil); !regexp.MustCompile(`<title>[^<]*Acme Launches`).Match(r.Body) {
		t.Fatalf("site name setting not on the page: %.300s", r.Body)
	}
}

// Page numbers outside the API's bounds are a 400 page naming the field.
func TestPageParamBounds(t *testing.T) {
	e := newEnv(t)
	slug := firstSlug(t, e, "/api/v1/listings")
	for _, c := range []struct {
		q    string
		want int
	}{{"", 200}, {"?page=1", 200}, {"?page=1000", 200}, {"?page=0", 400}, {"?page=1001", 400}, {"?page=abc", 400}} {
		if r := e.Do("GET", "/listings/"+slug+"/reviews"+c.q, nil); r.Status != c.want {
			t.Errorf("reviews%s: %d, want %d", c.q, r.Status, c.want)
		}
	}
}
