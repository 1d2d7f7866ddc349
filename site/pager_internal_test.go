package site

import (
	"net/http/httptest"
	"testing"
)

// An estimated total (total_is_estimate: "10,000 or more") is a lower
// bound: the pager offers the next page while pages come back full, up to
// the API's last page (1000); an exact total ends the pages where it says.
func TestPagerEstimatedTotal(t *testing.T) {
	r := httptest.NewRequest("GET", "/founders?page=417", nil)
	for _, c := range []struct {
		name            string
		page, total     int
		estimate, full  bool
		wantPages, next int
	}{
		{"exact, last page", 417, 10000, false, true, 417, 0},
		{"exact, one before", 416, 10000, false, true, 417, 417},
		{"estimate, full last counted page", 417, 10000, true, true, 418, 418},
		{"estimate, past the count", 500, 10000, true, true, 501, 501},
		{"estimate, page not full: the end", 500, 10000, true, false, 500, 0},
		{"estimate, early page", 2, 10000, true, true, 417, 3},
		{"estimate, the API's last page", 1000, 10000, true, true, 1000, 0},
	} {
		p := newPager(r, c.page, 24, c.total)
		p.Estimate, p.Full = c.estimate, c.full
		if p.Pages() != c.wantPages || p.Next() != c.next {
			t.Errorf("%s: pages %d next %d, want %d and %d", c.name, p.Pages(), p.Next(), c.wantPages, c.next)
		}
		if w := pageWindow(p); len(w) == 0 {
			t.Errorf("%s: empty page window", c.name)
		}
	}
}
