package vat

import "testing"

func TestVATRounding(t *testing.T) {
	for _, c := range []struct {
		taxable int64
		bp      int
		want    int64
	}{{4900, 1900, 931}, {4900, 2550, 1250}, {1, 1900, 0}, {3, 1900, 1}, {0, 2700, 0}, {100000000, 2700, 27000000}} {
		if got := Amount(c.taxable, c.bp); got != c.want {
			t.Errorf("Amount(%d, %d) = %d, want %d", c.taxable, c.bp, got, c.want)
		}
	}
	for bp, want := range map[int]string{1900: "19", 2550: "25.5", 0: "0", 1750: "17.5", 2125: "21.25"} {
		if got := FormatRate(bp); got != want {
			t.Errorf("FormatRate(%d) = %q, want %q", bp, got, want)
		}
	}
	if len(isoCountrySet) != 249 {
		t.Errorf("ISO 3166-1 alpha-2 list has %d codes, want 249", len(isoCountrySet))
	}
}
