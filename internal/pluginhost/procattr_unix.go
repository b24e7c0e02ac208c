//go:build unix && !linux

package pluginhost

import (
	"os/exec"
	"syscall"
)

// pluginCommand runs the plugin in a new session, and so in its own
// process group, which nothing it starts can leave for Hearth's. Without
// Linux's Pdeathsig the plugin notices Hearth's death when its stdin
// closes, and descendants that leave the group or outlive Hearth are not
// contained.
func pluginCommand(path, argv0 string, args []string) *exec.Cmd {
	cmd := exec.Command(path, args...)
	cmd.Args[0] = argv0
	cmd.SysProcAttr = &syscall.SysProcAttr{Setsid: true}
	return cmd
}

func startCommand(cmd *exec.Cmd) error { return cmd.Start() }
func waitCommand(cmd *exec.Cmd) error  { return cmd.Wait() }

// signalPlugin sends sig to the plugin's process group.
func signalPlugin(cmd *exec.Cmd, sig syscall.Signal) {
	if cmd.Process != nil {
		_ = syscall.Kill(-cmd.Process.Pid, sig)
	}
}

// killGroup kills the plugin's process group.
func killGroup(cmd *exec.Cmd) { signalPlugin(cmd, syscall.SIGKILL) }
