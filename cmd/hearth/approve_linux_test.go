package main

import (
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/hearth-agent/hearth/sdk/llmtest"
)

// payerEnv is the environment of a hearth with the payer test plugin, its
// money tool set to ask.
func payerEnv(t *testing.T, srv *llmtest.Server) (env []string, dir string) {
	t.Helper()
	home, dir := t.TempDir(), t.TempDir()
	env = []string{"HOME=" + home, "HEARTH_HOME=" + home, "OPENAI_BASE_URL=" + srv.URL, "HEARTH_MODEL=test-model", "HEARTH_TEST_PAYER=" + dir}
	if _, errOut, code := hearth(t, env, "", "policy", "set", "payer__pay", "ask"); code != 0 {
		t.Fatalf("policy set: %q", errOut)
	}
	return env, dir
}

// startOnPTY runs hearth with args on a new pseudo-terminal.
func startOnPTY(t *testing.T, env []string, args ...string) (*exec.Cmd, func(string), *screen, chan struct{}) {
	t.Helper()
	cmd, ptmx, scr, copied := startPTY(t, env, args...)
	return cmd, typer(t, ptmx), scr, copied
}

// waitCount waits until the screen shows want n times.
func (s *screen) waitCount(t *testing.T, want string, n int) {
	t.Helper()
	s.waitUntil(t, fmt.Sprintf("%q %d times", want, n), func(shown string) bool { return strings.Count(shown, want) >= n })
}

func paid(t *testing.T, dir string) []string {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(dir, "paid"))
	if os.IsNotExist(err) {
		return nil
	}
	if err != nil {
		t.Fatal(err)
	}
	return strings.Split(strings.TrimSpace(string(b)), "\n")
}

const armed = "[y] allow once"

// A payee and an amount after a long padding are shown, first and again
// above the answer line, and the padding is shown in full, in chat and in
// ask (where the prompt goes to stderr).
func TestApprovalShowsEveryArgument(t *testing.T) {
	call := `{"note":"` + strings.Repeat("x", 3000) + `","memo":"` + strings.Repeat("m", 400) + `","to":"mallory","amount":999}`
	if !json.Valid([]byte(call)) {
		t.Fatalf("bad test arguments %s", call)
	}
	for _, mode := range []string{"chat", "ask"} {
		t.Run(mode, func(t *testing.T) {
			srv := llmtest.NewServer(t,
				llmtest.Reply{ToolCalls: []llmtest.Call{{ID: "p1", Name: "payer__pay", Arguments: call}}},
				llmtest.Reply{Text: "没有付款。"},
			)
			env, dir := payerEnv(t, srv)
			args := []string{"chat"}
			if mode == "ask" {
				args = []string{"ask", "付钱"}
			}
			cmd, send, scr, copied := startOnPTY(t, env, args...)
			if mode == "chat" {
				scr.waitFor(t, "› ")
				send("付钱\r")
			}
			scr.waitFor(t, armed)
			prompt := ansi.ReplaceAllString(scr.String(), "")
			prompt = prompt[strings.Index(prompt, "⚠"):]
			key, rest := strings.Index(prompt, "要点 key:"), strings.Index(prompt, "参数 args:")
			if key < 0 || rest < key || !strings.Contains(prompt[key:rest], `to = "mallory"`) || !strings.Contains(prompt[key:rest], "amount = 999") {
				t.Fatalf("payee and amount not shown first:\n%s", prompt)
			}
			again := strings.Index(prompt, "再看 again:")
			if again < 0 || !strings.Contains(prompt[again:], `to = "mallory"`) || !strings.Contains(prompt[again:], "amount = 999") {
				t.Fatalf("payee and amount not repeated above the answer:\n%s", prompt)
			}
			if n := strings.Count(prompt, "x"); n < 3000 {
				t.Fatalf("padding cut: %d of 3000 shown", n)
			}
			if strings.Contains(scr.String(), "\x1b]0;pwned-title") || !strings.Contains(prompt, "付款^[]0;pwned-title^G") {
				t.Fatalf("the tool's title was not neutralised:\n%q", prompt[:200])
			}
			send("n")
			scr.waitFor(t, "没有付款。")
			if mode == "chat" {
				send("\x04")
			}
			waitExit(t, cmd, scr, copied)
			if p := paid(t, dir); p != nil {
				t.Fatalf("paid: %v", p)
			}
		})
	}
}

// Invisible characters in the arguments are shown in the prompt: a payee
// "bob\u200b\u200bmallory" does not read as bobmallory, and a key
// amo\u200bunt is shown first, flagged as looking like amount.
func TestApprovalShowsHiddenCharacters(t *testing.T) {
	srv := llmtest.NewServer(t,
		llmtest.Reply{ToolCalls: []llmtest.Call{{ID: "p", Name: "payer__pay",
			Arguments: `{"memo":"lunch","to":"bob\u200b\u200bmallory","amount":1,"amo\u200bunt":999}`}}},
		llmtest.Reply{Text: "没有付款。"},
	)
	env, dir := payerEnv(t, srv)
	cmd, send, scr, copied := startOnPTY(t, env, "ask", "付钱")
	scr.waitFor(t, armed)
	prompt := ansi.ReplaceAllString(scr.String(), "")
	prompt = prompt[strings.Index(prompt, "⚠"):]
	key, rest := strings.Index(prompt, "要点 key:"), strings.Index(prompt, "参数 args:")
	if key < 0 || rest < key {
		t.Fatalf("no key fields first:\n%s", prompt)
	}
	for _, want := range []string{`to = "bob<U+200B><U+200B>mallory"`,
		"amo<U+200B>unt = 999   ⚠ the name hides characters; it looks like amount"} {
		if !strings.Contains(prompt[key:rest], want) {
			t.Errorf("%q not among the key fields:\n%s", want, prompt)
		}
	}
	if strings.ContainsRune(scr.String(), 0x200b) {
		t.Errorf("a zero-width space reached the terminal:\n%q", scr.String())
	}
	send("n")
	scr.waitFor(t, "没有付款。")
	waitExit(t, cmd, scr, copied)
	if p := paid(t, dir); p != nil {
		t.Fatalf("paid: %v", p)
	}
}

// Keys typed while a tool runs (a sentence with y and a in it) do not
// answer the approval prompt that follows.
func TestKeysTypedDuringAToolDoNotAnswer(t *testing.T) {
	srv := llmtest.NewServer(t,
		llmtest.Reply{ToolCalls: []llmtest.Call{{ID: "w", Name: "payer__wait", Arguments: `{}`}}},
		llmtest.Reply{ToolCalls: []llmtest.Call{{ID: "p", Name: "payer__pay", Arguments: `{"to":"mallory","amount":999}`}}},
		llmtest.Reply{Text: "已拒绝。"},
	)
	env, dir := payerEnv(t, srv)
	cmd, send, scr, copied := startOnPTY(t, env, "chat")
	scr.waitFor(t, "› ")
	send("先等一下再付钱\r")
	scr.waitFor(t, "→ payer__wait")
	send("yes, always pay anyway\ry") // typed while the tool runs
	if err := os.WriteFile(filepath.Join(dir, "gate"), nil, 0o600); err != nil {
		t.Fatal(err)
	}
	scr.waitFor(t, armed)
	if p := paid(t, dir); p != nil {
		t.Fatalf("keys typed before the prompt approved it: paid %v", p)
	}
	send("n")
	scr.waitFor(t, "已拒绝。")
	send("\x04")
	waitExit(t, cmd, scr, copied)
	if p := paid(t, dir); p != nil {
		t.Fatalf("paid %v", p)
	}
	if out, _, _ := hearth(t, env, "", "policy"); !strings.Contains(out, "ask (override)") {
		t.Fatalf("the money tool's mode changed:\n%s", out)
	}
}

// "a" alone cannot make a money tool run without asking: it takes the
// word "always".
func TestAlwaysForMoneyNeedsTheWord(t *testing.T) {
	pay := llmtest.Reply{ToolCalls: []llmtest.Call{{ID: "p", Name: "payer__pay", Arguments: `{"to":"bob","amount":5}`}}}
	srv := llmtest.NewServer(t, pay, llmtest.Reply{Text: "付了一次。"}, pay, llmtest.Reply{Text: "付了第二次。"})
	env, dir := payerEnv(t, srv)
	cmd, send, scr, copied := startOnPTY(t, env, "chat")
	scr.waitFor(t, "› ")
	send("付钱\r")
	scr.waitFor(t, armed)
	send("a")
	scr.waitFor(t, "Type always and press Enter")
	send("al\r") // not the word: back to the question
	scr.waitCount(t, armed, 2)
	send("y")
	scr.waitFor(t, "付了一次。")
	send("再付\r")
	scr.waitCount(t, armed, 3) // still asks: "a" did not set it to auto
	send("a")
	scr.waitCount(t, "Type always and press Enter", 2)
	send("always\r")
	scr.waitFor(t, "付了第二次。")
	send("\x04")
	waitExit(t, cmd, scr, copied)
	if p := paid(t, dir); len(p) != 2 {
		t.Fatalf("paid %v", p)
	}
	if out, _, _ := hearth(t, env, "", "policy"); !strings.Contains(out, "auto (override)") {
		t.Fatalf("always did not set the tool to auto:\n%s", out)
	}
}

// Escape sequences in the model's answer and reasoning and in a tool's
// result reach the screen neutralised.
func TestEscapeSequencesNeutralisedOnTheTerminal(t *testing.T) {
	srv := llmtest.NewServer(t,
		llmtest.Reply{ToolCalls: []llmtest.Call{{ID: "w", Name: "payer__wait", Arguments: `{}`}}},
		llmtest.Reply{Reasoning: "想\x1b[2J想", Text: "答案\x1b]52;c;cGF5IG1hbGxvcnk=\x07\x1b]0;pwned\x07完\r覆盖\u009b1A"},
	)
	home, dir := t.TempDir(), t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "gate"), nil, 0o600); err != nil {
		t.Fatal(err)
	}
	env := []string{"HOME=" + home, "HEARTH_HOME=" + home, "OPENAI_BASE_URL=" + srv.URL, "HEARTH_MODEL=test-model", "HEARTH_TEST_PAYER=" + dir}
	cmd, send, scr, copied := startOnPTY(t, env, "chat")
	scr.waitFor(t, "› ")
	send("hi\r")
	scr.waitFor(t, "覆盖")
	send("\x04")
	waitExit(t, cmd, scr, copied)
	out := scr.String()
	plain := ansi.ReplaceAllString(out, "")
	for _, bad := range []string{"\x1b]", "\x1b[2J", "\x1b[2K", "\u009b", "完\r"} {
		if strings.Contains(out, bad) {
			t.Errorf("%q reached the terminal:\n%q", bad, out)
		}
	}
	for _, want := range []string{"答案^[]52;c;cGF5IG1hbGxvcnk=^G^[]0;pwned^G完^M覆盖<U+009B>1A", "想^[[2J想", "done ^[]52;c;"} {
		if !strings.Contains(plain, want) {
			t.Errorf("%q not shown:\n%q", want, out)
		}
	}
}

// hearth audit shows what the model and plugins wrote neutralised.
func TestAuditOutputNeutralised(t *testing.T) {
	srv := llmtest.NewServer(t,
		llmtest.Reply{ToolCalls: []llmtest.Call{{ID: "e", Name: "evil\x1b]0;pwned\x07\x1b[2J", Arguments: `{}`}}},
		llmtest.Reply{Text: "ok"},
	)
	base := []string{"HEARTH_HOME=" + t.TempDir()}
	if _, errOut, code := hearth(t, append(base, "OPENAI_BASE_URL="+srv.URL, "HEARTH_MODEL=test-model"), "", "ask", "hi"); code != 0 {
		t.Fatalf("ask: %d %q", code, errOut)
	}
	out, _, code := hearth(t, base, "", "audit")
	if code != 0 || strings.Contains(out, "\x1b") || !strings.Contains(out, "evil^[]0;pwned^G^[[2J") {
		t.Fatalf("audit:\n%q", out)
	}
}
