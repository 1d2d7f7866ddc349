package crawl

import (
	"strings"
	"unicode/utf8"

	"golang.org/x/text/unicode/norm"
)

// typography maps look-alike punctuation onto ASCII so a quote typed with
// straight quotes still matches a page that uses curly ones.
var typography = strings.NewReplacer(
	"‘", "'", "’", "'", "‚", "'", "‛", "'", "′", "'",
	"“", `"`, "”", `"`, "„", `"`, "‟", `"`, "″", `"`, "«", `"`, "»", `"`,
	"–", "-", "—", "-", "‒", "-", "―", "-", "‐", "-", "‑", "-", "−", "-",
	"\u00ad", "", "\u200b", "", "\u200c", "", "\u200d", "", "\ufeff", "",
)

// normalizeText is the canonical form used to compare quotes with pages:
// NFKC, unified quotes and dashes, collapsed whitespace.
func normalizeText(s string) string {
	s = norm.NFKC.String(s)
	s = typography.Replace(s)
	return strings.Join(strings.Fields(s), " ")
}

// foldText is normalizeText plus case folding.
func foldText(s string) string {
	return strings.ToLower(normalizeText(s))
}

// containsFold reports whether needle occurs in hay after normalising both.
func containsFold(hay, needle string) bool {
	n := foldText(needle)
	return n != "" && strings.Contains(foldText(hay), n)
}

// truncateRunes cuts s to at most n runes without splitting a character.
func truncateRunes(s string, n int) string {
	if utf8.RuneCountInString(s) <= n {
		return s
	}
	i := 0
	for pos := range s {
		if i == n {
			return strings.TrimSpace(s[:pos])
		}
		i++
	}
	return s
}

func runeLen(s string) int { return utf8.RuneCountInString(s) }
