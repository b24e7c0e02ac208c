package main

import (
	"bufio"
	"io"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/hearth-agent/hearth/sdk/llmtest"
)

// A command shown in README.md, README.zh-CN.md or docs/*.md.
type docCommand struct {
	where string   // file:line
	args  []string // after "hearth"
}

// docCommands extracts every `hearth ...` and `go run ./cmd/hearth ...`
// line of the fenced code blocks of the user docs: a line continued with
// "\" is joined; what follows two spaces or " #" is an explanation; a
// word "a|b" stands for each of its alternatives; a redirection ends it.
func docCommands(t *testing.T) []docCommand {
	t.Helper()
	files, _ := filepath.Glob("../../docs/*.md")
	files = append([]string{"../../README.md", "../../README.zh-CN.md"}, files...)
	var out []docCommand
	for _, file := range files {
		f, err := os.Open(file)
		if err != nil {
			t.Fatal(err)
		}
		sc := bufio.NewScanner(f)
		inBlock, n := false, 0
		for sc.Scan() {
			n++
			line := sc.Text()
			if strings.HasPrefix(strings.TrimSpace(line), "```") {
				inBlock = !inBlock
				continue
			}
			if !inBlock {
				continue
			}
			at := n
			for strings.HasSuffix(line, `\`) && sc.Scan() {
				n++
				line = strings.TrimSuffix(line, `\`) + " " + strings.TrimSpace(sc.Text())
			}
			s := strings.TrimPrefix(strings.TrimSpace(line), "$ ")
			s, ok := strings.CutPrefix(s, "go run ./cmd/hearth")
			if !ok {
				if s != "hearth" && !strings.HasPrefix(s, "hearth ") {
					continue
				}
				s = strings.TrimPrefix(s, "hearth")
			}
			words := shellWords(explained(s))
			if i := slices.IndexFunc(words, func(w string) bool { return w == ">" || w == "|" || w == "&&" }); i >= 0 {
				words = words[:i]
			}
			where := filepath.Base(file) + ":" + strconv.Itoa(at)
			for _, args := range alternatives(words) {
				out = append(out, docCommand{where: where, args: args})
			}
		}
		f.Close()
	}
	return out
}

// explained cuts the explanation off a command line: from two spaces or
// " #" outside quotes.
func explained(s string) string {
	var quote rune
	for i, r := range s {
		switch {
		case quote != 0:
			if r == quote {
				quote = 0
			}
		case r == '\'' || r == '"':
			quote = r
		case strings.HasPrefix(s[i:], "  ") || strings.HasPrefix(s[i:], " #"):
			return s[:i]
		}
	}
	return s
}

// shellWords splits s as a shell would, for the quoting the docs use.
func shellWords(s string) []string {
	var words []string
	var cur strings.Builder
	var quote rune
	inWord := false
	for _, r := range s {
		switch {
		case quote != 0 && r == quote:
			quote = 0
		case quote != 0:
			cur.WriteRune(r)
		case r == '\'' || r == '"':
			quote, inWord = r, true
		case r == ' ' || r == '\t':
			if inWord {
				words = append(words, cur.String())
				cur.Reset()
				inWord = false
			}
		default:
			cur.WriteRune(r)
			inWord = true
		}
	}
	if inWord {
		words = append(words, cur.String())
	}
	return words
}

// alternatives expands the first word "a|b" into a command for each.
func alternatives(words []string) [][]string {
	for i, w := range words {
		if strings.Contains(w, "|") && !strings.ContainsAny(w, "{[\"") {
			var out [][]string
			for _, alt := range strings.Split(w, "|") {
				out = append(out, alternatives(slices.Concat(words[:i], []string{alt}, words[i+1:]))...)
			}
			return out
		}
	}
	return [][]string{words}
}

// placeholders are the docs' stand-ins, and what a test gives for them.
var placeholders = map[string]string{
	"NAME": "time", "名字": "time", "名称": "time", "TOOL": "time__now", "工具": "time__now", "PLUGIN": "time", "插件": "time",
	"TOPIC": "ask", "主题": "ask", "CMD": "true", "命令": "true", "FOLDER": ".", "目录": ".", "ID": "time", "URL": "http://127.0.0.1:9/mcp", "地址": "http://127.0.0.1:9/mcp",
}

// Every command the docs show is one hearth knows, with flags its command
// takes (checked by the parser the binary uses); the ones that are safe
// to run here (no network, no service left running, nothing interactive)
// run for real on a fresh data directory with a scripted provider, and
// none ends in a usage error (exit code 2).
func TestDocsCommands(t *testing.T) {
	cmds := docCommands(t)
	if len(cmds) < 50 {
		t.Fatalf("only %d commands found in the docs", len(cmds))
	}
	srv := llmtest.NewServer(t)
	srv.SetFallback(llmtest.Reply{Text: "ok"})
	home, work := t.TempDir(), t.TempDir()
	env := []string{"HEARTH_HOME=" + home, "OPENAI_BASE_URL=" + srv.URL, "HEARTH_MODEL=test-model"}
	ran := 0
	for _, c := range cmds {
		args := make([]string, len(c.args))
		for i, a := range c.args {
			if v, ok := placeholders[a]; ok {
				a = v
			}
			args[i] = a
		}
		cmd, _, pre, rest := splitCommand(args)
		if !commands[cmd] {
			t.Errorf("%s: hearth %s: unknown command %q", c.where, strings.Join(c.args, " "), cmd)
			continue
		}
		if subs := subcommands[cmd]; len(subs) > 0 && len(rest) > 0 && !strings.HasPrefix(rest[0], "-") && !slices.Contains(subs, rest[0]) {
			t.Errorf("%s: hearth %s: unknown subcommand %q of %s", c.where, strings.Join(c.args, " "), rest[0], cmd)
			continue
		}
		full := commandArgs(cmd, pre, rest)
		if !helpAsked(cmd, pre, rest) && !slices.Contains([]string{"help", "version", "completion", "serve", "token"}, cmd) && !(len(full) > 0 && slices.Contains(ownParsers[cmd], full[0])) {
			if _, _, err := parse(cmd, full, io.Discard); err != nil {
				t.Errorf("%s: hearth %s: %v", c.where, strings.Join(c.args, " "), err)
				continue
			}
		}
		if !safeToRun(cmd, args) {
			continue
		}
		ran++
		if _, errOut, code := hearthIn(t, work, env, "", args...); code == 2 {
			t.Errorf("%s: hearth %s: a usage error: %s", c.where, strings.Join(args, " "), errOut)
		}
	}
	if ran < 30 {
		t.Fatalf("only %d of %d commands ran", ran, len(cmds))
	}
}

// safeToRun says whether the test runs a docs command for real: not a
// service (serve, mcp serve), not the interactive chat or a login, not one
// that fetches from the network or starts an MCP server.
func safeToRun(cmd string, args []string) bool {
	line := strings.Join(args, " ")
	switch {
	case cmd == "serve" || cmd == "chat" || cmd == "mcp" && slices.ContainsFunc(args, func(a string) bool { return a == "serve" || a == "login" || a == "add" || a == "add-json" }):
		return false
	case strings.Contains(line, "://"):
		return false
	}
	return true
}

// TestReadmeListsJSONCommands: the READMEs' list of the commands that
// take --json is every command whose flags have it, with mcp list and
// version, and no other.
func TestReadmeListsJSONCommands(t *testing.T) {
	want := []string{"mcp list", "version"}
	for cmd, flags := range commandFlags {
		if slices.Contains(flags, "json") {
			want = append(want, cmd)
		}
	}
	slices.Sort(want)
	quoted := regexp.MustCompile("`([^`]*)`")
	for _, file := range []string{"../../README.md", "../../README.zh-CN.md"} {
		b, err := os.ReadFile(file)
		if err != nil {
			t.Fatal(err)
		}
		var got []string
		for _, para := range strings.Split(string(b), "\n\n") {
			if !strings.Contains(para, "`--json`") || !strings.Contains(para, "hearth completion") {
				continue
			}
			for _, m := range quoted.FindAllStringSubmatch(para, -1) {
				if w := m[1]; !strings.HasPrefix(w, "hearth") && !strings.HasPrefix(w, "-") {
					got = append(got, w)
				}
			}
		}
		slices.Sort(got)
		if !slices.Equal(got, want) {
			t.Errorf("%s lists %q as taking --json, want %q", file, got, want)
		}
	}
}
