package drafting

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"runtime/debug"
	"slices"
	"strings"
	"sync"
	"time"

	"launchdir/crawl"
	"launchdir/db"
	"launchdir/ops"
)

// Crawler reads a product's website (crawl.Crawler in production).
type Crawler interface {
	Crawl(ctx context.Context, startURL string, progress func(crawl.Progress)) (*crawl.Result, error)
}

// DraftConfig configures the submit-by-URL pipeline.
type DraftConfig struct {
	Crawler Crawler
	Drafter crawl.Drafter
	Workers int
	// Fairness limits (zero: the defaults below).
	InFlightPerUser int           // drafts crawling/drafting at once per user
	PerHourPerUser  int           // drafts submitted per user per rolling hour
	Budget          time.Duration // wall-clock limit of one draft job
}

// Fairness defaults: one user cannot starve the others.
const (
	DefaultDraftsInFlightPerUser = 5
	DefaultDraftsPerHourPerUser  = 30
	DefaultDraftBudget           = 90 * time.Second
)

// draftJob is one unit of pipeline work: a full crawl+draft, or a
// regenerate of some fields from the stored pages.
type draftJob struct {
	id         string
	user       int64
	regenerate []string
}

// draftPipeline holds one FIFO per user and serves users round-robin, so
// a user with many queued drafts delays nobody else's. A user also runs on
// at most runCap workers at once, which keeps a worker free for others.
type draftPipeline struct {
	cfg      DraftConfig
	mu       sync.Mutex
	pending  map[int64][]draftJob
	order    []int64 // users with pending jobs, in round-robin order
	running  map[int64]int
	runCap   int
	wake     chan struct{}
	progress map[string]crawl.Progress // draft id -> pages done, planned, current, disallowed
	inFlight map[string]bool           // queued or running, so the sweep skips them
	submitMu sync.Mutex                // serialises the submission caps' check and insert
}

// maxQueued bounds the queued jobs; beyond it the sweep re-queues later.
const maxQueued = 4096

// SetDraftPipeline installs the crawler and drafter (main and tests).
func (a *Service) SetDraftPipeline(c DraftConfig) {
	if c.Workers < 1 {
		c.Workers = 2
	}
	if c.Drafter == nil {
		c.Drafter = crawl.NewBuiltinDrafter()
	}
	if c.InFlightPerUser <= 0 {
		c.InFlightPerUser = DefaultDraftsInFlightPerUser
	}
	if c.PerHourPerUser <= 0 {
		c.PerHourPerUser = DefaultDraftsPerHourPerUser
	}
	if c.Budget <= 0 {
		c.Budget = DefaultDraftBudget
	}
	a.drafts = &draftPipeline{cfg: c, pending: map[int64][]draftJob{}, running: map[int64]int{}, runCap: max(1, c.Workers-1),
		wake: make(chan struct{}, 1), progress: map[string]crawl.Progress{}, inFlight: map[string]bool{}}
}

func (a *Service) enqueueDraft(j draftJob) {
	if a.drafts == nil {
		return
	}
	if j.user == 0 {
		owner, err := db.Column[int64](context.Background(), a.DB.R, `SELECT user_id FROM drafts WHERE id = ?`, j.id)
		if err == nil && len(owner) == 1 {
			j.user = owner[0]
		}
	}
	q := a.drafts
	q.mu.Lock()
	if q.inFlight[j.id] && len(j.regenerate) == 0 {
		q.mu.Unlock()
		return
	}
	queued := 0
	for _, l := range q.pending {
		queued += len(l)
	}
	if queued >= maxQueued {
		q.mu.Unlock()
		// The job stays in its status and the sweep (every minute)
		// queues it again, so nothing is lost.
		a.Log.Warn("draft queue full; the sweep will queue it again", "draft", j.id)
		return
	}
	if len(q.pending[j.user]) == 0 {
		q.order = append(q.order, j.user)
	}
	q.pending[j.user] = append(q.pending[j.user], j)
	q.inFlight[j.id] = true
	q.mu.Unlock()
	q.signal()
}

func (q *draftPipeline) signal() {
	select {
	case q.wake <- struct{}{}:
	default:
	}
}

// next takes the first job of the next user in round-robin order whose
// running jobs are under the cap; that user moves to the back.
func (q *draftPipeline) next() (draftJob, bool) {
	q.mu.Lock()
	defer q.mu.Unlock()
	for i, u := range q.order {
		if q.running[u] >= q.runCap {
			continue
		}
		j := q.pending[u][0]
		q.pending[u] = q.pending[u][1:]
		q.order = append(q.order[:i:i], q.order[i+1:]...)
		if len(q.pending[u]) > 0 {
			q.order = append(q.order, u)
		} else {
			delete(q.pending, u)
		}
		q.running[u]++
		return j, true
	}
	return draftJob{}, false
}

func (a *Service) doneDraft(j draftJob) {
	q := a.drafts
	q.mu.Lock()
	delete(q.inFlight, j.id)
	delete(q.progress, j.id)
	if q.running[j.user]--; q.running[j.user] <= 0 {
		delete(q.running, j.user)
	}
	q.mu.Unlock()
	q.signal() // a capped user's next job may run now
}

// SweepDrafts queues drafts left in crawling or drafting that no worker
// holds: after a full queue, a crash of a job, or a restart.
func (a *Service) SweepDrafts(ctx context.Context) error {
	if a.drafts == nil || a.drafts.cfg.Crawler == nil {
		return nil
	}
	return a.ResumeDrafts(ctx)
}

// RunWorkers resumes interrupted jobs and serves the queue until ctx ends.
func (a *Service) RunWorkers(ctx context.Context) {
	if a.drafts == nil || a.drafts.cfg.Crawler == nil {
		return
	}
	if err := a.ResumeDrafts(ctx); err != nil {
		a.Log.Error("resume drafts", "err", err)
	}
	q := a.drafts
	var wg sync.WaitGroup
	for i := 0; i < q.cfg.Workers; i++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for {
				j, ok := q.next()
				if !ok {
					select {
					case <-ctx.Done():
						return
					case <-q.wake:
					}
					continue
				}
				q.signal() // more work may wait: wake another worker
				a.safeDraftJob(ctx, j)
			}
		}()
	}
	wg.Wait()
}

// checkDraftQuota refuses a new draft with 429 when the user already has
// InFlightPerUser drafts being read, or submitted PerHourPerUser in the last
// hour (checked first: it lasts longer). Retry-After says when a slot frees.
func (a *Service) checkDraftQuota(ctx context.Context, user int64) error {
	c := a.drafts.cfg
	since := a.Now().UTC().Add(-time.Hour)
	times, err := db.Column[string](ctx, a.DB.R, `SELECT created_at FROM drafts WHERE user_id = ? AND created_at > ? ORDER BY created_at`,
		user, since.Format(time.RFC3339Nano))
	if err != nil {
		return err
	}
	if len(times) >= c.PerHourPerUser {
		oldest, _ := time.Parse(time.RFC3339Nano, times[0])
		retry := max(oldest.Add(time.Hour).Sub(a.Now().UTC()), time.Second)
		return &ops.Error{Code: ops.CodeRateLimited, RetryAfter: retry,
			Detail: fmt.Sprintf("at most %d drafts per hour; try again in %d seconds", c.PerHourPerUser, int(retry.Seconds()+0.999))}
	}
	n, err := db.Column[int](ctx, a.DB.R, `SELECT COUNT(*) FROM drafts WHERE user_id = ? AND status IN ('crawling','drafting')`, user)
	if err != nil {
		return err
	}
	if len(n) == 1 && n[0] >= c.InFlightPerUser {
		retry := min(c.Budget, time.Minute)
		return &ops.Error{Code: ops.CodeRateLimited, RetryAfter: retry,
			Detail: fmt.Sprintf("you already have %d drafts being read (the limit is %d); wait until one is ready or failed", n[0], c.InFlightPerUser)}
	}
	return nil
}

// ResumeDrafts re-queues everything left in crawling or drafting, e.g. after
// a restart. A regenerate interrupted mid-way is redone as a full draft.
func (a *Service) ResumeDrafts(ctx context.Context) error {
	ids, err := db.Column[string](ctx, a.DB.R, `SELECT id FROM drafts WHERE status IN ('crawling','drafting') ORDER BY created_at`)
	if err != nil {
		return err
	}
	for _, id := range ids {
		a.enqueueDraft(draftJob{id: id}) // the owner is looked up
	}
	return nil
}

func (a *Service) setProgress(id string, p crawl.Progress) {
	a.drafts.mu.Lock()
	a.drafts.progress[id] = p
	a.drafts.mu.Unlock()
}

// DraftProgress reports pages read and planned for a running draft.
func (a *Service) DraftProgress(id string) (done, planned int) {
	if a.drafts == nil {
		return 0, 0
	}
	a.drafts.mu.Lock()
	defer a.drafts.mu.Unlock()
	p := a.drafts.progress[id]
	return p.Done, p.Planned
}

// DraftCrawl is what the founder's draft page shows of a crawl: the page
// being read now (only while it runs) and the planned pages robots.txt did
// not allow (live while it runs, then as stored with the pages read).
// The caller has checked that the person may see the draft.
type DraftCrawl struct {
	Current    string   `json:"current_page"`
	Disallowed []string `json:"robots_disallowed"`
}

// DraftCrawlDetail reports the crawl detail of a draft.
func (a *Service) DraftCrawlDetail(ctx context.Context, id string) DraftCrawl {
	if a.drafts != nil {
		a.drafts.mu.Lock()
		p, ok := a.drafts.progress[id]
		a.drafts.mu.Unlock()
		if ok {
			return DraftCrawl{Current: p.Current, Disallowed: append([]string{}, p.Disallowed...)}
		}
	}
	out := DraftCrawl{Disallowed: []string{}}
	if r, err := loadDraft(ctx, a.DB.R, id); err == nil && r.data.RobotsDisallowed != nil {
		out.Disallowed = r.data.RobotsDisallowed
	}
	return out
}

// safeDraftJob runs a job; a panic (hostile HTML can reach parser bugs)
// fails that draft instead of the process.
func (a *Service) safeDraftJob(ctx context.Context, j draftJob) {
	defer a.doneDraft(j)
	defer func() {
		if r := recover(); r != nil {
			a.Log.Error("draft job panic", "draft", j.id, "panic", r, "stack", string(debug.Stack()))
			a.failDraft(ctx, j.id, &crawl.FetchError{Kind: "internal", Message: "drafting failed on an internal error; submit the URL again"})
		}
	}()
	a.runDraftJob(ctx, j)
}

// runDraftJob crawls and drafts within the per-draft wall-clock budget, so
// a slow or silent site fails its own draft and frees the worker.
func (a *Service) runDraftJob(ctx context.Context, j draftJob) {
	jctx, cancel := context.WithTimeout(ctx, a.drafts.cfg.Budget)
	defer cancel()
	a.draftJobWithin(ctx, jctx, j)
	if jctx.Err() == context.DeadlineExceeded && ctx.Err() == nil {
		// Only a draft still in progress fails; one finished in time is kept.
		a.failDraftIfRunning(ctx, j.id, &crawl.FetchError{Kind: "timeout",
			Message: fmt.Sprintf("reading the site took longer than %d seconds; check that it answers, then submit again", int(a.drafts.cfg.Budget.Seconds()))})
	}
}

func (a *Service) draftJobWithin(ctx, jctx context.Context, j draftJob) {
	r, err := loadDraft(ctx, a.DB.R, j.id)
	if err != nil {
		a.Log.Error("draft job", "draft", j.id, "err", err)
		return
	}
	if r.status != draftCrawling && r.status != draftDrafting {
		return // already finished (a duplicate queue entry)
	}
	pages := r.pages
	if len(j.regenerate) == 0 || len(pages) == 0 {
		res, err := a.drafts.cfg.Crawler.Crawl(jctx, r.url, func(p crawl.Progress) { a.setProgress(r.id, p) })
		if jctx.Err() != nil {
			return // over budget (failed by the caller) or shutting down
		}
		if err != nil {
			a.failDraft(ctx, r.id, err)
			return
		}
		pages = res.Pages
		if err := a.setDraftPages(ctx, r.id, pages, res.Disallowed); err != nil {
			a.Log.Error("draft pages", "draft", r.id, "err", err)
			a.failDraft(ctx, r.id, &crawl.FetchError{Kind: "internal", Message: "could not store the pages read; submit the URL again"})
			return
		}
		j.regenerate = nil
	}
	res := &crawl.Result{StartURL: r.url, Pages: pages}
	if len(pages) > 0 {
		res.FinalURL = pages[0].URL
	}
	cats, err := a.draftCategories(ctx)
	if err != nil {
		a.Log.Error("draft categories", "err", err)
		return
	}
	prof, dropped, err := crawl.DraftAndGuard(jctx, a.drafts.cfg.Drafter, res, cats)
	if jctx.Err() != nil {
		return
	}
	if err != nil {
		a.failDraft(ctx, r.id, &crawl.FetchError{Kind: "drafting", Message: "the drafter failed: " + err.Error() + "; retry with regenerate or submit again"})
		return
	}
	var logo *DraftLogo
	if len(j.regenerate) == 0 || slices.Contains(j.regenerate, "logo_url") {
		logo = a.fetchDraftLogo(jctx, r.id, prof.Fields["logo_url"], pages)
	}
	if err := a.applyProfile(ctx, r.id, prof, logo, dropped, j.regenerate); err != nil {
		a.Log.Error("draft apply", "draft", r.id, "err", err)
		a.failDraft(ctx, r.id, &crawl.FetchError{Kind: "internal", Message: "could not save the drafted profile; submit the URL again"})
	}
}

func (a *Service) setDraftPages(ctx context.Context, id string, pages []crawl.Page, disallowed []string) error {
	if disallowed == nil {
		disallowed = []string{}
	}
	_, err := a.DB.W.ExecContext(ctx, `UPDATE drafts SET pages = ?, status = 'drafting', updated_at = ?,
		data = json_set(data, '$.robots_disallowed', json(?)) WHERE id = ? AND status IN ('crawling','drafting')`,
		db.EncodeJSON(pages), a.Now().UTC().Format(time.RFC3339Nano), db.EncodeJSON(disallowed), id)
	return err
}

// failDraftIfRunning fails a draft that is still crawling or drafting.
func (a *Service) failDraftIfRunning(ctx context.Context, id string, err error) {
	if r, lerr := loadDraft(ctx, a.DB.R, id); lerr == nil && (r.status == draftCrawling || r.status == draftDrafting) {
		a.failDraft(ctx, id, err)
	}
}

// failDraft ends a draft in failed with a reason the user can act on.
func (a *Service) failDraft(ctx context.Context, id string, err error) {
	kind, msg := "error", err.Error()
	var fe *crawl.FetchError
	if errors.As(err, &fe) {
		kind, msg = fe.Kind, fe.Message
	}
	if ctx.Err() != nil {
		return // shutting down: the resume sweep retries at next start
	}
	_, uerr := a.DB.W.ExecContext(ctx, `UPDATE drafts SET status = 'failed', failure_kind = ?, failure_reason = ?, attempts = attempts + 1,
		updated_at = ? WHERE id = ?`, kind, msg, a.Now().UTC().Format(time.RFC3339Nano), id)
	if uerr != nil {
		a.Log.Error("fail draft", "draft", id, "err", uerr)
	}
}

// draftCategories are the categories a drafter chooses from, with their
// descriptions so a match is about what a category covers, not a word.
func (a *Service) draftCategories(ctx context.Context) ([]crawl.Category, error) {
	rows, err := a.DB.R.QueryContext(ctx, `SELECT name, description FROM categories ORDER BY position, name`)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var out []crawl.Category
	for rows.Next() {
		var c crawl.Category
		if err := rows.Scan(&c.Name, &c.Description); err != nil {
			return nil, err
		}
		out = append(out, c)
	}
	return out, rows.Err()
}

func (a *Service) categoryNames(ctx context.Context) ([]string, error) {
	return db.Column[string](ctx, a.DB.R, `SELECT name FROM categories ORDER BY position, name`)
}

// applyProfile merges a drafted profile into the draft: fields the user
// locked (override) or typed are kept; only regenerate's fields change when
// given. It also updates the listing when the draft was already submitted.
func (a *Service) applyProfile(ctx context.Context, id string, p *crawl.Profile, logo *DraftLogo, dropped, only []string) error {
	return a.DB.Tx(ctx, func(tx *sql.Tx) error {
		r, err := loadDraft(ctx, tx, id)
		if err != nil {
			return err
		}
		d := r.data
		for _, f := range profileFields {
			if len(only) > 0 && !slices.Contains(only, f.Name) {
				continue
			}
			setAIField(d, f.Name, p.Fields[f.Name], len(only) > 0)
		}
		if len(only) == 0 {
			applyAIExtras(d, p)
			d.Dropped = dropped
		}
		if len(only) == 0 || slices.Contains(only, "logo_url") {
			d.Logo = logo
		}
		if slices.Contains(only, "categories") {
			d.CategorySuggestions = categorySuggestions(p.CategoryCandidates)
		}
		r.status = draftReady
		if err := a.saveDraft(ctx, tx, r); err != nil {
			return err
		}
		scope := syncAll
		if len(only) > 0 {
			scope = syncScope{fields: map[string]bool{}}
			for _, n := range only {
				scope.fields[n] = true
			}
		}
		return a.syncSubmitted(ctx, tx, r, r.owner, "draft_regenerate", scope)
	})
}

// setAIField stores the AI value; a locked field is never touched, and a
// first draft does not overwrite what the user already typed.
func setAIField(d *draftData, name string, v crawl.Value, regenerate bool) {
	f := d.Fields[name]
	value := normalizeAIValue(v.Value)
	f.AIValue = value
	d.AIEvidence[name] = v.Evidence
	if f.State == stateOverride {
		return
	}
	if !regenerate && (f.State == stateEdited || f.State == stateManual || f.State == stateDeleted) {
		return
	}
	if value == nil {
		f.Value, f.State, f.Evidence = nil, stateNotFound, []crawl.Evidence{}
		return
	}
	f.Value, f.State, f.Evidence = value, stateAI, orEvidence(v.Evidence)
}

func orEvidence(e []crawl.Evidence) []crawl.Evidence {
	if e == nil {
		return []crawl.Evidence{}
	}
	return e
}

// normalizeAIValue turns empty values into nil and lists into []any.
func normalizeAIValue(v any) any {
	switch x := v.(type) {
	case string:
		if strings.TrimSpace(x) == "" {
			return nil
		}
		return x
	case []string:
		if len(x) == 0 {
			return nil
		}
		out := make([]any, len(x))
		for i, s := range x {
			out[i] = s
		}
		return out
	case []any:
		if len(x) == 0 {
			return nil
		}
		return x
	case nil:
		return nil
	}
	return fmt.Sprint(v)
}

// applyAIExtras fills FAQs, founders and socials from a first draft unless
// the user already set them.
func applyAIExtras(d *draftData, p *crawl.Profile) {
	d.CategorySuggestions = categorySuggestions(p.CategoryCandidates)
	if len(d.FAQs) == 0 {
		for _, f := range p.FAQs {
			if len(d.FAQs) == 5 {
				break
			}
			// Clip to the FAQ bounds so a client can send the draft back as is.
			d.FAQs = append(d.FAQs, DraftFAQ{Question: clip(f.Question, 300), Answer: clip(f.Answer, 1500), Evidence: orEvidence(f.Evidence)})
		}
	}
	if len(d.Founders) == 0 {
		for _, f := range p.Founders {
			if len(d.Founders) == 6 {
				break
			}
			soc := f.Socials
			if soc == nil {
				soc = map[string]string{}
			}
			d.Founders = append(d.Founders, DraftFounder{Name: clip(f.Name, 160), Title: clip(f.Title, 160), Bio: clip(f.Bio, 3000),
				Socials: soc, Evidence: orEvidence(f.Evidence)})
		}
	}
	if len(d.CompanySocials) == 0 {
		for k, v := range p.Socials {
			if s, ok := v.Value.(string); ok && s != "" {
				d.CompanySocials[k] = s
				d.SocialEvidence[k] = v.Evidence
			}
		}
	}
}

// categorySuggestions keeps the classifier's candidates (already checked
// against the tree by the guard) with their evidence, at most 3.
func categorySuggestions(cands []crawl.CategoryCandidate) []CategorySuggestion {
	out := []CategorySuggestion{}
	for _, c := range cands {
		if len(out) == 3 {
			break
		}
		out = append(out, CategorySuggestion{Name: c.Name, Evidence: orEvidence(c.Evidence)})
	}
	return out
}
