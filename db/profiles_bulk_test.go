package db

import "testing"

// A backlog is assembled as a range only when it has enough ids and they
// cover most of their range; at each edge and one past it.
func TestDenseIDs(t *testing.T) {
	seq := func(n int, step int64) []int64 {
		out := make([]int64, n)
		for i := range out {
			out[i] = 100 + int64(i)*step
		}
		return out
	}
	for _, c := range []struct {
		ids  []int64
		want bool
	}{
		{seq(15, 1), false},                // too few
		{seq(16, 1), true},                 // enough, contiguous
		{append(seq(15, 1), 100+31), true}, // span 31 < 2 × 16
		{append(seq(15, 1), 100+32), false},
		{seq(500, 2), true}, // every other listing: span 998 < 1000
		{seq(500, 3), false},
	} {
		if got := denseIDs(c.ids); got != c.want {
			t.Errorf("%d ids spanning %d: dense %v, want %v", len(c.ids), c.ids[len(c.ids)-1]-c.ids[0], got, c.want)
		}
	}
}
