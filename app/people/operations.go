package people

import (
	"launchdir/ops"
)

// Operations are people's operations in the table: the signed-in account.
// Votes, follows and reviews come only from people on the site, so they
// are site actions, not operations.
func (a *Service) Operations() []*ops.Operation {
	return []*ops.Operation{
		{ID: "get_account", Output: ops.Out[Account](), Tag: "account", Method: "GET", Path: "/me", Toolset: "listings", Scope: ops.ScopeAccountRead,
			Summary:     "The signed-in user, this credential's scopes and counts",
			Description: "Returns the user, the scopes of the credential used, and counts of drafts, listings, orders and claims.",
			Handler:     a.getAccount},
	}
}
