//go:build unix

package pluginhost

import (
	"context"
	"encoding/json"
	"errors"
	"strings"
	"testing"

	"github.com/hearth-agent/hearth/internal/settings"
	"github.com/hearth-agent/hearth/sdk"
)

// settingsPlugin uses the settings and the key-value storage from a child
// process.
type settingsPlugin struct{ name string }

func newSettingsPlugin(name string, _ map[string]any) (sdk.Plugin, error) {
	return &settingsPlugin{name}, nil
}

func (p *settingsPlugin) Name() string { return p.name }
func (p *settingsPlugin) Stop() error  { return nil }

func (p *settingsPlugin) Start(s *sdk.PluginSDK) error {
	s.Settings().RegisterDef(sdk.ConfigDef{Key: "unit", Type: "string", Default: "c", Options: []string{"c", "f"}})
	err := s.RegisterToolContext("remember", sdk.ToolDef{}, func(ctx context.Context, tc *sdk.ToolContext, args map[string]any) (any, error) {
		var n int
		if _, err := tc.KV.Get(ctx, "calls", &n); err != nil {
			return nil, err
		}
		n++
		if err := tc.KV.Set(ctx, "calls", n); err != nil {
			return nil, err
		}
		if err := tc.KV.Set(ctx, "last", args); err != nil {
			return nil, err
		}
		var last map[string]any
		if _, err := s.KV().Get(ctx, "last", &last); err != nil {
			return nil, err
		}
		return map[string]any{"calls": n, "last": last}, nil
	})
	if err != nil {
		return err
	}
	return s.RegisterToolContext("config", sdk.ToolDef{}, func(context.Context, *sdk.ToolContext, map[string]any) (any, error) {
		st := s.Settings()
		before, err := st.Get("unit")
		if err != nil {
			return nil, err
		}
		invalid := st.Set("unit", "k")
		if err := st.Set("unit", "f"); err != nil {
			return nil, err
		}
		after, _ := st.Get("unit")
		_, missing := st.Get("nothing")
		token, err := st.GetPlugin("qq", "token")
		if err != nil {
			return nil, err
		}
		url, _ := st.GetPlugin("qq", "url")
		dir, _ := st.GetCore("core.daemon.data_dir")
		return map[string]any{
			"before": before, "after": after, "invalid": invalid != nil && strings.Contains(invalid.Error(), "not one of"),
			"missing": errors.Is(missing, sdk.ErrNotFound), "qqToken": token, "qqURL": url,
			"ownDir": dir == s.DataDir() && strings.Contains(dir.(string), "plugin_data"),
		}, nil
	})
}

func TestChildPluginSettingsAndKV(t *testing.T) {
	f := newFixture(t)
	st := openStore(t, f.data)
	svc := settings.New(st, f.data)
	f.opts.Settings = svc
	svc.For("qq").RegisterDef(sdk.ConfigDef{Key: "token", Type: "string", Secret: true})
	if err := svc.For("qq").Set("token", "sk-qq-secret"); err != nil {
		t.Fatal(err)
	}
	if err := svc.For("qq").Set("url", "ws://127.0.0.1:3001"); err != nil {
		t.Fatal(err)
	}

	p := f.start(t, "cfg", "settings", "settings", "settings.plugins", "kv")
	ready(t, p)
	got, isErr := f.call("cfg__config", `{}`)
	want := `{"after":"f","before":"c","invalid":true,"missing":true,"ownDir":true,"qqToken":"******","qqURL":"ws://127.0.0.1:3001"}`
	if isErr || got != want {
		t.Fatalf("config:\n got %s\nwant %s", got, want)
	}
	if v, _ := svc.For("cfg").Get("unit"); v != "f" {
		t.Fatalf("the host did not keep the plugin's setting: %v", v)
	}
	for i := 1; i <= 2; i++ {
		got, isErr = f.call("cfg__remember", `{"note":"买牛奶"}`)
		if isErr || !strings.HasPrefix(got, `{"calls":`+string(rune('0'+i))+`,`) {
			t.Fatalf("remember %d: %s", i, got)
		}
	}
	// The values outlive the process.
	p.Stop()
	p = f.start(t, "cfg", "settings", "settings", "settings.plugins", "kv")
	ready(t, p)
	got, _ = f.call("cfg__remember", `{"note":"买面包"}`)
	var r struct {
		Calls int
		Last  map[string]string
	}
	if err := json.Unmarshal([]byte(got), &r); err != nil || r.Calls != 3 || r.Last["note"] != "买面包" {
		t.Fatalf("after a restart: %s", got)
	}

	// Undeclared groups are refused, naming the group.
	q := f.start(t, "bare", "settings")
	ready(t, q)
	if got, isErr := f.call("bare__remember", `{}`); !isErr || !strings.Contains(got, `add \"kv\" to \"capabilities\"`) {
		t.Fatalf("kv without the group: %s", got)
	}
	if got, isErr := f.call("bare__config", `{}`); !isErr || !strings.Contains(got, `add \"settings\" to \"capabilities\"`) {
		t.Fatalf("settings without the group: %s", got)
	}
}
