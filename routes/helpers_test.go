package routes_test

import (
	"strings"

	"launchdir/routes"
)

func routesOpts(perSec float64, burst int) routes.Options {
	return routes.Options{RatePerSecond: perSec, RateBurst: burst}
}

// email254 is a valid address of exactly 254 characters (the length limit)
// at domain: 64 characters before the @ (RFC 5321's limit), then labels of
// at most 63 characters.
func email254(domain string) string {
	const local = "aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa" // 64
	host := domain
	for n := 254 - len(local) - 1 - len(domain); n > 0; {
		l := min(n-1, 63) // label plus its dot
		if n-1-l == 1 {   // never leave room for an empty label
			l--
		}
		host = strings.Repeat("b", l) + "." + host
		n -= l + 1
	}
	return local + "@" + host
}
