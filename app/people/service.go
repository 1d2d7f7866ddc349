// Package people holds everything about a person: accounts, passwords,
// email verification and resets, sessions and the sign-in limit, API keys
// and OAuth grants, bearer authentication, and what a signed-in visitor
// does on a listing: votes, follows (with the followers' emails), reviews
// and reports.
//
// It imports only the kernel.
package people

import (
	"sync"

	"launchdir/app/kernel"
)

// Service is the people domain.
type Service struct {
	*kernel.Kernel
	// OAuthTokens resolves OAuth access tokens (set by the OAuth server).
	OAuthTokens TokenResolver

	runtime *peopleRuntime
	// keyTouched: the minute (Unix time / 60) each API key's last use was
	// last recorded (touchAPIKey).
	keyTouched sync.Map
	// keys: API keys already resolved (principalForAPIKey).
	keys keyCache
}

// New builds the people domain over the kernel.
func New(k *kernel.Kernel) *Service { return &Service{Kernel: k, runtime: newPeopleRuntime()} }
