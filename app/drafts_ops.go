package app

import "launchdir/ops"

// draftOperations: submit_listing, list_my_drafts, get_draft, update_draft, invite_cofounder, submit_draft.
func (a *App) draftOperations() []*ops.Operation { return nil }
