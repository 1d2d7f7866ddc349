// Package admin is the site team's work: moderation (listings, reviews,
// bans, reports), revisions and reverts, the launch calendar (weekly free
// capacity, moving launches, the free queue), commerce administration
// (prices, promo codes, orders, refunds), data imports, the email outbox,
// site settings and the audit log. Every action is checked against the
// admin flag and audited in the same transaction.
//
// It is the top domain: it imports the kernel, people (account types),
// owning (listing snapshots and revisions) and commerce (prices, promo codes).
package admin

import (
	"launchdir/app/commerce"
	"launchdir/app/kernel"
	"launchdir/app/people"
)

// Service is the admin domain.
type Service struct {
	*kernel.Kernel
	Commerce *commerce.Service
	// People holds the vote rings the site team reviews (set by app.New).
	People *people.Service
}

// New builds the admin domain.
func New(k *kernel.Kernel, c *commerce.Service) *Service {
	return &Service{Kernel: k, Commerce: c}
}
