package site_test

import (
	"net/url"
	"strings"
	"testing"
)

// The free launch of a listing that already launched is refused on the
// listing's own page with the reason, not a 404.
func TestFreeLaunchOfLaunchedListing(t *testing.T) {
	e := newAreaEnv(t)
	owner := e.as(1)
	pg := owner.post("/me/listings/1/free", "/me/listings/1", url.Values{})
	if pg.status != 400 || !strings.Contains(pg.body, "already") {
		t.Fatalf("free launch of a launched listing: %d %.400s", pg.status, pg.body)
	}
}
