package main

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"text/tabwriter"

	"github.com/hearth-agent/hearth/internal/app"
	"github.com/hearth-agent/hearth/internal/channel/terminal"
	"github.com/hearth-agent/hearth/internal/datadir"
	"github.com/hearth-agent/hearth/internal/hagosrc"
	"github.com/hearth-agent/hearth/internal/names"
	"github.com/hearth-agent/hearth/internal/pluginhost"
)

const pluginUsage = `Usage:
  hearth plugin                  list the plugins in <data dir>/plugins and the MCP servers
                                 (--json: with the compiled-in ones, for scripts)
  hearth plugin show ID          state, last error, pid, tools and stderr tail of a plugin
  hearth plugin logs ID [-n N]   the last N lines (default 20) the plugin wrote to stderr
  hearth plugin enable ID        enable a plugin (remembered)
  hearth plugin disable ID       disable a plugin (remembered)
  hearth plugin reload ID        restart a plugin in the running Hearth
  hearth plugin install FOLDER   copy a plugin folder in; a running Hearth loads it.
                                 A HomeAgent Go source folder (plg.json, go.mod,
                                 package main) is built first; installing it
                                 again rebuilds it if it changed; --id ID installs
                                 it under another id than plg.json's name (one
                                 Hearth reserves, as "web")
  hearth plugin install URL|ARCHIVE  the same from a git URL (cloned at depth 1)
                                 or a .tar.gz/.zip (a file or an http(s) URL)
  hearth plugin upgrade ID       fetch a plugin installed from a URL or archive
                                 again and replace it, keeping its settings and data;
                                 new rights are shown and asked (--yes off a terminal)
  hearth plugin remove NAME      move the plugin's folder to the trash, then forget NAME
  hearth plugin forget NAME      free the plugin name NAME: its settings (secrets
                                 too), storage and data folder go to the trash, so
                                 the next plugin to ask for the name starts clean

A plugin name belongs to the folder that first ran under it; remove and forget
need Hearth stopped. With no Hearth running, list, show and logs start the
plugins for a moment to see how they do.
`

func runPlugin(ctx context.Context, a *app.App, f *flags, args []string, cio *cmdIO) int {
	stdout, stderr := cio.out, cio.err
	fail := func(err error) int {
		fmt.Fprintf(stderr, "hearth plugin: %v\n", err)
		return 1
	}
	if len(args) == 0 || args[0] == "list" || args[0] == "show" || args[0] == "logs" {
		if !cio.daemon {
			stop, busy := tryPlugins(ctx, a)
			defer stop()
			var locked *datadir.LockedError
			if errors.As(busy, &locked) {
				fmt.Fprintf(stderr, "hearth plugin: the plugins run in another Hearth (pid %d): their state is shown there (/plugins in its chat)\n", locked.PID)
			} else if busy != nil {
				fmt.Fprintf(stderr, "hearth plugin: %v\n", busy)
			}
		}
	}
	if f.jsonOut && !(len(args) == 0 || args[0] == "list") {
		fmt.Fprintf(stderr, "hearth plugin: --json goes with the list only (hearth plugin --json)\n")
		return 2
	}
	if (len(args) == 0 || args[0] == "list") && f.jsonOut {
		return pluginsJSON(ctx, a, cio)
	}
	if len(args) == 0 || args[0] == "list" {
		list, err := a.Plugins.List(ctx)
		if err != nil {
			return fail(err)
		}
		if len(list) == 0 {
			fmt.Fprintf(stdout, "(no plugins in %s; built in: %s)\n", a.Plugins.Dir(), strings.Join(a.Kernel.Plugins(), ", "))
			return 0
		}
		mask := stderrMask(a)
		w := tabwriter.NewWriter(stdout, 0, 4, 2, ' ', 0)
		fmt.Fprintln(w, "ID\tENABLED\tSTATE\tMAY USE\tFOLDER")
		for _, p := range list {
			groups := "core"
			if p.Kind == "mcp" {
				groups = "-" // an MCP server uses no Hearth services
			} else if len(p.Capabilities) > 0 {
				groups += "," + strings.Join(p.Capabilities, ",")
			}
			cell := terminal.SanitizeLine
			fmt.Fprintf(w, "%s\t%v\t%s\t%s\t%s\n", cell(listedID(p)), p.Enabled, cell(mask(stateCell(p))), cell(groups), cell(pluginWhere(p)))
		}
		w.Flush()
		return 0
	}
	if !slices.Contains(subcommands["plugin"], args[0]) {
		fmt.Fprintf(stderr, "hearth plugin: unknown subcommand %q\n\n%s", args[0], pluginUsage)
		return 2
	}
	if len(args) != 2 {
		fmt.Fprintf(stderr, "hearth plugin: %s needs one argument\n\n%s", args[0], pluginUsage)
		return 2
	}
	switch args[0] {
	case "show", "logs":
		p, err := findPlugin(ctx, a, args[1])
		if err != nil {
			return fail(err)
		}
		var out bytes.Buffer
		code := 0
		if args[0] == "show" {
			showPlugin(a, p, &out)
		} else {
			n := f.lines
			if n <= 0 {
				n = logLines
			}
			code = pluginLogs(p, n, &out, stderr)
		}
		io.WriteString(stdout, stderrMask(a)(out.String()))
		return code
	case "enable", "disable", "reload":
		p, err := findPlugin(ctx, a, args[1])
		if err != nil {
			return fail(err)
		}
		args = []string{args[0], p.ID} // its state is kept under plugin.json's id

	case "remove":
		if err := checkRemove(ctx, a, args[1]); err != nil {
			return fail(err)
		}
	}
	switch args[0] {
	case "enable", "disable":
		if cio.daemon { // this process runs the plugins: apply it now
			if err := a.Plugins.SetEnabled(ctx, args[1], args[0] == "enable"); err != nil {
				return fail(err)
			}
			fmt.Fprintf(stdout, "%s: %sd\n", args[1], args[0])
			break
		}
		if err := a.Store.SetPluginEnabled(ctx, args[1], args[0] == "enable"); err != nil {
			return fail(err)
		}
		fmt.Fprintf(stdout, "%s: %sd (a running Hearth applies it within seconds)\n", args[1], args[0])
	case "reload":
		reload := a.Store.RequestPluginReload
		if cio.daemon {
			reload = a.Plugins.Reload
		}
		if err := reload(ctx, args[1]); err != nil {
			return fail(err)
		}
		fmt.Fprintln(stdout, reloadMessage(a, args[1], cio.daemon))
	case "install":
		if pluginhost.IsFetched(args[1]) {
			return installFetched(ctx, a, f, cio, args[1])
		}
		src := cio.abs(args[1])
		if hagosrc.IsSource(src) {
			if err := installSource(ctx, a, cio, src, f.id); err != nil {
				return fail(err)
			}
			return 0
		}
		if f.id != "" {
			return fail(fmt.Errorf("--id is for HomeAgent source folders (plg.json, go.mod); %s is not one: set the id in its plugin.json", src))
		}
		// Read who owned the name before installing: a running Hearth
		// binds the name to the new folder as soon as it sees it.
		var before map[string]string
		if o, err := a.Store.PluginOwners(ctx); err == nil {
			before = o
		}
		install := func(ctx context.Context, src string) (string, error) {
			return pluginhost.InstallFolder(ctx, a.Store, a.Plugins.Dir(), src)
		}
		if cio.daemon {
			install = a.Plugins.Install
		}
		id, err := install(ctx, src)
		if err != nil {
			return fail(err)
		}
		fmt.Fprintf(stdout, "installed %s into %s\n", id, filepath.Join(a.Plugins.Dir(), id))
		if man, err := pluginhost.LoadManifest(src); err == nil {
			if before[names.Key(man.PluginName())] == id {
				fmt.Fprintf(stdout, "%s: this folder had the name before, so the plugin gets the settings, secrets, storage and data kept under it;\n"+
					"to start it clean instead, stop Hearth and run `hearth plugin forget %s`\n", id, man.PluginName())
			}
		}
	case "forget", "remove":
		// No plugin may run while what it keeps is taken away.
		if cio.daemon {
			return fail(fmt.Errorf("%s needs Hearth stopped: stop hearth serve (pid %d) first, then run it again\n"+
				"%s 需要先停止 Hearth：请先停止 hearth serve（pid %d），再运行此命令", args[0], os.Getpid(), args[0], os.Getpid()))
		}
		lock, err := datadir.Acquire(a.DataDir)
		if err != nil {
			return fail(err)
		}
		defer lock.Release()
		op := pluginhost.Forget
		if args[0] == "remove" {
			op = pluginhost.Remove
			// The plugin's own clean-up (RegisterOnRemoveHandler) runs
			// while its folder and data are still there.
			if err := a.Plugins.RunRemoveHandlers(ctx, a.Store, args[1]); err != nil {
				fmt.Fprintf(stderr, "hearth plugin remove: %v; removing it anyway\n", err)
			}
		}
		f, err := op(ctx, a.Store, a.DataDir, a.Plugins.Dir(), args[1])
		if f != nil {
			printForgotten(stdout, f)
		}
		if err != nil {
			return fail(err)
		}
	case "upgrade":
		return upgradePlugin(ctx, a, f, cio, args[1])
	default:
		fmt.Fprintf(stderr, "hearth plugin: unknown subcommand %q\n\n%s", args[0], pluginUsage)
		return 2
	}
	return 0
}

// pluginWhere is the FOLDER column of `hearth plugin`: the plugin's
// folder, or for an MCP server (which has none) where it is configured.
func pluginWhere(p pluginhost.Info) string {
	switch {
	case p.Dir != "":
		return p.Dir
	case strings.HasPrefix(p.ID, pluginhost.MCPPrefix):
		return "config.json mcpServers (hearth mcp list)"
	}
	return "-"
}

// printForgotten says what forget or remove took away, keys but never
// values.
func printForgotten(w io.Writer, f *pluginhost.Forgotten) {
	cell := terminal.SanitizeLine
	name := cell(f.Name)
	if f.Folder != "" {
		fmt.Fprintf(w, "%s: moved the plugin folder %s to the trash\n", name, cell(f.Folder))
	}
	if s := f.Store; s != nil {
		if f.Owner != "" {
			fmt.Fprintf(w, "%s: the name no longer belongs to the plugin in %s\n", name, cell(f.Owner))
		}
		keys := func(what string, m map[string]map[string]json.RawMessage) {
			for _, ns := range slices.Sorted(maps.Keys(m)) {
				ks := slices.Sorted(maps.Keys(m[ns]))
				fmt.Fprintf(w, "%s: removed %d %s of %s: %s\n", name, len(ks), what, cell(ns), cell(strings.Join(ks, ", ")))
			}
		}
		keys("settings (secrets included)", s.Settings)
		keys("setting declarations", s.Defs)
		keys("stored values (KV)", s.KV)
		if len(s.Overrides) > 0 {
			fmt.Fprintf(w, "%s: removed your policy modes for %s\n", name, cell(strings.Join(slices.Sorted(maps.Keys(s.Overrides)), ", ")))
		}
		for _, g := range s.Grants {
			where := "everywhere"
			if g.Channel != "" || g.Group != "" {
				where = "in " + g.Channel + " " + g.Group
			}
			fmt.Fprintf(w, "%s: removed the grant of %s to %s %s\n", name, cell(strings.Join(g.Effects, ",")), cell(g.Role), cell(strings.TrimSpace(where)))
		}
		if len(s.Catalog) > 0 {
			fmt.Fprintf(w, "%s: removed %d tools from the catalogue\n", name, len(s.Catalog))
		}
		if len(s.Channels) > 0 {
			fmt.Fprintf(w, "%s: freed the channel names %s\n", name, cell(strings.Join(s.Channels, ", ")))
		}
	}
	for _, d := range f.Data {
		fmt.Fprintf(w, "%s: moved the data folder %s to the trash\n", name, cell(d))
	}
	switch {
	case f.Trash != "":
		secrets := ""
		if f.Store != nil && len(f.Store.Settings) > 0 {
			secrets = " (secrets too)"
		}
		fmt.Fprintf(w, "%s: what was removed is in %s%s; delete it when you no longer need it\n", name, cell(f.Trash), secrets)
	case f.Store != nil && f.Store.Empty() && f.Folder == "":
		fmt.Fprintf(w, "%s: nothing was kept under this name\n", name)
	}
	if f.Store == nil {
		return
	}
	fmt.Fprintf(w, "%s: the next plugin to ask for this name starts clean\n", name)
	if f.Owner != "" && f.Folder == "" {
		if _, err := os.Stat(f.Owner); err == nil {
			fmt.Fprintf(w, "%s: the plugin in %s is still there and may take the name again at the next start;\n"+
				"to give the name to another plugin, remove it (`hearth plugin remove %s`)\n", name, cell(f.Owner), name)
		}
	}
}

func tail(lines []string, n int) []string {
	if len(lines) > n {
		return lines[len(lines)-n:]
	}
	return lines
}

// pluginLines describes the running plugins for the chat's /plugins.
func pluginLines(ctx context.Context, a *app.App) string {
	list, err := a.Plugins.List(ctx)
	if err != nil {
		return err.Error()
	}
	var b strings.Builder
	for _, p := range list {
		fmt.Fprintf(&b, "%s: ", p.ID)
		switch {
		case p.Error != "":
			b.WriteString("error: " + p.Error)
		case !p.Enabled:
			b.WriteString("disabled")
		case p.Status != nil:
			fmt.Fprintf(&b, "%s, restarts %d", p.Status.State, p.Status.Restarts)
			if p.Status.LastError != "" {
				b.WriteString(", last error: " + p.Status.LastError)
			}
			for _, l := range tail(p.Status.Stderr, 5) {
				b.WriteString("\n    stderr: " + l)
			}
		}
		b.WriteString("\n")
	}
	if b.Len() == 0 {
		return "(no process plugins)\n"
	}
	return stderrMask(a)(b.String())
}
