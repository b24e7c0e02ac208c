//go:build linux

package pluginhost

import (
	"os"
	"os/exec"
	"strconv"
	"sync"
	"syscall"
	"time"

	"golang.org/x/sys/unix"
)

// pluginCommand returns the command that runs the plugin at path with
// argv argv0 args. Under the shim (see ShimMain) it is this binary,
// re-executed as the plugin's supervisor, in its own process group; the
// kernel sends the shim SIGTERM if Hearth dies, and the shim then kills
// everything below it. Without the shim the plugin runs directly in its
// own process group and is killed if Hearth dies.
func pluginCommand(path, argv0 string, args []string) *exec.Cmd {
	if !shimEnabled.Load() {
		cmd := exec.Command(path, args...)
		cmd.Args[0] = argv0
		cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true, Pdeathsig: syscall.SIGKILL}
		return cmd
	}
	// /proc/self/exe is the running binary even if the file was replaced
	// (an upgrade) since Hearth started.
	cmd := exec.Command("/proc/self/exe", append([]string{shimArg, strconv.Itoa(os.Getpid()), path, argv0}, args...)...)
	cmd.Args[0] = os.Args[0]
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true, Pdeathsig: syscall.SIGTERM}
	return cmd
}

func isShim(cmd *exec.Cmd) bool { return len(cmd.Args) > 1 && cmd.Args[1] == shimArg }

// shims are the running shims, Hearth's children that sweepAdopted must
// leave alone.
var shims = struct {
	sync.Mutex
	live map[int]bool
}{live: map[int]bool{}}

var subreaper sync.Once

// startCommand starts cmd. For a shim, Hearth first becomes a child
// subreaper itself, the second line: if a shim is killed before it could
// clean up, the plugin's descendants come to Hearth instead of init, and
// sweepAdopted kills them.
func startCommand(cmd *exec.Cmd) error {
	if !isShim(cmd) {
		return cmd.Start()
	}
	subreaper.Do(func() { _ = unix.Prctl(unix.PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0) })
	shims.Lock()
	defer shims.Unlock()
	if err := cmd.Start(); err != nil {
		return err
	}
	shims.live[cmd.Process.Pid] = true
	return nil
}

// waitCommand waits for cmd; after a shim, it sweeps what the shim may
// have left to Hearth.
func waitCommand(cmd *exec.Cmd) error {
	err := cmd.Wait()
	if isShim(cmd) {
		shims.Lock()
		delete(shims.live, cmd.Process.Pid)
		shims.Unlock()
		sweepAdopted()
	}
	return err
}

// sweepAdopted kills and reaps the processes Hearth adopted as a
// subreaper: its children that are neither a running shim nor in Hearth's
// own process group (children that Hearth's own code starts stay in it;
// code that starts one in a new group must not run beside plugins).
func sweepAdopted() {
	shims.Lock()
	defer shims.Unlock()
	self, group := os.Getpid(), syscall.Getpgrp()
	deadline := time.Now().Add(5 * time.Second)
	for {
		// Until a pass finds nobody: reaping one may have handed its
		// children to Hearth after the pass read them.
		found := false
		for _, p := range children(self) {
			if shims.live[p.pid] || p.pgid == group {
				continue
			}
			found = true
			if p.state == 'Z' {
				var ws unix.WaitStatus
				_, _ = unix.Wait4(p.pid, &ws, unix.WNOHANG, nil)
				continue
			}
			_ = unix.Kill(p.pid, unix.SIGKILL)
		}
		if !found || time.Now().After(deadline) {
			return
		}
		time.Sleep(2 * time.Millisecond)
	}
}

// signalPlugin asks the plugin to stop (SIGTERM) or ends it (SIGKILL).
// A shim passes SIGTERM on to the plugin, and takes SIGUSR1 as the order
// to kill the plugin and every descendant at once. A plugin without a
// shim gets sig in its whole process group.
func signalPlugin(cmd *exec.Cmd, sig syscall.Signal) {
	if cmd.Process == nil {
		return
	}
	if !isShim(cmd) {
		killGroupSig(cmd, sig)
		return
	}
	if sig == syscall.SIGKILL {
		sig = syscall.SIGUSR1
	}
	_ = cmd.Process.Signal(sig) // os.ErrProcessDone once reaped: never a reused pid
}

// killGroup kills cmd's whole process group: the fallback for a shim that
// did not finish in time.
func killGroup(cmd *exec.Cmd) { killGroupSig(cmd, syscall.SIGKILL) }

func killGroupSig(cmd *exec.Cmd, sig syscall.Signal) {
	// Only while the leader is not reaped: its pid, and so the group's
	// id, cannot have been reused.
	if cmd.Process != nil && cmd.Process.Signal(syscall.Signal(0)) == nil {
		_ = syscall.Kill(-cmd.Process.Pid, sig)
	}
}
