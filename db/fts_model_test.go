package db

import (
	"database/sql"
	"fmt"
	"maps"
	"math/rand"
	"slices"
	"strings"
	"testing"
)

// Random write sequences against a model (migration 0031: a listing not
// live is indexed at id + 2^40): after every transaction the index must
// equal the listings (SearchIndexDiff) and every search path must page
// through exactly the model's matches: one word, several, a rare one, the
// prefix fallback; live and upcoming; by relevance and by newest; with and
// without a country filter; on the main site and on a second one. Writes:
// inserts, deletes, an id deleted and inserted again, status changes alone,
// with text edits and many rows at once, UPDATE OR REPLACE / OR IGNORE,
// upserts that change status, savepoints rolled back and released. With
// words in most of 2,000 listings, frequent words have more than 500
// candidates in each range, and the low bound for words too common to
// weigh (rvFrequent) takes the by-votes ranking too.

type rvListing struct {
	status, country         string
	name, tagline, desc, kw string
	site                    bool
}

var rvFrequent = 100

var rvStatuses = []string{"live", "live", "live", "draft", "awaiting_badge", "scheduled", "scheduled", "rejected", "archived"}
var rvWords = []string{"apple", "banana", "cherry", "delta", "echo"}

func rvText(r *rand.Rand, p float64) string {
	var w []string
	for _, x := range rvWords {
		if r.Float64() < p {
			w = append(w, x)
		}
	}
	w = append(w, fmt.Sprintf("u%d", r.Intn(50)))
	return strings.Join(w, " ")
}

func (l rvListing) has(word string) bool {
	for _, f := range []string{l.name, l.tagline, l.desc, l.kw} {
		for _, t := range strings.Fields(f) {
			if t == word || (strings.HasSuffix(word, "*") && strings.HasPrefix(t, strings.TrimSuffix(word, "*"))) {
				return true
			}
		}
	}
	return false
}

func rvInsert(tx *sql.Tx, verb string, id int64, l rvListing, tail string) error {
	_, err := tx.Exec(verb+` INTO listings(id, slug, name, tagline, url, domain, description, keywords, country, status, launched_at, created_at, updated_at)
		VALUES (?,?,?,?,'https://x.example/','x.example',?,?,?,?,'2026-01-01T00:00:00Z','x','x')`+tail,
		id, fmt.Sprintf("item-%d", id), l.name, l.tagline, l.desc, l.kw, l.country, l.status)
	return err
}

func TestFTSRandomWritesAgainstAModel(t *testing.T) {
	d, ctx := tempDB(t)
	if fm := rvFrequent; fm > 0 {
		defer func(f int) { frequentMatches = f }(frequentMatches)
		frequentMatches = fm
	}
	if _, err := d.W.Exec(`INSERT INTO sites(key, origin, created_at, updated_at) VALUES('dev', 'http://dev.test', 'x', 'x')`); err != nil {
		t.Fatal(err)
	}
	r := rand.New(rand.NewSource(7))
	model := map[int64]rvListing{}
	newListing := func() rvListing {
		return rvListing{status: rvStatuses[r.Intn(len(rvStatuses))], country: []string{"US", "DE"}[r.Intn(2)],
			name: rvText(r, 0.3), tagline: rvText(r, 0.3), desc: rvText(r, 0.5), kw: rvText(r, 0.2)}
	}
	// 2,000 listings, so frequent words have more than 500 candidates in each range.
	if err := d.Tx(ctx, func(tx *sql.Tx) error {
		for id := int64(1); id <= 2000; id++ {
			l := newListing()
			if err := rvInsert(tx, "INSERT", id, l, ""); err != nil {
				return err
			}
			model[id] = l
		}
		return nil
	}); err != nil {
		t.Fatal(err)
	}
	for id := range model {
		if id%2 == 1 {
			if _, err := d.W.Exec(`INSERT INTO listing_sites(site_key, listing_id, added_at) VALUES('dev', ?, 'x')`, id); err != nil {
				t.Fatal(err)
			}
			l := model[id]
			l.site = true
			model[id] = l
		}
	}
	checkFTS(t, d)
	search := func(round int) {
		t.Helper()
		for _, q := range []string{"apple", "banana cherry", "apple echo delta", "u7", "u1 apple", "zzz", "ech"} {
			for _, upcoming := range []bool{false, true} {
				for _, sort := range []string{"", "newest"} {
					for _, country := range []string{"", "DE"} {
						for _, site := range []string{MainSite, "dev"} {
							sctx := WithSite(ctx, site)
							status := "live"
							if upcoming {
								status = "scheduled"
							}
							words := strings.Fields(q)
							match := func(l rvListing, words []string) bool {
								for _, w := range words {
									if !l.has(w) {
										return false
									}
								}
								return true
							}
							var want []int64
							for id, l := range model {
								if l.status == status && (country == "" || l.country == country) && (site == MainSite || l.site) && match(l, words) {
									want = append(want, id)
								}
							}
							if len(want) == 0 { // prefix fallback
								pw := slices.Clone(words)
								pw[len(pw)-1] += "*"
								for id, l := range model {
									if l.status == status && (country == "" || l.country == country) && (site == MainSite || l.site) && match(l, pw) {
										want = append(want, id)
									}
								}
							}
							slices.Sort(want)
							var got []int64
							var total Total
							seen := map[int64]bool{}
							for off := 0; off < len(want)+60; off += 37 {
								items, tot, err := d.SearchListingsTotal(sctx, SearchFilter{Q: q, Upcoming: upcoming, Sort: sort, Country: country, Offset: off, Limit: 37})
								if err != nil {
									t.Fatal(err)
								}
								if off == 0 {
									total = tot
								}
								for _, it := range items {
									if seen[it.ID] {
										t.Errorf("round %d %q up=%v sort=%q c=%q site=%s: id %d twice", round, q, upcoming, sort, country, site, it.ID)
									}
									seen[it.ID] = true
									got = append(got, it.ID)
								}
							}
							slices.Sort(got)
							if !slices.Equal(got, want) || total.N != len(want) {
								extra, missing := []int64{}, []int64{}
								for _, id := range got {
									if !slices.Contains(want, id) {
										extra = append(extra, id)
									}
								}
								for _, id := range want {
									if !slices.Contains(got, id) {
										missing = append(missing, id)
									}
								}
								t.Errorf("round %d %q up=%v sort=%q c=%q site=%s: got %d (total %+v) want %d; extra %v missing %v",
									round, q, upcoming, sort, country, site, len(got), total, len(want), extra, missing)
							}
						}
					}
				}
			}
		}
	}
	search(0)
	for round := 1; round <= 5; round++ {
		before := maps.Clone(model)
		err := d.Tx(ctx, func(tx *sql.Tx) error {
			var saved map[int64]rvListing
			inSave := false
			for range 120 {
				id := int64(1 + r.Intn(2050))
				l, exists := model[id]
				var err error
				switch op := r.Intn(11); {
				case op == 0 && !inSave:
					if _, err = tx.Exec(`SAVEPOINT sp`); err == nil {
						saved, inSave = maps.Clone(model), true
					}
				case op == 1 && inSave:
					if r.Intn(2) == 0 {
						_, err = tx.Exec(`ROLLBACK TO sp`)
						model = saved
					}
					if err == nil {
						_, err = tx.Exec(`RELEASE sp`)
					}
					inSave = false
				case !exists:
					nl := newListing()
					nl.site = l.site
					verb := []string{"INSERT", "INSERT OR REPLACE"}[r.Intn(2)]
					if verb == "INSERT OR REPLACE" {
						verb = "INSERT" // no row to replace: same as INSERT
					}
					if err = rvInsert(tx, verb, id, nl, ""); err == nil {
						model[id] = nl
					}
				case op == 2:
					if _, err = tx.Exec(`DELETE FROM listings WHERE id = ?`, id); err == nil {
						delete(model, id)
					}
				case op == 3 || op == 4:
					l.status = rvStatuses[r.Intn(len(rvStatuses))]
					if _, err = tx.Exec(`UPDATE listings SET status = ? WHERE id = ?`, l.status, id); err == nil {
						model[id] = l
					}
				case op == 5 || op == 6:
					l.tagline = rvText(r, 0.4)
					verb := []string{"UPDATE", "UPDATE OR REPLACE", "UPDATE OR IGNORE"}[r.Intn(3)]
					if _, err = tx.Exec(verb+` listings SET tagline = ? WHERE id = ?`, l.tagline, id); err == nil {
						model[id] = l
					}
				case op == 7:
					l.status = rvStatuses[r.Intn(len(rvStatuses))]
					l.name = rvText(r, 0.4)
					if _, err = tx.Exec(`UPDATE listings SET status = ?, name = ? WHERE id = ?`, l.status, l.name, id); err == nil {
						model[id] = l
					}
				case op == 8:
					nl := newListing()
					nl.site = l.site
					if err = rvInsert(tx, "INSERT", id, nl, ` ON CONFLICT(id) DO UPDATE SET name = excluded.name, status = excluded.status,
						description = excluded.description`); err == nil {
						l.name, l.status, l.desc = nl.name, nl.status, nl.desc
						model[id] = l
					}
				case op == 9:
					// delete, then the same id again
					if _, err = tx.Exec(`DELETE FROM listings WHERE id = ?`, id); err == nil {
						nl := newListing()
						if err = rvInsert(tx, "INSERT", id, nl, ""); err == nil {
							if l.site {
								_, err = tx.Exec(`INSERT OR IGNORE INTO listing_sites(site_key, listing_id, added_at) VALUES('dev', ?, 'x')`, id)
								nl.site = true
							}
							model[id] = nl
						}
					}
				default:
					// many rows at once
					st := rvStatuses[r.Intn(len(rvStatuses))]
					m := int64(7 + r.Intn(20))
					if _, err = tx.Exec(`UPDATE listings SET status = ? WHERE id % ? = ?`, st, m, id%m); err == nil {
						for k, v := range model {
							if k%m == id%m {
								v.status = st
								model[k] = v
							}
						}
					}
				}
				if err != nil {
					return err
				}
			}
			if inSave {
				_, err := tx.Exec(`RELEASE sp`)
				return err
			}
			return nil
		})
		if err != nil {
			model = before
			t.Logf("round %d rolled back: %v", round, err)
		} else {
			t.Logf("round %d committed", round)
		}
		checkFTS(t, d)
		if t.Failed() {
			t.Fatalf("round %d", round)
		}
		search(round)
		if t.Failed() {
			t.Fatalf("round %d", round)
		}
	}
}
