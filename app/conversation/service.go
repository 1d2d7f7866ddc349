// Package conversation is the talk around a listing: comments with one
// level of replies, maker replies and the pinned maker's comment, comment
// upvotes and reports, the "notify me at launch" list of upcoming
// listings, and the email notification settings.
//
// It imports only kernel. Everything it needs to know about people (bans,
// account age, verified email) and owners (listing_owners) is a read of
// the shared tables inside its own transaction, so the rules stay atomic
// with the write; it needs none of people's in-memory state (the sign-in
// and vote limiters) and none of owning's rules (revisions, claims). The
// notification mechanism it uses is in kernel because catalog, owning and
// people send notifications too.
package conversation

import "launchdir/app/kernel"

// Service is the conversation domain.
type Service struct {
	*kernel.Kernel
}

// New builds the conversation domain over the shared kernel.
func New(k *kernel.Kernel) *Service { return &Service{Kernel: k} }
