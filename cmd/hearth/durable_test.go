package main

import (
	"context"
	"database/sql"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/hearth-agent/hearth/internal/store"
	"github.com/hearth-agent/hearth/sdk"
	"github.com/hearth-agent/hearth/sdk/llmtest"
)

// slowPlugin has a write tool that finishes at once (slow__note) and one
// that runs until dir/release exists (slow__wait), creating dir/started
// when it begins.
func slowPlugin(dir string) sdk.NewPlugin {
	return func(name string, _ map[string]any) (sdk.Plugin, error) {
		return &slow{name: name, dir: dir}, nil
	}
}

type slow struct{ name, dir string }

func (p *slow) Name() string { return p.name }
func (p *slow) Stop() error  { return nil }
func (p *slow) Start(s *sdk.PluginSDK) error {
	if err := s.RegisterTool("note", sdk.ToolDef{Description: "write a note", Effect: sdk.EffectWrite},
		func(map[string]any) (any, error) {
			return "noted", os.WriteFile(filepath.Join(p.dir, "noted"), nil, 0o600)
		}); err != nil {
		return err
	}
	return s.RegisterToolContext("wait", sdk.ToolDef{Description: "wait", Effect: sdk.EffectRead, Timeout: time.Hour},
		func(ctx context.Context, _ *sdk.ToolContext, _ map[string]any) (any, error) {
			if err := os.WriteFile(filepath.Join(p.dir, "started"), nil, 0o600); err != nil {
				return nil, err
			}
			for ctx.Err() == nil { // runs inside hearth; the test's cue comes through a file
				if _, err := os.Stat(filepath.Join(p.dir, "release")); err == nil {
					return "released", nil
				}
				time.Sleep(10 * time.Millisecond)
			}
			return nil, ctx.Err()
		})
}

// waitFor polls cond (another process's progress, seen through files)
// until it holds or the test's time is nearly up.
func waitFor(t *testing.T, what string, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(30 * time.Second)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatalf("timed out waiting for %s", what)
		}
		time.Sleep(10 * time.Millisecond)
	}
}

// Killed with SIGKILL while a tool runs, Hearth keeps what the user said,
// the tool exchange that finished, and the audit rows of the finished
// write and of the call that had started; after a restart the history
// closes the turn as interrupted.
func TestKilledMidTurnKeepsWhatWasDone(t *testing.T) {
	home, dir := t.TempDir(), t.TempDir()
	srv := llmtest.NewServer(t,
		llmtest.Reply{ToolCalls: []llmtest.Call{
			{ID: "n", Name: "slow__note", Arguments: `{}`},
			{ID: "w", Name: "slow__wait", Arguments: `{}`},
		}},
	)
	env := []string{"HEARTH_TEST_MAIN=1", childRace, "PATH=" + os.Getenv("PATH"), "HOME=" + t.TempDir(),
		"HEARTH_HOME=" + home, "OPENAI_BASE_URL=" + srv.URL, "HEARTH_MODEL=test-model", "HEARTH_TEST_SLOW_DIR=" + dir}
	cmd := exec.Command(os.Args[0], "ask", "--session", "s1", "记下来，然后等着")
	cmd.Env = env
	var stderr strings.Builder
	cmd.Stderr = &stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	killed := false
	t.Cleanup(func() {
		if !killed {
			cmd.Process.Kill()
			cmd.Wait()
		}
	})

	defer func() {
		if t.Failed() && !killed {
			cmd.Process.Kill()
			cmd.Wait()
			killed = true
			t.Logf("hearth's stderr:\n%s", stderr.String())
		}
	}()
	waitFor(t, "the slow call to start", func() bool {
		_, err := os.Stat(filepath.Join(dir, "started"))
		return err == nil
	})
	// Hearth has opened (and migrated) the database by now.
	st, err := store.Open(context.Background(), home)
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	audit := func() []store.AuditEntry {
		e, _ := st.Audit(context.Background(), store.AuditQuery{})
		return e
	}
	has := func(entries []store.AuditEntry, tool, outcome string) bool {
		for _, e := range entries {
			if e.Tool == tool && e.Outcome == outcome {
				return true
			}
		}
		return false
	}
	waitFor(t, "the note's outcome in the audit log", func() bool { return has(audit(), "slow__note", "ok") })
	if err := cmd.Process.Kill(); err != nil {
		t.Fatal(err)
	}
	killed = true
	cmd.Wait()

	entries := audit()
	if !has(entries, "slow__note", "started") || !has(entries, "slow__note", "ok") || !has(entries, "slow__wait", "started") {
		t.Fatalf("audit after the kill: %+v", entries)
	}
	if has(entries, "slow__wait", "ok") {
		t.Fatal("the slow call is recorded as finished")
	}

	srv.Push(llmtest.Reply{Text: "上一轮被中断了。"})
	cmd = exec.Command(os.Args[0], "ask", "--session", "s1", "刚才怎么了？")
	cmd.Env = env
	out, err := cmd.Output()
	var ee *exec.ExitError
	if errors.As(err, &ee) {
		t.Fatalf("restart: %v\n%s", err, ee.Stderr)
	}
	if err != nil || string(out) != "上一轮被中断了。\n" {
		t.Fatalf("restart: %v %q", err, out)
	}
	msgs := srv.Requests()[1].Messages
	var got []string
	for _, m := range msgs[1:] {
		switch m["role"] {
		case "tool":
			got = append(got, "tool "+m["tool_call_id"].(string)+": "+m["content"].(string))
		case "assistant":
			c, _ := m["content"].(string)
			calls, _ := m["tool_calls"].([]any)
			got = append(got, "assistant "+c+" "+strings.Repeat("+call", len(calls)))
		case "user":
			got = append(got, "user "+m["content"].(string))
		}
	}
	want := []string{
		"user 记下来，然后等着",
		"assistant  +call+call",
		"tool n: noted",
		"tool w: ",
		"assistant [interrupted: this turn was stopped before it finished] ",
		"user 刚才怎么了？",
	}
	if len(got) != len(want) {
		t.Fatalf("history sent after the restart:\n%s", strings.Join(got, "\n"))
	}
	for i := range want {
		if !strings.HasPrefix(got[i], want[i]) {
			t.Fatalf("history sent after the restart, message %d:\n%s", i, strings.Join(got, "\n"))
		}
	}
	if !strings.Contains(got[3], "interrupted") {
		t.Fatalf("the slow call's result: %s", got[3])
	}
}

// A turn that cannot be stored is a failure: `hearth ask` says so and
// exits non-zero, whether the user's message or the answer could not be
// written. The database refuses through a trigger, as a full disk would.
func TestAskFailsWhenTheTurnCannotBeSaved(t *testing.T) {
	home := t.TempDir()
	srv := llmtest.NewServer(t, llmtest.Reply{Text: "first"})
	env := []string{"OPENAI_BASE_URL=" + srv.URL, "HEARTH_MODEL=test-model", "HEARTH_HOME=" + home}
	if out, errOut, code := hearth(t, env, "", "ask", "hi"); code != 0 || out != "first\n" {
		t.Fatalf("first ask: %d %q %q", code, out, errOut)
	}
	db, err := sql.Open("sqlite", "file:"+filepath.Join(home, store.FileName))
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	refuse := func(when string) {
		t.Helper()
		if _, err := db.Exec(`DROP TRIGGER IF EXISTS full_disk`); err != nil {
			t.Fatal(err)
		}
		if _, err := db.Exec(`CREATE TRIGGER full_disk BEFORE INSERT ON messages WHEN ` + when +
			` BEGIN SELECT RAISE(FAIL, 'database or disk is full'); END`); err != nil {
			t.Fatal(err)
		}
	}

	refuse("1")
	out, errOut, code := hearth(t, env, "", "ask", "hello")
	if code == 0 || out != "" || !strings.Contains(errOut, "could not be saved") || !strings.Contains(errOut, "disk is full") {
		t.Fatalf("message not saved: exit %d, stdout %q, stderr %q", code, out, errOut)
	}
	if n := len(srv.Requests()); n != 1 {
		t.Fatalf("the model was called (%d requests) for a message that could not be saved", n)
	}

	refuse("NEW.role = 'assistant'")
	srv.Push(llmtest.Reply{Text: "an answer nobody will remember"})
	_, errOut, code = hearth(t, env, "", "ask", "hello again")
	if code == 0 || !strings.Contains(errOut, "could not be saved") {
		t.Fatalf("answer not saved: exit %d, stderr %q", code, errOut)
	}
}

// A provider's "context length exceeded" is explained as such, not as a
// wrong model name.
func TestAskContextTooLongIsExplained(t *testing.T) {
	tooLong := llmtest.Reply{Status: 400, ErrorMessage: "This model's maximum context length is 65536 tokens. Please reduce the length of the messages."}
	srv := llmtest.NewServer(t, tooLong, tooLong)
	env := []string{"OPENAI_BASE_URL=" + srv.URL, "HEARTH_HOME=" + t.TempDir(), "HEARTH_MODEL=deepseek-chat"}
	_, errOut, code := hearth(t, env, "", "ask", "hi")
	if code != 1 || !strings.Contains(errOut, "too long for the model's context window") || strings.Contains(errOut, "may not exist") {
		t.Fatalf("exit %d, stderr %q", code, errOut)
	}
}
