//go:build linux

package pluginhost

import (
	"bufio"
	"context"
	"fmt"
	"io"
	"log/slog"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/hearth-agent/hearth/internal/kernel"
	"github.com/hearth-agent/hearth/sdk/pluginrpc"
)

// runContainChild is the child side of the containment tests.
func runContainChild(mode string) {
	switch mode {
	case "spawner":
		// A plugin that leaves processes behind: a grandchild in its own
		// process group, and one that escapes it (setsid, then a double
		// fork, so it is nobody's child).
		data := os.Getenv("HEARTH_PLUGIN_DATA")
		write := func(name string, pid int) {
			if err := os.WriteFile(filepath.Join(data, name), []byte(strconv.Itoa(pid)), 0o600); err != nil {
				panic(err)
			}
		}
		write("plugin.pid", os.Getpid())
		write("grandchild.pid", startChild("sleeper", nil).Process.Pid)
		mid := startChild("double-fork", &syscall.SysProcAttr{Setsid: true})
		if err := mid.Wait(); err != nil {
			panic(err)
		}
		pluginrpc.Serve(newTestPlugin)
	case "double-fork":
		// In a new session: start the sleeper, report it, and exit, so it
		// is orphaned.
		c := startChild("sleeper", nil)
		if err := os.WriteFile(filepath.Join(os.Getenv("HEARTH_PLUGIN_DATA"), "escapee.pid"), []byte(strconv.Itoa(c.Process.Pid)), 0o600); err != nil {
			os.Exit(1)
		}
		os.Exit(0)
	case "sleeper":
		time.Sleep(time.Hour)
		os.Exit(0)
	case "host":
		// Hearth, as far as plugins can tell: it starts one and reports
		// its pid; the test kills it with SIGKILL.
		k := kernel.New(kernel.Config{}, nil, nil)
		p, err := Start(os.Getenv("HEARTH_TEST_PLUGIN_DIR"), Options{Host: k, DataDir: os.Getenv("HEARTH_TEST_DATA"),
			Log: slog.New(slog.NewTextHandler(os.Stderr, nil))})
		if err != nil {
			panic(err)
		}
		ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
		defer cancel()
		if err := p.WaitReady(ctx); err != nil {
			panic(err)
		}
		fmt.Printf("ready %d\n", p.Status().PID)
		time.Sleep(time.Hour)
		os.Exit(0)
	}
}

// startChild starts this test binary in another child mode, with the
// same environment.
func startChild(mode string, attr *syscall.SysProcAttr) *exec.Cmd {
	c := exec.Command(os.Args[0])
	c.Env = append(os.Environ(), "HEARTH_TEST_CHILD="+mode)
	c.SysProcAttr = attr
	if err := c.Start(); err != nil {
		panic(err)
	}
	return c
}

// readPID waits for a pid file the spawner plugin writes.
func readPID(t *testing.T, path string) int {
	t.Helper()
	var pid int
	eventually(t, "a pid in "+filepath.Base(path), func() bool {
		b, err := os.ReadFile(path)
		pid, _ = strconv.Atoi(string(b))
		return err == nil && pid > 0
	})
	return pid
}

// spawnerPIDs returns the plugin's pid and its two descendants', all alive.
func spawnerPIDs(t *testing.T, data string) map[string]int {
	t.Helper()
	pids := map[string]int{}
	for _, name := range []string{"plugin", "grandchild", "escapee"} {
		pids[name] = readPID(t, filepath.Join(data, "plugin_data", "spawner", name+".pid"))
		if !alive(pids[name]) {
			t.Fatalf("%s (pid %d) is not running", name, pids[name])
		}
	}
	return pids
}

// allGone polls /proc until none of the processes runs (a zombie waiting
// for its parent counts as gone), with a bounded deadline.
func allGone(t *testing.T, what string, pids map[string]int) {
	t.Helper()
	deadline := time.Now().Add(30 * time.Second)
	for {
		var left []string
		for name, pid := range pids {
			if alive(pid) && !zombie(pid) {
				left = append(left, fmt.Sprintf("%s (pid %d)", name, pid))
			}
		}
		if len(left) == 0 {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("%s: still running: %s", what, strings.Join(left, ", "))
		}
		time.Sleep(10 * time.Millisecond)
	}
}

// No process a plugin started outlives Hearth killed with SIGKILL: not a
// grandchild, not one that left the process group with setsid and a
// double fork.
func TestNoPluginProcessOutlivesHearthKilled(t *testing.T) {
	data := t.TempDir()
	host := exec.Command(os.Args[0])
	host.Env = append(os.Environ(), "HEARTH_TEST_CHILD=host", "HEARTH_TEST_PLUGIN_DIR="+pluginDir(t, "spawner", "spawner"), "HEARTH_TEST_DATA="+data)
	stdout, err := host.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	host.Stderr = os.Stderr
	if err := host.Start(); err != nil {
		t.Fatal(err)
	}
	defer host.Process.Kill()
	line, err := bufio.NewReader(stdout).ReadString('\n')
	var shim int
	if _, serr := fmt.Sscanf(line, "ready %d", &shim); err != nil || serr != nil {
		t.Fatalf("host: %q %v", line, err)
	}
	pids := spawnerPIDs(t, data)
	pids["shim"] = shim
	if err := host.Process.Signal(syscall.SIGKILL); err != nil {
		t.Fatal(err)
	}
	host.Wait()
	go io.Copy(io.Discard, stdout)
	allGone(t, "after Hearth was killed", pids)
}

// Stopping a plugin stops everything it started.
func TestStoppedPluginLeavesNothingBehind(t *testing.T) {
	f := newFixture(t)
	p := f.start(t, "spawner", "spawner")
	ready(t, p)
	pids := spawnerPIDs(t, f.data)
	p.Stop()
	allGone(t, "after Stop", pids)
}

// A plugin that kills its own supervisor does not escape either: its
// descendants come to Hearth, which kills them.
func TestPluginKillingItsShimLeavesNothingBehind(t *testing.T) {
	f := newFixture(t)
	p := f.start(t, "spawner", "spawner")
	ready(t, p)
	pids := spawnerPIDs(t, f.data)
	shim := p.Status().PID
	if shim == pids["plugin"] {
		t.Fatal("the plugin runs without a shim")
	}
	pids["shim"] = shim
	if err := syscall.Kill(shim, syscall.SIGKILL); err != nil {
		t.Fatal(err)
	}
	allGone(t, "after the shim was killed", pids)
}

func TestParseStat(t *testing.T) {
	tests := []struct {
		in   string
		want procStat
		ok   bool
	}{
		{"42 (sleep) S 7 42 7 0 -1", procStat{ppid: 7, pgid: 42, state: 'S'}, true},
		{"43 (a) Z (b) R 1 9 9 0", procStat{ppid: 1, pgid: 9, state: 'R'}, true},
		{"44 (x) Z 3", procStat{}, false},
		{"45 (broken", procStat{}, false},
		{"", procStat{}, false},
	}
	for _, tt := range tests {
		got, ok := parseStat([]byte(tt.in))
		if ok != tt.ok || (ok && got != tt.want) {
			t.Errorf("parseStat(%q) = %+v, %v; want %+v, %v", tt.in, got, ok, tt.want, tt.ok)
		}
	}
}
