//go:build unix && !linux

package pluginhost

import (
	"os/exec"
	"syscall"
)

// setProcAttr puts the child in its own process group. Without Linux's
// Pdeathsig the child notices Hearth's death when its stdin closes.
func setProcAttr(cmd *exec.Cmd) {
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
}

// signalGroup sends sig to the child's process group.
func signalGroup(cmd *exec.Cmd, sig syscall.Signal) {
	if cmd.Process != nil {
		_ = syscall.Kill(-cmd.Process.Pid, sig)
	}
}
