package ops

import (
	"context"
	"io"
	"log/slog"
	"testing"
)

// Value hands a read's output over as the handler made it, after the same
// checks as Call (scope, input), and refuses a write without running it:
// writes keep Call's idempotency.
func TestValueReadsOnly(t *testing.T) {
	x := &Executor{Log: slog.New(slog.NewTextHandler(io.Discard, nil))}
	type out struct{ N int }
	ran := 0
	h := func(ctx context.Context, in *Input) (any, error) { ran++; return &out{N: 7}, nil }
	read := &Operation{ID: "read", Method: "GET", Handler: h}
	v, err := x.Value(context.Background(), read, nil, nil)
	if o, ok := v.(*out); err != nil || !ok || o.N != 7 {
		t.Fatalf("read: %#v, %v", v, err)
	}
	scoped := &Operation{ID: "scoped", Method: "GET", Scope: "account:read", Handler: h}
	if _, err := x.Value(context.Background(), scoped, nil, nil); AsError(err).Code != CodeUnauthorized {
		t.Fatalf("scoped read without a principal: %v", err)
	}
	write := &Operation{ID: "write", Method: "PATCH", Handler: h}
	if _, err := x.Value(context.Background(), write, nil, nil); AsError(err).Code != CodeInternal {
		t.Fatalf("write: %v, want an internal error", err)
	}
	if ran != 1 {
		t.Fatalf("the handler ran %d times, want once (the read)", ran)
	}
}
