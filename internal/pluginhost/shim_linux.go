//go:build linux

package pluginhost

import (
	"bytes"
	"errors"
	"fmt"
	"os"
	"os/signal"
	"strconv"
	"syscall"
	"time"

	"golang.org/x/sys/unix"
)

// shimUsable reports whether plugins can run under the shim: Linux has
// child subreapers and Pdeathsig; the shim needs /proc (to re-execute
// Hearth and to find its children).
func shimUsable() bool {
	_, err := os.Stat("/proc/self/exe")
	return err == nil
}

// runShim supervises one plugin: args are Hearth's pid, the plugin's
// path, and its argv. The plugin inherits the shim's stdin, stdout and
// stderr (nothing is copied). The shim becomes a child subreaper, so
// every orphaned descendant of the plugin becomes its child, and reaps
// them all. SIGTERM, SIGINT, SIGHUP and SIGQUIT from Hearth are passed on
// to the plugin; SIGUSR1 from Hearth, or any of these signals and SIGCONT
// once Hearth is gone (the kernel sends SIGCONT when it dies, which also
// wakes a shim that was stopped), kills the plugin. When the plugin has
// exited, every remaining descendant is killed and the shim exits with
// the plugin's status.
func runShim(args []string) int {
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
		fmt.Fprintln(os.Stderr, "hearth plugin shim: missing arguments")
		return 125
	}
	parent, err := strconv.Atoi(args[0])
	if err != nil || os.Getppid() != parent {
		return 125 // Hearth is already gone
	}
	if err := unix.Prctl(unix.PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0); err != nil {
		fmt.Fprintf(os.Stderr, "hearth plugin shim: becoming a subreaper: %v\n", err)
		return 125
	}
	proc, err := os.StartProcess(args[1], args[2:], &os.ProcAttr{
		Env:   os.Environ(),
		Files: []*os.File{os.Stdin, os.Stdout, os.Stderr},
		Sys:   &syscall.SysProcAttr{Pdeathsig: syscall.SIGKILL},
	})
	if err != nil {
		fmt.Fprintf(os.Stderr, "hearth: starting the plugin: %v\n", err)
		return 127
	}
	pid := proc.Pid
	plugin := make(chan unix.WaitStatus, 1)
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
			_ = unix.Kill(pid, sig.(syscall.Signal))
		}
	}
}

// killPlugin kills the plugin and every other descendant, and returns the
// shim's exit status.
func killPlugin(pid int, plugin <-chan unix.WaitStatus, allGone <-chan struct{}) int {
	_ = unix.Kill(-pid, unix.SIGKILL) // the plugin's group, if it made one
	_ = unix.Kill(pid, unix.SIGKILL)
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
func reapAll(pid int, plugin chan<- unix.WaitStatus, allGone chan<- struct{}) {
	defer close(allGone)
	for {
		var ws unix.WaitStatus
		got, err := unix.Wait4(-1, &ws, 0, nil)
		if errors.Is(err, unix.EINTR) {
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
		for _, p := range children(self) {
			if p.state != 'Z' {
				_ = unix.Kill(p.pid, unix.SIGKILL)
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
func exitLike(ws unix.WaitStatus) int {
	if ws.Signaled() {
		sig := ws.Signal()
		signal.Reset()
		_ = unix.Kill(os.Getpid(), sig)
		time.Sleep(100 * time.Millisecond) // a signal that does not kill falls through
		return 128 + int(sig)
	}
	return ws.ExitStatus()
}

// procStat is what /proc/<pid>/stat says of one process.
type procStat struct {
	pid, ppid, sid int
	state          byte
}

// children lists the processes whose parent is ppid.
func children(ppid int) []procStat {
	d, err := os.Open("/proc")
	if err != nil {
		return nil
	}
	defer d.Close()
	names, _ := d.Readdirnames(-1)
	var out []procStat
	for _, n := range names {
		pid, err := strconv.Atoi(n)
		if err != nil {
			continue
		}
		if p, ok := readStat(pid); ok && p.ppid == ppid {
			out = append(out, p)
		}
	}
	return out
}

// readStat parses /proc/<pid>/stat: "pid (comm) state ppid pgrp session ...",
// where comm may hold spaces and parentheses.
func readStat(pid int) (procStat, bool) {
	b, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
	if err != nil {
		return procStat{}, false
	}
	p, ok := parseStat(b)
	p.pid = pid
	return p, ok
}

func parseStat(b []byte) (procStat, bool) {
	i := bytes.LastIndexByte(b, ')')
	if i < 0 || i+2 >= len(b) {
		return procStat{}, false
	}
	f := bytes.Fields(b[i+2:])
	if len(f) < 4 || len(f[0]) != 1 {
		return procStat{}, false
	}
	ppid, err1 := strconv.Atoi(string(f[1]))
	_, err2 := strconv.Atoi(string(f[2])) // the process group
	sid, err3 := strconv.Atoi(string(f[3]))
	if err1 != nil || err2 != nil || err3 != nil {
		return procStat{}, false
	}
	return procStat{ppid: ppid, sid: sid, state: f[0][0]}, true
}
