package kernel

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"sort"
	"strings"

	"github.com/hearth-agent/hearth/internal/tools"
	"github.com/hearth-agent/hearth/sdk"
)

// The core tool that loads a plugin's on-demand tools into the session.
const (
	usePlugin   = "plugins"
	useTool     = "use"
	useToolName = usePlugin + tools.Separator + useTool
)

type sessionCtxKey struct{}

// registerUseTool registers plugins__use. It is offered only while some
// plugin has on-demand tools the session has not loaded.
func (k *Kernel) registerUseTool() {
	type in struct {
		Plugin string `json:"plugin" jsonschema:"the plugin whose tools to load"`
	}
	schema, err := sdk.SchemaFor[in]()
	if err != nil {
		panic(err) // a static struct; cannot fail
	}
	_, err = k.tools.Register(usePlugin, sdk.ToolDef{
		Name:        useTool,
		Title:       "加载插件工具",
		Description: "Load the rarely used tools of a plugin so you can call them. The system prompt lists the plugins that have such tools.",
		Parameters:  schema,
		Effect:      sdk.EffectRead,
	}, func(ctx context.Context, _ *sdk.ToolContext, args map[string]any, _ json.RawMessage) (any, error) {
		s, _ := ctx.Value(sessionCtxKey{}).(*session)
		if s == nil {
			return nil, errors.New("plugins__use works only inside a conversation")
		}
		plugin, _ := args["plugin"].(string)
		var names []string
		list, callNames := k.tools.ListNamed()
		for i, t := range list {
			if t.Plugin == plugin && k.onDemand(t) {
				names = append(names, callNames[i])
			}
		}
		if len(names) == 0 {
			return nil, fmt.Errorf("plugin %q has no tools to load; choose one of: %s", plugin, strings.Join(k.onDemandPlugins(s), ", "))
		}
		s.usePlugin(plugin)
		return map[string]any{"loaded": names}, nil
	})
	if err != nil {
		panic(err)
	}
}

// onDemandPlugins lists the plugins with on-demand tools the session has
// not loaded, sorted.
func (k *Kernel) onDemandPlugins(s *session) []string {
	seen := map[string]bool{}
	var out []string
	for _, t := range k.tools.List() {
		if k.onDemand(t) && !seen[t.Plugin] && !s.pluginUsed(t.Plugin) {
			seen[t.Plugin] = true
			out = append(out, t.Plugin)
		}
	}
	sort.Strings(out)
	return out
}

func (k *Kernel) hasOnDemand(t *turnState) bool {
	for _, tool := range k.tools.List() {
		if k.onDemand(tool) && !t.s.pluginUsed(tool.Plugin) {
			return true
		}
	}
	return false
}

// OfferedTools returns the tools the model would be offered for an input
// from in's channel, chat and user, in a new conversation.
func (k *Kernel) OfferedTools(in sdk.Injection) []*tools.Tool {
	k.fitToolsNow()
	t := &turnState{in: Input{Injection: in}, s: &session{key: sessionKey{in.Channel, in.ChatID}}}
	var out []*tools.Tool
	for _, tool := range k.tools.List() {
		if k.offered(t, tool) {
			out = append(out, tool)
		}
	}
	return out
}
