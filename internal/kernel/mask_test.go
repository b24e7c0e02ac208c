package kernel

import (
	"context"
	"strings"
	"testing"

	"github.com/hearth-agent/hearth/internal/llm"
	"github.com/hearth-agent/hearth/internal/policy"
	"github.com/hearth-agent/hearth/internal/redact"
	"github.com/hearth-agent/hearth/sdk"
	"github.com/hearth-agent/hearth/sdk/llmtest"
)

// A key the model repeats, split across streamed pieces, in its reasoning,
// in a tool's arguments and in the tool's result, reaches no channel: not
// the events, not the outcome.
func TestEventsMaskTheProvidersKeys(t *testing.T) {
	const key = "sk-live-0123456789abcdefXYZ"
	srv := llmtest.NewServer(t,
		llmtest.Reply{Reasoning: "the key is " + key, ToolCalls: []llmtest.Call{{ID: "c1", Name: "echo__say", Arguments: `{"text":"` + key + `"}`}}},
		llmtest.Reply{Text: "Your key is " + key + ", keep it safe.", ChunkDelay: 0},
	)
	src, err := llm.NewSources([]llm.Source{{Name: "fake", BaseURL: srv.URL, APIKey: key, Model: "m"}}, "fake")
	if err != nil {
		t.Fatal(err)
	}
	k := New(src, nil, nil)
	defer k.Close()
	load(t, k, "echo", func(s *sdk.PluginSDK) error {
		return s.RegisterTool("say", sdk.ToolDef{Parameters: map[string]any{"type": "object"}},
			func(args map[string]any) (any, error) { return "said " + args["text"].(string), nil })
	})
	var text, reasoning strings.Builder
	var all []Event
	out := k.Ask(context.Background(), Input{Injection: sdk.Injection{Channel: "test", ChatID: "c", Text: "what is my key?"},
		OnEvent: func(ev Event) {
			all = append(all, ev)
			switch ev.Kind {
			case EventText:
				text.WriteString(ev.Text)
			case EventReasoning:
				reasoning.WriteString(ev.Text)
			}
		}})
	if out.Err != nil {
		t.Fatal(out.Err)
	}
	masked := redact.Mask(key)
	if text.String() != "Your key is "+masked+", keep it safe." || reasoning.String() != "the key is "+masked {
		t.Errorf("streamed text %q, reasoning %q", text.String(), reasoning.String())
	}
	for _, ev := range all {
		if strings.Contains(ev.Text+ev.Args, key) {
			t.Errorf("event %d shows the key: %+v", ev.Kind, ev)
		}
	}
	if strings.Contains(out.Text, key) {
		t.Errorf("outcome shows the key: %q", out.Text)
	}
}

// The person asked to approve a call is shown its arguments with the
// provider's key masked; the call runs with the real ones.
func TestApprovalShowsTheKeyMasked(t *testing.T) {
	const key = "sk-live-0123456789abcdefXYZ"
	srv := llmtest.NewServer(t,
		llmtest.Reply{ToolCalls: []llmtest.Call{{ID: "c1", Name: "echo__say", Arguments: `{"text":"` + key + `"}`}}},
		llmtest.Reply{Text: "done"},
	)
	src, err := llm.NewSources([]llm.Source{{Name: "fake", BaseURL: srv.URL, APIKey: key, Model: "m"}}, "fake")
	if err != nil {
		t.Fatal(err)
	}
	st := openStore(t)
	eng, err := policy.NewEngine(context.Background(), st, nil)
	if err != nil {
		t.Fatal(err)
	}
	eng.LocalChannels = append(eng.LocalChannels, "test")
	k := New(src, st, &Options{Policy: eng})
	defer k.Close()
	var ran string
	load(t, k, "echo", func(s *sdk.PluginSDK) error {
		return s.RegisterTool("say", sdk.ToolDef{Effect: sdk.EffectWrite, Parameters: map[string]any{"type": "object"}},
			func(args map[string]any) (any, error) { ran = args["text"].(string); return "ok", nil })
	})
	eng.SetDefaults("echo", map[sdk.Effect]sdk.Mode{sdk.EffectWrite: sdk.ModeAsk})
	var shown string
	out := k.Ask(context.Background(), Input{Injection: sdk.Injection{Channel: "test", ChatID: "c", UserID: "u", Text: "go"},
		Approver: func(_ context.Context, req *policy.ApprovalRequest) (policy.Answer, error) {
			shown = string(req.Args)
			return policy.AllowOnce, nil
		}})
	if out.Err != nil {
		t.Fatal(out.Err)
	}
	if strings.Contains(shown, key) || !strings.Contains(shown, redact.Mask(key)) {
		t.Errorf("the approval showed %s", shown)
	}
	if ran != key {
		t.Errorf("the tool ran with %q, not the real argument", ran)
	}
}
