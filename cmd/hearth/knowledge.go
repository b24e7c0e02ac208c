package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/hearth-agent/hearth/internal/app"
	"github.com/hearth-agent/hearth/internal/channel/terminal"
	"github.com/hearth-agent/hearth/internal/knowledge"
	"github.com/hearth-agent/hearth/internal/redact"
	"github.com/hearth-agent/hearth/internal/scope"
)

const knowledgeUsage = `Usage:
  hearth knowledge search QUERY... [-k N]  the best entries, one a line: rank, score, file, title
  hearth knowledge list [--all]            the entries' names (global; --all: every scope)
  hearth knowledge show NAME               one entry's text
  hearth knowledge add NAME [FILE|-]       write an entry from FILE, or stdin ("-" or none)
  hearth knowledge rm NAME                 delete an entry

The knowledge base: Markdown (.md) and text (.txt) files in the data
directory's knowledge folder, at any depth; an entry's name is its path
there without the extension (recipes/红烧肉). Plugins' entries live in
its hidden .plugins folder, the owner's for one conversation in .scopes
(docs/knowledge.md). Search and list show the global scope, every
writer; --all shows every scope, --scope SCOPE one (global, owner,
user:CHANNEL/ID, chat:CHANNEL/CHAT). show, add and rm act on the owner's
entry in global, or in --scope; show and rm take --writer PLUGIN for a
plugin's. Search output is tab-separated: rank, score, file (relative to
the knowledge folder), title. While hearth serve runs, the command runs in
it (its index is warm and it sees changes at once); otherwise it opens the
data directory itself and indexes the folder first.

Flags:
  -k N             search: at most N hits (default 10)
  --all            list, search: every scope, not only global
  --scope SCOPE    the scope to list, search, show, add to or remove from
  --writer PLUGIN  show, rm: a plugin's entry, not the owner's
  --reveal         show, search: print key-like text (an API key pasted in
                   an entry) unmasked; masked by default, as in hearth memory
  --json           print JSON: search and list an array of entries (name,
                   file, title, scope, writer; search adds rank and score)
`

const knowledgeExamples = `
Examples:
  hearth knowledge search "红烧肉 怎么做"
  hearth knowledge search router password -k 3 --json
  hearth knowledge list --all
  hearth knowledge add recipes/soup soup.md
  hearth knowledge show recipes/soup
  hearth knowledge rm recipes/soup
`

// knowledgeHit is one line of `hearth knowledge search --json`.
type knowledgeHit struct {
	Rank  int     `json:"rank"`
	Score float64 `json:"score"`
	knowledge.Entry
}

func runKnowledge(ctx context.Context, a *app.App, f *flags, args []string, cio *cmdIO) int {
	fail := func(err error) int {
		fmt.Fprintf(cio.err, "hearth knowledge: %v\n", err)
		if errors.Is(err, knowledge.ErrName) {
			return 2
		}
		return 1
	}
	if len(args) == 0 {
		fmt.Fprint(cio.err, knowledgeUsage)
		return 2
	}
	if msg := knowledgeArgsError(args); msg != "" {
		fmt.Fprintf(cio.err, "%s\n\n%s", msg, knowledgeUsage)
		return 2
	}
	sc := scope.Scope(f.scope)
	if f.scope != "" && !sc.Valid() {
		fmt.Fprintf(cio.err, "hearth knowledge: %q is not a scope (global, owner, user:CHANNEL/ID, chat:CHANNEL/CHAT)\n", f.scope)
		return 2
	}
	if sc == "" {
		sc = scope.Global
	}
	// match narrows the owner's view to what the flags ask for.
	var match func(scope.Scope, string) bool
	if !f.all {
		match = func(s scope.Scope, _ string) bool { return s == sc }
	}
	kb, v := a.KB, scope.Everything()
	// A complete answer: the start-up indexing first, said when it takes
	// a while (a big folder, no persisted index).
	select {
	case <-kb.Ready():
	case <-time.After(time.Second):
		fmt.Fprintln(cio.err, "hearth knowledge: indexing the knowledge folder first…")
		select {
		case <-kb.Ready():
		case <-ctx.Done():
			return fail(ctx.Err())
		}
	case <-ctx.Done():
		return fail(ctx.Err())
	}
	// What looks like a key is masked in what show and search print, as
	// hearth memory does, unless --reveal.
	mask := redact.KeyLike
	if f.reveal {
		mask = func(s string) string { return s }
	}
	key := func(name string) knowledge.Key { return knowledge.Key{Scope: sc, Writer: f.writer, Name: name} }
	switch sub, rest := args[0], args[1:]; {
	case sub == "search" && len(rest) > 0:
		k := f.k
		if k <= 0 {
			k = 10
		}
		hits := kb.FindMatching(v, strings.Join(rest, " "), k, match)
		if f.jsonOut {
			out := make([]knowledgeHit, len(hits))
			for i, h := range hits {
				out[i] = knowledgeHit{Rank: i + 1, Score: h.Score, Entry: h.Entry}
				out[i].Title = mask(h.Title)
			}
			return writeJSON(cio.out, out)
		}
		if len(hits) == 0 {
			fmt.Fprintln(cio.err, "(no entry matches)")
		}
		for i, h := range hits {
			fmt.Fprintf(cio.out, "%d\t%s\t%s\t%s\n", i+1, strconv.FormatFloat(h.Score, 'f', 4, 64),
				terminal.SanitizeLine(h.File), terminal.SanitizeLine(mask(h.Title)))
		}
		return 0
	case sub == "list" && len(rest) == 0:
		var out []knowledge.Entry
		for _, e := range kb.Entries(v) {
			if match == nil || match(e.Scope, e.Writer) {
				out = append(out, e)
			}
		}
		if f.jsonOut {
			if out == nil {
				out = []knowledge.Entry{}
			}
			for i := range out {
				out[i].Title = mask(out[i].Title) // a title is the first line, where a pasted key may be
			}
			return writeJSON(cio.out, out)
		}
		if len(out) == 0 {
			fmt.Fprintln(cio.err, "(no entries)")
		}
		for _, e := range out {
			line := terminal.SanitizeLine(e.Name)
			if e.Scope != scope.Global || e.Writer != "" {
				line += "\t(" + terminal.SanitizeLine(string(e.Scope))
				if e.Writer != "" {
					line += ", " + terminal.SanitizeLine(e.Writer)
				}
				line += ")"
			}
			fmt.Fprintln(cio.out, line)
		}
		return 0
	case sub == "show" && len(rest) == 1:
		text, err := kb.Read(v, key(rest[0]))
		if err != nil {
			return fail(err)
		}
		text = mask(text)
		if f.jsonOut {
			return writeJSON(cio.out, map[string]string{"name": rest[0], "scope": string(sc), "writer": f.writer, "content": text})
		}
		io.WriteString(cio.out, terminal.Sanitize(text))
		return 0
	case sub == "add" && (len(rest) == 1 || len(rest) == 2):
		if f.writer != "" {
			fmt.Fprintln(cio.err, "hearth knowledge add: --writer is for show and rm: what the owner adds is the owner's")
			return 2
		}
		text, err := knowledgeText(rest[1:], cio)
		if err != nil {
			return fail(err)
		}
		view := v
		view.Write = sc
		created, err := kb.Put(view, key(rest[0]), text)
		if err != nil {
			return fail(err)
		}
		if f.jsonOut {
			return writeJSON(cio.out, map[string]any{"name": rest[0], "scope": sc, "created": created})
		}
		verb := "replaced"
		if created {
			verb = "added"
		}
		fmt.Fprintf(cio.out, "%s %s\n", verb, terminal.SanitizeLine(rest[0]))
		return 0
	case sub == "rm" && len(rest) == 1:
		if err := kb.Remove(v, key(rest[0])); err != nil {
			return fail(err)
		}
		if f.jsonOut {
			return writeJSON(cio.out, map[string]any{"name": rest[0], "removed": true})
		}
		fmt.Fprintf(cio.out, "removed %s\n", terminal.SanitizeLine(rest[0]))
		return 0
	}
	fmt.Fprint(cio.err, knowledgeUsage) // not reached: knowledgeArgsError let no other through
	return 2
}

// knowledgeArgs are the subcommands of `hearth knowledge` and how many
// arguments each takes: at least min, at most max (-1: any number).
var knowledgeArgs = map[string]struct{ min, max int }{
	"search": {1, -1}, "list": {0, 0}, "show": {1, 1}, "add": {1, 2}, "rm": {1, 1},
}

// knowledgeArgsError says what is wrong with the subcommand and
// arguments of `hearth knowledge`, as memory and plugin say it; "" when
// nothing is.
func knowledgeArgsError(args []string) string {
	n, ok := knowledgeArgs[args[0]]
	if !ok {
		return fmt.Sprintf("hearth knowledge: unknown subcommand %q", args[0])
	}
	if got := len(args) - 1; got < n.min || n.max >= 0 && got > n.max {
		return fmt.Sprintf("hearth knowledge %s: wrong arguments", args[0])
	}
	return ""
}

// knowledgeText is the text `hearth knowledge add` writes: the file
// named (relative to the user's directory), else stdin. A terminal is
// told how to end the text first: it would seem to hang otherwise.
func knowledgeText(args []string, cio *cmdIO) (string, error) {
	var b []byte
	var err error
	if len(args) == 1 && args[0] != "-" {
		b, err = os.ReadFile(cio.abs(args[0]))
	} else {
		if isTerminal(cio.in) && cio.err != nil {
			fmt.Fprintln(cio.err, stdinHint)
		}
		b, err = io.ReadAll(io.LimitReader(cio.in, 16<<20))
	}
	if err != nil {
		return "", err
	}
	if !utf8.Valid(b) {
		return "", errors.New("the entry is not UTF-8 text")
	}
	if strings.TrimSpace(string(b)) == "" {
		// Nothing on stdin (a forgotten file argument) must not empty an
		// entry; rm deletes one.
		return "", errors.New("the entry is empty (give a FILE or text on stdin; hearth knowledge rm NAME deletes an entry)")
	}
	return string(b), nil
}

// stdinHint is what `hearth knowledge add` says before it reads the
// entry from a terminal.
const stdinHint = "hearth knowledge add: reading the entry from stdin; end with Ctrl-D (Ctrl-Z Enter on Windows) / 请输入内容，以 Ctrl-D 结束"

// knowledgeAddArgs is `hearth knowledge add NAME ...` as the daemon
// runs it, the text on its stdin.
func knowledgeAddArgs(f *flags, name string) []string {
	out := []string{"knowledge", "add", "--scope", f.scope, "--writer", f.writer, "--", name, "-"}
	if f.jsonOut {
		out = append(out[:2], append([]string{"--json"}, out[2:]...)...)
	}
	return out
}
