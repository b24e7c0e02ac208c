package main

import (
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"maps"
	"os/exec"
	"slices"
	"strings"
	"time"

	"github.com/hearth-agent/hearth/internal/app"
	"github.com/hearth-agent/hearth/internal/channel/terminal"
	"github.com/hearth-agent/hearth/internal/config"
	"github.com/hearth-agent/hearth/internal/pluginhost"
)

const mcpUsage = `Usage:
  hearth mcp add NAME [flags] -- COMMAND [ARGS...]   add a server Hearth starts (stdio)
  hearth mcp add NAME --url URL [flags]              add a remote server (Streamable HTTP)
  hearth mcp add-json NAME JSON                      add a server from its config entry
  hearth mcp list [--json]                           the servers, their state and tools
  hearth mcp remove NAME                             remove a server from config.json
  hearth mcp enable|disable|reload NAME              = hearth plugin ... mcp-NAME
  hearth mcp login NAME                              authorize Hearth with a remote server (OAuth)
  hearth mcp serve                                   offer Hearth's tools to MCP clients

Each server runs as the plugin mcp-NAME; its tools are offered to the model
as mcp-NAME__TOOL, under the same policy as every plugin's, and what they
return counts as untrusted. Servers are kept in config.json's "mcpServers".
NAME has letters, digits, "-" and "_", at most 32 of them.

Examples:
  hearth mcp add fs -- npx -y @modelcontextprotocol/server-filesystem ~/Documents
  hearth mcp add github --url https://api.githubcopilot.com/mcp/ \
      --header 'Authorization: Bearer ${GITHUB_TOKEN}'
  hearth mcp add-json time '{"command": "uvx", "args": ["mcp-server-time"]}'
  hearth mcp list

See hearth mcp add -h, and docs/mcp.md.
`

const mcpAddUsage = `Usage:
  hearth mcp add NAME [--env K=V]... [--cwd DIR] [--timeout 60s] [--force] -- COMMAND [ARGS...]
  hearth mcp add NAME --url URL [--header "K: V"]... [--sse] [--timeout 60s] [--force]

Flags:
  --env K=V         a variable for the server's process (repeat for more); it
                    gets these and a minimal base (PATH, HOME, ...), never
                    Hearth's own environment
  --header "K: V"   a header sent with every request to URL (repeat for more)
  --cwd DIR         the process's working directory (default: its data folder)
  --timeout D       one tool call's deadline, like 90s or 5m (default 60s)
  --url URL         a remote server's endpoint (Streamable HTTP, or the legacy
                    SSE transport when it answers as one)
  --sse             the server speaks only the legacy SSE transport
  --force           replace a server of the same name

Values are stored in config.json (mode 0600) and never printed back. Write
${NAME} in a value to have Hearth read the variable NAME when it starts the
server, so the secret stays out of the file (quote it from your shell).
A relative COMMAND path or --cwd is taken from the current directory.

Examples:
  hearth mcp add everything -- npx -y @modelcontextprotocol/server-everything
  hearth mcp add brave --env 'BRAVE_API_KEY=${BRAVE_API_KEY}' -- npx -y @brave/brave-search-mcp-server
  hearth mcp add local -- ./bin/my-server --verbose
  hearth mcp add notion --url https://mcp.notion.com/mcp    (then: hearth mcp login notion)
  hearth mcp add api --url https://mcp.example.com/mcp --header 'Authorization: Bearer ${EXAMPLE_TOKEN}'
`

// runMCPConfig runs `hearth mcp add|add-json|list|remove|enable|disable|
// reload ...` on a. In the daemon (cio.daemon) a change applies at once;
// alone, it is written to config.json, which a running Hearth re-reads.
func runMCPConfig(ctx context.Context, a *app.App, args []string, cio *cmdIO) int {
	if len(args) == 0 {
		fmt.Fprint(cio.err, mcpUsage)
		return 2
	}
	switch sub, rest := args[0], args[1:]; sub {
	case "-h", "-help", "--help", "help":
		fmt.Fprint(cio.out, mcpUsage)
		return 0
	case "list", "ls", "remove", "rm", "enable", "disable", "reload":
		if wantsHelp(rest) {
			fmt.Fprint(cio.out, mcpSubUsage(sub))
			return 0
		}
	}
	switch sub, rest := args[0], args[1:]; sub {
	case "add":
		return mcpAdd(ctx, a, rest, cio)
	case "add-json":
		return mcpAddJSON(ctx, a, rest, cio)
	case "list", "ls":
		return mcpList(ctx, a, rest, cio)
	case "remove", "rm":
		return mcpRemove(ctx, a, rest, cio)
	case "enable", "disable", "reload":
		return mcpPluginOp(ctx, a, sub, rest, cio)
	default:
		fmt.Fprintf(cio.err, "hearth mcp: unknown subcommand %q\n\n%s", sub, mcpUsage)
		return 2
	}
}

// wantsHelp says whether args ask for help: -h, -help or --help before
// any "--".
func wantsHelp(args []string) bool {
	for _, a := range args {
		switch a {
		case "--":
			return false
		case "-h", "-help", "--help":
			return true
		}
	}
	return false
}

// mcpSubUsage is the usage of `hearth mcp list|remove|enable|disable|
// reload`, with a line of what it does.
func mcpSubUsage(sub string) string {
	switch sub {
	case "list", "ls":
		return "Usage: hearth mcp list [--json]\n\n" +
			"Lists config.json's MCP servers: their type, command or URL, state, tools and last error\n" +
			"(values of env and headers are never shown). --json prints them as JSON.\n"
	case "remove", "rm":
		return "Usage: hearth mcp remove NAME\n\n" +
			"Removes the MCP server NAME from config.json; a running Hearth stops it.\n"
	case "enable":
		return "Usage: hearth mcp enable NAME\n\n" +
			"Turns the MCP server NAME back on (clearing \"disabled\" in config.json) and starts it.\n"
	case "disable":
		return "Usage: hearth mcp disable NAME\n\n" +
			"Turns the MCP server NAME off: it stops and its tools are not offered until hearth mcp enable NAME.\n"
	default:
		return "Usage: hearth mcp reload NAME\n\n" +
			"Restarts the MCP server NAME (reconnects a remote one), for a changed server or new tokens.\n"
	}
}

// parseMCP is parse for `hearth mcp`: only the flags every command has
// (--data-dir, -v) are taken, and only before "--"; the rest, a server's
// command line included, is the subcommand's own.
func parseMCP(f *flags, args []string, stderr io.Writer) (*flags, []string, error) {
	var rest []string
	for i := 0; i < len(args); i++ {
		arg := args[i]
		if arg == "--" {
			rest = append(rest, args[i:]...)
			break
		}
		name, value, hasValue := strings.Cut(strings.TrimLeft(arg, "-"), "=")
		if !strings.HasPrefix(arg, "-") {
			name = ""
		}
		switch name {
		case "data-dir":
			if !hasValue {
				if i+1 == len(args) {
					fmt.Fprintln(stderr, "hearth mcp: --data-dir needs a folder")
					return nil, nil, errors.New("--data-dir needs a value")
				}
				i++
				value = args[i]
			}
			f.dataDir = value
		case "v":
			f.verbose = true
		default:
			rest = append(rest, arg)
		}
	}
	return f, rest, nil
}

// multiFlag is a flag that may be given more than once.
type multiFlag []string

func (m *multiFlag) String() string     { return strings.Join(*m, ", ") }
func (m *multiFlag) Set(v string) error { *m = append(*m, v); return nil }

// mcpAddFlags are `hearth mcp add`'s flags.
type mcpAddFlags struct {
	env, header multiFlag
	cwd, url    string
	timeout     time.Duration
	sse, force  bool
}

func mcpAdd(ctx context.Context, a *app.App, args []string, cio *cmdIO) int {
	var fl mcpAddFlags
	fs := flag.NewFlagSet("hearth mcp add", flag.ContinueOnError)
	fs.SetOutput(io.Discard) // errors are said below, without echoing values
	fs.Var(&fl.env, "env", "")
	fs.Var(&fl.header, "header", "")
	fs.StringVar(&fl.cwd, "cwd", "", "")
	fs.StringVar(&fl.url, "url", "", "")
	fs.DurationVar(&fl.timeout, "timeout", 0, "")
	fs.BoolVar(&fl.sse, "sse", false, "")
	fs.BoolVar(&fl.force, "force", false, "")

	before, command, dashes := cutDashes(args)
	var pos []string
	for {
		err := fs.Parse(before)
		if errors.Is(err, flag.ErrHelp) {
			fmt.Fprint(cio.out, mcpAddUsage)
			return 0
		}
		if err != nil {
			hint := ""
			if strings.Contains(err.Error(), "not defined") {
				// a flag of the server's own, given before "--"
				hint = "(put the server's own command line after \"--\") / 服务器自己的命令行请写在 \"--\" 之后\n"
			}
			fmt.Fprintf(cio.err, "hearth mcp add: %s\n%s\n%s", flagError(err), hint, mcpAddUsage)
			return 2
		}
		if fs.NArg() == 0 {
			break
		}
		pos = append(pos, fs.Arg(0))
		before = fs.Args()[1:]
	}
	if len(pos) == 0 {
		fmt.Fprintf(cio.err, "hearth mcp add: give the server a name\n\n%s", mcpAddUsage)
		return 2
	}
	name := pos[0]
	if !dashes {
		command = pos[1:] // hearth mcp add NAME npx server (no flags for the server)
	} else if len(pos) > 1 {
		fmt.Fprintf(cio.err, "hearth mcp add: unexpected %q before \"--\"\n\n%s", pos[1], mcpAddUsage)
		return 2
	}
	s, err := fl.server(command, cio)
	if err != nil {
		fmt.Fprintf(cio.err, "hearth mcp add: %v\n", err)
		return 2
	}
	return mcpPut(ctx, a, name, s, fl.force, cio)
}

// cutDashes splits args at the first "--": what comes after is a server's
// command line.
func cutDashes(args []string) (before, after []string, found bool) {
	if i := slices.Index(args, "--"); i >= 0 {
		return args[:i], args[i+1:], true
	}
	return args, nil, false
}

// flagError says what the flag package found wrong without the value the
// user gave, which may be a secret.
func flagError(err error) string {
	msg := err.Error()
	if i := strings.Index(msg, "invalid value"); i >= 0 {
		if j := strings.Index(msg, " for flag "); j > i {
			if k := strings.Index(msg[j:], ":"); k > 0 {
				return "invalid value" + msg[j:j+k]
			}
		}
		return "invalid value for a flag"
	}
	return msg
}

// server builds the config entry the flags and command describe.
func (fl *mcpAddFlags) server(command []string, cio *cmdIO) (config.MCPServer, error) {
	s := config.MCPServer{Timeout: config.Duration(fl.timeout)}
	if fl.url != "" {
		if len(command) > 0 {
			return s, errors.New("give either --url or a command after \"--\", not both\n" +
				"请只给出 --url 或 \"--\" 之后的命令之一，不要同时给出")
		}
		if len(fl.env) > 0 || fl.cwd != "" {
			return s, errors.New("--env and --cwd are for a server Hearth starts; a remote one gets --header\n" +
				"--env 和 --cwd 用于 Hearth 启动的服务器；远程服务器请用 --header")
		}
		s.URL = fl.url
		if fl.sse {
			s.Type = config.MCPSSE
		}
	} else {
		if len(command) == 0 {
			return s, errors.New("give the server's command after \"--\", or its --url\n" +
				"请在 \"--\" 之后给出服务器的命令，或用 --url 给出其地址")
		}
		if len(fl.header) > 0 || fl.sse {
			return s, errors.New("--header and --sse are for a remote server (--url)\n" +
				"--header 和 --sse 用于远程服务器（--url）")
		}
		s.Command, s.Args = command[0], slices.Clone(command[1:])
		if strings.ContainsRune(s.Command, '/') {
			s.Command = cio.abs(s.Command) // ./server is the user's, not Hearth's
		}
		if fl.cwd != "" {
			s.Cwd = cio.abs(fl.cwd)
		}
	}
	for _, kv := range fl.env {
		k, v, ok := strings.Cut(kv, "=")
		if !ok || k == "" {
			return s, errors.New(`--env takes NAME=VALUE; one has no "=" or no name`)
		}
		if s.Env == nil {
			s.Env = map[string]string{}
		}
		s.Env[k] = v
	}
	for _, kv := range fl.header {
		k, v, ok := strings.Cut(kv, ":")
		if !ok || strings.TrimSpace(k) == "" {
			return s, errors.New(`--header takes "Name: value"; one has no ":"`)
		}
		if s.Headers == nil {
			s.Headers = map[string]string{}
		}
		s.Headers[strings.TrimSpace(k)] = strings.TrimSpace(v)
	}
	return s, nil
}

const mcpAddJSONUsage = `Usage: hearth mcp add-json [--force] NAME JSON
       hearth mcp add-json [--force] '{"mcpServers": {"NAME": {...}}}'

Adds an MCP server from its config entry, as a server's README gives it for
Claude Desktop. JSON is the entry as config.json's "mcpServers" has it, or a
whole {"mcpServers": {...}}: then the entry NAME is taken from it, and NAME
may be left out when it has only one.

Paste only entries you trust: ${NAME} in an env or headers value is read
from Hearth's own environment and given to that server.
只粘贴你信任的条目：值中的 ${NAME} 从 Hearth 自己的环境变量读取并交给该服务器。

Example:
  hearth mcp add-json fs '{"command": "npx", "args": ["-y", "@modelcontextprotocol/server-filesystem", "/tmp"]}'
`

// mcpAddJSON adds a server from the JSON of its config entry, as a
// server's README gives it for Claude Desktop.
func mcpAddJSON(ctx context.Context, a *app.App, args []string, cio *cmdIO) int {
	force := false
	args = slices.DeleteFunc(slices.Clone(args), func(s string) bool {
		f := s == "--force" || s == "-force"
		force = force || f
		return f
	})
	if wantsHelp(args) {
		fmt.Fprint(cio.out, mcpAddJSONUsage)
		return 0
	}
	var name, text string
	switch len(args) {
	case 1:
		text = args[0]
	case 2:
		name, text = args[0], args[1]
	default:
		fmt.Fprint(cio.err, "hearth mcp add-json: give a NAME and the server's JSON\n\n"+mcpAddJSONUsage)
		return 2
	}
	name, entry, err := pickMCPEntry(text, name)
	if err != nil {
		fmt.Fprintf(cio.err, "hearth mcp add-json: %v\n", err)
		return 2
	}
	s, err := decodeMCPServer(entry)
	if err != nil {
		fmt.Fprintf(cio.err, "hearth mcp add-json: %v\n", err)
		return 2
	}
	if s.Cwd != "" {
		s.Cwd = cio.abs(s.Cwd)
	}
	return mcpPut(ctx, a, name, s, force, cio)
}

// pickMCPEntry returns the entry to add and its name. When text is a
// whole {"mcpServers": {...}} as a README gives it, that is its entry
// name (compared without regard to case), or its only entry, which name
// renames, or that it lacks; otherwise text is the entry itself, and
// name must be given.
func pickMCPEntry(text, name string) (string, string, error) {
	var whole struct {
		MCPServers map[string]json.RawMessage `json:"mcpServers"`
	}
	if json.Unmarshal([]byte(text), &whole) != nil || whole.MCPServers == nil {
		if name == "" {
			return "", "", errors.New("give the server a NAME before its JSON")
		}
		return name, text, nil
	}
	have := slices.Sorted(maps.Keys(whole.MCPServers))
	switch {
	case len(have) == 0:
		return "", "", errors.New(`"mcpServers" has no entry`)
	case name == "" && len(have) == 1:
		return have[0], string(whole.MCPServers[have[0]]), nil
	case name == "":
		return "", "", fmt.Errorf("it has %d entries (%s): give the NAME of one", len(have), strings.Join(have, ", "))
	}
	for _, h := range have {
		if strings.EqualFold(h, name) {
			return name, string(whole.MCPServers[h]), nil
		}
	}
	if len(have) == 1 {
		return name, string(whole.MCPServers[have[0]]), nil
	}
	return "", "", fmt.Errorf("no entry %q (it has %s)", name, strings.Join(have, ", "))
}

// decodeMCPServer reads one server's config entry, as config.json has it;
// the error never quotes a value of it, which may be a secret.
func decodeMCPServer(text string) (config.MCPServer, error) {
	dec := json.NewDecoder(strings.NewReader(text))
	dec.DisallowUnknownFields()
	var s config.MCPServer
	if err := dec.Decode(&s); err != nil {
		return s, fmt.Errorf("the JSON is not a server entry: %s", jsonError(err))
	}
	if _, err := dec.Token(); err != io.EOF {
		return s, errors.New("give one JSON object")
	}
	return s, nil
}

// jsonError says what is wrong with JSON the user gave without quoting
// its values.
func jsonError(err error) string {
	var syn *json.SyntaxError
	var typ *json.UnmarshalTypeError
	switch {
	case errors.As(err, &syn):
		return fmt.Sprintf("invalid JSON at byte %d", syn.Offset)
	case errors.As(err, &typ):
		return fmt.Sprintf("%q should be %s", typ.Field, typ.Type)
	}
	return err.Error() // unknown field "x", unexpected end
}

// mcpPut writes server name into config.json and, in the daemon, starts
// it; it says what it did, without a value of env or headers.
func mcpPut(ctx context.Context, a *app.App, name string, s config.MCPServer, force bool, cio *cmdIO) int {
	if err := config.PutMCPServer(a.DataDir, name, s, force); err != nil {
		switch {
		case errors.Is(err, config.ErrMCPName):
			err = fmt.Errorf("%w\n名称无效：只能包含字母、数字、\"-\" 和 \"_\"，以字母或数字开头，最多 %d 个字符", err, config.MaxMCPNameLen)
		case errors.Is(err, config.ErrMCPURL):
			err = fmt.Errorf("%w\nURL 必须是 http:// 或 https:// 地址", err)
		case errors.Is(err, config.ErrMCPExists):
			err = fmt.Errorf("%w (use --force to replace it, or hearth mcp remove %s)\n"+
				"同名的 MCP 服务器已经配置：加 --force 替换它，或先运行 hearth mcp remove %s", err, name, name)
		}
		fmt.Fprintf(cio.err, "hearth mcp add: %v\n", err)
		return 1
	}
	fmt.Fprintf(cio.out, "Added MCP server %s (plugin %s): %s\n", name, pluginhost.MCPPluginName(name), describeServer(s))
	if s.Command != "" && !strings.Contains(s.Command, "${") {
		if _, err := exec.LookPath(s.Command); err != nil {
			fmt.Fprintf(cio.out, "Note: %s is not found here (on PATH or as a file); the server will fail to start until it is\n",
				terminal.SanitizeLine(s.Command))
		}
	}
	return mcpApplied(ctx, a, cio)
}

// mcpApplied applies config.json's servers in the daemon, or says when
// they will be.
func mcpApplied(ctx context.Context, a *app.App, cio *cmdIO) int {
	if !cio.daemon {
		fmt.Fprintln(cio.out, "A running Hearth applies it within seconds; otherwise at its next start\n"+
			"正在运行的 Hearth 会在几秒内应用此更改；否则在下次启动时应用")
		return 0
	}
	if err := a.ApplyMCPServers(ctx); err != nil {
		fmt.Fprintf(cio.err, "hearth mcp: config.json was changed, but applying it failed: %v\n", err)
		return 1
	}
	return 0
}

// describeServer is one line about s: its transport and what runs or is
// called, with names but never values of env and headers.
func describeServer(s config.MCPServer) string {
	var b strings.Builder
	b.WriteString(s.Transport() + " ")
	if s.URL != "" {
		b.WriteString(s.RedactedURL())
	} else {
		b.WriteString(commandLine(s))
	}
	if len(s.Env) > 0 {
		fmt.Fprintf(&b, "; env %s", strings.Join(sortedKeys(s.Env), ", "))
	}
	if len(s.Headers) > 0 {
		fmt.Fprintf(&b, "; headers %s", strings.Join(sortedKeys(s.Headers), ", "))
	}
	if len(s.Env)+len(s.Headers) > 0 {
		b.WriteString(" (values stored, not shown)")
	}
	if s.Disabled {
		b.WriteString("; disabled in config.json")
	}
	return terminal.SanitizeLine(b.String())
}

func mcpRemove(ctx context.Context, a *app.App, args []string, cio *cmdIO) int {
	if len(args) != 1 {
		fmt.Fprint(cio.err, mcpSubUsage("remove"))
		return 2
	}
	name, err := config.DeleteMCPServer(a.DataDir, args[0])
	if err != nil {
		if errors.Is(err, config.ErrNoMCPServer) {
			err = fmt.Errorf("%w (see hearth mcp list)\n配置中没有名为 %q 的 MCP 服务器（见 hearth mcp list）", err, args[0])
		}
		fmt.Fprintf(cio.err, "hearth mcp remove: %v\n", err)
		return 1
	}
	fmt.Fprintf(cio.out, "Removed MCP server %s (plugin %s) from config.json\n", name, pluginhost.MCPPluginName(name))
	return mcpApplied(ctx, a, cio)
}

// mcpPluginOp is `hearth mcp enable|disable|reload NAME`: the plugin
// command on mcp-NAME. Enabling a server also clears "disabled" in its
// config entry.
func mcpPluginOp(ctx context.Context, a *app.App, op string, args []string, cio *cmdIO) int {
	if len(args) != 1 {
		fmt.Fprint(cio.err, mcpSubUsage(op))
		return 2
	}
	cfg, err := config.Load(a.DataDir)
	if err != nil {
		fmt.Fprintf(cio.err, "hearth mcp %s: %v\n", op, err)
		return 1
	}
	s, name, ok := cfg.MCPServerNamed(args[0])
	if !ok {
		fmt.Fprintf(cio.err, "hearth mcp %s: %v: %q (see hearth mcp list)\n配置中没有名为 %q 的 MCP 服务器（见 hearth mcp list）\n",
			op, config.ErrNoMCPServer, args[0], args[0])
		return 1
	}
	if op == "enable" && s.Disabled {
		s.Disabled = false
		if err := config.PutMCPServer(a.DataDir, name, s, true); err != nil {
			fmt.Fprintf(cio.err, "hearth mcp enable: %v\n", err)
			return 1
		}
		if code := mcpApplied(ctx, a, &cmdIO{out: io.Discard, err: cio.err, daemon: cio.daemon}); code != 0 {
			return code
		}
	}
	return runPlugin(ctx, a, &flags{}, []string{op, pluginhost.MCPPluginName(name)}, cio)
}
