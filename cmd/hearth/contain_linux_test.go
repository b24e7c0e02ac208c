//go:build linux

package main

import (
	"bytes"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/hearth-agent/hearth/examples/homeagent/weather"
	"github.com/hearth-agent/hearth/sdk/llmtest"
	"github.com/hearth-agent/hearth/sdk/pluginrpc"
)

// runTestChild runs the processes of the containment test: a plugin that
// leaves a grandchild and a setsid'd, double-forked escapee behind, and
// those two.
func runTestChild() {
	data := os.Getenv("HEARTH_PLUGIN_DATA")
	start := func(mode string, attr *syscall.SysProcAttr) *exec.Cmd {
		c := exec.Command(os.Args[0])
		c.Env = []string{"HEARTH_TEST_CHILD_MODE=" + mode, "HEARTH_PLUGIN_DATA=" + data}
		c.SysProcAttr = attr
		if err := c.Start(); err != nil {
			panic(err)
		}
		return c
	}
	write := func(name string, pid int) {
		if err := os.WriteFile(filepath.Join(data, name+".pid"), []byte(strconv.Itoa(pid)), 0o600); err != nil {
			panic(err)
		}
	}
	switch os.Getenv("HEARTH_TEST_CHILD_MODE") {
	case "spawner":
		write("plugin", os.Getpid())
		write("grandchild", start("sleep", nil).Process.Pid)
		if err := start("double-fork", &syscall.SysProcAttr{Setsid: true}).Wait(); err != nil {
			panic(err)
		}
		pluginrpc.Serve(weather.NewPlugin)
	case "double-fork":
		write("escapee", start("sleep", nil).Process.Pid)
		os.Exit(0)
	case "sleep":
		time.Sleep(time.Hour) // a descendant that must die with hearth: what the test checks
		os.Exit(0)
	}
}

// Nothing a plugin started outlives hearth killed with SIGKILL: the real
// binary runs a plugin that starts a grandchild and a process that left
// its group with setsid and a double fork.
func TestPluginProcessesDieWithHearth(t *testing.T) {
	srv := llmtest.NewServer(t)
	home := t.TempDir()
	dir := filepath.Join(home, "plugins", "spawner")
	if err := os.MkdirAll(dir, 0o700); err != nil {
		t.Fatal(err)
	}
	manifest := fmt.Sprintf(`{"id": "spawner", "command": [%q], "env": {"HEARTH_TEST_CHILD_MODE": "spawner"}}`, os.Args[0])
	if err := os.WriteFile(filepath.Join(dir, "plugin.json"), []byte(manifest), 0o600); err != nil {
		t.Fatal(err)
	}
	chat := exec.Command(os.Args[0], "chat")
	chat.Env = []string{"HEARTH_TEST_MAIN=1", childRace, "PATH=" + os.Getenv("PATH"), "HOME=" + t.TempDir(), "HEARTH_HOME=" + home, "OPENAI_BASE_URL=" + srv.URL, "HEARTH_MODEL=test-model"}
	stdin, err := chat.StdinPipe() // held open: the chat waits
	if err != nil {
		t.Fatal(err)
	}
	defer stdin.Close()
	var errb bytes.Buffer
	chat.Stderr = &errb
	if err := chat.Start(); err != nil {
		t.Fatal(err)
	}
	defer chat.Process.Kill()

	// The plugin's processes write their pids to files; no event tells
	// of them, or of their end (they are not this process's children):
	// poll, with a bound.
	pids := map[string]int{}
	deadline := time.Now().Add(30 * time.Second)
	for _, name := range []string{"plugin", "grandchild", "escapee"} {
		for pids[name] == 0 {
			b, _ := os.ReadFile(filepath.Join(home, "plugin_data", "spawner", name+".pid"))
			pids[name], _ = strconv.Atoi(string(b))
			if time.Now().After(deadline) {
				t.Fatalf("no %s pid (stderr %q)", name, errb.String())
			}
			time.Sleep(10 * time.Millisecond)
		}
	}
	if err := chat.Process.Signal(syscall.SIGKILL); err != nil {
		t.Fatal(err)
	}
	chat.Wait()
	deadline = time.Now().Add(30 * time.Second)
	for {
		var left []string
		for name, pid := range pids {
			if running(pid) {
				left = append(left, fmt.Sprintf("%s (pid %d)", name, pid))
			}
		}
		if len(left) == 0 {
			return
		}
		if time.Now().After(deadline) {
			for _, pid := range pids {
				syscall.Kill(pid, syscall.SIGKILL)
			}
			t.Fatalf("still running after hearth was killed: %s", strings.Join(left, ", "))
		}
		time.Sleep(10 * time.Millisecond)
	}
}

// running reports a live process; a zombie waiting for its parent is not.
func running(pid int) bool {
	b, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
	if err != nil {
		return false
	}
	i := bytes.LastIndexByte(b, ')')
	return i < 0 || i+2 >= len(b) || b[i+2] != 'Z'
}
