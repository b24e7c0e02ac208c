package main

import (
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strings"

	"github.com/hearth-agent/hearth/internal/config"
)

const completionHelp = `Usage: hearth completion bash|zsh|fish

Prints a shell completion script. It completes commands, subcommands,
flags, help topics, and the ids of installed plugins, by asking hearth
itself (hearth __complete), so it stays right as Hearth changes.

Examples:
  bash:  echo 'source <(hearth completion bash)' >> ~/.bashrc
  zsh:   echo 'source <(hearth completion zsh)' >> ~/.zshrc
  fish:  hearth completion fish > ~/.config/fish/completions/hearth.fish
`

// The scripts hand the words typed so far to `hearth __complete`, which
// prints one candidate a line; none means file names.
const bashCompletion = `# bash completion for hearth (hearth completion bash)
_hearth() {
    local cur="${COMP_WORDS[COMP_CWORD]}"
    local IFS=$'\n'
    COMPREPLY=($(compgen -W "$("${COMP_WORDS[0]}" __complete "${COMP_WORDS[@]:1:COMP_CWORD-1}" "$cur" 2>/dev/null)" -- "$cur"))
}
complete -o default -F _hearth hearth
`

const zshCompletion = `#compdef hearth
# zsh completion for hearth (hearth completion zsh)
_hearth() {
    local -a cands
    cands=("${(@f)$("${words[1]}" __complete "${(@)words[2,CURRENT]}" 2>/dev/null)}")
    cands=(${cands:#})
    if (( ${#cands} )); then
        compadd -a cands
    else
        _files
    fi
}
if [[ "$funcstack[1]" = "_hearth" ]]; then
    _hearth "$@"
else
    compdef _hearth hearth
fi
`

const fishCompletion = `# fish completion for hearth (hearth completion fish)
function __hearth_complete
    set -l words (commandline -opc)
    set -l out (hearth __complete $words[2..-1] (commandline -ct) 2>/dev/null)
    if test (count $out) -eq 0
        __fish_complete_path (commandline -ct)
    else
        printf '%s\n' $out
    end
end
complete -c hearth -f -a '(__hearth_complete)'
`

// runCompletion is `hearth completion SHELL`.
func runCompletion(args []string, stdout, stderr io.Writer) int {
	if len(args) != 1 {
		fmt.Fprint(stderr, "hearth completion: name one shell: bash, zsh or fish\n\n"+completionHelp)
		return 2
	}
	switch args[0] {
	case "bash":
		io.WriteString(stdout, bashCompletion)
	case "zsh":
		io.WriteString(stdout, zshCompletion)
	case "fish":
		io.WriteString(stdout, fishCompletion)
	default:
		fmt.Fprintf(stderr, "hearth completion: no script for %q: bash, zsh or fish\n", args[0])
		return 2
	}
	return 0
}

// ownFlags are the flags of the commands that do not use parse.
var ownFlags = map[string][]string{
	"serve":      {"data-dir", "listen", "log-level", "tls-cert", "tls-key", "insecure-listen", "grace"},
	"token":      {"data-dir", "rotate", "openai"},
	"version":    {"json"},
	"mcp":        {"data-dir", "v"},
	"help":       {},
	"completion": {},
}

// valueFlags are the flags that take a value: the next word is theirs.
var valueFlags = map[string]bool{
	"data-dir": true, "model": true, "source": true, "session": true, "channel": true, "group": true,
	"tool": true, "limit": true, "since": true, "listen": true, "log-level": true, "tls-cert": true,
	"tls-key": true, "grace": true, "env": true, "cwd": true, "timeout": true, "url": true, "header": true,
	"http": true, "lang": true, "dir": true, "hearth-src": true, "n": true, "id": true,
	"k": true, "scope": true, "writer": true,
}

// subcommandFlags are the flags of subcommands that parse their own.
var subcommandFlags = map[string][]string{
	"plugin new": {"lang", "dir", "hearth-src"},
	"mcp serve":  {"data-dir", "http", "insecure-listen", "v"},
	"mcp login":  {"data-dir", "logout", "forget-client", "no-browser"},
}

// subcommands are the commands' subcommands, as completed.
var subcommands = map[string][]string{
	"plugin":    {"new", "show", "logs", "enable", "disable", "reload", "install", "upgrade", "remove", "forget"},
	"policy":    {"set", "reset", "role", "grant"},
	"settings":  {"get", "set"},
	"knowledge": {"search", "list", "show", "add", "rm"},
	"memory":    {"list", "search", "show", "add", "forget", "correct"},
	"usage":     {"day", "session", "source", "model", "plugin"},
	"models":    {"list", "test", "balance"},
	"mcp":       {"add", "add-json", "list", "remove", "enable", "disable", "reload", "login", "serve"},
}

// pluginArgSubs are the plugin subcommands whose argument is a plugin id.
var pluginArgSubs = []string{"enable", "disable", "reload", "remove", "forget", "show", "logs", "upgrade"}

// runComplete is `hearth __complete WORD... CURRENT`: it prints the
// candidates for CURRENT, one a line. It never fails: a shell shows
// nothing (or file names) instead.
func runComplete(args []string, stdout io.Writer) int {
	for _, c := range complete(args) {
		fmt.Fprintln(stdout, c)
	}
	return 0
}

// complete is the candidates for the last of words, the words after
// "hearth" typed so far.
func complete(words []string) []string {
	if len(words) == 0 {
		words = []string{""}
	}
	before, cur := words[:len(words)-1], words[len(words)-1]
	var positional []string
	dataDir := ""
	for i := 0; i < len(before); i++ {
		w := before[i]
		if w == "--" {
			return nil
		}
		if !strings.HasPrefix(w, "-") {
			positional = append(positional, w)
			continue
		}
		name, value, hasValue := strings.Cut(strings.TrimLeft(w, "-"), "=")
		if valueFlags[name] && !hasValue {
			if i+1 == len(before) { // cur is this flag's value
				switch name {
				case "log-level":
					return prefixed([]string{"debug", "info", "warn", "error"}, cur)
				case "lang":
					return prefixed([]string{"go", "ts", "python"}, cur)
				}
				return nil
			}
			i++
			value = before[i]
		}
		if name == "data-dir" {
			dataDir = value
		}
	}
	if len(positional) == 0 {
		if strings.HasPrefix(cur, "-") {
			return prefixed(flagWords(commandFlags["chat"], "--version", "--help"), cur)
		}
		names := make([]string, 0, len(commands))
		for c := range commands {
			names = append(names, c)
		}
		sort.Strings(names)
		return prefixed(names, cur)
	}
	cmd := positional[0]
	if strings.HasPrefix(cur, "-") {
		if len(positional) > 1 {
			if fl, ok := subcommandFlags[cmd+" "+positional[1]]; ok {
				return prefixed(flagWords(fl, "--help"), cur)
			}
		}
		fl, ok := commandFlags[cmd]
		if !ok {
			fl = ownFlags[cmd]
		}
		return prefixed(flagWords(fl, "--help"), cur)
	}
	n := len(positional)
	var cands []string
	switch cmd {
	case "help":
		if n == 1 {
			for t := range helpTopics {
				cands = append(cands, t)
			}
			sort.Strings(cands)
		}
	case "completion":
		if n == 1 {
			cands = []string{"bash", "zsh", "fish"}
		}
	case "plugin":
		if n == 1 {
			cands = subcommands["plugin"]
		} else if n == 2 && slices.Contains(pluginArgSubs, positional[1]) {
			cands = pluginIDs(dataDir)
		}
	case "settings":
		if n == 1 {
			cands = append(slices.Clone(subcommands["settings"]), append([]string{"core"}, pluginIDs(dataDir)...)...)
		} else if n == 2 && (positional[1] == "get" || positional[1] == "set") {
			cands = append([]string{"core"}, pluginIDs(dataDir)...)
		}
	case "policy":
		switch {
		case n == 1:
			cands = subcommands["policy"]
		case n == 2 && (positional[1] == "set" || positional[1] == "reset"):
			cands = toolNames(dataDir)
		case n == 3 && positional[1] == "set":
			cands = []string{"auto", "ask", "off"}
		case n == 4 && positional[1] == "role":
			cands = []string{"owner", "admin", "member", "guest", "none"}
		}
	case "mcp":
		if n == 1 {
			cands = subcommands["mcp"]
		}
	default:
		return nil
	}
	if cands == nil {
		return nil
	}
	return prefixed(cands, cur)
}

// flagWords writes names as flags, with extra added.
func flagWords(names []string, extra ...string) []string {
	out := make([]string, 0, len(names)+len(extra))
	for _, n := range names {
		out = append(out, flagName(n))
	}
	out = append(out, extra...)
	sort.Strings(out)
	return out
}

// prefixed is the words that start with prefix.
func prefixed(words []string, prefix string) []string {
	var out []string
	for _, w := range words {
		if strings.HasPrefix(w, prefix) {
			out = append(out, w)
		}
	}
	return out
}

// pluginIDs are the folders in the data directory's plugins folder: the
// installed process plugins. It reads a directory and nothing else, so a
// TAB stays instant.
func pluginIDs(dataDir string) []string {
	dir, err := config.DataDir(dataDir, nil)
	if err != nil {
		return nil
	}
	entries, err := os.ReadDir(filepath.Join(dir, "plugins"))
	if err != nil {
		return nil
	}
	var ids []string
	for _, e := range entries {
		if e.IsDir() && !strings.HasPrefix(e.Name(), ".") {
			ids = append(ids, e.Name())
		}
	}
	return ids
}
