package crawl

import (
	"slices"
	"testing"
)

func TestIconURLs(t *testing.T) {
	p := Page{URL: "https://acme.example/en/", HTML: []byte(`<html><head>
<link rel="icon" href="/favicon.ico"><link rel="icon" type="image/svg+xml" href="/icon.svg">
<link rel="icon" sizes="192x192" href="icons/192.png"><link rel="apple-touch-icon" href="/touch.png">
<link rel="apple-touch-icon" href="javascript:alert(1)"><link rel="stylesheet" href="/site.css"></head></html>`)}
	want := []string{"https://acme.example/touch.png", "https://acme.example/en/icons/192.png", "https://acme.example/apple-touch-icon.png"}
	if got := IconURLs(p); !slices.Equal(got, want) {
		t.Errorf("got %v, want %v", got, want)
	}
	if got := IconURLs(Page{URL: "https://x.example/"}); !slices.Equal(got, []string{"https://x.example/apple-touch-icon.png"}) {
		t.Errorf("no HTML: %v", got)
	}
}
