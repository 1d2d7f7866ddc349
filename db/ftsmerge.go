package db

import (
	"context"
	"sync"
	"sync/atomic"
	"time"
)

// Full-text merges off the commit path (issue 26). Every commit that
// changes listing text flushes a new small FTS5 segment. With FTS5's
// automerge, the flush itself then merges segments, a few hundred pages
// now and then, and all 9,400 pages of the seed's segment (at 100k
// listings) in slices across a few seconds of commits once that segment's
// level filled: owner PATCH p99 went from 4 to 10 ms in that round.
// Migration 0029 turns automerge off; this goroutine runs the same merges
// with FTS5's 'merge' command, in write transactions of their own on the
// writer, when the writer is idle: commits happened since its last round
// and none for ftsIdleFor with no edit queued. Each step merges about
// ftsMergePages pages; before each it yields to any queued edit, so an
// edit waits for one step at most, and a round ends when a step changes
// nothing (total_changes() moved by less than 2, as FTS5's documentation
// says) or an edit arrives. A positive page count merges only levels with
// 4 (FTS5's usermerge) or more segments, the shape automerge kept.
//
// Under writes with no idle moment, debt would pile up until FTS5's crisis
// merge (16 segments on a level, still run by every flush with automerge
// off) merged a whole level inside one commit: cheap at level 0, but a
// level-3 crisis holds 4,096 commits' text. So once ftsForceAfter has gone
// by without an idle round, the merger runs one step every ftsForceEvery
// commits whatever the queue holds: about ftsMergePages/ftsForceEvery
// pages a commit, more than automerge's (64 pages per 64 leaf pages
// flushed, per level), so levels stay near 4 segments as before; edits
// then wait for a step between commits instead of inside one.

// ftsMergePages is the pages one step merges. Measured at 100k listings
// (README, Performance): 64 pages took ~1 ms.
var ftsMergePages = 64

// ftsIdleFor is how long the writer must have had no commit and no queued
// edit before a round starts. Owner PATCHes at c=8 commit every 3 ms or
// so; a pause of 20 ms is the end of a burst, not a gap between batches.
var ftsIdleFor = 20 * time.Millisecond

// ftsForceAfter and ftsForceEvery: after that long without an idle round,
// one step every that many commits (see above).
var (
	ftsForceAfter = time.Second
	ftsForceEvery = int64(8)
)

// ftsStepHook, when set (tests), runs in each step while it holds the
// writer, before the merge.
var ftsStepHook func()

type ftsMerger struct {
	kick   chan struct{}
	cancel context.CancelFunc
	done   chan struct{}
}

// ftsMergeStats are the merger's counters for /metrics.
type ftsMergeStats struct {
	stepping  atomic.Bool   // a step's commit is the writer's (commit hook)
	commits   atomic.Int64  // the steps' commits (not edits: see readcache.go)
	steps     atomic.Uint64 // steps that merged something
	forced    atomic.Uint64 // of those, steps run under writes with no idle moment
	rounds    atomic.Uint64 // idle rounds run to the end (nothing left to merge)
	yields    atomic.Uint64 // idle rounds cut short by an edit
	stepNanos atomic.Uint64 // time in steps
}

// FTSMergeStats is what the full-text merger did since open: steps that
// merged pages, how many of them were forced by writes without an idle
// moment, idle rounds finished and cut short by an edit, and seconds spent.
func (d *DB) FTSMergeStats() (steps, forced, rounds, yields uint64, seconds float64) {
	s := &d.fts
	return s.steps.Load(), s.forced.Load(), s.rounds.Load(), s.yields.Load(), float64(s.stepNanos.Load()) / 1e9
}

// startFTSMerger starts the merger (Open; never on a replica's copy,
// which is read-only, nor during a seed's bulk load: WithoutCheckpoints).
func (d *DB) startFTSMerger() {
	ctx, cancel := context.WithCancel(context.Background())
	m := &ftsMerger{kick: make(chan struct{}, 1), cancel: cancel, done: make(chan struct{})}
	d.fmerge.Store(m)
	m.kick <- struct{}{} // debt left by an earlier run is merged at the first idle moment
	go d.runFTSMerger(ctx, m)
}

// stopFTSMerger ends the loop; a step under way finishes first.
func (d *DB) stopFTSMerger() {
	if m := d.fmerge.Swap(nil); m != nil {
		m.cancel()
		<-m.done
	}
}

// kickFTSMerge tells the merger a commit happened (after each group batch
// and each Tx), after a forced step if one is due.
func (d *DB) kickFTSMerge() {
	d.forcedFTSMerge()
	if m := d.fmerge.Load(); m != nil {
		select {
		case m.kick <- struct{}{}:
		default:
		}
	}
}

// editCommits counts the writer's commits that were not the merger's.
func (d *DB) editCommits() int64 { return d.parts.wcommits.Load() }

// groupBusy reports an edit queued or committing in a group batch.
func (d *DB) groupBusy() bool {
	g := &d.group
	g.mu.Lock()
	defer g.mu.Unlock()
	return g.running || len(g.queue) > 0
}

func (d *DB) runFTSMerger(ctx context.Context, m *ftsMerger) {
	defer close(m.done)
	idle := time.NewTimer(time.Hour)
	idle.Stop()
	defer idle.Stop()
	merged := int64(-1) // edit commits when the last round ended
	for {
		select {
		case <-ctx.Done():
			return
		case <-m.kick:
			if d.editCommits() != merged {
				idle.Reset(ftsIdleFor)
			}
		case <-idle.C:
			n := d.editCommits()
			if n == merged {
				continue
			}
			if d.groupBusy() {
				idle.Reset(ftsIdleFor)
				continue
			}
			if d.mergeRound(ctx) {
				merged = n
			} else {
				idle.Reset(ftsIdleFor) // cut short by an edit: later
			}
		}
	}
}

// ftsForcer is forcedFTSMerge's state: the idle rounds it has seen, when
// the writes since the last began, and the commits since its last step.
type ftsForcer struct {
	mu        sync.Mutex
	rounds    uint64
	busySince time.Time
	commits   int64
}

// forcedFTSMerge runs after each commit on the writer, between two
// transactions (like restartWAL): once ftsForceAfter has gone by since the
// last idle round ended, one merge step every ftsForceEvery commits. The
// next transaction waits for that step; the callers of the one that just
// committed do not (group commits), except a Tx's own caller.
func (d *DB) forcedFTSMerge() {
	if d.fmerge.Load() == nil {
		return // stopped: a seed's bulk load, Close, a replica
	}
	f := &d.fforce
	f.mu.Lock()
	defer f.mu.Unlock()
	now := time.Now()
	if r := d.fts.rounds.Load(); r != f.rounds || f.busySince.IsZero() {
		f.rounds, f.busySince, f.commits = r, now, 0
	}
	f.commits++
	if now.Sub(f.busySince) < ftsForceAfter || f.commits < ftsForceEvery {
		return
	}
	f.commits = 0
	if d.mergeStep(context.Background()) {
		d.fts.forced.Add(1)
	}
}

// mergeRound runs steps until one merges nothing (true) or an edit is
// queued or the merger is stopped (false).
func (d *DB) mergeRound(ctx context.Context) bool {
	for {
		if ctx.Err() != nil {
			return false
		}
		if d.groupBusy() {
			d.fts.yields.Add(1)
			return false
		}
		if !d.mergeStep(ctx) {
			d.fts.rounds.Add(1)
			return true
		}
	}
}

// mergeStep merges about ftsMergePages pages in one write transaction on
// the writer, and reports whether it merged anything. Its commit is not an
// edit: the commit hook leaves the read cache's generation and the edit
// count alone while d.fts.stepping is set (readcache.go).
func (d *DB) mergeStep(ctx context.Context) bool {
	conn, err := d.W.Conn(ctx)
	if err != nil {
		return false
	}
	defer conn.Close()
	start := time.Now()
	tx, err := conn.BeginTx(ctx, nil)
	if err != nil {
		return false
	}
	defer tx.Rollback()
	if ftsStepHook != nil {
		ftsStepHook()
	}
	var before, after int64
	if err := tx.QueryRowContext(ctx, `SELECT total_changes()`).Scan(&before); err != nil {
		return false
	}
	if _, err := tx.ExecContext(ctx, `INSERT INTO listings_fts(listings_fts, rank) VALUES('merge', ?)`, ftsMergePages); err != nil {
		return false
	}
	if err := tx.QueryRowContext(ctx, `SELECT total_changes()`).Scan(&after); err != nil {
		return false
	}
	if after-before < 2 {
		return false // nothing to merge; the rollback writes nothing
	}
	d.fts.stepping.Store(true)
	err = tx.Commit()
	d.fts.stepping.Store(false)
	if err != nil {
		return false
	}
	d.fts.steps.Add(1)
	d.fts.stepNanos.Add(uint64(time.Since(start)))
	return true
}
