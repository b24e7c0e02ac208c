// Package hamemo is a test plugin written as HomeAgent's examples are:
// tools registered under the plugin's name plus "_" (hamemo_create), a
// prompt text naming them so, ToolDef.NoMemory and Cleaner, settings of
// HomeAgent's types, GetCore("core.daemon.data_dir"), and stage handlers
// that look at tool calls and results by name. It reports what it saw
// through its tools, so a test reads it from the results the model got.
// The same code runs compiled in (New) and as a child process (child/).
package hamemo

import (
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"strings"
	"sync"

	"github.com/hearth-agent/hearth/sdk"
)

// Plugin is the test plugin.
type Plugin struct {
	name string

	mu     sync.Mutex
	memos  []string
	before []string                  // before_toolcall: the call names seen
	after  map[string]map[string]any // after_toolcall: by tool name
}

// New is the plugin's factory (sdk.NewPlugin).
func New(name string, _ map[string]any) (sdk.Plugin, error) {
	return &Plugin{name: name, after: map[string]map[string]any{}}, nil
}

// Name implements sdk.Plugin.
func (p *Plugin) Name() string { return p.name }

// Stop implements sdk.Plugin.
func (p *Plugin) Stop() error { return nil }

// Start implements sdk.Plugin.
func (p *Plugin) Start(s *sdk.PluginSDK) error {
	tp := p.name + "_"
	st := s.Settings()
	st.RegisterDef(sdk.ConfigDef{Key: "limit", Type: "int", Max: 50, Default: 10, DisplayName: "上限"})
	st.RegisterDef(sdk.ConfigDef{Key: "verbose", Type: "bool", DisplayName: "详细"})
	st.RegisterDef(sdk.ConfigDef{Key: "pass", Type: "password", DisplayName: "密码"})
	st.RegisterDef(sdk.ConfigDef{Key: "style", Type: "select", Options: []string{"vivid", "natural"}, DisplayName: "风格"})

	text := map[string]any{"type": "object", "properties": map[string]any{"text": map[string]any{"type": "string"}}, "required": []string{"text"}}
	none := map[string]any{"type": "object", "properties": map[string]any{}}
	reg := func(def sdk.ToolDef, h sdk.ToolHandler) error {
		def.Name = tp + def.Name
		return s.RegisterTool(def.Name, def, h)
	}
	return errors.Join(
		reg(sdk.ToolDef{Name: "create", Description: "Create a memo; list them with " + tp + "list.", Parameters: text},
			func(args map[string]any) (any, error) {
				t, _ := args["text"].(string)
				p.mu.Lock()
				defer p.mu.Unlock()
				p.memos = append(p.memos, t)
				return map[string]any{"id": len(p.memos), "text": t}, nil
			}),
		reg(sdk.ToolDef{Name: "list", Description: "List the memos.", Parameters: none},
			func(map[string]any) (any, error) {
				p.mu.Lock()
				defer p.mu.Unlock()
				return map[string]any{"memos": append([]string{}, p.memos...)}, nil
			}),
		reg(sdk.ToolDef{Name: "secret", Description: "A result memory must not see.", Parameters: none, NoMemory: true},
			func(map[string]any) (any, error) { return "the secret note", nil }),
		reg(sdk.ToolDef{Name: "fetch", Description: "A result memory sees cleaned.", Parameters: none,
			Cleaner: func(out string) string {
				var r struct {
					Reply string `json:"reply"`
				}
				if json.Unmarshal([]byte(out), &r) == nil && r.Reply != "" {
					return r.Reply
				}
				return out
			}},
			func(map[string]any) (any, error) {
				return map[string]any{"reply": "the clean part", "noise": "<html>raw</html>"}, nil
			}),
		reg(sdk.ToolDef{Name: "config", Description: "Report how settings answer.", Parameters: none},
			func(map[string]any) (any, error) { return ProbeSettings(s.Settings()), nil }),
		reg(sdk.ToolDef{Name: "seen", Description: "Report what the stage handlers saw.", Parameters: none},
			func(map[string]any) (any, error) {
				p.mu.Lock()
				defer p.mu.Unlock()
				return map[string]any{"before": append([]string{}, p.before...), "after": p.after}, nil
			}),
		p.stages(s),
	)
}

// stages records the names the stage handlers see for this plugin's own
// tools, and what a memory computation may use of each result.
func (p *Plugin) stages(s *sdk.PluginSDK) error {
	s.RegisterStage(sdk.StageBeforeToolcall, func(sc *sdk.StageContext) error {
		if len(sc.ToolCalls) == 1 && sc.ToolCalls[0].Plugin == p.name {
			p.mu.Lock()
			p.before = append(p.before, sc.ToolCalls[0].Name)
			p.mu.Unlock()
		}
		return nil
	})
	s.RegisterStage(sdk.StageAfterToolcall, func(sc *sdk.StageContext) error {
		if len(sc.ToolResults) == 1 && sc.ToolResults[0].Plugin == p.name {
			r := sc.ToolResults[0]
			p.mu.Lock()
			p.after[r.Name] = map[string]any{"noMemory": r.NoMemory, "memoryText": r.MemoryText}
			p.mu.Unlock()
		}
		return nil
	})
	return nil
}

// ProbeSettings reports how st answers what HomeAgent plugins ask of it,
// without paths (they differ from host to host): unset keys, declared
// defaults, checked writes, the data directory.
func ProbeSettings(st sdk.SettingsAPI) map[string]any {
	out := map[string]any{}
	v, err := st.Get("nope")
	out["unset"] = fmt.Sprintf("%v notFound=%v", v, errors.Is(err, sdk.ErrNotFound))
	v, err = st.Get("limit")
	out["default"] = fmt.Sprintf("%v %v", v, err)
	writes := []struct {
		key string
		v   any
	}{
		{"limit", 50}, {"limit", 51}, {"limit", "abc"}, {"limit", 2.5},
		{"verbose", true}, {"verbose", "yes"},
		{"style", "vivid"}, {"style", "loud"},
		{"pass", "hunter2"}, {"pass", 12},
	}
	set := map[string]string{}
	for _, w := range writes {
		k := fmt.Sprintf("%s=%v", w.key, w.v)
		if err := st.Set(w.key, w.v); err != nil {
			set[k] = "refused"
			if strings.Contains(err.Error(), "12") && w.key == "pass" {
				set[k] = "refused, quoting the password"
			}
		} else {
			set[k] = "ok"
		}
	}
	out["set"] = set
	v, err = st.Get("limit")
	out["after"] = fmt.Sprintf("%v %v", v, err)
	for _, key := range []string{"core.daemon.data_dir", "daemon.data_dir"} {
		d, err := st.GetCore(key)
		dir, _ := d.(string)
		own := st.DataDir()
		fi, serr := os.Stat(dir)
		out[key] = fmt.Sprintf("dir=%v err=%v ownInside=%v", serr == nil && fi.IsDir(), err, dir != "" && strings.HasPrefix(own, dir))
	}
	return out
}
