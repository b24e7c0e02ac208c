//go:build unix

package pluginhost

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"

	"github.com/hearth-agent/hearth/internal/settings"
	"github.com/hearth-agent/hearth/internal/store"
	"github.com/hearth-agent/hearth/sdk"
	"github.com/hearth-agent/hearth/sdk/pluginrpc"
)

func init() {
	if os.Getenv("HEARTH_TEST_NAMES_CHILD") == "settings-writer" {
		pluginrpc.Serve(newWriterPlugin)
		os.Exit(0)
	}
}

// writerPlugin writes and reads other plugins' settings from a child
// process.
type writerPlugin struct{ name string }

func newWriterPlugin(name string, _ map[string]any) (sdk.Plugin, error) {
	return &writerPlugin{name}, nil
}

func (p *writerPlugin) Name() string { return p.name }
func (p *writerPlugin) Stop() error  { return nil }

type writeIn struct {
	Plugin string `json:"plugin"`
	Key    string `json:"key"`
	Value  string `json:"value,omitempty"`
}

func (p *writerPlugin) Start(s *sdk.PluginSDK) error {
	if err := sdk.AddTool(s, sdk.ToolDef{Name: "write"}, func(_ context.Context, _ *sdk.ToolContext, in writeIn) (string, error) {
		if err := s.Settings().SetPlugin(in.Plugin, in.Key, in.Value); err != nil {
			return "", err
		}
		return "written", nil
	}); err != nil {
		return err
	}
	if err := sdk.AddTool(s, sdk.ToolDef{Name: "dump"}, func(context.Context, *sdk.ToolContext, struct{}) ([]string, error) {
		var out []string
		for ns := range s.Settings().Dump() {
			out = append(out, ns)
		}
		sort.Strings(out)
		return out, nil
	}); err != nil {
		return err
	}
	return sdk.AddTool(s, sdk.ToolDef{Name: "read"}, func(_ context.Context, _ *sdk.ToolContext, in writeIn) (string, error) {
		v, err := s.Settings().GetPlugin(in.Plugin, in.Key)
		if err != nil {
			return "", err
		}
		return fmt.Sprint(v), nil
	})
}

// A child with settings.plugins reads other plugins' settings but writes
// none without settings.plugins.write, never writes a secret, and every
// write it makes is in the audit log.
func TestChildCannotWriteAnotherPluginsSecret(t *testing.T) {
	ctx := context.Background()
	f := newFixture(t)
	st := openStore(t, f.data)
	svc := settings.New(st, f.data)
	f.opts.Settings = svc
	qq := svc.For("qq")
	qq.RegisterDef(sdk.ConfigDef{Key: "token", Type: "string", Secret: true})
	qq.RegisterDef(sdk.ConfigDef{Key: "endpoint", Type: "string", Secret: true})
	for k, v := range map[string]string{"token": "sk-qq", "endpoint": "https://api.qq.example", "api_key": "sk-named", "url": "ws://127.0.0.1:3001"} {
		if err := qq.Set(k, v); err != nil {
			t.Fatal(err)
		}
	}
	if err := svc.SetJSON(settings.Core, "core.locale", json.RawMessage(`"zh-CN"`)); err != nil {
		t.Fatal(err)
	}
	start := func(id string, groups ...string) {
		t.Helper()
		dir := filepath.Join(t.TempDir(), id)
		os.MkdirAll(dir, 0o755)
		b, _ := json.Marshal(Manifest{ID: id, Command: []string{os.Args[0]}, Capabilities: groups,
			Env: map[string]string{"HEARTH_TEST_NAMES_CHILD": "settings-writer"}})
		if err := os.WriteFile(filepath.Join(dir, ManifestFile), b, 0o644); err != nil {
			t.Fatal(err)
		}
		p, err := Start(dir, &f.opts)
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(p.Stop)
		ready(t, p)
	}
	value := func(key string) string {
		v, _ := qq.Get(key)
		return fmt.Sprint(v)
	}

	// Reading only: every write is refused, naming the group to declare.
	start("reader", "settings.plugins")
	if got, isErr := f.call("reader__read", `{"plugin":"qq","key":"url"}`); isErr || got != "ws://127.0.0.1:3001" {
		t.Fatalf("read: %s", got)
	}
	if got, isErr := f.call("reader__dump", `{}`); isErr || got != `["qq"]` {
		t.Fatalf("dump without settings.core: %s", got)
	}
	for _, key := range []string{"url", "endpoint"} {
		got, isErr := f.call("reader__write", `{"plugin":"qq","key":"`+key+`","value":"https://evil.example"}`)
		if !isErr || !strings.Contains(got, `add \"settings.plugins.write\" to \"capabilities\"`) {
			t.Fatalf("write %s without the write group: %s", key, got)
		}
	}
	if value("url") != "ws://127.0.0.1:3001" || value("endpoint") != "https://api.qq.example" {
		t.Fatal("a plugin without the write group changed another's settings")
	}

	// With the write group: secrets stay read-only, other writes land and
	// are audited.
	start("writer", "settings.plugins", "settings.plugins.write")
	for _, key := range []string{"token", "endpoint", "api_key"} {
		got, isErr := f.call("writer__write", `{"plugin":"qq","key":"`+key+`","value":"https://evil.example"}`)
		if !isErr || !strings.Contains(got, "is a secret of plugin qq") || strings.Contains(got, "evil.example") {
			t.Fatalf("write secret %s: %s", key, got)
		}
	}
	if value("token") != "sk-qq" || value("endpoint") != "https://api.qq.example" || value("api_key") != "sk-named" {
		t.Fatal("another plugin's secret was overwritten")
	}
	for _, call := range []string{"writer__write", "writer__read"} {
		if got, isErr := f.call(call, `{"plugin":"core","key":"core.locale","value":"x"}`); !isErr || !strings.Contains(got, "not a plugin's namespace") {
			t.Fatalf("%s core: %s", call, got)
		}
	}
	if got, isErr := f.call("writer__write", `{"plugin":"qq","key":"url","value":"ws://127.0.0.1:4000"}`); isErr || got != "written" {
		t.Fatalf("plain write: %s", got)
	}
	if value("url") != "ws://127.0.0.1:4000" {
		t.Fatalf("url = %s", value("url"))
	}

	entries, err := st.Audit(ctx, store.AuditQuery{Tool: "settings:" + "qq.url"})
	if err != nil {
		t.Fatal(err)
	}
	if len(entries) != 1 || entries[0].User != "writer" || entries[0].Decision != "allow" || entries[0].ArgsHash == "" {
		t.Fatalf("audit of the write: %+v", entries)
	}
	entries, _ = st.Audit(ctx, store.AuditQuery{Tool: "settings:" + "qq.endpoint"})
	if len(entries) != 1 || entries[0].User != "writer" || entries[0].Decision != "deny" || entries[0].ArgsHash != "" {
		t.Fatalf("audit of the refused secret write: %+v", entries)
	}
}
