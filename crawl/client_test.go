package crawl

import (
	"errors"
	"net/http"
	"net/http/httptest"
	"net/netip"
	"net/url"
	"strings"
	"testing"
	"time"
)

func TestGuardControlRanges(t *testing.T) {
	control := guardControl(Options{})
	blocked := []string{
		"127.0.0.1:80", "127.8.9.10:443", "10.0.0.1:80", "172.16.5.4:80", "192.168.1.1:80",
		"169.254.169.254:80", "169.254.1.1:80", "100.64.0.1:80", "0.0.0.0:80", "224.0.0.1:80",
		"255.255.255.255:80", "240.0.0.1:80", "[::1]:80", "[::]:80", "[::ffff:127.0.0.1]:80",
		"[64:ff9b::7f00:1]:80", "[64:ff9b:1::1]:80", "[2002:7f00:1::1]:80", "[fc00::1]:80",
		"[fd12:3456::1]:80", "[fe80::1]:80", "[ff02::1]:80",
	}
	for _, a := range blocked {
		network := "tcp4"
		if strings.HasPrefix(a, "[") {
			network = "tcp6"
		}
		if err := control(network, a, nil); !errors.Is(err, errBlocked) {
			t.Errorf("%s: err = %v, want blocked", a, err)
		}
	}
	for _, a := range []string{"93.184.215.14:443", "8.8.8.8:8080", "[2606:4700::1111]:443"} {
		network := "tcp4"
		if strings.HasPrefix(a, "[") {
			network = "tcp6"
		}
		if err := control(network, a, nil); err != nil {
			t.Errorf("%s: %v, want allowed", a, err)
		}
	}
	if guardControl(Options{AllowPrivate: true}) != nil {
		t.Error("AllowPrivate must switch the guard off")
	}
}

func TestClientHasNoProxy(t *testing.T) {
	tr := NewHTTPClient(Options{}).Transport.(*http.Transport)
	if tr.Proxy != nil {
		t.Error("Transport.Proxy must be nil: a proxy would bypass the SSRF guard")
	}
}

func wantKind(t *testing.T, err error, kind string) {
	t.Helper()
	var fe *FetchError
	if !errors.As(err, &fe) {
		t.Fatalf("err = %v (%T), want FetchError %s", err, err, kind)
	}
	if fe.Kind != kind {
		t.Fatalf("kind = %s (%s), want %s", fe.Kind, fe.Message, kind)
	}
	if fe.Message == "" {
		t.Fatal("empty message")
	}
}

func TestSSRFBlocked(t *testing.T) {
	ts := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { w.Write([]byte("<title>x</title>")) }))
	defer ts.Close()
	port := mustURL(t, ts.URL).Port()
	c := New(Options{Timeout: 2 * time.Second})
	targets := []string{
		ts.URL + "/",
		"http://localhost:" + port + "/",
		"http://[::1]:" + port + "/",
		"http://169.254.169.254/latest/meta-data/",
		"http://10.0.0.1/",
	}
	for _, target := range targets {
		t.Run(target, func(t *testing.T) {
			_, err := c.Crawl(t.Context(), target, nil)
			wantKind(t, err, "blocked_address")
			_, err = c.FetchPage(t.Context(), target)
			wantKind(t, err, "blocked_address")
		})
	}
	resp, err := NewHTTPClient(Options{}).Get(ts.URL)
	if err == nil {
		resp.Body.Close()
		t.Fatal("plain client reached loopback")
	}
	wantKind(t, classifyError(err, ts.URL), "blocked_address")
}

// A public-looking first hop (allowed by the test hook) that redirects to
// loopback must be refused at the second dial.
func TestSSRFRedirectToLoopback(t *testing.T) {
	inner := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { w.Write([]byte("secret")) }))
	defer inner.Close()
	outer := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path == "/robots.txt" {
			http.NotFound(w, r)
			return
		}
		http.Redirect(w, r, inner.URL+"/admin", http.StatusFound)
	}))
	defer outer.Close()
	outerAddr := netip.MustParseAddrPort(strings.TrimPrefix(outer.URL, "http://"))
	o := Options{Timeout: 2 * time.Second, allowAddr: func(ap netip.AddrPort) bool { return ap == outerAddr }}

	resp, err := NewHTTPClient(o).Get(outer.URL + "/start")
	if err == nil {
		resp.Body.Close()
		t.Fatal("redirect to loopback was followed")
	}
	wantKind(t, classifyError(err, outer.URL), "blocked_address")

	_, err = New(o).Crawl(t.Context(), outer.URL+"/start", nil)
	wantKind(t, err, "blocked_address")
}

func TestClientRedirectLimitAndScheme(t *testing.T) {
	s := serveSite(t, "hopper", nil)
	client := NewHTTPClient(Options{AllowPrivate: true})
	resp, err := client.Get(s.URL + "/start")
	if err != nil {
		t.Fatalf("3 hops: %v", err)
	}
	resp.Body.Close()
	if resp.Request.URL.Path != "/" {
		t.Errorf("ended at %s", resp.Request.URL)
	}
	if _, err := client.Get(s.URL + "/deep"); err == nil {
		t.Fatal("6 hops were followed")
	} else {
		wantKind(t, classifyError(err, s.URL), "too_many_redirects")
	}
	if _, err := client.Get(s.URL + "/to-ftp"); err == nil {
		t.Fatal("redirect to ftp was followed")
	}
}

func TestValidateSubmitURL(t *testing.T) {
	ok := map[string]string{
		"https://Acme.Example/Path?q=1#frag": "https://acme.example/Path?q=1",
		"acme.example":                       "https://acme.example/",
		"  http://acme.example:80  ":         "http://acme.example/",
		"https://acme.example:8443/x":        "https://acme.example:8443/x",
		"https://bücher.example/":            "https://xn--bcher-kva.example/",
	}
	for in, want := range ok {
		got, err := ValidateSubmitURL(in)
		if err != nil || got != want {
			t.Errorf("%q: got %q, %v; want %q", in, got, err, want)
		}
	}
	bad := map[string]string{
		"":                              "required",
		"ftp://acme.example/":           "http",
		"javascript:alert(1)":           "http",
		"mailto:a@b.example":            "http",
		"https://user:pw@acme.example/": "username",
		"https://user@acme.example/":    "username",
		"https:///path":                 "host",
		"https://acme.example:99999/":   "port",
		"https://" + strings.Repeat("a", 2050) + ".example/": "2048",
	}
	for in, want := range bad {
		_, err := ValidateSubmitURL(in)
		if err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("%q: err = %v, want mention of %q", truncateRunes(in, 40), err, want)
		}
	}
	if _, err := url.Parse("https://acme.example"); err != nil {
		t.Fatal(err)
	}
}
