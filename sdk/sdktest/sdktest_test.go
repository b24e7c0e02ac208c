package sdktest

import (
	"context"
	"strings"
	"testing"

	"github.com/hearth-agent/hearth/sdk"
)

type probe struct{ start func(*sdk.PluginSDK) error }

func (p probe) Name() string                 { return "probe" }
func (p probe) Start(s *sdk.PluginSDK) error { return p.start(s) }
func (p probe) Stop() error                  { return nil }

func factory(start func(*sdk.PluginSDK) error) sdk.NewPlugin {
	return func(string, map[string]interface{}) (sdk.Plugin, error) { return probe{start}, nil }
}

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

func TestHostServices(t *testing.T) {
	h := StartWith(t, "notes", factory(func(s *sdk.PluginSDK) error {
		if err := s.Knowledge().Add("wifi", "密码是 hearth2026"); err != nil {
			return err
		}
		return s.Memory().Commit([]sdk.Triple{{Subject: "我", Relation: "住在", Object: "杭州"}})
	}), nil, Options{Services: HostServices(t, "notes")})
	hits, err := h.SDK().Knowledge().Search("密码", 1)
	if err != nil || len(hits) != 1 || hits[0].Name != "wifi" {
		t.Fatalf("knowledge: %v %v", hits, err)
	}
	ents, _, err := h.SDK().Memory().Recall([]string{"杭州"}, 1)
	if err != nil || len(ents) != 2 {
		t.Fatalf("memory: %v %v", ents, err)
	}
	if err := h.SDK().Settings().Set("k", 1); err != nil {
		t.Fatal(err)
	}
}
