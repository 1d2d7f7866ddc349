package owning

import "testing"

func TestHasBacklink(t *testing.T) {
	base := "https://dir.example"
	for html, want := range map[string]bool{
		`<a href="https://dir.example/listings/acme">`:             true,
		`<a href="http://dir.example/listings/acme?ref=badge">`:    true,
		`<img src="//dir.example/badges/acme.svg?shape=pill">`:     true,
		`<a href='https://dir.example/listings/acme'>`:             true,
		`<a href="https://dir.example/listings/acme-analytics">`:   false,
		`<a href="https://dir.example/badges/acme-analytics.svg">`: false,
		`<a href="https://other.example/listings/acme">`:           false,
		`no link here`: false,
		`<a href="https://dir.example/listings/acmex"> and /listings/acme`: false,
	} {
		if got := hasBacklink(html, base, "acme"); got != want {
			t.Errorf("hasBacklink(%s) = %v, want %v", html, got, want)
		}
	}
}
