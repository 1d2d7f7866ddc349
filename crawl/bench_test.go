package crawl

import (
	"testing"
)

// BenchmarkBuiltinDrafter drafts every fixture site from pages crawled once
// up front, so only extraction is measured.
func BenchmarkBuiltinDrafter(b *testing.B) {
	var results []*Result
	pages := 0
	for _, name := range []string{"acme-analytics", "pixelnote", "tasklane", "latin1shop", "shadyseo", "hopper"} {
		res, _ := crawlSite(b, name)
		results = append(results, res)
		pages += len(res.Pages)
	}
	d := NewBuiltinDrafter()
	b.ReportAllocs()
	b.ResetTimer()
	for b.Loop() {
		for _, res := range results {
			if _, err := d.Draft(b.Context(), res, testCategories); err != nil {
				b.Fatal(err)
			}
		}
	}
	b.ReportMetric(float64(pages*b.N)/b.Elapsed().Seconds(), "pages/s")
}

// BenchmarkGuard measures checking a drafted profile against its pages.
func BenchmarkGuard(b *testing.B) {
	res, _ := crawlSite(b, "acme-analytics")
	p, err := NewBuiltinDrafter().Draft(b.Context(), res, testCategories)
	if err != nil {
		b.Fatal(err)
	}
	b.ReportAllocs()
	for b.Loop() {
		Guard(p, res)
	}
}
