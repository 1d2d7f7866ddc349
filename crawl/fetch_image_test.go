package crawl

import (
	"bytes"
	"net/http"
	"net/http/httptest"
	"net/netip"
	"strings"
	"testing"
	"time"
)

// Image URLs (owners' and the drafter's) go through the same guard as pages.
func TestFetchImageGuard(t *testing.T) {
	png := []byte("\x89PNG\r\n\x1a\nnot really")
	inner := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { w.Write(png) }))
	defer inner.Close()
	outer := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		switch r.URL.Path {
		case "/robots.txt":
			http.NotFound(w, r)
		case "/logo.png":
			w.Write(png)
		case "/big.png":
			w.Write(bytes.Repeat([]byte{1}, 2000))
		default:
			http.Redirect(w, r, inner.URL+"/logo.png", http.StatusFound)
		}
	}))
	defer outer.Close()
	outerAddr := netip.MustParseAddrPort(strings.TrimPrefix(outer.URL, "http://"))
	guarded := New(Options{Timeout: 2 * time.Second, allowAddr: func(ap netip.AddrPort) bool { return ap == outerAddr }})

	// A loopback (private) address is refused outright.
	if _, err := guarded.FetchImage(t.Context(), inner.URL+"/logo.png", 1000); err == nil {
		t.Fatal("loopback image was fetched")
	} else {
		wantKind(t, err, "blocked_address")
	}
	// A public-looking host that redirects to a private address: refused at
	// the redirect's dial.
	if _, err := guarded.FetchImage(t.Context(), outer.URL+"/redirect.png", 1000); err == nil {
		t.Fatal("redirect to loopback was followed")
	} else {
		wantKind(t, err, "blocked_address")
	}
	// The allowed host's image is fetched; more than the limit is refused,
	// not cut.
	if b, err := guarded.FetchImage(t.Context(), outer.URL+"/logo.png", 1000); err != nil || !bytes.Equal(b, png) {
		t.Fatalf("allowed image: %v %q", err, b)
	}
	if _, err := guarded.FetchImage(t.Context(), outer.URL+"/big.png", 1000); err == nil || !strings.Contains(err.Error(), "larger than 1000 bytes") {
		t.Errorf("oversized image: %v", err)
	}
	for _, u := range []string{"file:///etc/passwd", "http://169.254.169.254/latest/meta-data", "gopher://x/"} {
		if _, err := guarded.FetchImage(t.Context(), u, 1000); err == nil {
			t.Errorf("%s was fetched", u)
		}
	}
}
