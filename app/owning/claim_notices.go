package owning

import (
	"context"
	"database/sql"
	"fmt"
	"sort"
	"strings"
	"unicode/utf8"

	"launchdir/app/kernel"
	"launchdir/db"
	"launchdir/ops"
)

// Claim notices (issue 22): a listing's owners hear when someone files a
// claim on it and when a claim succeeds, each time with a way to dispute
// it; the claimant hears when they became an owner. A dispute goes to the
// site team's reports queue.

// disputeURL is the page where an owner disputes a claim.
func (a *Service) disputeURL(ctx context.Context, claimID int64) string {
	return fmt.Sprintf("%s/claim-disputes/%d", a.Origin(ctx), claimID)
}

// claimParties reads who and what a claim is about.
func claimParties(ctx context.Context, tx *sql.Tx, claimID int64) (listingID, claimant int64, name, slug, who, method string, err error) {
	err = tx.QueryRowContext(ctx, `SELECT c.listing_id, c.user_id, l.name, l.slug,
		CASE WHEN u.name != '' THEN u.name || ' <' || u.email || '>' ELSE u.email END, c.method
		FROM claims c JOIN listings l ON l.id = c.listing_id JOIN users u ON u.id = c.user_id WHERE c.id = ?`, claimID).
		Scan(&listingID, &claimant, &name, &slug, &who, &method)
	return
}

var claimMethodWords = map[string]string{"dns": "a DNS TXT record", "meta": "a meta tag on the homepage", "file": "a file on the site",
	"email": "a link emailed to an address at the listing's domain"}

// notifyClaimFiled tells the owners a claim was filed.
func (a *Service) notifyClaimFiled(ctx context.Context, tx *sql.Tx, claimID int64) error {
	lid, claimant, name, _, who, method, err := claimParties(ctx, tx, claimID)
	if err != nil {
		return err
	}
	if err := a.emitClaim(ctx, tx, "claim.created", claimID, lid, method); err != nil {
		return err
	}
	_, err = a.NotifyOwners(ctx, tx, lid, claimant, kernel.Notice{Kind: "claim",
		Subject: "Someone claims " + name,
		Text: who + " filed a claim to become an owner of " + name + " (claim " + fmt.Sprint(claimID) + ", proved by " + claimMethodWords[method] + ").\n\n" +
			"If they prove control of the site, they become a co-owner and can edit the listing. If you did not expect this, dispute the claim: the site team will look at it.",
		Link: a.disputeURL(ctx, claimID), Button: "Dispute this claim"})
	return err
}

// notifyClaimGranted tells the claimant and the other owners.
func (a *Service) notifyClaimGranted(ctx context.Context, tx *sql.Tx, claimID int64) error {
	lid, claimant, name, slug, who, method, err := claimParties(ctx, tx, claimID)
	if err != nil {
		return err
	}
	if err := a.emitClaim(ctx, tx, "claim.verified", claimID, lid, method); err != nil {
		return err
	}
	if _, err := a.Notify(ctx, tx, kernel.Notice{Kind: "claim", UserID: claimant, Subject: "You are now an owner of " + name,
		Text: "Your claim of " + name + " is verified: you can edit the listing from your founder area.",
		Link: a.Origin(ctx) + "/me/listings/" + fmt.Sprint(lid), Button: "Open your listing"}); err != nil {
		return err
	}
	_, err = a.NotifyOwners(ctx, tx, lid, claimant, kernel.Notice{Kind: "claim",
		Subject: who + " is now a co-owner of " + name,
		Text: who + " proved control of " + name + "'s site (" + claimMethodWords[method] + ") and is now a co-owner of " + a.ListingURL(ctx, slug) + ".\n\n" +
			"If this is wrong, dispute the claim: the site team will look at it and can remove them.",
		Link: a.disputeURL(ctx, claimID), Button: "Dispute this claim"})
	return err
}

// ClaimToDispute is what the dispute page shows an owner.
type ClaimToDispute struct {
	ID          int64
	ListingName string
	ListingSlug string
	Claimant    string
	Method      string
	Status      string
	CreatedAt   string
}

// ClaimForDispute finds a claim on one of userID's listings (filed by
// someone else); any other claim is not found, so ids cannot be probed.
func (a *Service) ClaimForDispute(ctx context.Context, userID, claimID int64) (*ClaimToDispute, error) {
	var c ClaimToDispute
	err := a.DB.R.QueryRowContext(ctx, `SELECT c.id, l.name, l.slug, CASE WHEN u.name != '' THEN u.name ELSE u.email END, c.method, c.status, c.created_at
		FROM claims c JOIN listings l ON l.id = c.listing_id JOIN users u ON u.id = c.user_id
		WHERE c.id = ? AND c.user_id != ?2 AND EXISTS(SELECT 1 FROM listing_owners o WHERE o.listing_id = c.listing_id AND o.user_id = ?2)`, claimID, userID).
		Scan(&c.ID, &c.ListingName, &c.ListingSlug, &c.Claimant, &c.Method, &c.Status, &c.CreatedAt)
	if db.IsNoRows(err) {
		return nil, ops.NotFound("claim")
	}
	c.Method = claimMethodWords[c.Method]
	return &c, err
}

// DisputeClaim puts an owner's dispute of a claim in the site team's
// reports queue (as a report of the listing naming the claim).
func (a *Service) DisputeClaim(ctx context.Context, userID, claimID int64, reason string) error {
	reason = strings.TrimSpace(reason)
	if n := utf8.RuneCountInString(reason); n < 1 || n > 400 {
		return ops.Invalid("reason", "say why in 1 to 400 characters")
	}
	c, err := a.ClaimForDispute(ctx, userID, claimID)
	if err != nil {
		return err
	}
	return a.DB.Tx(ctx, func(tx *sql.Tx) error {
		var lid int64
		if err := tx.QueryRowContext(ctx, `SELECT listing_id FROM claims WHERE id = ?`, claimID).Scan(&lid); err != nil {
			return err
		}
		_, err := tx.ExecContext(ctx, `INSERT INTO reports(user_id, kind, listing_id, reason, created_at) VALUES(?,?,?,?,?)
			ON CONFLICT DO NOTHING`, userID, "listing", lid,
			fmt.Sprintf("Claim %d by %s disputed by an owner: %s", c.ID, c.Claimant, reason), a.NowText())
		return err
	})
}

// emitClaim sends a claim event to the listing's webhooks (the claimant's
// email is not sent: integrations of the current owners get the claim).
func (a *Service) emitClaim(ctx context.Context, tx *sql.Tx, typ string, claimID, listingID int64, method string) error {
	return a.EmitEvent(ctx, tx, kernel.Event{Type: typ, ListingID: listingID, Data: map[string]any{
		"listing": a.ListingRef(ctx, tx, listingID), "claim": map[string]any{"id": claimID, "method": method}}})
}

// emitUpdated sends listing.updated with the names of the changed fields.
func (a *Service) emitUpdated(ctx context.Context, tx *sql.Tx, listingID int64, after map[string]any) error {
	if listened, err := a.Listened(ctx, tx); err != nil || !listened { // every owner edit: skip ListingRef's query
		return err
	}
	fields := make([]string, 0, len(after))
	for k := range after {
		fields = append(fields, k)
	}
	sort.Strings(fields)
	return a.EmitEvent(ctx, tx, kernel.Event{Type: "listing.updated", ListingID: listingID, Data: map[string]any{
		"listing": a.ListingRef(ctx, tx, listingID), "fields": fields}})
}
