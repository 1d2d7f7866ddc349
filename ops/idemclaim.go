package ops

import (
	"context"
	"sync/atomic"
)

// IdemClaim names the idempotency key a request runs under. The executor
// puts it in the context; every write transaction of that request marks the
// key as "effect committed" inside the same transaction (db.Tx), so a crash
// between the effect and the stored response can never make the released
// key run the operation a second time.
//
// An operation whose effect ends in one transaction also stores its
// response there (kernel.RespondInTx): then the effect and the response
// commit together, and a retry after any crash replays the original status
// and body instead of the effect_committed problem.
type IdemClaim struct {
	UserID int64
	Key    string
	Status int // the operation's success status, stored with the body
	// Recovery is set when this run resumes a request whose process died
	// after an effect that recorded this recovery point (db.SetIdemRecovery).
	Recovery string

	stored *atomic.Bool // a response was written in an effect's transaction
}

type idemClaimKey struct{}

// WithIdemClaim returns ctx carrying the claim.
func WithIdemClaim(ctx context.Context, c IdemClaim) context.Context {
	c.stored = new(atomic.Bool)
	return context.WithValue(ctx, idemClaimKey{}, c)
}

// WithoutIdemClaim is ctx without its claim, for a write made on the
// request's behalf that is not its effect (a search's full-text sync).
func WithoutIdemClaim(ctx context.Context) context.Context {
	if _, ok := IdemClaimFrom(ctx); !ok {
		return ctx
	}
	return context.WithValue(ctx, idemClaimKey{}, nil)
}

// IdemClaimFrom returns the claim of ctx, if any.
func IdemClaimFrom(ctx context.Context) (IdemClaim, bool) {
	c, ok := ctx.Value(idemClaimKey{}).(IdemClaim)
	return c, ok
}

// MarkStored records that the response is stored with the effect (called
// inside the transaction that stores it).
func (c IdemClaim) MarkStored() {
	if c.stored != nil {
		c.stored.Store(true)
	}
}

// Stored reports whether the response went in with the effect.
func (c IdemClaim) Stored() bool { return c.stored != nil && c.stored.Load() }
