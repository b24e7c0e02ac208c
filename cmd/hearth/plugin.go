package main

import (
	"context"
	"fmt"
	"io"
	"path/filepath"
	"strings"
	"text/tabwriter"

	"github.com/hearth-agent/hearth/internal/app"
	"github.com/hearth-agent/hearth/internal/channel/terminal"
	"github.com/hearth-agent/hearth/internal/pluginhost"
)

const pluginUsage = `Usage:
  hearth plugin                  list the plugins in <data dir>/plugins
  hearth plugin enable ID        enable a plugin (remembered)
  hearth plugin disable ID       disable a plugin (remembered)
  hearth plugin reload ID        restart a plugin in the running Hearth
  hearth plugin install FOLDER   copy a plugin folder in; a running Hearth loads it
`

func runPlugin(ctx context.Context, a *app.App, args []string, stdout, stderr io.Writer) int {
	fail := func(err error) int {
		fmt.Fprintf(stderr, "hearth plugin: %v\n", err)
		return 1
	}
	if len(args) == 0 || args[0] == "list" {
		list, err := a.Plugins.List(ctx)
		if err != nil {
			return fail(err)
		}
		if len(list) == 0 {
			fmt.Fprintf(stdout, "(no plugins in %s)\n", a.Plugins.Dir())
			return 0
		}
		w := tabwriter.NewWriter(stdout, 0, 4, 2, ' ', 0)
		fmt.Fprintln(w, "ID\tENABLED\tSTATE\tMAY USE\tFOLDER")
		for _, p := range list {
			state := "-"
			if p.Status != nil {
				state = fmt.Sprintf("%s (restarts %d)", p.Status.State, p.Status.Restarts)
			}
			if p.Error != "" {
				state = "error: " + p.Error
			}
			groups := "core"
			if len(p.Capabilities) > 0 {
				groups += "," + strings.Join(p.Capabilities, ",")
			}
			cell := terminal.SanitizeLine
			fmt.Fprintf(w, "%s\t%v\t%s\t%s\t%s\n", cell(p.ID), p.Enabled, cell(state), cell(groups), cell(p.Dir))
		}
		w.Flush()
		return 0
	}
	if len(args) != 2 {
		fmt.Fprintf(stderr, "hearth plugin: %s needs one argument\n\n%s", args[0], pluginUsage)
		return 2
	}
	switch args[0] {
	case "enable", "disable":
		if err := a.Store.SetPluginEnabled(ctx, args[1], args[0] == "enable"); err != nil {
			return fail(err)
		}
		fmt.Fprintf(stdout, "%s: %sd (a running Hearth applies it within seconds)\n", args[1], args[0])
	case "reload":
		if err := a.Store.RequestPluginReload(ctx, args[1]); err != nil {
			return fail(err)
		}
		fmt.Fprintf(stdout, "%s: reload requested\n", args[1])
	case "install":
		src, err := filepath.Abs(args[1])
		if err != nil {
			return fail(err)
		}
		id, err := pluginhost.InstallFolder(a.Plugins.Dir(), src)
		if err != nil {
			return fail(err)
		}
		fmt.Fprintf(stdout, "installed %s into %s\n", id, filepath.Join(a.Plugins.Dir(), id))
	default:
		fmt.Fprintf(stderr, "hearth plugin: unknown subcommand %q\n\n%s", args[0], pluginUsage)
		return 2
	}
	return 0
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
	return b.String()
}
