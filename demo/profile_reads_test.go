package demo

import (
	"context"
	"database/sql"
	"fmt"
	"regexp"
	"sort"
	"strings"
	"testing"

	"launchdir/db"
)

// recorder is a querier that notes every statement the profile assembly
// runs (db.Prepared runs any other querier as it is).
type recorder struct {
	q     *sql.DB
	stmts map[string][]any
}

func (r *recorder) QueryContext(ctx context.Context, query string, args ...any) (*sql.Rows, error) {
	r.stmts[query] = args
	return r.q.QueryContext(ctx, query, args...)
}

func (r *recorder) QueryRowContext(ctx context.Context, query string, args ...any) *sql.Row {
	r.stmts[query] = args
	return r.q.QueryRowContext(ctx, query, args...)
}

// profileReads assembles the public profile of every live listing (one of
// them with every paid section unlocked, an owner and an interview answer,
// so every branch runs) and returns the columns each statement reads, by
// table: from the compiled programs (EXPLAIN), not from the SQL text, so
// an index that covers a query or a join by alias counts the same.
func profileReads(t *testing.T, d *db.DB) map[string]map[string]bool {
	t.Helper()
	ctx := context.Background()
	if _, err := d.W.Exec(`INSERT OR IGNORE INTO interview_questions(id, position, question) VALUES (9001, 1, 'Why?');
		UPDATE listings SET unlock_story = 1, unlock_milestones = 1, unlock_media = 1 WHERE id = (SELECT min(listing_id) FROM listing_owners);
		INSERT OR REPLACE INTO interview_answers(user_id, question_id, answer, updated_at)
			SELECT user_id, 9001, 'Because.', '2030-01-01' FROM listing_owners ORDER BY listing_id LIMIT 1`); err != nil {
		t.Fatal(err)
	}
	rec := &recorder{q: d.R.DB, stmts: map[string][]any{}}
	slugs, err := db.Column[string](ctx, d.R, `SELECT slug FROM listings WHERE status = 'live'`)
	if err != nil {
		t.Fatal(err)
	}
	for _, s := range slugs {
		if _, err := d.GetListingBy(ctx, rec, "l.slug = ? AND l.status = 'live'", s); err != nil {
			t.Fatal(err)
		}
	}
	if len(rec.stmts) < 10 {
		t.Fatalf("only %d statements recorded", len(rec.stmts))
	}
	reads := map[string]map[string]bool{}
	for query, args := range rec.stmts {
		if err := explainReads(d.R.DB, query, args, reads); err != nil {
			t.Fatalf("%v\n%s", err, query)
		}
	}
	return reads
}

// explainReads adds the tables and columns query's program reads: the
// b-trees it opens (OpenRead: a table, or an index of one) and the Column
// instructions on their cursors.
func explainReads(q *sql.DB, query string, args []any, reads map[string]map[string]bool) error {
	rows, err := q.Query("EXPLAIN "+query, args...)
	if err != nil {
		return err
	}
	type op struct {
		code       string
		p1, p2, p3 int64
	}
	var prog []op
	for rows.Next() {
		var o op
		var addr, p5 int64
		var p4, comment any
		if err := rows.Scan(&addr, &o.code, &o.p1, &o.p2, &o.p3, &p4, &p5, &comment); err != nil {
			rows.Close()
			return err
		}
		prog = append(prog, o)
	}
	rows.Close()
	cursors := map[int64][]string{} // cursor: column names by position
	for _, o := range prog {
		if o.code != "OpenRead" || o.p3 != 0 {
			continue
		}
		var typ, name, tbl, ddl string
		if err := q.QueryRow(`SELECT type, name, tbl_name, coalesce(sql, '') FROM sqlite_schema WHERE rootpage = ?`, o.p2).
			Scan(&typ, &name, &tbl, &ddl); err != nil {
			return fmt.Errorf("root page %d: %w", o.p2, err)
		}
		if reads[tbl] == nil {
			reads[tbl] = map[string]bool{}
		}
		var cols []string
		var err error
		switch {
		case typ == "index":
			cols, err = Column[string](q, `SELECT coalesce(name, 'rowid') FROM pragma_index_xinfo(?) ORDER BY seqno`, name)
		case strings.Contains(strings.ToUpper(ddl), "WITHOUT ROWID"): // stored as its primary key's index
			cols, err = Column[string](q, `SELECT coalesce(name, 'rowid') FROM pragma_index_xinfo(
				(SELECT name FROM pragma_index_list(?) WHERE origin = 'pk')) ORDER BY seqno`, tbl)
		default:
			cols, err = Column[string](q, `SELECT name FROM pragma_table_xinfo(?) ORDER BY cid`, tbl)
		}
		if err != nil {
			return err
		}
		cursors[o.p1] = append([]string{tbl}, cols...)
	}
	for _, o := range prog {
		c, ok := cursors[o.p1]
		if o.code != "Column" || !ok || int(o.p2)+1 >= len(c) {
			continue
		}
		reads[c[0]][c[o.p2+1]] = true
	}
	return nil
}

// Column is db.Column on a plain *sql.DB without a context.
func Column[T any](q *sql.DB, query string, args ...any) ([]T, error) {
	return db.Column[T](context.Background(), q, query, args...)
}

var updateOf = regexp.MustCompile(`(?is)AFTER\s+UPDATE\s+OF\s+(.*?)\s+ON\s`)

// watchGaps lists what a profile reads that no trigger retiring profiles
// watches: each table read needs an AFTER INSERT, an AFTER UPDATE and an
// AFTER DELETE trigger that touches listing_profiles, and an UPDATE OF
// list must name every column read.
func watchGaps(t *testing.T, q *sql.DB, reads map[string]map[string]bool) []string {
	t.Helper()
	var gaps []string
	for tbl, cols := range reads {
		ddls, err := Column[string](q, `SELECT sql FROM sqlite_schema WHERE type = 'trigger' AND tbl_name = ?
			AND sql LIKE '%listing_profiles%'`, tbl)
		if err != nil {
			t.Fatal(err)
		}
		events := map[string]bool{}
		updated := map[string]bool{} // columns an UPDATE OF trigger watches
		allUpdates := false
		for _, ddl := range ddls {
			up := strings.ToUpper(ddl)
			for _, ev := range []string{"INSERT", "UPDATE", "DELETE"} {
				if regexp.MustCompile(`AFTER\s+` + ev + `\b`).MatchString(up) {
					events[ev] = true
				}
			}
			if m := updateOf.FindStringSubmatch(ddl); m != nil {
				for _, c := range strings.Split(m[1], ",") {
					updated[strings.TrimSpace(c)] = true
				}
			} else if strings.Contains(up, "AFTER UPDATE") {
				allUpdates = true
			}
		}
		for _, ev := range []string{"INSERT", "UPDATE", "DELETE"} {
			if !events[ev] {
				gaps = append(gaps, fmt.Sprintf("%s: no AFTER %s trigger retires profiles", tbl, ev))
			}
		}
		for c := range cols {
			spliced := tbl == "listings" && c == db.SplicedProfileColumn // put in at read time
			if !allUpdates && c != "rowid" && !updated[c] && !spliced {
				gaps = append(gaps, fmt.Sprintf("%s.%s: read by a profile, watched by no UPDATE trigger", tbl, c))
			}
		}
	}
	sort.Strings(gaps)
	return gaps
}

// Every table the public profile reads, found by running the assembly
// and reading the compiled statements, has triggers that retire a
// listing's ready-made profile when a row is inserted, updated (in any
// column the profile reads) or deleted. A read added to the assembly
// without a trigger fails here; dropping any one trigger fails here too.
func TestProfileReadsAreWatched(t *testing.T) {
	ctx := context.Background()
	d := openDB(t)
	if err := Generate(ctx, d, Options{Seed: 1, Now: testNow}); err != nil {
		t.Fatal(err)
	}
	reads := profileReads(t, d)
	// The tables the assembly is known to read today: the derivation must
	// find at least these (a derivation that found nothing would pass).
	for _, tbl := range []string{"listings", "categories", "listing_categories", "founders", "listing_founders", "faqs",
		"listing_updates", "listing_owners", "interview_answers", "interview_questions", "domain_ratings", "stories",
		"milestones", "media"} {
		if reads[tbl] == nil {
			t.Errorf("the profile assembly does not read %s (derivation broken?)", tbl)
		}
	}
	if !reads["founders"]["avatar_url"] || !reads["interview_answers"]["answer"] || !reads["listings"]["tagline"] {
		t.Errorf("columns not derived: %v", reads)
	}
	if gaps := watchGaps(t, d.R.DB, reads); len(gaps) > 0 {
		t.Fatalf("profile reads no trigger watches:\n%s", strings.Join(gaps, "\n"))
	}
	// The check can fail: without one trigger, or with a column missing
	// from an UPDATE OF list, it names the gap.
	if _, err := d.W.Exec(`DROP TRIGGER interview_answers_profile_au;
		DROP TRIGGER founders_profile_au;
		CREATE TRIGGER founders_profile_au AFTER UPDATE OF id, slug, name, title, bio, socials ON founders BEGIN
		  DELETE FROM listing_profiles WHERE listing_id IN (SELECT listing_id FROM listing_founders WHERE founder_id = old.id);
		END;`); err != nil {
		t.Fatal(err)
	}
	got := strings.Join(watchGaps(t, d.R.DB, reads), "\n")
	for _, want := range []string{"interview_answers: no AFTER UPDATE trigger", "founders.avatar_url: read by a profile"} {
		if !strings.Contains(got, want) {
			t.Errorf("with triggers removed the gaps are %q, missing %q", got, want)
		}
	}
}
