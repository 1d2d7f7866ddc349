// Package catalog is the directory as visitors read it: search, listing
// profiles, alternatives and comparisons, categories, launch weeks and
// sections, leaderboards, founders, the blog, Launch of the Week awards,
// badges, trending scores, the sitemap, and the launch scheduler that makes
// scheduled listings live.
//
// It reads what the other domains write and writes only derived figures
// (awards, trending scores, go-live); it imports nothing but the kernel.
package catalog

import "launchdir/app/kernel"

// Service is the catalog domain.
type Service struct {
	*kernel.Kernel
}

// New builds the catalog over the kernel.
func New(k *kernel.Kernel) *Service { return &Service{Kernel: k} }
