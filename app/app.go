// Package app composes the business layer: one Service per domain over
// one shared kernel, the operations table built from each domain's own
// operations, and the background jobs. The doors (routes, mcp, oauth, site)
// hold an *App and call the domain that owns a rule: a.People.SignIn,
// a.Commerce.ConfirmPayment, a.Admin.BanUser.
//
// The layers; a package imports only packages listed below it (the arrows
// name the domains it uses), checked by TestImportsOnlyGoDown:
//
//	app          composition: the operations table, the background jobs
//	admin        the site team's work                   → commerce, media, owning, people
//	sites        the directories one server runs, listings across them
//	drafting     submit by URL, drafts                  → media, owning (and crawl)
//	webhooks     outbound events (Standard Webhooks)    (and crawl's guarded client)
//	conversation comments, maker replies, notification settings
//	digest       the weekly email digest and its archive
//	owning       an owner's listing, claims             → people
//	media        images: storage, uploads, social cards
//	commerce     products, orders, promos, invoices     → vat
//	vat          EU VAT rates, number checks, a sale's treatment
//	people       accounts, sessions, votes, follows, reviews
//	catalog      public reads, weeks, boards, awards, badges
//	kernel       Kernel, paging, errors, settings, outbox, notifications, idempotency, jobs
//	db, ops      storage; the operation machinery (below the business layer)
package app

import (
	"context"
	"log/slog"
	"time"

	"launchdir/app/admin"
	"launchdir/app/catalog"
	"launchdir/app/commerce"
	"launchdir/app/conversation"
	"launchdir/app/digest"
	"launchdir/app/drafting"
	"launchdir/app/kernel"
	"launchdir/app/media"
	"launchdir/app/owning"
	"launchdir/app/people"
	"launchdir/app/sites"
	"launchdir/app/vat"
	"launchdir/app/webhooks"
	"launchdir/db"
	"launchdir/ops"
)

// App is the business layer as the doors see it.
type App struct {
	*kernel.Kernel
	Table *ops.Table
	Exec  *ops.Executor

	Catalog  *catalog.Service
	People   *people.Service
	Owning   *owning.Service
	Media    *media.Service
	Drafting *drafting.Service
	Commerce *commerce.Service
	// VAT: rates, number checks and the treatment of a sale (under commerce).
	VAT   *vat.Service
	Admin *admin.Service
	// Conversation: comments, maker replies, notification settings.
	Conversation *conversation.Service
	// Webhooks: outbound events to owners' and the site team's endpoints.
	Webhooks *webhooks.Service
	// Digest: the weekly email digest and its archive.
	Digest *digest.Service
	// Network: the directories this server runs (package sites) and listings
	// across them (a field of its own name: App.Sites(ctx) is the kernel's list).
	Network *sites.Service

	extraJobs []kernel.Job
}

// New builds every domain and the operations table.
func New(d *db.DB, cfg kernel.Config, log *slog.Logger) (*App, error) {
	k := kernel.New(d, cfg, log)
	a := &App{Kernel: k}
	a.Catalog = catalog.New(k)
	a.People = people.New(k)
	a.Owning = owning.New(k, a.People)
	a.Media = media.New(k)
	a.Drafting = drafting.New(k, a.Owning, a.Media)
	a.VAT = vat.New(log)
	a.Commerce = commerce.New(k, a.VAT)
	a.Admin = admin.New(k, a.People, a.Commerce, a.Media)
	a.Conversation = conversation.New(k)
	a.Webhooks = webhooks.New(k)
	k.OnOutboxWake(a.Webhooks.Deliver)
	a.Digest = digest.New(k)
	a.Network = sites.New(k, a.Media)
	t, err := ops.NewTable(a.operations())
	if err != nil {
		return nil, err
	}
	a.Table = t
	a.Exec = &ops.Executor{Table: t, Idem: kernel.NewIdemStore(k), Log: log}
	return a, nil
}

// operations is THE table: every operation of the service, defined once
// by the domain that owns it. REST routes, the OpenAPI document and the MCP
// tools are generated from it, in this order.
func (a *App) operations() []*ops.Operation {
	var list []*ops.Operation
	for _, domain := range [][]*ops.Operation{
		a.Catalog.Operations(),      // public reads
		a.People.Operations(),       // the signed-in account
		a.Drafting.Operations(),     // submit by URL and drafts
		a.Owning.Operations(),       // my listings, owner content, free launch, claims
		a.Media.Operations(),        // logos, screenshots, avatars
		a.Commerce.Operations(),     // products and orders
		a.Conversation.Operations(), // comments, notification settings
		a.Webhooks.Operations(),     // webhook endpoints and deliveries
		a.Network.Operations(),      // the directories of this server (site team), a listing's sites
	} {
		list = append(list, domain...)
	}
	// Signed-in operations work on the network's shared data (an owner's
	// listings on any site): their reads see every listing, the site of the
	// request still names origin, settings and prices (kernel.WholeNetwork).
	for _, op := range list {
		if h := op.Handler; op.Scope != "" {
			op.Handler = func(ctx context.Context, in *ops.Input) (any, error) { return h(kernel.WholeNetwork(ctx), in) }
		}
	}
	return list
}

// jobs are the periodic tasks of every domain.
func (a *App) jobs() []kernel.Job {
	list := []kernel.Job{
		{Name: "launch scheduler", Every: time.Minute, Run: a.Catalog.GoLiveDue},
		{Name: "idempotency purge", Every: time.Hour, Run: a.PurgeIdempotency},
		{Name: "outbox delivery", Every: 15 * time.Second, Run: a.DeliverOutbox},
		{Name: "webhook delivery", Every: 10 * time.Second, Run: a.Webhooks.Deliver},
		{Name: "weekly digest", Every: time.Hour, Run: a.Digest.SendDue},
		{Name: "planner statistics", Every: time.Hour, Run: a.DB.Optimize},
		{Name: "draft sweep", Every: time.Minute, Run: a.Drafting.SweepDrafts},
		{Name: "launch awards", Every: time.Hour, Run: a.Catalog.AwardWeeks},
		// 23 s of batched writes at 1M listings: not in the first minutes.
		{Name: "trending decay", Every: time.Hour, After: 5 * time.Minute, Run: a.Catalog.RefreshTrending},
		{Name: "session purge", Every: time.Hour, Run: a.People.PurgeSessions},
		{Name: "ready-made profiles", Every: 30 * time.Second, Run: a.DB.RebuildStaleProfiles},
	}
	list = append(list, a.Commerce.Jobs()...)
	return append(list, a.extraJobs...)
}

// AddJob registers another periodic task (the OAuth server's purge).
func (a *App) AddJob(j kernel.Job) { a.extraJobs = append(a.extraJobs, j) }

// RunBackground runs the draft workers and every job (once at start, then
// on its interval) until ctx ends.
func (a *App) RunBackground(ctx context.Context) {
	done, woken := make(chan struct{}), make(chan struct{})
	go func() { a.Drafting.RunWorkers(ctx); close(done) }()
	go func() { a.RunOutboxWaker(ctx); close(woken) }()
	kernel.RunJobs(ctx, a.Log, a.jobs())
	<-done
	<-woken
}
