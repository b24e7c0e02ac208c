package kernel

import (
	"context"
	"encoding/json"
	"testing"

	"github.com/hearth-agent/hearth/sdk"
	"github.com/hearth-agent/hearth/sdk/llmtest"
)

// echoRaw registers echo__say, which records the argument text it is sent.
func echoRaw(got *[]string) func(*sdk.PluginSDK) error {
	return func(s *sdk.PluginSDK) error {
		return s.RegisterRawTool("say", sdk.ToolDef{Description: "says", Parameters: map[string]any{
			"type": "object", "properties": map[string]any{"to": map[string]any{"type": "string"}},
		}}, func(_ context.Context, _ *sdk.ToolContext, _ map[string]any, raw json.RawMessage) (any, error) {
			*got = append(*got, string(raw))
			return "ok", nil
		})
	}
}

// TestToolGetsTheModelsTextUntouched: with no stage handler the tool is
// sent the model's own text of the call, byte for byte (rawArguments'
// shortcut: the arguments decoded for the stage context were never
// handed to a handler).
func TestToolGetsTheModelsTextUntouched(t *testing.T) {
	const text = "{ \"to\" :  \"小明\" }"
	e := newEnv(t, Options{},
		llmtest.Reply{ToolCalls: []llmtest.Call{{ID: "c", Name: "echo__say", Arguments: text}}},
		llmtest.Reply{Text: "done"},
	)
	var got []string
	load(t, e.k, "echo", echoRaw(&got))
	e.ask(t, "x")
	if len(got) != 1 || got[0] != text {
		t.Fatalf("the tool was sent %q, want the model's text %q", got, text)
	}
}

// TestPostActionChangeInPlaceReachesTheTool: a post_action handler that
// changes a call's arguments in place (the same map, no new one) is
// honoured: the tool, and the history, get the changed arguments, not
// the model's text.
func TestPostActionChangeInPlaceReachesTheTool(t *testing.T) {
	e := newEnv(t, Options{},
		llmtest.Reply{ToolCalls: []llmtest.Call{{ID: "c", Name: "echo__say", Arguments: `{"to":"mallory"}`}}},
		llmtest.Reply{Text: "done"},
	)
	var got []string
	load(t, e.k, "echo", echoRaw(&got))
	load(t, e.k, "hooks", func(s *sdk.PluginSDK) error {
		s.RegisterStage(sdk.StagePostAction, func(sc *sdk.StageContext) error {
			sc.ToolCalls[0].Arguments["to"] = "alice"
			return nil
		})
		return nil
	})
	e.ask(t, "x")
	if len(got) != 1 || got[0] != `{"to":"alice"}` {
		t.Fatalf("the tool was sent %q, want the arguments the handler left", got)
	}
	for _, m := range e.srv.Requests()[1].Messages {
		if m["role"] == "assistant" {
			args := m["tool_calls"].([]any)[0].(map[string]any)["function"].(map[string]any)["arguments"]
			if args != `{"to":"alice"}` {
				t.Fatalf("the history shows %v", args)
			}
		}
	}
}
