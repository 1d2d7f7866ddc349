package kernel

import "context"

type clientIPKey struct{}

// WithClientIP records the caller's network address for the rules that
// limit per address (the doors know it; the domains do not see requests).
func WithClientIP(ctx context.Context, ip string) context.Context {
	return context.WithValue(ctx, clientIPKey{}, ip)
}

// ClientIP is the address WithClientIP recorded, or "".
func ClientIP(ctx context.Context) string {
	ip, _ := ctx.Value(clientIPKey{}).(string)
	return ip
}
