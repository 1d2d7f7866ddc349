package site

import "testing"

// humanDate must read optional (*string) dates of typed responses, never
// print a pointer.
func TestHumanDate(t *testing.T) {
	week := "2026-12-07"
	var none *string
	for _, c := range []struct {
		in   any
		want string
	}{{&week, "7 Dec 2026"}, {week, "7 Dec 2026"}, {none, ""}, {nil, ""}, {"2026-11-18T12:00:00Z", "18 Nov 2026"}} {
		if got := humanDate(c.in); got != c.want {
			t.Errorf("humanDate(%#v) = %q, want %q", c.in, got, c.want)
		}
	}
}
