// Package drafting turns a website address into a listing: submit by URL,
// the fair draft pipeline (crawl, draft with evidence, guard), the founder's
// edits of the draft, co-founder invites, and submitting the draft, which
// creates the listing and keeps it in step with later draft edits.
//
// It imports the kernel, owning (a submitted draft writes the listing
// through owning's revision helpers) and media (the drafter's logo is
// fetched, stored with the draft and carried to the listing).
package drafting

import (
	"launchdir/app/kernel"
	"launchdir/app/media"
	"launchdir/app/owning"
)

// Service is the drafting domain.
type Service struct {
	*kernel.Kernel
	Owning *owning.Service
	Media  *media.Service

	drafts *draftPipeline
}

// New builds the drafting domain; SetDraftPipeline installs the crawler.
func New(k *kernel.Kernel, o *owning.Service, m *media.Service) *Service {
	return &Service{Kernel: k, Owning: o, Media: m}
}
