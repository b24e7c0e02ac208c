package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/hearth-agent/hearth/internal/redact"
)

// hearth knowledge, alone and through a running daemon: the same
// commands, the same output.
func TestKnowledgeCommand(t *testing.T) {
	for _, viaDaemon := range []bool{false, true} {
		name := "alone"
		if viaDaemon {
			name = "daemon"
		}
		t.Run(name, func(t *testing.T) {
			home, work := t.TempDir(), t.TempDir()
			kdir := filepath.Join(home, "knowledge")
			write := func(rel, text string) {
				p := filepath.Join(kdir, filepath.FromSlash(rel))
				os.MkdirAll(filepath.Dir(p), 0o700)
				if err := os.WriteFile(p, []byte(text), 0o600); err != nil {
					t.Fatal(err)
				}
			}
			write("recipes/红烧肉.md", "# 红烧肉\n五花肉 冰糖 生抽 老抽")
			write("wifi.txt", "Home WiFi\nThe router password is on the back.")
			if viaDaemon {
				startServe(t, home, nil)
			}
			env := []string{"HEARTH_HOME=" + home}
			run := func(stdin string, args ...string) string {
				t.Helper()
				out, errOut, code := hearthIn(t, work, env, stdin, append([]string{"knowledge"}, args...)...)
				if code != 0 {
					t.Fatalf("knowledge %q: %d %s %s", args, code, out, errOut)
				}
				return out
			}
			if got := run("", "search", "五花肉", "怎么做"); !strings.HasPrefix(got, "1\t") || !strings.Contains(got, "\trecipes/红烧肉.md\t红烧肉\n") {
				t.Fatalf("search = %q", got)
			}
			var hits []map[string]any
			if err := json.Unmarshal([]byte(run("", "search", "router password", "-k", "1", "--json")), &hits); err != nil ||
				len(hits) != 1 || hits[0]["file"] != "wifi.txt" || hits[0]["rank"] != 1.0 || hits[0]["title"] != "Home WiFi" {
				t.Fatalf("search --json = %v %v", hits, err)
			}
			os.WriteFile(filepath.Join(work, "soup.md"), []byte("# Soup\nwinter melon and ribs"), 0o600)
			if got := run("", "add", "recipes/soup", "soup.md"); got != "added recipes/soup\n" {
				t.Fatalf("add from a file = %q", got)
			}
			// Off a terminal, stdin is read without a word.
			if out, errOut, code := hearthIn(t, work, env, "# Group rules\nquiet after ten", "knowledge", "add", "rules", "--scope", "chat:tg/group:1"); code != 0 || out != "added rules\n" || errOut != "" {
				t.Fatalf("add from stdin to a scope = %d %q %q", code, out, errOut)
			}
			if got := run("", "list"); got != "recipes/soup\nrecipes/红烧肉\nwifi\n" {
				t.Fatalf("list = %q", got)
			}
			if got := run("", "list", "--all"); got != "recipes/soup\nrecipes/红烧肉\nrules\t(chat:tg/group:1)\nwifi\n" {
				t.Fatalf("list --all = %q", got)
			}
			if got := run("", "search", "quiet"); got != "" {
				t.Fatalf("a scope's entry found in global: %q", got)
			}
			if got := run("", "search", "quiet", "--all"); !strings.Contains(got, "\t.scopes/chat%3Atg%2Fgroup%3A1/rules.md\tGroup rules\n") {
				t.Fatalf("search --all = %q", got)
			}
			if got := run("", "show", "recipes/soup"); got != "# Soup\nwinter melon and ribs" {
				t.Fatalf("show = %q", got)
			}
			if got := run("", "rm", "rules", "--scope", "chat:tg/group:1"); got != "removed rules\n" {
				t.Fatalf("rm = %q", got)
			}
			if _, errOut, code := hearthIn(t, work, env, "", "knowledge", "rm", "rules"); code != 1 || !strings.Contains(errOut, "no such knowledge entry") {
				t.Fatalf("rm missing = %d %q", code, errOut)
			}
			if _, errOut, code := hearthIn(t, work, env, "", "knowledge", "add", "../escape", "soup.md"); code != 2 || !strings.Contains(errOut, "invalid knowledge name") {
				t.Fatalf("add ../escape = %d %q", code, errOut)
			}
			if _, _, code := hearthIn(t, work, env, "", "knowledge", "search", "x", "--scope", "nowhere"); code != 2 {
				t.Fatalf("a bad scope = %d", code)
			}
			// A usage error says what was wrong first, then the usage.
			for _, c := range []struct {
				args []string
				want string
			}{
				{[]string{"frob"}, `hearth knowledge: unknown subcommand "frob"` + "\n\nUsage:"},
				{[]string{"show"}, "hearth knowledge show: wrong arguments\n\nUsage:"},
				{[]string{"list", "x"}, "hearth knowledge list: wrong arguments\n\nUsage:"},
				{[]string{"add", "a", "b", "c"}, "hearth knowledge add: wrong arguments\n\nUsage:"},
			} {
				out, errOut, code := hearthIn(t, work, env, "", append([]string{"knowledge"}, c.args...)...)
				if code != 2 || out != "" || !strings.HasPrefix(errOut, c.want) {
					t.Errorf("knowledge %q = %d %q %q, want exit 2 and stderr starting %q", c.args, code, out, errOut, c.want)
				}
			}
		})
	}
}

// What looks like a key in an entry is masked by knowledge show and in
// search's titles, as hearth memory masks it, unless --reveal.
func TestKnowledgeShowMasksKeys(t *testing.T) {
	const key = "sk-proj-Abcdefgh12345678Zyx"
	home, work := t.TempDir(), t.TempDir()
	env := []string{"HEARTH_HOME=" + home}
	text := "# relay " + key + "\nThe relay's API key is " + key + " (from the dashboard).\n"
	if out, errOut, code := hearthIn(t, work, env, text, "knowledge", "add", "relay"); code != 0 {
		t.Fatalf("add: %d %q %q", code, out, errOut)
	}
	for _, args := range [][]string{{"show", "relay"}, {"show", "--json", "relay"}, {"search", "relay", "dashboard"}, {"search", "--json", "relay"}, {"list", "--json"}} {
		out, errOut, code := hearthIn(t, work, env, "", append([]string{"knowledge"}, args...)...)
		if code != 0 || strings.Contains(out, key) || !strings.Contains(out, "relay") {
			t.Errorf("knowledge %q: %d %q %q", args, code, out, errOut)
		}
		if args[0] == "show" && !strings.Contains(out, "The relay's API key is ****8Zyx (from the dashboard).") {
			t.Errorf("knowledge %q masked more than the key: %q", args, out)
		}
	}
	if out, _, code := hearthIn(t, work, env, "", "knowledge", "show", "--reveal", "relay"); code != 0 || out != text {
		t.Errorf("show --reveal: %d %q", code, out)
	}
	// The same masker as hearth memory's.
	if out, _, _ := hearthIn(t, work, env, "", "knowledge", "show", "relay"); out != redact.KeyLike(text) {
		t.Errorf("show = %q, want %q", out, redact.KeyLike(text))
	}
}
