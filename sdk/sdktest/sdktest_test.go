package sdktest

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"testing"

	"github.com/hearth-agent/hearth/sdk"
)

type probe struct{ start func(*sdk.PluginSDK) error }

func (p probe) Name() string                 { return "probe" }
func (p probe) Start(s *sdk.PluginSDK) error { return p.start(s) }
func (p probe) Stop() error                  { return nil }

func factory(start func(*sdk.PluginSDK) error) sdk.NewPlugin {
	return func(string, map[string]any) (sdk.Plugin, error) { return probe{start}, nil }
}

// A write a stage does not allow is undone and logged, as Hearth does:
// the Harness runs Hearth's pipeline (sdk/pipeline), so a plugin author's
// test catches it.
func TestHarnessEnforcesMatrixAndRecordsInjections(t *testing.T) {
	h := Start(t, "probe", factory(func(s *sdk.PluginSDK) error {
		s.RegisterStage(sdk.StagePreAction, func(ctx *sdk.StageContext) error {
			ctx.RawMessage = "sneaky"
			return nil
		})
		if err := s.Settings().Set("k", "v"); err != nil {
			return err
		}
		s.InjectText("probe", "probe", "hello")
		s.InjectInterruptText("probe", "probe", "now!")
		s.InjectText("probe", "terminal", "refused: not its channel")
		return nil
	}), nil)
	sc := h.RunStage(sdk.StagePreAction, &sdk.StageContext{RawMessage: "orig"})
	if sc.RawMessage != "orig" {
		t.Fatalf("forbidden write kept: %q", sc.RawMessage)
	}
	if logs := strings.Join(h.Logs(), "\n"); !strings.Contains(logs, "field=RawMessage") || !strings.Contains(logs, "plugin=probe") {
		t.Fatalf("logs: %s", logs)
	}
	inj := h.Injected()
	if len(inj) != 2 || inj[0].Text != "hello" || inj[0].Interrupt || !inj[1].Interrupt || inj[0].Source != "probe" {
		t.Fatalf("injected %+v", inj)
	}
	if v, _ := h.SDK().Settings().Get("k"); v != "v" {
		t.Fatalf("settings: %v", v)
	}
	if h.SDK().DataDir() == "" {
		t.Fatal("no data dir")
	}
}

func TestHarnessToolContext(t *testing.T) {
	var seen *sdk.ToolContext
	h := Start(t, "probe", factory(func(s *sdk.PluginSDK) error {
		type in struct {
			N int `json:"n"`
		}
		return sdk.AddTool(s, sdk.ToolDef{Name: "double"}, func(_ context.Context, tc *sdk.ToolContext, a in) (int, error) {
			seen = tc
			return a.N * 2, nil
		})
	}), nil)
	if r := h.CallTool("double", `{"n": 21}`); r.Content != "42" {
		t.Fatalf("%+v", r)
	}
	if seen.PluginID != "probe" || seen.Tool != "double" || seen.Actor != sdk.ActorAgent {
		t.Fatalf("tool context %+v", seen)
	}
	if r := h.CallTool("probe__double", `{"n": "x"}`); !r.IsError {
		t.Fatalf("invalid input accepted: %+v", r)
	}
}

func TestHarnessLogsFailingStageHandlers(t *testing.T) {
	h := Start(t, "probe", factory(func(s *sdk.PluginSDK) error {
		s.RegisterStage(sdk.StageOnInput, func(*sdk.StageContext) error { panic("boom") })
		s.RegisterStage(sdk.StageOnInput, func(sc *sdk.StageContext) error {
			sc.RawMessage += " seen"
			return errors.New("refused")
		})
		s.RegisterStage(sdk.StageOnInput, func(sc *sdk.StageContext) error {
			r := "stop"
			sc.Response = &r
			return nil
		})
		s.RegisterStage(sdk.StageOnInput, func(sc *sdk.StageContext) error {
			sc.RawMessage = "ran after Response"
			return nil
		})
		return nil
	}), nil)
	if sc := h.RunStage(sdk.StageOnInput, &sdk.StageContext{RawMessage: "hi"}); sc.RawMessage != "hi seen" || sc.Response == nil {
		t.Fatalf("got %q, %v", sc.RawMessage, sc.Response)
	}
	logs := strings.Join(h.Logs(), "\n")
	if !strings.Contains(logs, "panic: boom") || !strings.Contains(logs, "err=refused") || !strings.Contains(logs, "plugin=probe") {
		t.Fatalf("logs: %s", logs)
	}
}

// A refusal, once set, stays: a later handler that clears it has that
// write undone, and the Harness logs it.
func TestHarnessKeepsRefusals(t *testing.T) {
	h := Start(t, "probe", factory(func(s *sdk.PluginSDK) error {
		s.RegisterStage(sdk.StageBeforeToolcall, func(sc *sdk.StageContext) error {
			sc.ToolCalls[0].Deny = "no buying"
			return nil
		})
		s.RegisterStage(sdk.StageBeforeToolcall, func(sc *sdk.StageContext) error {
			sc.ToolCalls[0].Deny = ""
			return nil
		})
		return nil
	}), nil)
	sc := h.RunStage(sdk.StageBeforeToolcall, &sdk.StageContext{ToolCalls: []sdk.ToolCall{{ID: "c", Name: "shop__buy"}}})
	if len(sc.ToolCalls) != 1 || sc.ToolCalls[0].Deny != "no buying" {
		t.Fatalf("calls %+v", sc.ToolCalls)
	}
	if logs := strings.Join(h.Logs(), "\n"); !strings.Contains(logs, "the refusal stays") {
		t.Fatalf("logs: %s", logs)
	}
}

func TestHarnessToolRegistration(t *testing.T) {
	h := Start(t, "probe", factory(func(s *sdk.PluginSDK) error {
		h := func(map[string]any) (any, error) { return "ok", nil }
		if err := s.RegisterTool("a", sdk.ToolDef{}, h); err != nil {
			return err
		}
		if err := s.RegisterTool("a", sdk.ToolDef{}, h); err == nil {
			return errors.New("a duplicate tool was accepted")
		}
		if err := s.RegisterTool("b", sdk.ToolDef{Parameters: map[string]any{"type": "string"}}, h); err == nil {
			return errors.New("a schema that is not an object's was accepted")
		}
		return nil
	}), nil)
	if got := h.Tools(); len(got) != 1 || got[0] != "probe__a" {
		t.Fatalf("tools %v", got)
	}
	if r := h.CallTool("nope", nil); !r.IsError || !strings.Contains(r.Content, "unknown tool") {
		t.Fatalf("%+v", r)
	}
	if r := h.CallTool("a", `{"x":1,"X":2}`); !r.IsError || !strings.Contains(r.Content, "duplicate key") {
		t.Fatalf("duplicate keys accepted: %+v", r)
	}
}

func TestHarnessRefusesNamesHearthRefuses(t *testing.T) {
	Start(t, "probe", factory(func(s *sdk.PluginSDK) error {
		h := func(map[string]any) (any, error) { return "ok", nil }
		for _, name := range []string{"", "query.v2", strings.Repeat("x", 60)} {
			if err := s.RegisterTool(name, sdk.ToolDef{}, h); err == nil {
				return fmt.Errorf("tool name %q accepted", name)
			}
		}
		return nil
	}), nil)
}
