package main

import (
	"fmt"
	"io"
	"slices"
	"sort"
	"strings"
)

// globalFlagsHelp is the part of every command's help that lists the
// flags every command that opens the data directory takes.
const globalFlagsHelp = `
Flags every command takes, before or after the command:
  --data-dir DIR  data directory (default $HEARTH_HOME or ~/.hearth)
  -v              log to stderr too (debug level)
  -h, --help      this help
`

// modelFlagsHelp lists the flags of chat and ask.
const modelFlagsHelp = `
Flags:
  --model NAME    model (default $HEARTH_MODEL or the source's)
  --source NAME   model source from config.json
  --session NAME  conversation to continue (chat: the terminal's; ask: a new one)
  --reasoning     show the model's reasoning (default: on in chat, off in ask)
`

const chatHelp = `Usage: hearth [chat] [flags]

Chats with the agent in the terminal: the default command. Inside, /help
lists the slash commands (/plugins, /source, /new ...); Ctrl-D leaves.
With no model provider configured, it first offers to set one up: pick a
provider, paste its key (not shown), and it is tested and saved to
config.json. Off a terminal it says how to configure one and exits 2.
` + modelFlagsHelp + `
Examples:
  hearth
  hearth chat --session work
  hearth chat --model gpt-4o-mini --reasoning=false
`

const askHelp = `Usage: hearth ask [flags] MESSAGE...

Answers one message and exits, for scripts. With "-" or no MESSAGE the
message is read from stdin. A tool that needs approval is refused (there is
no one to ask); the model is told how to allow it.
` + modelFlagsHelp + `  --usage         after the answer, print tokens (input, cached, output) and
                  the cost when the model's price is known, to stderr

Examples:
  hearth ask "what time is it in Tokyo?"
  hearth ask --usage "summarise README.md"
  git diff | hearth ask "review this change"
  hearth ask --model gpt-4o-mini -- -v means what?
`

const toolsHelp = `Usage: hearth tools [--json]

Lists the tools the model sees, and the plugins that are hidden and why.

Flags:
  --json          print the tools' exact specs (name, plugin, description,
                  parameters) as a JSON array

Examples:
  hearth tools
  hearth tools --json | jq -r '.[].name'
`

const auditHelp = `Usage: hearth audit [--tool NAME] [--since DURATION] [--limit N] [--json]

Shows the log of tool calls, newest first: who asked, what the policy
decided, and how it ended. Arguments are shown only as a hash.

Flags:
  --tool NAME       only calls of this tool
  --since DURATION  only calls this recent (90s, 30m, 24h, 7d)
  --limit N         at most N calls (default 50)
  --json            print the calls as a JSON array

Examples:
  hearth audit
  hearth audit --tool shell__run --since 24h
  hearth audit --json --limit 500 | jq '.[] | select(.decision == "deny")'
`

const versionHelp = `Usage: hearth version [--json]
       hearth --version

Prints Hearth's version and the plugin SDK's version.

Flags:
  --json          print {"version": ..., "sdk": ...}

Examples:
  hearth --version
  hearth version --json
`

const helpHelp = `Usage: hearth help [TOPIC]

Prints help on a command or a topic: the same text as hearth COMMAND -h.

Topics:
` // the list is appended by helpText

const configHelp = `Configuration

Hearth keeps everything in its data directory: ~/.hearth, or $HEARTH_HOME,
or --data-dir DIR. There:
  config.json    model sources, MCP servers, serve settings (docs/configuration.md)
  hearth.db      conversations, settings, policy, the audit log
  plugins/       process plugins (hearth plugin install FOLDER)
  hearth.log     the log

The model provider comes from OPENAI_BASE_URL and OPENAI_API_KEY (and
HEARTH_MODEL, needed for a host Hearth knows no default model of: Ollama,
vLLM), or from config.json's "sources", which the first hearth on a
terminal writes for you:

  {"sources": {"main": {"base_url": "https://api.openai.com/v1",
                        "api_key": "${OPENAI_API_KEY}", "model": "gpt-4o"}}}

Plugins' settings (API keys, options): hearth settings. Which tools run,
ask or are off: hearth policy.

See docs/configuration.md.
`

const exitCodesHelp = `Exit codes

  0   success
  1   failure: the command could not do what was asked (a provider error,
      a tool or plugin failure, a data directory in use, a bad config.json)
  2   usage: an unknown command, flag or argument, a flag the command does
      not use, or something missing (no message for ask, no model provider)

A command that a running hearth serve runs for the terminal exits with the
code the daemon's run of it returned. A command killed by a signal exits as
the shell reports it (128+N, e.g. 130 for Ctrl-C).
`

const flagsHelp = `Flags

Every command that opens the data directory takes --data-dir DIR and -v;
chat and ask take --model, --source, --session and --reasoning. Flags go
before or after the command, and before or after its arguments:

  hearth -v ask hi         is   hearth ask -v hi
  hearth --data-dir /tmp/h tools

"--" ends the flags: hearth ask -- -v is a message. A flag a command does
not use is refused (exit code 2), never ignored.

  --version       print the version (hearth version)
  -h, --help      help (hearth help)
`

// commandHelp is each command's help: what `hearth help CMD` and
// `hearth CMD -h` print. Commands whose usage lives with their code are
// looked up there, with examples added here.
func commandHelp(cmd string) (string, bool) {
	switch cmd {
	case "chat":
		return chatHelp + globalFlagsHelp, true
	case "ask":
		return askHelp + globalFlagsHelp, true
	case "tools":
		return toolsHelp + globalFlagsHelp, true
	case "audit":
		return auditHelp + globalFlagsHelp, true
	case "usage":
		return usageHelp + globalFlagsHelp, true
	case "policy":
		return policyUsage + `
Examples:
  hearth policy
  hearth policy --json | jq -r '.tools[] | select(.mode == "off") | .tool'
  hearth policy set shell__run ask
  hearth policy role qq 12345 admin --group 678
  hearth policy grant member read,write --channel qq
` + globalFlagsHelp, true
	case "plugin":
		return pluginUsage + `
Examples:
  hearth plugin
  hearth plugin new greeter --lang python     (hearth plugin new -h)
  hearth plugin install ./my-plugin
  hearth plugin show weather
  hearth plugin logs weather -n 50
  hearth plugin disable weather
  hearth plugin reload weather
` + globalFlagsHelp, true
	case "knowledge":
		return knowledgeUsage + knowledgeExamples + globalFlagsHelp, true
	case "settings":
		return settingsUsage + `
Examples:
  hearth settings
  hearth settings weather
  hearth settings set weather units '"metric"'
  hearth settings set weather api_key        (asks for the value, unechoed)
` + globalFlagsHelp, true
	case "memory":
		return memoryUsage + memoryExamples + globalFlagsHelp, true
	case "models":
		return modelsUsage + modelsExamples + globalFlagsHelp, true
	case "mcp":
		return mcpUsage, true
	case "serve":
		return serveUsage + `
Examples:
  hearth serve
  hearth serve --listen 127.0.0.1:9000 --log-level debug
  hearth serve --listen 0.0.0.0:8443 --tls-cert cert.pem --tls-key key.pem
`, true
	case "token":
		return tokenUsage + `
Examples:
  hearth token
  curl -H "Authorization: Bearer $(hearth token)" http://127.0.0.1:8420/v1/sessions
  hearth token --rotate
`, true
	case "version":
		return versionHelp, true
	case "completion":
		return completionHelp, true
	case "help":
		return helpHelp + topicList(), true
	case "config", "configuration":
		return configHelp, true
	case "exit-codes", "exit-code", "exit":
		return exitCodesHelp, true
	case "flags":
		return flagsHelp, true
	}
	return "", false
}

// helpTopics are the topics of `hearth help`, with a line each.
var helpTopics = map[string]string{
	"chat":       "chat in the terminal (the default)",
	"ask":        "answer one message and exit",
	"tools":      "the tools the model sees",
	"policy":     "which tools run, ask or are off; roles and grants",
	"audit":      "the log of tool calls",
	"usage":      "model tokens and cost; budgets",
	"plugin":     "process plugins: list, install, enable ...",
	"settings":   "plugin settings",
	"knowledge":  "the knowledge base: search, list, show, add, rm",
	"memory":     "what the agent remembers: list, search, add, forget, correct",
	"models":     "model sources and providers: models, prices, test a key, balance",
	"mcp":        "MCP servers, and serving Hearth's tools over MCP",
	"serve":      "run as a service: the web UI and the HTTP API",
	"token":      "the HTTP API's token",
	"version":    "the version",
	"completion": "shell completion for bash, zsh and fish",
	"help":       "this list",
	"config":     "the data directory and config.json",
	"exit-codes": "what the exit status means",
	"flags":      "flags every command takes, and where they go",
}

func topicList() string {
	names := make([]string, 0, len(helpTopics))
	for n := range helpTopics {
		names = append(names, n)
	}
	sort.Strings(names)
	var b strings.Builder
	for _, n := range names {
		fmt.Fprintf(&b, "  %-12s %s\n", n, helpTopics[n])
	}
	return b.String()
}

// runHelp is `hearth help [TOPIC]`; -h asks for help's own help, the
// list of topics.
func runHelp(args []string, stdout, stderr io.Writer) int {
	if wantsHelp(args) {
		args = slices.DeleteFunc(slices.Clone(args), func(a string) bool { return a == "-h" || a == "-help" || a == "--help" })
		if len(args) == 0 {
			args = []string{"help"}
		}
	}
	if len(args) == 0 {
		fmt.Fprint(stdout, usage)
		return 0
	}
	if len(args) > 1 {
		fmt.Fprintf(stderr, "hearth help: one topic at a time\n\n%s", helpHelp+topicList())
		return 2
	}
	text, ok := commandHelp(args[0])
	if !ok {
		fmt.Fprintf(stderr, "hearth help: no topic %q; the topics are:\n%s", args[0], topicList())
		return 2
	}
	fmt.Fprint(stdout, text)
	return 0
}
