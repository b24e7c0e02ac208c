package main

import (
	"context"
	"fmt"
	"io"
	"sort"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/hearth-agent/hearth/internal/app"
	"github.com/hearth-agent/hearth/internal/channel/terminal"
	"github.com/hearth-agent/hearth/internal/pluginhost"
	"github.com/hearth-agent/hearth/internal/policy"
	"github.com/hearth-agent/hearth/internal/store"
	"github.com/hearth-agent/hearth/sdk"
)

const policyUsage = `Usage:
  hearth policy                          list tools with their effect and mode
  hearth policy set TOOL auto|ask|off    set your mode for a tool
  hearth policy reset TOOL               back to the plugin's default
  hearth policy role CHANNEL USER ROLE [--group G]
                                         give a person a role (owner, admin, member, guest; none removes)
  hearth policy grant ROLE EFFECTS [--channel C] [--group G]
                                         let a role trigger effects (e.g. read,write; none removes);
                                         ROLE plugin:ID is what plugin ID's injected messages may do
`

func runPolicy(ctx context.Context, a *app.App, f *flags, args []string, stdout, stderr io.Writer) int {
	usageErr := func(msg string) int {
		fmt.Fprintf(stderr, "hearth policy: %s\n\n%s", msg, policyUsage)
		return 2
	}
	if len(args) == 0 || args[0] == "list" {
		return listPolicy(ctx, a, stdout)
	}
	switch args[0] {
	case "set":
		if len(args) != 3 {
			return usageErr("set needs a tool and a mode")
		}
		if _, ok := a.Kernel.Tools().Lookup(args[1]); !ok && !catalogued(ctx, a, args[1]) {
			fmt.Fprintf(stderr, "note: no tool %q is known yet; the mode is saved for when it is\n", terminal.SanitizeLine(args[1]))
		}
		if err := a.Policy.SetOverride(ctx, args[1], sdk.Mode(args[2])); err != nil {
			return usageErr(err.Error())
		}
		fmt.Fprintf(stdout, "%s: %s\n", args[1], args[2])
	case "reset":
		if len(args) != 2 {
			return usageErr("reset needs a tool")
		}
		if err := a.Policy.SetOverride(ctx, args[1], ""); err != nil {
			fmt.Fprintf(stderr, "hearth policy: %v\n", err)
			return 1
		}
		fmt.Fprintf(stdout, "%s: plugin default\n", args[1])
	case "role":
		if len(args) != 4 {
			return usageErr("role needs a channel, a user and a role")
		}
		role := args[3]
		if role == "none" {
			role = ""
		} else if !policy.ValidRole(role) || policy.IsPluginRole(role) {
			return usageErr(fmt.Sprintf("unknown role %q", role))
		}
		if err := a.Store.SetRole(ctx, store.RoleAssignment{Channel: args[1], Group: f.group, User: args[2], Role: role}); err != nil {
			fmt.Fprintf(stderr, "hearth policy: %v\n", err)
			return 1
		}
		fmt.Fprintf(stdout, "%s on %s%s: %s\n", userLabel(args[2]), args[1], groupSuffix(f.group), orNone(role))
	case "grant":
		if len(args) != 3 {
			return usageErr("grant needs a role and effects")
		}
		if !policy.ValidRole(args[1]) || args[1] == string(policy.Owner) {
			return usageErr(fmt.Sprintf("grants are for admin, member, guest or plugin:ID, not %q", args[1]))
		}
		var effects []string
		if args[2] != "none" {
			for _, e := range strings.Split(args[2], ",") {
				if !sdk.Effect(e).Valid() {
					return usageErr(fmt.Sprintf("unknown effect %q: use read, write, money, public", e))
				}
				effects = append(effects, e)
			}
		}
		if err := a.Store.SetGrant(ctx, store.Grant{Channel: f.channel, Group: f.group, Role: args[1], Effects: effects}); err != nil {
			fmt.Fprintf(stderr, "hearth policy: %v\n", err)
			return 1
		}
		where := "everywhere"
		if f.channel != "" {
			where = "on " + f.channel + groupSuffix(f.group)
		}
		fmt.Fprintf(stdout, "%s %s: %s\n", args[1], where, orNone(strings.Join(effects, ",")))
	default:
		return usageErr(fmt.Sprintf("unknown subcommand %q", args[0]))
	}
	return 0
}

// catalogued reports whether a tool ran here before (its plugin may not be
// running now).
func catalogued(ctx context.Context, a *app.App, tool string) bool {
	list, _ := a.Policy.Catalog(ctx)
	for _, en := range list {
		if en.Tool == tool {
			return true
		}
	}
	return false
}

// pluginOrigins says where each plugin's tools come from: compiled in, or
// a folder in <data dir>/plugins run as a child process, an xbot stdio
// plugin or a .so, or an MCP server of config.json.
func pluginOrigins(ctx context.Context, a *app.App) map[string]string {
	out := map[string]string{}
	for _, n := range sdk.Factories() {
		out[n] = "built in"
	}
	out["plugins"] = "built in"
	list, _ := a.Plugins.List(ctx)
	for _, p := range list {
		if p.Kind == "mcp" {
			where := "MCP server (config.json)"
			if !p.Enabled {
				where += " (disabled)"
			}
			out[p.ID] = where
			continue
		}
		name, kind := p.ID, ".so plugin"
		if man, err := pluginhost.LoadManifest(p.Dir); err == nil {
			name, kind = man.PluginName(), "child process"
			if man.Xbot() {
				kind = "xbot stdio plugin"
			}
		} else if p.Error != "" && p.Status == nil {
			continue
		}
		where := kind + " in " + p.Dir
		if !p.Enabled {
			where += " (disabled)"
		}
		out[name] = where
	}
	return out
}

func userLabel(u string) string {
	if u == "" {
		return "(messages without a user)"
	}
	return u
}

func groupSuffix(g string) string {
	if g == "" {
		return ""
	}
	return " group " + g
}

func orNone(s string) string {
	if s == "" {
		return "none"
	}
	return s
}

func listPolicy(ctx context.Context, a *app.App, stdout io.Writer) int {
	origins := pluginOrigins(ctx, a)
	origin := func(plugin string) string {
		if o, ok := origins[plugin]; ok {
			return o
		}
		return "plugin " + plugin + ", not installed now"
	}
	w := tabwriter.NewWriter(stdout, 0, 4, 2, ' ', 0)
	fmt.Fprintln(w, "TOOL\tEFFECT\tMODE\tFROM\tFLAGS")
	cell := terminal.SanitizeLine
	effectCell := func(declared string) string {
		if declared == "" {
			return "write (undeclared)"
		}
		return cell(declared)
	}
	listed := map[string]bool{}
	for _, t := range a.Kernel.Tools().List() {
		listed[t.Name] = true
		mode, source := a.Policy.ModeOf(t)
		fmt.Fprintf(w, "%s\t%s\t%s (%s)\t%s\t%s\n", t.Name, effectCell(string(t.Def.Effect)), mode, source,
			cell(origin(t.Plugin)), strings.Join(policy.ToolFlags(t.Def), ","))
	}
	// Tools of plugins this command does not start (child processes,
	// xbot, .so), as last recorded when they ran.
	catalog, err := a.Policy.Catalog(ctx)
	if err != nil {
		fmt.Fprintf(w, "(the tool catalogue could not be read: %s)\n", cell(err.Error()))
	}
	for _, en := range catalog {
		if listed[en.Tool] {
			continue
		}
		listed[en.Tool] = true
		mode, source := a.Policy.ModeOfEntry(en)
		fmt.Fprintf(w, "%s\t%s\t%s (%s)\t%s\t%s\n", cell(en.Tool), effectCell(en.Effect), mode, source,
			cell(origin(en.Plugin)+" (as recorded "+en.Updated.Local().Format("2006-01-02")+")"), cell(strings.Join(en.Flags, ",")))
	}
	// Modes set for tools never seen here ("allow always" in another
	// data directory's chat, or a name set ahead of installing).
	overrides, _ := a.Store.Overrides(ctx)
	names := make([]string, 0, len(overrides))
	for n := range overrides {
		if !listed[n] {
			names = append(names, n)
		}
	}
	sort.Strings(names)
	for _, n := range names {
		fmt.Fprintf(w, "%s\t?\t%s (override)\toverride for a tool not loaded now\t\n", cell(n), cell(overrides[n]))
	}
	w.Flush()
	roles, _ := a.Store.Roles(ctx)
	grants, _ := a.Store.Grants(ctx)
	if len(roles) > 0 {
		fmt.Fprintln(stdout, "\nroles (the terminal user is always the owner; anyone else not listed is a guest):")
		for _, r := range roles {
			fmt.Fprintf(stdout, "  %s on %s%s: %s\n", userLabel(r.User), r.Channel, groupSuffix(r.Group), r.Role)
		}
	}
	fmt.Fprintln(stdout, "\ngrants (without one, everyone but the owner may only read):")
	if len(grants) == 0 {
		fmt.Fprintln(stdout, "  none")
	}
	for _, g := range grants {
		where := "everywhere"
		if g.Channel != "" {
			where = "on " + g.Channel + groupSuffix(g.Group)
		}
		fmt.Fprintf(stdout, "  %s %s: %s\n", g.Role, where, strings.Join(g.Effects, ","))
	}
	return 0
}

func runAudit(ctx context.Context, a *app.App, f *flags, stdout, stderr io.Writer) int {
	var since time.Time
	if f.since > 0 {
		since = time.Now().Add(-f.since)
	}
	entries, err := a.Store.Audit(ctx, store.AuditQuery{Tool: f.tool, Since: since, Limit: f.limit})
	if err != nil {
		fmt.Fprintf(stderr, "hearth audit: %v\n", err)
		return 1
	}
	if f.jsonOut {
		return writeAuditJSON(stdout, entries)
	}
	if len(entries) == 0 {
		fmt.Fprintln(stdout, "(no tool calls recorded)")
		return 0
	}
	w := tabwriter.NewWriter(stdout, 0, 4, 2, ' ', 0)
	fmt.Fprintln(w, "TIME\tTOOL\tEFFECT\tWHO\tDECISION\tOUTCOME\tTOOK\tARGS")
	// Tool names come from the model, users and channels from plugins:
	// every cell is neutralised, so the log cannot drive the terminal.
	cell := terminal.SanitizeLine
	for _, e := range entries {
		who := e.Actor + " for " + e.User + "@" + e.Channel + " (" + e.Role + ")"
		fmt.Fprintf(w, "%s\t%s\t%s\t%s\t%s by %s (%s)\t%s\t%s\t%s\n",
			e.At.Local().Format("01-02 15:04:05"), cell(e.Tool), cell(e.Effect), cell(who), cell(e.Decision),
			cell(e.DecidedBy), cell(e.Rule), cell(e.Outcome), e.Duration, cell(e.ArgsHash[:min(12, len(e.ArgsHash))]))
	}
	w.Flush()
	return 0
}
