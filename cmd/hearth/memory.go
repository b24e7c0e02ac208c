package main

import (
	"context"
	"fmt"
	"io"
	"strings"

	"github.com/hearth-agent/hearth/internal/app"
	"github.com/hearth-agent/hearth/internal/channel/terminal"
	"github.com/hearth-agent/hearth/internal/scope"
)

const memoryUsage = `Usage:
  hearth memory [list]            what the agent remembers: documents (its facts
                                  among them), then the graph's relations
  hearth memory search QUERY      the entries best matching QUERY
  hearth memory show ID           one document, or an entity and its relations
  hearth memory forget ID         delete a document, a relation or an entity
  hearth memory correct ID TEXT   replace a document's text (a fact's)

ID is a document's id, a relation's SOURCE|RELATION|TARGET, or an entity's
name, as list and search print them. Conversations that were shown a fact
you forget or correct are told so in their next message, once:
"- [已删除] old" or "- [更正] old → new" (while hearth serve runs, it runs
these commands, so its conversations are told).

Flags:
  --scope SCOPE   only this scope: global, owner, user:CHANNEL/ID or
                  chat:CHANNEL/CHAT (default: every scope)
  --limit N       at most N entries of each kind (default 50)
  --json          print JSON
`

const memoryExamples = `
Examples:
  hearth memory
  hearth memory search coffee
  hearth memory --scope owner --json
  hearth memory correct fact-0123456789abcdef "Bob lives in Lyon"
  hearth memory forget fact-0123456789abcdef
`

// runMemory is hearth memory on an open app.
func runMemory(ctx context.Context, a *app.App, f *flags, rest []string, cio *cmdIO) int {
	d := memoryData{a: a}
	if f.scope != "" {
		s := scope.Scope(f.scope)
		if !s.Valid() {
			fmt.Fprintf(cio.err, "hearth memory: --scope %q is not a scope (global, owner, user:CHANNEL/ID, chat:CHANNEL/CHAT)\n", f.scope)
			return 2
		}
		d.scope = s
	}
	limit := f.limit
	if limit <= 0 {
		limit = 50
	}
	sub := "list"
	if len(rest) > 0 {
		sub, rest = rest[0], rest[1:]
	}
	want := map[string]int{"list": 0, "search": -1, "show": 1, "forget": 1, "correct": 2}
	n, ok := want[sub]
	switch {
	case !ok:
		fmt.Fprintf(cio.err, "hearth memory: unknown subcommand %q\n\n%s", sub, memoryUsage)
		return 2
	case n >= 0 && len(rest) != n, n < 0 && len(rest) == 0:
		fmt.Fprintf(cio.err, "hearth memory %s: wrong arguments\n\n%s", sub, memoryUsage)
		return 2
	}
	var err error
	switch sub {
	case "list":
		var list []memoryEntry
		if list, err = d.list(ctx, limit); err == nil {
			return printEntries(cio.out, list, f.jsonOut)
		}
	case "search":
		var list []memoryEntry
		if list, err = d.search(ctx, strings.Join(rest, " "), limit); err == nil {
			return printEntries(cio.out, list, f.jsonOut)
		}
	case "show":
		var e memoryEntry
		if e, err = d.show(ctx, rest[0]); err == nil {
			if f.jsonOut {
				return writeJSON(cio.out, e)
			}
			printEntry(cio.out, e)
			for _, l := range e.Links {
				fmt.Fprintf(cio.out, "  %s\n", terminal.Sanitize(l))
			}
			return 0
		}
	case "forget":
		var gone []string
		if gone, err = d.forget(ctx, rest[0]); err == nil {
			told := 0
			for _, g := range gone {
				told += a.Kernel.MemoryChanged(g, "")
			}
			return printChange(cio, f.jsonOut, map[string]any{"forgotten": rest[0], "texts": gone, "conversations_told": told})
		}
	case "correct":
		text := strings.Join(strings.Fields(rest[1]), " ")
		if text == "" || strings.Contains(text, "→") {
			fmt.Fprintf(cio.err, "hearth memory correct: the new text must be non-empty and without \"→\" (it marks corrections)\n")
			return 2
		}
		var old string
		if old, err = d.correct(ctx, rest[0], text); err == nil {
			told := a.Kernel.MemoryChanged(old, text)
			return printChange(cio, f.jsonOut, map[string]any{"corrected": rest[0], "old": old, "new": text, "conversations_told": told})
		}
	}
	fmt.Fprintf(cio.err, "hearth memory %s: %v\n", sub, err)
	return 1
}

func printEntries(w io.Writer, list []memoryEntry, asJSON bool) int {
	if asJSON {
		if list == nil {
			list = []memoryEntry{}
		}
		return writeJSON(w, list)
	}
	if len(list) == 0 {
		fmt.Fprintln(w, "nothing remembered / 没有记忆")
		return 0
	}
	for _, e := range list {
		printEntry(w, e)
	}
	return 0
}

// printEntry prints one entry on one line: id, scope, writer, text.
func printEntry(w io.Writer, e memoryEntry) {
	writer := e.Writer
	if writer == "" {
		writer = "-"
	}
	text := strings.Join(strings.Fields(e.Text), " ")
	if r := []rune(text); len(r) > 120 {
		text = string(r[:120]) + "…"
	}
	fmt.Fprintln(w, terminal.Sanitize(fmt.Sprintf("%s\t%s\t%s\t%s", e.ID, e.Scope, writer, text)))
}

func printChange(cio *cmdIO, asJSON bool, v map[string]any) int {
	if asJSON {
		return writeJSON(cio.out, v)
	}
	if id, ok := v["forgotten"]; ok {
		fmt.Fprintf(cio.out, "forgot %s / 已删除\n", terminal.Sanitize(fmt.Sprint(id)))
	} else {
		fmt.Fprintf(cio.out, "corrected %s / 已更正: %s\n", terminal.Sanitize(fmt.Sprint(v["corrected"])), terminal.Sanitize(fmt.Sprint(v["new"])))
	}
	if n, _ := v["conversations_told"].(int); n > 0 {
		fmt.Fprintf(cio.out, "%d conversation(s) that were shown it will be told\n", n)
	}
	return 0
}
