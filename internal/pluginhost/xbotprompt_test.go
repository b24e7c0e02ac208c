//go:build unix

package pluginhost

import (
	"context"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/hearth-agent/hearth/internal/kernel"
	"github.com/hearth-agent/hearth/sdk"
	"github.com/hearth-agent/hearth/sdk/llmtest"
)

// An xbot UserPromptSubmit hook that fails refuses with a fixed text
// naming the plugin (its own error text goes only to the log); a deny
// without a message gets a default refusal; a plugin that stops reading
// its input does not block a turn: the message is refused at the hook
// deadline.
func TestXbotPromptHookRefusals(t *testing.T) {
	needProgram(t, "python3")
	f := newFixture(t, llmtest.Reply{Text: "ok"})
	f.opts.StageTimeout = 2 * time.Second // the deadline the deaf plugin is refused at
	dir, _ := filepath.Abs("testdata/xbot-deaf")
	p, err := Start(dir, &f.opts)
	if err != nil {
		t.Fatal(err)
	}
	defer p.Stop()
	ready(t, p)
	ask := func(text string) string {
		t.Helper()
		out := f.k.Ask(context.Background(), kernel.Input{Injection: sdk.Injection{Channel: "test", ChatID: "c1", Text: text}})
		if out.Err != nil {
			t.Fatalf("%s: %v", truncateText(text, 20), out.Err)
		}
		return out.Text
	}
	refused := "The plugin com.example.deaf could not check this message"
	if got := ask("fail"); !strings.Contains(got, refused) || strings.Contains(got, "hunter2") {
		t.Errorf("a failed hook answers %q", got)
	}
	if !strings.Contains(f.logs.String(), "hunter2") {
		t.Errorf("the plugin's error is not in the log")
	}
	if got := ask("quiet"); got != "The plugin com.example.deaf refused this message.\n插件 com.example.deaf 拒绝了这条消息。" {
		t.Errorf("a deny without a message answers %q", got)
	}
	if got := ask("deaf"); got != "ok" {
		t.Fatalf("an allowed message answers %q", got)
	}
	// Larger than a pipe's buffer: the write blocks on a plugin that
	// does not read.
	if got := ask(strings.Repeat("x", 1<<20)); !strings.Contains(got, refused) {
		t.Errorf("a message to a plugin not reading its input answers %q", truncateText(got, 200))
	}
	if n := len(f.srv.Requests()); n != 1 {
		t.Errorf("the model was asked %d times, want only for the allowed message", n)
	}
}
