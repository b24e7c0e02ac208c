package terminal

import (
	"context"
	"errors"
	"fmt"
	"io"
	"slices"
	"strings"
	"unicode"
)

// Prompt is a prompt a plugin offers (an MCP server's), typed in chat as
// the command /<plugin>:<name>.
type Prompt struct {
	Plugin      string // mcp-<server>
	Name        string
	Title       string
	Description string
	Arguments   []PromptArgument
}

// PromptArgument is one argument of a Prompt, in the order it is declared.
type PromptArgument struct {
	Name        string
	Description string
	Required    bool
}

// Command is the chat command of p: /<plugin>:<name>.
func (p Prompt) Command() string { return "/" + p.Plugin + ":" + p.Name }

// Origin names p's text as a third party's for kernel.Input.Untrusted:
// "<plugin> prompt <name>". The text a server's prompt returns may carry
// instructions the user never read, so the turn it starts is tainted.
func (p Prompt) Origin() string { return p.Plugin + " prompt " + p.Name }

// ErrMissingArguments is the cause of a prompt command that lacks a
// required argument where nobody can be asked for it.
var ErrMissingArguments = errors.New("missing required arguments")

// isPromptCommand reports whether word (the first of a / line) names a
// prompt rather than a built-in command: /<plugin>:<name>.
func isPromptCommand(word string) bool {
	plugin, name, ok := strings.Cut(strings.TrimPrefix(word, "/"), ":")
	return strings.HasPrefix(word, "/") && ok && plugin != "" && name != ""
}

// findPrompt returns the prompt whose command is word.
func findPrompt(list []Prompt, word string) (Prompt, bool) {
	for _, p := range list {
		if p.Command() == word {
			return p, true
		}
	}
	return Prompt{}, false
}

// promptText runs the prompt command line (/<plugin>:<name> and its
// arguments) through o.GetPrompt and returns the text to send as the
// user's message and the prompt's Origin, which the message must carry as
// kernel.Input.Untrusted. ask, when not nil, asks the user for a missing required
// argument (label is what to show); nil means nobody can be asked, and a
// missing argument is an error naming them all.
func promptText(ctx context.Context, o Options, line string, ask func(label string) (string, error)) (text, origin string, err error) {
	words, err := splitWords(line)
	if err != nil {
		return "", "", err
	}
	if o.Prompts == nil || o.GetPrompt == nil {
		return "", "", fmt.Errorf("unknown command %s (try /help)", words[0])
	}
	p, ok := findPrompt(o.Prompts(), words[0])
	if !ok {
		return "", "", fmt.Errorf("unknown command %s (try /help)", words[0])
	}
	args, err := bindArguments(p, words[1:])
	if err != nil {
		return "", "", err
	}
	var missing []string
	for _, a := range p.Arguments {
		if _, ok := args[a.Name]; ok || !a.Required {
			continue
		}
		if ask == nil {
			missing = append(missing, a.Name)
			continue
		}
		label := a.Name
		if a.Description != "" {
			label += " (" + a.Description + ")"
		}
		v, err := ask(Sanitize(label) + ": ")
		if err != nil {
			return "", "", err
		}
		if strings.TrimSpace(v) == "" {
			return "", "", fmt.Errorf("%s: %w: %s", p.Command(), ErrMissingArguments, a.Name)
		}
		args[a.Name] = v
	}
	if len(missing) > 0 {
		return "", "", fmt.Errorf("%s: %w: %s (usage: %s)", p.Command(), ErrMissingArguments, strings.Join(missing, ", "), usage(p))
	}
	text, err = o.GetPrompt(ctx, p.Plugin, p.Name, args)
	if err != nil {
		return "", "", fmt.Errorf("%s: %w", p.Command(), err)
	}
	if strings.TrimSpace(text) == "" {
		return "", "", fmt.Errorf("%s: the prompt is empty", p.Command())
	}
	return text, p.Origin(), nil
}

// bindArguments gives the words after a prompt command to p's arguments:
// name=value sets the argument name (when p declares it); other words
// fill the arguments not named, in declared order, and words beyond the
// last of those join it, separated by spaces (so a prompt with one
// argument takes the rest of the line).
func bindArguments(p Prompt, words []string) (map[string]string, error) {
	args := map[string]string{}
	var positional []string
	for _, w := range words {
		if k, v, ok := strings.Cut(w, "="); ok && slices.ContainsFunc(p.Arguments, func(a PromptArgument) bool { return a.Name == k }) {
			args[k] = v
			continue
		}
		positional = append(positional, w)
	}
	var free []string
	for _, a := range p.Arguments {
		if _, ok := args[a.Name]; !ok {
			free = append(free, a.Name)
		}
	}
	if len(positional) > 0 && len(free) == 0 {
		return nil, fmt.Errorf("%s: too many arguments (usage: %s)", p.Command(), usage(p))
	}
	for i, w := range positional {
		if i >= len(free)-1 {
			last := free[len(free)-1]
			args[last] = strings.Join(positional[i:], " ")
			break
		}
		args[free[i]] = w
	}
	return args, nil
}

// splitWords splits a command line at spaces; "double" or 'single'
// quotes keep spaces in a word (in double quotes, \" and \\ escape), so
// code="a b" is one word, code=a b.
func splitWords(line string) ([]string, error) {
	var words []string
	var cur strings.Builder
	inWord := false
	rs := []rune(line)
	for i := 0; i < len(rs); i++ {
		r := rs[i]
		switch {
		case r == '"' || r == '\'':
			inWord = true
			j := i + 1
			for ; j < len(rs) && rs[j] != r; j++ {
				if r == '"' && rs[j] == '\\' && j+1 < len(rs) && (rs[j+1] == '"' || rs[j+1] == '\\') {
					j++
				}
				cur.WriteRune(rs[j])
			}
			if j == len(rs) {
				return nil, fmt.Errorf("unclosed quote %c in the command", r)
			}
			i = j
		case unicode.IsSpace(r):
			if inWord {
				words = append(words, cur.String())
				cur.Reset()
				inWord = false
			}
		default:
			inWord = true
			cur.WriteRune(r)
		}
	}
	if inWord {
		words = append(words, cur.String())
	}
	if len(words) == 0 {
		return nil, errors.New("empty command")
	}
	return words, nil
}

// usage is p's command with its arguments: required ones as NAME=…,
// optional ones in brackets.
func usage(p Prompt) string {
	var b strings.Builder
	b.WriteString(p.Command())
	for _, a := range p.Arguments {
		if a.Required {
			fmt.Fprintf(&b, " %s=…", a.Name)
		} else {
			fmt.Fprintf(&b, " [%s=…]", a.Name)
		}
	}
	return b.String()
}

// writePromptHelp lists the prompts for /help, one a line with its
// description.
func writePromptHelp(w io.Writer, list []Prompt) {
	if len(list) == 0 {
		return
	}
	fmt.Fprintln(w, "Prompts of MCP servers (arguments as name=value or in order; quote spaces) / MCP 服务器提供的提示词:")
	for _, p := range list {
		desc := p.Description
		if desc == "" {
			desc = p.Title
		}
		line := "  " + usage(p)
		if desc != "" {
			line += "\n      " + firstLine(desc)
		}
		fmt.Fprintln(w, Sanitize(line))
	}
}

// firstLine is s up to its first newline.
func firstLine(s string) string {
	s, _, _ = strings.Cut(strings.TrimSpace(s), "\n")
	return s
}

// builtinCommands are the commands /help lists, for completion.
var builtinCommands = []string{"/exit", "/help", "/new", "/plugins", "/quit", "/reasoning", "/source", "/sources"}

// completions returns the commands that start with prefix: the built-in
// ones and the prompts', sorted.
func completions(prefix string, list []Prompt) []string {
	var out []string
	for _, c := range builtinCommands {
		if strings.HasPrefix(c, prefix) {
			out = append(out, c)
		}
	}
	for _, p := range list {
		if c := p.Command(); strings.HasPrefix(c, prefix) {
			out = append(out, c)
		}
	}
	slices.Sort(out)
	return slices.Compact(out)
}

// commonPrefix is the longest prefix every one of list shares.
func commonPrefix(list []string) string {
	if len(list) == 0 {
		return ""
	}
	p := list[0]
	for _, s := range list[1:] {
		for !strings.HasPrefix(s, p) {
			_, size := lastRune(p)
			p = p[:len(p)-size]
		}
	}
	return p
}

func lastRune(s string) (rune, int) {
	rs := []rune(s)
	if len(rs) == 0 {
		return 0, 0
	}
	r := rs[len(rs)-1]
	return r, len(string(r))
}

// prompts is o.Prompts's list; none when prompts are not wired.
func (o Options) prompts() []Prompt {
	if o.Prompts == nil || o.GetPrompt == nil {
		return nil
	}
	return o.Prompts()
}

// promptEcho is the line shown when a prompt's text is sent: its start,
// on one line, control characters neutralised.
func promptEcho(text string) string {
	const most = 120
	line := strings.Join(strings.Fields(text), " ")
	if rs := []rune(line); len(rs) > most {
		line = string(rs[:most]) + "…"
	}
	return SanitizeLine("→ " + line)
}

// askPrompt is the text `hearth ask` sends for text when text is a prompt
// command of o's prompts, and the prompt's Origin (empty when text is not
// a prompt command); nobody is asked for missing arguments.
func askPrompt(ctx context.Context, o Options, text string) (string, string, error) {
	words := strings.Fields(text)
	if len(words) == 0 || !isPromptCommand(words[0]) || strings.Contains(text, "\n") {
		return text, "", nil
	}
	if _, ok := findPrompt(o.prompts(), words[0]); !ok {
		return text, "", nil // a message that looks like one: sent as it is
	}
	return promptText(ctx, o, text, nil)
}
