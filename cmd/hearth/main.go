// Command hearth runs a Hearth agent.
//
//	hearth serve                run as a service: the web UI and the HTTP API
//	hearth chat                 interactive chat in the terminal (the default)
//	hearth ask "question"       answer once and exit, for scripts
//	hearth tools                list the tools the model sees
//	hearth settings             see and set plugin settings
//	hearth mcp                  MCP servers: add, list, remove; serve Hearth's tools
//	hearth token                print (or --rotate) the HTTP API's token
//	hearth version
//
// The data directory is ~/.hearth, HEARTH_HOME or --data-dir; the model
// provider comes from OPENAI_BASE_URL / OPENAI_API_KEY or config.json there.
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"os"
	"path/filepath"
	"strings"
	"time"

	"golang.org/x/term"

	"github.com/hearth-agent/hearth/internal/app"
	"github.com/hearth-agent/hearth/internal/channel/terminal"
	"github.com/hearth-agent/hearth/internal/config"
	"github.com/hearth-agent/hearth/internal/pluginhost"
	"github.com/hearth-agent/hearth/sdk"
)

// version is set at build time with -ldflags "-X main.version=...".
var version = "dev"

func main() {
	pluginhost.ShimMain() // a plugin's supervisor exits here; see its doc
	os.Exit(run(context.Background(), os.Args[1:], os.Stdin, os.Stdout, os.Stderr))
}

const usage = `Usage: hearth [command] [flags]

Commands:
  serve           run Hearth as a service: the web UI and the HTTP API (see hearth serve -h)
  chat            chat in the terminal (default)
  ask MESSAGE     answer one message and exit; "-" or no message reads stdin
  tools           list the tools the model sees (--json for the exact specs)
  policy          see and change which tools run, ask or are off; roles and grants
  audit           the log of tool calls (--tool NAME, --since 24h, --limit N)
  plugin          list, show, logs, enable, disable, reload, install, remove or forget plugins;
                  plugin new NAME --lang go|ts|python writes a plugin to start from
  settings        see and set plugin settings (API keys, options)
  mcp             use MCP servers' tools (add, list, remove, login) and serve Hearth's
                  own to MCP clients (hearth mcp -h)
  token           print the HTTP API's token (--rotate replaces it)
  version         print the version

Flags (all commands):
  --data-dir DIR  data directory (default $HEARTH_HOME or ~/.hearth)
  --model NAME    model (default $HEARTH_MODEL or the source's)
  --source NAME   model source from config.json
  --session NAME  conversation to continue (chat: the terminal's; ask: a new one)
  --reasoning     show the model's reasoning (default: on in chat, off in ask)
  --usage         ask: print the tokens and price of the answer on stderr
  -v              log to stderr too

While hearth serve runs, plugin, policy, settings, audit, tools and mcp are run
by it, so a change is live at once.

Model provider: set OPENAI_BASE_URL and OPENAI_API_KEY, or write config.json
in the data directory (see docs/configuration.md).
`

type flags struct {
	dataDir, model, source, session string
	reasoning, verbose, jsonOut     bool
	showUsage                       bool // --usage
	channel, group, tool            string
	limit                           int
	lines                           int // -n: plugin logs
	since                           time.Duration
}

func parse(cmd string, args []string, stderr io.Writer) (*flags, []string, error) {
	f := &flags{reasoning: cmd == "chat"}
	if cmd == "mcp" {
		return parseMCP(f, args, stderr)
	}
	fs := flag.NewFlagSet("hearth "+cmd, flag.ContinueOnError)
	fs.SetOutput(stderr)
	fs.Usage = func() {
		if cmd != "settings" { // settings says its own, in run
			fmt.Fprint(stderr, usage)
		}
	}
	fs.StringVar(&f.dataDir, "data-dir", "", "")
	fs.StringVar(&f.model, "model", "", "")
	fs.StringVar(&f.source, "source", "", "")
	fs.StringVar(&f.session, "session", "", "")
	fs.BoolVar(&f.reasoning, "reasoning", f.reasoning, "")
	fs.BoolVar(&f.verbose, "v", false, "")
	fs.BoolVar(&f.showUsage, "usage", false, "")
	fs.BoolVar(&f.jsonOut, "json", false, "")
	fs.StringVar(&f.channel, "channel", "", "")
	fs.StringVar(&f.group, "group", "", "")
	fs.StringVar(&f.tool, "tool", "", "")
	fs.IntVar(&f.limit, "limit", 50, "")
	fs.IntVar(&f.lines, "n", 0, "")
	fs.DurationVar(&f.since, "since", 0, "")
	// Flags may come before or after the message.
	var rest []string
	for {
		if err := fs.Parse(args); err != nil {
			return nil, nil, err
		}
		if fs.NArg() == 0 {
			break
		}
		rest = append(rest, fs.Arg(0))
		args = fs.Args()[1:]
	}
	return f, rest, nil
}

func run(ctx context.Context, args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	cmd := "chat"
	if len(args) > 0 && !strings.HasPrefix(args[0], "-") {
		cmd, args = args[0], args[1:]
	}
	switch cmd {
	case "help":
		fmt.Fprint(stdout, usage)
		return 0
	case "version":
		fmt.Fprintf(stdout, "hearth %s (sdk %s)\n", version, sdk.SDKVersion)
		return 0
	case "serve":
		return runServe(ctx, args, stdout, stderr)
	case "token":
		return runToken(args, stdout, stderr)
	case "mcp":
		if len(args) > 0 && args[0] == "serve" {
			return runMCPServe(ctx, args[1:], stdin, stdout, stderr)
		}
		if len(args) > 0 && args[0] == "login" {
			return runMCPLogin(ctx, args[1:], stdin, stdout, stderr)
		}
	case "plugin":
		if len(args) > 0 && args[0] == "new" {
			return runPluginNew(args[1:], stdout, stderr)
		}
	case "chat", "ask", "tools", "policy", "audit", "settings":
	default:
		fmt.Fprintf(stderr, "hearth: unknown command %q\n\n%s", cmd, usage)
		return 2
	}
	f, rest, err := parse(cmd, args, stderr)
	if errors.Is(err, flag.ErrHelp) {
		if cmd == "settings" {
			fmt.Fprint(stdout, settingsUsage)
		}
		return 0
	}
	if err != nil {
		return 2
	}
	if code, done := toDaemon(ctx, cmd, args, f, rest, stdin, stdout, stderr); done {
		return code
	}
	opts := &app.Options{DataDir: f.dataDir, Model: f.model, Source: f.source}
	switch cmd {
	case "chat":
		opts.Plugins = app.PluginsStart
	case "ask":
		opts.Plugins = app.PluginsWait
	}
	if f.verbose {
		opts.LogTo, opts.LogLevel = stderr, slog.LevelDebug
	}
	a, err := app.Open(ctx, opts)
	if err != nil {
		fmt.Fprintf(stderr, "hearth: %v\n", err)
		return 1
	}
	defer a.Close()
	for _, w := range a.Warnings {
		fmt.Fprintf(stderr, "hearth: %s\n", w)
	}
	if cmd == "chat" || cmd == "ask" {
		var flushOut, flushErr func()
		stdout, flushOut = maskOutput(stdout, a.Sources.Secrets())
		stderr, flushErr = maskOutput(stderr, a.Sources.Secrets())
		defer flushErr()
		defer flushOut()
	}

	switch cmd {
	case "tools", "policy", "audit", "plugin", "settings", "mcp":
		cwd, _ := os.Getwd()
		return runOn(ctx, a, cmd, f, rest, &cmdIO{in: stdin, out: stdout, err: stderr, cwd: cwd})
	case "ask":
		text, code := askText(rest, stdin, stderr)
		if code != 0 {
			return code
		}
		if !haveProvider(a, stderr) {
			return 2
		}
		return askExit(terminal.Ask(ctx, a.Kernel, text, termOptions(a, f, stdin, stdout, stderr)))
	default: // chat
		if code := chatArgs(rest, stderr); code != 0 {
			return code
		}
		if !haveProvider(a, stderr) {
			return 2
		}
		o := termOptions(a, f, stdin, stdout, stderr)
		o.HistoryFile = filepath.Join(a.DataDir, "chat_history")
		o.Plugins = func() string { return pluginLines(ctx, a) }
		if err := terminal.Chat(ctx, a.Kernel, o); err != nil && !errors.Is(err, context.Canceled) {
			fmt.Fprintf(stderr, "hearth: %v\n", err)
			return 1
		}
		return 0
	}
}

// askText is the message of `hearth ask`: its arguments, or stdin for "-"
// or none; code is non-zero when there is none.
func askText(rest []string, stdin io.Reader, stderr io.Writer) (text string, code int) {
	text = strings.Join(rest, " ")
	if text == "" && isTerminal(stdin) {
		fmt.Fprint(stderr, "hearth ask: no message given (pass it as an argument, or pipe it in)\n\n"+usage)
		return "", 2
	}
	if text == "" || text == "-" {
		b, err := io.ReadAll(stdin)
		if err != nil {
			fmt.Fprintf(stderr, "hearth: reading the message: %v\n", err)
			return "", 1
		}
		text = strings.TrimSpace(string(b))
	}
	if text == "" {
		fmt.Fprint(stderr, "hearth ask: no message given\n\n"+usage)
		return "", 2
	}
	return text, 0
}

// chatArgs refuses arguments to `hearth chat`.
func chatArgs(rest []string, stderr io.Writer) int {
	if len(rest) > 0 {
		fmt.Fprintf(stderr, "hearth chat: unexpected argument %q (did you mean hearth ask?)\n", rest[0])
		return 2
	}
	return 0
}

// askExit is the exit status of `hearth ask`: terminal.Ask has printed why
// it failed.
func askExit(err error) int {
	if err != nil {
		return 1
	}
	return 0
}

func termOptions(a *app.App, f *flags, stdin io.Reader, stdout, stderr io.Writer) *terminal.Options {
	prompts, getPrompt := chatPrompts(a.Plugins)
	return &terminal.Options{
		Prompts: prompts, GetPrompt: getPrompt,
		In: stdin, Out: stdout, Err: stderr,
		ChatID: f.session, ShowReasoning: f.reasoning, Usage: f.showUsage,
		Sources: a.Sources, ConfigPath: filepath.Join(a.DataDir, config.FileName),
	}
}

func haveProvider(a *app.App, stderr io.Writer) bool {
	if len(a.Sources.ListSources()) > 0 {
		return true
	}
	fmt.Fprintln(stderr, terminal.NoProviderMessage(filepath.Join(a.DataDir, config.FileName)))
	return false
}

func isTerminal(r io.Reader) bool {
	f, ok := r.(*os.File)
	return ok && term.IsTerminal(int(f.Fd()))
}

func firstLine(s string) string {
	s, _, _ = strings.Cut(s, "\n")
	return s
}
