package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/hearth-agent/hearth/internal/app"
	"github.com/hearth-agent/hearth/internal/channel/terminal"
	"github.com/hearth-agent/hearth/internal/datadir"
	"github.com/hearth-agent/hearth/internal/names"
	"github.com/hearth-agent/hearth/internal/pluginhost"
	"github.com/hearth-agent/hearth/internal/redact"
	"github.com/hearth-agent/hearth/internal/settings"
	"github.com/hearth-agent/hearth/sdk"
)

// logLines is how many stderr lines `hearth plugin show` prints, and
// `hearth plugin logs` without -n.
const logLines = 20

// settleTimeout bounds how long `hearth plugin` waits, run alone, for the
// plugins it started to finish their handshakes or fail.
const settleTimeout = 15 * time.Second

// tryPlugins starts the plugins in this process, when no other Hearth
// runs them, and waits until each has finished its handshake or failed
// once, so that what `hearth plugin` shows is what they do. The returned
// func stops them; busy is set when another process runs them.
func tryPlugins(ctx context.Context, a *app.App) (stop func(), busy error) {
	lock, err := datadir.Acquire(a.DataDir)
	if err != nil {
		return func() {}, err
	}
	stop = func() {
		a.Plugins.Close() // stopped before another process may run them
		lock.Release()
	}
	if err := a.Plugins.Scan(ctx); err != nil {
		a.Logger.Warn("some plugins could not start", "err", err)
	}
	wctx, cancel := context.WithTimeout(ctx, settleTimeout)
	defer cancel()
	for settling(wctx, a) {
		select {
		case <-wctx.Done():
			return stop, nil
		case <-time.After(50 * time.Millisecond):
		}
	}
	return stop, nil
}

// settling reports whether a plugin is still starting for the first time.
func settling(ctx context.Context, a *app.App) bool {
	list, err := a.Plugins.List(ctx)
	if err != nil {
		return false
	}
	for _, p := range list {
		if st := p.Status; st != nil && st.State == pluginhost.Starting && st.Restarts == 0 && st.LastError == "" {
			return true
		}
	}
	return false
}

// stateCell is the STATE column of `hearth plugin`: the state, or for a
// plugin that failed the first line of why.
func stateCell(p pluginhost.Info) string {
	switch {
	case p.Error != "":
		return "error: " + p.Error
	case !p.Enabled:
		return "disabled"
	case p.Status == nil:
		return "-"
	}
	st := p.Status
	s := fmt.Sprintf("%s (restarts %d)", st.State, st.Restarts)
	if st.State != pluginhost.Running && st.LastError != "" {
		s = fmt.Sprintf("%s: %s", st.State, firstLine(st.LastError))
	}
	return s
}

// findPlugin is the plugin id names, among the folder plugins and MCP
// servers; an error says which exist.
func findPlugin(ctx context.Context, a *app.App, id string) (*pluginhost.Info, error) {
	list, err := a.Plugins.List(ctx)
	if err != nil {
		return nil, err
	}
	for i := range list {
		if list[i].ID == id || list[i].Dir != "" && pluginName(list[i]) == id {
			return &list[i], nil
		}
	}
	if isBuiltin(a, id) {
		return nil, fmt.Errorf("%s is built in (it runs inside Hearth: no folder, process or log); "+
			"turn it off in config.json (\"disabled_plugins\", or \"plugins\": {\"%s\": {\"enabled\": false}})", id, id)
	}
	return nil, unknownPlugin(a, list, id)
}

// pluginName is the name a folder plugin's tools and settings are under.
func pluginName(p pluginhost.Info) string {
	if man, err := pluginhost.LoadManifest(p.Dir); err == nil {
		return man.PluginName()
	}
	return p.ID
}

// listedID is how `hearth plugin` names a plugin: the name Hearth uses
// for its tools, settings and data, with plugin.json's id beside it when
// that differs (an xbot id such as com.example.echo-channel).
func listedID(p pluginhost.Info) string {
	if p.Dir == "" {
		return p.ID
	}
	if name := pluginName(p); name != p.ID {
		return name + " (plugin.json: " + p.ID + ")"
	}
	return p.ID
}

// isBuiltin reports whether id is a plugin compiled into Hearth.
func isBuiltin(a *app.App, id string) bool {
	return slices.Contains(sdk.Factories(), id) || slices.Contains(a.Kernel.Plugins(), id)
}

// unknownPlugin is the error for an id no plugin has: it lists those that
// exist, in English and Chinese.
func unknownPlugin(a *app.App, list []pluginhost.Info, id string) error {
	var have []string
	for _, p := range list {
		have = append(have, p.ID)
	}
	builtin := slices.Clone(sdk.Factories())
	for _, n := range a.Kernel.Plugins() {
		if !slices.Contains(builtin, n) {
			builtin = append(builtin, n)
		}
	}
	slices.Sort(builtin)
	plugins := "none"
	if len(have) > 0 {
		plugins = strings.Join(have, ", ")
	}
	return fmt.Errorf("no plugin %q: in %s: %s; built in: %s (see hearth plugin)\n"+
		"没有插件 %q；已安装：%s；内置：%s",
		id, a.Plugins.Dir(), plugins, strings.Join(builtin, ", "), id, plugins, strings.Join(builtin, ", "))
}

// showPlugin prints everything `hearth plugin show ID` knows of p.
func showPlugin(a *app.App, p *pluginhost.Info, w io.Writer) {
	cell := terminal.SanitizeLine
	line := func(k, v string) { fmt.Fprintf(w, "%-13s %s\n", k+":", cell(v)) }
	line("id", p.ID)
	line("kind", p.Kind)
	enabled := "yes"
	if !p.Enabled {
		enabled = "no"
	}
	line("enabled", enabled)
	line("state", stateCell(*p))
	if p.Dir != "" {
		line("folder", p.Dir)
	}
	if p.Runs != "" {
		line("runs", p.Runs)
	}
	if st := p.Status; st != nil {
		if st.PID > 0 {
			line("pid", strconv.Itoa(st.PID))
		}
		line("restarts", strconv.Itoa(st.Restarts))
		if st.LastError != "" {
			line("last error", st.LastError)
		}
	}
	if p.Error != "" {
		line("error", p.Error)
	}
	if p.Kind != "mcp" {
		line("may use", strings.Join(append([]string{"core"}, p.Capabilities...), ", "))
	}
	var tools []string
	name := p.ID
	if p.Dir != "" {
		name = pluginName(*p)
	}
	for _, t := range a.Kernel.Tools().List() {
		if t.Plugin == name {
			tools = append(tools, t.Name)
		}
	}
	if len(tools) == 0 {
		line("tools", "(none)")
	} else {
		line("tools", strings.Join(tools, ", "))
	}
	for _, l := range pluginhost.LegacyLines(a.DataDir, name) {
		line("legacy", l)
	}
	showWidgets(a.Plugins.Widgets(name), line)
	showWebWidgets(a, name, line)
	if p.Status == nil {
		return
	}
	if p.Status.Name != "" {
		line("name", p.Status.Name)
	}
	if p.Status.Description != "" {
		line("description", p.Status.Description)
	}
	showPKU(name, p.Status.PKU, line)
	if len(p.Status.Stderr) == 0 {
		line("stderr", "(nothing)")
		return
	}
	fmt.Fprintf(w, "stderr (last %d lines):\n", min(logLines, len(p.Status.Stderr)))
	for _, l := range tail(p.Status.Stderr, logLines) {
		fmt.Fprintf(w, "  %s\n", cell(l))
	}
}

// pluginLogs prints the last n lines p wrote to stderr.
func pluginLogs(p *pluginhost.Info, n int, stdout, stderr io.Writer) int {
	if p.Status == nil {
		fmt.Fprintf(stderr, "hearth plugin: %s is not running, so it has no stderr to show (state: %s)\n", p.ID, stateCell(*p))
		return 1
	}
	for _, l := range tail(p.Status.Stderr, n) {
		fmt.Fprintln(stdout, terminal.SanitizeLine(l))
	}
	return 0
}

// checkRemove refuses to remove a name nothing has: no folder plugin and
// no name kept in the store. A built-in cannot be removed.
func checkRemove(ctx context.Context, a *app.App, id string) error {
	_, err := findPlugin(ctx, a, id)
	if err == nil || isBuiltin(a, id) {
		return err
	}
	owners, oerr := a.Store.PluginOwners(ctx)
	if oerr != nil {
		return oerr
	}
	if _, ok := owners[names.Key(id)]; ok {
		return nil // its folder is gone, what it kept is not
	}
	return err
}

// reloadMessage says what `hearth plugin reload ID` did: run in the
// daemon it restarted the plugin; run alone, it was asked of the Hearth
// that runs the plugins, if one does.
func reloadMessage(a *app.App, id string, daemon bool) string {
	if daemon {
		return id + ": restarting"
	}
	lock, err := datadir.Acquire(a.DataDir)
	var busy *datadir.LockedError
	if errors.As(err, &busy) {
		return fmt.Sprintf("%s: reload requested; the Hearth that runs the plugins (pid %d) restarts it within seconds", id, busy.PID)
	}
	if err == nil {
		lock.Release()
	}
	return fmt.Sprintf("%s: no Hearth is running, so nothing runs %s now: it starts with its current code and plugin.json the next time Hearth starts (hearth, hearth serve)\n"+
		"%s：没有运行中的 Hearth，目前没有进程运行 %s；下次启动 Hearth 时它会以当前的代码和 plugin.json 启动", id, id, id, id)
}

// stderrMask returns a function masking the secrets what a plugin wrote
// may show: the model sources' keys, every secret setting's value, and
// anything that looks like a key (as the web UI's plugin page does).
func stderrMask(a *app.App) func(string) string {
	var own redact.Secrets
	if nss, err := a.Settings.Namespaces(); err == nil {
		for _, ns := range append(nss, settings.Core) {
			keys, err := a.Settings.Keys(ns, "")
			if err != nil {
				continue
			}
			for _, k := range keys {
				if !a.Settings.Secret(ns, k) {
					continue
				}
				raw, ok, err := a.Settings.Value(ns, k)
				var v string
				if err == nil && ok && json.Unmarshal(raw, &v) == nil {
					own.Add(v)
				}
			}
		}
	}
	sources := a.Sources.Secrets()
	return func(text string) string { return sources.All(own.String(text)) }
}

// showWidgets prints the latest output of each widget of an xbot script
// plugin (Hearth has no terminal slot to draw it in): its first line, cut
// at 200 characters, with the widget's id, slot and time.
func showWidgets(widgets []pluginhost.Widget, line func(k, v string)) {
	for _, w := range widgets {
		text, _, more := strings.Cut(strings.TrimSpace(w.Text), "\n")
		if r := []rune(text); len(r) > 200 {
			text, more = string(r[:200]), true
		}
		if more {
			text += " …"
		}
		slot := w.Slot
		if slot == "" {
			slot = "no slot"
		}
		line("widget", fmt.Sprintf("%s (%s, %s): %s", w.ID, slot, w.Updated.Format(time.TimeOnly), text))
	}
}

// showWebWidgets prints the web widgets an xbot channel plugin declared
// (web_ui), shown in the web UI's widgets panel: id, type, slot and
// title, masked.
func showWebWidgets(a *app.App, name string, line func(k, v string)) {
	var mask func(string) string
	for _, w := range a.Plugins.WidgetBoard().All() {
		if w.Plugin != name {
			continue
		}
		if mask == nil {
			mask = stderrMask(a)
		}
		slot := w.Slot
		if slot == "" {
			slot = "no slot"
		}
		line("web widget", fmt.Sprintf("%s (%s, %s): %s", w.ID, w.Type, slot, mask(w.Title)))
	}
}
