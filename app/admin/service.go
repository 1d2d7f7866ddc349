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
	"launchdir/app/media"
	"launchdir/app/people"
)

// Service is the admin domain.
type Service struct {
	*kernel.Kernel
	Commerce *commerce.Service
	Media    *media.Service
	// People holds the vote rings the site team reviews.
	People *people.Service
}

// New builds the admin domain.
func New(k *kernel.Kernel, p *people.Service, c *commerce.Service, m *media.Service) *Service {
	return &Service{Kernel: k, People: p, Commerce: c, Media: m}
}
