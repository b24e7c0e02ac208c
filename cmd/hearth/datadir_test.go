//go:build unix

package main

import (
	"bytes"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/hearth-agent/hearth/sdk/llmtest"
)

// One process owns a data directory's plugins: while a chat runs, a second
// ask is refused, naming the chat's pid, even after hearth.lock is
// removed, and commands that only read or edit records keep working; once
// the chat is killed with SIGKILL, the lock is free.
func TestOneProcessOwnsTheDataDirectory(t *testing.T) {
	srv := llmtest.NewServer(t, llmtest.Reply{Text: "ok"})
	home := t.TempDir()
	env := []string{"OPENAI_BASE_URL=" + srv.URL, "HEARTH_MODEL=test-model", "HEARTH_HOME=" + home}
	writeManifest(t, filepath.Join(home, "plugins", "weather"), // a plugin to disable and enable below
		fmt.Sprintf(`{"id": "weather", "command": [%q], "env": {"HEARTH_TEST_SERVE_WEATHER": "1"}}`, os.Args[0]))

	chat := exec.Command(os.Args[0], "chat")
	chat.Env = append([]string{"HEARTH_TEST_MAIN=1", childRace, "PATH=" + os.Getenv("PATH"), "HOME=" + t.TempDir()}, env...)
	stdin, err := chat.StdinPipe() // held open: the chat waits for a line
	if err != nil {
		t.Fatal(err)
	}
	defer stdin.Close()
	var chatErr bytes.Buffer
	chat.Stderr = &chatErr
	if err := chat.Start(); err != nil {
		t.Fatal(err)
	}
	defer chat.Process.Kill()
	lock := filepath.Join(home, "hearth.lock")
	// Another process takes the lock; only the lock file tells: poll it.
	deadline := time.Now().Add(30 * time.Second)
	for {
		b, _ := os.ReadFile(lock)
		if strings.TrimSpace(string(b)) == strconv.Itoa(chat.Process.Pid) {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("the chat never took the lock (stderr %q)", chatErr.String())
		}
		time.Sleep(10 * time.Millisecond)
	}

	stdout, stderr, code := hearth(t, env, "", "ask", "hi")
	want := fmt.Sprintf("another Hearth (pid %d) is using %s", chat.Process.Pid, home)
	if code == 0 || stdout != "" || !strings.Contains(stderr, want) || !strings.Contains(stderr, fmt.Sprintf("另一个 Hearth（pid %d）", chat.Process.Pid)) {
		t.Fatalf("second ask: exit %d, stdout %q, stderr %q; want refused with %q", code, stdout, stderr, want)
	}
	// Removed, taken for a stale lock: the chat still owns the directory.
	if err := os.Remove(lock); err != nil {
		t.Fatal(err)
	}
	wantGone := want
	if runtime.GOOS != "linux" {
		wantGone = "another Hearth (pid unknown) is using " + home // only Linux names the holder of a lock whose file is gone
	}
	if stdout, stderr, code := hearth(t, env, "", "ask", "hi"); code == 0 || stdout != "" || !strings.Contains(stderr, wantGone) {
		t.Fatalf("ask after hearth.lock was removed: exit %d, stdout %q, stderr %q; want refused with %q", code, stdout, stderr, wantGone)
	}
	if n := len(srv.Requests()); n != 0 {
		t.Fatalf("the refused ask reached the model (%d requests)", n)
	}
	for _, args := range [][]string{
		{"policy"}, {"policy", "set", "time__now", "ask"}, {"audit"},
		{"settings", "set", "time", "retries", "3"}, {"settings"},
		{"plugin"}, {"plugin", "disable", "weather"}, {"plugin", "enable", "weather"},
	} {
		t.Run(strings.Join(args, " "), func(t *testing.T) {
			if out, errOut, code := hearth(t, env, "", args...); code != 0 {
				t.Errorf("%v while a chat runs: exit %d, %q %q", args, code, out, errOut)
			}
		})
	}
	out, errOut, code := hearth(t, env, "", "tools")
	if code != 0 || !strings.Contains("\n"+out, "\ntime__now\t") || !strings.Contains(errOut, want) {
		t.Errorf("tools while a chat runs: exit %d, %q %q", code, out, errOut)
	}

	if err := chat.Process.Signal(syscall.SIGKILL); err != nil {
		t.Fatal(err)
	}
	chat.Wait()
	if stdout, stderr, code := hearth(t, env, "", "ask", "hi"); code != 0 || stdout != "ok\n" {
		t.Fatalf("ask after the chat was killed: exit %d, stdout %q, stderr %q", code, stdout, stderr)
	}
}

// A data directory left readable by others is made private, with a
// warning printed once; the database Hearth creates is private whatever
// the umask.
func TestLooseDataDirectoryIsTightened(t *testing.T) {
	old := syscall.Umask(0)
	defer syscall.Umask(old)
	home := filepath.Join(t.TempDir(), "data")
	if err := os.Mkdir(home, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(home, "config.json"), []byte(`{}`), 0o644); err != nil {
		t.Fatal(err)
	}
	env := []string{"HEARTH_HOME=" + home}
	_, stderr, code := hearth(t, env, "", "policy")
	if code != 0 || strings.Count(stderr, "made it private") != 2 || !strings.Contains(stderr, "0755 -> 0700") {
		t.Fatalf("first run: exit %d, stderr %q", code, stderr)
	}
	if _, stderr, _ := hearth(t, env, "", "policy"); strings.Contains(stderr, "private") {
		t.Fatalf("warned again: %q", stderr)
	}
	for name, want := range map[string]os.FileMode{"": 0o700, "config.json": 0o600, "hearth.db": 0o600, "hearth.db-wal": 0o600,
		"hearth.db-shm": 0o600, "hearth.log": 0o600, "hearth.lock": 0o600} {
		fi, err := os.Stat(filepath.Join(home, name))
		if os.IsNotExist(err) && name != "" && name != "hearth.db" {
			continue // the WAL is gone after a clean close; only commands that run plugins lock
		}
		if err != nil {
			t.Fatal(err)
		}
		if got := fi.Mode().Perm(); got != want {
			t.Errorf("%q: mode %04o, want %04o", name, got, want)
		}
	}
}
