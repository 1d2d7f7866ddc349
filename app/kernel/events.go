package kernel

import (
	"context"
	"database/sql"
	"encoding/json"
	"time"
)

// Webhook events. A change that integrations can subscribe to calls
// EmitEvent in its own transaction: the event and one pending delivery per
// subscribed endpoint are written with the change (nothing is sent for a
// rolled-back change, nothing lost on restart); app/webhooks delivers them.

// EventTypes are the events an endpoint can subscribe to.
var EventTypes = []string{"listing.scheduled", "listing.live", "listing.updated", "listing.votes_milestone", "comment.created", "review.created",
	"claim.created", "claim.verified", "order.paid"}

// IsEventType reports whether t is one of EventTypes.
func IsEventType(t string) bool {
	for _, e := range EventTypes {
		if e == t {
			return true
		}
	}
	return false
}

// Event is one event: its type, the listing it concerns (0: none), the
// person whose own endpoints also get it (the buyer of an order; 0: none)
// and the data sent.
type Event struct {
	Type      string
	ListingID int64
	UserID    int64
	Data      map[string]any
}

// ListingRef is how events name a listing.
func (a *Kernel) ListingRef(ctx context.Context, q Querier, listingID int64) map[string]any {
	var slug, name, status string
	q.QueryRowContext(ctx, `SELECT slug, name, status FROM listings WHERE id = ?`, listingID).Scan(&slug, &name, &status)
	return map[string]any{"id": listingID, "slug": slug, "name": name, "status": status, "url": a.ListingURL(slug)}
}

// Listened reports whether any webhook endpoint is enabled (most sites have
// none: one indexed look, no writes). A caller whose event data costs
// queries (ListingRef) asks first; EmitEvent asks again either way.
func (a *Kernel) Listened(ctx context.Context, tx *sql.Tx) (bool, error) {
	var listened bool
	err := a.DB.Prepared(tx).QueryRowContext(ctx, `SELECT EXISTS(SELECT 1 FROM webhook_endpoints WHERE status = 'enabled')`).Scan(&listened)
	return listened, err
}

// EmitEvent records e for every enabled endpoint subscribed to its type:
// the site team's endpoints, and those of the listing's owners (and of
// e.UserID).
func (a *Kernel) EmitEvent(ctx context.Context, tx *sql.Tx, e Event) error {
	if listened, err := a.Listened(ctx, tx); err != nil || !listened {
		return err
	}
	now := a.Now().UTC()
	id := "msg_" + NewSecret("")[:26]
	body, err := json.Marshal(map[string]any{"type": e.Type, "timestamp": now.Format(time.RFC3339), "data": e.Data})
	if err != nil {
		return err
	}
	if _, err := tx.ExecContext(ctx, `INSERT INTO webhook_events(id, type, payload, created_at) VALUES(?,?,?,?)`,
		id, e.Type, string(body), now.Format(time.RFC3339)); err != nil {
		return err
	}
	res, err := tx.ExecContext(ctx, `INSERT INTO webhook_deliveries(endpoint_id, event_id, next_attempt_at, created_at)
		SELECT w.id, ?1, ?2, ?2 FROM webhook_endpoints w
		WHERE w.status = 'enabled' AND EXISTS(SELECT 1 FROM json_each(w.events) j WHERE j.value = ?3)
		AND ((w.scope = 'site' AND EXISTS(SELECT 1 FROM users u WHERE u.id = w.user_id AND u.is_admin))
		  OR (w.scope = 'owner' AND (w.user_id = ?5 OR w.user_id IN (SELECT o.user_id FROM listing_owners o WHERE o.listing_id = ?4))))`,
		id, now.Format(time.RFC3339), e.Type, e.ListingID, e.UserID)
	if err != nil {
		return err
	}
	if n, _ := res.RowsAffected(); n == 0 {
		// Nobody listens: keep no event.
		_, err = tx.ExecContext(ctx, `DELETE FROM webhook_events WHERE id = ?`, id)
		return err
	}
	a.WakeOutbox()
	return nil
}
