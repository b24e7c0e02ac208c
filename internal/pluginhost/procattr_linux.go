//go:build linux

package pluginhost

import (
	"os/exec"
	"syscall"
)

// setProcAttr puts the child in its own process group (so it and any
// grandchildren can be signalled together) and has the kernel kill it if
// Hearth dies.
func setProcAttr(cmd *exec.Cmd) {
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true, Pdeathsig: syscall.SIGKILL}
}

// signalGroup sends sig to the child's process group.
func signalGroup(cmd *exec.Cmd, sig syscall.Signal) {
	if cmd.Process != nil {
		_ = syscall.Kill(-cmd.Process.Pid, sig)
	}
}
