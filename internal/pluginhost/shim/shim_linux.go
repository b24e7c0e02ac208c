//go:build linux

package shim

import (
	"os"
	"os/signal"
	"strconv"
	"syscall"
	"time"
)

// prSetChildSubreaper is PR_SET_CHILD_SUBREAPER from <linux/prctl.h>
// (golang.org/x/sys/unix has it, but importing it would initialize it and
// the packages sorted before it first; see the package doc).
const prSetChildSubreaper = 36

// Usable reports whether plugins can run under the shim: Linux has child
// subreapers and Pdeathsig; the shim needs /proc (to re-execute Hearth
// and to find its children).
func Usable() bool {
	_, err := os.Stat("/proc/self/exe")
	return err == nil
}

// run supervises one plugin: args are Hearth's pid, the plugin's path,
// and its argv. The plugin inherits the shim's stdin, stdout and stderr
// (nothing is copied). The shim becomes a child subreaper, so every
// orphaned descendant of the plugin becomes its child, and reaps them
// all. SIGTERM, SIGINT, SIGHUP and SIGQUIT from Hearth are passed on to
// the plugin; SIGUSR1 from Hearth, or any of these signals and SIGCONT
// once Hearth is gone (the kernel sends SIGCONT when it dies, which also
// wakes a shim that was stopped), kills the plugin. When the plugin has
// exited, every remaining descendant is killed and the shim exits with
// the plugin's status.
func run(args []string) int {
	// Before Hearth's pid is checked: a death after the check is heard.
	sigs := make(chan os.Signal, 8)
	signal.Notify(sigs, syscall.SIGTERM, syscall.SIGINT, syscall.SIGHUP, syscall.SIGQUIT, syscall.SIGUSR1)
	// The kernel sends SIGCONT each time the shim changes parent, and so
	// when each of Hearth's threads that was its parent exits: a burst
	// that could fill a channel and lose the last one, sent after Hearth
	// is gone. One slot is enough: a signal dropped while one waits is
	// handled when that one is, later.
	reparented := make(chan os.Signal, 1)
	signal.Notify(reparented, syscall.SIGCONT)
	if len(args) < 3 {
		os.Stderr.WriteString("hearth plugin shim: missing arguments\n")
		return 125
	}
	parent, err := strconv.Atoi(args[0])
	if err != nil || os.Getppid() != parent {
		return 125 // Hearth is already gone
	}
	if _, _, e := syscall.RawSyscall(syscall.SYS_PRCTL, prSetChildSubreaper, 1, 0); e != 0 {
		os.Stderr.WriteString("hearth plugin shim: becoming a subreaper: " + e.Error() + "\n")
		return 125
	}
	proc, err := os.StartProcess(args[1], args[2:], &os.ProcAttr{
		Env:   os.Environ(),
		Files: []*os.File{os.Stdin, os.Stdout, os.Stderr},
		Sys:   &syscall.SysProcAttr{Pdeathsig: syscall.SIGKILL},
	})
	if err != nil {
		os.Stderr.WriteString("hearth: starting the plugin: " + err.Error() + "\n")
		return 127
	}
	pid := proc.Pid
	plugin := make(chan syscall.WaitStatus, 1)
	allGone := make(chan struct{})
	go reapAll(pid, plugin, allGone)
	for {
		select {
		case ws := <-plugin:
			killAll(allGone)
			return exitLike(ws)
		case <-reparented:
			if os.Getppid() != parent {
				return killPlugin(pid, plugin, allGone)
			}
		case sig := <-sigs:
			if sig == syscall.SIGUSR1 || os.Getppid() != parent {
				return killPlugin(pid, plugin, allGone)
			}
			_ = syscall.Kill(pid, sig.(syscall.Signal))
		}
	}
}

// killPlugin kills the plugin and every other descendant, and returns the
// shim's exit status.
func killPlugin(pid int, plugin <-chan syscall.WaitStatus, allGone <-chan struct{}) int {
	_ = syscall.Kill(-pid, syscall.SIGKILL) // the plugin's group, if it made one
	_ = syscall.Kill(pid, syscall.SIGKILL)
	killAll(allGone)
	select {
	case ws := <-plugin:
		return exitLike(ws)
	default:
		return 128 + int(syscall.SIGKILL)
	}
}

// reapAll waits for every child, the plugin and the adopted orphans, until
// there are none; the plugin's status goes to plugin.
func reapAll(pid int, plugin chan<- syscall.WaitStatus, allGone chan<- struct{}) {
	defer close(allGone)
	for {
		var ws syscall.WaitStatus
		got, err := syscall.Wait4(-1, &ws, 0, nil)
		if err == syscall.EINTR {
			continue
		}
		if err != nil { // ECHILD: no children left
			return
		}
		if got == pid {
			plugin <- ws
		}
	}
}

// killAll kills the shim's children until none is left: killing one hands
// its own children to the shim, which kills them in the next round. It
// gives up after 10 s (a process stuck in the kernel); what is left then
// goes to Hearth when the shim exits.
func killAll(allGone <-chan struct{}) {
	self := os.Getpid()
	deadline := time.After(10 * time.Second)
	tick := time.NewTicker(2 * time.Millisecond)
	defer tick.Stop()
	for {
		for _, p := range Children(self) {
			if p.State != 'Z' {
				_ = syscall.Kill(p.Pid, syscall.SIGKILL)
			}
		}
		select {
		case <-allGone:
			return
		case <-deadline:
			return
		case <-tick.C:
		}
	}
}

// exitLike returns the plugin's exit code, or dies of the plugin's signal.
func exitLike(ws syscall.WaitStatus) int {
	if ws.Signaled() {
		sig := ws.Signal()
		signal.Reset()
		_ = syscall.Kill(os.Getpid(), sig)
		time.Sleep(100 * time.Millisecond) // a signal that does not kill falls through
		return 128 + int(sig)
	}
	return ws.ExitStatus()
}
