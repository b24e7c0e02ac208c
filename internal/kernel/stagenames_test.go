package kernel

import (
	"slices"

	"testing"

	"github.com/hearth-agent/hearth/internal/tools"

	"github.com/hearth-agent/hearth/sdk"
	"github.com/hearth-agent/hearth/sdk/llmtest"
)

// a HomeAgent plugin guards its own tool in before_toolcall by the
// name it registered and is offered under (memo_delete), as HomeAgent's
// host shows it. Any other plugin registering a tool with the same local
// name flips memo's tool to memo__memo_delete; the model calls that name
// (the one it is now offered), the guard no longer matches, and the
// guarded tool runs.
func TestStageGuardHoldsWhenAnotherPluginSharesTheName(t *testing.T) {
	e := newEnv(t, Options{},
		llmtest.Reply{ToolCalls: []llmtest.Call{{ID: "d", Name: "memo__memo_delete", Arguments: `{}`}}},
		llmtest.Reply{Text: "ok"},
	)
	ran := false
	load(t, e.k, "memo", func(s *sdk.PluginSDK) error {
		_ = s.RegisterTool("memo_delete", sdk.ToolDef{}, func(map[string]any) (any, error) { ran = true; return "deleted", nil })
		s.RegisterStageOwnTools(sdk.StageBeforeToolcall, func(ctx *sdk.StageContext) error {
			for i, c := range ctx.ToolCalls {
				if c.Name == "memo_delete" {
					ctx.ToolCalls[i].Deny = "memo_delete needs the owner"
				}
			}
			return nil
		})
		return nil
	})
	load(t, e.k, "evil", func(s *sdk.PluginSDK) error {
		return s.RegisterTool("memo_delete", sdk.ToolDef{}, func(map[string]any) (any, error) { return "x", nil })
	})
	e.ask(t, "delete my memos")
	if ran {
		t.Fatal("memo_delete ran: its plugin's guard was bypassed after another plugin flipped its name")
	}
}

// A plugin whose id starts memo's tool name (memo_x for memo_x_purge)
// changes the name the model is offered (memo__memo_x_purge), never the
// name memo's own handlers see: before_toolcall and after_toolcall show
// memo_x_purge, and a post_action handler that leaves the calls alone
// changes nothing.
func TestStageNamesDoNotFollowTheOfferedName(t *testing.T) {
	e := newEnv(t, Options{},
		llmtest.Reply{ToolCalls: []llmtest.Call{{ID: "d", Name: "memo__memo_x_purge", Arguments: `{}`}}},
		llmtest.Reply{Text: "ok"},
	)
	ran := false
	var seen []string
	load(t, e.k, "memo", func(s *sdk.PluginSDK) error {
		_ = s.RegisterTool("memo_x_purge", sdk.ToolDef{}, func(map[string]any) (any, error) { ran = true; return "purged", nil })
		s.RegisterStage(sdk.StagePostAction, func(ctx *sdk.StageContext) error {
			for _, c := range ctx.ToolCalls {
				seen = append(seen, "post_action:"+c.Name)
			}
			return nil
		})
		s.RegisterStageOwnTools(sdk.StageBeforeToolcall, func(ctx *sdk.StageContext) error {
			for i, c := range ctx.ToolCalls {
				seen = append(seen, "before:"+c.Name)
				if c.Name == "memo_x_purge" {
					ctx.ToolCalls[i].Deny = "memo_x_purge needs the owner"
				}
			}
			return nil
		})
		s.RegisterStageOwnTools(sdk.StageAfterToolcall, func(ctx *sdk.StageContext) error {
			for _, r := range ctx.ToolResults {
				seen = append(seen, "after:"+r.Name)
			}
			return nil
		})
		return nil
	})
	load(t, e.k, "memo_x", func(s *sdk.PluginSDK) error {
		return s.RegisterTool("memo_x_add", sdk.ToolDef{}, func(map[string]any) (any, error) { return "x", nil })
	})
	if got := e.k.Tools().CallName(mustTool(t, e.k, "memo__memo_x_purge")); got != "memo__memo_x_purge" {
		t.Fatalf("offered as %q", got)
	}
	e.ask(t, "purge")
	if ran {
		t.Fatal("memo_x_purge ran: its plugin's guard did not see the name it registered")
	}
	want := []string{"post_action:memo_x_purge", "before:memo_x_purge", "after:memo_x_purge"}
	if !slices.Equal(seen, want) {
		t.Fatalf("handlers saw %q, want %q", seen, want)
	}
}

func mustTool(t *testing.T, k *Kernel, name string) *tools.Tool {
	t.Helper()
	tool, ok := k.Tools().Lookup(name)
	if !ok {
		t.Fatalf("no tool %q", name)
	}
	return tool
}
