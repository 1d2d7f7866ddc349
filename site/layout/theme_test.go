package layout

import (
	"regexp"
	"strings"
	"testing"
)

// Any accent colour becomes a stylesheet whose accents keep 4.5:1 against
// the backgrounds they sit on, in both schemes; a bad value is the default
// look (no stylesheet).
func TestThemeContrast(t *testing.T) {
	vars := regexp.MustCompile(`--accent:(#[0-9a-f]{6});--accent-strong:(#[0-9a-f]{6})`)
	for _, c := range []string{"#0f766e", "#ffff00", "#ffffff", "#000000", "#FF5A1F", "#1a7f5a", "#7c3aed", "#e11d48", "#808080"} {
		css := ThemeCSS(c)
		m := vars.FindAllStringSubmatch(css, -1)
		if len(m) != 2 {
			t.Fatalf("%s: %q", c, css)
		}
		for i, backs := range [][]rgb{lightBacks, darkBacks} {
			for _, v := range m[i][1:] {
				for _, b := range backs {
					if got := contrast(parseRGB(v), b); got < 4.5 {
						t.Errorf("%s → %s on %s: contrast %.2f", c, v, b, got)
					}
				}
			}
		}
		if p := ThemePath(c); !strings.HasPrefix(p, "/theme.css?v=") {
			t.Errorf("%s: path %q", c, p)
		}
	}
	// A colour that already reads well is kept as it is.
	if !strings.Contains(ThemeCSS("#0f766e"), "--accent:#0f766e;") {
		t.Errorf("a readable colour was changed: %s", ThemeCSS("#0f766e"))
	}
	for _, bad := range []string{"", "red", "#fff", "#12345g", "#1234567", "url(x)", "#0f766e;}body{display:none"} {
		if ThemeCSS(bad) != "" || ThemePath(bad) != "" {
			t.Errorf("%q made a stylesheet", bad)
		}
	}
	if ThemePath("#0f766e") == ThemePath("#0f766f") {
		t.Error("two colours share a stylesheet address")
	}
}
