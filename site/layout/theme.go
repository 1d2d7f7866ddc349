package layout

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"math"
	"regexp"
	"strconv"
)

// A site's look: the site team picks one accent colour per site
// (site setting accent_color, '#rrggbb'). Pages link a small stylesheet,
// ThemePath, that overrides the accent custom properties of site.css for
// the light and the dark scheme, so the CSP stays strict (no inline style
// blocks) and every page of every door shows the site's colour.

var hexColor = regexp.MustCompile(`^#[0-9a-fA-F]{6}$`)

// The backgrounds links and buttons sit on in site.css, per scheme.
var (
	lightBacks = []rgb{{0xff, 0xff, 0xff}, {0xf6, 0xf6, 0xf8}}
	darkBacks  = []rgb{{0x1c, 0x1d, 0x22}, {0x12, 0x13, 0x16}}
)

// minContrast is WCAG AA for body text (4.5:1; links are text), with a
// margin for rounding to whole channel values.
const minContrast = 4.6

// ThemePath is the address of the stylesheet of an accent colour, "" when
// the colour is not a '#rrggbb' value (the default look).
func ThemePath(accent string) string {
	if !hexColor.MatchString(accent) {
		return ""
	}
	sum := sha256.Sum256([]byte(ThemeCSS(accent)))
	return "/theme.css?v=" + hex.EncodeToString(sum[:6])
}

// ThemeCSS is the stylesheet of an accent colour: the colour itself where
// it reads well, else the nearest darker (light scheme) or lighter (dark
// scheme) shade that keeps links and button labels at 4.5:1. "" for a bad
// colour.
func ThemeCSS(accent string) string {
	if !hexColor.MatchString(accent) {
		return ""
	}
	c := parseRGB(accent)
	light := readable(c, lightBacks, 0)
	dark := readable(c, darkBacks, 255)
	return fmt.Sprintf(":root{--accent:%s;--accent-strong:%s;--on-accent:#fff}\n"+
		"@media (prefers-color-scheme:dark){:root{--accent:%s;--accent-strong:%s;--on-accent:#0b1020}}\n",
		light, readable(mix(light, 0, 0.3), lightBacks, 0), dark, readable(mix(dark, 255, 0.4), darkBacks, 255))
}

type rgb struct{ r, g, b float64 }

func (c rgb) String() string {
	return fmt.Sprintf("#%02x%02x%02x", int(math.Round(c.r)), int(math.Round(c.g)), int(math.Round(c.b)))
}

func parseRGB(s string) rgb {
	n, _ := strconv.ParseUint(s[1:], 16, 32)
	return rgb{float64(n >> 16 & 0xff), float64(n >> 8 & 0xff), float64(n & 0xff)}
}

// mix moves c toward the grey level to (0 black, 255 white) by t.
func mix(c rgb, to, t float64) rgb {
	return rgb{c.r + (to-c.r)*t, c.g + (to-c.g)*t, c.b + (to-c.b)*t}
}

// readable shifts c toward to (black or white) in small steps until it
// reaches minContrast against every background.
func readable(c rgb, backs []rgb, to float64) rgb {
	for i := 0; i < 40; i++ {
		ok := true
		for _, b := range backs {
			if contrast(c, b) < minContrast {
				ok = false
			}
		}
		if ok {
			return c
		}
		c = mix(c, to, 0.08)
	}
	return mix(c, to, 1)
}

// contrast is the WCAG 2 contrast ratio of two colours.
func contrast(a, b rgb) float64 {
	la, lb := luminance(a), luminance(b)
	if la < lb {
		la, lb = lb, la
	}
	return (la + 0.05) / (lb + 0.05)
}

func luminance(c rgb) float64 {
	ch := func(v float64) float64 {
		v /= 255
		if v <= 0.03928 {
			return v / 12.92
		}
		return math.Pow((v+0.055)/1.055, 2.4)
	}
	return 0.2126*ch(c.r) + 0.7152*ch(c.g) + 0.0722*ch(c.b)
}
