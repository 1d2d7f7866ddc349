package demo

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"math"
)

// The level of the seed's full-text segment.
//
// FTS5 keeps its index as segments on levels: a commit's text is flushed
// as a small segment on level 0, and once a level holds 4 segments they
// are merged into one on the level above (db/ftsmerge.go runs those
// merges between commits). A segment is merged again only when its level
// fills up, so a big segment on a low level is rewritten whole by the
// directory's first few hundred edits, and on a high one only after tens
// of thousands. FTS5's 'optimize' puts its one segment one level above the
// highest it merged, so the level it reaches is the history of merges
// that built the index, not its size: built with FTS5's 1 MB pending-data
// hash and automerge on (its default), the 1M seed's 368 MB index went
// through five levels of merges (63% of the build's 27 s) and landed on
// level 6 (level 4 at 100k). Built with a 32 MB hash and no merges until
// 'optimize' (13 segments at 1M, one or two at 100k), the index is the
// same and takes half the time, but lands on level 1 or 0: the first
// 20,000 owner edits after such a seed ran 15% slower, merging it again.
//
// So the seed builds the fast way and then moves the one segment to the
// level the slow way would have given it (seedSegmentLevel), by rewriting
// FTS5's structure record: the segment list, stored in the %_data row 10
// (fts5_index.c: a 4-byte cookie, then varints: number of levels, of
// segments, the write counter, then per level the segments in an ongoing
// merge, the segments, and per segment its id and first and last leaf
// page). Only the level a segment is listed under changes; its pages are
// untouched, and FTS5 reads no level from them.

// ftsStructureRowid is FTS5_STRUCTURE_ROWID.
const ftsStructureRowid = 10

// ftsFlushPages is the leaf pages of one flush of FTS5's default 1 MB
// hash in this directory's text (220 at 100k and 1M listings).
var ftsFlushPages uint64 = 220

// ftsSegment is one segment of a structure record.
type ftsSegment struct{ id, first, last uint64 }

// ftsLevel is one level: its segments and how many of them are inputs to
// a merge under way.
type ftsLevel struct {
	merging  uint64
	segments []ftsSegment
}

// ftsStructure is a decoded legacy structure record (the format of every
// FTS5 table without contentless_delete, which listings_fts is).
type ftsStructure struct {
	cookie [4]byte
	writes uint64
	levels []ftsLevel
}

var errFTSStructure = errors.New("demo: full-text structure record not understood")

func decodeFTSStructure(b []byte) (ftsStructure, error) {
	var s ftsStructure
	if len(b) < 4 {
		return s, errFTSStructure
	}
	copy(s.cookie[:], b)
	r := varintReader{b: b[4:]}
	if len(r.b) >= 4 && r.b[0] == 0xff && r.b[1] == 0 && r.b[2] == 0 && r.b[3] == 1 {
		return s, fmt.Errorf("%w: version 2 (contentless_delete)", errFTSStructure)
	}
	nLevel, nSegment := r.next(), r.next()
	s.writes = r.next()
	if nLevel > 64 {
		return s, errFTSStructure
	}
	total := uint64(0)
	for range nLevel {
		l := ftsLevel{merging: r.next()}
		n := r.next()
		if n > nSegment {
			return s, errFTSStructure
		}
		for range n {
			l.segments = append(l.segments, ftsSegment{r.next(), r.next(), r.next()})
		}
		total += n
		s.levels = append(s.levels, l)
	}
	if r.bad || total != nSegment {
		return s, errFTSStructure
	}
	return s, nil
}

func (s ftsStructure) encode() []byte {
	b := append([]byte{}, s.cookie[:]...)
	segments := 0
	for _, l := range s.levels {
		segments += len(l.segments)
	}
	b = appendVarint(b, uint64(len(s.levels)))
	b = appendVarint(b, uint64(segments))
	b = appendVarint(b, s.writes)
	for _, l := range s.levels {
		b = appendVarint(b, l.merging)
		b = appendVarint(b, uint64(len(l.segments)))
		for _, g := range l.segments {
			b = appendVarint(appendVarint(appendVarint(b, g.id), g.first), g.last)
		}
	}
	return b
}

// seedSegmentLevel is the level FTS5's automerge (4 segments a level)
// would have merged a segment of pages leaf pages up to from 1 MB
// flushes, plus the one 'optimize' adds: 4 at 100k listings, 6 at 1M.
func seedSegmentLevel(pages uint64) int {
	flushes := math.Ceil(float64(pages) / float64(ftsFlushPages))
	if flushes < 2 {
		return 0
	}
	return int(math.Ceil(math.Log(flushes)/math.Log(4)-1e-9)) + 1
}

// raiseSeedSegment moves the full-text index's only segment to the level
// seedSegmentLevel gives it. A structure with more than one segment, or a
// merge under way, is left as it is.
func raiseSeedSegment(ctx context.Context, tx *sql.Tx) error {
	var block []byte
	if err := tx.QueryRowContext(ctx, `SELECT block FROM listings_fts_data WHERE id = ?`, ftsStructureRowid).Scan(&block); err != nil {
		return err
	}
	s, err := decodeFTSStructure(block)
	if err != nil {
		return err
	}
	var only *ftsSegment
	at := 0
	for i := range s.levels {
		l := &s.levels[i]
		if l.merging != 0 || (len(l.segments) > 0 && only != nil) || len(l.segments) > 1 {
			return nil
		}
		if len(l.segments) == 1 {
			only, at = &l.segments[0], i
		}
	}
	if only == nil {
		return nil
	}
	level := seedSegmentLevel(only.last - only.first + 1)
	if level <= at {
		return nil // never lower it
	}
	raised := ftsStructure{cookie: s.cookie, writes: s.writes, levels: make([]ftsLevel, level+1)}
	raised.levels[level].segments = []ftsSegment{*only}
	// FTS5 reads the record again at its next write, on this connection
	// too (TestSeedMergesTheFullTextIndex edits after a seed in process).
	_, err = tx.ExecContext(ctx, `UPDATE listings_fts_data SET block = ? WHERE id = ?`, raised.encode(), ftsStructureRowid)
	return err
}

// SQLite's varint: big-endian groups of 7 bits, the high bit set on all
// but the last; a ninth byte carries 8 bits.

type varintReader struct {
	b   []byte
	bad bool
}

func (r *varintReader) next() uint64 {
	var v uint64
	for i := 0; i < 9; i++ {
		if len(r.b) == 0 {
			r.bad = true
			return 0
		}
		c := r.b[0]
		r.b = r.b[1:]
		if i == 8 {
			return v<<8 | uint64(c)
		}
		v = v<<7 | uint64(c&0x7f)
		if c&0x80 == 0 {
			return v
		}
	}
	return v
}

func appendVarint(b []byte, v uint64) []byte {
	if v>>56 != 0 {
		// Nine bytes: 8 groups of 7 bits, then the low 8 bits whole.
		var out [9]byte
		out[8] = byte(v)
		v >>= 8
		for i := 7; i >= 0; i-- {
			out[i] = byte(v&0x7f) | 0x80
			v >>= 7
		}
		return append(b, out[:]...)
	}
	var tmp [9]byte
	n := 0
	for {
		tmp[n] = byte(v & 0x7f)
		n++
		v >>= 7
		if v == 0 {
			break
		}
	}
	for i := n - 1; i >= 0; i-- {
		c := tmp[i]
		if i > 0 {
			c |= 0x80
		}
		b = append(b, c)
	}
	return b
}
