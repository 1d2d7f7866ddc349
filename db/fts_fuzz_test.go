package db

import (
	"context"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// ftsShape is FTSQuery's only output form: quoted words (no quotes or ASCII
// spaces inside) separated by single spaces, optionally a trailing *.
var ftsShape = regexp.MustCompile(`^"[^" ]+"(?: "[^" ]+")*\*?$`)

// FuzzFTSQuery: user search text must always become a query FTS5 accepts.
func FuzzFTSQuery(f *testing.F) {
	for _, s := range []string{
		"widget", "quick", "Acme Analytics", `"unbalanced`, `a OR b`, `NOT x`, `a AND (b`, `col:term`, `name:widget`,
		`^start`, `NEAR(a b, 2)`, "c++ c# .net", "don't", "-", "'", ".", "+", "#", "_", "--", "x*", "*", `""`,
		"a - b", "e-mail", "Ünïcödé straße", "日本語 検索", "emoji 🚀 launch", "\x00\xff\xfe", "tab\tnew\nline",
		"a\u00a0b", "\u3000", "\u200b", "I\u0307", "ǅ", "x'y'z", "'.'", "_-_", "#+#",
	} {
		f.Add(s, false)
		f.Add(s, true)
	}
	ctx := context.Background()
	d, err := Open(ctx, filepath.Join(f.TempDir(), "fts.db"))
	if err != nil {
		f.Fatal(err)
	}
	f.Cleanup(func() { d.Close() })
	if _, err := d.W.Exec(`INSERT INTO listings(id, slug, name, url, domain, tagline, description, status, launched_at, created_at, updated_at)
		VALUES (1, 'acme', 'Acme Analytics', 'https://x.example/', 'x.example', 'Product analytics for small teams', 'Funnels, retention, c++ and e-mail', 'live',
		'2026-01-01T00:00:00Z', '2026-01-01T00:00:00Z', '2026-01-01T00:00:00Z')`); err != nil {
		f.Fatal(err)
	}
	f.Fuzz(func(t *testing.T, q string, prefix bool) {
		out := FTSQuery(q, prefix)
		if out == "" {
			return
		}
		if !ftsShape.MatchString(out) {
			t.Fatalf("FTSQuery(%q, %v) = %q: not quoted words", q, prefix, out)
		}
		if strings.HasSuffix(out, "*") != prefix {
			t.Fatalf("FTSQuery(%q, %v) = %q: prefix star wrong", q, prefix, out)
		}
		var n int
		if err := d.W.QueryRowContext(ctx, `SELECT count(*) FROM listings_fts WHERE listings_fts MATCH ?`, out).Scan(&n); err != nil {
			t.Fatalf("FTSQuery(%q, %v) = %q: MATCH error: %v", q, prefix, out, err)
		}
	})
}
