package site_test

import (
	"html"
	"net/url"
	"regexp"
	"testing"
)

var nextField = regexp.MustCompile(`name="next" value="([^"]*)"`)

// TestSignInRedirectStaysLocal: whatever next= holds, the browser lands on
// this site. Each attack goes both ways a browser can carry it: in the
// sign-in page's address (kept in the form) and posted directly.
func TestSignInRedirectStaysLocal(t *testing.T) {
	e := peopleEnv(t)
	p := signUp(t, e, "nina@example.com")
	signIn := func(next string, viaPage bool) string {
		t.Helper()
		if viaPage {
			pg := p.get("/signin?next=" + url.QueryEscape(next))
			m := nextField.FindStringSubmatch(pg.body)
			if m == nil {
				t.Fatalf("sign-in page without next field")
			}
			next = html.UnescapeString(m[1])
		} else {
			p.get("/signin")
		}
		r := p.post("/signin", url.Values{"email": {"nina@example.com"}, "password": {"correct horse battery"}, "next": {next}})
		if r.status != 303 {
			t.Fatalf("sign in with next %q: %d", next, r.status)
		}
		return r.header.Get("Location")
	}
	attacks := []string{
		"/\t/evil.example", "/\t\t/evil.example", "/\t\\/evil.example", "/\n/evil.example", "/\r/evil.example",
		"/ /evil.example", "/\u00a0/evil.example", "/\u200b/evil.example", "/\x00/evil.example", "/\x7f/evil.example",
		"//evil.example", "/\\evil.example", "\\\\evil.example", "/\\/evil.example", "///evil.example",
		"https://evil.example/", "http:evil.example", "javascript:alert(1)", "data:text/html,x", "evil.example",
		"/%2F/evil.example", "/%2f%2fevil.example", "/%5Cevil.example", "/%09/evil.example", "//user@evil.example",
		"", "\t/following", " /following", "/following\t", "/\xff", "/" + string(make([]byte, 2001)),
	}
	for _, a := range attacks {
		for _, viaPage := range []bool{true, false} {
			if got := signIn(a, viaPage); got != "/" {
				t.Errorf("next %q (via page %v): Location %q, want /", a, viaPage, got)
			}
		}
	}
	// Paths on this site survive, query and fragment included.
	for _, ok := range []string{"/following", "/listings/x?tab=reviews#votes", "/a/b%20c", "/founder/listings"} {
		if got := signIn(ok, true); got != ok {
			t.Errorf("next %q: Location %q", ok, got)
		}
	}
}
