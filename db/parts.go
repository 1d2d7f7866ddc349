package db

import (
	"context"
	"database/sql"
	"sync"
	"sync/atomic"
)

// Owner edits answer with the full owner profile, read inside the edit's
// transaction on the writer. Most of that profile is rows of other tables
// (categories, founders, FAQs, updates, Domain Rating history, story,
// milestones, media) that an owner edit does not change, and reading them
// was 9 of the writer's dozen statements per edit. So they are kept
// between group edits (GroupTx), under an epoch that any other write
// changes:
//   - every commit on the writer connection counts (commit hook), and
//     group commits are subtracted, so a commit by Tx, a bare statement or
//     a rolled-back-and-retried batch makes every kept entry stale;
//   - PRAGMA data_version changes when another process (the CLI, a
//     restore) commits to the file.
// Entries read during a batch are kept only once that batch has committed.
// An edit that writes FAQs forgets its listing's entry (ForgetOwnerParts).

const maxParts = 4096

type profileParts struct {
	epoch        partsEpoch
	inputs       partsInputs
	categories   []CategoryRef
	founders     []FounderRef
	faqs         []FAQ
	updates      []Update
	interview    []InterviewAnswer
	domainRating DomainRating
	story        *Story
	milestones   []Milestone
	media        []Media
	unlocked     []string
	// extra is what the caller of GetOwnerListingInEditWith keeps beside
	// the parts (the owner view's owners and other sites' copies), under
	// the same epoch; nil until loaded.
	extra any
}

// partsInputs are the listing-row values the parts depend on.
type partsInputs struct {
	dr                    sql.NullInt64
	uStory, uMile, uMedia bool
}

type partsEpoch struct{ foreign, dataVersion int64 }

type partsCache struct {
	wcommits atomic.Int64 // commits on the writer connection (commit hook)
	gcommits atomic.Int64 // of which group commits

	decoded decodeMemo // the rows' JSON columns (profile.go)

	mu      sync.Mutex
	m       map[int64]*profileParts
	pending map[int64]*profileParts // read in the batch being committed
}

// editEpoch is the epoch inside a group transaction (the writer is held,
// so no other commit can happen before this one's).
func (d *DB) editEpoch(ctx context.Context, q querier) (partsEpoch, error) {
	e := partsEpoch{foreign: d.parts.wcommits.Load() - d.parts.gcommits.Load()}
	err := q.QueryRowContext(ctx, `PRAGMA data_version`).Scan(&e.dataVersion)
	return e, err
}

// ForgetOwnerParts drops the kept rows of a listing whose FAQs an edit
// changes (inside its group transaction).
func (d *DB) ForgetOwnerParts(id int64) {
	c := &d.parts
	c.mu.Lock()
	defer c.mu.Unlock()
	delete(c.m, id)
	delete(c.pending, id)
}

// GetOwnerListingInEdit is GetOwnerListing inside a GroupTx function (q
// from Prepared on its transaction): the other tables' rows come from the
// kept entry when it is current.
func (d *DB) GetOwnerListingInEdit(ctx context.Context, q Queries, id int64) (*Listing, error) {
	l, _, err := d.GetOwnerListingInEditWith(ctx, q, id, nil)
	return l, err
}

// GetOwnerListingInEditWith is GetOwnerListingInEdit that also keeps
// loadExtra's result (rows of other tables that only a foreign commit
// changes, read in q) with the listing's entry, and returns it. An edit
// that writes those rows must ForgetOwnerParts first. The result is
// shared between edits: read it only.
func (d *DB) GetOwnerListingInEditWith(ctx context.Context, q Queries, id int64, loadExtra func() (any, error)) (*Listing, any, error) {
	ep, err := d.editEpoch(ctx, q)
	if err != nil {
		return nil, nil, err
	}
	var extra any
	l, err := d.getListingWith(ctx, q, "l.id = "+IntArg, id, true, &d.parts.decoded, func(l *Listing, in partsInputs) error {
		c := &d.parts
		c.mu.Lock()
		p := c.pending[id]
		if p == nil {
			p = c.m[id]
		}
		c.mu.Unlock()
		if p != nil && p.epoch == ep && p.inputs == in && (p.extra != nil || loadExtra == nil) {
			p.apply(l)
			extra = p.extra
			return nil
		}
		if p != nil && p.epoch == ep && p.inputs == in {
			p.apply(l) // the parts are current; only the extra is missing
			cp := *p
			p = &cp
		} else {
			if err := d.loadProfileParts(ctx, q, l, in.dr, in.uStory, in.uMile, in.uMedia, true); err != nil {
				return err
			}
			p = &profileParts{epoch: ep, inputs: in, categories: l.Categories, founders: l.Founders, faqs: l.FAQs, updates: l.LatestUpdates, interview: l.Interview,
				domainRating: l.DomainRating, story: l.Story, milestones: l.Milestones, media: l.Media, unlocked: l.UnlockedSections}
		}
		if loadExtra != nil {
			x, err := loadExtra()
			if err != nil {
				return err
			}
			p.extra, extra = x, x
		}
		c.mu.Lock()
		if c.pending == nil {
			c.pending = map[int64]*profileParts{}
		}
		c.pending[id] = p
		c.mu.Unlock()
		return nil
	})
	return l, extra, err
}

// apply shares the kept rows with l (they are only read: encoded to JSON).
func (p *profileParts) apply(l *Listing) {
	l.Categories, l.Founders, l.FAQs, l.LatestUpdates, l.Interview = p.categories, p.founders, p.faqs, p.updates, p.interview
	l.DomainRating, l.Story, l.Milestones, l.Media, l.UnlockedSections = p.domainRating, p.story, p.milestones, p.media, p.unlocked
}

// partsCommitted keeps what the committed batch read; partsDropped
// forgets it (the batch rolled back).
func (d *DB) partsCommitted() {
	c := &d.parts
	c.gcommits.Add(1)
	foreign := c.wcommits.Load() - c.gcommits.Load()
	c.mu.Lock()
	defer c.mu.Unlock()
	if len(c.m)+len(c.pending) > maxParts {
		c.m = nil
	}
	if c.m == nil {
		c.m = map[int64]*profileParts{}
	}
	for id, p := range c.pending {
		if p.epoch.foreign == foreign { // else read before another commit
			c.m[id] = p
		}
	}
	c.pending = nil
}

func (d *DB) partsDropped() {
	c := &d.parts
	c.mu.Lock()
	defer c.mu.Unlock()
	c.pending = nil
}
