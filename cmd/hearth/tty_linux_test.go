package main

import (
	"fmt"
	"os"
	"os/exec"
	"regexp"
	"strings"
	"syscall"
	"testing"
	"time"

	"golang.org/x/sys/unix"

	"github.com/hearth-agent/hearth/sdk/llmtest"
)

// openPTY returns a pseudo-terminal pair.
func openPTY(t *testing.T) (ptmx, pts *os.File) {
	t.Helper()
	ptmx, err := os.OpenFile("/dev/ptmx", os.O_RDWR|syscall.O_NOCTTY, 0)
	if err != nil {
		t.Skipf("no pseudo-terminals here: %v", err)
	}
	if err := unix.IoctlSetPointerInt(int(ptmx.Fd()), unix.TIOCSPTLCK, 0); err != nil {
		t.Fatal(err)
	}
	n, err := unix.IoctlGetInt(int(ptmx.Fd()), unix.TIOCGPTN)
	if err != nil {
		t.Fatal(err)
	}
	pts, err = os.OpenFile(fmt.Sprintf("/dev/pts/%d", n), os.O_RDWR|syscall.O_NOCTTY, 0)
	if err != nil {
		t.Fatal(err)
	}
	if err := unix.IoctlSetWinsize(int(pts.Fd()), unix.TIOCSWINSZ, &unix.Winsize{Row: 40, Col: 100}); err != nil {
		t.Fatal(err)
	}
	return ptmx, pts
}

// startChat runs `hearth chat` on a new pseudo-terminal.
func startChat(t *testing.T, env ...string) (*exec.Cmd, *os.File, *screen, chan struct{}) {
	t.Helper()
	return startPTY(t, env, "chat")
}

// startPTY runs hearth with args on a new pseudo-terminal; what it shows
// is copied to the screen until copied is closed.
func startPTY(t *testing.T, env []string, args ...string) (cmd *exec.Cmd, ptmx *os.File, scr *screen, copied chan struct{}) {
	t.Helper()
	ptmx, pts := openPTY(t)
	t.Cleanup(func() { ptmx.Close() })
	cmd = exec.Command(os.Args[0], args...)
	cmd.Env = append([]string{"HEARTH_TEST_MAIN=1", childRace, "TERM=xterm"}, env...)
	cmd.Stdin, cmd.Stdout, cmd.Stderr = pts, pts, pts
	cmd.SysProcAttr = &syscall.SysProcAttr{Setsid: true, Setctty: true, Ctty: 0}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	pts.Close()
	scr = &screen{}
	copied = make(chan struct{})
	go func() { defer close(copied); _, _ = ioCopy(scr, ptmx) }()
	return cmd, ptmx, scr, copied
}

// typer returns a function that types s into the terminal.
func typer(t *testing.T, ptmx *os.File) func(s string) {
	return func(s string) {
		t.Helper()
		if _, err := ptmx.Write([]byte(s)); err != nil {
			t.Fatal(err)
		}
	}
}

func waitExit(t *testing.T, cmd *exec.Cmd, scr *screen, copied chan struct{}) {
	t.Helper()
	done := make(chan error, 1)
	go func() { done <- cmd.Wait() }()
	select {
	case err := <-done:
		if err != nil {
			t.Fatalf("chat exited with %v:\n%s", err, scr.String())
		}
	case <-time.After(30 * time.Second):
		cmd.Process.Kill()
		t.Fatalf("chat did not exit on Ctrl-D:\n%s", scr.String())
	}
	<-copied
}

func TestInjectedAnswerShownAboveTheTypedMessage(t *testing.T) {
	srv := llmtest.NewServer(t,
		llmtest.Reply{ToolCalls: []llmtest.Call{{Name: "pinger__later", Arguments: `{}`}}},
		llmtest.Reply{Text: "好的，稍后提醒。"},
		llmtest.Reply{Text: "叮！提醒时间到。"},
		llmtest.Reply{Text: "收到。"},
	)
	home := t.TempDir()
	trigger := home + "/ping"
	cmd, ptmx, scr, copied := startChat(t, "HOME="+home, "HEARTH_HOME="+home, "OPENAI_BASE_URL="+srv.URL, "HEARTH_MODEL=test-model", "HEARTH_TEST_PING_FILE="+trigger)
	send := typer(t, ptmx)
	scr.waitFor(t, "› ")
	send("提醒我\r")
	scr.waitFor(t, "好的，稍后提醒。")
	send("部分")
	scr.waitFor(t, "› 部分")
	if err := os.WriteFile(trigger, nil, 0o600); err != nil {
		t.Fatal(err)
	}
	scr.waitFor(t, "叮！提醒时间到。")
	// The typed text is drawn again below the notification (in a write
	// of its own, maybe), and typing goes on.
	scr.waitUntil(t, "the message redrawn after the notification", func(shown string) bool {
		return strings.Contains(shown[strings.LastIndex(shown, "叮！提醒时间到。"):], "› 部分")
	})
	send("输入\r")
	scr.waitFor(t, "收到。")
	send("\x04")
	waitExit(t, cmd, scr, copied)
	reqs := srv.Requests()
	if len(reqs) != 4 {
		t.Fatalf("%d requests", len(reqs))
	}
	if got := reqs[2].Messages[len(reqs[2].Messages)-2]["content"]; got != "[message from plugin pinger] ping" {
		t.Fatalf("injected request: %v", got)
	}
	if got := reqs[3].Messages[len(reqs[3].Messages)-2]["content"]; got != "部分输入" {
		t.Fatalf("typed message %q", got)
	}
	if !strings.Contains(ansi.ReplaceAllString(scr.String(), ""), "[pinger] 叮！提醒时间到。") {
		t.Fatalf("notification not labelled:\n%s", scr.String())
	}
}

func TestInteractiveChatOnATerminal(t *testing.T) {
	srv := llmtest.NewServer(t,
		llmtest.Reply{Reasoning: "想一想", Text: "收到两行。"},
		llmtest.Reply{Text: "第二条。"},
	)
	home := t.TempDir()
	cmd, ptmx, scr, copied := startChat(t, "HOME="+home, "HEARTH_HOME="+home, "OPENAI_BASE_URL="+srv.URL, "HEARTH_MODEL=test-model")
	send := typer(t, ptmx)
	scr.waitFor(t, "› ")
	// A paste of two lines arrives as one message; Enter sends it.
	send("\x1b[200~第一行\n第二行\x1b[201~\r")
	scr.waitFor(t, "收到两行。")
	// Line editing: type "wrld", move left three, insert "o", then Home and "hello ".
	send("wrld\x1b[D\x1b[D\x1b[Do\x1b[Hhello \r")
	scr.waitFor(t, "第二条。")
	send("\x04") // Ctrl-D quits
	waitExit(t, cmd, scr, copied)

	reqs := srv.Requests()
	if len(reqs) != 2 {
		t.Fatalf("%d requests", len(reqs))
	}
	user := func(r llmtest.Request) any { return r.Messages[len(r.Messages)-2]["content"] }
	if got := user(reqs[0]); got != "第一行\n第二行" {
		t.Fatalf("pasted message %q", got)
	}
	if got := user(reqs[1]); got != "hello world" {
		t.Fatalf("edited line %q", got)
	}
	if !strings.Contains(ansi.ReplaceAllString(scr.String(), ""), "💭 想一想") {
		t.Fatalf("reasoning not shown:\n%s", scr.String())
	}
	hist, err := os.ReadFile(home + "/chat_history")
	if err != nil || !strings.Contains(string(hist), `"第一行\n第二行"`) {
		t.Fatalf("history file %q (%v)", hist, err)
	}
}

var ansi = regexp.MustCompile(`\x1b\[[0-9;?]*[a-zA-Z]`)

func ioCopy(dst *screen, src *os.File) (int64, error) {
	buf := make([]byte, 4096)
	var n int64
	for {
		k, err := src.Read(buf)
		if k > 0 {
			dst.Write(buf[:k])
			n += int64(k)
		}
		if err != nil {
			return n, err
		}
	}
}

func TestApprovalPromptOnTheTerminal(t *testing.T) {
	srv := llmtest.NewServer(t,
		llmtest.Reply{ToolCalls: []llmtest.Call{{ID: "t1", Name: "time__now", Arguments: `{"zone":"Asia/Shanghai"}`}}},
		llmtest.Reply{Text: "批准后查到了。"},
		llmtest.Reply{ToolCalls: []llmtest.Call{{ID: "t2", Name: "time__now", Arguments: `{}`}}},
		llmtest.Reply{Text: "被拒绝了。"},
	)
	home := t.TempDir()
	env := []string{"HOME=" + home, "HEARTH_HOME=" + home, "OPENAI_BASE_URL=" + srv.URL, "HEARTH_MODEL=test-model"}
	if _, errOut, code := hearth(t, env, "", "policy", "set", "time__now", "ask"); code != 0 {
		t.Fatalf("policy set: %q", errOut)
	}
	cmd, ptmx, scr, copied := startChat(t, env...)
	send := typer(t, ptmx)
	scr.waitFor(t, "› ")
	send("几点了\r")
	scr.waitFor(t, "[y] allow once")
	if !strings.Contains(scr.String(), "当前时间 (time__now) · read") || !strings.Contains(scr.String(), `zone = "Asia/Shanghai"`) {
		t.Fatalf("prompt:\n%s", scr.String())
	}
	send("y")
	scr.waitFor(t, "批准后查到了。")
	send("再查一次\r")
	scr.waitFor(t, "参数 args:   {}")
	scr.waitCount(t, "[y] allow once", 2)
	send("n")
	scr.waitFor(t, "被拒绝了。")
	send("\x04")
	waitExit(t, cmd, scr, copied)
	reqs := srv.Requests()
	if got := reqs[1].Messages[len(reqs[1].Messages)-1]; got["tool_call_id"] != "t1" || !strings.Contains(got["content"].(string), "Asia/Shanghai") {
		t.Fatalf("approved call: %v", reqs[1].Messages)
	}
	var denied string
	for _, m := range reqs[3].Messages {
		if m["role"] == "tool" && m["tool_call_id"] == "t2" {
			denied = m["content"].(string)
		}
	}
	if !strings.Contains(denied, "refused") {
		t.Fatalf("denied call: %q", denied)
	}
}

// Keys typed while an answer streams are kept for the next message, Enter
// included, and are not echoed into the answer.
func TestTypeAheadWhileAnswering(t *testing.T) {
	srv := llmtest.NewServer(t,
		llmtest.Reply{Text: "一个慢慢出来的回答。", ChunkDelay: 150 * time.Millisecond},
		llmtest.Reply{Text: "第二个回答。"},
	)
	home := t.TempDir()
	cmd, ptmx, scr, copied := startChat(t, "HOME="+home, "HEARTH_HOME="+home, "OPENAI_BASE_URL="+srv.URL, "HEARTH_MODEL=test-model")
	send := typer(t, ptmx)
	scr.waitFor(t, "› ")
	send("first\r")
	scr.waitFor(t, "一个")
	send("second\r") // typed while the answer is still streaming
	scr.waitFor(t, "第二个回答。")
	send("\x04")
	waitExit(t, cmd, scr, copied)
	reqs := srv.Requests()
	if got := reqs[1].Messages[len(reqs[1].Messages)-2]["content"]; got != "second" {
		t.Fatalf("typed-ahead message %q", got)
	}
	answer := scr.String()[strings.Index(scr.String(), "一个"):strings.Index(scr.String(), "回答。")]
	if strings.Contains(answer, "second") {
		t.Fatalf("typed-ahead keys echoed into the answer: %q", answer)
	}
}
