package db

import (
	"context"
	"sync"
	"sync/atomic"
	"time"
)

// Full-text merges off the commit path (issue 26). Every commit that
// applies full-text notes (a Tx, or a group commit a search joins: see
// deferred notes in fts.go) flushes a new small FTS5 segment. With FTS5's
// automerge (its default), the flush then also merges segments inside the
// commit: a few hundred pages now and then, and, once the seed's segment
// (9,400 pages at 100k listings) had three peers on its level, all of it
// in slices across a few seconds of commits: owner PATCH p99 went from
// 4-7 to 17-26 ms in that round. Migration 0029 turns automerge off; this
// goroutine runs the same merges with FTS5's 'merge' command, in write
// transactions of their own on the writer, when the writer is idle:
// commits happened since its last round and none for ftsIdleFor, with no
// edit queued. Before each step it yields to any queued edit, so an edit
// waits for one step at most; a round ends when a step changes nothing
// (total_changes() moved by less than 2, as FTS5's documentation says) or
// an edit arrives. A positive page count merges only levels holding 4
// (FTS5's usermerge) or more segments: the shape automerge kept.
//
// Under writes with no idle moment, FTS5's crisis merge still bounds the
// segments (every flush merges a level that reaches 16, automerge or not;
// migration 0029), but inside a commit, a whole level at once: cheap at
// level 0, while a level-2 crisis holds 4,096 commits' text. So once
// ftsForceAfter has gone by without a finished idle round, one step runs
// between commits every ftsForceEvery commits (forcedFTSMerge), whatever
// the queue holds: ftsMergePages/ftsForceEvery = 4 pages a commit, about
// what automerge spent on the one-page flushes of owner edits (its 64
// pages per level for every 64 leaf pages flushed), so upper levels stay
// near 4 segments; an edit then waits for one step between commits.
// Measured (owner PATCHes at c=8, 100k, 20k-request rounds): forced steps
// on from 1 s into a round or only crisis merges (30 s) used the same CPU
// per PATCH within the noise of a shared machine (±10%), and a step every
// 32 commits of 4× the pages the same too; so the more frequent, shorter
// steps, which keep each wait short.

// ftsMergePages is the pages one step asks FTS5 to merge. FTS5 stops only
// between terms, so a frequent term's whole doclist goes in one step.
// Measured on the 100k seed continuing a merge of its 9,400-page segment
// (modernc.org/sqlite, this machine): 16 pages a step took 1.3 ms median,
// 12 ms at most (303 steps); 32 pages 2.1 ms, 14.6 ms at most (192 steps);
// 64 pages 3.7 ms, 18 ms; 128 pages 6.8 ms, 21 ms; the whole merge
// 0.53-0.61 s each way.
var ftsMergePages = 32

// ftsIdleFor is how long the writer must have had no commit and no queued
// edit before a round starts. Owner PATCHes at c=8 commit every 1-3 ms;
// a pause of 20 ms is the end of a burst, not a gap between batches.
var ftsIdleFor = 20 * time.Millisecond

// ftsForceAfter and ftsForceEvery: after that long without a finished
// idle round, one step every that many commits (see above).
var (
	ftsForceAfter = time.Second
	ftsForceEvery = int64(8)
)

// ftsRetryAfter is how long the merger waits after a step that failed.
var ftsRetryAfter = time.Second

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
	stepping   atomic.Bool   // a step's commit is the writer's (commit hook)
	lastCommit atomic.Int64  // when the writer last committed other than a step (unix ns; commit hook)
	commits    atomic.Int64  // the steps' commits (not edits: see readcache.go)
	steps      atomic.Uint64 // steps that merged something
	forced     atomic.Uint64 // of those, steps run under writes with no idle moment
	rounds     atomic.Uint64 // idle rounds run to the end (nothing left to merge)
	yields     atomic.Uint64 // idle rounds cut short by an edit
	failures   atomic.Uint64 // steps that could not run (an error, not "nothing to merge")
	stepNanos  atomic.Uint64 // time in steps
}

// FTSMergeFailures is the merge steps that failed since open (a busy or
// read-only file, a broken index): each ends its round unfinished, and the
// merger tries again ftsRetryAfter later.
func (d *DB) FTSMergeFailures() uint64 { return d.fts.failures.Load() }

// noteCommit records, from the commit hook, that the writer committed
// something other than a merge step just now.
func (s *ftsMergeStats) noteCommit() { s.lastCommit.Store(time.Now().UnixNano()) }

// FTSMergeStats is what the full-text merger did since open: steps that
// merged pages, how many of them were forced by writes without an idle
// moment, idle rounds finished and cut short by an edit, and seconds spent.
func (d *DB) FTSMergeStats() (steps, forced, rounds, yields uint64, seconds float64) {
	s := &d.fts
	return s.steps.Load(), s.forced.Load(), s.rounds.Load(), s.yields.Load(), float64(s.stepNanos.Load()) / 1e9
}

// startFTSMerger starts the merger (Open; never on a replica's copy,
// which is read-only, nor during a seed's bulk load: WithoutCheckpoints).
// One merger serves every site: other sites are views over main's tables
// (sites.go) and share listings_fts.
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
	merged := int64(-1) // edit commits when the last round ended
	for {
		select {
		case <-ctx.Done():
			return
		case <-m.kick:
		}
		// Commits are going on: wake once per ftsIdleFor, not per commit,
		// until the writer has been idle that long.
		for n := d.editCommits(); n != merged; n = d.editCommits() {
			wait := ftsIdleFor - time.Duration(time.Now().UnixNano()-d.fts.lastCommit.Load())
			if wait <= 0 && d.groupBusy() {
				wait = ftsIdleFor
			}
			if wait > 0 {
				if !sleepCtx(ctx, wait) {
					return
				}
				continue
			}
			finished, err := d.mergeRound(ctx)
			if ctx.Err() != nil {
				return
			}
			if err != nil {
				// A step that failed (a busy or broken file) is not the
				// end of the merges: try again later, not in a tight loop.
				if !sleepCtx(ctx, ftsRetryAfter) {
					return
				}
				continue
			}
			if !finished {
				continue // cut short by an edit: at the next idle moment
			}
			merged = n
		}
	}
}

// sleepCtx sleeps for d unless ctx ends first (false).
func sleepCtx(ctx context.Context, d time.Duration) bool {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-ctx.Done():
		return false
	case <-t.C:
		return true
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
	if merged, _ := d.mergeStep(context.Background()); merged {
		d.fts.forced.Add(1)
	}
}

// mergeRound runs steps until one merges nothing (finished), an edit is
// queued or the merger is stopped (not finished), or a step fails (its
// error: a failure is not the end of the merges, so the round does not
// count as finished).
func (d *DB) mergeRound(ctx context.Context) (finished bool, err error) {
	for {
		if ctx.Err() != nil {
			return false, nil
		}
		if d.groupBusy() {
			d.fts.yields.Add(1)
			return false, nil
		}
		merged, err := d.mergeStep(ctx)
		if ctx.Err() != nil {
			return false, nil // stopped mid-step: not the end of the merges
		}
		if err != nil {
			d.fts.failures.Add(1)
			return false, err
		}
		if !merged {
			d.fts.rounds.Add(1)
			return true, nil
		}
	}
}

// mergeStep merges about ftsMergePages pages in one write transaction on
// the writer, and reports whether it merged anything; an error means the
// step could not run (nothing is known about what is left). Its commit is
// not an edit: the commit hook leaves the read cache's generation and the
// edit count alone while d.fts.stepping is set (readcache.go).
func (d *DB) mergeStep(ctx context.Context) (bool, error) {
	conn, err := d.W.Conn(ctx)
	if err != nil {
		return false, err
	}
	defer conn.Close()
	start := time.Now()
	tx, err := conn.BeginTx(ctx, nil)
	if err != nil {
		return false, err
	}
	defer tx.Rollback()
	if ftsStepHook != nil {
		ftsStepHook()
	}
	var before, after int64
	if err := tx.QueryRowContext(ctx, `SELECT total_changes()`).Scan(&before); err != nil {
		return false, err
	}
	if _, err := tx.ExecContext(ctx, `INSERT INTO listings_fts(listings_fts, rank) VALUES('merge', ?)`, ftsMergePages); err != nil {
		return false, err
	}
	if err := tx.QueryRowContext(ctx, `SELECT total_changes()`).Scan(&after); err != nil {
		return false, err
	}
	if after-before < 2 {
		return false, nil // nothing to merge; the rollback writes nothing
	}
	d.fts.stepping.Store(true)
	err = tx.Commit()
	d.fts.stepping.Store(false)
	if err != nil {
		return false, err
	}
	d.fts.steps.Add(1)
	d.fts.stepNanos.Add(uint64(time.Since(start)))
	return true, nil
}
