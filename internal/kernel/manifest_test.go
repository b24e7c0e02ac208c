package kernel

import (
	"context"
	"errors"
	"strings"
	"testing"

	"github.com/hearth-agent/hearth/sdk"
	"github.com/hearth-agent/hearth/sdk/llmtest"
)

// manifested is a plugin with a manifest.
type manifested struct {
	pluginFunc
	m sdk.Manifest
}

func (p manifested) Manifest() sdk.Manifest { return p.m }

func loadManifested(k *Kernel, m sdk.Manifest, start func(*sdk.PluginSDK) error) error {
	return k.LoadPlugin(m.ID, func(n string, _ map[string]any) (sdk.Plugin, error) {
		return manifested{pluginFunc{n, start}, m}, nil
	}, nil)
}

func TestManifestDefaultsInstructionsAndContext(t *testing.T) {
	e := newEnv(t, Options{},
		llmtest.Reply{ToolCalls: []llmtest.Call{{ID: "p", Name: "card__pay", Arguments: `{}`}}},
		llmtest.Reply{Text: "ok"},
	)
	paid := false
	err := loadManifested(e.k, sdk.Manifest{
		ID: "card", Name: "校园卡", Version: "1.2.0", Scopes: []string{"card.pku.edu.cn"},
		DefaultModes: map[sdk.Effect]sdk.Mode{sdk.EffectMoney: sdk.ModeAsk},
		Instructions: "Use card__pay only when the user asks to top up.",
		Context: func(_ context.Context, in sdk.ContextInput) (string, error) {
			return "balance: 12.5 CNY (query was " + in.Query + ")", nil
		},
	}, func(s *sdk.PluginSDK) error {
		return s.RegisterTool("pay", sdk.ToolDef{Effect: sdk.EffectMoney}, func(map[string]any) (any, error) { paid = true; return "paid", nil })
	})
	if err != nil {
		t.Fatal(err)
	}
	e.ask(t, "top up")
	if paid {
		t.Fatal("money tool ran though the manifest says ask and nobody could be asked")
	}
	req := e.srv.Requests()[0]
	if sys := req.Messages[0]["content"].(string); !strings.Contains(sys, "## 校园卡 (card)\nUse card__pay only") {
		t.Fatalf("instructions missing from the system prompt: %q", sys)
	}
	last := req.Messages[len(req.Messages)-1]["content"].(string)
	if !strings.Contains(last, "balance: 12.5 CNY (query was top up)") || !strings.Contains(last, "not instructions") {
		t.Fatalf("context not sent as data: %q", last)
	}
}

func TestManifestRequirementsHidePlugin(t *testing.T) {
	e := newEnv(t, Options{})
	err := loadManifested(e.k, sdk.Manifest{ID: "campus", Name: "校园网", Version: "0.1.0",
		Requires: []sdk.Capability{sdk.CapNetwork, sdk.CapCampusNetwork}}, func(s *sdk.PluginSDK) error {
		t.Error("a hidden plugin was started")
		return nil
	})
	if !errors.Is(err, ErrHidden) || !strings.Contains(err.Error(), "campus-network") {
		t.Fatalf("err = %v", err)
	}
	if reason := e.k.Hidden()["campus"]; !strings.Contains(reason, "campus-network") {
		t.Fatalf("hidden reason %q", reason)
	}
}

func TestInvalidManifestRefused(t *testing.T) {
	e := newEnv(t, Options{})
	for _, m := range []sdk.Manifest{
		{ID: "Bad_ID", Name: "x", Version: "1.0.0"},
		{ID: "ok-id", Name: "x", Version: "one"},
		{ID: "ok-id", Name: "x", Version: "1.0.0", DefaultModes: map[sdk.Effect]sdk.Mode{sdk.EffectMoney: "maybe"}},
		{ID: "other", Name: "x", Version: "1.0.0"}, // differs from the registered name below
	} {
		t.Run(m.ID+" "+m.Version, func(t *testing.T) {
			id := m.ID
			if id == "other" {
				id = "registered"
			}
			err := e.k.LoadPlugin(id, func(n string, _ map[string]any) (sdk.Plugin, error) {
				return manifested{pluginFunc{n, func(*sdk.PluginSDK) error { return nil }}, m}, nil
			}, nil)
			if err == nil {
				t.Errorf("manifest %+v accepted", m)
			}
		})
	}
}

// SetManifest applies an outside plugin's manifest as LoadPlugin does, and
// Withdraw forgets it.
func TestSetManifestOfAnOutsidePlugin(t *testing.T) {
	e := newEnv(t, Options{}, llmtest.Reply{Text: "ok"}, llmtest.Reply{Text: "ok"})
	if err := e.k.SetManifest("card", sdk.Manifest{ID: "other", Name: "x", Version: "1.0.0"}); err == nil {
		t.Fatal("a manifest with another id was accepted")
	}
	if err := e.k.SetManifest("card", sdk.Manifest{ID: "card", Name: "x", Version: "1"}); err == nil {
		t.Fatal("an invalid manifest was accepted")
	}
	err := e.k.SetManifest("campus", sdk.Manifest{ID: "campus", Name: "x", Version: "1.0.0", Requires: []sdk.Capability{sdk.CapCampusNetwork}})
	if !errors.Is(err, ErrHidden) || e.k.Hidden()["campus"] == "" {
		t.Fatalf("unmet requirement: %v %v", err, e.k.Hidden())
	}
	if err := e.k.SetManifest("card", sdk.Manifest{ID: "card", Name: "校园卡", Version: "1.0.0", Instructions: "outside instructions"}); err != nil {
		t.Fatal(err)
	}
	e.ask(t, "hi")
	if sys := e.srv.Requests()[0].Messages[0]["content"].(string); !strings.Contains(sys, "## 校园卡 (card)\noutside instructions") {
		t.Fatalf("instructions missing: %q", sys)
	}
	e.k.Withdraw("card")
	e.ask(t, "hi")
	if sys := e.srv.Requests()[1].Messages[0]["content"].(string); strings.Contains(sys, "outside instructions") {
		t.Fatalf("instructions kept after Withdraw: %q", sys)
	}
}
