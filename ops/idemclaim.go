package ops

import "context"

// IdemClaim names the idempotency key a request runs under. The executor
// puts it in the context; every write transaction of that request marks the
// key as "effect committed" inside the same transaction (db.Tx), so a crash
// between the effect and the stored response can never make the released
// key run the operation a second time.
type IdemClaim struct {
	UserID int64
	Key    string
}

type idemClaimKey struct{}

// WithIdemClaim returns ctx carrying the claim.
func WithIdemClaim(ctx context.Context, c IdemClaim) context.Context {
	return context.WithValue(ctx, idemClaimKey{}, c)
}

// IdemClaimFrom returns the claim of ctx, if any.
func IdemClaimFrom(ctx context.Context) (IdemClaim, bool) {
	c, ok := ctx.Value(idemClaimKey{}).(IdemClaim)
	return c, ok
}
