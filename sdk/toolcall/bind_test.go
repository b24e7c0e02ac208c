package toolcall

import (
	"context"
	"encoding/json"
	"testing"

	"github.com/hearth-agent/hearth/internal/goid"
	"github.com/hearth-agent/hearth/sdk"
)

// TestBindRunsOnTheHandlersOwnGoroutine: Bind runs on the goroutine the
// handler runs on, before it, and what it returns after it; that
// goroutine is never the caller's, a Prompt tool's included.
func TestBindRunsOnTheHandlersOwnGoroutine(t *testing.T) {
	for _, prompt := range []bool{false, true} {
		var order []string
		var bound, ran uint64
		tool := &Tool{Name: "t", Prompt: prompt,
			Bind: func(context.Context) func() {
				bound = goid.ID()
				order = append(order, "bind")
				return func() { order = append(order, "unbind") }
			},
			Handler: func(context.Context, *sdk.ToolContext, map[string]any, json.RawMessage) (any, error) {
				ran = goid.ID()
				order = append(order, "handler")
				return "ok", nil
			}}
		r := tool.Invoke(context.Background(), &sdk.ToolContext{}, map[string]any{}, json.RawMessage("{}"))
		if r.IsError || r.Content != "ok" {
			t.Fatalf("prompt %v: %+v", prompt, r)
		}
		if got := order; len(got) != 3 || got[0] != "bind" || got[1] != "handler" || got[2] != "unbind" {
			t.Fatalf("prompt %v: order %v", prompt, got)
		}
		if bound != ran || ran == goid.ID() || ran == 0 {
			t.Fatalf("prompt %v: bound on %d, ran on %d, caller %d", prompt, bound, ran, goid.ID())
		}
	}
}
