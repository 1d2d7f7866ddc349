package site

import (
	"encoding/json"
	"fmt"
	"sort"
	"strings"
)

// The site team reads revisions as text (issue 23): a JSON value becomes
// the text a person typed (strings unquoted, lists one item a line, objects
// "key: value" lines) and the two sides are compared line by line.

// diffLine is one line of a revision's change.
type diffLine struct {
	Kind string // same, del, ins
	Text string
}

// readable turns a revision's JSON value into plain text.
func readable(raw string) string {
	if strings.TrimSpace(raw) == "" {
		return ""
	}
	var v any
	if err := json.Unmarshal([]byte(raw), &v); err != nil {
		return raw
	}
	return plain(v)
}

func plain(v any) string {
	switch x := v.(type) {
	case nil:
		return ""
	case string:
		return strings.ReplaceAll(x, "\r\n", "\n")
	case []any:
		parts := make([]string, len(x))
		for i, p := range x {
			parts[i] = plain(p)
		}
		return strings.Join(parts, "\n")
	case map[string]any:
		keys := make([]string, 0, len(x))
		for k := range x {
			keys = append(keys, k)
		}
		sort.Strings(keys)
		parts := make([]string, len(keys))
		for i, k := range keys {
			parts[i] = k + ": " + strings.ReplaceAll(plain(x[k]), "\n", " / ")
		}
		return strings.Join(parts, "\n")
	case float64:
		return fmt.Sprint(x)
	}
	return fmt.Sprint(v)
}

// maxDiffLines bounds the line comparison (its table is lines×lines);
// longer values show as all removed, then all added.
const maxDiffLines = 400

// textDiff compares two JSON values of a revision as lines of text.
func textDiff(before, after string) []diffLine {
	a, b := splitKeep(readable(before)), splitKeep(readable(after))
	if len(a) > maxDiffLines || len(b) > maxDiffLines {
		return append(lines("del", a), lines("ins", b)...)
	}
	// Longest common subsequence, then walk it.
	lcs := make([][]int, len(a)+1)
	for i := range lcs {
		lcs[i] = make([]int, len(b)+1)
	}
	for i := len(a) - 1; i >= 0; i-- {
		for j := len(b) - 1; j >= 0; j-- {
			if a[i] == b[j] {
				lcs[i][j] = lcs[i+1][j+1] + 1
			} else {
				lcs[i][j] = max(lcs[i+1][j], lcs[i][j+1])
			}
		}
	}
	var out []diffLine
	i, j := 0, 0
	for i < len(a) && j < len(b) {
		switch {
		case a[i] == b[j]:
			out = append(out, diffLine{"same", a[i]})
			i, j = i+1, j+1
		case lcs[i+1][j] >= lcs[i][j+1]:
			out = append(out, diffLine{"del", a[i]})
			i++
		default:
			out = append(out, diffLine{"ins", b[j]})
			j++
		}
	}
	out = append(out, lines("del", a[i:])...)
	return append(out, lines("ins", b[j:])...)
}

func splitKeep(s string) []string {
	if s == "" {
		return nil
	}
	return strings.Split(s, "\n")
}

func lines(kind string, ls []string) []diffLine {
	out := make([]diffLine, len(ls))
	for i, l := range ls {
		out[i] = diffLine{kind, l}
	}
	return out
}
