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
// re-executed as the plugin's supervisor, in a new session; the kernel
// sends the shim SIGCONT if Hearth dies, and the shim then kills
// everything below it. Without the shim the plugin runs directly in a new
// session and is killed if Hearth dies.
//
// A new session, not just a new process group: setpgid only moves a
// process into a group of its own session, and no call enters an
// existing session, so nothing the plugin starts can ever join Hearth's
// process group or session (which is how sweepAdopted tells Hearth's own
// processes from the plugins'). The session leader's process group id is
// its pid, so signalling -pid still reaches the group.
func pluginCommand(path, argv0 string, args []string) *exec.Cmd {
	if !shimEnabled.Load() {
		cmd := exec.Command(path, args...)
		cmd.Args[0] = argv0
		cmd.SysProcAttr = &syscall.SysProcAttr{Setsid: true, Pdeathsig: syscall.SIGKILL}
		return cmd
	}
	// /proc/self/exe is the running binary even if the file was replaced
	// (an upgrade) since Hearth started.
	cmd := exec.Command("/proc/self/exe", append([]string{shimArg, strconv.Itoa(os.Getpid()), path, argv0}, args...)...)
	cmd.Args[0] = os.Args[0]
	// SIGCONT, not SIGTERM: it also wakes a shim that something stopped
	// (SIGSTOP), which would leave a SIGTERM pending for ever. The shim
	// takes any signal as the order to clean up once Hearth is gone.
	cmd.SysProcAttr = &syscall.SysProcAttr{Setsid: true, Pdeathsig: syscall.SIGCONT}
	return cmd
}

func isShim(cmd *exec.Cmd) bool { return len(cmd.Args) > 1 && cmd.Args[1] == shimArg }

// started are the plugin processes (shims, or plugins without one) that
// Hearth started and has not reaped yet: its children that sweepAdopted
// must leave alone.
var started = struct {
	sync.Mutex
	live map[int]bool
}{live: map[int]bool{}}

var subreaper sync.Once

// startCommand starts cmd. For a shim, Hearth first becomes a child
// subreaper itself, the second line: if a shim is killed before it could
// clean up, the plugin's descendants come to Hearth instead of init, and
// sweepAdopted kills them.
func startCommand(cmd *exec.Cmd) error {
	if isShim(cmd) {
		subreaper.Do(func() { _ = unix.Prctl(unix.PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0) })
	}
	// Held across the start, so that a sweep never sees the new child
	// before it is known.
	started.Lock()
	defer started.Unlock()
	if err := cmd.Start(); err != nil {
		return err
	}
	started.live[cmd.Process.Pid] = true
	return nil
}

// waitCommand waits for cmd; after a shim, it sweeps at once what the
// shim left to Hearth.
func waitCommand(cmd *exec.Cmd) error {
	err := cmd.Wait()
	started.Lock()
	delete(started.live, cmd.Process.Pid)
	started.Unlock()
	if isShim(cmd) {
		sweepAdopted()
	}
	return err
}

// sweepAdopted kills and reaps the processes Hearth adopted as a
// subreaper. It decides by what a child is, not by what it claims: a
// child of Hearth that is not a plugin process Hearth started (live) and
// not in Hearth's own session came from a plugin, since every plugin
// starts in a new session and nothing can enter an existing one. The
// children Hearth's own code starts stay in its session (code that starts
// one with Setsid must not run beside plugins).
func sweepAdopted() {
	started.Lock()
	defer started.Unlock()
	self := os.Getpid()
	session, _ := unix.Getsid(0) // cannot fail for the caller
	deadline := time.Now().Add(5 * time.Second)
	for {
		// Until a pass finds nobody: killing or reaping one hands its
		// children to Hearth, perhaps after the pass read them.
		found := false
		for _, p := range children(self) {
			if started.live[p.pid] || p.sid == session {
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
