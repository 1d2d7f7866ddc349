package site

import (
	"strings"
	"testing"
	"time"
)

func TestPeopleNumbers(t *testing.T) {
	for _, c := range []struct {
		got, want string
	}{
		{countOf(1, "vote", "votes"), "1 vote"},
		{countOf(int64(0), "vote", "votes"), "0 votes"},
		{countOf(2, "follower", "followers"), "2 followers"},
		{countOf(int64(1204), "follower", "followers"), "1,204 followers"},
		{money(int64(7098300)), "$70,983.00"},
		{money(int64(5)), "$0.05"},
		{centsText(7098300), "70,983.00"},
		{centsText(-1999), "-19.99"},
		{centsText(0), "0.00"},
		{humanDuration(24 * time.Hour), "24 hours"},
		{humanDuration(72 * time.Hour), "3 days"},
		{humanDuration(time.Hour), "1 hour"},
		{platformLabel("linkedin") + "|" + platformLabel("github") + "|" + platformLabel("producthunt") + "|" + platformLabel("zzz"), "LinkedIn|GitHub|Product Hunt|zzz"},
	} {
		if c.got != c.want {
			t.Errorf("%q, want %q", c.got, c.want)
		}
	}
}

func TestRevisionTextDiff(t *testing.T) {
	show := func(ls []diffLine) string {
		var b []string
		for _, l := range ls {
			b = append(b, map[string]string{"same": " ", "del": "-", "ins": "+"}[l.Kind]+l.Text)
		}
		return strings.Join(b, "|")
	}
	for _, c := range []struct{ before, after, want string }{
		{`"One.\r\nTwo.\r\nThree."`, `"One.\nTwo, changed.\nThree."`, " One.|-Two.|+Two, changed.| Three."},
		{`["a","b"]`, `["a","c","b"]`, " a|+c| b"},
		{``, `"new"`, "+new"},
		{`{"x":"1"}`, ``, "-x: 1"},
		{`"same"`, `"same"`, " same"},
		{`12`, `13`, "-12|+13"},
	} {
		if got := show(textDiff(c.before, c.after)); got != c.want {
			t.Errorf("%s → %s: %q, want %q", c.before, c.after, got, c.want)
		}
	}
	long := "[" + strings.Repeat(`"x",`, maxDiffLines) + `"x"]`
	if n := len(textDiff(long, `"y"`)); n != maxDiffLines+2 {
		t.Errorf("long value: %d lines", n)
	}
}

func TestGroupedFigures(t *testing.T) {
	for v, want := range map[int64]string{0: "0", 7: "7", 999: "999", 1000: "1,000", -1000: "-1,000", 70983: "70,983",
		1234567: "1,234,567", -12: "-12", -999999: "-999,999", 100000: "100,000"} {
		if got := grouped(v); got != want {
			t.Errorf("grouped(%d) = %q, want %q", v, got, want)
		}
	}
	if got := countOf(int64(1), "vote", "votes"); got != "1 vote" {
		t.Errorf("countOf 1 = %q", got)
	}
	if got := countOf(12345, "vote", "votes"); got != "12,345 votes" {
		t.Errorf("countOf 12345 = %q", got)
	}
	if got := money(float64(7098300)); got != "$70,983.00" {
		t.Errorf("money = %q", got)
	}
	if got := money(int64(-1999)); got != "$-19.99" {
		t.Errorf("money negative = %q", got)
	}
}
