package main

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"

	"github.com/hearth-agent/hearth/internal/app"
	"github.com/hearth-agent/hearth/internal/channel/remote"
	"github.com/hearth-agent/hearth/internal/channel/terminal"
	"github.com/hearth-agent/hearth/internal/config"
	"github.com/hearth-agent/hearth/internal/daemon"
	"github.com/hearth-agent/hearth/internal/server"
)

// forwarded are the commands a running daemon runs for the CLI: they
// work on an open app, so run by the daemon they act on the plugins it
// runs and the policy it enforces.
var forwarded = map[string]bool{"tools": true, "policy": true, "audit": true, "plugin": true, "settings": true, "mcp": true,
	"knowledge": true, "memory": true, "usage": true, "models": true}

// cmdIO is where a command on an open app reads and writes, and where it
// runs: in the terminal's process, or in the daemon for a client.
type cmdIO struct {
	in       io.Reader
	out, err io.Writer
	// cwd is the user's working directory, against which relative paths
	// in arguments are resolved (the client's, in the daemon).
	cwd string
	// daemon is set when the command runs inside hearth serve, the
	// process that runs the plugins: changes are applied at once.
	daemon bool
}

// abs resolves a path the user gave against their working directory.
func (c *cmdIO) abs(p string) string {
	if filepath.IsAbs(p) || c.cwd == "" {
		return filepath.Clean(p)
	}
	return filepath.Join(c.cwd, p)
}

// runOn runs one of the forwarded commands on a.
func runOn(ctx context.Context, a *app.App, cmd string, f *flags, rest []string, cio *cmdIO) int {
	switch cmd {
	case "tools":
		return listTools(ctx, a, f.jsonOut, cio)
	case "models":
		return runModels(ctx, a, f, rest, cio)
	case "policy":
		return runPolicy(ctx, a, f, rest, cio.out, cio.err)
	case "audit":
		return runAudit(ctx, a, f, cio.out, cio.err)
	case "usage":
		return runUsage(ctx, a, f, rest, cio.out, cio.err)
	case "plugin":
		return runPlugin(ctx, a, f, rest, cio)
	case "settings":
		if f.jsonOut {
			return settingsListJSON(ctx, a, rest, cio)
		}
		return runSettings(ctx, a, rest, cio)
	case "mcp":
		return runMCPConfig(ctx, a, rest, cio)
	case "knowledge":
		return runKnowledge(ctx, a, f, rest, cio)
	case "memory":
		return runMemory(ctx, a, f, rest, cio)
	}
	fmt.Fprintf(cio.err, "hearth: %q is not run for a client\n", cmd)
	return 2
}

// cliRunner runs commands for clients on the daemon's app (POST /v1/cli).
// What the client sent as stdin is only read by the command, never logged.
func cliRunner(a *app.App) server.CLIRunner {
	return func(ctx context.Context, req *server.CLIRequest) *server.CLIResult {
		var out, errb bytes.Buffer
		code := runForClient(ctx, a, req, &out, &errb)
		return &server.CLIResult{Stdout: out.String(), Stderr: errb.String(), Code: code}
	}
}

func runForClient(ctx context.Context, a *app.App, req *server.CLIRequest, stdout, stderr io.Writer) int {
	cmd, args := req.Args[0], req.Args[1:]
	if !forwarded[cmd] {
		fmt.Fprintf(stderr, "hearth: the daemon does not run %q for a client\n", cmd)
		return 2
	}
	if cmd != "mcp" && wantsHelp(args) { // a client that did not answer -h itself
		text, _ := commandHelp(cmd)
		io.WriteString(stdout, text)
		return 0
	}
	f, rest, err := parse(cmd, args, stderr)
	if err != nil {
		return 2
	}
	return runOn(ctx, a, cmd, f, rest, &cmdIO{in: strings.NewReader(req.Stdin), out: stdout, err: stderr, cwd: req.Cwd, daemon: true})
}

// toDaemon hands the command to the daemon serving the data directory,
// if one does: the forwarded commands run there, chat and ask run their
// terminal here and their turns there. done is false when the command is
// to run here, alone.
func toDaemon(ctx context.Context, cmd string, args []string, f *flags, rest []string, stdin io.Reader, stdout, stderr io.Writer) (code int, done bool) {
	dir, err := config.DataDir(f.dataDir, nil)
	if err != nil {
		return 0, false // app.Open says it
	}
	c, err := daemon.Find(ctx, dir)
	if errors.Is(err, daemon.ErrNoDaemon) {
		return 0, false
	}
	if err != nil {
		fmt.Fprintf(stderr, "hearth: %v\n", err)
		return 1, true
	}
	if cmd == "chat" || cmd == "ask" {
		return remoteTerminal(ctx, c, cmd, dir, f, rest, stdin, stdout, stderr), true
	}
	if !forwarded[cmd] {
		return 0, false
	}
	req := &server.CLIRequest{Args: append([]string{cmd}, args...)}
	req.Cwd, _ = os.Getwd()
	if cmd == "settings" && len(rest) == 3 && rest[0] == "set" {
		// The value comes from here: unechoed on a terminal.
		v, err := readValue(stdin, stderr, rest[1]+"."+rest[2])
		if err != nil {
			fmt.Fprintf(stderr, "hearth settings: %v\n", err)
			return 1, true
		}
		req.Stdin = v + "\n"
	}
	if cmd == "knowledge" && len(rest) > 0 && rest[0] == "add" {
		// The entry is read here (a file of this user, or stdin) and
		// sent as the daemon's stdin.
		if msg := knowledgeArgsError(rest); msg != "" {
			fmt.Fprintf(stderr, "%s\n\n%s", msg, knowledgeUsage)
			return 2, true
		}
		text, err := knowledgeText(rest[2:], &cmdIO{in: stdin, err: stderr, cwd: req.Cwd})
		if err != nil {
			fmt.Fprintf(stderr, "hearth knowledge: %v\n", err)
			return 1, true
		}
		req.Args, req.Stdin = knowledgeAddArgs(f, rest[1]), text
	}
	res, err := c.RunCLI(ctx, req)
	if err != nil {
		fmt.Fprintf(stderr, "hearth: %v\n", err)
		return 1, true
	}
	// The daemon's commands sanitise what they print; this side does too.
	io.WriteString(stdout, terminal.Sanitize(res.Stdout))
	io.WriteString(stderr, terminal.Sanitize(res.Stderr))
	return res.Code, true
}

// remoteTerminal runs `hearth chat` or `hearth ask` through the daemon c:
// the same terminal, its turns run (and its plugins live) in the daemon.
// Switching the model source (/source) is the daemon's: its web UI or API.
func remoteTerminal(ctx context.Context, c *daemon.Client, cmd, dir string, f *flags, rest []string, stdin io.Reader, stdout, stderr io.Writer) int {
	ag := remote.New(c.BaseURL, c.Token, c.HTTP).VerifiedBy(c)
	defer ag.Close()
	o := &terminal.Options{In: stdin, Out: stdout, Err: stderr, ChatID: f.session, ShowReasoning: f.reasoning, Usage: f.showUsage,
		ConfigPath: filepath.Join(dir, config.FileName)}
	o.Prompts = func() []terminal.Prompt { // the daemon's MCP servers' prompts
		list, _ := ag.Prompts(ctx) // none when the daemon cannot say
		return list
	}
	o.GetPrompt = ag.GetPrompt
	if cmd == "ask" {
		text, code := askText(rest, stdin, stderr)
		if code != 0 {
			return code
		}
		return askExit(terminal.Ask(ctx, ag, text, o))
	}
	if code := chatArgs(rest, stderr); code != 0 {
		return code
	}
	o.HistoryFile = filepath.Join(dir, "chat_history")
	o.Plugins = func() string { // /plugins: what `hearth plugin` says in the daemon
		res, err := c.RunCLI(ctx, &server.CLIRequest{Args: []string{"plugin"}})
		if err != nil {
			return err.Error()
		}
		return strings.TrimRight(res.Stdout+res.Stderr, "\n")
	}
	if err := terminal.Chat(ctx, ag, o); err != nil && !errors.Is(err, context.Canceled) {
		fmt.Fprintf(stderr, "hearth: %v\n", err)
		return 1
	}
	return 0
}
