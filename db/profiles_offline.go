package db

import (
	"context"
	"fmt"
	"runtime"
	"sync"

	"launchdir/ops"
)

// BuildProfilesOffline builds every noted profile of a file that nothing
// else writes (the seeder's new file): one goroutine per core assembles
// profiles on the read pool while the writer stores them, offlineBatch per
// transaction. RebuildStaleProfiles assembles each profile inside the
// transaction that stores it, on the one writer connection: at 1M listings
// that took four minutes of the seed. Assembled outside the storing
// transaction, a profile could miss a write made meanwhile, which is why
// this is for a file no one else has open.
func (d *DB) BuildProfilesOffline(ctx context.Context) error {
	ids, err := Column[int64](ctx, d.R, `SELECT listing_id FROM listing_profiles_stale ORDER BY listing_id`)
	if err != nil || len(ids) == 0 {
		return err
	}
	// No fsync per checkpoint while the file is built (nobody else has it;
	// a seed that dies is discarded): the last checkpoint, with fsync,
	// makes it durable.
	if _, err := d.W.ExecContext(ctx, `PRAGMA synchronous=OFF`); err != nil {
		return err
	}
	defer d.W.ExecContext(context.WithoutCancel(ctx), `PRAGMA synchronous=NORMAL; PRAGMA wal_checkpoint(TRUNCATE)`)
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	jobs := make(chan []int64)
	built := make(chan []builtProfile, runtime.GOMAXPROCS(0))
	var wg sync.WaitGroup
	for range runtime.GOMAXPROCS(0) {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for batch := range jobs {
				out, err := d.assembleProfiles(ctx, batch)
				if err != nil {
					out = []builtProfile{{err: err}}
				}
				select {
				case built <- out:
				case <-ctx.Done():
					return
				}
			}
		}()
	}
	go func() {
		defer close(jobs)
		for start := 0; start < len(ids); start += offlineBatch {
			select {
			case jobs <- ids[start:min(start+offlineBatch, len(ids))]:
			case <-ctx.Done():
				return
			}
		}
	}()
	go func() { wg.Wait(); close(built) }()
	st, err := d.newStaging()
	if err != nil {
		return err
	}
	defer st.close()
	for batch := range built {
		if err := st.add(ctx, batch); err != nil {
			return err
		}
	}
	if err := ctx.Err(); err != nil {
		return err
	}
	return d.WithoutCheckpoints(func() error {
		defer d.leaveWAL(ctx)()
		return st.copyInKeyOrder(ctx, ids)
	})
}

// offlineCheckpoint batches are stored between two RESTART checkpoints
// (about 40 MB of WAL).
const offlineCheckpoint = 20

// offlineBatch profiles are assembled in one read transaction and stored
// in one write transaction.
const offlineBatch = 500

type builtProfile struct {
	id        int64
	slug      string
	enc       ops.Encoded
	votes, at int64
	gone      bool // not live: no profile
	err       error
}

// assembleProfiles assembles the profiles of ids (ascending) in one read
// transaction, by range (assembleRange).
func (d *DB) assembleProfiles(ctx context.Context, ids []int64) ([]builtProfile, error) {
	var out []builtProfile
	err := d.ReadTx(ctx, func(q Queries) error {
		var err error
		out, err = assembleBuilt(ctx, q, ids)
		return err
	})
	return out, err
}

// assembleBuilt assembles and encodes the profiles of ids (ascending) by
// range; an id that is not live comes back gone.
func assembleBuilt(ctx context.Context, q querier, ids []int64) ([]builtProfile, error) {
	list, err := assembleRange(ctx, q, ids[0], ids[len(ids)-1])
	if err != nil {
		return nil, err
	}
	byID := make(map[int64]*Listing, len(list))
	for _, l := range list {
		byID[l.ID] = l
	}
	out := make([]builtProfile, 0, len(ids))
	for _, id := range ids {
		l := byID[id]
		if l == nil {
			out = append(out, builtProfile{id: id, gone: true})
			continue
		}
		enc, err := ops.Encode(l)
		if err != nil {
			return nil, err
		}
		at, ok := votesAt(enc.JSON, l.Votes)
		if !ok {
			return nil, fmt.Errorf("db: profile of listing %d: no vote count found in its JSON", id)
		}
		out = append(out, builtProfile{id: id, slug: l.Slug, enc: enc, votes: l.Votes, at: at})
	}
	return out, nil
}

// storeBuilt writes built profiles (or deletes those gone) and drops their
// notes, in the caller's transaction.
func storeBuilt(ctx context.Context, q Queries, batch []builtProfile) error {
	var err error
	for _, p := range batch {
		if p.err != nil {
			return p.err
		}
		if p.gone {
			_, err = q.ExecContext(ctx, `DELETE FROM listing_profiles WHERE listing_id = `+IntArg, p.id)
		} else {
			err = storeProfile(ctx, q, p.id, p.slug, p.enc, p.votes, p.at)
		}
		if err == nil {
			_, err = q.ExecContext(ctx, `DELETE FROM listing_profiles_stale WHERE listing_id = `+IntArg, p.id)
		}
		if err != nil {
			return err
		}
	}
	return nil
}
