package kernel

import (
	"context"
	"strings"
	"testing"

	"github.com/hearth-agent/hearth/examples/homeagent/weather"
	"github.com/hearth-agent/hearth/sdk"
	"github.com/hearth-agent/hearth/sdk/llmtest"
)

// The HomeAgent document's examples, as the weather example plugin writes
// them: a blacklist at on_input and context injection at pre_action, run
// through the real agent loop.
func TestHomeAgentStageExamples(t *testing.T) {
	e := newEnv(t, Config{}, llmtest.Reply{Text: "hello"})
	if err := e.k.LoadPlugin("weather", weather.NewPlugin, nil); err != nil {
		t.Fatal(err)
	}
	blocked := e.k.Ask(context.Background(), Input{Injection: sdk.Injection{Channel: "qq", UserID: "blocked_user", Text: "hi"}})
	if blocked.Text != "已被限制使用" || len(e.srv.Requests()) != 0 {
		t.Fatalf("blocked user: %+v, %d requests", blocked, len(e.srv.Requests()))
	}
	ok := e.k.Ask(context.Background(), Input{Injection: sdk.Injection{Channel: "qq", UserID: "alice", Text: "hi"}})
	if ok.Text != "hello" {
		t.Fatalf("%+v", ok)
	}
	req := e.srv.Requests()[0]
	last := req.Messages[len(req.Messages)-1]
	if last["role"] != "system" || !strings.HasPrefix(last["content"].(string), "当前时间: ") {
		t.Fatalf("injected context missing: %v", req.Messages)
	}
	if names := req.ToolNames(); len(names) != 1 || names[0] != "weather__weather_query" {
		t.Fatalf("tools offered: %v", names)
	}
}

func TestPermissionMatrixUndoesForbiddenWrites(t *testing.T) {
	e := newEnv(t, Config{}, llmtest.Reply{Text: "model text"})
	var sawRaw string
	load(t, e.k, "rogue", func(s *sdk.PluginSDK) error {
		s.RegisterStage(sdk.StageOnInput, func(ctx *sdk.StageContext) error {
			ctx.RawMessage = "rewritten"   // allowed
			ctx.FinalText = "forged"       // not allowed at on_input
			ctx.UserID = "admin"           // never allowed
			ctx.Extra["seen"] = "on_input" // always allowed
			return nil
		})
		s.RegisterStage(sdk.StagePreAction, func(ctx *sdk.StageContext) error {
			ctx.RawMessage = "too late" // not allowed at pre_action
			sawRaw = ctx.RawMessage
			return nil
		})
		s.RegisterStage(sdk.StagePostAction, func(ctx *sdk.StageContext) error {
			ctx.LLMText = strings.ToUpper(ctx.LLMText) // allowed
			ctx.ContextMsgs = nil                      // not allowed
			return nil
		})
		s.RegisterStage(sdk.StageAfterOutput, func(ctx *sdk.StageContext) error {
			ctx.FinalText = "changed after sending" // read-only here
			r := "late response"
			ctx.Response = &r // not allowed at after_output
			if ctx.Extra["seen"] != "on_input" {
				t.Errorf("Extra lost between stages: %v", ctx.Extra)
			}
			return nil
		})
		return nil
	})
	out := e.ask(t, "original")
	if out.Text != "MODEL TEXT" {
		t.Fatalf("%+v", out)
	}
	if sawRaw != "too late" {
		t.Fatalf("handler's own view: %q", sawRaw)
	}
	req := e.srv.Requests()[0]
	if got := req.Messages[len(req.Messages)-1]["content"]; got != "rewritten" {
		t.Fatalf("user message sent: %v", got)
	}
	logs := e.logs.String()
	for _, f := range []string{"field=FinalText", "field=UserID", "field=RawMessage", "field=ContextMsgs", "field=Response"} {
		if !strings.Contains(logs, f) {
			t.Errorf("no log for undone write of %s:\n%s", f, logs)
		}
	}
}

func TestBeforeToolcallDenyAndOwnTools(t *testing.T) {
	e := newEnv(t, Config{},
		llmtest.Reply{ToolCalls: []llmtest.Call{
			{ID: "send", Name: "qq__send", Arguments: `{"text":"hi"}`},
			{ID: "now", Name: "clock__now", Arguments: `{}`},
		}},
		llmtest.Reply{Text: "ok"},
	)
	load(t, e.k, "clock", clockPlugin)
	var qqSaw []string
	sent := false
	load(t, e.k, "qq", func(s *sdk.PluginSDK) error {
		_ = s.RegisterTool("send", sdk.ToolDef{}, func(map[string]any) (any, error) { sent = true; return "sent", nil })
		s.RegisterStageOwnTools(sdk.StageBeforeToolcall, func(ctx *sdk.StageContext) error {
			qqSaw = append(qqSaw, ctx.ToolCalls[0].Name)
			ctx.ToolCalls[0].Deny = "群发消息需要管理员确认"
			return nil
		})
		return nil
	})
	if out := e.ask(t, "x"); out.Text != "ok" {
		t.Fatalf("%+v", out)
	}
	if sent {
		t.Fatal("denied tool ran")
	}
	if len(qqSaw) != 1 || qqSaw[0] != "qq__send" {
		t.Fatalf("own-tools handler saw %v", qqSaw)
	}
	msgs := e.srv.Requests()[1].Messages
	denied, _ := toolMessage(msgs, "send")
	if !strings.Contains(denied["content"].(string), "群发消息需要管理员确认") {
		t.Fatalf("denial reason not shown to the model: %v", denied)
	}
	now, _ := toolMessage(msgs, "now")
	if !strings.Contains(now["content"].(string), "12:00") {
		t.Fatalf("other tool affected: %v", now)
	}
}

func TestStageHandlersContainedAndRewrite(t *testing.T) {
	e := newEnv(t, Config{},
		llmtest.Reply{ToolCalls: []llmtest.Call{{ID: "c", Name: "clock__now", Arguments: `{"zone":"UTC"}`}}},
		llmtest.Reply{Text: "final"},
	)
	load(t, e.k, "clock", clockPlugin)
	var order []string
	load(t, e.k, "hooks", func(s *sdk.PluginSDK) error {
		s.RegisterStage(sdk.StagePreAction, func(*sdk.StageContext) error { order = append(order, "1"); panic("bad plugin") })
		s.RegisterStage(sdk.StagePreAction, func(*sdk.StageContext) error { order = append(order, "2"); return context.DeadlineExceeded })
		s.RegisterStage(sdk.StagePreAction, func(*sdk.StageContext) error { order = append(order, "3"); return nil })
		s.RegisterStage(sdk.StageBeforeToolcall, func(ctx *sdk.StageContext) error {
			ctx.ToolCalls[0].Arguments["zone"] = "Asia/Tokyo"
			return nil
		})
		s.RegisterStage(sdk.StageAfterToolcall, func(ctx *sdk.StageContext) error {
			ctx.ToolResults[0].Result = map[string]any{"redacted": true}
			return nil
		})
		s.RegisterStage(sdk.StageBeforeOutput, func(ctx *sdk.StageContext) error {
			ctx.FinalText += "!"
			return nil
		})
		return nil
	})
	out := e.ask(t, "x")
	if out.Text != "final!" {
		t.Fatalf("%+v", out)
	}
	if strings.Join(order, "") != "123" {
		t.Fatalf("handler order %v", order)
	}
	msgs := e.srv.Requests()[1].Messages
	tm, _ := toolMessage(msgs, "c")
	if tm["content"] != `{"redacted":true}` {
		t.Fatalf("after_toolcall rewrite lost: %v", tm)
	}
	for _, m := range msgs {
		if m["role"] == "assistant" {
			calls := m["tool_calls"].([]any)
			args := calls[0].(map[string]any)["function"].(map[string]any)["arguments"]
			if args != `{"zone":"Asia/Tokyo"}` {
				t.Fatalf("history shows arguments %v, want the rewritten ones", args)
			}
		}
	}
	if !strings.Contains(e.logs.String(), "stage handler panicked") {
		t.Fatal("panic not logged")
	}
}

func TestResponseShortCircuitsFromPostAction(t *testing.T) {
	e := newEnv(t, Config{}, llmtest.Reply{ToolCalls: []llmtest.Call{{Name: "clock__now", Arguments: `{}`}}})
	load(t, e.k, "clock", clockPlugin)
	afterOutput := false
	beforeOutput := false
	load(t, e.k, "stopper", func(s *sdk.PluginSDK) error {
		s.RegisterStage(sdk.StagePostAction, func(ctx *sdk.StageContext) error { ctx.SetResponse("stopped"); return nil })
		s.RegisterStage(sdk.StagePostAction, func(ctx *sdk.StageContext) error { t.Error("handler after Response ran"); return nil })
		s.RegisterStage(sdk.StageBeforeOutput, func(*sdk.StageContext) error { beforeOutput = true; return nil })
		s.RegisterStage(sdk.StageAfterOutput, func(ctx *sdk.StageContext) error {
			afterOutput = ctx.FinalText == "stopped"
			return nil
		})
		return nil
	})
	if out := e.ask(t, "x"); out.Text != "stopped" {
		t.Fatalf("%+v", out)
	}
	if len(e.srv.Requests()) != 1 || beforeOutput || !afterOutput {
		t.Fatalf("requests %d, before_output %v, after_output %v", len(e.srv.Requests()), beforeOutput, afterOutput)
	}
}

func TestUnknownStageRejected(t *testing.T) {
	p := NewPipeline(nil)
	if err := p.Register("x", sdk.Stage("on_everything"), false, func(*sdk.StageContext) error { return nil }); err == nil {
		t.Fatal("unknown stage accepted")
	}
}
