//go:build !unix

package pluginhost

import (
	"os/exec"
	"syscall"
)

// setProcAttr does nothing where process groups do not exist.
func setProcAttr(*exec.Cmd) {}

// signalGroup can only kill the child itself here.
func signalGroup(cmd *exec.Cmd, _ syscall.Signal) {
	if cmd.Process != nil {
		_ = cmd.Process.Kill()
	}
}
