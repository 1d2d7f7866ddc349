package routes

import (
	"net/url"
	"strings"
	"unicode"
	"unicode/utf8"
)

// maxLocalPath bounds a redirect target carried in a query or form.
const maxLocalPath = 2000

// LocalPath returns next when it is a path on this site, else "/". It is
// the one check for every redirect whose target a visitor can choose (the
// next= of the sign-in pages). The target is parsed, not pattern-matched:
// browsers drop tabs and newlines and read a backslash as a slash, so
// "/\t/evil.example" and "/\\evil.example" are other hosts to them. A target
// is refused when it holds any control character, whitespace or backslash,
// has a scheme, a host or user info, or its path does not start with
// exactly one slash.
func LocalPath(next string) string {
	if next == "" || len(next) > maxLocalPath || !plainText(next) {
		return "/"
	}
	u, err := url.Parse(next)
	if err != nil || u.Scheme != "" || u.Host != "" || u.User != nil || u.Opaque != "" || !plainText(strings.ReplaceAll(u.Path, " ", "")) {
		return "/"
	}
	// Both the raw target and its decoded path ("/%2F/evil.example" decodes
	// to "///evil.example"); an encoded space is an ordinary path byte.
	for _, p := range []string{next, u.Path} {
		if !strings.HasPrefix(p, "/") || strings.HasPrefix(p, "//") {
			return "/"
		}
	}
	return next
}

// plainText reports whether s is valid UTF-8 without control or format
// characters, whitespace or backslashes.
func plainText(s string) bool {
	if !utf8.ValidString(s) || strings.ContainsRune(s, '\\') {
		return false
	}
	for _, r := range s {
		if unicode.IsControl(r) || unicode.IsSpace(r) || unicode.In(r, unicode.Cf) {
			return false
		}
	}
	return true
}
