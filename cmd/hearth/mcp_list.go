package main

import (
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"maps"
	"slices"
	"strings"
	"text/tabwriter"

	"github.com/hearth-agent/hearth/internal/app"
	"github.com/hearth-agent/hearth/internal/channel/terminal"
	"github.com/hearth-agent/hearth/internal/config"
	"github.com/hearth-agent/hearth/internal/datadir"
	"github.com/hearth-agent/hearth/internal/names"
	"github.com/hearth-agent/hearth/internal/pluginhost"
	"github.com/hearth-agent/hearth/internal/redact"
	"github.com/hearth-agent/hearth/sdk"
)

// mcpListed is one server in `hearth mcp list --json`: what config.json
// says, with the values of env and headers left out and a URL's key
// masked, and what the process running the plugins knows of it.
type mcpListed struct {
	Name    string   `json:"name"`
	Plugin  string   `json:"plugin"`
	Type    string   `json:"type"`
	Command string   `json:"command,omitempty"`
	Args    []string `json:"args,omitempty"`
	URL     string   `json:"url,omitempty"`
	Cwd     string   `json:"cwd,omitempty"`
	// Env and Headers are the names only: the values may be secrets.
	Env     []string `json:"env,omitempty"`
	Headers []string `json:"headers,omitempty"`
	Timeout string   `json:"timeout,omitempty"`
	OAuth   bool     `json:"oauth,omitempty"`
	// Enabled is false when config.json or `hearth mcp disable` turned it
	// off.
	Enabled bool `json:"enabled"`
	// State is the plugin's state where it runs: "running", "starting",
	// ...; "unknown here" when this process does not run the plugins (no
	// Hearth does, or another one that is not a daemon, like hearth mcp
	// serve --http).
	State     string   `json:"state"`
	Restarts  int      `json:"restarts,omitempty"`
	Tools     []string `json:"tools"`
	LastError string   `json:"last_error,omitempty"`
}

func mcpList(ctx context.Context, a *app.App, args []string, cio *cmdIO) int {
	fs := flag.NewFlagSet("hearth mcp list", flag.ContinueOnError)
	fs.SetOutput(io.Discard)
	asJSON := fs.Bool("json", false, "")
	if err := fs.Parse(args); err != nil || fs.NArg() > 0 {
		if err != nil {
			fmt.Fprintf(cio.err, "hearth mcp list: %s\n", flagError(err))
		}
		fmt.Fprint(cio.err, mcpSubUsage("list"))
		return 2
	}
	cfg, err := config.Load(a.DataDir)
	if err != nil {
		fmt.Fprintf(cio.err, "hearth mcp list: %v\n", err)
		return 1
	}
	list, err := mcpServersListed(ctx, a, cfg, cio.daemon)
	if err != nil {
		fmt.Fprintf(cio.err, "hearth mcp list: %v\n", err)
		return 1
	}
	if *asJSON {
		enc := json.NewEncoder(cio.out)
		enc.SetIndent("", "  ")
		enc.SetEscapeHTML(false)
		if err := enc.Encode(list); err != nil {
			return 1
		}
		return 0
	}
	if len(list) == 0 {
		fmt.Fprintln(cio.out, "(no MCP servers; add one with hearth mcp add, see hearth mcp -h)")
		return 0
	}
	w := tabwriter.NewWriter(cio.out, 0, 4, 2, ' ', 0)
	fmt.Fprintln(w, "NAME\tTYPE\tCOMMAND OR URL\tSTATE\tTOOLS\tLAST ERROR")
	for _, l := range list {
		target := l.URL
		if target == "" {
			target = strings.Join(append([]string{l.Command}, l.Args...), " ")
		}
		state := l.State
		if !l.Enabled {
			state = "disabled"
		}
		cell := terminal.SanitizeLine
		fmt.Fprintf(w, "%s\t%s\t%s\t%s\t%d\t%s\n", cell(l.Name), l.Type, cell(target), cell(state), len(l.Tools), cell(firstLine(l.LastError)))
	}
	w.Flush()
	if !cio.daemon {
		fmt.Fprintln(cio.out, notHereNote(a.DataDir))
	}
	return 0
}

// notHereNote says, under a listing made without the daemon, why it
// has no states and tools: which process holds the data directory dir
// and runs the servers, if one does.
func notHereNote(dir string) string {
	lock, err := datadir.Acquire(dir)
	var busy *datadir.LockedError
	switch {
	case err == nil:
		_ = lock.Release()
		return "(no Hearth runs these servers now: states and tools are shown while hearth serve runs)"
	case errors.As(err, &busy) && busy.PID > 0:
		return fmt.Sprintf("(another Hearth, pid %d, holds %s and runs these servers; their states and tools are shown only by it, or while hearth serve runs)", busy.PID, dir)
	}
	return "(another Hearth process runs these servers; their states and tools are shown only by it, or while hearth serve runs)"
}

// mcpServersListed describes cfg's MCP servers, by name, with what a (the
// process running the plugins, when daemon) knows of them. Every value
// that may be a secret (env and header values, a URL's password and
// query, key-like arguments) is left out or masked.
func mcpServersListed(ctx context.Context, a *app.App, cfg *config.File, daemon bool) ([]mcpListed, error) {
	infos := map[string]pluginhost.Info{}
	if daemon {
		list, err := a.Plugins.List(ctx)
		if err != nil {
			return nil, err
		}
		for _, p := range list {
			infos[names.Key(p.ID)] = p
		}
	}
	states, err := a.Store.PluginStates(ctx)
	if err != nil {
		return nil, err
	}
	tools := map[string][]string{}
	if daemon {
		for _, t := range a.Kernel.OfferedTools(sdk.Injection{Channel: terminal.Channel, UserID: "owner"}) {
			tools[names.Key(t.Plugin)] = append(tools[names.Key(t.Plugin)], t.Name)
		}
	}
	out := []mcpListed{}
	for _, name := range slices.Sorted(maps.Keys(cfg.MCPServers)) {
		s := cfg.MCPServers[name]
		plugin := pluginhost.MCPPluginName(name)
		mask := secretsOf(s)
		l := mcpListed{
			Name: name, Plugin: plugin, Type: s.Transport(),
			Command: mask.All(s.Command), URL: s.RedactedURL(), Cwd: s.Cwd,
			Env: sortedKeys(s.Env), Headers: sortedKeys(s.Headers),
			OAuth: s.OAuth != nil, Enabled: !s.Disabled,
			State: "unknown here", Tools: tools[names.Key(plugin)],
		}
		for _, arg := range config.MaskArgs(s.Args) {
			l.Args = append(l.Args, mask.All(arg))
		}
		if s.Timeout != 0 {
			l.Timeout = jsonDuration(s.Timeout)
		}
		if st, ok := states[plugin]; ok && !st.Enabled {
			l.Enabled = false
		}
		if info, ok := infos[names.Key(plugin)]; ok {
			l.State = "stopped"
			if info.Status != nil {
				l.State, l.Restarts = string(info.Status.State), info.Status.Restarts
				l.LastError = mask.All(info.Status.LastError)
			}
			if info.Error != "" {
				l.State, l.LastError = "error", mask.All(info.Error)
			}
		} else if daemon {
			l.State = "stopped"
		}
		if l.Tools == nil {
			l.Tools = []string{}
		}
		out = append(out, l)
	}
	return out, nil
}

// secretsOf is what to mask in what is shown of s: its env and header
// values, wherever they turn up.
func secretsOf(s config.MCPServer) *redact.Secrets {
	var m redact.Secrets
	for _, v := range s.Env {
		m.Add(v)
	}
	for _, v := range s.Headers {
		m.Add(v)
		if _, tok, ok := strings.Cut(v, " "); ok {
			m.Add(tok) // "Bearer <token>": the token alone too
		}
	}
	if s.OAuth != nil {
		m.Add(s.OAuth.ClientSecret)
	}
	return &m
}

// commandLine is s's command and arguments, masked.
func commandLine(s config.MCPServer) string {
	mask := secretsOf(s)
	parts := []string{mask.All(s.Command)}
	for _, a := range config.MaskArgs(s.Args) {
		parts = append(parts, mask.All(a))
	}
	return strings.Join(parts, " ")
}

func jsonDuration(d config.Duration) string {
	b, _ := d.MarshalJSON()
	var s string
	_ = json.Unmarshal(b, &s)
	return s
}

func sortedKeys(m map[string]string) []string {
	if len(m) == 0 {
		return nil
	}
	return slices.Sorted(maps.Keys(m))
}
