package main

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"slices"
	"strings"
	"text/tabwriter"

	"golang.org/x/term"

	"github.com/hearth-agent/hearth/internal/app"
	"github.com/hearth-agent/hearth/internal/channel/terminal"
	"github.com/hearth-agent/hearth/internal/settings"
	"github.com/hearth-agent/hearth/sdk"
)

const settingsUsage = `Usage:
  hearth settings                       every plugin's settings (secrets masked; --json for scripts)
  hearth settings PLUGIN                one plugin's settings, with what it declares
  hearth settings get PLUGIN KEY        one value (a secret shows masked)
  hearth settings set PLUGIN KEY VALUE  set a value: JSON (42, true, "text", [..]) or plain text
  hearth settings set PLUGIN KEY        read the value from stdin (not echoed on a terminal)

Shows and changes the settings of Hearth and its plugins (--data-dir DIR
for another data directory). PLUGIN "core" is Hearth's own settings; "mcp"
holds the MCP servers' OAuth logins (hearth mcp login). A running Hearth
sees a change at once.
`

func runSettings(ctx context.Context, a *app.App, args []string, cio *cmdIO) int {
	stdin, stdout, stderr := cio.in, cio.out, cio.err
	fail := func(err error) int {
		fmt.Fprintf(stderr, "hearth settings: %v\n", err)
		return 1
	}
	svc := a.Settings
	switch {
	case len(args) == 0:
		names, err := svc.Namespaces()
		if err != nil {
			return fail(err)
		}
		if keys, _ := svc.Keys(settings.Core, ""); len(keys) > 0 {
			names = append([]string{settings.Core}, names...)
		}
		if len(names) == 0 {
			fmt.Fprintln(stdout, "(no settings yet)")
			return 0
		}
		for i, ns := range names {
			if i > 0 {
				fmt.Fprintln(stdout)
			}
			fmt.Fprintf(stdout, "[%s]\n", terminal.SanitizeLine(ns))
			if err := listSettings(svc, ns, stdout); err != nil {
				return fail(err)
			}
		}
		return 0
	case len(args) == 1 && args[0] != "get" && args[0] != "set":
		defer declareFirst(ctx, a, args[0], cio)()
		if err := listSettings(svc, args[0], stdout); err != nil {
			return fail(err)
		}
		return 0
	case args[0] == "get" && len(args) == 3:
		raw, ok, err := svc.Value(args[1], args[2])
		if err != nil {
			return fail(err)
		}
		if !ok {
			return fail(fmt.Errorf("%s.%s: %w", args[1], args[2], sdk.ErrNotFound))
		}
		fmt.Fprintln(stdout, shown(svc, args[1], args[2], raw))
		return 0
	case args[0] == "set" && (len(args) == 3 || len(args) == 4):
		if err := checkNamespace(ctx, a, args[1]); err != nil {
			return fail(err)
		}
		var value string
		fromStdin := len(args) == 3
		if !fromStdin {
			value = args[3]
		} else {
			v, err := readValue(stdin, stderr, args[1]+"."+args[2])
			if err != nil {
				return fail(err)
			}
			value = v
		}
		raw := json.RawMessage(value)
		if !json.Valid(raw) {
			raw, _ = json.Marshal(value) // plain text
		}
		if err := svc.SetJSON(args[1], args[2], raw); err != nil {
			if errors.Is(err, settings.ErrInvalid) {
				fmt.Fprintf(stderr, "hearth settings: %v\n", err)
				return 2
			}
			return fail(err)
		}
		if fromStdin {
			fmt.Fprintf(stdout, "%s.%s set\n", args[1], args[2]) // it may be a secret nobody declared
		} else {
			fmt.Fprintf(stdout, "%s.%s = %s\n", args[1], args[2], shown(svc, args[1], args[2], raw))
		}
		return 0
	}
	fmt.Fprint(stderr, settingsUsage)
	return 2
}

// listSettings prints a namespace's keys: values (masked if secret) and
// what the plugin declared about them.
func listSettings(svc *settings.Service, ns string, stdout io.Writer) error {
	keys, err := svc.Keys(ns, "")
	if err != nil {
		return err
	}
	if len(keys) == 0 {
		fmt.Fprintf(stdout, "(%s has no settings)\n", ns)
		return nil
	}
	defs := map[string]*sdk.ConfigDef{}
	for _, d := range svc.Defs(ns, "") {
		defs[d.Key] = d
	}
	w := tabwriter.NewWriter(stdout, 0, 4, 2, ' ', 0)
	fmt.Fprintln(w, "KEY\tVALUE\tABOUT")
	for _, k := range keys {
		value := "(not set)"
		if d := defs[k]; d != nil && d.Required {
			value = "(required, not set)"
		}
		if raw, ok, err := svc.Value(ns, k); err != nil {
			return err
		} else if ok {
			value = shown(svc, ns, k, raw)
		}
		about := ""
		if d := defs[k]; d != nil {
			about = strings.TrimSpace(strings.Join([]string{d.DisplayName, d.Description}, " "))
			if d.Secret {
				about = strings.TrimSpace(about + " (secret)")
			}
		}
		// Keys, values and descriptions are the plugins': neutralised.
		cell := terminal.SanitizeLine
		fmt.Fprintf(w, "%s\t%s\t%s\n", cell(k), cell(value), cell(about))
	}
	return w.Flush()
}

// shown is a value as the CLI prints it: a secret masked.
func shown(svc *settings.Service, ns, key string, raw json.RawMessage) string {
	if svc.Secret(ns, key) {
		return settings.Mask
	}
	return string(raw)
}

// readValue reads one value from stdin: on a terminal without echo (for
// keys and tokens), otherwise the first line.
func readValue(stdin io.Reader, stderr io.Writer, name string) (string, error) {
	if f, ok := stdin.(*os.File); ok && term.IsTerminal(int(f.Fd())) {
		fmt.Fprintf(stderr, "%s: ", name)
		b, err := term.ReadPassword(int(f.Fd()))
		fmt.Fprintln(stderr)
		return strings.TrimSpace(string(b)), err
	}
	line, err := bufio.NewReader(stdin).ReadString('\n')
	if err != nil && !errors.Is(err, io.EOF) {
		return "", err
	}
	if line = strings.TrimRight(line, "\r\n"); line == "" {
		return "", errors.New("no value on stdin")
	}
	return line, nil
}

// checkNamespace refuses to set settings of a plugin that does not
// exist: Hearth's own (core), the MCP logins (mcp), a built-in, a plugin
// of the plugins folder, an MCP server, or a namespace that already has
// settings (a plugin removed, or not yet started, keeps them).
func checkNamespace(ctx context.Context, a *app.App, ns string) error {
	if ns == settings.Core || ns == "mcp" || isBuiltin(a, ns) {
		return nil
	}
	have, err := a.Settings.Namespaces()
	if err != nil {
		return err
	}
	if slices.Contains(have, ns) {
		return nil
	}
	list, err := a.Plugins.List(ctx)
	if err != nil {
		return err
	}
	for _, p := range list {
		if p.ID == ns || p.Dir != "" && pluginName(p) == ns {
			return nil
		}
	}
	return fmt.Errorf("%w\n(settings also has: core (Hearth's own), mcp (MCP logins)%s)", unknownPlugin(a, list, ns), withNamespaces(have))
}

// declareFirst starts the plugins for a moment, as hearth plugin does,
// when ns is an installed plugin that never declared a setting (it never
// started), so that it declares them (they are kept) before its settings
// are listed. The caller calls the returned stop when done listing.
func declareFirst(ctx context.Context, a *app.App, ns string, cio *cmdIO) (stop func()) {
	if cio.daemon || len(a.Settings.Defs(ns, "")) > 0 || !installed(ctx, a, ns) {
		return func() {}
	}
	stop, _ = tryPlugins(ctx, a) // a plugin that fails says so in hearth plugin
	return stop
}

// installed reports whether ns names a plugin of the plugins folder.
func installed(ctx context.Context, a *app.App, ns string) bool {
	list, err := a.Plugins.List(ctx)
	if err != nil {
		return false
	}
	for _, p := range list {
		if p.Dir != "" && (p.ID == ns || pluginName(p) == ns) {
			return true
		}
	}
	return false
}

// withNamespaces lists the namespaces that have settings, for an error.
func withNamespaces(have []string) string {
	if len(have) == 0 {
		return ""
	}
	return ", " + strings.Join(have, ", ")
}
