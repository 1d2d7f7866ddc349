package commerce

import (
	"testing"
)

func TestAllocateDiscount(t *testing.T) {
	all := []bool{true, true, true}
	cases := []struct {
		name string
		p    PromoCode
		nets []int64
		elig []bool
		want []int64
	}{
		{"percent half up", PromoCode{Kind: "percent", Value: 15}, []int64{4900, 3900, 1}, all, []int64{735, 585, 0}},
		{"percent 100", PromoCode{Kind: "percent", Value: 100}, []int64{4900, 3900, 1}, all, []int64{4900, 3900, 1}},
		{"fixed split with remainders", PromoCode{Kind: "fixed", Value: 100}, []int64{100, 100, 100}, all, []int64{34, 33, 33}},
		{"fixed capped at net", PromoCode{Kind: "fixed", Value: 100000}, []int64{4900, 3900, 1}, all, []int64{4900, 3900, 1}},
		{"fixed only eligible", PromoCode{Kind: "fixed", Value: 500}, []int64{4900, 3900, 100}, []bool{true, false, true}, []int64{490, 0, 10}},
	}
	for _, c := range cases {
		got := allocateDiscount(&c.p, c.nets, c.elig)
		var sum, wantSum int64
		for i := range got {
			sum += got[i]
			wantSum += c.want[i]
			if got[i] != c.want[i] {
				t.Errorf("%s: %v, want %v", c.name, got, c.want)
				break
			}
		}
		if sum != wantSum {
			t.Errorf("%s: total %d, want %d", c.name, sum, wantSum)
		}
	}
}
