package people

import (
	"context"
	"database/sql"
	"slices"

	"launchdir/app/kernel"
)

// VoteMilestones are the all-time counted votes at which a listing's
// webhooks get listing.votes_milestone (issue 22). A vote withdrawn and
// cast again can cross a milestone twice; receivers deduplicate on
// listing and milestone.
var VoteMilestones = []int{10, 50, 100, 250, 500, 1000, 2500, 5000, 10000}

// voteMilestone emits the event when a counted vote just reached one.
func (a *Service) voteMilestone(ctx context.Context, tx *sql.Tx, listingID int64) error {
	var votes int
	if err := tx.QueryRowContext(ctx, `SELECT votes FROM listings WHERE id = ?`, listingID).Scan(&votes); err != nil {
		return err
	}
	if !slices.Contains(VoteMilestones, votes) {
		return nil
	}
	return a.EmitEvent(ctx, tx, kernel.Event{Type: "listing.votes_milestone", ListingID: listingID,
		Data: map[string]any{"listing": a.ListingRef(ctx, tx, listingID), "votes": votes}})
}
