package db

import (
	"bufio"
	"cmp"
	"context"
	"database/sql"
	"encoding/binary"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strconv"

	"launchdir/ops"
)

// The seeder's profiles are stored in key order (migration 0034).
// Assembled by listing id, their keys come in random order, and inserting
// rows of a page each at random places splits pages: at 1M listings that
// took the storing from 41 s to 70 s. So BuildProfilesOffline writes each
// assembled profile to a scratch file beside the database (appended as
// assembled, in big sequential writes), keeps only its key and place in
// memory (24 bytes a profile), and then stores them in key order, which
// appends to listing_profiles front to back. The scratch file is removed
// when the build ends.

type staging struct {
	d    *DB
	f    *os.File
	w    *bufio.Writer
	size int64
	at   []stagedAt
}

// stagedAt is where a staged profile's record starts, under its key.
type stagedAt struct {
	key int64
	off int64
	n   int32
}

// stagedHead is the fixed part of a record: id, votes, votes_at, then the
// lengths of the slug, ETag and JSON that follow it.
const stagedHead = 3*8 + 3*4

func (d *DB) newStaging() (*staging, error) {
	f, err := os.CreateTemp(filepath.Dir(d.Path), filepath.Base(d.Path)+".profiles-*.tmp")
	if err != nil {
		return nil, fmt.Errorf("db: profile staging: %w", err)
	}
	return &staging{d: d, f: f, w: bufio.NewWriterSize(f, 1<<20)}, nil
}

// add stages a batch; a listing that is not live loses its row and note
// at once.
func (st *staging) add(ctx context.Context, batch []builtProfile) error {
	var gone []builtProfile
	for _, p := range batch {
		switch {
		case p.err != nil:
			return p.err
		case p.gone:
			gone = append(gone, p)
		default:
			if err := st.write(p); err != nil {
				return err
			}
		}
	}
	if len(gone) == 0 {
		return nil
	}
	return st.d.Tx(ctx, func(tx *sql.Tx) error { return storeBuilt(ctx, st.d.Prepared(tx), gone) })
}

func (st *staging) write(p builtProfile) error {
	var h [stagedHead]byte
	binary.LittleEndian.PutUint64(h[0:], uint64(p.id))
	binary.LittleEndian.PutUint64(h[8:], uint64(p.votes))
	binary.LittleEndian.PutUint64(h[16:], uint64(p.at))
	binary.LittleEndian.PutUint32(h[24:], uint32(len(p.slug)))
	binary.LittleEndian.PutUint32(h[28:], uint32(len(p.enc.ETag)))
	binary.LittleEndian.PutUint32(h[32:], uint32(len(p.enc.JSON)))
	n := len(h) + len(p.slug) + len(p.enc.ETag) + len(p.enc.JSON)
	st.at = append(st.at, stagedAt{key: slugKey(p.slug), off: st.size, n: int32(n)})
	st.size += int64(n)
	st.w.Write(h[:])
	st.w.WriteString(p.slug)
	st.w.WriteString(p.enc.ETag)
	_, err := st.w.Write(p.enc.JSON)
	return err
}

// read decodes the record at a into buf's memory.
func (st *staging) read(a stagedAt, buf []byte) (builtProfile, []byte, error) {
	buf = slices.Grow(buf[:0], int(a.n))[:a.n]
	if _, err := st.f.ReadAt(buf, a.off); err != nil {
		return builtProfile{}, buf, err
	}
	u64 := func(i int) int64 { return int64(binary.LittleEndian.Uint64(buf[i:])) }
	u32 := func(i int) int { return int(binary.LittleEndian.Uint32(buf[i:])) }
	ns, ne, nj := u32(24), u32(28), u32(32)
	if stagedHead+ns+ne+nj != int(a.n) {
		return builtProfile{}, buf, fmt.Errorf("db: profile staging: bad record at %d", a.off)
	}
	rest := buf[stagedHead:]
	return builtProfile{
		id: u64(0), votes: u64(8), at: u64(16),
		slug: string(rest[:ns]),
		enc:  ops.Encoded{ETag: string(rest[ns : ns+ne]), JSON: rest[ns+ne : ns+ne+nj]},
	}, buf, nil
}

// copyInKeyOrder stores the staged profiles in key order, offlineBatch per
// transaction, then drops their notes in listing order. Into an empty
// table (the seed's) it stores without the listing index, built after:
// in key order the listing ids come at random, and keeping the index and
// the notes on the way rewrote two more pages per profile.
func (st *staging) copyInKeyOrder(ctx context.Context, ids []int64) error {
	if err := st.w.Flush(); err != nil {
		return err
	}
	slices.SortFunc(st.at, func(a, b stagedAt) int {
		if a.key != b.key {
			return cmp.Compare(a.key, b.key)
		}
		return cmp.Compare(a.off, b.off) // a shared key: the last assembled row stays (REPLACE)
	})
	var some int
	if err := st.d.W.QueryRowContext(ctx, `SELECT count(*) FROM (SELECT 1 FROM listing_profiles LIMIT 1)`).Scan(&some); err != nil {
		return err
	}
	if some == 0 {
		if _, err := st.d.W.ExecContext(ctx, `DROP INDEX listing_profiles_by_listing`); err != nil {
			return err
		}
		// Built again even when the copy fails, so the file keeps its schema.
		defer st.d.W.ExecContext(context.WithoutCancel(ctx), listingProfilesIndex)
	}
	var buf []byte
	for n, start := 0, 0; start < len(st.at); n, start = n+1, start+offlineBatch {
		part := st.at[start:min(start+offlineBatch, len(st.at))]
		err := st.d.Tx(ctx, func(tx *sql.Tx) error {
			q := st.d.Prepared(tx)
			for _, a := range part {
				var p builtProfile
				var err error
				if p, buf, err = st.read(a, buf); err != nil {
					return err
				}
				if err := storeProfile(ctx, q, p.id, p.slug, p.enc, p.votes, p.at); err != nil {
					return err
				}
			}
			return nil
		})
		if err != nil {
			return err
		}
		st.checkpoint(ctx, n)
	}
	if some == 0 {
		if _, err := st.d.W.ExecContext(ctx, listingProfilesIndex); err != nil {
			return err
		}
	}
	// Every id is stored or gone (add dropped those): drop the notes.
	for n, start := 0, 0; start < len(ids); n, start = n+1, start+10*offlineBatch {
		part := ids[start:min(start+10*offlineBatch, len(ids))]
		err := st.d.Tx(ctx, func(tx *sql.Tx) error {
			q := st.d.Prepared(tx)
			for _, id := range part {
				if _, err := q.ExecContext(ctx, `DELETE FROM listing_profiles_stale WHERE listing_id = `+IntArg, id); err != nil {
					return err
				}
			}
			return nil
		})
		if err != nil {
			return err
		}
		st.checkpoint(ctx, n)
	}
	return nil
}

// listingProfilesIndex is migration 0034's index of profiles by listing.
const listingProfilesIndex = `CREATE UNIQUE INDEX IF NOT EXISTS listing_profiles_by_listing ON listing_profiles(listing_id)`

// checkpoint runs after the nth transaction of a copy. In WAL mode
// (leaveWAL could not take the file) the assembling read transactions have
// ended: a RESTART checkpoint now and then lets the next write start the
// WAL from its beginning, so it stays short.
func (st *staging) checkpoint(ctx context.Context, n int) {
	if n%offlineCheckpoint == offlineCheckpoint-1 {
		st.d.W.ExecContext(ctx, `PRAGMA wal_checkpoint(RESTART)`)
	}
}

func (st *staging) close() {
	st.f.Close()
	os.Remove(st.f.Name())
}

// leaveWAL puts the file in rollback-journal mode for the copy when no
// other connection has it open (else it stays in WAL), and returns what
// puts it back. Out of WAL the copy's pages are written once, into the
// file, instead of into the WAL and again by checkpoints; the pages it
// appends need no journal either.
func (d *DB) leaveWAL(ctx context.Context) (restore func()) {
	// A connection in WAL mode holds a shared lock on the file while it
	// is open: close the idle readers (the assembly is over); the pool
	// opens new ones on demand. A warm-up still at work lets go first.
	d.stopWarmUp()
	idle := d.R.Stats().MaxOpenConnections
	d.R.SetMaxIdleConns(0)
	d.R.SetMaxIdleConns(idle)
	if _, err := d.W.ExecContext(ctx, `PRAGMA busy_timeout = 0`); err != nil {
		return func() {}
	}
	var mode string
	d.W.QueryRowContext(ctx, `PRAGMA journal_mode = TRUNCATE`).Scan(&mode) // busy: stay in WAL
	d.W.ExecContext(ctx, `PRAGMA busy_timeout = `+strconv.Itoa(writerBusyTimeout))
	if mode != "truncate" {
		return func() {}
	}
	return func() { d.W.ExecContext(context.WithoutCancel(ctx), `PRAGMA journal_mode = WAL`) }
}
