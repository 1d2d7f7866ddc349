// Package owning is what an owner does with a listing once it exists: the
// owner's view and edits (versioned as revisions, copied to other sites),
// updates to followers, the founder story, milestones and the interview,
// claims of an existing listing, and the free launch.
//
// It imports the kernel and people (an update is emailed to followers).
package owning

import (
	"launchdir/app/kernel"
	"launchdir/app/people"
)

// Service is the owning domain.
type Service struct {
	*kernel.Kernel
	People *people.Service
}

// New builds the owning domain.
func New(k *kernel.Kernel, p *people.Service) *Service { return &Service{Kernel: k, People: p} }
