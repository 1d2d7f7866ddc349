package db

import (
	"bytes"
	"context"
	"database/sql"
	"fmt"
	"strconv"
	"sync"
	"time"

	"launchdir/ops"
)

// Ready-made public profiles (migration 0018). A live listing's profile is
// kept encoded, with its ETag, in listing_profiles, so get_listing reads one
// indexed row instead of assembling a dozen queries; with no URL repeating
// (a crawler, a busy directory under a stream of votes) the read cache in
// front of it rarely answers, this row nearly always does.
//
// Triggers note a listing in listing_profiles_stale, in the writing
// statement itself, when anything its profile shows changes, and a read
// serves a row only while its listing has no note. Every write transaction rebuilds up to
// inlineProfiles noted profiles before it commits (the listing a vote or an
// edit just changed, usually), so the next read finds the row again; the
// "ready-made profiles" job and the seeder rebuild bigger backlogs in
// batches. A listing without a row is assembled fresh: a read never
// depends on the rebuild having run, only its speed does.

// inlineProfiles bounds the profiles one write transaction rebuilds (about
// 0.3 ms each); a bigger backlog is left to RebuildStaleProfiles.
const inlineProfiles = 8

// Owner edits (GroupTx) do not rebuild inside their batch: that was a
// quarter of an owner PATCH. They wake the rebuilder, which builds every
// noted profile profileDelay later in a transaction of its own (so a
// stream of edits to a few listings costs one rebuild each per delay).
// That transaction, a Tx, also applies the full-text notes group commits
// leave (fts.go), even when no profile was noted.
var profileDelay = 50 * time.Millisecond // a var for tests

type profileRebuilder struct {
	once   sync.Once
	kick   chan struct{}
	cancel context.CancelFunc
	done   chan struct{}
}

// kickProfiles asks the rebuilder (started on first use) for a rebuild.
func (d *DB) kickProfiles() {
	p := &d.rebuilder
	p.once.Do(func() {
		ctx, cancel := context.WithCancel(context.Background())
		p.kick, p.cancel, p.done = make(chan struct{}, 1), cancel, make(chan struct{})
		go d.runRebuilder(ctx)
	})
	select {
	case p.kick <- struct{}{}:
	default: // a rebuild is pending already
	}
}

func (d *DB) runRebuilder(ctx context.Context) {
	defer close(d.rebuilder.done)
	for {
		select {
		case <-ctx.Done():
			return
		case <-d.rebuilder.kick:
		}
		select {
		case <-ctx.Done():
			return
		case <-time.After(profileDelay):
		}
		// An error leaves the notes: the job retries, reads assemble fresh.
		_ = d.RebuildStaleProfiles(ctx)
	}
}

// stopRebuilder ends the rebuilder (Close), waiting for a running rebuild.
func (d *DB) stopRebuilder() {
	p := &d.rebuilder
	p.once.Do(func() {}) // never start it after this
	if p.cancel != nil {
		p.cancel()
		<-p.done
	}
}

// profileBatch is the number of profiles one background transaction builds
// (about 25 ms of the writer when they are neighbours: assembleRange).
const profileBatch = 500

// sparseBatch bounds the profiles a transaction assembles one by one (about
// 0.3 ms each) when they are not neighbours.
const sparseBatch = 100

// StoredProfile is the ready-made profile of the live listing with this
// slug; ok is false when there is none (not live, unknown, or noted as
// changed and not rebuilt since).
func (d *DB) StoredProfile(ctx context.Context, slug string) (enc ops.Encoded, ok bool, err error) {
	if !d.profiles { // migrating: the table may not exist yet
		return ops.Encoded{}, false, nil
	}
	var built, votes, at int64
	var rowSlug string
	err = d.Prepared(d.R).QueryRowContext(ctx, storedProfileSQL, slugKey(slug)).Scan(&rowSlug, (*ownedBytes)(&enc.JSON), &enc.ETag, &built, &at, &votes)
	if IsNoRows(err) || err == nil && rowSlug != slug { // another slug's row has this key: assemble fresh
		return ops.Encoded{}, false, nil
	}
	if err != nil {
		return ops.Encoded{}, false, err
	}
	if votes != built {
		enc = spliceVotes(enc.JSON, at, built, votes)
	}
	return enc, true, nil
}

// storedProfileSQL reads the ready-made profile under a slug's key, with
// its listing's current vote count (kept in the row: migration 0034).
const storedProfileSQL = `SELECT p.slug, p.json, p.etag, p.votes, p.votes_at, p.live_votes FROM listing_profiles p
	WHERE p.key = ` + IntArg + ` AND NOT EXISTS (SELECT 1 FROM listing_profiles_stale s WHERE s.listing_id = p.listing_id)`

// spliceVotes is the profile json (built with the count built, whose
// digits start at at) showing votes instead, with its ETag.
func spliceVotes(json []byte, at, built, votes int64) ops.Encoded {
	old := strconv.FormatInt(built, 10)
	out := make([]byte, 0, len(json)+8)
	out = append(out, json[:at]...)
	out = strconv.AppendInt(out, votes, 10)
	out = append(out, json[at+int64(len(old)):]...)
	return ops.Encoded{JSON: out, ETag: ops.ETag(out)}
}

// votesAt is the offset of the vote count's digits in a profile's JSON:
// the first "votes" key is the summary's (only escaped strings come
// before it), checked against the count itself.
func votesAt(json []byte, votes int64) (int64, bool) {
	const key = `"votes":`
	i := bytes.Index(json, []byte(key))
	if i < 0 {
		return 0, false
	}
	at := i + len(key)
	digits := strconv.FormatInt(votes, 10)
	if !bytes.HasPrefix(json[at:], []byte(digits)) || len(json) <= at+len(digits) || json[at+len(digits)] != ',' {
		return 0, false
	}
	return int64(at), true
}

// liveListingEncoded is the profile get_listing serves: the ready-made row,
// else a fresh assembly.
func (d *DB) liveListingEncoded(ctx context.Context, slug string) (ops.Encoded, error) {
	if enc, ok, err := d.StoredProfile(ctx, slug); ok || err != nil {
		return enc, err
	}
	l, err := d.GetListingBy(ctx, d.R, "l.slug = ? AND l.status = 'live'", slug)
	if err != nil {
		return ops.Encoded{}, err
	}
	return ops.Encode(l)
}

// rebuildProfiles builds up to limit noted profiles inside tx and reports
// whether notes are left.
func (d *DB) rebuildProfiles(ctx context.Context, tx *sql.Tx, limit int) (left bool, err error) {
	if !d.profiles || d.replica {
		return false, nil
	}
	q := d.Prepared(tx)
	ids, err := Column[int64](ctx, q, `SELECT listing_id FROM listing_profiles_stale ORDER BY listing_id LIMIT ?`, limit+1)
	if err != nil || len(ids) == 0 {
		return false, err
	}
	if len(ids) > limit {
		left, ids = true, ids[:limit]
	}
	if denseIDs(ids) {
		// A backlog of neighbouring listings (a seed, a migration, a
		// rename of a big category): one query per table for the range,
		// in this transaction (assembleRange).
		built, err := assembleBuilt(ctx, q, ids)
		if err != nil {
			return false, err
		}
		return left, storeBuilt(ctx, q, built)
	}
	if len(ids) > sparseBatch { // a dozen queries each: hold the writer less
		left, ids = true, ids[:sparseBatch]
	}
	for _, id := range ids {
		if err := d.rebuildProfile(ctx, tx, id); err != nil {
			return false, err
		}
	}
	return left, nil
}

// denseIDs says whether ascending ids are worth assembling as a range:
// enough of them, and most of the range's listings among them.
func denseIDs(ids []int64) bool {
	return len(ids) >= 16 && ids[len(ids)-1]-ids[0] < 2*int64(len(ids))
}

// rebuildProfile writes the profile of listing id (if live) and drops its note.
func (d *DB) rebuildProfile(ctx context.Context, tx *sql.Tx, id int64) error {
	q := d.Prepared(tx)
	if _, err := q.ExecContext(ctx, `DELETE FROM listing_profiles_stale WHERE listing_id = `+IntArg, id); err != nil {
		return err
	}
	l, err := d.getListing(ctx, tx, "l.id = "+IntArg+" AND l.status = 'live'", id, false)
	if IsNoRows(err) {
		_, err = q.ExecContext(ctx, `DELETE FROM listing_profiles WHERE listing_id = `+IntArg, id)
		return err
	}
	if err != nil {
		return err
	}
	enc, err := ops.Encode(l)
	if err != nil {
		return err
	}
	at, ok := votesAt(enc.JSON, l.Votes)
	if !ok { // cannot happen with the Summary's field order; never store what a vote could not update
		return fmt.Errorf("db: profile of listing %d: no vote count found in its JSON", id)
	}
	return storeProfile(ctx, q, id, l.Slug, enc, l.Votes, at)
}

// storeProfile writes a listing's profile under its slug's key, replacing
// its old row (under its old slug's key, if renamed) and any other
// listing's row with the same key (which then reads fresh: profilekey.go).
func storeProfile(ctx context.Context, q Queries, id int64, slug string, enc ops.Encoded, votes, at int64) error {
	_, err := q.ExecContext(ctx, `INSERT OR REPLACE INTO listing_profiles(key, listing_id, live_votes, slug, json, etag, votes, votes_at)
		VALUES (`+IntArg+`, `+IntArg+`, `+IntArg+`, ?, ?, ?, `+IntArg+`, `+IntArg+`)`, slugKey(slug), id, votes, slug, enc.JSON, enc.ETag, votes, at)
	return err
}

// RebuildStaleProfiles builds every noted profile, profileBatch per write
// transaction (the seeder, the "ready-made profiles" job, a migrated file).
func (d *DB) RebuildStaleProfiles(ctx context.Context) error {
	for {
		left := false
		err := d.Tx(ctx, func(tx *sql.Tx) error {
			var err error
			left, err = d.rebuildProfiles(ctx, tx, profileBatch)
			return err
		})
		if err != nil || !left {
			return err
		}
		if err := ctx.Err(); err != nil {
			return err
		}
	}
}

// ListingProfileColumns are the listing columns a public profile shows (a
// test checks the listings trigger of migration 0018 watches each).
const ListingProfileColumns = listingCols

// SplicedProfileColumn is the one listing column a change of which does not
// retire a ready-made profile: reads put its current value in (StoredProfile).
const SplicedProfileColumn = "votes"
