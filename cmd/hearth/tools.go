package main

import (
	"context"
	"encoding/json"
	"fmt"
	"maps"
	"slices"

	"github.com/hearth-agent/hearth/internal/app"
	"github.com/hearth-agent/hearth/internal/channel/terminal"
	"github.com/hearth-agent/hearth/internal/pluginhost"
	"github.com/hearth-agent/hearth/sdk"
)

// listTools is `hearth tools`: the tools the model sees in the terminal,
// then the plugins that contribute none and why. Run alone, it starts the
// plugins for a moment, as `hearth plugin` does.
func listTools(ctx context.Context, a *app.App, asJSON bool, cio *cmdIO) int {
	stdout := cio.out
	busy := ""
	if !cio.daemon {
		stop, err := tryPlugins(ctx, a)
		defer stop()
		if err != nil {
			busy = firstLine(err.Error())
			fmt.Fprintf(cio.err, "hearth tools: the process plugins' tools are not listed: %v\n", err)
		}
	}
	list := a.Kernel.OfferedTools(sdk.Injection{Channel: terminal.Channel, UserID: "owner"})
	// What the model is sent now: dynamic descriptions asked (bounded).
	descs := a.Kernel.Descriptions(list)
	if asJSON {
		type spec struct {
			Name string `json:"name"`
			// ModelName is the name the model is offered the tool
			// under when it is not Name (memo_create).
			ModelName   string          `json:"model_name,omitempty"`
			Plugin      string          `json:"plugin"`
			Description string          `json:"description"`
			Parameters  json.RawMessage `json:"parameters"`
		}
		out := make([]spec, 0, len(list))
		for i, t := range list {
			model := a.Kernel.Tools().CallName(t)
			if model == t.Name {
				model = ""
			}
			out = append(out, spec{t.Name, model, t.Plugin, descs[i], t.Schema})
		}
		enc := json.NewEncoder(stdout)
		enc.SetIndent("", "  ")
		enc.SetEscapeHTML(false)
		if err := enc.Encode(out); err != nil {
			return 1
		}
		return 0
	}
	if len(list) == 0 {
		fmt.Fprintln(stdout, "(no tools)")
	}
	offered := map[string]bool{}
	for i, t := range list {
		offered[t.Plugin] = true
		name := t.Name
		if model := a.Kernel.Tools().CallName(t); model != t.Name {
			name += " (model: " + model + ")"
		}
		fmt.Fprintf(stdout, "%s\t%s\n", name, terminal.SanitizeLine(firstLine(descs[i])))
	}
	silent := silentPlugins(ctx, a, offered, busy)
	if len(silent) > 0 {
		fmt.Fprintln(stdout, "\nPlugins that contribute no tools (hearth plugin show ID says more):")
	}
	mask := stderrMask(a)
	for _, id := range slices.Sorted(maps.Keys(silent)) {
		fmt.Fprintf(stdout, "  %s: %s\n", terminal.SanitizeLine(id), terminal.SanitizeLine(mask(silent[id])))
	}
	return 0
}

// silentPlugins says, by plugin, why each plugin not in offered
// contributes no tools: hidden, disabled, failed, starting, not run by
// this process, or it registers none.
func silentPlugins(ctx context.Context, a *app.App, offered map[string]bool, busy string) map[string]string {
	registered := map[string]bool{}
	for _, t := range a.Kernel.Tools().List() {
		registered[t.Plugin] = true
	}
	hidden := a.Kernel.Hidden()
	onDemand := a.Kernel.OnDemandPlugins()
	why := map[string]string{}
	explain := func(name string, fallback string) {
		switch r, isHidden := hidden[name]; {
		case offered[name]:
		case isHidden:
			why[name] = "hidden: " + firstLine(r)
		case onDemand[name] != "":
			why[name] = onDemand[name]
		case registered[name]:
			why[name] = "its tools are off here (hearth policy)"
		default:
			why[name] = fallback
		}
	}
	loaded := a.Kernel.Plugins()
	for _, name := range sdk.Factories() {
		reason := "registers no tools"
		switch {
		case a.Config.BuiltinDisabled(name):
			reason = "disabled in config.json (disabled_plugins, or plugins.<id>.enabled)"
		case !slices.Contains(loaded, name):
			reason = "failed: not loaded (see hearth.log)"
		}
		explain(name, reason)
	}
	infos, err := a.Plugins.List(ctx)
	if err != nil {
		why["(plugins folder)"] = "cannot be read: " + err.Error()
		return why
	}
	for _, p := range infos {
		name := p.ID
		if p.Dir != "" {
			name = pluginName(p)
		}
		explain(name, folderReason(p, busy))
	}
	return why
}

// folderReason is why a plugin of the plugins folder or an MCP server
// that offers no tools offers none.
// busy says who runs the plugins when it is another process.
func folderReason(p pluginhost.Info, busy string) string {
	st := p.Status
	switch {
	case p.Error != "":
		return "failed: " + firstLine(p.Error)
	case !p.Enabled:
		return "disabled (hearth plugin enable " + p.ID + ")"
	case st == nil && busy != "":
		return "not listed: " + busy
	case st == nil:
		return "not running"
	case st.State == pluginhost.Starting && st.Restarts == 0:
		return "starting"
	case st.State != pluginhost.Running:
		return fmt.Sprintf("failed (%s): %s", st.State, firstLine(st.LastError))
	}
	return "running, registers no tools"
}
