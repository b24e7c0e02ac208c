package kernel

import (
	"context"
	"testing"

	"github.com/hearth-agent/hearth/internal/settings"
	"github.com/hearth-agent/hearth/sdk"
	"github.com/hearth-agent/hearth/sdk/host"
	"github.com/hearth-agent/hearth/sdk/llmtest"
)

// An in-process tool gets its plugin's key-value storage in ToolContext.KV,
// the same PluginSDK.KV returns.
func TestToolContextCarriesThePluginsKV(t *testing.T) {
	e := newEnv(t, Options{},
		llmtest.Reply{ToolCalls: []llmtest.Call{{ID: "c1", Name: "notes__add", Arguments: `{"text":"买牛奶"}`}}},
		llmtest.Reply{Text: "记下了。"},
	)
	svc := settings.New(e.st, e.dir)
	e.k.cfg.Services = func(plugin string) host.Services {
		return host.Services{Settings: svc.For(plugin), KV: svc.KV(plugin)}
	}
	type in struct {
		Text string `json:"text"`
	}
	var pluginKV sdk.KV
	load(t, e.k, "notes", func(s *sdk.PluginSDK) error {
		pluginKV = s.KV()
		return sdk.AddTool(s, sdk.ToolDef{Name: "add", Effect: sdk.EffectWrite},
			func(ctx context.Context, tc *sdk.ToolContext, a in) (string, error) {
				if tc.KV == nil {
					return "", nil
				}
				return "ok", tc.KV.Set(ctx, "last", a.Text)
			})
	})
	if out := e.ask(t, "记一下买牛奶"); out.Err != nil || out.Text != "记下了。" {
		t.Fatalf("outcome %+v", out)
	}
	var last string
	if ok, err := pluginKV.Get(context.Background(), "last", &last); !ok || err != nil || last != "买牛奶" {
		t.Fatalf("stored %q %v %v", last, ok, err)
	}
	if ok, _ := svc.KV("other").Get(context.Background(), "last", &last); ok {
		t.Fatal("another plugin sees the value")
	}
}
