package mcp_test

import (
	"context"
	"strings"
	"testing"
	"time"

	"launchdir/apitest"
	"launchdir/mcp"
	"launchdir/ops"
	"launchdir/testsite"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"
)

// diesBeforeFinish is the idempotency store of a process killed right
// after a request's effect committed: what the executor would store after
// the handler returned never reaches the database.
type diesBeforeFinish struct{ ops.IdemStore }

func (diesBeforeFinish) Finish(context.Context, int64, string, *ops.Result) error { return nil }

// submit_listing with a progress token answers the draft as the crawl
// leaves it, known only after the draft's insert committed, so that
// response cannot be stored with the effect (routes'
// TestResponseStoredWithEffect covers every operation that can). When the
// process dies before storing it, a retry of the key after the release
// window answers the effect_committed conflict and never makes a second
// draft.
func TestSubmitListingProgressFallback(t *testing.T) {
	e := newBackgroundEnv(t)
	e.App.Exec.Idem = diesBeforeFinish{e.App.Exec.Idem}
	closed := testsite.Serve(t, "closedbot", nil)
	client := sdk.NewClient(&sdk.Implementation{Name: "t", Version: "1"}, &sdk.ClientOptions{
		ProgressNotificationHandler: func(context.Context, *sdk.ProgressNotificationClientRequest) {},
	})
	cs := connect(t, e, conn{hdr: bearer(e.APIKey("owner@example.com")), client: client})
	submit := func() *sdk.CallToolResult {
		params := &sdk.CallToolParams{Name: "submit_listing", Arguments: map[string]any{"url": closed.URL + "/", mcp.IdempotencyKeyArg: "progress-1"}}
		params.SetProgressToken("tok-1")
		ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
		defer cancel()
		res, err := cs.CallTool(ctx, params)
		if err != nil {
			t.Fatal(err)
		}
		return res
	}
	e.App.Now = func() time.Time { return apitest.Now }
	if first := submit(); first.IsError || !strings.Contains(text(first), `"status":"failed"`) {
		t.Fatalf("first: %s", text(first))
	}
	e.App.Now = func() time.Time { return apitest.Now.Add(6 * time.Minute) }
	if retry := submit(); !retry.IsError || !strings.Contains(text(retry), `"effect_committed":true`) {
		t.Errorf("retry: %s, want the effect_committed conflict", text(retry))
	}
	var drafts int
	e.DB.R.QueryRow(`SELECT count(*) FROM drafts`).Scan(&drafts)
	if drafts != 1 {
		t.Errorf("%d drafts for one key, want 1", drafts)
	}
}
