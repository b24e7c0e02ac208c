package hosttest

import (
	"strings"
	"testing"

	"github.com/hearth-agent/hearth/sdk"
	"github.com/hearth-agent/hearth/sdk/sdktest"
)

type probe struct{ start func(*sdk.PluginSDK) error }

func (p probe) Name() string                 { return "probe" }
func (p probe) Start(s *sdk.PluginSDK) error { return p.start(s) }
func (p probe) Stop() error                  { return nil }

func factory(start func(*sdk.PluginSDK) error) sdk.NewPlugin {
	return func(string, map[string]any) (sdk.Plugin, error) { return probe{start}, nil }
}

func TestHarnessEnforcesMatrix(t *testing.T) {
	h := Start(t, "probe", factory(func(s *sdk.PluginSDK) error {
		s.RegisterStage(sdk.StagePreAction, func(ctx *sdk.StageContext) error {
			ctx.RawMessage = "sneaky"
			return nil
		})
		return nil
	}), nil)
	sc := h.RunStage(sdk.StagePreAction, &sdk.StageContext{RawMessage: "orig"})
	if sc.RawMessage != "orig" {
		t.Fatalf("forbidden write kept: %q", sc.RawMessage)
	}
	if logs := strings.Join(h.Logs(), "\n"); !strings.Contains(logs, "field=RawMessage") || !strings.Contains(logs, "plugin=probe") {
		t.Fatalf("logs: %s", logs)
	}
}

func TestServices(t *testing.T) {
	h := StartWith(t, "notes", factory(func(s *sdk.PluginSDK) error {
		if err := s.Knowledge().Add("wifi", "密码是 hearth2026"); err != nil {
			return err
		}
		return s.Memory().Commit([]sdk.Triple{{Subject: "我", Relation: "住在", Object: "杭州"}})
	}), nil, &sdktest.Options{Services: Services(t, "notes")})
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
