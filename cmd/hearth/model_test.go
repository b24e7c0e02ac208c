package main

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/hearth-agent/hearth/sdk/llmtest"
)

// A source of config.json with a custom base URL and no model is refused
// at load, naming the source and what to add; nothing is sent with
// "model": "". Naming the model (HEARTH_MODEL here) makes it work.
func TestSourceWithoutModelIsRefused(t *testing.T) {
	srv := llmtest.NewServer(t, llmtest.Reply{Text: "ok"})
	home := t.TempDir()
	cfg := fmt.Sprintf(`{"sources": {"local": {"base_url": %q}}}`, srv.URL)
	if err := os.WriteFile(filepath.Join(home, "config.json"), []byte(cfg), 0o600); err != nil {
		t.Fatal(err)
	}
	env := []string{"HEARTH_HOME=" + home}
	out, errOut, code := hearth(t, env, "", "ask", "hi")
	if code != 1 || out != "" || !strings.Contains(errOut, fmt.Sprintf(`source "local" (%s): no model`, srv.URL)) ||
		!strings.Contains(errOut, `add "model": "NAME" to the source in config.json`) {
		t.Fatalf("ask: %d %q %q", code, out, errOut)
	}
	if n := len(srv.Requests()); n != 0 {
		t.Fatalf("%d requests reached the provider", n)
	}
	if out, errOut, code := hearth(t, append(env, "HEARTH_MODEL=qwen3:8b"), "", "ask", "hi"); code != 0 || out != "ok\n" {
		t.Fatalf("ask with HEARTH_MODEL: %d %q %q", code, out, errOut)
	}
	if got := srv.Requests()[0].Model; got != "qwen3:8b" {
		t.Fatalf("model sent: %q", got)
	}
}

// OPENAI_BASE_URL on a host whose default model Hearth does not know,
// without HEARTH_MODEL or --model, is refused the same way, naming the
// variable to set; --model makes it work.
func TestEnvSourceWithoutModelIsRefused(t *testing.T) {
	srv := llmtest.NewServer(t, llmtest.Reply{Text: "ok"})
	env := []string{"HEARTH_HOME=" + t.TempDir(), "OPENAI_BASE_URL=" + srv.URL, "OPENAI_API_KEY=sk-env-0123456789"}
	for _, args := range [][]string{{"ask", "hi"}, {"chat"}} {
		out, errOut, code := hearth(t, env, "", args...)
		if code != 1 || out != "" || !strings.Contains(errOut, "OPENAI_BASE_URL "+srv.URL+": no model") ||
			!strings.Contains(errOut, "set HEARTH_MODEL") || strings.Contains(errOut, "sk-env-0123456789") {
			t.Fatalf("%v: %d %q %q", args, code, out, errOut)
		}
	}
	if n := len(srv.Requests()); n != 0 {
		t.Fatalf("%d requests reached the provider", n)
	}
	if out, errOut, code := hearth(t, env, "", "ask", "--model", "qwen3:8b", "hi"); code != 0 || out != "ok\n" {
		t.Fatalf("ask --model: %d %q %q", code, out, errOut)
	}
	if got := srv.Requests()[0].Model; got != "qwen3:8b" {
		t.Fatalf("model sent: %q", got)
	}
}
