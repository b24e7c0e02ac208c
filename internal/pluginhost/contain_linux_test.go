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
	"os/signal"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/hearth-agent/hearth/internal/kernel"
	shimpkg "github.com/hearth-agent/hearth/internal/pluginhost/shim"
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
	case "joiner", "stopper":
		// The reviewer's escape: a double-forked grandchild that ignores
		// the polite signals, moves into Hearth's own process group, and
		// kills the shim (joiner) or stops it (stopper) when told to.
		// Only the first start does it; a restart just serves.
		data := os.Getenv("HEARTH_PLUGIN_DATA")
		if _, err := os.Stat(filepath.Join(data, "escapee.pid")); os.IsNotExist(err) {
			if err := os.WriteFile(filepath.Join(data, "plugin.pid"), []byte(strconv.Itoa(os.Getpid())), 0o600); err != nil {
				panic(err)
			}
			os.Setenv("HEARTH_TEST_SHIM", strconv.Itoa(os.Getppid()))
			os.Setenv("HEARTH_TEST_ACTION", mode)
			if err := startChild("join-fork", nil).Wait(); err != nil {
				panic(err)
			}
		}
		pluginrpc.Serve(newTestPlugin)
	case "join-fork":
		startChild("group-joiner", nil)
		os.Exit(0)
	case "group-joiner":
		signal.Ignore(syscall.SIGTERM, syscall.SIGINT, syscall.SIGHUP)
		data := os.Getenv("HEARTH_PLUGIN_DATA")
		shim, _ := strconv.Atoi(os.Getenv("HEARTH_TEST_SHIM"))
		st, ok := shimpkg.ReadProc(shim)
		if !ok {
			os.Exit(1)
		}
		joined := "joined"
		if group, err := syscall.Getpgid(st.PPid); err != nil {
			joined = err.Error()
		} else if err := syscall.Setpgid(0, group); err != nil {
			joined = err.Error()
		}
		_ = os.WriteFile(filepath.Join(data, "join.txt"), []byte(joined), 0o600)
		if err := os.WriteFile(filepath.Join(data, "escapee.pid"), []byte(strconv.Itoa(os.Getpid())), 0o600); err != nil {
			os.Exit(1)
		}
		for { // the test's cue comes through a file: poll it
			if _, err := os.Stat(filepath.Join(data, "go")); err == nil {
				sig := syscall.SIGKILL
				if os.Getenv("HEARTH_TEST_ACTION") == "stopper" {
					sig = syscall.SIGSTOP
				}
				_ = syscall.Kill(shim, sig)
				break
			}
			time.Sleep(10 * time.Millisecond)
		}
		time.Sleep(time.Hour) // a process that lives on unless contained: what the test checks
		os.Exit(0)
	case "sleeper":
		time.Sleep(time.Hour) // a descendant that must die with the plugin
		os.Exit(0)
	case "host":
		// Hearth, as far as plugins can tell: it starts one and reports
		// its pid; the test kills it with SIGKILL.
		k := kernel.New(nil, nil, nil)
		p, err := Start(os.Getenv("HEARTH_TEST_PLUGIN_DIR"), &Options{Host: k, DataDir: os.Getenv("HEARTH_TEST_DATA"),
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
		time.Sleep(time.Hour) // Hearth runs until the test kills it
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
// for its parent counts as gone), with a bounded deadline: they are not
// this process's children, so no event tells of their end.
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
	host, shim := startHost(t, "spawner", data)
	pids := spawnerPIDs(t, data)
	pids["shim"] = shim
	if err := host.Process.Signal(syscall.SIGKILL); err != nil {
		t.Fatal(err)
	}
	host.Wait()
	allGone(t, "after Hearth was killed", pids)
}

// killLeftovers kills what a failed test left running (never after a
// passing one, whose pids may have been reused since).
func killLeftovers(t *testing.T, pids map[string]int) {
	if t.Failed() {
		for _, pid := range pids {
			_ = syscall.Kill(pid, syscall.SIGKILL)
		}
	}
}

// startHost starts this test binary as Hearth running the plugin of the
// given mode, and returns it with the pid of the plugin's shim.
func startHost(t *testing.T, mode, data string) (*exec.Cmd, int) {
	t.Helper()
	host := exec.Command(os.Args[0])
	host.Env = append(os.Environ(), "HEARTH_TEST_CHILD=host", "HEARTH_TEST_PLUGIN_DIR="+pluginDir(t, mode, mode), "HEARTH_TEST_DATA="+data)
	stdout, err := host.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	host.Stderr = os.Stderr
	if err := host.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { host.Process.Kill(); host.Wait() })
	line, err := bufio.NewReader(stdout).ReadString('\n')
	var shim int
	if _, serr := fmt.Sscanf(line, "ready %d", &shim); err != nil || serr != nil {
		t.Fatalf("host: %q %v", line, err)
	}
	go io.Copy(io.Discard, stdout)
	return host, shim
}

// A plugin's grandchild that ignores SIGTERM, tries to hide in Hearth's
// own process group and then kills its shim is killed by Hearth at once,
// and is not there after Hearth is killed with SIGKILL either.
func TestGrandchildJoiningHearthsGroupAndKillingItsShimDies(t *testing.T) {
	data := t.TempDir()
	host, shim := startHost(t, "joiner", data)
	dir := filepath.Join(data, "plugin_data", "joiner")
	pids := map[string]int{"shim": shim}
	for _, name := range []string{"plugin", "escapee"} {
		pids[name] = readPID(t, filepath.Join(dir, name+".pid"))
		if !alive(pids[name]) {
			t.Fatalf("%s (pid %d) is not running", name, pids[name])
		}
	}
	t.Cleanup(func() { killLeftovers(t, pids) })
	if b, _ := os.ReadFile(filepath.Join(dir, "join.txt")); string(b) != syscall.EPERM.Error() {
		t.Errorf("moving into Hearth's process group: %q, want %q", b, syscall.EPERM.Error())
	}
	if err := os.WriteFile(filepath.Join(dir, "go"), nil, 0o600); err != nil {
		t.Fatal(err)
	}
	allGone(t, "after the shim was killed, with Hearth running", pids)
	if !alive(host.Process.Pid) || zombie(host.Process.Pid) {
		t.Fatal("Hearth died")
	}
	if err := host.Process.Signal(syscall.SIGKILL); err != nil {
		t.Fatal(err)
	}
	host.Wait()
	allGone(t, "after Hearth was killed", pids)
}

// A shim stopped by its plugin (SIGSTOP) still cleans up when Hearth is
// killed: the kernel wakes it.
func TestPluginStoppingItsShimLeavesNothingBehindHearthKilled(t *testing.T) {
	data := t.TempDir()
	host, shim := startHost(t, "stopper", data)
	dir := filepath.Join(data, "plugin_data", "stopper")
	pids := map[string]int{"shim": shim}
	for _, name := range []string{"plugin", "escapee"} {
		pids[name] = readPID(t, filepath.Join(dir, name+".pid"))
	}
	t.Cleanup(func() { killLeftovers(t, pids) })
	if err := os.WriteFile(filepath.Join(dir, "go"), nil, 0o600); err != nil {
		t.Fatal(err)
	}
	eventually(t, "the shim stopped", func() bool {
		b, err := os.ReadFile("/proc/" + strconv.Itoa(shim) + "/stat")
		return err == nil && strings.Contains(string(b), ") T ")
	})
	if err := host.Process.Signal(syscall.SIGKILL); err != nil {
		t.Fatal(err)
	}
	host.Wait()
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
