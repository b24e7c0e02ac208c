package main

import (
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/hearth-agent/hearth/sdk/llmtest"
)

// TestHelpOnEveryCommand: -h, --help and hearth help CMD print the same
// text, with examples, to stdout, and exit 0, without opening anything.
func TestHelpOnEveryCommand(t *testing.T) {
	env := []string{"HEARTH_HOME=" + t.TempDir()}
	for _, cmd := range []string{"chat", "ask", "tools", "policy", "audit", "plugin", "settings", "knowledge", "token", "serve", "version", "mcp", "completion"} {
		t.Run(cmd, func(t *testing.T) {
			want, errOut, code := hearth(t, env, "", "help", cmd)
			if code != 0 || errOut != "" || !strings.Contains(want, "Usage") || !strings.Contains(want, "Examples:") {
				t.Fatalf("help %s: %d %q\n%s", cmd, code, errOut, want)
			}
			for _, h := range []string{"-h", "--help", "-help"} {
				out, errOut, code := hearth(t, env, "", cmd, h)
				if code != 0 || out != want || errOut != "" {
					t.Fatalf("%s %s: %d %q\n%s", cmd, h, code, errOut, out)
				}
			}
			if out, _, _ := hearth(t, env, "", "-v", cmd, "-h"); out != want {
				t.Fatalf("-v %s -h:\n%s", cmd, out)
			}
		})
	}
}

func TestHelpTopics(t *testing.T) {
	for topic, want := range map[string]string{"exit-codes": "2   usage", "config": "config.json", "flags": "hearth -v ask hi", "help": "exit-codes"} {
		if out, _, code := hearth(t, nil, "", "help", topic); code != 0 || !strings.Contains(out, want) {
			t.Fatalf("help %s: %d\n%s", topic, code, out)
		}
	}
	if out, _, code := hearth(t, nil, "", "help"); code != 0 || !strings.Contains(out, "Commands:") {
		t.Fatalf("help: %d\n%s", code, out)
	}
	if _, errOut, code := hearth(t, nil, "", "help", "nope"); code != 2 || !strings.Contains(errOut, "exit-codes") {
		t.Fatalf("help nope: %d %q", code, errOut)
	}
	if out, _, code := hearth(t, nil, "", "-v", "help", "exit-codes"); code != 0 || !strings.Contains(out, "2   usage") {
		t.Fatalf("-v help exit-codes: %d\n%s", code, out)
	}
	if out, _, code := hearth(t, nil, "", "--help"); code != 0 || !strings.Contains(out, "Commands:") {
		t.Fatalf("--help: %d\n%s", code, out)
	}
}

// TestHelpOnHelp: hearth help -h is help's own help, the list of
// topics, as hearth help help is; -h after a topic changes nothing.
func TestHelpOnHelp(t *testing.T) {
	want, _, code := hearth(t, nil, "", "help", "help")
	if code != 0 || !strings.Contains(want, "Topics:") {
		t.Fatalf("help help: %d\n%s", code, want)
	}
	for _, args := range [][]string{{"help", "-h"}, {"help", "--help"}, {"help", "-help"}, {"-h", "help"}} {
		if out, errOut, code := hearth(t, nil, "", args...); code != 0 || out != want || errOut != "" {
			t.Errorf("%q: %d %q\n%s", args, code, errOut, out)
		}
	}
	ask, _, _ := hearth(t, nil, "", "help", "ask")
	if out, _, code := hearth(t, nil, "", "help", "ask", "-h"); code != 0 || out != ask {
		t.Errorf("help ask -h: %d\n%s", code, out)
	}
}

// TestEveryCommandHasAHelpTopic: each command hearth help lists is a
// topic of hearth help help (and of the list a wrong topic prints), and
// hearth help CMD prints its help.
func TestEveryCommandHasAHelpTopic(t *testing.T) {
	list, _, _ := hearth(t, nil, "", "help")
	_, cmds, ok := strings.Cut(list, "Commands:\n")
	cmds, _, _ = strings.Cut(cmds, "\n\n")
	topics, _, _ := hearth(t, nil, "", "help", "help")
	_, wrong, _ := hearth(t, nil, "", "help", "nope")
	if !ok || cmds == "" {
		t.Fatalf("no command list in hearth help:\n%s", list)
	}
	n := 0
	for _, line := range strings.Split(cmds, "\n") {
		if !strings.HasPrefix(line, "  ") || strings.HasPrefix(line, "   ") {
			continue // a command's second line
		}
		cmd := strings.Fields(line)[0]
		n++
		for what, text := range map[string]string{"help help": topics, "help nope": wrong} {
			if !strings.Contains(text, "\n  "+cmd+" ") {
				t.Errorf("hearth %s does not list %s among the topics:\n%s", what, cmd, text)
			}
		}
		if out, errOut, code := hearth(t, nil, "", "help", cmd); code != 0 || !strings.HasPrefix(out, "Usage") {
			t.Errorf("help %s: %d %q\n%s", cmd, code, errOut, out)
		}
	}
	if n < len(commands) {
		t.Errorf("hearth help lists %d commands, hearth has %d:\n%s", n, len(commands), cmds)
	}
}

func TestVersionFlag(t *testing.T) {
	want, _, _ := hearth(t, nil, "", "version")
	if out, _, code := hearth(t, nil, "", "--version"); code != 0 || out != want || !strings.HasPrefix(out, "hearth ") {
		t.Fatalf("--version: %d %q, version says %q", code, out, want)
	}
	out, _, code := hearth(t, nil, "", "version", "--json")
	var v struct{ Version, SDK string }
	if err := json.Unmarshal([]byte(out), &v); code != 0 || err != nil || v.Version == "" || v.SDK == "" {
		t.Fatalf("version --json: %d %v %q", code, err, out)
	}
}

// TestGlobalFlagsBeforeOrAfter: hearth -v ask hi runs ask, as does
// hearth ask -v hi, and "--" makes a flag-like word the message.
func TestGlobalFlagsBeforeOrAfter(t *testing.T) {
	for _, args := range [][]string{
		{"-v", "ask", "hi"},
		{"ask", "-v", "hi"},
		{"ask", "hi", "-v"},
		{"--data-dir", "DIR", "ask", "hi"},
		{"--data-dir=DIR", "-v", "ask", "hi"},
	} {
		home := t.TempDir()
		for i := range args {
			args[i] = strings.ReplaceAll(args[i], "DIR", home)
		}
		srv := llmtest.NewServer(t, llmtest.Reply{Text: "hello there"})
		out, errOut, code := hearth(t, []string{"OPENAI_BASE_URL=" + srv.URL, "HEARTH_MODEL=test-model", "HEARTH_HOME=" + home}, "", args...)
		if code != 0 || !strings.Contains(out, "hello there") {
			t.Fatalf("%q: %d %q %q", args, code, out, errOut)
		}
		if reqs := srv.Requests(); len(reqs) != 1 || !strings.Contains(lastUserText(reqs[0].Messages), "hi") {
			t.Fatalf("%q: requests %+v", args, reqs)
		}
	}
	srv := llmtest.NewServer(t, llmtest.Reply{Text: "a flag"})
	env := []string{"OPENAI_BASE_URL=" + srv.URL, "HEARTH_MODEL=test-model", "HEARTH_HOME=" + t.TempDir()}
	if _, errOut, code := hearth(t, env, "", "ask", "--", "-v", "means?"); code != 0 {
		t.Fatalf("ask -- -v: %d %q", code, errOut)
	}
	if got := lastUserText(srv.Requests()[0].Messages); got != "-v means?" {
		t.Fatalf("message %q", got)
	}
}

// lastUserText is the text of the last user message of msgs.
func lastUserText(msgs []map[string]any) string {
	s := ""
	for _, m := range msgs {
		if m["role"] == "user" {
			s, _ = m["content"].(string)
		}
	}
	return s
}

// TestUnusedFlagsAreRefused: a flag a command does not use is an error
// (exit 2) that names it, never silently ignored.
func TestUnusedFlagsAreRefused(t *testing.T) {
	env := []string{"HEARTH_HOME=" + t.TempDir()}
	for _, args := range [][]string{
		{"plugin", "--since", "1h"},
		{"settings", "--limit", "3"},
		{"ask", "--json", "hi"},
		{"--tool", "x", "chat"},
		{"policy", "--since", "1h"},
	} {
		_, errOut, code := hearth(t, env, "", args...)
		if code != 2 || !strings.Contains(errOut, "not a flag of this command") {
			t.Fatalf("%q: %d %q", args, code, errOut)
		}
	}
	if _, errOut, code := hearth(t, env, "", "frobnicate"); code != 2 || !strings.Contains(errOut, `unknown command "frobnicate"`) {
		t.Fatalf("unknown: %d %q", code, errOut)
	}
}

func TestAuditJSON(t *testing.T) {
	home := t.TempDir()
	env := []string{"HEARTH_HOME=" + home}
	if out, _, code := hearth(t, env, "", "audit", "--json"); code != 0 || strings.TrimSpace(out) != "[]" {
		t.Fatalf("empty: %d %q", code, out)
	}
	srv := llmtest.NewServer(t, timeToolScript()...)
	if _, errOut, code := hearth(t, append([]string{"OPENAI_BASE_URL=" + srv.URL, "HEARTH_MODEL=test-model"}, env...), "", "ask", "现在几点？"); code != 0 {
		t.Fatalf("ask: %d %q", code, errOut)
	}
	out, errOut, code := hearth(t, env, "", "audit", "--json", "--tool", "time__now")
	var got []map[string]any
	if err := json.Unmarshal([]byte(out), &got); code != 0 || err != nil || len(got) == 0 {
		t.Fatalf("audit --json: %d %v %q %q", code, err, out, errOut)
	}
	for _, e := range got {
		if e["tool"] != "time__now" || e["decision"] != "allow" || e["at"] == "" {
			t.Fatalf("entry %v", e)
		}
	}
}

func TestPolicyJSON(t *testing.T) {
	env := []string{"HEARTH_HOME=" + t.TempDir()}
	hearth(t, env, "", "policy", "set", "time__now", "ask")
	hearth(t, env, "", "policy", "grant", "admin", "read,write", "--channel", "qq")
	out, errOut, code := hearth(t, env, "", "--json", "policy")
	var l struct {
		Tools []struct {
			Tool, Mode, Effect string
		}
		Grants []struct {
			Role, Channel string
			Effects       []string
		}
	}
	if err := json.Unmarshal([]byte(out), &l); code != 0 || err != nil {
		t.Fatalf("policy --json: %d %v %q %q", code, err, out, errOut)
	}
	found := false
	for _, r := range l.Tools {
		found = found || r.Tool == "time__now" && r.Mode == "ask" && r.Effect == "read"
	}
	if !found || len(l.Grants) != 1 || l.Grants[0].Channel != "qq" || len(l.Grants[0].Effects) != 2 {
		t.Fatalf("policy --json:\n%s", out)
	}
	if _, _, code := hearth(t, env, "", "policy", "set", "x", "ask", "--json"); code != 2 {
		t.Fatalf("policy set --json: %d", code)
	}
}

// TestCompletion: hearth __complete answers what the scripts ask, and
// the bash script, run by a real bash, completes through it.
func TestCompletion(t *testing.T) {
	home := t.TempDir()
	if err := os.MkdirAll(filepath.Join(home, "plugins", "weather"), 0o700); err != nil {
		t.Fatal(err)
	}
	env := []string{"HEARTH_HOME=" + home}
	for _, c := range []struct {
		words []string
		want  string
	}{
		{[]string{"pl"}, "plugin\n"},
		{[]string{"plugin", "dis"}, "disable\n"},
		{[]string{"-v", "plugin", "new", "x", "--lang", "p"}, "python\n"},
		{[]string{"plugin", "new", "--l"}, "--lang\n"},
		{[]string{"plugin", "disable", ""}, "weather\n"},
		{[]string{"settings", "set", "w"}, "weather\n"},
		{[]string{"audit", "--j"}, "--json\n"},
		{[]string{"-v", "help", "exit"}, "exit-codes\n"},
		{[]string{"completion", "f"}, "fish\n"},
		{[]string{"serve", "--log-level", "d"}, "debug\n"},
		{[]string{"policy", "set", "time__now", "o"}, "off\n"},
		{[]string{"--data-dir", ""}, ""},
	} {
		out, _, code := hearth(t, env, "", append([]string{"__complete"}, c.words...)...)
		if code != 0 || out != c.want {
			t.Fatalf("complete %q: %d %q, want %q", c.words, code, out, c.want)
		}
	}
	for _, sh := range []string{"bash", "zsh", "fish"} {
		if out, _, code := hearth(t, env, "", "completion", sh); code != 0 || !strings.Contains(out, "__complete") {
			t.Fatalf("completion %s: %d\n%s", sh, code, out)
		}
	}
	if _, _, code := hearth(t, env, "", "completion", "tcsh"); code != 2 {
		t.Fatalf("completion tcsh: %d", code)
	}

}

// TestCompletionScripts runs each shell's script in that shell, against
// this binary as hearth, and checks what a TAB after "hearth plugin
// enable " offers: the installed plugin.
func TestCompletionScripts(t *testing.T) {
	home := t.TempDir()
	if err := os.MkdirAll(filepath.Join(home, "plugins", "weather"), 0o700); err != nil {
		t.Fatal(err)
	}
	// The scripts run "hearth": this test binary behind a wrapper.
	bin := t.TempDir()
	wrapper := "#!/bin/sh\nHEARTH_TEST_MAIN=1 GORACE='" + raceOpts + "' HEARTH_HOME=" + home + " exec " + os.Args[0] + " \"$@\"\n"
	if err := os.WriteFile(filepath.Join(bin, "hearth"), []byte(wrapper), 0o700); err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct{ shell, args, prog string }{
		// bash: the function fills COMPREPLY from COMP_WORDS.
		{"bash", "--norc --noprofile -c", `
COMP_WORDS=(hearth plugin enable "")
COMP_CWORD=3
_hearth
printf '%s\n' "${COMPREPLY[@]}"
`},
		// zsh: compadd and compdef are the completion system's; stand-ins
		// print what would be offered.
		{"zsh", "-f -c", `
compdef() {}
compadd() { shift; print -l -- ${(P)1} }
_files() { print FILES }
SCRIPT
words=(hearth plugin enable "")
CURRENT=4
_hearth
`},
		// fish: complete -C asks fish what it would complete.
		{"fish", "--no-config -c", `
SCRIPT
complete -C "hearth plugin enable "
`},
	} {
		t.Run(c.shell, func(t *testing.T) {
			sh, err := exec.LookPath(c.shell)
			if err != nil {
				t.Fatalf("%s is not installed: .ci/run installs it (Debian's %s package)", c.shell, c.shell)
			}
			script, _, _ := hearth(t, nil, "", "completion", c.shell)
			prog := c.prog
			if strings.Contains(prog, "SCRIPT") {
				prog = strings.Replace(prog, "SCRIPT", script, 1)
			} else {
				prog = script + prog
			}
			cmd := exec.Command(sh, append(strings.Fields(c.args), prog)...)
			cmd.Env = []string{"PATH=" + bin + ":" + os.Getenv("PATH"), "HOME=" + t.TempDir()}
			out, err := cmd.CombinedOutput()
			if err != nil || strings.TrimSpace(string(out)) != "weather" {
				t.Fatalf("%s completion: %v %q", c.shell, err, out)
			}
		})
	}
}

// TestConventionsThroughTheDaemon: with hearth serve running, flags
// before the command, --json and refused flags behave as without it.
func TestConventionsThroughTheDaemon(t *testing.T) {
	home := t.TempDir()
	startServe(t, home, nil)
	env := []string{"HEARTH_HOME=" + home}
	if out, errOut, code := hearth(t, env, "", "-v", "policy", "set", "time__now", "ask"); code != 0 || out != "time__now: ask\n" {
		t.Fatalf("-v policy set: %d %q %q", code, out, errOut)
	}
	out, errOut, code := hearth(t, env, "", "--json", "policy")
	if code != 0 || !json.Valid([]byte(out)) || !strings.Contains(out, `"mode": "ask"`) {
		t.Fatalf("--json policy: %d %q %q", code, out, errOut)
	}
	if out, _, code := hearth(t, env, "", "audit", "--json"); code != 0 || !json.Valid([]byte(out)) {
		t.Fatalf("audit --json: %d %q", code, out)
	}
	if out, errOut, code := hearth(t, env, "", "plugin", "--json"); code != 0 || !json.Valid([]byte(out)) || !strings.Contains(out, `"id": "time"`) {
		t.Fatalf("plugin --json: %d %q %q", code, out, errOut)
	}
	if _, errOut, code := hearth(t, env, "", "plugin", "--usage"); code != 2 || !strings.Contains(errOut, "not a flag of this command") {
		t.Fatalf("plugin --usage: %d %q", code, errOut)
	}
	want, _, _ := hearth(t, nil, "", "help", "plugin")
	if out, _, code := hearth(t, env, "", "plugin", "-h"); code != 0 || out != want {
		t.Fatalf("plugin -h: %d %q", code, out)
	}
}

// TestSubcommandsSayTheirOwnHelp: subcommands with flags of their own
// (plugin new, mcp serve, mcp add) answer -h with their own usage, flags
// before the command included.
func TestSubcommandsSayTheirOwnHelp(t *testing.T) {
	env := []string{"HEARTH_HOME=" + t.TempDir()}
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"plugin", "new", "-h"}, "hearth plugin new NAME"},
		{[]string{"-v", "mcp", "serve", "-h"}, "Usage: hearth mcp serve"},
		{[]string{"--data-dir", t.TempDir(), "mcp", "login", "--help"}, "hearth mcp login"},
		{[]string{"mcp", "add", "-h"}, "hearth mcp add NAME"},
	} {
		out, errOut, code := hearth(t, env, "", c.args...)
		if code != 0 || !strings.Contains(firstLine(strings.TrimPrefix(out, "Usage:\n")), c.want) {
			t.Fatalf("%q: %d %q %q", c.args, code, out, errOut)
		}
	}
}
