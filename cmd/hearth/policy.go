package main

import (
	"context"
	"fmt"
	"io"
	"slices"
	"sort"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/hearth-agent/hearth/internal/app"
	"github.com/hearth-agent/hearth/internal/channel/terminal"
	"github.com/hearth-agent/hearth/internal/pluginhost"
	"github.com/hearth-agent/hearth/internal/policy"
	"github.com/hearth-agent/hearth/internal/store"
	"github.com/hearth-agent/hearth/internal/tools"
	"github.com/hearth-agent/hearth/sdk"
)

const policyUsage = `Usage:
  hearth policy [--json]                 list tools with their effect and mode, roles and grants
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
		return listPolicy(ctx, a, f.jsonOut, stdout)
	}
	if f.jsonOut {
		return usageErr("--json is for the listing (hearth policy --json)")
	}
	switch args[0] {
	case "set":
		if len(args) != 3 {
			return usageErr("set needs a tool and a mode")
		}
		name, err := qualifiedTool(ctx, a, args[1]) // memo_create is memo__memo_create
		if err != nil {
			fmt.Fprintf(stderr, "hearth policy: %s\n", terminal.SanitizeLine(err.Error()))
			return 1
		}
		args[1] = name
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
		if name, err := qualifiedTool(ctx, a, args[1]); err == nil {
			args[1] = name
		} // else the name itself: clearing a key no tool has harms nothing
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
			} else if man.Script() {
				kind = "xbot script plugin"
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

// policyRow is one tool in hearth policy: a loaded tool, one recorded in
// the catalogue, or a mode set for a tool never seen here.
type policyRow struct {
	Tool string `json:"tool"`
	// ModelName is the name the model is offered the tool under when it
	// is not Tool (a HomeAgent tool named after its plugin: memo_create).
	ModelName  string   `json:"model_name,omitempty"`
	Effect     string   `json:"effect"` // as declared; "" is undeclared (counts as write)
	Mode       string   `json:"mode"`
	ModeSource string   `json:"mode_source"` // default, override, ...
	Plugin     string   `json:"plugin"`      // "" for an override of a tool not seen
	From       string   `json:"from"`        // where the tool comes from, in words
	Recorded   string   `json:"recorded,omitempty"`
	Flags      []string `json:"flags"`
	known      bool     // false for an override of a tool not loaded now
}

// policyListing is what hearth policy lists; --json prints it as is.
type policyListing struct {
	Tools  []policyRow   `json:"tools"`
	Roles  []policyRole  `json:"roles"`
	Grants []policyGrant `json:"grants"`
	Errors []string      `json:"errors,omitempty"`
}

// policyRole is a person's role on a channel (and group).
type policyRole struct {
	Channel string `json:"channel"`
	Group   string `json:"group,omitempty"`
	User    string `json:"user"`
	Role    string `json:"role"`
}

// policyGrant is what a role may trigger, everywhere or on a channel.
type policyGrant struct {
	Role    string   `json:"role"`
	Channel string   `json:"channel,omitempty"`
	Group   string   `json:"group,omitempty"`
	Effects []string `json:"effects"`
}

func policyList(ctx context.Context, a *app.App) *policyListing {
	origins := pluginOrigins(ctx, a)
	origin := func(plugin string) string {
		if o, ok := origins[plugin]; ok {
			return o
		}
		return "plugin " + plugin + ", not installed now"
	}
	l := &policyListing{Tools: []policyRow{}}
	listed := map[string]bool{}
	list, callNames := a.Kernel.Tools().ListNamed()
	for i, t := range list {
		listed[t.Name] = true
		mode, source := a.Policy.ModeOf(t)
		model := callNames[i]
		if model == t.Name {
			model = ""
		}
		l.Tools = append(l.Tools, policyRow{Tool: t.Name, ModelName: model, Effect: string(t.Def.Effect), Mode: string(mode), ModeSource: source,
			Plugin: t.Plugin, From: origin(t.Plugin), Flags: nonNil(policy.ToolFlags(t.Def)), known: true})
	}
	// Tools of plugins this command does not start (child processes,
	// xbot, .so), as last recorded when they ran.
	catalog, err := a.Policy.Catalog(ctx)
	if err != nil {
		l.Errors = append(l.Errors, "the tool catalogue could not be read: "+err.Error())
	}
	for _, en := range catalog {
		if listed[en.Tool] {
			continue
		}
		listed[en.Tool] = true
		mode, source := a.Policy.ModeOfEntry(en)
		l.Tools = append(l.Tools, policyRow{Tool: en.Tool, Effect: en.Effect, Mode: string(mode), ModeSource: source,
			Plugin: en.Plugin, From: origin(en.Plugin), Recorded: en.Updated.Local().Format("2006-01-02"),
			Flags: nonNil(en.Flags), known: true})
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
		l.Tools = append(l.Tools, policyRow{Tool: n, Mode: overrides[n], ModeSource: "override",
			From: "override for a tool not loaded now", Flags: []string{}})
	}
	roles, _ := a.Store.Roles(ctx)
	grants, _ := a.Store.Grants(ctx)
	l.Roles, l.Grants = []policyRole{}, []policyGrant{}
	for _, r := range roles {
		l.Roles = append(l.Roles, policyRole{Channel: r.Channel, Group: r.Group, User: r.User, Role: r.Role})
	}
	for _, g := range grants {
		l.Grants = append(l.Grants, policyGrant{Role: g.Role, Channel: g.Channel, Group: g.Group, Effects: nonNil(g.Effects)})
	}
	return l
}

func nonNil(s []string) []string {
	if s == nil {
		return []string{}
	}
	return s
}

func listPolicy(ctx context.Context, a *app.App, asJSON bool, stdout io.Writer) int {
	l := policyList(ctx, a)
	if asJSON {
		return writeJSON(stdout, l)
	}
	w := tabwriter.NewWriter(stdout, 0, 4, 2, ' ', 0)
	fmt.Fprintln(w, "TOOL\tEFFECT\tMODE\tFROM\tFLAGS")
	cell := terminal.SanitizeLine
	for _, r := range l.Tools {
		effect, from := cell(r.Effect), cell(r.From)
		switch {
		case !r.known:
			effect = "?"
		case r.Effect == "":
			effect = "write (undeclared)"
		}
		if r.Recorded != "" {
			from = cell(r.From + " (as recorded " + r.Recorded + ")")
		}
		tool := cell(r.Tool)
		if r.ModelName != "" {
			tool += " (model: " + cell(r.ModelName) + ")"
		}
		fmt.Fprintf(w, "%s\t%s\t%s (%s)\t%s\t%s\n", tool, effect, cell(r.Mode), r.ModeSource, from, cell(strings.Join(r.Flags, ",")))
	}
	for _, e := range l.Errors {
		fmt.Fprintf(w, "(%s)\n", cell(e))
	}
	w.Flush()
	if len(l.Roles) > 0 {
		fmt.Fprintln(stdout, "\nroles (the terminal user is always the owner; anyone else not listed is a guest):")
		for _, r := range l.Roles {
			fmt.Fprintf(stdout, "  %s on %s%s: %s\n", userLabel(r.User), r.Channel, groupSuffix(r.Group), r.Role)
		}
	}
	fmt.Fprintln(stdout, "\ngrants (without one, everyone but the owner may only read):")
	if len(l.Grants) == 0 {
		fmt.Fprintln(stdout, "  none")
	}
	for _, g := range l.Grants {
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

// qualifiedTool is the qualified name of the tool the model knows as name
// (memo_create: memo__memo_create), the name policy modes are kept under.
// A qualified name (with "__") is itself, known or not. A short name is
// resolved among the loaded tools, then, the child plugins not being
// started without a daemon, among the tools of the catalogue that may be
// short (tools.ShortAllowed); one that names no tool, or several, is an
// error that says which tools go by that name.
func qualifiedTool(ctx context.Context, a *app.App, name string) (string, error) {
	if t, ok := a.Kernel.Tools().Lookup(name); ok {
		return t.Name, nil
	}
	if strings.Contains(name, tools.Separator) {
		return name, nil
	}
	list, err := a.Policy.Catalog(ctx)
	if err != nil {
		return "", fmt.Errorf("reading the tool catalogue: %w", err)
	}
	known := sdk.Factories()
	for _, t := range a.Kernel.Tools().List() {
		known = append(known, t.Plugin)
	}
	if owners, err := a.Store.PluginOwners(ctx); err == nil {
		for id := range owners {
			known = append(known, id)
		}
	}
	for _, en := range list {
		known = append(known, en.Plugin)
	}
	var short, others []string
	for _, en := range list {
		local, ok := strings.CutPrefix(en.Tool, en.Plugin+tools.Separator)
		if !ok || !strings.EqualFold(local, name) {
			continue
		}
		if tools.ShortAllowed(en.Plugin, local, known) {
			short = append(short, en.Tool)
		} else {
			others = append(others, en.Tool)
		}
	}
	for _, t := range a.Kernel.Tools().List() {
		if strings.EqualFold(t.Local, name) && !slices.Contains(others, t.Name) {
			others = append(others, t.Name)
		}
	}
	switch {
	case len(short) == 1:
		return short[0], nil
	case len(short) > 1:
		return "", fmt.Errorf("%q is the name of several tools (%s): name one as plugin__tool", name, strings.Join(short, ", "))
	case len(others) > 0:
		return "", fmt.Errorf("no tool goes by %q; tools of that name: %s", name, strings.Join(others, ", "))
	}
	return "", fmt.Errorf("no tool %q is known; name a tool not known yet as plugin__tool (`hearth policy` lists the tools)", name)
}
