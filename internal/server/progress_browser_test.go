package server

import (
	"context"

	"testing"

	"github.com/hearth-agent/hearth/sdk"
	"github.com/hearth-agent/hearth/sdk/llmtest"
)

// TestBrowserToolProgress shows a running tool's progress on its card in
// the web UI: the tool reports, then runs until the user stops the turn.
func TestBrowserToolProgress(t *testing.T) {
	node := browserReady(t)
	work := func(s *sdk.PluginSDK) error {
		return sdk.AddTool(s, sdk.ToolDef{Name: "process", Description: "process files", Effect: sdk.EffectRead},
			func(ctx context.Context, tc *sdk.ToolContext, _ struct{}) (string, error) {
				tc.Progress(3, 10, "Processing files")
				<-ctx.Done() // until the user stops the turn
				return "", ctx.Err()
			})
	}
	e := startUI(t, map[string]func(*sdk.PluginSDK) error{"work": work},
		llmtest.Reply{ToolCalls: []llmtest.Call{{Name: "work__process", Arguments: `{}`}}})
	browse(t, node, e, "progress")
}
