package kernel

import (
	"testing"
	"time"
)

func TestHumanDates(t *testing.T) {
	week := "2026-11-16"
	for _, c := range []struct {
		in   any
		want string
	}{
		{time.Date(2026, 11, 18, 23, 30, 0, 0, time.FixedZone("x", 3600)), "18 Nov 2026"},
		{"2026-11-18T12:00:00Z", "18 Nov 2026"},
		{week, "16 Nov 2026"},
		{&week, "16 Nov 2026"},
		{(*string)(nil), ""},
		{nil, ""},
		{"soon", "soon"},
	} {
		if got := HumanDate(c.in); got != c.want {
			t.Errorf("HumanDate(%v) = %q, want %q", c.in, got, c.want)
		}
	}
	if got := HumanTime("2026-11-18T12:05:00+02:00"); got != "18 Nov 2026, 10:05 UTC" {
		t.Errorf("HumanTime: %q", got)
	}
	if got := HumanTime("not a time"); got != "not a time" {
		t.Errorf("HumanTime of text: %q", got)
	}
}
