// Command hearth runs a Hearth agent.
//
//	hearth serve                run as a service: the web UI and the HTTP API
//	hearth chat                 interactive chat in the terminal (the default)
//	hearth ask "question"       answer once and exit, for scripts
//	hearth tools                list the tools the model sees
//	hearth settings             see and set plugin settings
//	hearth knowledge            search and edit the knowledge base
//	hearth memory               what the agent remembers: list, search, add, forget, correct
//	hearth models               model sources and providers: models, prices, test, balance
//	hearth mcp                  MCP servers: add, list, remove; serve Hearth's tools
//	hearth token                print (or --rotate) the HTTP API's token
//	hearth version
//	hearth help TOPIC           a command's help, or config, exit-codes, flags
//	hearth completion SHELL     completion script for bash, zsh or fish
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
	"slices"
	"strconv"
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
  usage [BY]      model tokens and cost by day, session, source, model or plugin; budgets
  plugin          list, show, logs, enable, disable, reload, install, remove or forget plugins;
                  plugin new NAME --lang go|ts|python writes a plugin to start from
  settings        see and set plugin settings (API keys, options)
  knowledge       search, list, show, add and remove knowledge base entries
  memory          what the agent remembers: list, search, show, add, forget, correct
  models          model sources and providers: models, prices, test a key, balance
  mcp             use MCP servers' tools (add, list, remove, login) and serve Hearth's
                  own to MCP clients (hearth mcp -h)
  token           print the HTTP API's token (--rotate replaces it)
  version         print the version (also hearth --version)
  help [TOPIC]    help on a command, or on config, exit-codes, flags
  completion SHELL  shell completion script: bash, zsh or fish

Every command takes -h (hearth ask -h): what it does, its flags, examples.

Flags (before or after the command):
  --data-dir DIR  data directory (default $HEARTH_HOME or ~/.hearth)
  --model NAME    model (default $HEARTH_MODEL or the source's)
  --source NAME   model source from config.json
  --session NAME  conversation to continue (chat: the terminal's; ask: a new one)
  --reasoning     show the model's reasoning (default: on in chat, off in ask)
  --usage         ask: print the tokens and price of the answer on stderr
  -v              log to stderr too

While hearth serve runs, plugin, policy, settings, knowledge, memory, audit, usage, tools, models and mcp are run
by it, so a change is live at once.

Model provider: the first hearth (chat) on a terminal offers to set one up;
or set OPENAI_BASE_URL and OPENAI_API_KEY, or write config.json in the data
directory (see docs/configuration.md). Exit codes: 0 ok, 1 failure,
2 usage (hearth help exit-codes). All of it: docs/cli.md.
`

type flags struct {
	dataDir, model, source, session string
	reasoning, verbose, jsonOut     bool
	showUsage                       bool // --usage
	channel, group, tool            string
	limit                           int
	lines                           int    // -n: plugin logs
	id                              string // --id: plugin install of a HomeAgent source folder
	yes                             bool   // --yes: plugin upgrade that asks for more rights
	since                           time.Duration
	k                               int    // -k: knowledge search
	scope, writer                   string // --scope, --writer: knowledge, memory (--scope)
	all                             bool   // --all: knowledge
	reveal                          bool   // --reveal: memory, knowledge
}

// commandFlags are the flags each command that parse reads uses: any
// other is refused, never ignored. A flag added to parse is added here
// for the commands that use it.
var commandFlags = map[string][]string{
	"chat":      {"data-dir", "model", "source", "session", "reasoning", "v"},
	"ask":       {"data-dir", "model", "source", "session", "reasoning", "v", "usage"},
	"tools":     {"data-dir", "v", "json"},
	"policy":    {"data-dir", "v", "channel", "group", "json"},
	"audit":     {"data-dir", "v", "tool", "since", "limit", "json"},
	"usage":     {"data-dir", "v", "since", "json"},
	"plugin":    {"data-dir", "v", "n", "id", "json", "yes"},
	"settings":  {"data-dir", "v", "json"},
	"knowledge": {"data-dir", "v", "json", "k", "scope", "writer", "all", "reveal"},
	"memory":    {"data-dir", "v", "json", "scope", "limit", "reveal"},
	"models":    {"data-dir", "v", "json"},
}

// errUnusedFlag is returned by parse for a flag the command does not use.
var errUnusedFlag = errors.New("flag not used by this command")

func parse(cmd string, args []string, stderr io.Writer) (*flags, []string, error) {
	f := &flags{reasoning: cmd == "chat"}
	if cmd == "mcp" {
		return parseMCP(f, args, stderr)
	}
	fs := flag.NewFlagSet("hearth "+cmd, flag.ContinueOnError)
	fs.SetOutput(stderr)
	fs.Usage = func() { fmt.Fprintf(stderr, "(hearth %s -h for help)\n", cmd) }
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
	fs.StringVar(&f.id, "id", "", "")
	fs.BoolVar(&f.yes, "yes", false, "")
	fs.Var((*sinceFlag)(&f.since), "since", "")
	fs.IntVar(&f.k, "k", 0, "")
	fs.StringVar(&f.scope, "scope", "", "")
	fs.StringVar(&f.writer, "writer", "", "")
	fs.BoolVar(&f.all, "all", false, "")
	fs.BoolVar(&f.reveal, "reveal", false, "")
	// Flags may come before or after the message; "--" ends them.
	var rest []string
	for {
		if err := fs.Parse(args); err != nil {
			return nil, nil, err
		}
		if fs.NArg() == 0 {
			break
		}
		if used := len(args) - fs.NArg(); used > 0 && args[used-1] == "--" {
			rest = append(rest, fs.Args()...)
			break
		}
		rest = append(rest, fs.Arg(0))
		args = fs.Args()[1:]
	}
	var unused []string
	fs.Visit(func(fl *flag.Flag) {
		if !slices.Contains(commandFlags[cmd], fl.Name) {
			unused = append(unused, flagName(fl.Name))
		}
	})
	if len(unused) > 0 {
		fmt.Fprintf(stderr, "hearth %s: %s is not a flag of this command (hearth %s -h lists them)\n", cmd, strings.Join(unused, ", "), cmd)
		return nil, nil, errUnusedFlag
	}
	return f, rest, nil
}

// sinceFlag is --since: how far back, as a Go duration (90s, 30m, 24h)
// or a number of days (7d); 0, the default, is no limit.
type sinceFlag time.Duration

func (s *sinceFlag) String() string {
	if s == nil {
		return "0s"
	}
	return time.Duration(*s).String()
}

// errSince is what a --since that is not a duration gets: the formats
// it takes.
var errSince = errors.New("want a duration back from now: 90s, 30m, 24h, 1h30m or 7d (a number and s, m, h or d)")

func (s *sinceFlag) Set(v string) error {
	d, err := time.ParseDuration(v)
	if n, ok := strings.CutSuffix(v, "d"); ok && err != nil {
		var days int
		if days, err = strconv.Atoi(n); err == nil && days <= 1<<16 {
			d = time.Duration(days) * 24 * time.Hour
		} else {
			err = errSince
		}
	}
	if err != nil || d < 0 {
		return errSince
	}
	*s = sinceFlag(d)
	return nil
}

// flagName is how a flag is written: -v, --data-dir.
func flagName(name string) string {
	if len(name) == 1 {
		return "-" + name
	}
	return "--" + name
}

// commands are hearth's commands.
var commands = map[string]bool{
	"chat": true, "ask": true, "tools": true, "policy": true, "audit": true, "plugin": true, "settings": true,
	"mcp": true, "serve": true, "token": true, "version": true, "help": true, "completion": true,
	"knowledge": true, "memory": true, "usage": true, "models": true,
}

// splitCommand finds the command in args: flags may come before it
// (hearth -v ask hi), and are pre. Without a command it is chat, and
// named is false.
func splitCommand(args []string) (cmd string, named bool, pre, rest []string) {
	for i := 0; i < len(args); i++ {
		a := args[i]
		if a == "--" {
			return "chat", false, pre, args[i:]
		}
		if !strings.HasPrefix(a, "-") || a == "-" {
			return a, true, pre, args[i+1:]
		}
		pre = append(pre, a)
		name, _, hasValue := strings.Cut(strings.TrimLeft(a, "-"), "=")
		if valueFlags[name] && !hasValue && i+1 < len(args) {
			i++
			pre = append(pre, args[i])
		}
	}
	return "chat", false, pre, nil
}

// ownParsers are the subcommands that parse their own flags and say
// their own help: hearth mcp serve, for one.
var ownParsers = map[string][]string{"mcp": {"serve", "login"}, "plugin": {"new"}}

// commandArgs puts the flags given before the command among its
// arguments: after the subcommand for those that parse their own flags,
// first for the rest.
func commandArgs(cmd string, pre, rest []string) []string {
	if len(rest) > 0 && slices.Contains(ownParsers[cmd], rest[0]) {
		return slices.Concat(rest[:1], pre, rest[1:])
	}
	return slices.Concat(pre, rest)
}

// helpAsked says whether the command line asks for the command's help
// rather than running it: hearth mcp's subcommands say their own.
func helpAsked(cmd string, pre, rest []string) bool {
	if wantsHelp(pre) {
		return true
	}
	if len(rest) > 0 && (cmd == "mcp" && !strings.HasPrefix(rest[0], "-") || slices.Contains(ownParsers[cmd], rest[0])) {
		return false
	}
	return cmd != "help" && wantsHelp(rest)
}

// runVersion is hearth version (and hearth --version).
func runVersion(args []string, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("hearth version", flag.ContinueOnError)
	fs.SetOutput(stderr)
	fs.Usage = func() { fmt.Fprint(stderr, "(hearth version -h for help)\n") }
	asJSON := fs.Bool("json", false, "")
	if err := fs.Parse(args); err != nil {
		return 2
	}
	if fs.NArg() > 0 {
		fmt.Fprintf(stderr, "hearth version: unexpected argument %q\n", fs.Arg(0))
		return 2
	}
	if *asJSON {
		return writeJSON(stdout, map[string]string{"version": version, "sdk": sdk.SDKVersion})
	}
	fmt.Fprintf(stdout, "hearth %s (sdk %s)\n", version, sdk.SDKVersion)
	return 0
}

func run(ctx context.Context, args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	if len(args) > 0 && args[0] == "__complete" { // for the completion scripts
		return runComplete(args[1:], stdout)
	}
	cmd, named, pre, rest := splitCommand(args)
	if slices.Contains(pre, "--version") || slices.Contains(pre, "-version") {
		return runVersion(nil, stdout, stderr)
	}
	if !commands[cmd] {
		fmt.Fprintf(stderr, "hearth: unknown command %q\n\n%s", cmd, usage)
		return 2
	}
	if helpAsked(cmd, pre, rest) {
		if !named {
			fmt.Fprint(stdout, usage)
			return 0
		}
		text, _ := commandHelp(cmd)
		fmt.Fprint(stdout, text)
		return 0
	}
	args = commandArgs(cmd, pre, rest)
	switch cmd {
	case "help": // the flags every command takes change no help
		return runHelp(rest, stdout, stderr)
	case "version":
		return runVersion(args, stdout, stderr)
	case "completion":
		return runCompletion(args, stdout, stderr)
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
	}
	f, rest, err := parse(cmd, args, stderr)
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
		opts.Plugins = app.PluginsOffer // a plugin it may not need is not waited for
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
	case "tools", "policy", "audit", "plugin", "settings", "mcp", "knowledge", "memory", "usage", "models":
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
		if tty, ok := onTerminal(stdin, stdout); ok && len(a.Sources.ListSources()) == 0 {
			if code := offerSetup(ctx, a, tty, stdout, stderr); code != 0 {
				return code
			}
		} else if !haveProvider(a, stderr) {
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

// onTerminal returns the terminal chat runs on when both its input and
// its output are one.
func onTerminal(in io.Reader, out io.Writer) (*os.File, bool) {
	f, ok := in.(*os.File)
	o, isFile := out.(*os.File)
	return f, ok && isFile && term.IsTerminal(int(f.Fd())) && term.IsTerminal(int(o.Fd()))
}

func isTerminal(r io.Reader) bool {
	f, ok := r.(*os.File)
	return ok && term.IsTerminal(int(f.Fd()))
}

func firstLine(s string) string {
	s, _, _ = strings.Cut(s, "\n")
	return s
}
