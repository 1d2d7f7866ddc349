package db

import (
	"context"
	"database/sql"
	"fmt"
	"reflect"
	"strings"
	"sync"
	"testing"
	"time"
)

// ftsLevel is one level of the full-text index's structure record: the
// pages of each segment, and how many segments a merge under way takes.
type ftsLevel struct {
	merging int
	pages   []int
}

// ftsStructure decodes listings_fts's structure record (row 10 of
// listings_fts_data): a 4-byte cookie, then varints nLevel, nSegment,
// nWriteCounter, then per level nMerge, nSeg and per segment its id and
// first and last leaf page.
func ftsStructure(t *testing.T, d *DB) []ftsLevel {
	t.Helper()
	var b []byte
	if err := d.R.QueryRow(`SELECT block FROM listings_fts_data WHERE id = 10`).Scan(&b); err != nil {
		t.Fatal(err)
	}
	if len(b) >= 8 && string(b[4:8]) == "\xff\x00\x00\x01" {
		t.Fatal("structure record version 2 (contentless delete): not decoded here")
	}
	i := 4
	next := func() int {
		v := 0
		for k := 0; k < 9; k++ {
			c := b[i]
			i++
			if k == 8 {
				return v<<8 | int(c)
			}
			v = v<<7 | int(c&0x7f)
			if c&0x80 == 0 {
				break
			}
		}
		return v
	}
	levels := make([]ftsLevel, next())
	next() // segments in all
	next() // write counter
	for l := range levels {
		levels[l].merging = next()
		for range next() {
			next() // segment id
			first, last := next(), next()
			levels[l].pages = append(levels[l].pages, last-first+1)
		}
	}
	return levels
}

func segments(levels []ftsLevel) (n int) {
	for _, l := range levels {
		n += len(l.pages)
	}
	return n
}

func level0(levels []ftsLevel) int {
	if len(levels) == 0 {
		return 0
	}
	return len(levels[0].pages)
}

// bigEdit gives listing id a description of 3,000 words of its own, a
// commit of its own: a flush of about ten leaf pages (automerge, FTS5's
// default, merges 64 pages per level for every 64 leaf pages flushed).
func bigEdit(t *testing.T, d *DB, id, n int) {
	t.Helper()
	words := make([]string, 3000)
	for j := range words {
		words[j] = fmt.Sprintf("e%dw%d", n, j)
	}
	err := d.Tx(context.Background(), func(tx *sql.Tx) error {
		_, err := tx.Exec(`UPDATE listings SET description = ? WHERE id = ?`, "common "+strings.Join(words, " "), id)
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
}

// seedMerged inserts 20 listings and merges the index into one segment,
// so the edits' segments are all that is on level 0.
func seedMerged(t *testing.T, d *DB) {
	t.Helper()
	seedAlphas(t, d, 20, "plain tagline")
	if _, err := d.W.Exec(`INSERT INTO listings_fts(listings_fts) VALUES('optimize')`); err != nil {
		t.Fatal(err)
	}
	if l := ftsStructure(t, d); segments(l) != 1 || level0(l) != 0 {
		t.Fatalf("after optimize: %v, want one segment above level 0", l)
	}
}

// setFTSMerge sets the merger's tunables for one test.
func setFTSMerge(t *testing.T, idle, forceAfter time.Duration, forceEvery int64, pages int) {
	oi, oa, oe, op := ftsIdleFor, ftsForceAfter, ftsForceEvery, ftsMergePages
	ftsIdleFor, ftsForceAfter, ftsForceEvery, ftsMergePages = idle, forceAfter, forceEvery, pages
	t.Cleanup(func() { ftsIdleFor, ftsForceAfter, ftsForceEvery, ftsMergePages = oi, oa, oe, op })
}

// waitFor polls cond (an ordering wait, not a time bound: the deadline
// only keeps a broken merger from hanging the run).
func waitFor(t *testing.T, what string, cond func() bool) {
	t.Helper()
	for end := time.Now().Add(30 * time.Second); !cond(); time.Sleep(time.Millisecond) {
		if time.Now().After(end) {
			t.Fatalf("gave up waiting for %s", what)
		}
	}
}

// mergeDebt is a seeded, merged index with the merger stopped and 14
// edits' segments left to merge.
func mergeDebt(t *testing.T) (*DB, context.Context) {
	t.Helper()
	d, ctx := tempDB(t)
	d.stopFTSMerger()
	seedMerged(t, d)
	for n := range 14 {
		bigEdit(t, d, n%20+1, n)
	}
	return d, ctx
}

// With automerge off, a commit only flushes its own segment: fourteen
// edits of ten leaf pages each leave fourteen more segments (the crisis
// merge starts at 16 on a level); automerge, FTS5's default, merged
// inside the commits.
func TestFTSCommitsDoNoMergeWork(t *testing.T) {
	d, _ := tempDB(t)
	d.stopFTSMerger()
	seedMerged(t, d)
	before := ftsStructure(t, d)
	for n := range 14 {
		bigEdit(t, d, n%20+1, n)
	}
	after := ftsStructure(t, d)
	if got := segments(after) - segments(before); got != 14 {
		t.Fatalf("segments after 14 edits: %d more (%v, before %v), want 14: a commit merged", got, after, before)
	}
}

// At an idle moment the merger merges what the edits left, and search
// answers the same.
func TestFTSMergerMergesWhenIdle(t *testing.T) {
	setFTSMerge(t, time.Millisecond, time.Hour, 8, 64)
	d, ctx := mergeDebt(t)
	queries := []string{"common", "plain", "e13w7", "e3w2999", "alpha5"}
	search := func() []any {
		d.rc.gen.Add(1) // a merge leaves the read cache valid: read afresh
		var out []any
		for _, q := range queries {
			items, total, err := d.SearchListings(ctx, SearchFilter{Q: q, Limit: 50})
			if err != nil {
				t.Fatal(err)
			}
			out = append(out, items, total, matches(t, d, q))
		}
		return out
	}
	was, wasSegs := search(), segments(ftsStructure(t, d))
	d.startFTSMerger()
	waitFor(t, "an idle merge round", func() bool { _, _, rounds, _, _ := d.FTSMergeStats(); return rounds > 0 })
	levels := ftsStructure(t, d)
	if steps, _, _, _, _ := d.FTSMergeStats(); steps == 0 || segments(levels) >= wasSegs || level0(levels) >= 4 {
		t.Fatalf("after an idle round (%d steps): %d segments %v, before %d", steps, segments(levels), levels, wasSegs)
	}
	if now := search(); !reflect.DeepEqual(now, was) {
		t.Fatalf("search after the merge:\n%v\nbefore:\n%v", now, was)
	}
	if _, err := d.W.Exec(`INSERT INTO listings_fts(listings_fts) VALUES('integrity-check')`); err != nil {
		t.Fatal(err)
	}
}

// An edit queued while a merge step runs goes next: the round stops for it.
func TestFTSMergerYieldsToEdits(t *testing.T) {
	setFTSMerge(t, time.Millisecond, time.Hour, 8, 4) // small steps: a round of many
	d, ctx := mergeDebt(t)
	var mu sync.Mutex
	var log []string
	note := func(s string) { mu.Lock(); log = append(log, s); mu.Unlock() }
	edited := make(chan error, 1)
	var once sync.Once
	ftsStepHook = func() {
		note("step")
		once.Do(func() {
			go func() {
				edited <- d.GroupTx(ctx, func(ctx context.Context, tx *sql.Tx) error {
					note("edit")
					_, err := tx.Exec(`UPDATE listings SET tagline = 'queued edit' WHERE id = 1`)
					return err
				})
			}()
			// The step goes on once the edit is queued behind it.
			waitFor(t, "the edit in the queue", d.groupBusy)
		})
	}
	t.Cleanup(func() { d.stopFTSMerger(); ftsStepHook = nil })
	d.startFTSMerger()
	if err := <-edited; err != nil {
		t.Fatal(err)
	}
	waitFor(t, "the round after the edit", func() bool { _, _, rounds, _, _ := d.FTSMergeStats(); return rounds > 0 })
	mu.Lock()
	defer mu.Unlock()
	if len(log) < 3 || log[0] != "step" || log[1] != "edit" {
		t.Fatalf("events %v: want the first step, then the edit queued during it, then more steps", log)
	}
	if _, _, _, yields, _ := d.FTSMergeStats(); yields == 0 {
		t.Fatal("no round yielded to the edit")
	}
}

// Under edits with no idle moment, forced steps between commits keep
// every level near FTS5's usermerge (4) segments; the crisis merge alone
// (16) lets level 0 reach 15.
func TestFTSMergerBoundsDebtWithoutIdle(t *testing.T) {
	setFTSMerge(t, time.Hour, 0, 1, 64) // never idle; a step after every commit from the start
	d, _ := tempDB(t)
	seedMerged(t, d)
	most := 0
	for n := range 100 {
		bigEdit(t, d, n%20+1, n)
		for _, l := range ftsStructure(t, d) {
			most = max(most, len(l.pages))
		}
	}
	if most > 8 {
		t.Fatalf("a level held %d segments under continuous edits (now %v), want at most 8", most, ftsStructure(t, d))
	}
	_, forced, rounds, _, _ := d.FTSMergeStats()
	if forced == 0 || rounds != 0 {
		t.Fatalf("forced steps %d, idle rounds %d: want forced steps only", forced, rounds)
	}
}

// A bulk load (demo.Seed) runs with no merger; it is back afterwards, and
// Close stops it.
func TestFTSMergerStopsForBulkLoadAndClose(t *testing.T) {
	d, _ := tempDB(t)
	if d.fmerge.Load() == nil {
		t.Fatal("no merger after Open")
	}
	err := d.WithoutCheckpoints(func() error {
		if d.fmerge.Load() != nil {
			t.Error("merger running during the bulk load")
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	m := d.fmerge.Load()
	if m == nil {
		t.Fatal("no merger after the bulk load")
	}
	if err := d.Close(); err != nil {
		t.Fatal(err)
	}
	select {
	case <-m.done:
	default:
		t.Fatal("merger still running after Close")
	}
}

// Stopped in the middle of a round (Close cancels while a step runs), the
// merger ends with that step (cancelled, so rolled back) and counts no
// finished round.
func TestFTSMergerStopsMidRound(t *testing.T) {
	setFTSMerge(t, time.Millisecond, time.Hour, 8, 1) // one-page steps: a long round
	d, _ := mergeDebt(t)
	var once sync.Once
	ftsStepHook = func() { once.Do(func() { d.fmerge.Load().cancel() }) }
	t.Cleanup(func() { ftsStepHook = nil })
	d.startFTSMerger()
	m := d.fmerge.Load()
	waitFor(t, "the merger to end", func() bool {
		select {
		case <-m.done:
			return true
		default:
			return false
		}
	})
	if _, _, rounds, _, _ := d.FTSMergeStats(); rounds != 0 {
		t.Fatalf("%d rounds counted as finished after the stop mid-step", rounds)
	}
}

// A step that fails is not the end of the merges: with the writer
// read-only the merger's steps fail, no round counts as finished and the
// debt stays; once the file is writable again the merger tries again and
// merges it. Counting a failure as "nothing to merge" (as before) ended
// the first round as finished.
func TestFTSMergerFailedStepIsNotAFinishedRound(t *testing.T) {
	setFTSMerge(t, time.Millisecond, time.Hour, 8, 64)
	old := ftsRetryAfter
	ftsRetryAfter = 5 * time.Millisecond
	t.Cleanup(func() { ftsRetryAfter = old })
	d, ctx := mergeDebt(t)
	before := segments(ftsStructure(t, d))
	if _, err := d.W.ExecContext(ctx, `PRAGMA query_only=1`); err != nil {
		t.Fatal(err)
	}
	d.startFTSMerger()
	waitFor(t, "two failed steps", func() bool { return d.FTSMergeFailures() >= 2 })
	if _, _, rounds, _, _ := d.FTSMergeStats(); rounds != 0 {
		t.Fatalf("%d rounds counted as finished while every step failed", rounds)
	}
	if _, err := d.W.ExecContext(ctx, `PRAGMA query_only=0`); err != nil {
		t.Fatal(err)
	}
	waitFor(t, "a finished round after the file is writable", func() bool {
		_, _, rounds, _, _ := d.FTSMergeStats()
		return rounds >= 1
	})
	if after := segments(ftsStructure(t, d)); after >= before {
		t.Fatalf("segments %d after the retried round, %d before: nothing merged", after, before)
	}
}
