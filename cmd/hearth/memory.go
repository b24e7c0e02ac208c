package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"strings"

	"github.com/hearth-agent/hearth/internal/app"
	"github.com/hearth-agent/hearth/internal/channel/terminal"
	"github.com/hearth-agent/hearth/internal/redact"
	"github.com/hearth-agent/hearth/internal/scope"
	memoryplugin "github.com/hearth-agent/hearth/plugins/memory"
	"github.com/hearth-agent/hearth/sdk"
)

const memoryUsage = `Usage:
  hearth memory [list]            what the agent remembers: documents (its facts
                                  among them), then the graph's relations
  hearth memory search QUERY      the entries best matching QUERY
  hearth memory show ID           one document or relation, or an entity and its
                                  relations
  hearth memory add FACT          remember a fact, as the agent's remember tool
                                  does; FACT as SUBJECT|RELATION|OBJECT also
                                  adds the relation (the fact reads
                                  "SUBJECT RELATION OBJECT")
  hearth memory forget ID         delete a document, a relation or an entity
  hearth memory correct ID TEXT   replace a document's text (a fact's)

ID is a document's id, a relation's SOURCE|RELATION|TARGET, or an entity's
name, as list and search print them. Conversations that were shown a fact
you forget or correct (in the entry's scope, or anywhere for a global one)
are told so in their next message, once: "- [已删除] old" or
"- [更正] old → new", whether hearth serve runs or not (the data directory
keeps what each conversation was shown).

Facts you add are yours: recalling them never makes the agent ask before
a write. They go to the owner scope (your own conversations, on every
channel) unless --scope says otherwise; --scope global shares a fact with
every conversation, groups and other people's included.

What looks like a key or a password is masked in what every subcommand
prints (as in the model's context and the web UI); --reveal prints it.

Flags:
  --scope SCOPE   only this scope: global, owner, user:CHANNEL/ID or
                  chat:CHANNEL/CHAT (default: every scope; add: owner)
  --limit N       at most N entries of each kind (default 50)
  --reveal        print key-like text unmasked (masked by default in
                  what every subcommand prints)
  --json          print JSON
`

const memoryExamples = `
Examples:
  hearth memory
  hearth memory search coffee
  hearth memory add "Bob prefers green tea"
  hearth memory add --scope global "Bob|lives_in|Lyon"
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
	want := map[string]int{"list": 0, "search": -1, "show": 1, "forget": 1, "correct": 2, "add": 1}
	n, ok := want[sub]
	switch {
	case !ok:
		fmt.Fprintf(cio.err, "hearth memory: unknown subcommand %q\n\n%s", sub, memoryUsage)
		return 2
	case n >= 0 && len(rest) != n, n < 0 && len(rest) == 0:
		fmt.Fprintf(cio.err, "hearth memory %s: wrong arguments\n\n%s", sub, memoryUsage)
		return 2
	}
	show, text := maskEntry, redact.KeyLike
	if f.reveal {
		show, text = func(e memoryEntry) memoryEntry { return e }, func(s string) string { return s }
	}
	var err error
	switch sub {
	case "list":
		var list []memoryEntry
		if list, err = d.list(ctx, limit); err == nil {
			return printEntries(cio.out, mapEntries(list, show), f.jsonOut)
		}
	case "search":
		var list []memoryEntry
		if list, err = d.search(ctx, strings.Join(rest, " "), limit); err == nil {
			return printEntries(cio.out, mapEntries(list, show), f.jsonOut)
		}
	case "show":
		var e memoryEntry
		if e, err = d.show(ctx, rest[0]); err == nil {
			e = show(e)
			if f.jsonOut {
				return writeJSON(cio.out, e)
			}
			printEntry(cio.out, e)
			for _, l := range e.Links {
				fmt.Fprintf(cio.out, "  %s\n", terminal.Sanitize(l))
			}
			return 0
		}
	case "add":
		return addMemory(ctx, d, f, rest[0], cio, show)
	case "forget":
		var gone []string
		var in scope.Scope
		var writer string
		if gone, in, writer, err = d.forget(ctx, rest[0]); err == nil {
			told, terr := 0, error(nil)
			for _, g := range gone {
				n, err := a.Kernel.MemoryChanged(ctx, g, "", in, writer)
				told, terr = told+n, errors.Join(terr, err)
			}
			warnUntold(cio, terr)
			shown := make([]string, len(gone))
			for i, g := range gone {
				shown[i] = text(g)
			}
			return printChange(cio, f.jsonOut, map[string]any{"forgotten": text(rest[0]), "texts": shown, "conversations_told": told})
		}
	case "correct":
		text := strings.Join(strings.Fields(rest[1]), " ")
		if text == "" || strings.Contains(text, strings.TrimSpace(sdk.MarkArrow)) {
			fmt.Fprintf(cio.err, "hearth memory correct: the new text must be non-empty and without \"→\" (it marks corrections)\n")
			return 2
		}
		var old string
		var in scope.Scope
		var writer string
		if old, in, writer, err = d.correct(ctx, rest[0], text); err == nil {
			told, terr := a.Kernel.MemoryChanged(ctx, old, text, in, writer)
			warnUntold(cio, terr)
			return printChange(cio, f.jsonOut, map[string]any{"corrected": rest[0], "old": show(memoryEntry{Text: old}).Text,
				"new": show(memoryEntry{Text: text}).Text, "conversations_told": told})
		}
	}
	fmt.Fprintf(cio.err, "hearth memory %s: %v\n", sub, err)
	return 1
}

// addMemory is hearth memory add: arg is a fact, or SUBJECT|RELATION|OBJECT.
func addMemory(ctx context.Context, d memoryData, f *flags, arg string, cio *cmdIO, show func(memoryEntry) memoryEntry) int {
	sc := d.scope
	if sc == "" {
		sc = scope.Owner
	}
	var triple *sdk.Triple
	fact := arg
	if parts := strings.Split(arg, "|"); len(parts) == 3 {
		t := sdk.Triple{Subject: strings.TrimSpace(parts[0]), Relation: strings.TrimSpace(parts[1]), Object: strings.TrimSpace(parts[2])}
		if t.Subject == "" || t.Relation == "" || t.Object == "" {
			fmt.Fprintf(cio.err, "hearth memory add: SUBJECT|RELATION|OBJECT needs all three\n")
			return 2
		}
		triple, fact = &t, t.Subject+" "+t.Relation+" "+t.Object
	}
	fact, err := memoryplugin.CheckFact(fact)
	if err != nil {
		fmt.Fprintf(cio.err, "hearth memory add: %v\n", err)
		return 2
	}
	e, err := d.add(ctx, sc, fact, triple)
	if err != nil {
		fmt.Fprintf(cio.err, "hearth memory add: %v\n", err)
		return 1
	}
	if f.jsonOut {
		return writeJSON(cio.out, show(e))
	}
	fmt.Fprintf(cio.out, "remembered %s in %s / 已记住\n", e.ID, e.Scope)
	return 0
}

// warnUntold says that the change stands but conversations shown the
// old text could not be told.
func warnUntold(cio *cmdIO, err error) {
	if err != nil {
		fmt.Fprintf(cio.err, "hearth memory: changed, but the conversations shown it could not be told: %v\n", err)
	}
}

// maskEntry masks what looks like a key in what e shows.
func maskEntry(e memoryEntry) memoryEntry {
	e.ID, e.Title, e.Text = redact.KeyLike(e.ID), redact.KeyLike(e.Title), redact.KeyLike(e.Text)
	if e.Links != nil {
		links := make([]string, len(e.Links))
		for i, l := range e.Links {
			links[i] = redact.KeyLike(l)
		}
		e.Links = links
	}
	return e
}

func mapEntries(list []memoryEntry, f func(memoryEntry) memoryEntry) []memoryEntry {
	for i := range list {
		list[i] = f(list[i])
	}
	return list
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
