package db

import (
	"context"
	"fmt"
	"path/filepath"
	"testing"
)

// Paging through a relevance search must visit every match exactly once,
// also past the bm25-ranked candidate window.
func TestRelevancePagingIsStable(t *testing.T) {
	ctx := context.Background()
	d, err := Open(ctx, filepath.Join(t.TempDir(), "s.db"))
	if err != nil {
		t.Fatal(err)
	}
	defer d.Close()
	n := ftsCandidates + 137
	tx, err := d.W.Begin()
	if err != nil {
		t.Fatal(err)
	}
	for i := 1; i <= n; i++ {
		status := "live"
		if i%50 == 0 {
			status = "draft" // filtered out of public search
		}
		name := fmt.Sprintf("Item %d", i)
		if i%7 == 0 {
			name = fmt.Sprintf("Widget %d", i) // name matches rank higher
		}
		if _, err := tx.Exec(`INSERT INTO listings(id, slug, name, url, domain, description, status, launched_at, created_at, updated_at)
			VALUES (?,?,?,?,?,?,?,?,?,?)`, i, fmt.Sprintf("item-%d", i), name, "https://x.example/", "x.example",
			"A widget for teams", status, "2026-01-01T00:00:00Z", "2026-01-01T00:00:00Z", "2026-01-01T00:00:00Z"); err != nil {
			t.Fatal(err)
		}
	}
	if err := tx.Commit(); err != nil {
		t.Fatal(err)
	}
	seen := map[string]bool{}
	var total int
	for off := 0; ; off += 100 {
		items, tot, err := d.SearchListings(ctx, SearchFilter{Q: "widget", Sort: "relevance", Offset: off, Limit: 100})
		if err != nil {
			t.Fatal(err)
		}
		total = tot
		if off == 0 && (len(items) == 0 || items[0].Name[:6] != "Widget") {
			t.Fatalf("name matches should rank first, got %+v", items[:1])
		}
		for _, it := range items {
			if seen[it.Slug] {
				t.Fatalf("%s appears on two pages", it.Slug)
			}
			seen[it.Slug] = true
		}
		if len(items) < 100 {
			break
		}
	}
	want := n - n/50
	if total != want || len(seen) != want {
		t.Fatalf("total %d, visited %d, want %d", total, len(seen), want)
	}
}

func TestFTSQueryQuotesOperators(t *testing.T) {
	for in, want := range map[string]string{
		`foo OR bar`:  `"foo" "or" "bar"`,
		`"quoted" (x`: `"quoted" "x"`,
		`   `:         ``,
		`c++ node.js`: `"c++" "node.js"`,
	} {
		if got := FTSQuery(in, false); got != want {
			t.Errorf("FTSQuery(%q) = %q, want %q", in, got, want)
		}
	}
	if got := FTSQuery("quick", true); got != `"quick"*` {
		t.Errorf("prefix: %q", got)
	}
}
