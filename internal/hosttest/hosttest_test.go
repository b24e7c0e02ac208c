package hosttest

import (
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

func TestServices(t *testing.T) {
	h := sdktest.StartWith(t, "notes", factory(func(s *sdk.PluginSDK) error {
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
